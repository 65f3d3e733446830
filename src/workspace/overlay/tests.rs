use super::*;
use crate::config::{Config, ReviewConfig};

/// What the confined read path gives for `rel`.
fn read(cfg: &Config, root: &Path, rel: &str) -> Vec<u8> {
    use std::io::Read;
    let mut out = Vec::new();
    let mut f = super::super::open_confined(cfg, &root.join(rel), rel).unwrap();
    f.read_to_end(&mut out).unwrap();
    out
}

fn config(root: &Path, scope: &str, bytes: u64) -> Config {
    let mut c = Config::with_root(root);
    c.review = Some(ReviewConfig {
        scope: scope.into(),
        commands: crate::config::review::Commands::Refuse,
        bytes,
        tools: false,
    });
    c
}

#[test]
fn staged_bytes_are_what_readers_see_and_a_new_object_finds_them() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("a.txt"), "old\n").unwrap();
    let cfg = config(root, "s1", 1 << 20);
    let overlay = Overlay::open(&cfg).unwrap().unwrap();
    overlay
        .stage_write(&root.join("a.txt"), b"new\n", "a.txt")
        .unwrap();
    overlay
        .stage_delete(&root.join("gone.txt"), "gone.txt")
        .unwrap();
    // The disk is untouched; the confined read path answers with the staged bytes.
    assert_eq!(std::fs::read(root.join("a.txt")).unwrap(), b"old\n");
    assert_eq!(read(&cfg, root, "a.txt"), b"new\n");
    // Deleting what never existed stages nothing.
    assert_eq!(overlay.entries().len(), 1);
    drop(overlay);
    // Another scope sees nothing; the same scope, reopened, finds the change again.
    let other = config(root, "s2", 1 << 20);
    let _o2 = Overlay::open(&other).unwrap().unwrap();
    assert_eq!(read(&other, root, "a.txt"), b"old\n");
    let again = Overlay::open(&cfg).unwrap().unwrap();
    assert_eq!(again.current_bytes(&root.join("a.txt")).unwrap(), b"new\n");
    // Writing the base's bytes back is no change at all.
    again
        .stage_write(&root.join("a.txt"), b"old\n", "a.txt")
        .unwrap();
    assert!(again.is_empty());
}

#[test]
fn the_budget_refuses_and_stages_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let cfg = config(root, "small", 8);
    let overlay = Overlay::open(&cfg).unwrap().unwrap();
    overlay.stage_write(&root.join("a"), b"1234", "a").unwrap();
    let e = overlay
        .stage_write(&root.join("b"), b"123456", "b")
        .unwrap_err();
    assert_eq!(e.code, crate::error::Code::InvalidInput);
    assert!(e.message.contains("reviewBytes 8"), "{}", e.message);
    assert_eq!(overlay.entries().len(), 1);
    // No blob of the refused write is left behind.
    assert_eq!(
        std::fs::read_dir(scope_dir(root, "small").join("blobs"))
            .unwrap()
            .count(),
        1
    );
}

#[test]
fn a_directory_view_adds_staged_files_and_their_directories_and_drops_deletions() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir(root.join("d")).unwrap();
    std::fs::write(root.join("d/old.txt"), "old\n").unwrap();
    std::fs::write(root.join("d/keep.txt"), "keep\n").unwrap();
    let cfg = config(&root, "tree", 1 << 20);
    let overlay = Overlay::open(&cfg).unwrap().unwrap();
    overlay
        .stage_write(&root.join("d/new/deep/x.txt"), b"xx", "x")
        .unwrap();
    overlay
        .stage_write(&root.join("d/keep.txt"), b"changed\n", "k")
        .unwrap();
    overlay.stage_delete(&root.join("d/old.txt"), "o").unwrap();
    let view = dir_view(&cfg, &root.join("d")).unwrap();
    assert_eq!(view.get("new".as_ref()), Some(Child::Dir));
    assert_eq!(view.get("keep.txt".as_ref()), Some(Child::File(8)));
    assert_eq!(view.get("old.txt".as_ref()), Some(Child::Deleted));
    let on_disk = ["keep.txt", "old.txt"];
    let added: Vec<_> = view
        .added(|n| on_disk.iter().any(|d| std::ffi::OsStr::new(d) == n))
        .collect();
    assert_eq!(added, vec![(std::ffi::OsStr::new("new"), Child::Dir)]);
    // A directory only staged files make stats as a directory; the disk has nothing there.
    assert!(stat(&cfg, &root.join("d/new/deep")).unwrap().is_dir());
    assert!(!root.join("d/new").exists());
    assert!(lstat(&cfg, &root.join("d/old.txt")).is_err());
    assert!(dir_view(&cfg, &root.join("elsewhere")).is_none());
    let below = overlay.below(&root.join("d/new"));
    assert_eq!(below.written, vec![(root.join("d/new/deep/x.txt"), 2)]);
    assert!(below.deleted.is_empty());
}

