//! Descriptor-checked confinement: open first, then prove where the descriptor lives.
//!
//! [`workspace::resolve`](super::resolve) checks a path, but a path can change between the
//! check and the use (a directory swapped for a symlink to the outside). Everything here
//! opens the object first and checks the *descriptor* (Linux: `/proc/self/fd/<n>`) against
//! the real root; the tools then read, list, `chdir` and write through that descriptor
//! ([`io_path`]), which cannot be redirected once open. Where descriptor paths are not
//! available (no `/proc`, another OS) the path is re-checked after the open: that narrows
//! the window to the open itself but cannot close it.

use super::{escape_error, realpath_prefix};
use crate::config::Config;
use crate::error::{Code, ToolError, ToolResult};
use std::fs::File;
use std::fs::OpenOptions;
use std::io;
use std::path::{Path, PathBuf};

/// Options that read a file without blocking on a FIFO (Unix) — on Windows, plain reading.
fn read_options() -> OpenOptions {
    let mut o = OpenOptions::new();
    o.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC);
    }
    o
}

/// Options that open a directory as a handle: `O_PATH` on Linux, `O_DIRECTORY` on other
/// Unixes, `FILE_FLAG_BACKUP_SEMANTICS` on Windows (without which a directory cannot be
/// opened at all).
fn dir_options() -> OpenOptions {
    let mut o = OpenOptions::new();
    o.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(dir_flags());
    }
    #[cfg(windows)]
    {
        use std::os::windows::fs::OpenOptionsExt;
        const FILE_FLAG_BACKUP_SEMANTICS: u32 = 0x0200_0000;
        o.custom_flags(FILE_FLAG_BACKUP_SEMANTICS);
    }
    o
}

/// Opens `abs` for reading (following symlinks, never blocking on a FIFO) and proves the
/// opened file lies inside the root when confinement is on. Errors: the errno mapping of
/// [`ToolError::fs`] with `input`, `path_escape` for a descriptor that landed outside.
/// The type is not checked: a directory opens too (callers `fstat` the handle).
pub fn open_confined(config: &Config, abs: &Path, input: &str) -> ToolResult<File> {
    let file = read_options()
        .open(abs)
        .map_err(|e| ToolError::fs(&e, input))?;
    verify_open(config, &file, abs, input)?;
    Ok(file)
}

/// Opens the directory `abs` (a file gives `not_a_file` `Not a directory: <input>`) and
/// proves the opened directory lies inside the root when confinement is on.
///
/// On Linux the handle is `O_PATH`: it needs no read or search permission on the directory
/// itself, so whatever is done through [`io_path`] (list it, `chdir` into it) is checked by
/// the kernel exactly as it would have been on the path.
pub fn open_dir_confined(config: &Config, abs: &Path, input: &str) -> ToolResult<File> {
    let file = dir_options()
        .open(abs)
        .map_err(|e| ToolError::fs(&e, input))?;
    verify_open(config, &file, abs, input)?;
    Ok(file)
}

/// Checks that an already open `file` (opened from `abs`) lies inside the root: `path_escape`
/// otherwise. A no-op when confinement is off.
pub fn verify_open(config: &Config, file: &File, abs: &Path, input: &str) -> ToolResult<()> {
    if Guard::new(config).allows(file, abs) {
        Ok(())
    } else {
        Err(escape_error(input))
    }
}

/// The confinement check for many descriptors in one call (a walk): the root is realpath'd
/// once. Fails closed: when the root cannot be resolved, nothing is allowed.
#[derive(Debug, Clone)]
pub struct Guard {
    /// `None` when confinement is off; `Some(None)` when the root did not resolve.
    root: Option<Option<PathBuf>>,
}

impl Guard {
    /// The guard for `config`'s root and confinement setting.
    pub fn new(config: &Config) -> Guard {
        Guard {
            root: config.confine_to_workspace.then(|| {
                config
                    .real_root
                    .get(&config.workspace_root)
                    .map(|r| r.into_owned())
            }),
        }
    }

    /// Whether confinement is on (so descriptors need checking at all).
    pub fn is_on(&self) -> bool {
        self.root.is_some()
    }

