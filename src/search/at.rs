//! Opening and stat-ing walked files relative to the walk's base directory.
//!
//! Every path the walker yields is absolute (`/home/u/project/src/x.rs`), and the kernel
//! resolves each component on every `open`/`stat`. ripgrep, run in the project as an agent
//! runs it, passes short relative paths instead. Resolving against an `O_PATH` descriptor of
//! the base (`openat`/`fstatat`) gives us the same short lookups: on the benchmark corpus,
//! path lookup was the largest kernel cost of `glob` after `getdents` (~12 % of its CPU).
//!
//! Contract: the same results as `File::open(abs)` (but non-blocking) /
//! `symlink_metadata(abs)`; a path not
//! plainly under the base, or a base that cannot be opened, falls back to the absolute path.

use std::ffi::CString;
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

#[cfg(target_os = "linux")]
const DIR_FLAGS: libc::c_int = libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC;
#[cfg(not(target_os = "linux"))]
const DIR_FLAGS: libc::c_int = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC;
#[cfg(target_os = "linux")]
const ENTRY_FLAGS: libc::c_int = libc::O_PATH | libc::O_NOFOLLOW | libc::O_CLOEXEC;
#[cfg(not(target_os = "linux"))]
const ENTRY_FLAGS: libc::c_int =
    libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC;

/// A walk's base directory, held open for path resolution.
pub struct BaseDir {
    fd: Option<OwnedFd>,
    prefix: Vec<u8>,
}

impl BaseDir {
    /// Opens `base` (a directory). Never fails: without a descriptor, absolute paths are used.
    pub fn open(base: &Path) -> BaseDir {
        let fd = CString::new(base.as_os_str().as_bytes())
            .ok()
            .and_then(|c| {
                // SAFETY: `c` is a valid NUL-terminated string; the returned descriptor, when
                // valid, is owned by nobody else and is closed by `OwnedFd`.
                let fd = unsafe { libc::open(c.as_ptr(), DIR_FLAGS) };
                // SAFETY: see above; a negative value is an error and is not wrapped.
                (fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd) })
            });
        BaseDir {
            fd,
            prefix: base.as_os_str().as_bytes().to_vec(),
        }
    }

    /// `path`'s part below the base as a C string, when `path` is the base, `/`, then more.
    fn relative(&self, path: &Path) -> Option<(i32, CString)> {
        let fd = self.fd.as_ref()?.as_raw_fd();
        let p = path.as_os_str().as_bytes();
        let d = &self.prefix;
        if p.len() > d.len() + 1 && p.starts_with(d) && p[d.len()] == b'/' {
            CString::new(&p[d.len() + 1..]).ok().map(|c| (fd, c))
        } else {
            None
        }
    }

    /// `File::open(path)`, resolved from the base when possible. Non-blocking, so opening a
    /// FIFO never waits for a writer (reads of regular files are unaffected).
    pub fn open_file(&self, path: &Path) -> io::Result<File> {
        let Some((fd, rel)) = self.relative(path) else {
            return std::fs::OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
                .open(path);
        };
        let file = loop {
            // SAFETY: `fd` is an open directory descriptor owned by `self`, `rel` a valid C
            // string; the flags are those `File::open` uses.
            let file = unsafe {
                libc::openat(
                    fd,
                    rel.as_ptr(),
                    libc::O_RDONLY | libc::O_CLOEXEC | libc::O_NONBLOCK,
                )
            };
            if file >= 0 {
                break file;
            }
            let err = io::Error::last_os_error();
            if err.kind() != io::ErrorKind::Interrupted {
                return Err(err);
            }
        };
        // SAFETY: a fresh descriptor nobody else owns.
        Ok(unsafe { File::from_raw_fd(file) })
    }

    /// Opens `path` itself without following a final symlink (`O_PATH` on Linux), resolved
    /// from the base when possible: a handle to stat and to check against the workspace
    /// root (`workspace::Guard::allows`) without reading the file.
    pub fn open_entry(&self, path: &Path) -> io::Result<File> {
        let (dir, name) = match self.relative(path) {
            Some((fd, rel)) => (fd, rel),
            None => (
                libc::AT_FDCWD,
                CString::new(path.as_os_str().as_bytes()).map_err(io::Error::other)?,
            ),
        };
        let file = loop {
            // SAFETY: `dir` is an open directory descriptor owned by `self` (or AT_FDCWD),
            // `name` a valid C string.
            let file = unsafe { libc::openat(dir, name.as_ptr(), ENTRY_FLAGS) };
            if file >= 0 {
                break file;
            }
            let err = io::Error::last_os_error();
            if err.kind() != io::ErrorKind::Interrupted {
                return Err(err);
            }
        };
        // SAFETY: a fresh descriptor nobody else owns.
        Ok(unsafe { File::from_raw_fd(file) })
    }

    /// The modification time of `path` itself (not following a final symlink), as
    /// `symlink_metadata(path)?.modified()` gives it.
    pub fn mtime(&self, path: &Path) -> io::Result<SystemTime> {
        let Some((fd, rel)) = self.relative(path) else {
            return std::fs::symlink_metadata(path)?.modified();
        };
        // SAFETY: `libc::stat` is plain old data; all-zero is a valid value.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: valid descriptor and C string, `st` is a writable `stat`.
        let rc = unsafe { libc::fstatat(fd, rel.as_ptr(), &mut st, libc::AT_SYMLINK_NOFOLLOW) };
        if rc != 0 {
            return Err(io::Error::last_os_error());
        }
        system_time(st.st_mtime, st.st_mtime_nsec)
            .ok_or_else(|| io::Error::other("modification time out of range"))
    }
}

