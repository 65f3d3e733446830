//! Paths: resolving a caller's path against the workspace, confinement, and display.
//!
//! Every tool goes through [`resolve`]; none joins or checks paths on its own. A relative
//! path is joined to the root and an absolute one taken as is; both are normalised lexically
//! (`a/../b` → `b`, no `~` expansion). With confinement on, the real location must be the
//! root or lie under it: the root is realpath'd, the longest existing prefix of the target is
//! realpath'd (following dangling links by hand) and the missing tail appended.
//!
//! That check alone is check-then-use: a directory swapped for a symlink between the check
//! and the open would let the open land outside. So tools never open a checked path and
//! trust it: [`open_confined`] and [`open_dir_confined`] open first, then prove where the
//! *opened descriptor* lives (Linux: `/proc/self/fd/<n>`), and the tool reads or lists
//! through that descriptor ([`io_path`]). A descriptor cannot be redirected after it is
//! open, so the race is closed for everything read through it. Confinement is path-based:
//! a hard link inside the root to an outside inode is inside. It is a guard for the file
//! tools, not a sandbox (`bash` runs arbitrary commands).

use crate::config::{normalize, Config};
use crate::error::{Code, ToolError, ToolResult};
use std::fs::File;
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// The lexical absolute form of `input`: joined to the root when relative, then normalised.
pub fn lexical(config: &Config, input: &str) -> PathBuf {
    let p = Path::new(input);
    if p.is_absolute() {
        normalize(p)
    } else {
        normalize(&config.workspace_root.join(p))
    }
}

/// Resolves a caller's path, enforcing confinement when it is on. Errors: `invalid_input`
/// for a NUL byte, `path_escape` (field `path` = `input`) for a path outside the root.
pub fn resolve(config: &Config, input: &str) -> ToolResult<PathBuf> {
    if input.contains('\0') {
        return Err(ToolError::invalid(format!(
            "Path contains a NUL byte: {}",
            input.replace('\0', "\\0")
        ))
        .with("path", input));
    }
    let abs = lexical(config, input);
    if config.confine_to_workspace && !is_inside(config, &abs) {
        return Err(escape_error(input));
    }
    Ok(abs)
}

/// The `path_escape` error for `input`.
pub fn escape_error(input: &str) -> ToolError {
    ToolError::new(
        Code::PathEscape,
        format!(
            "Path escapes the workspace root: {input} (set ALLOW_OUTSIDE_WORKSPACE=1 to permit)"
        ),
    )
    .with("path", input)
}

/// Whether the real location of `abs` is the real root or lies under it.
pub fn is_inside(config: &Config, abs: &Path) -> bool {
    let Ok(root) = std::fs::canonicalize(&config.workspace_root) else {
        return false;
    };
    match realpath_prefix(abs) {
        Ok(real) => real == root || real.starts_with(&root),
        Err(_) => false,
    }
}

/// The real location of `path`: the longest existing prefix realpath'd, the rest appended.
/// A dangling symlink on the way is followed through its target (so a link to a missing
/// place outside the root still counts as outside).
pub fn realpath_prefix(path: &Path) -> io::Result<PathBuf> {
    let mut current = normalize(path);
    for _ in 0..64 {
        let mut prefix = current.clone();
        let mut rest: Vec<std::ffi::OsString> = Vec::new();
        while std::fs::symlink_metadata(&prefix).is_err() {
            match (prefix.file_name(), prefix.parent()) {
                (Some(name), Some(parent)) => {
                    rest.push(name.to_os_string());
                    prefix = parent.to_path_buf();
                }
                _ => break,
            }
        }
        let base = match std::fs::canonicalize(&prefix) {
            Ok(b) => b,
            Err(err) => {
                // The prefix exists but does not resolve: a dangling (or looping) link.
                let meta = std::fs::symlink_metadata(&prefix)?;
                if !meta.file_type().is_symlink() {
                    return Err(err);
                }
                let target = std::fs::read_link(&prefix)?;
                let parent = prefix.parent().unwrap_or(Path::new("/"));
                let mut next = normalize(&parent.join(target));
                for name in rest.iter().rev() {
                    next.push(name);
                }
                current = next;
                continue;
            }
        };
        let mut out = base;
        for name in rest.iter().rev() {
            out.push(name);
        }
        return Ok(out);
    }
    Err(io::Error::from_raw_os_error(libc::ELOOP))
}

