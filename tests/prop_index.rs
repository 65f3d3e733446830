//! The search index's contract, as properties over random trees and queries:
//!
//! - grep with a ready index returns exactly what the scan returns (same rows, order,
//!   footers) for random literal and regex queries built from the trees' identifiers —
//!   case-insensitive, multiline, globs, sub-paths, every output mode;
//! - it still does after random edits made behind the index's back (in-place rewrites, new
//!   files, new directories, deletions, a changed `.gitignore`);
//! - glob with a ready index lists exactly the walk's files (same mtimes, same order),
//!   before and after the edits;
//! - the index really narrows (a rare literal's candidates are fewer than the files);
//! - a torn or corrupt image on disk is never used: it is rebuilt.
//!
//! Unix only: the index is off elsewhere (SPEC.md, Platforms).
#![cfg(unix)]

use clarvis_agent_tools::cancel::Cancel;
use clarvis_agent_tools::config::{Config, IndexMode as Mode};
use clarvis_agent_tools::index::{plan, SearchIndex};
use clarvis_agent_tools::runtime::Runtime;
use clarvis_agent_tools::tools::{self, Call, Handler};
use proptest::prelude::*;
use proptest::test_runner::{Config as RunnerConfig, TestCaseError, TestRunner};
use serde_json::{json, Value};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

const WORDS: &[&str] = &[
    "TypeError",
    "RangeError",
    "typeerror",
    "fooBar",
    "foo_bar",
    "FOOBAR",
    "colour",
    "color",
    "kelvin",
    "\u{212A}elvin",
    "straße",
    "STRASSE",
    "x",
    "  ",
    "\t",
    "(a, b)",
    "return",
    "let y = 1;",
    "é",
    "0x1F",
    // Bytes ≥ 0x80 share their trigram classes with control codes (`grams::class`): U+0080
    // is C2 80, and 0x80 shares the class of U+0001.
    "\u{80}",
    "\u{1}",
    "a\u{1}b",
];
const DIRS: &[&str] = &[
    "",
    "src/",
    "src/deep/",
    "lib/",
    "build/",
    "docs/x/",
    "src/moved/",
];
const NAMES: &[&str] = &["main.rs", "util.ts", "a.txt", "B.md", "run.log", "z.rs"];

#[derive(Debug, Clone)]
struct File {
    path: String,
    bytes: Vec<u8>,
}

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::collection::vec(prop::sample::select(WORDS), 0..6).prop_map(|w| w.join(" ")),
        0..8,
    )
    .prop_map(|lines| lines.join("\n"))
}

fn file() -> impl Strategy<Value = File> {
    (
        prop::sample::select(DIRS),
        prop::sample::select(NAMES),
        text(),
        0..10u8,
    )
        .prop_map(|(dir, name, text, kind)| {
            let bytes = match kind {
                // CRLF endings, a UTF-8 BOM, UTF-16LE, a binary file.
                0 => text.replace('\n', "\r\n").into_bytes(),
                1 => [b"\xEF\xBB\xBF".as_slice(), text.as_bytes()].concat(),
                2 => {
                    let mut b = vec![0xFF, 0xFE];
                    b.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
                    b
                }
                3 => [text.as_bytes(), b"\0"].concat(),
                _ => text.into_bytes(),
            };
            File {
                path: format!("{dir}{name}"),
                bytes,
            }
        })
}

/// Files, some of them byte-for-byte copies of others in other places: the build posts one
/// copy of a text and expands it to the rest, and an edit of that one must not hide the rest.
fn files() -> impl Strategy<Value = Vec<File>> {
    (
        prop::collection::vec(file(), 1..24),
        prop::collection::vec((any::<usize>(), any::<usize>()), 0..10),
    )
        .prop_map(|(mut files, copies)| {
            let n = files.len();
            for (from, to) in copies {
                files[to % n].bytes = files[from % n].bytes.clone();
            }
            files
        })
}

#[derive(Debug, Clone)]
struct Query {
    pattern: String,
    ignore_case: bool,
    multiline: bool,
    mode: &'static str,
    glob: Option<&'static str>,
    path: &'static str,
    context: u64,
}

fn escape(w: &str) -> String {
    regex_syntax::escape(w)
}

