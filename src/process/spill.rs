//! Spill files: where a command's over-budget output goes, and how old ones are swept.
//!
//! A stream that does not fit its share of `maxOutputBytes` is written in full to
//! `<root>/.clarvis/bash-<unique>.<stdout|stderr>.log`, so the model can page through it
//! with `read_file` or `grep`. The directory is created on demand with a `.gitignore`
//! holding `*`, so spill files never show up in `git status`. Nothing here deletes a spill
//! file on its own: [`sweep_spill_dir`] removes old ones when the host asks.

use std::fs::File;
use std::io;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// The directory under the workspace root that holds spill files.
pub const SPILL_DIR: &str = ".clarvis";

/// Spill files older than this are removed by [`sweep_spill_dir`].
pub const SPILL_MAX_AGE: Duration = Duration::from_secs(24 * 60 * 60);

/// The spill file path for one stream of one call: `<root>/.clarvis/bash-<id>.<stream>.log`.
pub fn spill_path(root: &Path, id: &str, stream: &str) -> PathBuf {
    root.join(SPILL_DIR).join(format!("bash-{id}.{stream}.log"))
}

/// Makes the state directory `dir` (`.clarvis/`) when missing, checks it is a real
/// directory (not a symlink that could lead elsewhere) and gives it a `.gitignore` of `*`.
pub fn create_dir(dir: &Path) -> io::Result<()> {
    match std::fs::create_dir(dir) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    if !std::fs::symlink_metadata(dir)?.is_dir() {
        return Err(crate::error::os_error(libc::ENOTDIR));
    }
    // `create_new` so a user's own `.gitignore` is never replaced; losing the race is fine.
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(dir.join(".gitignore"))
    {
        // Best effort: a missing ignore file must not cost the user their output.
        let _ = f.write_all(b"*\n");
    }
    Ok(())
}

/// Creates the spill file at `path` (never over an existing file), after making sure its
/// directory exists, is a real directory (not a symlink that could lead elsewhere), and has
/// a `.gitignore`.
///
/// Synchronous on purpose, like the writes that follow: page-cache writes of a 64 KiB chunk
/// cost microseconds, less than a hop to a blocking pool per chunk.
pub fn create(path: &Path) -> io::Result<File> {
    let dir = path
        .parent()
        .ok_or_else(|| crate::error::os_error(libc::ENOENT))?;
    create_dir(dir)?;
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
}

/// Removes regular files named `bash-*` in `<root>/.clarvis/` whose modification time is
/// more than 24 hours old. Directories and symlinks are left alone. Never fails: a missing
/// directory, or a stat or remove that fails, is skipped. Returns how many files it removed.
pub async fn sweep_spill_dir(root: &Path) -> usize {
    let dir = root.join(SPILL_DIR);
    tokio::task::spawn_blocking(move || sweep_blocking(&dir, SystemTime::now()))
        .await
        .unwrap_or(0)
}

fn sweep_blocking(dir: &Path, now: SystemTime) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        if !entry.file_name().to_string_lossy().starts_with("bash-") {
            continue;
        }
        // `DirEntry::metadata` does not follow symlinks, so a link is seen as a link.
        let Ok(meta) = entry.metadata() else { continue };
        if !meta.file_type().is_file() {
            continue;
        }
        let old = meta
            .modified()
            .ok()
            .and_then(|m| now.duration_since(m).ok())
            .is_some_and(|age| age > SPILL_MAX_AGE);
        if old && std::fs::remove_file(entry.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unique_id_has_the_temp_file_shape() {
        let a = crate::atomic::unique_id();
        let parts: Vec<&str> = a.split('-').collect();
        assert_eq!(parts.len(), 4);
        assert_eq!(parts[0], std::process::id().to_string());
        assert_eq!(parts[3].len(), 12);
        assert!(parts[3].chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, crate::atomic::unique_id());
    }

    #[test]
    fn create_makes_dir_and_gitignore_but_keeps_an_existing_one() {
        let root = tempfile::tempdir().unwrap();
        let p = spill_path(root.path(), "x", "stdout");
        create(&p).unwrap();
        assert_eq!(
            std::fs::read(root.path().join(".clarvis/.gitignore")).unwrap(),
            b"*\n"
        );
        std::fs::write(root.path().join(".clarvis/.gitignore"), "mine").unwrap();
        create(&spill_path(root.path(), "y", "stdout")).unwrap();
        assert_eq!(
            std::fs::read(root.path().join(".clarvis/.gitignore")).unwrap(),
            b"mine"
        );
        // Never over an existing file.
        assert!(create(&p).is_err());
    }

    #[tokio::test]
    async fn sweep_on_a_missing_dir_is_quiet() {
        let root = tempfile::tempdir().unwrap();
        assert_eq!(sweep_spill_dir(root.path()).await, 0);
    }
}