/// `SystemTime` from a `timespec` (`nsec` is in `0..1e9` for any time, before 1970 too).
fn system_time(sec: i64, nsec: i64) -> Option<SystemTime> {
    let nanos = Duration::from_nanos(u64::try_from(nsec).ok()?);
    if sec >= 0 {
        UNIX_EPOCH
            .checked_add(Duration::from_secs(sec.unsigned_abs()))?
            .checked_add(nanos)
    } else {
        UNIX_EPOCH
            .checked_sub(Duration::from_secs(sec.unsigned_abs()))?
            .checked_add(nanos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn same_answers_as_absolute_paths() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let file = dir.path().join("sub").join("f.txt");
        std::fs::write(&file, "hello").unwrap();
        std::os::unix::fs::symlink(&file, dir.path().join("link")).unwrap();
        let base = BaseDir::open(dir.path());
        assert!(base.fd.is_some());
        let mut text = String::new();
        base.open_file(&file)
            .unwrap()
            .read_to_string(&mut text)
            .unwrap();
        assert_eq!(text, "hello");
        assert_eq!(
            base.mtime(&file).unwrap(),
            std::fs::symlink_metadata(&file)
                .unwrap()
                .modified()
                .unwrap()
        );
        let link = dir.path().join("link");
        assert_eq!(
            base.mtime(&link).unwrap(),
            std::fs::symlink_metadata(&link)
                .unwrap()
                .modified()
                .unwrap()
        );
        let missing = base.open_file(&dir.path().join("nope")).unwrap_err();
        assert_eq!(missing.kind(), io::ErrorKind::NotFound);
        // Outside the base: the absolute path is used.
        let other = tempfile::tempdir().unwrap();
        let out = other.path().join("o.txt");
        std::fs::write(&out, "x").unwrap();
        assert!(base.open_file(&out).is_ok());
    }

    #[test]
    fn times_before_the_epoch() {
        assert_eq!(
            system_time(-2, 500_000_000),
            UNIX_EPOCH.checked_sub(Duration::from_millis(1500))
        );
        assert_eq!(
            system_time(3, 1),
            UNIX_EPOCH.checked_add(Duration::new(3, 1))
        );
    }
}
