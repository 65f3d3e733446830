//! Lexical path helpers every layer may use: `path.resolve`-style normalisation and the real
//! location of a path whose tail may not exist yet. They know nothing of the workspace or
//! the configuration; confinement lives in `workspace`.

use std::io;
use std::path::{Component, Path, PathBuf};

/// The user's home directory as a shell and git see it: `$HOME` when set and non-empty; on
/// Windows, where it is usually unset, `%USERPROFILE%` (what Git for Windows' `sh` and `git`
/// fall back to). `None` when neither is known.
pub fn home_dir() -> Option<std::ffi::OsString> {
    let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
    var("HOME").or_else(|| {
        if cfg!(windows) {
            var("USERPROFILE")
        } else {
            None
        }
    })
}

/// Lexical normalisation: `.` dropped, `..` pops a component (never above the root: `/..`
/// is `/`, as in `path.resolve`); a relative path keeps its leading `..`s (`../../x`).
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                // `PathBuf::pop` would eat a leading `..` and cannot rise above `/`.
                let ends_in_parent =
                    matches!(out.components().next_back(), Some(Component::ParentDir));
                if ends_in_parent || (!out.pop() && !out.has_root()) {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

/// `path.resolve(p)`: absolute against the process cwd, then normalised.
pub fn absolutize(p: &str) -> PathBuf {
    let path = Path::new(p);
    if path.is_absolute() {
        normalize(path)
    } else {
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
        normalize(&cwd.join(path))
    }
}

/// The real location of `path`: the longest existing prefix realpath'd, the rest appended.
/// A dangling symlink on the way is followed through its target (so a link to a missing
/// place outside the root still counts as outside).
pub fn realpath_prefix(path: &Path) -> io::Result<PathBuf> {
    let mut current = normalize(path);
    // The common case, an existing path, in one realpath (the walk below would lstat it first
    // and then realpath the same thing).
    if let Ok(real) = std::fs::canonicalize(&current) {
        return Ok(real);
    }
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
    Err(crate::error::os_error(libc::ELOOP))
}