/// Opens `abs` for reading (following symlinks, never blocking on a FIFO) and proves the
/// opened file lies inside the root when confinement is on. Errors: the errno mapping of
/// [`ToolError::fs`] with `input`, `path_escape` for a descriptor that landed outside.
/// The type is not checked: a directory opens too (callers `fstat` the handle).
pub fn open_confined(config: &Config, abs: &Path, input: &str) -> ToolResult<File> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
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
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(dir_flags())
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
            root: config
                .confine_to_workspace
                .then(|| std::fs::canonicalize(&config.workspace_root).ok()),
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

    /// Opens the regular file `abs` without following a final symlink and without reading it
    /// (`O_PATH` on Linux), for tools that only report a file (glob): `Some` only when it is
    /// a regular file lying inside the root. (`O_PATH | O_NOFOLLOW` opens a symlink itself,
    /// so the type is checked on the descriptor.)
    pub fn open_entry(&self, abs: &Path) -> Option<File> {
        #[cfg(target_os = "linux")]
        let flags = libc::O_PATH | libc::O_NOFOLLOW | libc::O_CLOEXEC;
        #[cfg(not(target_os = "linux"))]
        let flags = libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC;
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(flags)
            .open(abs)
            .ok()?;
        let regular = file.metadata().is_ok_and(|m| m.is_file());
        (regular && self.allows(&file, abs)).then_some(file)
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
        let next = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(dir_flags())
            .open(&via)
            .map_err(|e| ToolError::fs(&e, input))?;
        verify_open(config, &next, &lexical, input)?;
        handle = next;
    }
    Ok((handle, created))
}

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

/// How a path is shown to the model: relative to the root (`.` for the root itself), or
/// absolute when it lies outside the root.
pub fn display(config: &Config, abs: &Path) -> String {
    match abs.strip_prefix(&config.workspace_root) {
        Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
        Ok(rel) => rel.to_string_lossy().into_owned(),
        Err(_) => abs.to_string_lossy().into_owned(),
    }
}

#[cfg(test)]
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
    fn relative_and_normalised() {
        let (root, _o, c) = setup();
        assert_eq!(resolve(&c, "a/../b").unwrap(), root.path().join("b"));
        assert_eq!(resolve(&c, "").unwrap(), root.path());
        assert_eq!(resolve(&c, "~/x").unwrap(), root.path().join("~/x"));
    }

    #[test]
    fn escapes_are_refused() {
        let (root, outside, c) = setup();
        let e = resolve(&c, "../x").unwrap_err();
        assert_eq!(e.code, Code::PathEscape);
        assert_eq!(
            e.message,
            "Path escapes the workspace root: ../x (set ALLOW_OUTSIDE_WORKSPACE=1 to permit)"
        );
        assert_eq!(e.fields["path"], "../x");
        assert!(resolve(&c, "/etc/passwd").is_err());
        symlink(outside.path(), root.path().join("out")).unwrap();
        assert!(resolve(&c, "out/new/file").is_err());
        symlink(outside.path().join("missing"), root.path().join("dangling")).unwrap();
        assert!(resolve(&c, "dangling/x").is_err());
        assert!(resolve(&c, "dangling").is_err());
        symlink("/", root.path().join("slash")).unwrap();
        assert!(resolve(&c, "slash/etc").is_err());
    }

    #[test]
    fn inside_links_and_unconfined() {
        let (root, outside, mut c) = setup();
        std::fs::create_dir(root.path().join("d")).unwrap();
        symlink(root.path().join("d"), root.path().join("ld")).unwrap();
        assert!(resolve(&c, "ld/new").is_ok());
        c.confine_to_workspace = false;
        assert_eq!(
            resolve(&c, outside.path().to_str().unwrap()).unwrap(),
            outside.path()
        );
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
        assert!(g.open_entry(&root.path().join("in")).is_some());
        assert!(g.open_entry(&root.path().join("out/secret")).is_none());
        // The final component is never followed.
        symlink(root.path().join("in"), root.path().join("link")).unwrap();
        assert!(g.open_entry(&root.path().join("link")).is_none());
        c.workspace_root = root.path().join("vanished");
        let file = File::open(root.path().join("in")).unwrap();
        assert!(!Guard::new(&c).allows(&file, &root.path().join("in")));
        c.confine_to_workspace = false;
        assert!(!Guard::new(&c).is_on());
    }

    #[test]
    fn display_paths() {
        let (root, _o, c) = setup();
        assert_eq!(display(&c, root.path()), ".");
        assert_eq!(display(&c, &root.path().join("..env")), "..env");
        assert_eq!(display(&c, &root.path().join("a/b")), "a/b");
        assert_eq!(display(&c, Path::new("/etc/x")), "/etc/x");
    }
}
