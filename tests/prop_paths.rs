//! Property tests for the path resolver (`workspace`): whatever path a caller sends — `..`
//! chains, `.`, `//`, absolute paths, and symlinks to inside, to outside, to `/`, chains,
//! loops and dangling ones — a path `resolve` accepts with confinement on really lies inside
//! the root, every descriptor `open_confined` hands out lies inside the root, and lexical
//! normalisation is idempotent and agrees with a plain stack model.
//!
//! Unix only: the cases are built from symlinks, which Windows creates only with privileges.
#![cfg(unix)]

use clarvis_agent_tools::config::Config;
use clarvis_agent_tools::error::Code;
use clarvis_agent_tools::paths::normalize;
use clarvis_agent_tools::workspace;
use proptest::prelude::*;
use proptest::test_runner::{Config as RunnerConfig, TestRunner};
use std::os::unix::fs::symlink;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A workspace root full of links, beside an outside directory holding a secret.
struct Fixture {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    real_root: PathBuf,
    outside: PathBuf,
    /// A symlink to the root, used as a configured root that is not realpath'd.
    root_link: PathBuf,
}

fn fixture() -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(tmp.path()).unwrap();
    let root = base.join("ws");
    let outside = base.join("outside");
    std::fs::create_dir_all(root.join("a/b")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(root.join("a/file"), "in").unwrap();
    std::fs::write(root.join("file"), "in").unwrap();
    std::fs::write(outside.join("secret"), "SECRET").unwrap();
    symlink("a", root.join("link_in")).unwrap();
    symlink("..", root.join("link_up")).unwrap();
    symlink(&outside, root.join("link_out")).unwrap();
    symlink("/", root.join("link_root")).unwrap();
    symlink("link_out", root.join("link_chain")).unwrap();
    symlink("link_in", root.join("link_chain_in")).unwrap();
    symlink(outside.join("missing"), root.join("dangling")).unwrap();
    symlink("a/missing", root.join("dangling_in")).unwrap();
    symlink("loop2", root.join("loop1")).unwrap();
    symlink("loop1", root.join("loop2")).unwrap();
    symlink("../../outside/secret", root.join("a/b/up_secret")).unwrap();
    symlink("/proc/self/root", root.join("proc_root")).unwrap();
    let root_link = base.join("ws-link");
    symlink(&root, &root_link).unwrap();
    Fixture {
        real_root: root.clone(),
        root,
        outside,
        root_link,
        _tmp: tmp,
    }
}

const PARTS: &[&str] = &[
    "..",
    ".",
    "",
    "a",
    "b",
    "file",
    "secret",
    "missing",
    "link_in",
    "link_up",
    "link_out",
    "link_root",
    "link_chain",
    "link_chain_in",
    "dangling",
    "dangling_in",
    "loop1",
    "up_secret",
    "proc_root",
    "outside",
    "ws",
    "ws-link",
    "etc",
    "self",
    "root",
    "~",
];

/// A path built from interesting components: relative, or absolute from `/`, the root, the
/// root's link or the outside directory.
fn arb_path(f: &Fixture) -> impl Strategy<Value = String> {
    let starts = vec![
        String::new(),
        "/".to_string(),
        format!("{}/", f.root.display()),
        format!("{}/", f.root_link.display()),
        format!("{}/", f.outside.display()),
        "/proc/self/root/".to_string(),
    ];
    (
        prop::sample::select(starts),
        prop::collection::vec(prop::sample::select(PARTS), 0..8),
    )
        .prop_map(|(start, parts)| format!("{start}{}", parts.join("/")))
}

fn inside(real: &Path, real_root: &Path) -> bool {
    real == real_root || real.starts_with(real_root)
}

fn configs(f: &Fixture) -> Vec<Config> {
    vec![Config::with_root(&f.root), Config::with_root(&f.root_link)]
}

#[test]
fn resolve_never_accepts_a_path_outside_the_root() {
    let f = fixture();
    let (accepted, refused) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let mut runner = TestRunner::new(RunnerConfig {
        cases: 1500,
        ..RunnerConfig::default()
    });
    runner
        .run(&arb_path(&f), |input| {
            for c in configs(&f) {
                match workspace::resolve(&c, &input) {
                    Ok(abs) => {
                        accepted.fetch_add(1, Ordering::Relaxed);
                        let real = clarvis_agent_tools::paths::realpath_prefix(&abs)
                            .expect("accepted path resolves");
                        prop_assert!(inside(&real, &f.real_root), "{input} -> {}", real.display());
                        // An independent oracle: when the whole path exists, the kernel's
                        // realpath agrees.
                        if let Ok(full) = std::fs::canonicalize(&abs) {
                            prop_assert!(
                                inside(&full, &f.real_root),
                                "{input} -> {}",
                                full.display()
                            );
                        }
                    }
                    Err(e) => {
                        refused.fetch_add(1, Ordering::Relaxed);
                        prop_assert_eq!(e.code, Code::PathEscape);
                        prop_assert_eq!(e.fields["path"].as_str(), Some(input.as_str()));
                    }
                }
            }
            Ok(())
        })
        .unwrap();
    // The generator must exercise both sides, or the property says nothing.
    assert!(accepted.into_inner() > 300 && refused.into_inner() > 300);
}

