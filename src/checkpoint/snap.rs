//! The state of one path, as a checkpoint keeps it, and the content store behind it.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// What a path was at a checkpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Snap {
    /// Nothing there.
    Absent,
    /// A regular file: the stored object holding its content, permission bits and size.
    File {
        /// The stored object's name: the hex BLAKE3 of a copied content, or `l-<unique>` for
        /// a hard link to the file's own inode (see `snapshot`).
        hash: String,
        /// `mode & 0o7777`.
        mode: u32,
        /// Length in bytes.
        size: u64,
        /// For a linked object, the inode's mtime (ns) when it was linked: a later in-place
        /// write to that inode is detected, never restored from.
        stamp: Option<i128>,
    },
    /// A directory (made by `mkdir` or as a parent of a new file).
    Dir,
    /// Something the tools never write (a symlink, a device…): left alone on restore.
    Other,
    /// The prior state could not be read; restoring this path is impossible.
    Unreadable(String),
}

/// Cheap identity of what is at a path now: enough to tell "still what we wrote" from
/// "changed by someone else" without reading the content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Meta {
    len: u64,
    mtime_ns: i128,
    ino: u64,
    dev: u64,
    dir: bool,
}

impl Meta {
    /// The size in bytes.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// The metadata of `path` (not following a final symlink), `None` when nothing is there.
    pub fn of(path: &Path) -> Option<Meta> {
        let m = std::fs::symlink_metadata(path).ok()?;
        Some(Meta {
            len: m.len(),
            mtime_ns: mtime_ns(&m),
            ino: crate::fsmeta::identity(&m).1,
            dev: crate::fsmeta::identity(&m).0,
            dir: m.is_dir(),
        })
    }
}

/// `<dir>/objects/<hash>`.
pub fn blob_path(dir: &Path, hash: &str) -> PathBuf {
    dir.join("objects").join(hash)
}

fn mtime_ns(m: &std::fs::Metadata) -> i128 {
    let (s, ns) = crate::fsmeta::mtime(m);
    i128::from(s) * 1_000_000_000 + i128::from(ns)
}

/// Reads a stored content back, checking it is still what was recorded: a copied object
/// must hash to its name, a linked one must have its recorded size and mtime.
pub fn read_blob(dir: &Path, hash: &str, size: u64, stamp: Option<i128>) -> io::Result<Vec<u8>> {
    let path = blob_path(dir, hash);
    let bytes = std::fs::read(&path)?;
    let intact = match stamp {
        Some(t) => {
            let m = std::fs::symlink_metadata(&path)?;
            bytes.len() as u64 == size && m.len() == size && mtime_ns(&m) == t
        }
        None => blake3::hash(&bytes).to_hex().as_str() == hash,
    };
    if !intact {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "the stored content was changed after it was recorded",
        ));
    }
    Ok(bytes)
}

/// How [`snapshot`] keeps a file's content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// Not at all: the snap only names the content's hash (to compare with).
    HashOnly,
    /// A copy, named by its hash (stored once).
    Copy,
    /// A hard link to the file's inode, falling back to a copy. O(1): for mutations that
    /// replace the file by a rename, after which nothing writes that inode again.
    Link,
}

/// The state of `path` now; a file's content kept under `dir` as `keep` says.
/// Returns the snap and, when the content was stored by this call, its size.
pub fn snapshot(path: &Path, dir: &Path, keep: Keep) -> io::Result<(Snap, Option<u64>)> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok((Snap::Absent, None)),
        Err(e) if crate::error::errno(&e) == Some(libc::ENOTDIR) => {
            return Ok((Snap::Absent, None))
        }
        Err(e) => return Err(e),
    };
    if meta.is_dir() {
        return Ok((Snap::Dir, None));
    }
    if !meta.is_file() {
        return Ok((Snap::Other, None));
    }
    let mode = crate::fsmeta::mode(&meta);
    if keep == Keep::Link {
        let id = format!("l-{}", crate::atomic::unique_id());
        let blob = blob_path(dir, &id);
        ensure_objects(&blob)?;
        if std::fs::hard_link(path, &blob).is_ok() {
            // The link's own metadata: the inode's, unless someone wrote between the two.
            let m = std::fs::symlink_metadata(&blob)?;
            let snap = Snap::File {
                hash: id,
                mode,
                size: m.len(),
                stamp: Some(mtime_ns(&m)),
            };
            return Ok((snap, Some(m.len())));
        }
    }
    let bytes = std::fs::read(path)?;
    let hash = blake3::hash(&bytes).to_hex().to_string();
    let blob = blob_path(dir, &hash);
    let stored = if keep != Keep::HashOnly && !blob.exists() {
        store(&blob, &bytes)?;
        Some(bytes.len() as u64)
    } else {
        None
    };
    let snap = Snap::File {
        hash,
        mode,
        size: bytes.len() as u64,
        stamp: None,
    };
    Ok((snap, stored))
}

/// Makes the objects directory (and `.clarvis/.gitignore`) on first use.
fn ensure_objects(blob: &Path) -> io::Result<()> {
    let objects = blob.parent().unwrap_or(Path::new("."));
    if !objects.is_dir() {
        std::fs::create_dir_all(objects)?;
        // `.clarvis/` is ignored by our own walk; git needs to be told.
        if let Some(clarvis) = objects.ancestors().nth(3) {
            if let Ok(mut f) = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(clarvis.join(".gitignore"))
            {
                let _ = f.write_all(b"*\n");
            }
        }
    }
    Ok(())
}

/// Writes an object through a temp file and a rename, so a reader never sees half of one.
/// Not fsynced: a checkpoint does not outlive its process, so a crash loses it anyway.
fn store(blob: &Path, bytes: &[u8]) -> io::Result<()> {
    ensure_objects(blob)?;
    let objects = blob.parent().unwrap_or(Path::new("."));
    let (tmp, mut file) = crate::atomic::create_temp(objects)?;
    file.write_all(bytes)?;
    std::fs::rename(tmp.path(), blob)?;
    tmp.keep();
    Ok(())
}