fn pattern() -> impl Strategy<Value = String> {
    let w = || prop::sample::select(WORDS).prop_map(escape);
    prop_oneof![
        3 => w(),
        1 => (w(), w()).prop_map(|(a, b)| format!("{a}|{b}")),
        1 => Just("(Type|Range)Error".to_string()),
        1 => (w(), w()).prop_map(|(a, b)| format!("{a}.*{b}")),
        1 => (w(), w()).prop_map(|(a, b)| format!(r"{a}\s+{b}")),
        1 => w().prop_map(|a| format!("^{a}")),
        1 => w().prop_map(|a| format!(r"\b{a}\b")),
        1 => Just("colou?r".to_string()),
        1 => Just(r"foo[_B]ar".to_string()),
        1 => Just(r"\w+Error".to_string()),
        1 => Just(r"Error\n\w".to_string()),
    ]
}

fn query() -> impl Strategy<Value = Query> {
    (
        pattern(),
        any::<bool>(),
        prop::bool::weighted(0.2),
        prop::sample::select(&["files_with_matches", "content", "count"][..]),
        prop::sample::select(&[None, None, Some("*.rs"), Some("src/**")][..]),
        prop::sample::select(&["", "", "src", "build", "docs/x"][..]),
        0..2u64,
    )
        .prop_map(
            |(pattern, ignore_case, multiline, mode, glob, path, context)| Query {
                pattern,
                ignore_case,
                multiline,
                mode,
                glob,
                path,
                context,
            },
        )
}

#[derive(Debug, Clone)]
enum Edit {
    Rewrite(usize, String),
    Create(usize, String),
    Delete(usize),
    NewDir(String),
    Ignore(&'static str),
    /// Renames `src/deep` to `src/moved`, or back.
    MoveDir,
    /// Removes `lib/` and everything in it.
    RemoveDir,
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        4 => (any::<usize>(), text()).prop_map(|(i, t)| Edit::Rewrite(i, t)),
        2 => (any::<usize>(), text()).prop_map(|(i, t)| Edit::Create(i, t)),
        1 => any::<usize>().prop_map(Edit::Delete),
        1 => text().prop_map(Edit::NewDir),
        1 => prop::sample::select(&["build/\n", "*.rs\n", "!build/\n"][..]).prop_map(Edit::Ignore),
        1 => Just(Edit::MoveDir),
        1 => Just(Edit::RemoveDir),
    ]
}

/// Runs the blocking tool `name` with `args`, as text (or the error).
fn run_tool(config: &Arc<Runtime>, name: &str, args: Value) -> String {
    let def = tools::all()
        .iter()
        .find(|t| t.name == name)
        .expect("a registered tool");
    let Handler::Blocking(run) = def.handler else {
        panic!("{name} is blocking")
    };
    let call = Call::new(
        args.as_object().cloned().unwrap_or_default(),
        config.clone(),
        Cancel::new(),
    );
    match run(&call) {
        Ok(o) => o.joined_text(),
        Err(e) => format!("error {}: {}", e.code.as_str(), e.message),
    }
}

fn grep(config: &Arc<Runtime>, q: &Query) -> String {
    let mut args = json!({
        "pattern": q.pattern,
        "ignore_case": q.ignore_case,
        "multiline": q.multiline,
        "output_mode": q.mode,
        "path": q.path,
        "context": q.context,
    });
    if let Some(g) = q.glob {
        args["glob"] = Value::from(g);
    }
    run_tool(config, "grep", args)
}

/// `glob` of `pattern` under `path`, as text (or the error).
fn glob(config: &Arc<Runtime>, pattern: &str, path: &str) -> String {
    run_tool(config, "glob", json!({ "pattern": pattern, "path": path }))
}

const GLOBS: &[&str] = &[
    "**",
    "**/*.rs",
    "*",
    "src/**",
    "**/B.md",
    "*/*.{ts,txt}",
    "**/deep/*",
];

fn config(root: &Path, mode: Mode) -> Arc<Runtime> {
    with_index(root, SearchIndex::new(mode, 1))
}

/// A tools object on `root` whose search index is `index`.
fn with_index(root: &Path, index: SearchIndex) -> Arc<Runtime> {
    Runtime::new(Config::with_root(root))
        .with_index(index)
        .shared()
}

