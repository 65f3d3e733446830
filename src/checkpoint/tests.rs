use super::*;
use crate::config::{Config, DEFAULT_CHECKPOINT_BYTES};
use std::fs;
use std::os::unix::fs::PermissionsExt;

/// A workspace, a store on it and the configuration its checks confine to.
fn setup(budget: u64) -> (tempfile::TempDir, Store, Config) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(dir.path(), budget);
    let config = Config::with_root(dir.path());
    (dir, store, config)
}

/// Replaces a file the way our writers do: a new inode renamed over the path.
fn replace(path: &Path, bytes: &[u8]) {
    let tmp = path.with_extension("tmp-test");
    fs::write(&tmp, bytes).unwrap();
    fs::rename(&tmp, path).unwrap();
}

/// What a tool does: record, write, record what it left.
fn write(c: &Config, store: &Store, path: &Path, bytes: &[u8]) {
    store.before(c, &[path.to_path_buf()], None);
    replace(path, bytes);
    store.after(&[path.to_path_buf()]);
}

#[test]
fn nothing_is_recorded_or_stored_without_a_checkpoint() {
    let (dir, store, cfg) = setup(DEFAULT_CHECKPOINT_BYTES);
    let a = dir.path().join("a.txt");
    write(&cfg, &store, &a, b"one");
    assert!(!dir.path().join(CHECKPOINT_DIR).exists());
    assert!(store.list().is_empty());
}

#[test]
fn restore_brings_back_modified_created_and_deleted_files_with_modes() {
    let (dir, store, cfg) = setup(DEFAULT_CHECKPOINT_BYTES);
    let (a, b, c) = (
        dir.path().join("a"),
        dir.path().join("b"),
        dir.path().join("c"),
    );
    fs::write(&a, b"a0").unwrap();
    fs::set_permissions(&a, fs::Permissions::from_mode(0o751)).unwrap();
    fs::write(&c, b"c0").unwrap();
    let id = store.checkpoint(Some("before".into())).unwrap();
    write(&cfg, &store, &a, b"a1");
    fs::set_permissions(&a, fs::Permissions::from_mode(0o644)).unwrap();
    store.after(std::slice::from_ref(&a));
    write(&cfg, &store, &b, b"b1");
    store.before(&cfg, std::slice::from_ref(&c), None);
    fs::remove_file(&c).unwrap();
    store.after(std::slice::from_ref(&c));
    let kinds: Vec<_> = store
        .changes(&cfg, &id)
        .unwrap()
        .iter()
        .map(|c| c.kind)
        .collect();
    assert_eq!(
        kinds,
        [
            ChangeKind::Modified,
            ChangeKind::Created,
            ChangeKind::Deleted
        ]
    );
    let report = store.restore(&cfg, &id, None, false).unwrap();
    assert_eq!(report.restored.len(), 3);
    assert!(report.conflicts.is_empty());
    assert_eq!(fs::read(&a).unwrap(), b"a0");
    assert_eq!(
        fs::metadata(&a).unwrap().permissions().mode() & 0o7777,
        0o751
    );
    assert!(!b.exists());
    assert_eq!(fs::read(&c).unwrap(), b"c0");
    // Restoring twice changes nothing more.
    let again = store.restore(&cfg, &id, None, false).unwrap();
    assert!(again.restored.is_empty() && again.conflicts.is_empty());
    assert!(store.changes(&cfg, &id).unwrap().is_empty());
}

#[test]
fn the_first_touch_after_each_checkpoint_is_what_it_keeps() {
    let (dir, store, cfg) = setup(DEFAULT_CHECKPOINT_BYTES);
    let a = dir.path().join("a");
    fs::write(&a, b"v0").unwrap();
    let first = store.checkpoint(None).unwrap();
    write(&cfg, &store, &a, b"v1");
    let second = store.checkpoint(None).unwrap();
    write(&cfg, &store, &a, b"v2");
    write(&cfg, &store, &a, b"v3");
    store.restore(&cfg, &second, None, false).unwrap();
    assert_eq!(fs::read(&a).unwrap(), b"v1");
    store.restore(&cfg, &first, None, false).unwrap();
    assert_eq!(fs::read(&a).unwrap(), b"v0");
}

