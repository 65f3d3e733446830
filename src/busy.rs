//! Renames over a file another process holds open (Windows): retried with a bounded backoff.
//! Shared by the atomic writers (re-exported by `crate::atomic`) and review mode's manifest
//! (`workspace::overlay`), which sits below `atomic`.
//!
//! Windows refuses to replace or remove a file while another process has it open without
//! `FILE_SHARE_DELETE` (an editor, a running program reading it, an antivirus scan, a search
//! indexer or a sync client taking a look): `ERROR_ACCESS_DENIED`, `ERROR_SHARING_VIOLATION`
//! or `ERROR_LOCK_VIOLATION`. Most such holds last milliseconds (scanners and indexers), so
//! the rename is retried after pauses that double from 10 ms, for about 2.3 s in all — as git
//! and npm's graceful-fs do — and then fails with a sentence that says why. std's own rename
//! already replaces a file opened *with* `FILE_SHARE_DELETE` (Node, VS Code) on Windows 10
//! and later NTFS (POSIX rename semantics). Writing in place instead was considered and
//! rejected (SPEC §9, Platforms): a crash mid-write would tear the file, which every write
//! here promises never happens. On Unix a rename never meets this and is not retried.

use std::io;
use std::path::Path;
use std::time::Duration;

/// The pauses between tries of a rename Windows refused because the file is held open.
pub const BUSY_RETRY_DELAYS: [Duration; 8] = [
    Duration::from_millis(10),
    Duration::from_millis(20),
    Duration::from_millis(40),
    Duration::from_millis(80),
    Duration::from_millis(160),
    Duration::from_millis(320),
    Duration::from_millis(640),
    Duration::from_millis(1000),
];

/// Runs `op`, and again after each pause of `delays` while it fails with an error `busy`
/// accepts; returns the first success or the last error.
pub fn retry_busy<T>(
    mut op: impl FnMut() -> io::Result<T>,
    busy: impl Fn(&io::Error) -> bool,
    delays: &[Duration],
) -> io::Result<T> {
    let mut pauses = delays.iter();
    loop {
        match op() {
            Err(e) if busy(&e) => match pauses.next() {
                Some(pause) => std::thread::sleep(*pause),
                None => return Err(e),
            },
            other => return other,
        }
    }
}

/// Whether `err` is Windows refusing an operation on a file another process holds open
/// (`ERROR_ACCESS_DENIED` 5, `ERROR_SHARING_VIOLATION` 32, `ERROR_LOCK_VIOLATION` 33).
/// Always false on Unix, where errno 5 is `EIO`.
pub fn held_open(err: &io::Error) -> bool {
    cfg!(windows) && matches!(err.raw_os_error(), Some(5 | 32 | 33))
}

/// `fs::rename(from, to)`, retried per [`BUSY_RETRY_DELAYS`] while Windows says the target is
/// held open; past them, a `PermissionDenied` error that says so (`EACCES: the file is open
/// in another program…`). On Windows an existing target keeps the name it has on disk.
pub fn rename_over(from: &Path, to: &Path) -> io::Result<()> {
    let to = on_disk_name(to);
    let to = to.as_path();
    retry_busy(|| std::fs::rename(from, to), held_open, &BUSY_RETRY_DELAYS).map_err(|e| {
        if held_open(&e) {
            held_open_error()
        } else {
            e
        }
    })
}

/// `path` with its last name as it is spelled on disk, when it exists (Windows). Names match
/// without case there, and a rename over `README.MD` would rename `Readme.md` as well.
fn on_disk_name(path: &Path) -> std::path::PathBuf {
    #[cfg(windows)]
    if let (Ok(real), Some(parent), Some(given)) =
        (std::fs::canonicalize(path), path.parent(), path.file_name())
    {
        // The same name in another case only: a link resolves to another name entirely.
        let lower = |n: &std::ffi::OsStr| n.to_string_lossy().to_lowercase();
        if let Some(name) = real.file_name().filter(|n| lower(n) == lower(given)) {
            return parent.join(name);
        }
    }
    path.to_path_buf()
}

/// The error a rename that stayed refused ends with.
fn held_open_error() -> io::Error {
    let total: Duration = BUSY_RETRY_DELAYS.iter().sum();
    io::Error::new(
        io::ErrorKind::PermissionDenied,
        format!(
            "the file is open in another program, and Windows does not let it be replaced or \
             moved while it is (retried for {:.1} s); close it there and try again",
            total.as_secs_f64()
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn busy_err() -> io::Error {
        io::Error::new(io::ErrorKind::PermissionDenied, "busy")
    }
    fn is_busy(e: &io::Error) -> bool {
        e.to_string() == "busy"
    }

    #[test]
    fn a_hold_that_ends_within_the_pauses_is_waited_out() {
        let mut tries = 0;
        let r = retry_busy(
            || {
                tries += 1;
                if tries < 4 {
                    Err(busy_err())
                } else {
                    Ok(tries)
                }
            },
            is_busy,
            &[Duration::ZERO; 5],
        );
        assert_eq!(r.unwrap(), 4);
    }

    #[test]
    fn a_hold_that_outlasts_them_fails_after_one_try_per_pause() {
        let mut tries = 0;
        let r: io::Result<()> = retry_busy(
            || {
                tries += 1;
                Err(busy_err())
            },
            is_busy,
            &[Duration::ZERO; 3],
        );
        assert!(is_busy(&r.unwrap_err()));
        assert_eq!(tries, 4);
    }

    #[test]
    fn other_errors_are_not_retried() {
        let mut tries = 0;
        let r: io::Result<()> = retry_busy(
            || {
                tries += 1;
                Err(io::Error::from(io::ErrorKind::NotFound))
            },
            is_busy,
            &[Duration::ZERO; 3],
        );
        assert_eq!(r.unwrap_err().kind(), io::ErrorKind::NotFound);
        assert_eq!(tries, 1);
    }

    #[test]
    fn unix_errno_5_is_eio_not_a_hold() {
        if cfg!(unix) {
            assert!(!held_open(&io::Error::from_raw_os_error(5)));
        }
        let msg = held_open_error().to_string();
        assert!(msg.contains("open in another program"), "{msg}");
        assert!(msg.contains("2.3 s"), "{msg}");
    }

    #[test]
    fn rename_over_replaces() {
        let t = tempfile::tempdir().unwrap();
        let (a, b) = (t.path().join("a"), t.path().join("b"));
        std::fs::write(&a, "new").unwrap();
        std::fs::write(&b, "old").unwrap();
        rename_over(&a, &b).unwrap();
        assert_eq!(std::fs::read_to_string(&b).unwrap(), "new");
        assert!(!a.exists());
    }
}