/// Ages every entry by an hour, so no timestamp is "racy" and the index is really used.
fn age(root: &Path) {
    let old = SystemTime::now() - Duration::from_secs(3600);
    let mut stack = vec![root.to_path_buf()];
    let mut dirs = Vec::new();
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if let Ok(f) = std::fs::File::options().write(true).open(&p) {
                f.set_modified(old).unwrap();
            }
        }
        dirs.push(d);
    }
    for d in dirs.iter().rev() {
        std::fs::File::open(d).unwrap().set_modified(old).unwrap();
    }
}

fn write(root: &Path, rel: &str, bytes: &[u8]) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, bytes).unwrap();
}

fn ready(config: &Arc<Runtime>) -> Result<(), TestCaseError> {
    // The first grep starts the background build; it never waits for it.
    grep(config, &QUERY_ANY);
    prop_assert!(config.index.wait_idle(Duration::from_secs(60)));
    prop_assert_eq!(&config.index.status()["state"], "ready");
    Ok(())
}

const QUERY_ANY: Query = Query {
    pattern: String::new(),
    ignore_case: false,
    multiline: false,
    mode: "files_with_matches",
    glob: None,
    path: "",
    context: 0,
};

fn apply(root: &Path, files: &[File], e: &Edit) {
    match e {
        Edit::Rewrite(i, t) if !files.is_empty() => {
            let f = &files[i % files.len()];
            if root.join(&f.path).exists() {
                std::fs::write(root.join(&f.path), t).unwrap();
            }
        }
        Edit::Create(i, t) => {
            let path = format!("{}new{i}.rs", DIRS[i % DIRS.len()]);
            write(root, &path, t.as_bytes());
        }
        Edit::Delete(i) if !files.is_empty() => {
            let _ = std::fs::remove_file(root.join(&files[i % files.len()].path));
        }
        Edit::NewDir(t) => write(root, "src/fresh/dir/n.rs", t.as_bytes()),
        Edit::Ignore(rules) => write(root, ".gitignore", rules.as_bytes()),
        Edit::MoveDir => {
            let (a, b) = (root.join("src/deep"), root.join("src/moved"));
            let _ = std::fs::rename(&a, &b).or_else(|_| std::fs::rename(&b, &a));
        }
        Edit::RemoveDir => {
            let _ = std::fs::remove_dir_all(root.join("lib"));
        }
        _ => {}
    }
}

