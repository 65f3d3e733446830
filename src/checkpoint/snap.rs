//! The state of one path, as a checkpoint keeps it, and the content store behind it.

use std::io::{self, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// What a path was at a checkpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Snap {
    /// Nothing there.
    Absent,
    /// A regular file: its content's BLAKE3 hash (hex), permission bits and size.
    File {
        /// Hex BLAKE3 of the bytes (the stored object's name).
        hash: String,
        /// `mode & 0o7777`.
        mode: u32,
        /// Length in bytes.
        size: u64,
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
            mtime_ns: i128::from(m.mtime()) * 1_000_000_000 + i128::from(m.mtime_nsec()),
            ino: m.ino(),
            dev: m.dev(),
            dir: m.is_dir(),
        })
    }
}

/// `<dir>/objects/<hash>`.
pub fn blob_path(dir: &Path, hash: &str) -> PathBuf {
    dir.join("objects").join(hash)
}

/// Reads a stored content back, checking it still hashes to its name.
pub fn read_blob(dir: &Path, hash: &str) -> io::Result<Vec<u8>> {
    let bytes = std::fs::read(blob_path(dir, hash))?;
    if blake3::hash(&bytes).to_hex().as_str() != hash {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "stored content no longer matches its hash",
        ));
    }
    Ok(bytes)
}

/// The state of `path` now; with `dir`, a file's content is stored there when new.
/// Returns the snap and, when the content was stored by this call, its size.
pub fn snapshot(path: &Path, dir: Option<&Path>) -> io::Result<(Snap, Option<u64>)> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok((Snap::Absent, None)),
        Err(e) if e.raw_os_error() == Some(libc::ENOTDIR) => return Ok((Snap::Absent, None)),
        Err(e) => return Err(e),
    };
    if meta.is_dir() {
        return Ok((Snap::Dir, None));
    }
    if !meta.is_file() {
        return Ok((Snap::Other, None));
    }
    let bytes = std::fs::read(path)?;
    let hash = blake3::hash(&bytes).to_hex().to_string();
    let stored = match dir.map(|d| blob_path(d, &hash)) {
        Some(blob) if !blob.exists() => {
            store(&blob, &bytes)?;
            Some(bytes.len() as u64)
        }
        _ => None,
    };
    Ok((
        Snap::File {
            hash,
            mode: meta.permissions().mode() & 0o7777,
            size: bytes.len() as u64,
        },
        stored,
    ))
}

/// Writes an object through a temp file and a rename, so a reader never sees half of one.
/// Not fsynced: a checkpoint does not outlive its process, so a crash loses it anyway.
fn store(blob: &Path, bytes: &[u8]) -> io::Result<()> {
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
    let (tmp, mut file) = crate::atomic::create_temp(objects)?;
    file.write_all(bytes)?;
    std::fs::rename(tmp.path(), blob)?;
    tmp.keep();
    Ok(())
}
