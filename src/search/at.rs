//! Opening and stat-ing walked files relative to the walk's base directory.
//!
//! Every path the walker yields is absolute (`/home/u/project/src/x.rs`), and the kernel
//! resolves each component on every `open`/`stat`. ripgrep, run in the project as an agent
//! runs it, passes short relative paths instead. Resolving against an `O_PATH` descriptor of
//! the base (`openat`/`fstatat`) gives us the same short lookups: on the benchmark corpus,
//! path lookup was the largest kernel cost of `glob` after `getdents` (~12 % of its CPU).
//!
//! Contract: the same results as `File::open(abs)` (but non-blocking) /
//! `symlink_metadata(abs)`; a path not plainly under the base, or a base that cannot be
//! opened, falls back to the absolute path.
//!
//! Confinement: a walk goes by path, so a directory swapped for a symlink mid-walk could lead
//! an open outside the workspace. With [`BaseDir::confine`], once the base descriptor itself
//! is verified inside the root, files are opened with Linux `openat2(RESOLVE_BENEATH |
//! RESOLVE_NO_SYMLINKS)`: the walker never follows links, so any link met on the way can only
//! be such a swap, and the kernel refuses it. That makes the check part of the open (one
//! syscall) instead of a `/proc/self/fd` lookup per file; where `openat2` is missing the
//! caller verifies each descriptor instead ([`Opened::beneath`] is false).

use crate::workspace::Guard;
use std::ffi::{CString, OsStr};
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::atomic::{AtomicU8, Ordering};
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
    /// Files are opened with `openat2` strictly beneath the (verified) base.
    beneath: bool,
    /// Review mode: the guard's staging area, which [`BaseDir::open_file`] reads through.
    guard: Option<Guard>,
}

/// The kernel's `struct open_how` (libc's is `non_exhaustive`, so it cannot be built).
#[cfg(target_os = "linux")]
#[repr(C)]
struct OpenHow {
    flags: u64,
    mode: u64,
    resolve: u64,
}

/// A file opened by a [`BaseDir`].
#[derive(Debug)]
pub struct Opened {
    /// The open file.
    pub file: File,
    /// Opened strictly beneath a base verified inside the workspace root, through no symlink:
    /// the descriptor needs no further confinement check.
    pub beneath: bool,
}

