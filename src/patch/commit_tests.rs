use super::*;
use std::os::unix::fs::{MetadataExt, PermissionsExt};

fn leftovers(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with(crate::atomic::TEMP_PREFIX) {
            out.push(name);
        }
        if entry.file_type().unwrap().is_dir() {
            out.extend(leftovers(&entry.path()));
        }
    }
    out
}

fn show(p: &Path) -> String {
    p.file_name().unwrap().to_string_lossy().into_owned()
}

#[test]
fn every_kind_of_operation_lands() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::write(d.join("m"), "old").unwrap();
    fs::set_permissions(d.join("m"), fs::Permissions::from_mode(0o751)).unwrap();
    fs::write(d.join("gone"), "x").unwrap();
    fs::write(d.join("pure"), "p").unwrap();
    fs::set_permissions(d.join("pure"), fs::Permissions::from_mode(0o700)).unwrap();
    let ino = fs::metadata(d.join("pure")).unwrap().ino();
    fs::write(d.join("edit"), "e").unwrap();
    fs::set_permissions(d.join("edit"), fs::Permissions::from_mode(0o755)).unwrap();
    let ops = vec![
        Op::Modify {
            path: d.join("m"),
            bytes: b"new".to_vec(),
        },
        Op::Create {
            path: d.join("n/e/w.txt"),
            bytes: b"w\n".to_vec(),
        },
        Op::Delete {
            path: d.join("gone"),
        },
        Op::Move {
            from: d.join("pure"),
            to: d.join("sub/pure2"),
            bytes: None,
        },
        Op::Move {
            from: d.join("edit"),
            to: d.join("edit2"),
            bytes: Some(b"E".to_vec()),
        },
    ];
    commit(&ops, None, &show).unwrap();
    assert_eq!(fs::read(d.join("m")).unwrap(), b"new");
    assert_eq!(
        fs::metadata(d.join("m")).unwrap().permissions().mode() & 0o777,
        0o751
    );
    assert_eq!(fs::read(d.join("n/e/w.txt")).unwrap(), b"w\n");
    assert!(!d.join("gone").exists() && !d.join("pure").exists() && !d.join("edit").exists());
    let moved = fs::metadata(d.join("sub/pure2")).unwrap();
    assert_eq!(
        (moved.ino(), moved.permissions().mode() & 0o777),
        (ino, 0o700)
    );
    assert_eq!(fs::read(d.join("edit2")).unwrap(), b"E");
    assert_eq!(
        fs::metadata(d.join("edit2")).unwrap().permissions().mode() & 0o777,
        0o755
    );
    assert!(leftovers(d).is_empty(), "{:?}", leftovers(d));
}

#[test]
fn an_injected_failure_between_two_renames_restores_everything() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::write(d.join("a"), "A").unwrap();
    fs::write(d.join("b"), "B").unwrap();
    fs::write(d.join("c"), "C").unwrap();
    let ops = vec![
        Op::Move {
            from: d.join("a"),
            to: d.join("new/dir/a2"),
            bytes: None,
        },
        Op::Modify {
            path: d.join("c"),
            bytes: b"changed".to_vec(),
        },
        Op::Move {
            from: d.join("b"),
            to: d.join("b2"),
            bytes: Some(b"B2".to_vec()),
        },
    ];
    for after in 1..=2 {
        let e = commit(&ops, Some(after), &show).unwrap_err();
        assert_eq!(e.code, Code::IoError);
        assert_eq!(
            e.message,
            format!("Failed to apply patch: EIO: injected failure after {after} file operations (test hook)")
        );
        assert_eq!(fs::read(d.join("a")).unwrap(), b"A");
        assert_eq!(fs::read(d.join("b")).unwrap(), b"B");
        assert_eq!(fs::read(d.join("c")).unwrap(), b"C");
        assert!(!d.join("new").exists() && !d.join("b2").exists());
        assert!(leftovers(d).is_empty(), "{:?}", leftovers(d));
    }
}

#[test]
fn a_real_failure_midway_rolls_back() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::write(d.join("a"), "A").unwrap();
    fs::write(d.join("taken"), "T").unwrap();
    let ops = vec![
        Op::Delete { path: d.join("a") },
        Op::Move {
            from: d.join("missing"),
            to: d.join("x"),
            bytes: None,
        },
    ];
    let e = commit(&ops, None, &show).unwrap_err();
    assert_eq!(
        e.message,
        "Failed to apply patch: ENOENT: no such file or directory"
    );
    assert_eq!(fs::read(d.join("a")).unwrap(), b"A");
    // A destination that appeared meanwhile is never clobbered.
    let ops = vec![Op::Create {
        path: d.join("taken"),
        bytes: b"new".to_vec(),
    }];
    let e = commit(&ops, None, &show).unwrap_err();
    assert_eq!(e.message, "Failed to apply patch: EEXIST: file exists");
    assert_eq!(fs::read(d.join("taken")).unwrap(), b"T");
    assert!(leftovers(d).is_empty());
}

#[test]
fn a_failing_rollback_is_reported_and_keeps_the_backup() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::create_dir(d.join("sub")).unwrap();
    fs::write(d.join("sub/f"), "F").unwrap();
    let op = Op::Delete {
        path: d.join("sub/f"),
    };
    let mut journal = Journal::default();
    perform(&op, None, &mut journal).unwrap();
    // Something puts a directory where the file was: the backup cannot be renamed back.
    fs::create_dir(d.join("sub/f")).unwrap();
    fs::write(d.join("sub/f/blocker"), "").unwrap();
    let failed = rollback(&mut journal);
    assert_eq!(failed, vec![d.join("sub/f")]);
    assert_eq!(leftovers(d).len(), 1, "the only copy of the file is kept");
}
