use super::*;
use crate::config::ReviewConfig;
use crate::workspace::overlay::Overlay;
use std::path::Path;

fn config(root: &Path, scope: &str) -> Config {
    let mut c = Config::with_root(root);
    c.review = Some(ReviewConfig {
        scope: scope.into(),
        commands: crate::config::review::Commands::Refuse,
        bytes: 1 << 20,
        tools: false,
    });
    c
}

fn store(root: &Path) -> crate::checkpoint::Store {
    crate::checkpoint::Store::new(root, 1 << 20)
}

#[test]
fn accept_applies_the_chosen_paths_and_leaves_the_rest_pending() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("a"), "a0").unwrap();
    std::fs::write(root.join("gone"), "g").unwrap();
    let cfg = config(root, "t");
    let o = Overlay::open(&cfg).unwrap().unwrap();
    o.stage_write(&root.join("a"), b"a1", "a").unwrap();
    o.stage_write(&root.join("sub/new"), b"n", "sub/new")
        .unwrap();
    o.stage_delete(&root.join("gone"), "gone").unwrap();
    let kinds: Vec<_> = changes(&o.entries())
        .into_iter()
        .map(|c| (c.path, c.kind))
        .collect();
    assert_eq!(
        kinds,
        [
            ("a".into(), Kind::Modified),
            ("gone".into(), Kind::Deleted),
            ("sub/new".into(), Kind::Created)
        ]
    );
    let st = store(root);
    let out = accept(
        &cfg,
        &o,
        &st,
        Some(&["sub/new".into(), "gone".into()]),
        false,
    )
    .unwrap();
    assert_eq!(out["conflicts"], json!([]));
    assert_eq!(std::fs::read(root.join("sub/new")).unwrap(), b"n");
    assert!(!root.join("gone").exists());
    assert_eq!(std::fs::read(root.join("a")).unwrap(), b"a0");
    assert_eq!(o.entries().keys().collect::<Vec<_>>(), ["a"]);
    reject(&cfg, &o, None).unwrap();
    assert!(o.is_empty());
    assert_eq!(std::fs::read(root.join("a")).unwrap(), b"a0");
}

#[test]
fn a_path_changed_on_disk_or_swapped_for_a_symlink_is_a_conflict() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("a"), "a0").unwrap();
    std::fs::write(root.join("b"), "b0").unwrap();
    std::fs::write(root.join("outside"), "keep").unwrap();
    let cfg = config(root, "c");
    let o = Overlay::open(&cfg).unwrap().unwrap();
    o.stage_write(&root.join("a"), b"a1", "a").unwrap();
    o.stage_write(&root.join("b"), b"b1", "b").unwrap();
    std::fs::write(root.join("a"), "someone else").unwrap();
    std::fs::remove_file(root.join("b")).unwrap();
    std::os::unix::fs::symlink(root.join("outside"), root.join("b")).unwrap();
    let st = store(root);
    let out = accept(&cfg, &o, &st, None, false).unwrap();
    assert_eq!(out["accepted"], json!([]));
    assert_eq!(out["conflicts"].as_array().unwrap().len(), 2);
    assert_eq!(std::fs::read(root.join("a")).unwrap(), b"someone else");
    // force overrides the drift, never the symlink: still nothing applied.
    let out = accept(&cfg, &o, &st, None, true).unwrap();
    assert_eq!(out["conflicts"][0]["path"], "b");
    assert_eq!(std::fs::read(root.join("outside")).unwrap(), b"keep");
    let out = accept(&cfg, &o, &st, Some(&["a".into()]), true).unwrap();
    assert_eq!(out["accepted"][0]["path"], "a");
    assert_eq!(std::fs::read(root.join("a")).unwrap(), b"a1");
}

#[test]
fn settle_drops_what_the_disk_already_holds_and_keeps_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for (n, c) in [("a", "a0"), ("b", "b0"), ("gone", "g")] {
        std::fs::write(root.join(n), c).unwrap();
    }
    let cfg = config(root, "settle");
    let o = Overlay::open(&cfg).unwrap().unwrap();
    o.stage_write(&root.join("a"), b"a1", "a").unwrap();
    o.stage_write(&root.join("b"), b"b1", "b").unwrap();
    o.stage_delete(&root.join("gone"), "gone").unwrap();
    // As if an accept of `a` and `gone` committed, then died before forgetting them.
    std::fs::write(root.join("a"), "a1").unwrap();
    std::fs::remove_file(root.join("gone")).unwrap();
    settle(&o);
    let left: Vec<String> = o.entries().into_keys().collect();
    assert_eq!(left, ["b"]);
    // Persisted: a new object of the scope finds the same.
    drop(o);
    let again = Overlay::open(&cfg).unwrap().unwrap();
    assert_eq!(again.entries().into_keys().collect::<Vec<_>>(), ["b"]);
}