// Back in `npm test` (and run five more times by `npm run soak`): it found a freshness race
// one run in 25 (a `.gitignore` rewritten during a build); fixed, it passed 80 runs, then 30
// more after the build moved to per-range radix-sorted posting lists.
#[test]
fn indexed_grep_equals_the_scan_before_and_after_edits() {
    let mut runner = TestRunner::new(RunnerConfig {
        cases: 32,
        failure_persistence: None,
        ..RunnerConfig::default()
    });
    let strategy = (
        files(),
        prop::collection::vec(query(), 1..8),
        prop::collection::vec(edit(), 0..5),
    );
    // How many queries the index answered (the rest scanned): the property must not hold
    // only because every query fell back to the scan.
    let (used, asked) = (AtomicUsize::new(0), AtomicUsize::new(0));
    runner
        .run(&strategy, |(files, queries, edits)| {
            let dir = tempfile::tempdir().unwrap();
            let root = dir.path();
            write(root, ".gitignore", b"build/\n*.log\n");
            for f in &files {
                write(root, &f.path, &f.bytes);
            }
            age(root);
            let (on, off) = (config(root, Mode::On), config(root, Mode::Off));
            // The same index kept fresh by metadata alone (no inotify).
            let stat = with_index(root, SearchIndex::new(Mode::On, 1).without_watch());
            ready(&on)?;
            ready(&stat)?;
            // glob answers from the index's file list: the walk's files, order and mtimes.
            let globs_equal = |when: &str| -> Result<(), TestCaseError> {
                for (i, q) in queries.iter().enumerate() {
                    let g = GLOBS[i % GLOBS.len()];
                    let want = glob(&off, g, q.path);
                    prop_assert_eq!(
                        &glob(&on, g, q.path),
                        &want,
                        "glob {} in {:?} {}",
                        g,
                        q.path,
                        when
                    );
                    prop_assert_eq!(
                        &glob(&stat, g, q.path),
                        &want,
                        "glob {} in {:?} {} (no watch)",
                        g,
                        q.path,
                        when
                    );
                    asked.fetch_add(1, Ordering::Relaxed);
                    if on
                        .index
                        .files(&on.config, &root.join(q.path), |_| true)
                        .is_some()
                    {
                        used.fetch_add(1, Ordering::Relaxed);
                    }
                }
                Ok(())
            };
            globs_equal("before edits")?;
            for q in &queries {
                let want = grep(&off, q);
                prop_assert_eq!(&grep(&on, q), &want, "query {:?}", q);
                prop_assert_eq!(&grep(&stat, q), &want, "query {:?} (no watch)", q);
                asked.fetch_add(1, Ordering::Relaxed);
                let base = root.join(q.path);
                if plan::plan(&q.pattern, q.ignore_case, q.multiline)
                    .and_then(|p| on.index.candidates(&on.config, &base, &p))
                    .is_some()
                {
                    used.fetch_add(1, Ordering::Relaxed);
                }
            }
            for e in &edits {
                apply(root, &files, e);
                let q = &queries[0];
                let want = grep(&off, q);
                prop_assert_eq!(&grep(&on, q), &want, "after {:?}: {:?}", e, q);
                prop_assert_eq!(&grep(&stat, q), &want, "after {:?}: {:?} (no watch)", e, q);
                let want = glob(&off, "**", q.path);
                prop_assert_eq!(&glob(&on, "**", q.path), &want, "glob after {:?}", e);
                prop_assert_eq!(
                    &glob(&stat, "**", q.path),
                    &want,
                    "glob after {:?} (no watch)",
                    e
                );
            }
            globs_equal("after edits")?;
            for q in &queries {
                let want = grep(&off, q);
                prop_assert_eq!(&grep(&on, q), &want, "after {:?}: {:?}", edits, q);
                prop_assert_eq!(
                    &grep(&stat, q),
                    &want,
                    "after {:?}: {:?} (no watch)",
                    edits,
                    q
                );
            }
            Ok(())
        })
        .unwrap();
    let (used, asked) = (used.into_inner(), asked.into_inner());
    assert!(
        used * 2 > asked,
        "the index answered {used} of {asked} queries"
    );
}

#[test]
fn a_rare_literal_narrows_to_its_files() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for i in 0..200 {
        write(
            root,
            &format!("d{}/f{i}.txt", i % 7),
            format!("common text {i}\n").as_bytes(),
        );
    }
    write(root, "d3/needle.txt", b"a RareNeedle here\n");
    age(root);
    let on = config(root, Mode::On);
    ready(&on).unwrap();
    let q = plan::plan("RareNeedle", false, false).unwrap();
    let c = on.index.candidates(&on.config, root, &q).unwrap();
    assert_eq!(c, [root.join("d3/needle.txt")]);
    // A file changed behind the index's back is found at once.
    write(root, "d5/f5.txt", b"now a rareneedle too\n");
    let mut c = on
        .index
        .candidates(
            &on.config,
            root,
            &plan::plan("(?i)RareNeedle", false, false).unwrap(),
        )
        .unwrap();
    c.sort();
    assert_eq!(c, [root.join("d3/needle.txt"), root.join("d5/f5.txt")]);
    let status = on.index.status();
    assert_eq!(status["files"], 201);
    assert!(status["bytes"].as_u64().unwrap() > 0);
    assert!(status["updatedAt"].as_u64().is_some());
}

#[test]
fn a_torn_image_is_rebuilt_never_used() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "a.txt", b"alpha beta\n");
    write(root, "b.txt", b"gamma\n");
    age(root);
    ready(&config(root, Mode::On)).unwrap();
    let image = root.join(".clarvis/index/grep.idx");
    let good = std::fs::read(&image).unwrap();
    assert_eq!(
        std::fs::read(root.join(".clarvis/.gitignore")).unwrap(),
        b"*\n"
    );
    // A torn write, then a flipped byte: each is refused and replaced by a fresh build.
    for bad in [good[..good.len() / 2].to_vec(), {
        let mut b = good.clone();
        b[good.len() / 3] ^= 1;
        b
    }] {
        std::fs::write(&image, &bad).unwrap();
        let on = config(root, Mode::On);
        let q = Query {
            pattern: "gamma".into(),
            ..QUERY_ANY
        };
        assert_eq!(grep(&on, &q), "b.txt");
        ready(&on).unwrap();
        assert_eq!(grep(&on, &q), "b.txt");
        let rebuilt = std::fs::read(&image).unwrap();
        assert_ne!(rebuilt, bad);
        assert!(clarvis_agent_tools::index::store::Store::from_vec(rebuilt).is_ok());
    }
}