    /// Whether the open `file` (opened from `abs`) lies inside the root.
    pub fn allows(&self, file: &File, abs: &Path) -> bool {
        let Some(root) = &self.root else { return true };
        let Some(root) = root else { return false };
        let real = match fd_real_path(file) {
            Some(real) => real,
            // No descriptor paths on this system: re-check the path after the open, which
            // narrows the window to the open itself but cannot close it.
            None => match realpath_prefix(abs) {
                Ok(real) => real,
                Err(_) => return false,
            },
        };
        real == *root || real.starts_with(root)
    }
}

/// Opens the directory `dir` that a write will go into, creating it and its missing
/// ancestors first when `create` is set. Each new directory is made inside an already
/// verified directory handle and verified itself once made, so no directory is ever created
/// outside the root, even when a component is swapped for a symlink mid-call. Returns the
/// handle and the directories created (lexical paths, in creation order) for a rollback.
/// Errors carry `input`: `not_a_file` `Not a directory` for a file in the way.
pub fn open_dir_for_write(
    config: &Config,
    dir: &Path,
    input: &str,
    create: bool,
) -> ToolResult<(File, Vec<PathBuf>)> {
    let mut missing: Vec<&std::ffi::OsStr> = Vec::new();
    let mut cur = dir;
    let mut handle = loop {
        match open_dir_confined(config, cur, input) {
            Ok(h) => break h,
            Err(e) if create && e.code == Code::NotFound => match (cur.file_name(), cur.parent()) {
                (Some(name), Some(parent)) => {
                    missing.push(name);
                    cur = parent;
                }
                _ => return Err(e),
            },
            Err(e) => return Err(e),
        }
    };
    let mut lexical = cur.to_path_buf();
    let mut created = Vec::new();
    for name in missing.into_iter().rev() {
        // Made through the parent's handle: the parent cannot be swapped under us.
        let via = io_path(&handle, &lexical).join(name);
        lexical.push(name);
        match std::fs::create_dir(&via) {
            Ok(()) => created.push(lexical.clone()),
            // Another writer made it in between: fine, it is verified below like any other.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(ToolError::fs(&e, input)),
        }
        let next = dir_options()
            .open(&via)
            .map_err(|e| ToolError::fs(&e, input))?;
        verify_open(config, &next, &lexical, input)?;
        handle = next;
    }
    Ok((handle, created))
}

