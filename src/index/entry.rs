//! What the image records per file and directory: the metadata that says whether it changed
//! since it was indexed, its flags, and (files) the duplicate group its content belongs to.

use std::fs::Metadata;

/// File flag: the content is not indexed (binary, over `maxFileBytes`, unreadable) — such
/// a file is never a candidate unless its metadata changes.
pub const NO_CONTENT: u32 = 1;
/// File flag: the file's mtime was too close to the moment it was read for its metadata to
/// prove later that it has not changed (the "racy git" problem): always a candidate.
pub const RACY: u32 = 2;

/// The metadata that says whether a file or directory changed since it was indexed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Stamp {
    /// Length in bytes.
    pub size: u64,
    /// Modification time, ns since the epoch.
    pub mtime: i64,
    /// Status-change time, ns since the epoch (moves on any write, chmod, rename).
    pub ctime: i64,
    /// Inode number (an atomic replace gives a new one).
    pub ino: u64,
}

impl Stamp {
    /// The stamp of `meta`.
    pub fn of(meta: &Metadata) -> Stamp {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            Stamp {
                size: meta.size(),
                mtime: meta.mtime() * 1_000_000_000 + meta.mtime_nsec(),
                ctime: meta.ctime() * 1_000_000_000 + meta.ctime_nsec(),
                ino: meta.ino(),
            }
        }
        #[cfg(not(unix))]
        {
            let (s, ns) = crate::fsmeta::mtime(meta);
            Stamp {
                size: meta.len(),
                mtime: s * 1_000_000_000 + ns,
                ctime: 0,
                ino: crate::fsmeta::identity(meta).1,
            }
        }
    }
}

/// No file: the end of a duplicate chain, a directory's group.
pub const NONE: u32 = u32::MAX;

/// One file or directory of the image, as given to [`super::image::image`].
#[derive(Debug, Clone)]
pub struct Entry {
    /// Path relative to the index root, `/`-separated.
    pub path: Vec<u8>,
    /// Its metadata when indexed.
    pub stamp: Stamp,
    /// [`NO_CONTENT`], [`RACY`].
    pub flags: u32,
    /// A file whose prepared text was, when both were read, byte for byte the text of file
    /// `rep` (verified by BLAKE3, see `dedup`): it has no postings of its own, `rep`'s
    /// describe it. [`NONE`]: the file's own postings describe it (and for directories).
    pub rep: u32,
}

impl Entry {
    /// An entry for `path` with no metadata, flags or representative yet.
    pub fn new(path: Vec<u8>) -> Entry {
        Entry {
            path,
            stamp: Stamp::default(),
            flags: 0,
            rep: NONE,
        }
    }
}