#[test]
fn auto_waits_for_the_threshold_and_off_never_builds() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for i in 0..5 {
        write(root, &format!("f{i}.txt"), b"text\n");
    }
    let q = Query {
        pattern: "text".into(),
        ..QUERY_ANY
    };
    let auto = with_index(root, SearchIndex::new(Mode::Auto, 6));
    grep(&auto, &q);
    assert!(auto.index.wait_idle(Duration::from_secs(60)));
    assert_eq!(auto.index.status()["state"], "off");
    write(root, "f5.txt", b"text\n");
    grep(&auto, &q);
    assert!(auto.index.wait_idle(Duration::from_secs(60)));
    assert_eq!(auto.index.status()["state"], "ready");
    let off = config(root, Mode::Off);
    grep(&off, &q);
    assert_eq!(off.index.status()["state"], "off");
}

#[test]
fn a_later_session_reuses_the_image_and_sees_what_changed_meanwhile() {
    use std::os::unix::fs::MetadataExt;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for i in 0..50 {
        write(
            root,
            &format!("d{}/f{i}.txt", i % 5),
            format!("old text {i}\n").as_bytes(),
        );
    }
    age(root);
    ready(&config(root, Mode::On)).unwrap();
    let image = root.join(".clarvis/index/grep.idx");
    let ino = std::fs::metadata(&image).unwrap().ino();
    // Between the sessions: an in-place edit, a new file in a new directory, a deletion.
    write(root, "d1/f1.txt", b"brand NewWord\n");
    write(root, "fresh/sub/g.txt", b"NewWord too\n");
    std::fs::remove_file(root.join("d2/f2.txt")).unwrap();
    let next = config(root, Mode::On);
    ready(&next).unwrap();
    assert_eq!(
        std::fs::metadata(&image).unwrap().ino(),
        ino,
        "the image was reused"
    );
    let q = Query {
        pattern: "NewWord".into(),
        ..QUERY_ANY
    };
    assert_eq!(grep(&next, &q), "d1/f1.txt\nfresh/sub/g.txt");
    let gone = Query {
        pattern: "old text 2$".into(),
        ..QUERY_ANY
    };
    assert_eq!(grep(&next, &gone), "(no matches)");
    let c = next
        .index
        .candidates(
            &next.config,
            root,
            &plan::plan("NewWord", false, false).unwrap(),
        )
        .unwrap();
    assert_eq!(c.len(), 2);
}

/// Found by the property: a directory moved away, then re-created with other files. The new
/// directory is walked; what the image held under the old one must not come back as
/// unchanged (grep opens every candidate and finds nothing, but glob would list the ghost).
/// Likewise a file replaced by a directory of the same name.
#[test]
fn a_recreated_directory_does_not_bring_back_its_old_files() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "src/deep/main.rs", b"fn main() {}\n");
    write(root, "src/a.rs", b"x\n");
    age(root);
    let off = config(root, Mode::Off);
    let configs = [
        config(root, Mode::On),
        with_index(root, SearchIndex::new(Mode::On, 1).without_watch()),
    ];
    for on in &configs {
        ready(on).unwrap();
    }
    let same = |when: &str| {
        let want = glob(&off, "**", "");
        for on in &configs {
            assert!(
                on.index.files(&on.config, root, |_| true).is_some(),
                "{when}"
            );
            assert_eq!(glob(on, "**", ""), want, "{when}");
        }
    };
    same("built");
    std::fs::rename(root.join("src/deep"), root.join("src/moved")).unwrap();
    same("moved");
    write(root, "src/deep/new.rs", b"fn new() {}\n");
    same("re-created");
    std::fs::remove_file(root.join("src/a.rs")).unwrap();
    write(root, "src/a.rs/inner.rs", b"y\n");
    same("a file replaced by a directory");
    assert!(!glob(&off, "**", "").contains("src/deep/main.rs"));
}