/// Opens the subdirectory `name` of the open directory `parent` (at `parent_path`) without
/// following a symlink (`openat` with `O_NOFOLLOW`): a walk that descends this way stays in
/// the tree it verified at its root, even if an entry is swapped for a symlink to the outside
/// after it was listed (then this fails with `ELOOP` or `ENOTDIR`). The handle is like
/// [`open_dir_confined`]'s. Elsewhere (Windows) the entry is checked by path and then
/// opened, which narrows the window to the open itself.
#[cfg(unix)]
pub fn open_subdir(parent: &File, _parent_path: &Path, name: &std::ffi::OsStr) -> io::Result<File> {
    use std::os::fd::{AsRawFd, FromRawFd};
    use std::os::unix::ffi::OsStrExt;
    let c_name = std::ffi::CString::new(name.as_bytes())
        .map_err(|_| crate::error::os_error(libc::EINVAL))?;
    // SAFETY: `parent` is an open descriptor and `c_name` a NUL-terminated string, both
    // alive for the call; a non-negative result is a new descriptor we then own.
    let fd = unsafe {
        libc::openat(
            parent.as_raw_fd(),
            c_name.as_ptr(),
            dir_flags() | libc::O_NOFOLLOW,
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` was just returned by openat and is owned by nobody else.
    Ok(unsafe { File::from_raw_fd(fd) })
}

/// See the Unix version: by path, refusing a symlink or reparse point.
#[cfg(not(unix))]
pub fn open_subdir(_parent: &File, parent_path: &Path, name: &std::ffi::OsStr) -> io::Result<File> {
    let path = parent_path.join(name);
    let meta = std::fs::symlink_metadata(&path)?;
    if meta.file_type().is_symlink() || !meta.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::NotADirectory,
            "not a directory",
        ));
    }
    dir_options().open(&path)
}

#[cfg(unix)]
fn dir_flags() -> i32 {
    #[cfg(target_os = "linux")]
    return libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC;
    #[cfg(not(target_os = "linux"))]
    return libc::O_DIRECTORY | libc::O_NONBLOCK | libc::O_CLOEXEC;
}

/// Where the kernel says an open descriptor lives, or `None` where it cannot say (no
/// `/proc`, another OS). An unlinked file reads as `<path> (deleted)`, still under its
/// old directory, which is where it was opened.
pub fn fd_real_path(file: &File) -> Option<PathBuf> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd())).ok()
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = file;
        None
    }
}

/// A path that reaches the very object `file` refers to, for APIs that want a path
/// (`read_dir`): `/proc/self/fd/<n>` on Linux, the original `abs` elsewhere. Joining a
/// name to it looks the name up in the opened directory, not in whatever `abs` is now.
pub fn io_path(file: &File, abs: &Path) -> PathBuf {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        let p = PathBuf::from(format!("/proc/self/fd/{}", file.as_raw_fd()));
        if std::fs::symlink_metadata(&p).is_ok() {
            return p;
        }
    }
    let _ = file;
    abs.to_path_buf()
}

/// The directories of a multi-path write (apply_patch), pinned: each target's parent is opened
/// (and made, when asked) through verified handles, and the target is rewritten to a path
/// through that handle (`/proc/self/fd/<n>/<name>` on Linux), so every later path operation
/// on it — temp file, rename, hard link, unlink, rollback — lands in the verified directory
/// even if a component of the original path is swapped for a symlink meanwhile. The handles
/// live as long as the `Pins`.
#[derive(Debug, Default)]
pub struct Pins {
    dirs: Vec<(PathBuf, File)>,
    created: Vec<PathBuf>,
    names: Vec<(PathBuf, PathBuf)>,
}

impl Pins {
    /// Pins `path`'s parent directory (creating it and missing ancestors inside the root
    /// when `create` is set) and returns the path to use for `path` from now on. Errors
    /// carry `input`.
    pub fn pin(
        &mut self,
        config: &Config,
        path: &Path,
        input: &str,
        create: bool,
    ) -> ToolResult<PathBuf> {
        let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
            return Ok(path.to_path_buf());
        };
        let i = match self.dirs.iter().position(|(p, _)| p == parent) {
            Some(i) => i,
            None => {
                let (handle, created) = open_dir_for_write(config, parent, input, create)?;
                self.created.extend(created);
                self.dirs.push((parent.to_path_buf(), handle));
                self.dirs.len() - 1
            }
        };
        let via = io_path(&self.dirs[i].1, parent).join(name);
        self.names.push((via.clone(), path.to_path_buf()));
        Ok(via)
    }

    /// The original path for a path [`Pins::pin`] returned (for messages).
    pub fn original(&self, via: &Path) -> PathBuf {
        self.names
            .iter()
            .find(|(v, _)| v == via)
            .map_or_else(|| via.to_path_buf(), |(_, p)| p.clone())
    }

    /// A function mapping any path inside a pinned directory (the target, or a temp or backup
    /// beside it) back to the workspace path, for records that must outlive the process.
    pub fn unpinner(&self) -> impl Fn(&Path) -> PathBuf + Send + Sync + 'static {
        let dirs: Vec<(PathBuf, PathBuf)> = self
            .dirs
            .iter()
            .map(|(lexical, handle)| (io_path(handle, lexical), lexical.clone()))
            .collect();
        move |p: &Path| {
            for (via, lexical) in &dirs {
                if let Ok(rest) = p.strip_prefix(via) {
                    return lexical.join(rest);
                }
            }
            p.to_path_buf()
        }
    }

    /// The directories pinning created (lexical paths, in creation order).
    pub fn created(&self) -> &[PathBuf] {
        &self.created
    }

    /// Removes the directories pinning created, deepest first, if they are still empty:
    /// the rollback of a write that did not happen.
    pub fn remove_created(&self) {
        for dir in self.created.iter().rev() {
            let _ = std::fs::remove_dir(dir);
        }
    }
}

// Unix only: these tests build symlinks, FIFOs and permission bits.
#[cfg(all(test, unix))]
mod tests {
    use super::*;
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
        let e =
            open_confined(&c, &root.path().join("swapped/secret"), "swapped/secret").unwrap_err();
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
        let e = open_dir_for_write(&c, &r.join("out/new/deeper"), "out/new/deeper/f", true)
            .unwrap_err();
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
}
