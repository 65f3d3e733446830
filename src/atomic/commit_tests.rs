use super::*;
use crate::atomic::undo::JPath;
use crate::config::Config;
use std::fs;
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
            mode: None,
        },
        Op::Create {
            path: d.join("n/e/w.txt"),
            bytes: b"w\n".to_vec(),
            mode: None,
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
            mode: None,
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
        mode: None,
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
    let ops = vec![Op::Delete {
        path: d.join("sub/f"),
    }];
    let mut plan = Plan::default();
    stage(&ops, &mut plan).unwrap();
    perform(&plan.steps[0]).unwrap();
    // Something puts a directory where the file was: the backup cannot be renamed back.
    fs::create_dir(d.join("sub/f")).unwrap();
    fs::write(d.join("sub/f/blocker"), "").unwrap();
    let failed = undo(&plan.steps, &plan.dirs);
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0].path, d.join("sub/f"));
    assert!(failed[0].detail.contains("its previous content is kept at"));
    assert_eq!(leftovers(d).len(), 1, "the only copy of the file is kept");
}

/// A pid that no process can have (above any `pid_max`), for journals of a "crashed" owner.
const DEAD_PID: u32 = i32::MAX as u32;

/// Every operation kind over files `a`..`e` in `d`, and the bytes/inode state to compare.
fn mixed_ops(d: &Path) -> Vec<Op> {
    for (name, body) in [("a", "A"), ("b", "B"), ("c", "C"), ("d", "D"), ("e", "E")] {
        fs::write(d.join(name), body).unwrap();
    }
    vec![
        Op::Modify {
            path: d.join("a"),
            bytes: b"A2".to_vec(),
            mode: None,
        },
        Op::Create {
            path: d.join("new/dir/n"),
            bytes: b"N".to_vec(),
            mode: None,
        },
        Op::Delete { path: d.join("b") },
        Op::Move {
            from: d.join("c"),
            to: d.join("moved/c2"),
            bytes: None,
        },
        Op::Move {
            from: d.join("d"),
            to: d.join("d2"),
            bytes: Some(b"D2".to_vec()),
        },
        Op::Modify {
            path: d.join("e"),
            bytes: b"E2".to_vec(),
            mode: None,
        },
    ]
}

/// The workspace's files and their bytes, ignoring `.clarvis`.
fn snapshot(d: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![d.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in fs::read_dir(&dir).unwrap().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name == ".clarvis" {
                continue;
            }
            if e.file_type().unwrap().is_dir() {
                out.push((e.path().display().to_string() + "/", Vec::new()));
                stack.push(e.path());
            } else {
                out.push((e.path().display().to_string(), fs::read(e.path()).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn a_crash_after_any_number_of_renames_is_rolled_back_at_start_up() {
    // Every prefix of the renames, including the second half-step of a rename + edit and
    // "all done but the journal not yet removed", then a start-up recovery.
    for crash_after in 0..=8 {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let ops = mixed_ops(d);
        let before = snapshot(d);
        let mut plan = Plan::default();
        stage(&ops, &mut plan).unwrap();
        let mut record = Record::new(plan.steps.clone(), &plan.dirs);
        record.pid = DEAD_PID;
        let _journal = journal::write(d, &record).unwrap();
        let mut renames = 0;
        'steps: for step in &plan.steps {
            if let Step::RenameEdit {
                from,
                to,
                temp,
                backup,
                ..
            } = step
            {
                for (a, b) in [(&temp.0, &to.0), (&from.0, &backup.0)] {
                    if renames == crash_after {
                        break 'steps;
                    }
                    fs::rename(a, b).unwrap();
                    renames += 1;
                }
            } else {
                if renames == crash_after {
                    break;
                }
                perform(step).unwrap();
                renames += 1;
            }
        }
        // The process is gone: nothing in memory survives, only the disk and the journal.
        drop(plan);
        assert_eq!(
            journal::recover(&Config::with_root(d)),
            Vec::<String>::new(),
            "crash after {crash_after}"
        );
        assert_eq!(snapshot(d), before, "crash after {crash_after} renames");
        assert!(leftovers(d).is_empty(), "{crash_after}: {:?}", leftovers(d));
        assert!(!d.join(journal::JOURNAL_DIR).exists(), "journal retired");
        // Idempotent: a second start-up finds nothing to do and changes nothing.
        assert!(journal::recover(&Config::with_root(d)).is_empty());
        assert_eq!(snapshot(d), before);
    }
}

#[test]
fn a_journaled_commit_leaves_no_journal_and_recovery_keeps_its_result() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let ops = mixed_ops(d);
    let options = Options {
        journal_root: Some(d.to_path_buf()),
        ..Options::default()
    };
    commit_with(&ops, &options, &show).unwrap();
    let after = snapshot(d);
    assert_eq!(fs::read(d.join("a")).unwrap(), b"A2");
    assert!(
        !d.join(".clarvis").exists(),
        "the journal, its directory and the .clarvis it created are gone"
    );
    assert!(journal::recover(&Config::with_root(d)).is_empty());
    assert_eq!(snapshot(d), after);
    assert!(leftovers(d).is_empty());
}

#[test]
fn a_failed_journaled_commit_rolls_back_and_retires_its_journal() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let ops = mixed_ops(d);
    let before = snapshot(d);
    let options = Options {
        journal_root: Some(d.to_path_buf()),
        fail_after: Some(4),
        ..Options::default()
    };
    let e = commit_with(&ops, &options, &show).unwrap_err();
    assert_eq!(
        e.message,
        "Failed to apply patch: EIO: injected failure after 4 file operations (test hook)"
    );
    assert_eq!(snapshot(d), before);
    assert!(
        !d.join(".clarvis").exists(),
        "the journal, its directory and the .clarvis it created are gone"
    );
    assert!(leftovers(d).is_empty());
}

#[test]
fn recovery_leaves_live_commits_and_files_changed_since_alone() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let ops = mixed_ops(d);
    let mut plan = Plan::default();
    stage(&ops, &mut plan).unwrap();
    // This process's own journal is a commit in flight: untouched.
    let record = Record::new(plan.steps.clone(), &plan.dirs);
    let live = journal::write(d, &record).unwrap();
    perform(&plan.steps[0]).unwrap();
    assert!(journal::recover(&Config::with_root(d)).is_empty());
    assert_eq!(fs::read(d.join("a")).unwrap(), b"A2");
    live.remove().unwrap();
    // A dead owner's journal whose target someone rewrote after the crash.
    let mut record = record;
    record.pid = DEAD_PID;
    let _j = journal::write(d, &record).unwrap();
    fs::remove_file(d.join("a")).unwrap();
    fs::write(d.join("a"), "edited by the user").unwrap();
    let warnings = journal::recover(&Config::with_root(d));
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0]
        .starts_with("clarvis-agent-tools: warning: rolling back the interrupted patch "));
    assert!(warnings[0].contains(&format!(
        "could not restore {}: it was changed since and is left as it is; its previous content is kept at ",
        d.join("a").display()
    )));
    assert!(warnings[0].ends_with('\n'));
    assert_eq!(fs::read(d.join("a")).unwrap(), b"edited by the user");
    // Every other file of the journal is as before the commit.
    assert_eq!(fs::read(d.join("b")).unwrap(), b"B");
    assert!(!d.join("new").exists() && !d.join("d2").exists());
    assert_eq!(
        leftovers(d).len(),
        1,
        "only the backup of the changed file: {:?}",
        leftovers(d)
    );
}

