//! Restore as a writer: what a `bash` command plants between a checkpoint and its restore
//! (a symlink for a parent or for the file, a hard link, a file for a parent, a FIFO,
//! socket or device, a path out of the write scope) never lets the restore write, delete
//! or read anything outside — with `force` or without.

use super::*;
use crate::config::{Config, WriteScope, DEFAULT_CHECKPOINT_BYTES};
use std::fs;
use std::os::unix::fs::{symlink, PermissionsExt};

/// `base/ws` (the workspace, with `src/` and `docs/`) beside `base/out` (the sentinel
/// holding `a.txt`, `b.txt`, `new.txt`), a store, and a configuration confined to the root
/// with `writeScope: ["src"]`.
struct Fx {
    _base: tempfile::TempDir,
    root: PathBuf,
    out: PathBuf,
    store: Store,
    cfg: Config,
}

impl Fx {
    fn new() -> Fx {
        let base = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(base.path()).unwrap().join("ws");
        let out = root.with_file_name("out");
        fs::create_dir_all(root.join("src")).unwrap();
        fs::create_dir_all(root.join("docs")).unwrap();
        fs::create_dir_all(&out).unwrap();
        for name in ["a.txt", "b.txt", "new.txt"] {
            fs::write(out.join(name), format!("OUTSIDE {name}\n")).unwrap();
        }
        let mut cfg = Config::with_root(&root);
        cfg.write_scope = WriteScope::parse(&serde_json::json!(["src"]), &root).unwrap();
        let store = Store::new(&root, DEFAULT_CHECKPOINT_BYTES);
        Fx {
            _base: base,
            root,
            out,
            store,
            cfg,
        }
    }

    fn p(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    /// What a tool does to `rel`: record, replace by a rename (or delete), record what it
    /// left.
    fn tool_write(&self, rel: &str, bytes: Option<&[u8]>) {
        let path = self.p(rel);
        self.store
            .before(&self.cfg, std::slice::from_ref(&path), None);
        match bytes {
            Some(b) => crate::atomic::write_file(&path, b, rel)
                .map(|_| ())
                .unwrap(),
            None => fs::remove_file(&path).unwrap(),
        }
        self.store.after(&[path]);
    }

    /// Everything under `out`: names, kinds and contents.
    fn outside(&self) -> Vec<(String, String)> {
        let mut v: Vec<(String, String)> = fs::read_dir(&self.out)
            .unwrap()
            .flatten()
            .map(|e| {
                let p = e.path();
                let what = match fs::symlink_metadata(&p) {
                    Ok(m) if m.is_file() => fs::read_to_string(&p).unwrap_or_default(),
                    Ok(m) => format!("{:?}", m.file_type()),
                    Err(e) => e.to_string(),
                };
                (e.file_name().to_string_lossy().into_owned(), what)
            })
            .collect();
        v.sort();
        v
    }

    /// `src` renamed away and replaced by a symlink to the outside (as `mv src x; ln -s`).
    fn plant_parent_link(&self) {
        fs::rename(self.p("src"), self.p("src-moved")).unwrap();
        symlink(&self.out, self.p("src")).unwrap();
    }
}

/// Restores `paths` of checkpoint `id` (all when `None`), which must be refused with `code`
/// and the message `Restore refused; nothing was restored: …<needle>…`.
fn refused(fx: &Fx, id: &str, paths: Option<&[PathBuf]>, force: bool, code: Code, needle: &str) {
    let err = fx.store.restore(&fx.cfg, id, paths, force).unwrap_err();
    assert_eq!(err.code, code, "{}", err.message);
    assert!(
        err.message
            .starts_with("Restore refused; nothing was restored: ")
            && err.message.contains(needle),
        "{needle}: {}",
        err.message
    );
}

fn mkfifo(path: &Path) {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path; mkfifo only creates a node.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

/// A FIFO, a Unix socket and (when the process may make one) a character device.
fn special_files(dir: &Path) -> Vec<PathBuf> {
    let fifo = dir.join("fifo");
    mkfifo(&fifo);
    let sock = dir.join("sock");
    std::mem::forget(std::os::unix::net::UnixListener::bind(&sock).unwrap());
    let mut v = vec![fifo, sock];
    let dev = dir.join("null");
    let c = std::ffi::CString::new(dev.to_str().unwrap()).unwrap();
    // SAFETY: a valid path; mknod of /dev/null's numbers, which only root may make.
    if unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o600, libc::makedev(1, 3)) } == 0 {
        v.push(dev);
    }
    v
}

