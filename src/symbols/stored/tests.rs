//! The symbol index answers from its table only for files the trigram image still vouches
//! for: changes by anyone, deletions, new files and a restart with files changed meanwhile.

use super::SymbolIndex;
use crate::cancel::Cancel;
use crate::config::{Config, IndexMode};
use crate::index::SearchIndex;
use crate::symbols::ondemand::{Needle, Scope};
use crate::symbols::query::{Mode, Name};
use crate::symbols::{candidates, definitions};
use crate::warnings::Warnings;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

fn write_old(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
    let old = SystemTime::now() - Duration::from_secs(3600);
    let f = std::fs::File::options().write(true).open(path).unwrap();
    f.set_modified(old).unwrap();
}

fn open(root: &Path, watch: bool) -> (Arc<Config>, SymbolIndex) {
    let config = Arc::new(Config::with_root(root));
    let index = SearchIndex::new(IndexMode::On, 1);
    let index = Arc::new(if watch { index } else { index.without_watch() });
    let symbols = SymbolIndex::new(index, config.clone());
    (config, symbols)
}

/// `path:line kind name` of every definition of `name`.
fn find(config: &Arc<Config>, symbols: &SymbolIndex, name: &str) -> Vec<String> {
    let all = |_: &Path| true;
    let scope = Scope {
        base: &config.workspace_root,
        is_file: false,
        filter: &all,
    };
    let needle = Needle::whole(name);
    let found = candidates(
        config,
        symbols,
        &Cancel::new(),
        &Warnings::default(),
        &scope,
        &needle,
    );
    let name = Name {
        qualifier: Vec::new(),
        name: name.into(),
    };
    definitions(&found.files, &name, Mode::Exact, None)
        .iter()
        .map(|h| format!("{}:{} {}", h.display, h.def.line, h.def.kind.as_str()))
        .collect()
}

/// The current image, once the first call (which scans and starts the build) and the build
/// are done.
fn ready_store(
    config: &Arc<Config>,
    symbols: &SymbolIndex,
    first: &str,
) -> Arc<crate::index::store::Store> {
    find(config, symbols, first);
    ready(symbols);
    symbols
        .search()
        .fresh_candidates(config, &config.workspace_root, None)
        .unwrap()
        .store
}

fn ready(symbols: &SymbolIndex) {
    assert!(symbols.wait_idle(Duration::from_secs(60)));
    assert_eq!(symbols.status()["state"], "ready", "{}", symbols.status());
}

fn changes_are_seen(watch: bool) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write_old(&root.join("src/a.rs"), "pub fn alpha() {}\nfn keep() {}\n");
    write_old(&root.join("py/b.py"), "def beta():\n    pass\n");
    write_old(&root.join("py/dup.py"), "def beta():\n    pass\n");
    write_old(&root.join("notes.md"), "alpha in prose\n");
    let (config, symbols) = open(root, watch);
    // The first call scans (and starts the index: searchIndex "on").
    let store = ready_store(&config, &symbols, "alpha");
    assert!(symbols.table_for(&store).is_some());
    assert_eq!(find(&config, &symbols, "alpha"), ["src/a.rs:1 function"]);
    assert_eq!(
        find(&config, &symbols, "beta"),
        ["py/b.py:1 function", "py/dup.py:1 function"]
    );
    // Written by another process (as far as the index knows): the table's record is stale.
    std::fs::write(
        root.join("src/a.rs"),
        "fn keep() {}\n\npub fn alpha2() {}\nfn gamma() {}\n",
    )
    .unwrap();
    std::fs::write(root.join("src/new.rs"), "struct Delta;\n").unwrap();
    std::fs::remove_file(root.join("py/b.py")).unwrap();
    assert_eq!(find(&config, &symbols, "alpha"), Vec::<String>::new());
    assert_eq!(find(&config, &symbols, "gamma"), ["src/a.rs:4 function"]);
    assert_eq!(find(&config, &symbols, "keep"), ["src/a.rs:1 function"]);
    assert_eq!(find(&config, &symbols, "Delta"), ["src/new.rs:1 struct"]);
    assert_eq!(find(&config, &symbols, "beta"), ["py/dup.py:1 function"]);
    drop(symbols);

    // A restart: the persisted table is loaded, not rebuilt; what changed meanwhile is parsed.
    let table = root.join(".clarvis/index/symbols.idx");
    let written = std::fs::read(&table).unwrap();
    std::fs::write(root.join("py/dup.py"), "def epsilon():\n    pass\n").unwrap();
    let (config, symbols) = open(root, watch);
    find(&config, &symbols, "epsilon");
    ready(&symbols);
    assert_eq!(
        std::fs::read(&table).unwrap(),
        written,
        "the table was rebuilt"
    );
    assert_eq!(find(&config, &symbols, "epsilon"), ["py/dup.py:1 function"]);
    assert_eq!(find(&config, &symbols, "beta"), Vec::<String>::new());
    assert_eq!(find(&config, &symbols, "gamma"), ["src/a.rs:4 function"]);
}

