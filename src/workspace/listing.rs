//! Listing a directory through its descriptor, for walks that show every entry (`tree`).
//!
//! A [`Listing`] is a directory opened for reading; its entries are read from that
//! descriptor, a subdirectory is opened relative to it without following a symlink (the
//! contract of [`super::open_subdir`]), and a file's size is taken relative to it too, so a
//! path component swapped for a symlink mid-walk cannot redirect any of these.
//!
//! On Linux this is `getdents64` into a caller's buffer (rustix's `RawDir`), `openat` and
//! `fstatat` on the one descriptor: no `/proc/self/fd` path to list a pinned directory
//! through, no `DIR` or path allocations per entry. Elsewhere the same calls go through std
//! (`read_dir` of the pinned path, `DirEntry::metadata`).

/// What an entry is, as the listing tells it (symlinks are never followed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A directory.
    Dir,
    /// A symbolic link, whatever it points to.
    Symlink,
    /// Anything else: a regular file, a FIFO, a socket, a device.
    Other,
}

/// Reusable memory for [`Listing::each`]: one per thread of a walk.
#[cfg(target_os = "linux")]
pub struct Scratch {
    buf: Vec<u8>,
}

#[cfg(target_os = "linux")]
impl Default for Scratch {
    fn default() -> Scratch {
        // Large enough for any entry (a name is at most 255 bytes) and for a directory of
        // ~2,000 entries per system call.
        Scratch {
            buf: Vec::with_capacity(64 * 1024),
        }
    }
}

/// Reusable memory for [`Listing::each`] (none needed off Linux).
#[cfg(not(target_os = "linux"))]
#[derive(Default)]
pub struct Scratch {
    _none: (),
}

#[cfg(target_os = "linux")]
mod imp {
    use super::{Kind, Scratch};
    use rustix::fs::{AtFlags, FileType, Mode, OFlags, RawDir};
    use std::ffi::{CStr, OsStr};
    use std::fs::File;
    use std::io;
    use std::os::fd::OwnedFd;
    use std::os::unix::ffi::OsStrExt;
    use std::path::Path;

    /// A directory open for listing.
    #[derive(Debug)]
    pub struct Listing {
        fd: OwnedFd,
    }

