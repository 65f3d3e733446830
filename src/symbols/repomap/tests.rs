//! The cached ranking answers as a scan of the same files would: with the index ready, after
//! writes, new and deleted files, and from disk after a restart.

use super::render::render;
use super::{answer, map_of, persist, Map};
use crate::cancel::Cancel;
use crate::config::{Config, IndexMode};
use crate::index::SearchIndex;
use crate::symbols::ondemand::{scan, Needle, Scope};
use crate::symbols::stored::SymbolIndex;
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

fn tree(root: &Path) {
    for i in 0..12 {
        write_old(
            &root.join(format!("pkg{}/mod{i}.ts", i % 3)),
            &format!("import {{ shared }} from '../core'\nexport function fn{i}(x: number): number {{\n  return shared(x) + helper{}(x)\n}}\nexport function helper{i}(x: number) {{ return x }}\n", (i + 1) % 12),
        );
        write_old(
            &root.join(format!("py/m{i}.py")),
            &format!(
                "from core import shared\n\ndef py_fn{i}(x):\n    return shared(x) + py_fn{}(x)\n",
                (i + 5) % 12
            ),
        );
    }
    write_old(
        &root.join("core.ts"),
        "export function shared(x: number): number {\n  return x\n}\nexport class Store {\n  load(): void {}\n}\n",
    );
    write_old(
        &root.join("lib.rs"),
        "pub struct Config { port: u16 }\nimpl Config {\n    pub fn load() -> Config { Config { port: 1 } }\n}\n",
    );
    write_old(&root.join("README.md"), "shared is documented here\n");
}

fn open(root: &Path) -> (Arc<Config>, SymbolIndex) {
    let config = Arc::new(Config::with_root(root));
    let index = Arc::new(SearchIndex::new(IndexMode::On, 1).without_watch());
    let symbols = SymbolIndex::new(index, config.clone());
    (config, symbols)
}

/// The map as a scan ranks it (no index: every file read and parsed).
fn scanned(config: &Arc<Config>) -> Map {
    let all = |_: &Path| true;
    let scope = Scope {
        base: &config.workspace_root,
        is_file: false,
        filter: &all,
    };
    let needle = Needle::anywhere("", false);
    let found = scan(
        config,
        &Cancel::new(),
        &Warnings::default(),
        &scope,
        &needle,
    );
    map_of(&found.files, &found.skipped)
}

fn cached(config: &Arc<Config>, symbols: &SymbolIndex) -> Arc<Map> {
    answer(config, symbols, &Cancel::new(), &Warnings::default()).unwrap()
}

/// Renders with a few budgets and scopes: what a user sees.
fn shown(map: &Map) -> Vec<String> {
    let py = |d: &str| d.starts_with("py/");
    let ts = |d: &str| d.ends_with(".ts");
    let mut out = Vec::new();
    for budget in [100_000, 600, 60] {
        out.push(render(map, None, budget));
        out.push(render(map, Some(&py), budget));
        out.push(render(map, Some(&ts), budget));
    }
    out
}

/// Waits until the postings and the symbol table of the current image are ready.
fn ready(config: &Arc<Config>, symbols: &SymbolIndex) {
    // The first call scans and starts the build.
    cached(config, symbols);
    assert!(symbols.wait_idle(Duration::from_secs(60)));
    assert_eq!(symbols.status()["state"], "ready", "{}", symbols.status());
}