#[test]
fn with_notifications_every_change_is_seen_and_a_restart_loads_the_table() {
    changes_are_seen(true);
}

#[test]
fn without_notifications_every_change_is_seen_and_a_restart_loads_the_table() {
    changes_are_seen(false);
}

#[test]
fn a_damaged_table_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write_old(&root.join("a.rs"), "fn alpha() {}\n");
    let (config, symbols) = open(root, false);
    let store = ready_store(&config, &symbols, "alpha");
    let path = root.join(".clarvis/index/symbols.idx");
    assert!(super::table::Table::open(&path, &store).is_ok());
    let mut bytes = std::fs::read(&path).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 1;
    std::fs::write(&path, &bytes).unwrap();
    assert!(super::table::Table::open(&path, &store).is_err());
}

/// The display paths `wanted` returns for `name` under `want`, and how many candidates the
/// table passed over.
fn wanted_files(
    config: &Arc<Config>,
    symbols: &SymbolIndex,
    name: &str,
    want: crate::symbols::Want,
) -> (Vec<String>, usize) {
    let all = |_: &Path| true;
    let scope = Scope {
        base: &config.workspace_root,
        is_file: false,
        filter: &all,
    };
    let needle = Needle::whole(name);
    let found = crate::symbols::wanted(
        config,
        symbols,
        &Cancel::new(),
        &Warnings::default(),
        &scope,
        &needle,
        want,
    );
    let files = found.files.iter().map(|f| f.display.clone()).collect();
    (files, found.passed_over)
}

#[test]
fn the_table_decodes_only_the_records_a_query_wants() {
    use crate::symbols::Want;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write_old(&root.join("def.rs"), "pub fn target() {}\n");
    write_old(&root.join("user.rs"), "fn other() { target(); }\n");
    // Holds the name inside a longer identifier only.
    write_old(&root.join("longer.rs"), "fn target_two() {}\n");
    // Uses it, and does not parse cleanly.
    write_old(&root.join("broken.rs"), "fn b() { target( }\n");
    write_old(
        &root.join("prose.rs"),
        "// target in a comment only\nfn c() {}\n",
    );
    let (config, symbols) = open(root, true);
    ready_store(&config, &symbols, "target");
    let (all, passed) = wanted_files(&config, &symbols, "target", Want::Holding);
    assert_eq!(all, ["broken.rs", "def.rs", "longer.rs", "user.rs"]);
    assert_eq!(passed, 0);
    // Definitions: the definer, and the file with errors (for the note); a longer name
    // defined counts under prefix matching.
    let (defs, passed) = wanted_files(&config, &symbols, "target", Want::Defining(Mode::Exact));
    assert_eq!(defs, ["broken.rs", "def.rs"]);
    assert_eq!(passed, 3);
    let (defs, _) = wanted_files(&config, &symbols, "target", Want::Defining(Mode::Prefix));
    assert_eq!(defs, ["broken.rs", "def.rs", "longer.rs"]);
    // Uses: the definer, the user, the file with errors; not the longer name.
    let (uses, passed) = wanted_files(&config, &symbols, "target", Want::Using);
    assert_eq!(uses, ["broken.rs", "def.rs", "user.rs"]);
    assert_eq!(passed, 2);
    // The same definitions either way.
    assert_eq!(find(&config, &symbols, "target"), ["def.rs:1 function"]);
}