/// Whether this kernel answers `openat2` (0 unknown, 1 yes, 2 no).
static OPENAT2: AtomicU8 = AtomicU8::new(0);

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
            beneath: false,
            guard: None,
        }
    }

    /// Turns on kernel-checked opens when the base descriptor lies inside the workspace
    /// root (`guard`) and the kernel has `openat2`. Without it, callers check each
    /// descriptor themselves.
    pub fn confine(mut self, guard: &Guard) -> BaseDir {
        let verified = self
            .fd
            .as_ref()
            .and_then(|fd| fd.try_clone().ok())
            .is_some_and(|fd| {
                guard.allows(&File::from(fd), Path::new(OsStr::from_bytes(&self.prefix)))
            });
        self.beneath = guard.is_on() && verified && OPENAT2.load(Ordering::Relaxed) != 2;
        self.guard = Some(guard.clone());
        self
    }

    /// Opens `rel` beneath the base with `openat2`, refusing symlinks. `None` when the kernel
    /// lacks `openat2` (remembered for the process).
    #[cfg(target_os = "linux")]
    fn open_beneath(&self, fd: i32, rel: &CString, flags: libc::c_int) -> Option<io::Result<File>> {
        let how = OpenHow {
            flags: flags as u64,
            mode: 0,
            resolve: libc::RESOLVE_BENEATH | libc::RESOLVE_NO_SYMLINKS,
        };
        loop {
            // SAFETY: `fd` is an open directory descriptor owned by `self`, `rel` a valid C
            // string, `how` a valid `open_how` whose size is passed with it.
            let r = unsafe {
                libc::syscall(
                    libc::SYS_openat2,
                    fd,
                    rel.as_ptr(),
                    &how as *const OpenHow,
                    std::mem::size_of::<OpenHow>(),
                )
            };
            if r >= 0 {
                OPENAT2.store(1, Ordering::Relaxed);
                // SAFETY: a fresh descriptor nobody else owns.
                return Some(Ok(unsafe { File::from_raw_fd(r as i32) }));
            }
            let err = io::Error::last_os_error();
            match err.raw_os_error() {
                Some(libc::EINTR) | Some(libc::EAGAIN) => continue,
                // No openat2 here (old kernel, or a seccomp filter that hides it).
                Some(libc::ENOSYS) | Some(libc::EPERM) if OPENAT2.load(Ordering::Relaxed) != 1 => {
                    OPENAT2.store(2, Ordering::Relaxed);
                    return None;
                }
                _ => return Some(Err(err)),
            }
        }
    }

    #[cfg(not(target_os = "linux"))]
    fn open_beneath(
        &self,
        _fd: i32,
        _rel: &CString,
        _flags: libc::c_int,
    ) -> Option<io::Result<File>> {
        None
    }

    /// Opens `path` with `flags`, from the base when possible, kernel-confined when
    /// [`BaseDir::confine`] turned that on.
    fn open_with(&self, path: &Path, flags: libc::c_int) -> io::Result<Opened> {
        let (dir, name) = match self.relative(path) {
            Some((fd, rel)) => {
                if self.beneath {
                    if let Some(r) = self.open_beneath(fd, &rel, flags) {
                        return r.map(|file| Opened {
                            file,
                            beneath: true,
                        });
                    }
                }
                (fd, rel)
            }
            None => (
                libc::AT_FDCWD,
                CString::new(path.as_os_str().as_bytes()).map_err(io::Error::other)?,
            ),
        };
        let file = loop {
            // SAFETY: `dir` is an open directory descriptor owned by `self` (or AT_FDCWD),
            // `name` a valid C string.
            let file = unsafe { libc::openat(dir, name.as_ptr(), flags) };
            if file >= 0 {
                break file;
            }
            let err = io::Error::last_os_error();
            if err.kind() != io::ErrorKind::Interrupted {
                return Err(err);
            }
        };
        // SAFETY: a fresh descriptor nobody else owns.
        Ok(Opened {
            file: unsafe { File::from_raw_fd(file) },
            beneath: false,
        })
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

    /// Review mode: what is staged at `path` (its blob, or `ENOENT` for a deletion), opened
    /// for reading; `None` when nothing is staged there.
    fn staged(&self, path: &Path) -> Option<io::Result<Opened>> {
        let opened = self.guard.as_ref()?.open_staged(path)?;
        Some(opened.map(|file| Opened {
            file,
            beneath: true,
        }))
    }

    /// `File::open(path)`, resolved from the base when possible. Non-blocking, so opening a
    /// FIFO never waits for a writer (reads of regular files are unaffected).
    pub fn open_file(&self, path: &Path) -> io::Result<Opened> {
        if let Some(opened) = self.staged(path) {
            return opened;
        }
        self.open_with(path, libc::O_RDONLY | libc::O_CLOEXEC | libc::O_NONBLOCK)
    }

    /// Opens `path` itself without following a final symlink (`O_PATH` on Linux), resolved
    /// from the base when possible: a handle to stat and to check against the workspace
    /// root (`workspace::Guard::allows`) without reading the file.
    pub fn open_entry(&self, path: &Path) -> io::Result<Opened> {
        if let Some(opened) = self.staged(path) {
            return opened;
        }
        self.open_with(path, ENTRY_FLAGS)
    }

    /// The modification time of `path` itself (not following a final symlink), as
    /// `symlink_metadata(path)?.modified()` gives it.
    pub fn mtime(&self, path: &Path) -> io::Result<SystemTime> {
        if let Some(opened) = self.staged(path) {
            return opened?.file.metadata()?.modified();
        }
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
            .file
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
    fn confined_opens_refuse_links_on_the_way() {
        use crate::config::Config;
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), "s").unwrap();
        std::fs::create_dir(root.path().join("d")).unwrap();
        std::fs::write(root.path().join("d/f"), "f").unwrap();
        std::os::unix::fs::symlink(outside.path(), root.path().join("swapped")).unwrap();
        let config = Config::with_root(root.path());
        let base = BaseDir::open(root.path()).confine(&Guard::new(&config));
        let inside = base.open_file(&root.path().join("d/f")).unwrap();
        // A link met on the way (a directory swapped mid-walk) never opens the outside:
        // refused by the kernel, or (without openat2) handed back unverified for the caller.
        match base.open_file(&root.path().join("swapped/secret")) {
            Err(_) => assert!(inside.beneath),
            Ok(o) => assert!(!o.beneath),
        }
        let entry = base.open_entry(&root.path().join("d/f")).unwrap();
        assert_eq!(entry.beneath, inside.beneath);
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