#[test]
fn a_parent_swapped_for_a_symlink_to_the_outside_is_refused_force_or_not() {
    let fx = Fx::new();
    fs::write(fx.p("src/b.txt"), "b0\n").unwrap();
    let id = fx.store.checkpoint(None).unwrap();
    fx.tool_write("src/a.txt", Some(b"mine\n"));
    fx.tool_write("src/b.txt", Some(b"b1\n"));
    fx.tool_write("src/new.txt", Some(b"n\n"));
    fx.tool_write("src/new.txt", None);
    let before = fx.outside();
    fx.plant_parent_link();
    // The changes are listed without reading the outside.
    let changes = fx.store.changes(&fx.cfg, &id).unwrap();
    assert!(changes.iter().all(|c| c.after.is_none()), "{changes:?}");
    let report = fx.store.restore(&fx.cfg, &id, None, false).unwrap();
    assert!(report.restored.is_empty(), "{report:?}");
    let escape = "Path escapes the workspace root: src/";
    refused(&fx, &id, None, true, Code::PathEscape, escape);
    let one = [fx.p("src/a.txt")];
    refused(&fx, &id, Some(&one), true, Code::PathEscape, escape);
    assert_eq!(fx.outside(), before, "the outside changed");
    assert_eq!(fs::read(fx.p("src-moved/b.txt")).unwrap(), b"b1\n");
    assert_eq!(fs::read(fx.p("src-moved/a.txt")).unwrap(), b"mine\n");
    // Put back, the same checkpoint restores normally.
    fs::remove_file(fx.p("src")).unwrap();
    fs::rename(fx.p("src-moved"), fx.p("src")).unwrap();
    let report = fx.store.restore(&fx.cfg, &id, None, false).unwrap();
    assert_eq!(report.restored.len(), 2, "{report:?}");
    assert_eq!(fs::read(fx.p("src/b.txt")).unwrap(), b"b0\n");
    assert!(!fx.p("src/a.txt").exists());
}

#[test]
fn a_parent_swapped_for_a_symlink_inside_the_root_but_out_of_scope_is_refused() {
    let fx = Fx::new();
    fs::create_dir(fx.p("src/sub")).unwrap();
    let id = fx.store.checkpoint(None).unwrap();
    fx.tool_write("src/sub/a.txt", Some(b"mine\n"));
    fs::write(fx.p("docs/a.txt"), "docs\n").unwrap();
    fs::rename(fx.p("src/sub"), fx.p("src/sub-moved")).unwrap();
    symlink(fx.p("docs"), fx.p("src/sub")).unwrap();
    let scope = "Path is outside the write scope: src/sub/a.txt";
    refused(&fx, &id, None, true, Code::PathEscape, scope);
    assert_eq!(fs::read(fx.p("docs/a.txt")).unwrap(), b"docs\n");
}

#[test]
fn a_path_recorded_outside_the_write_scope_is_refused() {
    let fx = Fx::new();
    fs::write(fx.p("docs/x.md"), "x0\n").unwrap();
    let id = fx.store.checkpoint(None).unwrap();
    // What a `bash` command (checkpointBash) records: a change the tools may not write back.
    let path = fx.p("docs/x.md");
    fx.store.before(&fx.cfg, std::slice::from_ref(&path), None);
    fs::write(&path, "x1\n").unwrap();
    fx.store.after(std::slice::from_ref(&path));
    refused(&fx, &id, None, false, Code::PathEscape, "writeScope: src");
    assert_eq!(fs::read(&path).unwrap(), b"x1\n");
}

