//! [`super::at`] where there are no `openat`-style calls (Windows): the same API, by
//! absolute path. Nothing is kernel-confined here ([`Opened::beneath`] is always false), so
//! callers check each handle against the workspace root, as they do on Unix without
//! `openat2`.

use crate::workspace::Guard;
use std::fs::{File, OpenOptions};
use std::io;
use std::path::Path;
use std::time::SystemTime;

/// A walk's base directory (only its path, here).
pub struct BaseDir {
    /// Review mode: the guard's staging area, which [`BaseDir::open_file`] reads through.
    guard: Option<Guard>,
}

/// A file opened by a [`BaseDir`].
#[derive(Debug)]
pub struct Opened {
    /// The open file.
    pub file: File,
    /// Always false here: the caller verifies the handle.
    pub beneath: bool,
}

impl BaseDir {
    /// See the Unix version; nothing is held open here.
    pub fn open(_base: &Path) -> BaseDir {
        BaseDir { guard: None }
    }

    /// See the Unix version; handles are always checked by the caller here.
    pub fn confine(mut self, guard: &Guard) -> BaseDir {
        self.guard = Some(guard.clone());
        self
    }

    /// `File::open(path)` (review mode: what is staged there, see the Unix version).
    pub fn open_file(&self, path: &Path) -> io::Result<Opened> {
        if let Some(opened) = self.staged(path) {
            return opened;
        }
        File::open(path).map(|file| Opened {
            file,
            beneath: false,
        })
    }

    /// Opens `path` itself, a directory too, without following a final symlink (reparse
    /// point): a handle to check against the workspace root.
    pub fn open_entry(&self, path: &Path) -> io::Result<Opened> {
        if let Some(opened) = self.staged(path) {
            return opened;
        }
        let mut o = OpenOptions::new();
        o.read(true);
        #[cfg(windows)]
        {
            use std::os::windows::fs::OpenOptionsExt;
            const FILE_FLAG_BACKUP_SEMANTICS: u32 = 0x0200_0000;
            const FILE_FLAG_OPEN_REPARSE_POINT: u32 = 0x0020_0000;
            o.custom_flags(FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OPEN_REPARSE_POINT);
        }
        o.open(path).map(|file| Opened {
            file,
            beneath: false,
        })
    }

    /// The modification time of `path` itself (not following a final symlink).
    pub fn mtime(&self, path: &Path) -> io::Result<SystemTime> {
        if let Some(opened) = self.staged(path) {
            return opened?.file.metadata()?.modified();
        }
        std::fs::symlink_metadata(path)?.modified()
    }

    /// Review mode: what is staged at `path`, opened for reading (see the Unix version).
    fn staged(&self, path: &Path) -> Option<io::Result<Opened>> {
        let opened = self.guard.as_ref()?.open_staged(path)?;
        Some(opened.map(|file| Opened {
            file,
            beneath: true,
        }))
    }
}