    /// One entry of a [`Listing`].
    pub struct Entry<'a> {
        dir: &'a OwnedFd,
        name: &'a CStr,
        kind: Kind,
        /// Known when the type had to be stat'ed already.
        size: Option<u64>,
    }

    const READ_DIR: OFlags = OFlags::RDONLY
        .union(OFlags::DIRECTORY)
        .union(OFlags::CLOEXEC);

    impl Listing {
        /// The directory `handle` (a confined handle of `_abs`, possibly `O_PATH`), opened
        /// for listing: `.` relative to the handle, so the same directory whatever its path
        /// now names.
        pub fn of(handle: &File, _abs: &Path) -> io::Result<Listing> {
            let fd = rustix::fs::openat(handle, c".", READ_DIR, Mode::empty())?;
            Ok(Listing { fd })
        }

        /// The subdirectory `name`, never through a symlink: `ELOOP`/`ENOTDIR` when `name`
        /// is one now, `ENOENT` when it is gone.
        pub fn subdir(&self, name: &OsStr, _abs: &Path) -> io::Result<Listing> {
            let flags = READ_DIR.union(OFlags::NOFOLLOW);
            let fd = rustix::fs::openat(&self.fd, name, flags, Mode::empty())?;
            Ok(Listing { fd })
        }

        /// Calls `f` with every entry but `.` and `..`, in the directory's order. An entry
        /// whose type cannot be told (gone before its `lstat`) is skipped.
        pub fn each(&self, scratch: &mut Scratch, mut f: impl FnMut(Entry<'_>)) -> io::Result<()> {
            let mut dir = RawDir::new(&self.fd, scratch.buf.spare_capacity_mut());
            while let Some(item) = dir.next() {
                let item = item?;
                let name = item.file_name();
                if matches!(name.to_bytes(), b"." | b"..") {
                    continue;
                }
                let (kind, size) = match item.file_type() {
                    FileType::Directory => (Kind::Dir, None),
                    FileType::Symlink => (Kind::Symlink, None),
                    FileType::Unknown => {
                        // Some filesystems do not fill d_type: ask the inode.
                        let Ok(st) = rustix::fs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW)
                        else {
                            continue;
                        };
                        match FileType::from_raw_mode(st.st_mode) {
                            FileType::Directory => (Kind::Dir, None),
                            FileType::Symlink => (Kind::Symlink, None),
                            _ => (Kind::Other, Some(st.st_size as u64)),
                        }
                    }
                    _ => (Kind::Other, None),
                };
                f(Entry {
                    dir: &self.fd,
                    name,
                    kind,
                    size,
                });
            }
            Ok(())
        }
    }

    impl Entry<'_> {
        /// The entry's name.
        pub fn name(&self) -> &OsStr {
            OsStr::from_bytes(self.name.to_bytes())
        }

        /// What the entry is.
        pub fn kind(&self) -> Kind {
            self.kind
        }

        /// The entry's size in bytes (`lstat`, relative to the directory); 0 when it is gone.
        pub fn size(&self) -> u64 {
            self.size.unwrap_or_else(|| {
                rustix::fs::statat(self.dir, self.name, AtFlags::SYMLINK_NOFOLLOW)
                    .map_or(0, |st| st.st_size as u64)
            })
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use super::{Kind, Scratch};
    use std::ffi::OsStr;
    use std::fs::File;
    use std::io;
    use std::path::{Path, PathBuf};

    /// A directory open for listing: its pinned handle and its path.
    #[derive(Debug)]
    pub struct Listing {
        handle: File,
        path: PathBuf,
    }

    /// One entry of a [`Listing`].
    pub struct Entry<'a> {
        item: &'a std::fs::DirEntry,
        name: &'a OsStr,
        kind: Kind,
    }

    impl Listing {
        /// The directory `handle` (a confined handle of `abs`), for listing.
        pub fn of(handle: &File, abs: &Path) -> io::Result<Listing> {
            Ok(Listing {
                handle: handle.try_clone()?,
                path: abs.to_path_buf(),
            })
        }

        /// The subdirectory `name` (at `abs`), through [`crate::workspace::open_subdir`].
        pub fn subdir(&self, name: &OsStr, abs: &Path) -> io::Result<Listing> {
            let handle = crate::workspace::open_subdir(&self.handle, &self.path, name)?;
            Ok(Listing {
                handle,
                path: abs.to_path_buf(),
            })
        }

        /// Calls `f` with every entry, in the directory's order; an entry whose type cannot
        /// be told is skipped.
        pub fn each(&self, _scratch: &mut Scratch, mut f: impl FnMut(Entry<'_>)) -> io::Result<()> {
            let dir = crate::workspace::io_path(&self.handle, &self.path);
            for item in std::fs::read_dir(dir)? {
                let item = item?;
                let Ok(ft) = item.file_type() else { continue };
                let kind = if ft.is_symlink() {
                    Kind::Symlink
                } else if ft.is_dir() {
                    Kind::Dir
                } else {
                    Kind::Other
                };
                let name = item.file_name();
                f(Entry {
                    item: &item,
                    name: &name,
                    kind,
                });
            }
            Ok(())
        }
    }

    impl Entry<'_> {
        /// The entry's name.
        pub fn name(&self) -> &OsStr {
            self.name
        }

        /// What the entry is.
        pub fn kind(&self) -> Kind {
            self.kind
        }

        /// The entry's size in bytes (`lstat`); 0 when it is gone.
        pub fn size(&self) -> u64 {
            self.item.metadata().map_or(0, |m| m.len())
        }
    }
}

pub use imp::{Entry, Listing};
