//! Confinement by descriptor against symlinks, FIFOs and swaps (Unix only: the tests build
//! symlinks, FIFOs and permission bits).

use super::*;
use crate::workspace::Pins;
use std::os::unix::fs::symlink;

fn setup() -> (tempfile::TempDir, tempfile::TempDir, Config) {
    let root = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let config = Config::with_root(root.path());
    (root, outside, config)
}

#[test]
fn opened_descriptors_are_verified() {
    let (root, outside, mut c) = setup();
    std::fs::write(root.path().join("in.txt"), "in").unwrap();
    std::fs::write(outside.path().join("secret"), "s").unwrap();
    std::fs::create_dir(root.path().join("d")).unwrap();
    assert!(open_confined(&c, &root.path().join("in.txt"), "in.txt").is_ok());
    assert!(open_dir_confined(&c, &root.path().join("d"), "d").is_ok());
    // Opened through a link the lexical check never saw (as after a swap).
    symlink(outside.path(), root.path().join("swapped")).unwrap();
    let e = open_confined(&c, &root.path().join("swapped/secret"), "swapped/secret").unwrap_err();
    assert_eq!(
        (e.code, e.fields["path"].as_str()),
        (Code::PathEscape, Some("swapped/secret"))
    );
    let e = open_dir_confined(&c, &root.path().join("swapped"), "swapped").unwrap_err();
    assert_eq!(e.code, Code::PathEscape);
    let e = open_dir_confined(&c, &root.path().join("in.txt"), "in.txt").unwrap_err();
    assert_eq!(
        (e.code, e.message.as_str()),
        (Code::NotAFile, "Not a directory: in.txt")
    );
    let e = open_confined(&c, &root.path().join("nope"), "nope").unwrap_err();
    assert_eq!(e.code, Code::NotFound);
    c.confine_to_workspace = false;
    assert!(open_confined(&c, &root.path().join("swapped/secret"), "x").is_ok());
}

#[test]
fn io_path_reads_the_opened_directory() {
    let (root, outside, c) = setup();
    std::fs::create_dir(root.path().join("d")).unwrap();
    std::fs::write(root.path().join("d/mine"), "").unwrap();
    std::fs::write(outside.path().join("theirs"), "").unwrap();
    let dir = open_dir_confined(&c, &root.path().join("d"), "d").unwrap();
    // Swap the directory for a link to the outside after the open.
    std::fs::rename(root.path().join("d"), root.path().join("moved")).unwrap();
    symlink(outside.path(), root.path().join("d")).unwrap();
    let names: Vec<_> = std::fs::read_dir(io_path(&dir, &root.path().join("d")))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, vec![std::ffi::OsString::from("mine")]);
}

#[test]
fn directories_for_a_write_are_made_inside_only() {
    let (root, outside, c) = setup();
    let r = root.path();
    let (_, created) = open_dir_for_write(&c, &r.join("a/b/c"), "a/b/c/f", true).unwrap();
    assert_eq!(created, vec![r.join("a"), r.join("a/b"), r.join("a/b/c")]);
    let (_, created) = open_dir_for_write(&c, &r.join("a/b"), "a/b/f", true).unwrap();
    assert!(created.is_empty());
    std::fs::write(r.join("file"), "").unwrap();
    let e = open_dir_for_write(&c, &r.join("file/x"), "file/x/f", true).unwrap_err();
    assert_eq!(
        (e.code, e.message.as_str()),
        (Code::NotAFile, "Not a directory: file/x/f")
    );
    let e = open_dir_for_write(&c, &r.join("nope"), "nope/f", false).unwrap_err();
    assert_eq!(e.code, Code::NotFound);
    // A link out on the way: refused before anything is made.
    symlink(outside.path(), r.join("out")).unwrap();
    let e =
        open_dir_for_write(&c, &r.join("out/new/deeper"), "out/new/deeper/f", true).unwrap_err();
    assert_eq!(e.code, Code::PathEscape);
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
}

#[test]
fn guard_checks_descriptors_and_fails_closed() {
    let (root, outside, mut c) = setup();
    std::fs::write(root.path().join("in"), "").unwrap();
    std::fs::write(outside.path().join("secret"), "").unwrap();
    symlink(outside.path(), root.path().join("out")).unwrap();
    let g = Guard::new(&c);
    assert!(g.is_on());
    let inside = File::open(root.path().join("in")).unwrap();
    assert!(g.allows(&inside, &root.path().join("in")));
    let through_link = File::open(root.path().join("out/secret")).unwrap();
    assert!(!g.allows(&through_link, &root.path().join("out/secret")));
    c.workspace_root = root.path().join("vanished");
    let file = File::open(root.path().join("in")).unwrap();
    assert!(!Guard::new(&c).allows(&file, &root.path().join("in")));
    c.confine_to_workspace = false;
    assert!(!Guard::new(&c).is_on());
}

#[test]
fn pinned_paths_stay_in_the_pinned_directory() {
    let (root, outside, c) = setup();
    let r = root.path();
    std::fs::create_dir(r.join("d")).unwrap();
    let mut pins = Pins::default();
    let via = pins.pin(&c, &r.join("d/f"), "d/f", false).unwrap();
    let made = pins.pin(&c, &r.join("n/m/g"), "n/m/g", true).unwrap();
    assert_eq!(pins.original(&via), r.join("d/f"));
    let unpin = pins.unpinner();
    assert_eq!(unpin(&via), r.join("d/f"));
    assert_eq!(
        unpin(&via.with_file_name(".clarvis-tmp-1")),
        r.join("d/.clarvis-tmp-1")
    );
    // Swap d for a link to the outside: the pinned path still writes into the real d.
    std::fs::rename(r.join("d"), r.join("d-real")).unwrap();
    symlink(outside.path(), r.join("d")).unwrap();
    std::fs::write(&via, "x").unwrap();
    std::fs::write(&made, "y").unwrap();
    assert_eq!(std::fs::read(r.join("d-real/f")).unwrap(), b"x");
    assert_eq!(std::fs::read(r.join("n/m/g")).unwrap(), b"y");
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
    std::fs::remove_file(r.join("n/m/g")).unwrap();
    pins.remove_created();
    assert!(!r.join("n").exists());
    // Within one call a directory stays pinned; a new call sees the link and refuses it.
    assert!(pins.pin(&c, &r.join("d/z"), "d/z", false).is_ok());
    let e = Pins::default()
        .pin(&c, &r.join("d/z"), "d/z", false)
        .unwrap_err();
    assert_eq!(e.code, Code::PathEscape);
}