#[test]
fn the_cached_ranking_is_the_scan_s_and_follows_every_change() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    tree(root);
    let (config, symbols) = open(root);
    ready(&config, &symbols);
    let first = cached(&config, &symbols);
    assert_eq!(shown(&first), shown(&scanned(&config)));
    assert!(render(&first, None, 100_000).starts_with("core.ts\n  1: export function shared"));
    // Warm: the same ranking, not another.
    assert!(Arc::ptr_eq(&first, &cached(&config, &symbols)));
    let persisted = root.join(".clarvis/index").join(persist::FILE);
    for _ in 0..500 {
        if persisted.exists() {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(
        persisted.exists(),
        "the ranking is written beside the table"
    );

    // Another process writes in place, adds a file, deletes one (no notifications: the
    // revalidation finds them).
    std::fs::write(
        root.join("core.ts"),
        "export function shared(x: number): number {\n  return x\n}\nexport function brandNew() {}\n",
    )
    .unwrap();
    std::fs::write(
        root.join("pkg1/extra.ts"),
        "import { fn1 } from './mod1'\nexport const uses = fn1(1) + fn1(2)\n",
    )
    .unwrap();
    std::fs::remove_file(root.join("py/m3.py")).unwrap();
    let after = cached(&config, &symbols);
    let map = render(&after, None, 100_000);
    assert!(map.contains("  4: export function brandNew() {}"), "{map}");
    assert!(!map.contains("py/m3.py"), "{map}");
    assert!(!map.contains("class Store"), "{map}");
    assert_eq!(shown(&after), shown(&scanned(&config)));
    // The same delta again: the adjusted ranking is kept.
    assert!(Arc::ptr_eq(&after, &cached(&config, &symbols)));
    // A further change makes another.
    std::fs::write(root.join("lib.rs"), "pub fn only() {}\n").unwrap();
    let again = cached(&config, &symbols);
    assert!(!Arc::ptr_eq(&after, &again));
    assert_eq!(shown(&again), shown(&scanned(&config)));
    assert!(render(&again, None, 100_000).contains("lib.rs\n  1: pub fn only() {}"));
}

#[test]
fn a_restart_loads_the_persisted_ranking() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    tree(root);
    let persisted = root.join(".clarvis/index").join(persist::FILE);
    let before = {
        let (config, symbols) = open(root);
        ready(&config, &symbols);
        let map = cached(&config, &symbols);
        for _ in 0..500 {
            if persisted.exists() {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        shown(&map)
    };
    // The file as written, then doctored (validly): a restart that shows the doctored line
    // read it rather than ranking again.
    let written = std::fs::read(&persisted).unwrap();
    let table = written[8..40].to_vec();
    let mut image = persist::decode(&written, &table).unwrap();
    let mut map = (*image.map).clone();
    let core = map
        .files
        .iter()
        .position(|f| &*f.display == "core.ts")
        .unwrap();
    let mut file = (*map.files[core]).clone();
    file.text = file.text.replacen("shared", "SHARED", 1);
    map.files[core] = Arc::new(file);
    image.map = Arc::new(map);
    std::fs::write(&persisted, persist::encode(&image)).unwrap();
    let (config, symbols) = open(root);
    ready(&config, &symbols);
    let map = cached(&config, &symbols);
    assert_eq!(shown(&map)[0], before[0].replacen("shared", "SHARED", 1));
    // A file changed while no host ran is in the delta.
    std::fs::write(root.join("core.ts"), "export function restarted() {}\n").unwrap();
    let after = cached(&config, &symbols);
    assert!(render(&after, None, 100_000).contains("core.ts\n  1: export function restarted"));
    assert_eq!(shown(&after), shown(&scanned(&config)));
}

#[test]
fn a_persisted_ranking_of_another_table_or_damaged_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    tree(root);
    let (config, symbols) = open(root);
    ready(&config, &symbols);
    cached(&config, &symbols);
    let image = symbols.map.image.lock().unwrap().clone().unwrap();
    let bytes = persist::encode(&image);
    let back = persist::decode(&bytes, &image.table).unwrap();
    assert_eq!(shown(&back.map), shown(&image.map));
    assert_eq!(back.nodes, image.nodes);
    assert_eq!(
        (back.ids, back.skipped_ids),
        (image.ids.clone(), image.skipped_ids.clone())
    );
    assert!(persist::decode(&bytes, &[7u8; 32]).is_none());
    for at in [9, bytes.len() / 2, bytes.len() - 1] {
        let mut bad = bytes.clone();
        bad[at] ^= 1;
        assert!(persist::decode(&bad, &image.table).is_none(), "{at}");
    }
    assert!(persist::decode(&bytes[..bytes.len() - 5], &image.table).is_none());
}

#[test]
fn the_map_fits_its_budget_best_first() {
    let dir = tempfile::tempdir().unwrap();
    tree(dir.path());
    let map = scanned(&Arc::new(Config::with_root(dir.path())));
    let full = render(&map, None, 1 << 20);
    assert!(
        full.ends_with("of 26 source files (1 in other languages not mapped)]"),
        "{full}"
    );
    let mut last = 0;
    for budget in (0..full.len() + 10).step_by(7) {
        let text = render(&map, None, budget);
        assert!(text.len() <= budget, "{budget}: {text}");
        let shown: usize = text
            .rsplit("[repo map: ")
            .next()
            .and_then(|f| f.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        // A larger budget never shows fewer definitions, and shows the best ones.
        assert!(shown >= last, "{budget}");
        last = shown;
        if shown > 0 {
            assert!(
                text.starts_with("core.ts\n  1: export function shared"),
                "{text}"
            );
        }
    }
}
