//! Descriptor-checked confinement: open first, then prove where the descriptor lives.
//!
//! [`workspace::resolve`](super::resolve) checks a path, but a path can change between the
//! check and the use (a directory swapped for a symlink to the outside). Everything here
//! opens the object first and checks the *descriptor* (Linux: `/proc/self/fd/<n>`) against
//! the real root; the tools then read, list, `chdir` and write through that descriptor
//! ([`io_path`]), which cannot be redirected once open. Where descriptor paths are not
//! available (no `/proc`, another OS) the path is re-checked after the open: that narrows
//! the window to the open itself but cannot close it.

use super::{escape_error, in_write_scope, realpath_prefix, scope_error};
use crate::config::Config;
use crate::error::{Code, ToolError, ToolResult};
use std::fs::File;
use std::fs::OpenOptions;
use std::io;
use std::path::{Path, PathBuf};

/// Options that read a file without blocking on a FIFO (Unix). On Windows with
/// `FILE_FLAG_BACKUP_SEMANTICS`, so a directory opens as it does on Unix (callers see it in
/// the metadata and say `Path is a directory`) instead of failing with `ERROR_ACCESS_DENIED`.
fn read_options() -> OpenOptions {
    let mut o = OpenOptions::new();
    o.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC);
    }
    #[cfg(windows)]
    {
        use std::os::windows::fs::OpenOptionsExt;
        o.custom_flags(FILE_FLAG_BACKUP_SEMANTICS);
    }
    o
}

/// Opens `abs` for reading without following a final symlink (`ELOOP` for one on Unix) and
/// without blocking on a FIFO; the type is not checked (callers `fstat` the handle), nor is
/// confinement (see [`Guard::allows`]). For reading state the tools do not hand to the model
/// as such, like a checkpoint's record of a file.
pub fn open_nofollow(abs: &Path) -> io::Result<File> {
    // Only the Unix flags change the options.
    #[cfg_attr(not(unix), allow(unused_mut))]
    let mut o = read_options();
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC | libc::O_NOFOLLOW);
    }
    o.open(abs)
}

/// Opens directories (and, unlike `O_DIRECTORY`, files too) on Windows.
#[cfg(windows)]
const FILE_FLAG_BACKUP_SEMANTICS: u32 = 0x0200_0000;

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
        o.custom_flags(FILE_FLAG_BACKUP_SEMANTICS);
    }
    o
}

/// Opens `abs` for reading (following symlinks, never blocking on a FIFO) and proves the
/// opened file lies inside the root when confinement is on. Errors: the errno mapping of
/// [`ToolError::fs`] with `input`, `path_escape` for a descriptor that landed outside.
/// The type is not checked: a directory opens too (callers `fstat` the handle).
pub fn open_confined(config: &Config, abs: &Path, input: &str) -> ToolResult<File> {
    // Review mode: what a tool staged is what every reader sees.
    if let Some(view) = super::overlay::of(config).and_then(|o| o.view(abs)) {
        return match view {
            super::overlay::View::File(blob) => read_options()
                .open(blob)
                .map_err(|e| ToolError::fs(&e, input)),
            super::overlay::View::Deleted => {
                Err(ToolError::fs(&crate::error::os_error(libc::ENOENT), input))
            }
        };
    }
    let file = read_options()
        .open(abs)
        .map_err(|e| open_error(&e, abs, input))?;
    verify_open(config, &file, abs, input)?;
    Ok(file)
}

/// The error for a failed open of `abs`: a Unix socket (which cannot be opened at all:
/// `ENXIO`) or a device without a driver is `not_a_file` `Not a regular file`, like any
/// special file a tool meets; the rest is [`ToolError::fs`]'s errno mapping.
fn open_error(e: &io::Error, abs: &Path, input: &str) -> ToolError {
    #[cfg(unix)]
    if matches!(crate::error::errno(e), Some(libc::ENXIO | libc::ENODEV))
        && std::fs::metadata(abs).is_ok_and(|m| !m.is_file() && !m.is_dir())
    {
        return ToolError::not_regular(input);
    }
    #[cfg(windows)]
    if e.kind() == io::ErrorKind::NotFound {
        // Windows says "not found" where Unix says `ENOTDIR`: a file stands where a parent
        // directory should be.
        let nearest = abs
            .ancestors()
            .skip(1)
            .find_map(|a| std::fs::metadata(a).ok());
        if nearest.is_some_and(|m| !m.is_dir()) {
            return ToolError::fs(&crate::error::os_error(libc::ENOTDIR), input);
        }
    }
    let _ = abs;
    ToolError::fs(e, input)
}

