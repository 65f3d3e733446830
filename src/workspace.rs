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
    #[cfg(target_os = "linux")]
    let flags = libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC;
    #[cfg(not(target_os = "linux"))]
    let flags = libc::O_DIRECTORY | libc::O_NONBLOCK | libc::O_CLOEXEC;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(flags)
        .open(abs)
        .map_err(|e| ToolError::fs(&e, input))?;
    verify_open(config, &file, abs, input)?;
    Ok(file)
}

/// Checks that an already open `file` (opened from `abs`) lies inside the root: `path_escape`
/// otherwise. A no-op when confinement is off.
pub fn verify_open(config: &Config, file: &File, abs: &Path, input: &str) -> ToolResult<()> {
    if !config.confine_to_workspace {
        return Ok(());
    }
    let Ok(root) = std::fs::canonicalize(&config.workspace_root) else {
        return Err(escape_error(input));
    };
    let real = match fd_real_path(file) {
        Some(real) => real,
        // No descriptor paths on this system: re-check the path after the open, which
        // narrows the window to the open itself but cannot close it.
        None => realpath_prefix(abs).map_err(|_| escape_error(input))?,
    };
    if real == root || real.starts_with(&root) {
        Ok(())
    } else {
        Err(escape_error(input))
    }
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
    fn display_paths() {
        let (root, _o, c) = setup();
        assert_eq!(display(&c, root.path()), ".");
        assert_eq!(display(&c, &root.path().join("..env")), "..env");
        assert_eq!(display(&c, &root.path().join("a/b")), "a/b");
        assert_eq!(display(&c, Path::new("/etc/x")), "/etc/x");
    }
}