#[test]
fn a_symlink_in_place_of_the_file_is_refused_and_not_followed() {
    let fx = Fx::new();
    fs::write(fx.p("src/a.txt"), "a0\n").unwrap();
    fs::write(fx.p("src/inside.txt"), "inside\n").unwrap();
    let id = fx.store.checkpoint(None).unwrap();
    fx.tool_write("src/a.txt", Some(b"a1\n"));
    fx.tool_write("src/n.txt", Some(b"n\n"));
    let before = fx.outside();
    // A link out is an escape (as for write_file); a link elsewhere inside is refused as
    // a symlink. Neither is followed, for a file to put back or one to delete.
    let (escape, link) = (
        (Code::PathEscape, "Path escapes the workspace root"),
        (Code::InvalidInput, "Refusing to write through a symlink"),
    );
    let cases = [
        ("src/a.txt", fx.out.join("a.txt"), escape),
        ("src/n.txt", fx.out.join("new.txt"), escape),
        ("src/a.txt", fx.p("src/inside.txt"), link),
        ("src/n.txt", fx.p("src/inside.txt"), link),
    ];
    for (rel, target, (code, needle)) in cases {
        let _ = fs::remove_file(fx.p(rel));
        symlink(&target, fx.p(rel)).unwrap();
        refused(&fx, &id, Some(&[fx.p(rel)]), true, code, needle);
        assert!(fs::symlink_metadata(fx.p(rel))
            .unwrap()
            .file_type()
            .is_symlink());
    }
    assert_eq!(fx.outside(), before);
    assert_eq!(fs::read(fx.p("src/inside.txt")).unwrap(), b"inside\n");
}

#[test]
fn a_hard_link_to_an_outside_file_is_replaced_never_written_through() {
    let fx = Fx::new();
    fs::write(fx.p("src/a.txt"), "a0\n").unwrap();
    let id = fx.store.checkpoint(None).unwrap();
    fx.tool_write("src/a.txt", Some(b"a1\n"));
    fx.tool_write("src/n.txt", Some(b"n\n"));
    let before = fx.outside();
    for (rel, target) in [("src/a.txt", "a.txt"), ("src/n.txt", "new.txt")] {
        fs::remove_file(fx.p(rel)).unwrap();
        fs::hard_link(fx.out.join(target), fx.p(rel)).unwrap();
    }
    let report = fx.store.restore(&fx.cfg, &id, None, true).unwrap();
    assert_eq!(report.restored.len(), 2, "{report:?}");
    assert_eq!(fs::read(fx.p("src/a.txt")).unwrap(), b"a0\n");
    assert!(!fx.p("src/n.txt").exists());
    assert_eq!(fx.outside(), before, "the outside inodes are untouched");
}

#[test]
fn a_parent_replaced_by_a_file_is_not_a_directory() {
    let fx = Fx::new();
    fs::create_dir(fx.p("src/d")).unwrap();
    fs::write(fx.p("src/d/a.txt"), "a0\n").unwrap();
    let id = fx.store.checkpoint(None).unwrap();
    fx.tool_write("src/d/a.txt", None);
    fs::remove_dir(fx.p("src/d")).unwrap();
    fs::write(fx.p("src/d"), "a file now\n").unwrap();
    refused(
        &fx,
        &id,
        None,
        true,
        Code::NotAFile,
        "Not a directory: src/d/a.txt",
    );
    assert_eq!(fs::read(fx.p("src/d")).unwrap(), b"a file now\n");
}

#[test]
fn special_files_are_not_a_file_and_never_block() {
    let fx = Fx::new();
    let specials = special_files(&fx.p("docs"));
    let id = fx.store.checkpoint(None).unwrap();
    for (i, _) in specials.iter().enumerate() {
        fs::write(fx.p(&format!("src/had-{i}")), "old\n").unwrap();
        fx.tool_write(&format!("src/had-{i}"), Some(b"new\n"));
        fx.tool_write(&format!("src/made-{i}"), Some(b"made\n"));
    }
    for (i, special) in specials.iter().enumerate() {
        for rel in [format!("src/had-{i}"), format!("src/made-{i}")] {
            fs::remove_file(fx.p(&rel)).unwrap();
            fs::rename(special, fx.p(&rel)).unwrap();
            let needle = format!("Not a regular file: {rel}");
            refused(&fx, &id, Some(&[fx.p(&rel)]), true, Code::NotAFile, &needle);
            let kind = fs::symlink_metadata(fx.p(&rel)).unwrap().file_type();
            assert!(!kind.is_file(), "{rel} was replaced");
            fs::rename(fx.p(&rel), special).unwrap();
            fs::write(fx.p(&rel), "back\n").unwrap();
        }
    }
    // `changes` lists them without opening them.
    for (i, special) in specials.iter().enumerate() {
        fs::remove_file(fx.p(&format!("src/had-{i}"))).unwrap();
        fs::rename(special, fx.p(&format!("src/had-{i}"))).unwrap();
    }
    assert!(!fx.store.changes(&fx.cfg, &id).unwrap().is_empty());
}