#[test]
fn an_outside_change_is_a_conflict_unless_forced() {
    let (dir, store, cfg) = setup(DEFAULT_CHECKPOINT_BYTES);
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    fs::write(&a, b"a0").unwrap();
    fs::write(&b, b"b0").unwrap();
    let id = store.checkpoint(None).unwrap();
    write(&cfg, &store, &a, b"a1");
    write(&cfg, &store, &b, b"b1");
    // Someone else edits `a` in place after the tools did.
    fs::write(&a, b"a-by-hand").unwrap();
    let report = store.restore(&cfg, &id, None, false).unwrap();
    assert_eq!(report.conflicts.len(), 1);
    assert_eq!(report.conflicts[0].path, a);
    assert_eq!(fs::read(&a).unwrap(), b"a-by-hand");
    assert_eq!(fs::read(&b).unwrap(), b"b0");
    let forced = store.restore(&cfg, &id, None, true).unwrap();
    assert_eq!(forced.restored.len(), 1);
    assert_eq!(fs::read(&a).unwrap(), b"a0");
}

#[test]
fn a_changed_shape_fails_the_whole_restore_before_touching_anything() {
    let (dir, store, cfg) = setup(DEFAULT_CHECKPOINT_BYTES);
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    fs::write(&a, b"a0").unwrap();
    fs::write(&b, b"b0").unwrap();
    let id = store.checkpoint(None).unwrap();
    write(&cfg, &store, &a, b"a1");
    write(&cfg, &store, &b, b"b1");
    fs::remove_file(&b).unwrap();
    fs::create_dir(&b).unwrap();
    let err = store.restore(&cfg, &id, None, true).unwrap_err();
    assert_eq!(err.code, Code::InvalidInput);
    assert!(
        err.message.contains("is a directory now"),
        "{}",
        err.message
    );
    assert_eq!(fs::read(&a).unwrap(), b"a1", "nothing was restored");
}

#[test]
fn unknown_ids_zero_budget_and_drops() {
    let (dir, store, cfg) = setup(DEFAULT_CHECKPOINT_BYTES);
    assert_eq!(
        store.changes(&cfg, "cp_9").unwrap_err().code,
        Code::NotFound
    );
    assert_eq!(
        store.restore(&cfg, "nope", None, false).unwrap_err().code,
        Code::NotFound
    );
    let id = store.checkpoint(None).unwrap();
    let a = dir.path().join("a");
    fs::write(&a, b"x").unwrap();
    write(&cfg, &store, &a, b"y");
    store.drop_checkpoint(&id).unwrap();
    assert_eq!(store.drop_checkpoint(&id).unwrap_err().code, Code::NotFound);
    let objects = dir.path().join(CHECKPOINT_DIR);
    let stored: usize = fs::read_dir(&objects)
        .unwrap()
        .flatten()
        .map(|d| fs::read_dir(d.path().join("objects")).map_or(0, |r| r.count()))
        .sum();
    assert_eq!(stored, 0, "a dropped checkpoint frees its contents");
    let (_d, zero, _) = setup(0);
    assert_eq!(zero.checkpoint(None).unwrap_err().code, Code::InvalidInput);
}

#[test]
fn the_budget_drops_the_oldest_checkpoint_and_says_so() {
    let (dir, store, cfg) = setup(10);
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    fs::write(&a, b"123456").unwrap();
    fs::write(&b, b"abcdef").unwrap();
    let old = store.checkpoint(None).unwrap();
    store.before(&cfg, std::slice::from_ref(&a), None);
    let new = store.checkpoint(None).unwrap();
    let lines = store.before(&cfg, std::slice::from_ref(&b), None);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].contains(&old));
    let ids: Vec<_> = store.list().into_iter().map(|c| c.id).collect();
    assert_eq!(ids, [new]);
}

#[test]
fn sweep_removes_stores_of_dead_processes_only() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join(CHECKPOINT_DIR);
    fs::create_dir_all(base.join("999999999-x/objects")).unwrap();
    let mine = base.join(format!("{}-y", std::process::id()));
    fs::create_dir_all(&mine).unwrap();
    sweep(&Config::with_root(dir.path()));
    assert!(!base.join("999999999-x").exists());
    assert!(mine.exists());
}

#[test]
fn a_recorded_inode_written_in_place_is_reported_never_restored_from() {
    let (dir, store, cfg) = setup(DEFAULT_CHECKPOINT_BYTES);
    let a = dir.path().join("a");
    fs::write(&a, b"original").unwrap();
    let id = store.checkpoint(None).unwrap();
    // A writer that does not replace the file: the recorded (linked) inode itself changes.
    store.before(&cfg, std::slice::from_ref(&a), None);
    std::thread::sleep(std::time::Duration::from_millis(5));
    fs::write(&a, b"in place!").unwrap();
    store.after(std::slice::from_ref(&a));
    let err = store.restore(&cfg, &id, None, false).unwrap_err();
    assert_eq!(err.code, Code::IoError);
    assert!(
        err.message.contains("changed after it was recorded"),
        "{}",
        err.message
    );
    assert_eq!(fs::read(&a).unwrap(), b"in place!");
}