#[test]
fn a_journal_cut_short_is_dropped_without_touching_anything() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::write(d.join("x"), "X").unwrap();
    fs::create_dir_all(d.join(journal::JOURNAL_DIR)).unwrap();
    let cut = d
        .join(journal::JOURNAL_DIR)
        .join(format!("{DEAD_PID}-1-0-000000000000.json"));
    fs::write(
        &cut,
        br#"{"version":1,"pid":2147483647,"start":null,"dirs":[],"steps":[{"op":"del"#,
    )
    .unwrap();
    assert!(journal::recover(&Config::with_root(d)).is_empty());
    assert!(!cut.exists());
    assert_eq!(fs::read(d.join("x")).unwrap(), b"X");
}

#[test]
fn stale_temp_files_are_swept_by_the_next_write_unless_a_journal_is_pending() {
    use std::time::{Duration, SystemTime};
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let old = SystemTime::now() - Duration::from_secs(3600);
    let stale = d.join(format!(
        "{}{DEAD_PID}-1-0-000000000000",
        crate::atomic::TEMP_PREFIX
    ));
    let fresh = d.join(format!(
        "{}{DEAD_PID}-2-0-000000000000",
        crate::atomic::TEMP_PREFIX
    ));
    let mine = crate::atomic::temp_name(d);
    for p in [&stale, &fresh, &mine] {
        fs::write(p, "x").unwrap();
    }
    for p in [&stale, &mine] {
        fs::File::options()
            .write(true)
            .open(p)
            .unwrap()
            .set_modified(old)
            .unwrap();
    }
    // A pending journal (a commit in flight in this process) holds sweeps off.
    let record = Record::new(Vec::new(), &[]);
    let pending = journal::write(d, &record).unwrap();
    crate::atomic::write_file(&d.join("f"), b"1", "f").unwrap();
    assert!(stale.exists());
    pending.remove().unwrap();
    crate::atomic::write_file(&d.join("f"), b"2", "f").unwrap();
    assert!(!stale.exists(), "a dead process's old temp file is swept");
    assert!(
        fresh.exists(),
        "a recent one is spared (a writer in another pid namespace)"
    );
    assert!(mine.exists(), "a live process's temp file is never swept");
}

