//! The read side of the staging area for paths a tool names (SPEC §13): `stat`, `lstat` and
//! opens as a reader in review mode sees them — a staged file is its blob, a staged deletion
//! `ENOENT`, a directory that only staged files make is a directory.

use super::{of, Overlay, View};
use crate::config::Config;
use std::io;
use std::path::Path;

/// `lstat(abs)` as a reader sees it in review mode (a staged file: its blob's metadata; a
/// staged deletion: `ENOENT`); the disk's answer otherwise.
pub fn lstat(config: &Config, abs: &Path) -> io::Result<std::fs::Metadata> {
    let Some(o) = of(config) else {
        return std::fs::symlink_metadata(abs);
    };
    match o.view(abs) {
        Some(View::File(blob)) => std::fs::symlink_metadata(blob),
        Some(View::Deleted) => Err(crate::error::os_error(libc::ENOENT)),
        None => std::fs::symlink_metadata(abs).or_else(|e| staged_dir(&o, abs, e)),
    }
}

/// Opens what `view` stands for, for reading: the blob, or `ENOENT` for a staged deletion.
pub fn open_view(view: &View) -> io::Result<std::fs::File> {
    match view {
        View::File(blob) => std::fs::File::open(blob),
        View::Deleted => Err(crate::error::os_error(libc::ENOENT)),
    }
}

/// Whether review mode staged something at `abs` (then read it through [`super::open_confined`]).
pub fn is_staged(config: &Config, abs: &Path) -> bool {
    of(config).is_some_and(|o| o.view(abs).is_some())
}

/// `stat(abs)` (symlinks followed) as a reader sees it in review mode.
pub fn stat(config: &Config, abs: &Path) -> io::Result<std::fs::Metadata> {
    let Some(o) = of(config) else {
        return std::fs::metadata(abs);
    };
    match o.view(abs) {
        Some(View::File(blob)) => std::fs::metadata(blob),
        Some(View::Deleted) => Err(crate::error::os_error(libc::ENOENT)),
        None => std::fs::metadata(abs).or_else(|e| staged_dir(&o, abs, e)),
    }
}

/// A path the disk lacks (`err`) that is a directory of the staged tree (a staged file lies
/// below it) answers with the metadata of a directory; else `err` stands.
fn staged_dir(o: &Overlay, abs: &Path, err: io::Error) -> io::Result<std::fs::Metadata> {
    if err.kind() == io::ErrorKind::NotFound && o.holds_dir(abs) {
        std::fs::metadata(o.dir())
    } else {
        Err(err)
    }
}

/// Whether `abs` is a directory of the staged tree (a staged file lies below it).
pub fn is_staged_dir(config: &Config, abs: &Path) -> bool {
    of(config).is_some_and(|o| o.holds_dir(abs))
}