#[test]
fn a_staged_directory_persists_and_is_a_directory_of_the_staged_tree() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let cfg = config(root, "dirs", 1 << 20);
    let overlay = Overlay::open(&cfg).unwrap().unwrap();
    overlay.stage_dir(&root.join("a/b"), "a/b").unwrap();
    assert!(!root.join("a").exists());
    // The directory and its parent are directories of the staged tree, and listed.
    assert!(overlay.holds_dir(&root.join("a/b")));
    assert!(overlay.holds_dir(&root.join("a")));
    assert!(stat(&cfg, &root.join("a/b")).unwrap().is_dir());
    assert_eq!(overlay.dir_view(root).get("a".as_ref()), Some(Child::Dir));
    assert_eq!(
        overlay.dir_view(&root.join("a")).get("b".as_ref()),
        Some(Child::Dir)
    );
    // Nothing for the file walks, nothing to open.
    assert!(overlay.below(root).written.is_empty());
    assert_eq!(overlay.view(&root.join("a/b")), None);
    drop(overlay);
    let again = Overlay::open(&cfg).unwrap().unwrap();
    assert_eq!(again.entries()["a/b"].staged, Staged::Dir);
}

#[test]
fn another_writer_of_the_scope_is_seen_at_the_next_refresh() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let cfg = config(root, "shared", 1 << 20);
    let overlay = Overlay::open(&cfg).unwrap().unwrap();
    overlay
        .stage_write(&root.join("a.txt"), b"a\n", "a.txt")
        .unwrap();
    // Another process's manifest: what this one would save with one entry more, written
    // behind its back (as another process's stage does, under the scope's lock).
    let mut theirs = overlay.entries();
    let blob_dir = overlay.dir.join("blobs");
    std::fs::write(blob_dir.join("99"), b"b\n").unwrap();
    theirs.insert(
        "b.txt".into(),
        Entry {
            staged: Staged::Write {
                blob: "99".into(),
                len: 2,
                hash: blake3::hash(b"b\n").to_hex().to_string(),
            },
            base: Base::Absent,
            from: None,
        },
    );
    store::save(&overlay.dir, &theirs, 100).unwrap();
    // A read does not look; a call's refresh does.
    assert_eq!(overlay.entries().len(), 1);
    overlay.refresh();
    assert_eq!(overlay.entries().len(), 2);
    assert_eq!(overlay.current_bytes(&root.join("b.txt")).unwrap(), b"b\n");
    // This process's next stage keeps the other's entry and does not reuse its blob number.
    overlay
        .stage_write(&root.join("c.txt"), b"c\n", "c.txt")
        .unwrap();
    let after = overlay.entries();
    assert_eq!(after.len(), 3);
    assert!(matches!(&after["c.txt"].staged, Staged::Write { blob, .. } if blob == "100"));
}

#[test]
fn sweep_removes_the_blobs_no_entry_names_and_keeps_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let cfg = config(root, "sweep", 1 << 20);
    let overlay = Overlay::open(&cfg).unwrap().unwrap();
    overlay.stage_write(&root.join("a"), b"a", "a").unwrap();
    let blobs = overlay.dir.join("blobs");
    // A blob a killed stager left, and one whose removal an exit cut short.
    std::fs::write(blobs.join("77"), b"stray").unwrap();
    std::fs::write(blobs.join("3"), b"old").unwrap();
    overlay.sweep().unwrap();
    let mut left: Vec<String> = std::fs::read_dir(&blobs)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    left.sort();
    assert_eq!(left, vec!["0".to_string()]);
    assert_eq!(overlay.current_bytes(&root.join("a")).unwrap(), b"a");
}