#[test]
fn opened_descriptors_always_lie_inside_the_root() {
    let f = fixture();
    let mut runner = TestRunner::new(RunnerConfig {
        cases: 1500,
        ..RunnerConfig::default()
    });
    runner
        .run(&arb_path(&f), |input| {
            for c in configs(&f) {
                // Skip the lexical check on purpose: the descriptor check must hold alone,
                // as it does when a path is swapped after resolve.
                let abs = workspace::lexical(&c, &input);
                let opened = [
                    workspace::open_confined(&c, &abs, &input),
                    workspace::open_dir_confined(&c, &abs, &input),
                ];
                for file in opened.into_iter().flatten() {
                    let real = workspace::fd_real_path(&file).expect("/proc/self/fd is readable");
                    prop_assert!(inside(&real, &f.real_root), "{input} -> {}", real.display());
                }
                if let Ok(bytes) = clarvis_agent_tools::text::load(&c, &abs, &input) {
                    prop_assert_ne!(
                        bytes,
                        b"SECRET".to_vec(),
                        "{} read the outside secret",
                        input
                    );
                }
            }
            Ok(())
        })
        .unwrap();
}

#[test]
fn unconfined_resolve_is_the_lexical_path() {
    let f = fixture();
    let mut c = Config::with_root(&f.root);
    c.confine_to_workspace = false;
    let mut runner = TestRunner::new(RunnerConfig {
        cases: 300,
        ..RunnerConfig::default()
    });
    runner
        .run(&arb_path(&f), |input| {
            prop_assert_eq!(
                workspace::resolve(&c, &input).unwrap(),
                workspace::lexical(&c, &input)
            );
            Ok(())
        })
        .unwrap();
}

/// The reference model: a stack of names; `..` pops, except at `/` (stays) or when the stack
/// is empty or already starts with `..` in a relative path (kept).
fn model(path: &str) -> String {
    let absolute = path.starts_with('/');
    let mut stack: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => match stack.last() {
                Some(&"..") | None if !absolute => stack.push(".."),
                Some(&"..") | None => {}
                Some(_) => {
                    stack.pop();
                }
            },
            name => stack.push(name),
        }
    }
    match (absolute, stack.is_empty()) {
        (true, _) => format!("/{}", stack.join("/")),
        (false, true) => ".".into(),
        (false, false) => stack.join("/"),
    }
}

fn arb_lexical() -> impl Strategy<Value = String> {
    (
        any::<bool>(),
        prop::collection::vec(
            prop::sample::select(vec!["..", ".", "", "a", "b", "c.d", "..x", "x.."]),
            0..10,
        ),
    )
        .prop_map(|(abs, parts)| format!("{}{}", if abs { "/" } else { "" }, parts.join("/")))
}

proptest! {
    #![proptest_config(RunnerConfig { cases: 2000, ..RunnerConfig::default() })]

    #[test]
    fn normalisation_is_idempotent_and_matches_the_model(p in arb_lexical()) {
        let once = normalize(Path::new(&p));
        prop_assert_eq!(normalize(&once), once.clone());
        prop_assert_eq!(once.to_str().unwrap(), model(&p));
        // `.` never survives, and `..` only leads a relative result.
        let comps: Vec<Component> = once.components().collect();
        prop_assert!(!comps.iter().skip(1).any(|c| matches!(c, Component::CurDir)));
        let first_name = comps.iter().position(|c| matches!(c, Component::Normal(_)));
        if let Some(i) = first_name {
            prop_assert!(!comps[i..].iter().any(|c| matches!(c, Component::ParentDir)));
        }
        if once.has_root() {
            prop_assert!(!comps.iter().any(|c| matches!(c, Component::ParentDir)), "{}", once.display());
        }
    }

    #[test]
    fn lexical_is_idempotent(p in arb_lexical()) {
        let c = Config::with_root("/work/ws");
        let once = workspace::lexical(&c, &p);
        prop_assert!(once.is_absolute());
        prop_assert_eq!(workspace::lexical(&c, once.to_str().unwrap()), once);
    }
}
