//! Atomic writes, symlink refusal, sweeps and locks (Unix only: the tests build symlinks,
//! FIFOs and permission bits).

use super::*;
use std::os::unix::fs::{symlink, PermissionsExt};
use std::sync::Arc;

fn leftovers(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(TEMP_PREFIX))
        .collect()
}

#[test]
fn temp_names_have_the_contract_shape() {
    let p = temp_name(Path::new("/x"));
    let name = p.file_name().unwrap().to_str().unwrap();
    let parts: Vec<&str> = name.strip_prefix(TEMP_PREFIX).unwrap().split('-').collect();
    assert_eq!(parts.len(), 4);
    assert_eq!(parts[0], std::process::id().to_string());
    assert!(parts[1].parse::<u128>().is_ok() && parts[2].parse::<u64>().is_ok());
    assert_eq!(parts[3].len(), 12);
    assert!(parts[3].chars().all(|c| c.is_ascii_hexdigit()));
    assert_ne!(temp_name(Path::new("/x")), temp_name(Path::new("/x")));
}

#[test]
fn write_keeps_mode_and_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("run.sh");
    assert!(write_file(&f, b"one", "run.sh").unwrap());
    fs::set_permissions(&f, fs::Permissions::from_mode(0o755)).unwrap();
    assert!(!write_file(&f, b"two", "run.sh").unwrap());
    assert_eq!(fs::read(&f).unwrap(), b"two");
    assert_eq!(
        fs::metadata(&f).unwrap().permissions().mode() & 0o7777,
        0o755
    );
    assert!(leftovers(dir.path()).is_empty());
}

#[test]
fn symlinks_are_refused_and_failures_clean_up() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("real"), "x").unwrap();
    let link = dir.path().join("link");
    symlink(dir.path().join("real"), &link).unwrap();
    let e = write_file(&link, b"y", "link").unwrap_err();
    assert_eq!(
        e.message,
        format!("Refusing to write through a symlink: {}", link.display())
    );
    assert_eq!(e.fields["path"], link.to_str().unwrap());
    assert_eq!(fs::read(dir.path().join("real")).unwrap(), b"x");
    // Renaming a file over a non-empty directory fails after the temp was written.
    fs::create_dir(dir.path().join("d")).unwrap();
    fs::write(dir.path().join("d/inner"), "").unwrap();
    assert!(replace(&dir.path().join("d"), b"z", None).is_err());
    assert!(leftovers(dir.path()).is_empty());
}

#[test]
fn parents_are_created_and_files_in_the_way_fail() {
    let dir = tempfile::tempdir().unwrap();
    let created = ensure_parent_dirs(&dir.path().join("a/b/c")).unwrap();
    assert_eq!(
        created,
        vec![
            dir.path().join("a"),
            dir.path().join("a/b"),
            dir.path().join("a/b/c")
        ]
    );
    assert!(ensure_parent_dirs(&dir.path().join("a/b"))
        .unwrap()
        .is_empty());
    fs::write(dir.path().join("f"), "").unwrap();
    let e = ensure_parent_dirs(&dir.path().join("f/x")).unwrap_err();
    assert_eq!(e.raw_os_error(), Some(libc::ENOTDIR));
}

#[test]
fn locks_serialise_writers_of_one_path() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("counter");
    fs::write(&f, "0").unwrap();
    let f = Arc::new(f);
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let f = f.clone();
            std::thread::spawn(move || {
                for _ in 0..20 {
                    // Lock through a different spelling of the same path.
                    let alias = f.parent().unwrap().join(".").join("counter");
                    let _g = lock_paths(&[alias, dir_of(&f)]);
                    let n: u32 = fs::read_to_string(&*f).unwrap().parse().unwrap();
                    write_file(&f, (n + 1).to_string().as_bytes(), "counter").unwrap();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(fs::read_to_string(&*f).unwrap(), "160");
}

fn dir_of(f: &Path) -> PathBuf {
    f.parent().unwrap().to_path_buf()
}