#[test]
fn restored_files_get_their_mode_without_a_chmod_through_the_path() {
    let fx = Fx::new();
    fs::write(fx.p("src/x.sh"), "#!/bin/sh\n").unwrap();
    fs::set_permissions(fx.p("src/x.sh"), fs::Permissions::from_mode(0o751)).unwrap();
    let id = fx.store.checkpoint(None).unwrap();
    fx.tool_write("src/x.sh", None);
    let report = fx.store.restore(&fx.cfg, &id, None, false).unwrap();
    assert_eq!(report.restored.len(), 1);
    let m = fs::metadata(fx.p("src/x.sh")).unwrap();
    assert_eq!(m.permissions().mode() & 0o7777, 0o751);
}

#[test]
fn a_store_directory_swapped_for_a_symlink_keeps_nothing_outside() {
    let fx = Fx::new();
    fs::write(fx.p("src/a.txt"), "a0\n").unwrap();
    fs::create_dir_all(fx.out.join("checkpoints")).unwrap();
    symlink(&fx.out, fx.p(".clarvis")).unwrap();
    let id = fx.store.checkpoint(None).unwrap();
    fx.tool_write("src/a.txt", Some(b"a1\n"));
    assert_eq!(fs::read_dir(fx.out.join("checkpoints")).unwrap().count(), 0);
    let report = fx.store.restore(&fx.cfg, &id, None, false).unwrap();
    assert_eq!(report.conflicts.len(), 1, "{report:?}");
    assert!(report.conflicts[0].reason.contains("unrecoverable"));
    // The sweep leaves an outside directory alone too.
    fs::create_dir_all(fx.out.join("checkpoints/999999999-x")).unwrap();
    sweep(&fx.cfg);
    assert!(fx.out.join("checkpoints/999999999-x").exists());
}

/// A thread flips `src` between the real directory and a symlink to the outside while
/// restores (forced, of writes, creates and deletes) run: nothing outside ever changes.
#[test]
fn restores_racing_a_parent_flipped_to_the_outside_never_escape() {
    let fx = Fx::new();
    let names: Vec<String> = (0..8).map(|i| format!("src/f{i}.txt")).collect();
    for n in &names[..4] {
        fs::write(fx.p(n), "old\n").unwrap();
    }
    for n in [
        "f0.txt", "f1.txt", "f2.txt", "f3.txt", "f4.txt", "f5.txt", "f6.txt", "f7.txt",
    ] {
        fs::write(fx.out.join(n), format!("OUTSIDE {n}\n")).unwrap();
    }
    let before = fx.outside();
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let flips = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let flipper = {
        let (src, real, link) = (fx.p("src"), fx.p("src-real"), fx.p("src-link"));
        let (stop, flips) = (stop.clone(), flips.clone());
        symlink(&fx.out, &link).unwrap();
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                let _ = fs::rename(&src, &real);
                let _ = fs::rename(&link, &src);
                let _ = fs::rename(&src, &link);
                let _ = fs::rename(&real, &src);
                flips.fetch_add(1, Ordering::Relaxed);
            }
        })
    };
    // The race starts once the flipper runs (not a matter of scheduling luck).
    while flips.load(Ordering::Relaxed) == 0 {
        std::thread::yield_now();
    }
    let mut restored = 0;
    for _ in 0..100 {
        let id = fx.store.checkpoint(None).unwrap();
        for (i, n) in names.iter().enumerate() {
            // Best effort: a write during a flip may fail (nothing escapes either way).
            let path = fx.p(n);
            fx.store.before(&fx.cfg, std::slice::from_ref(&path), None);
            let parent = path.parent().unwrap();
            if let Ok(dir) = crate::workspace::open_dir_confined(&fx.cfg, parent, n) {
                let _ = if i % 3 == 2 {
                    fs::remove_file(crate::workspace::io_path(&dir, parent).join(&n[4..]))
                        .map_err(|e| ToolError::fs(&e, n))
                } else {
                    crate::atomic::write_file_in(&dir, &path, b"new\n", n).map(|_| ())
                };
            }
            fx.store.after(std::slice::from_ref(&path));
        }
        restored += usize::from(fx.store.restore(&fx.cfg, &id, None, true).is_ok());
        let _ = fx.store.drop_checkpoint(&id);
    }
    stop.store(true, Ordering::Relaxed);
    flipper.join().unwrap();
    assert_eq!(
        fx.outside(),
        before,
        "something outside changed ({} flips, {restored} of 100 restores done)",
        flips.load(Ordering::Relaxed)
    );
}