#[test]
fn journal_paths_round_trip_even_when_not_utf8() {
    use std::os::unix::ffi::OsStrExt;
    let weird = PathBuf::from(std::ffi::OsStr::from_bytes(b"/tmp/\xff\xfe-x"));
    for p in [
        weird,
        PathBuf::from("/tmp/hex:literal"),
        PathBuf::from("/tmp/é"),
    ] {
        let json = serde_json::to_string(&JPath(p.clone())).unwrap();
        let back: JPath = serde_json::from_str(&json).unwrap();
        assert_eq!(back.0, p, "{json}");
    }
}

/// 300 operations: more than one staging chunk and more than the I/O threads.
fn many_ops(d: &Path) -> Vec<Op> {
    let mut ops = Vec::new();
    for i in 0..300 {
        let name = format!("f{i:03}");
        fs::write(d.join(&name), format!("old {i}\n")).unwrap();
        fs::set_permissions(d.join(&name), fs::Permissions::from_mode(0o600 + (i % 8))).unwrap();
        ops.push(if i % 3 == 0 {
            Op::Create {
                path: d.join(format!("new/d{}/c{i:03}", i % 5)),
                bytes: format!("created {i}\n").into_bytes(),
                mode: None,
            }
        } else {
            Op::Modify {
                path: d.join(&name),
                bytes: format!("new {i}\n").into_bytes(),
                mode: None,
            }
        });
    }
    ops
}

#[test]
fn a_commit_of_many_files_staged_in_parallel_lands_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let ops = many_ops(d);
    let options = Options {
        journal_root: Some(d.to_path_buf()),
        ..Options::default()
    };
    commit_with(&ops, &options, &show).unwrap();
    for i in 0..300 {
        let f = d.join(format!("f{i:03}"));
        if i % 3 == 0 {
            let c = d.join(format!("new/d{}/c{i:03}", i % 5));
            assert_eq!(fs::read(c).unwrap(), format!("created {i}\n").as_bytes());
            assert_eq!(fs::read(&f).unwrap(), format!("old {i}\n").as_bytes());
        } else {
            assert_eq!(fs::read(&f).unwrap(), format!("new {i}\n").as_bytes());
        }
        let mode = fs::metadata(&f).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600 + (i % 8), "{}", f.display());
    }
    assert!(leftovers(d).is_empty(), "{:?}", leftovers(d));
    assert!(!d.join(".clarvis").exists());
}

#[test]
fn a_staging_failure_in_a_later_chunk_leaves_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut ops = many_ops(d);
    let before = snapshot(d);
    // After the first chunk (256) was fully staged, in the middle of the second one.
    ops.insert(
        280,
        Op::Delete {
            path: d.join("missing"),
        },
    );
    let options = Options {
        journal_root: Some(d.to_path_buf()),
        ..Options::default()
    };
    let e = commit_with(&ops, &options, &show).unwrap_err();
    assert_eq!(
        e.message,
        "Failed to apply patch: ENOENT: no such file or directory"
    );
    assert_eq!(
        snapshot(d),
        before,
        "files unchanged, created directories removed"
    );
    assert!(leftovers(d).is_empty(), "{:?}", leftovers(d));
    assert!(!d.join(".clarvis").exists());
}

/// Recovery is a confined writer: a directory moved out of the workspace after the crash
/// and linked back in its place is not rolled back through the link.
#[test]
fn recovery_never_follows_a_directory_moved_out_and_linked_back() {
    let base = tempfile::tempdir().unwrap();
    let d = &base.path().join("ws");
    let outside = base.path().join("outside");
    fs::create_dir_all(d.join("sub")).unwrap();
    fs::create_dir_all(&outside).unwrap();
    fs::write(d.join("sub/a"), "A").unwrap();
    fs::write(d.join("top"), "T").unwrap();
    let ops = vec![
        Op::Modify {
            path: d.join("sub/a"),
            bytes: b"A2".to_vec(),
            mode: None,
        },
        Op::Create {
            path: d.join("sub/n"),
            bytes: b"N".to_vec(),
            mode: None,
        },
        Op::Modify {
            path: d.join("top"),
            bytes: b"T2".to_vec(),
            mode: None,
        },
    ];
    let mut plan = Plan::default();
    stage(&ops, &mut plan).unwrap();
    let mut record = Record::new(plan.steps.clone(), &plan.dirs);
    record.pid = DEAD_PID;
    let _journal = journal::write(d, &record).unwrap();
    for step in &plan.steps {
        perform(step).unwrap();
    }
    drop(plan);
    fs::rename(d.join("sub"), outside.join("sub")).unwrap();
    std::os::unix::fs::symlink(outside.join("sub"), d.join("sub")).unwrap();
    let before = snapshot(&outside);
    let warnings = journal::recover(&Config::with_root(d));
    assert_eq!(snapshot(&outside), before, "the rollback reached outside");
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    for w in &warnings {
        assert!(
            w.contains("its directory is missing or no longer inside the workspace; left as it is"),
            "{w}"
        );
    }
    // What still lies inside is rolled back.
    assert_eq!(fs::read(d.join("top")).unwrap(), b"T");
    assert!(!d.join(journal::JOURNAL_DIR).exists(), "journal retired");
}