/// Opens the directory `abs` (a file gives `not_a_file` `Not a directory: <input>`) and
/// proves the opened directory lies inside the root when confinement is on.
///
/// On Linux the handle is `O_PATH`: it needs no read or search permission on the directory
/// itself, so whatever is done through [`io_path`] (list it, `chdir` into it) is checked by
/// the kernel exactly as it would have been on the path.
pub fn open_dir_confined(config: &Config, abs: &Path, input: &str) -> ToolResult<File> {
    open_dir_checked(config, abs, input, true)
}

/// [`open_dir_confined`]; `unix_errors` maps "not found" under a file to `ENOTDIR` (a walk up
/// the ancestors, which a caller that walks up itself must not pay once per level).
fn open_dir_checked(
    config: &Config,
    abs: &Path,
    input: &str,
    unix_errors: bool,
) -> ToolResult<File> {
    let file = dir_options().open(abs).map_err(|e| {
        if unix_errors {
            open_error(&e, abs, input)
        } else {
            ToolError::fs(&e, input)
        }
    })?;
    // `FILE_FLAG_BACKUP_SEMANTICS` opens files too, where `O_DIRECTORY` refuses them.
    #[cfg(windows)]
    if !file.metadata().is_ok_and(|m| m.is_dir()) {
        return Err(ToolError::fs(&crate::error::os_error(libc::ENOTDIR), input));
    }
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
    /// Review mode: the staging area a walk's opens see through ([`Guard::staged`]).
    staged: Option<std::sync::Arc<super::overlay::Overlay>>,
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
            staged: super::overlay::of(config),
        }
    }

    /// Review mode: what a walk finds staged at `abs` (`None`: read the disk).
    pub fn staged(&self, abs: &Path) -> Option<super::overlay::View> {
        self.staged.as_ref().and_then(|o| o.view(abs))
    }

    /// Review mode: what is staged at `abs` opened for reading (its blob, or `ENOENT` for a
    /// deletion); `None` when nothing is staged there.
    pub fn open_staged(&self, abs: &Path) -> Option<std::io::Result<File>> {
        self.staged(abs).map(|v| super::overlay::open_view(&v))
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

/// The write-scope check by descriptor: the entry `name` of the open directory `dir` (opened
/// from `dir_path`; the directory itself when `name` is `None`) must lie in a write-scope
/// directory, else `path_escape` as [`super::check_write_scope`] words it. Writers call it on
/// the handle their write goes through, so a directory swapped after the path check for a
/// symlink into another part of the workspace cannot carry the write out of the scope. A
/// no-op without `writeScope`.
pub fn verify_write_scope(
    config: &Config,
    dir: &File,
    dir_path: &Path,
    name: Option<&std::ffi::OsStr>,
    input: &str,
) -> ToolResult<()> {
    if config.write_scope.is_empty() {
        return Ok(());
    }
    let base = match fd_real_path(dir) {
        Some(real) => real,
        None => realpath_prefix(dir_path).map_err(|e| ToolError::fs(&e, input))?,
    };
    let real = match name {
        Some(name) => base.join(name),
        None => base,
    };
    if in_write_scope(config, &real) {
        Ok(())
    } else {
        Err(scope_error(config, input))
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
        // Walking up finds a file in the way by itself (`Not a directory` when it opens it).
        match open_dir_checked(config, cur, input, !create) {
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

#[cfg(all(test, unix))]
#[path = "descriptors_tests.rs"]
mod tests;

/// Removes directories a failed call created ([`open_dir_for_write`]'s list), deepest first.
pub fn remove_created(created: &[PathBuf]) {
    for d in created.iter().rev() {
        let _ = std::fs::remove_dir(d);
    }
}
