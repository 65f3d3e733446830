//! File metadata that Unix and Windows give differently, in one place: permission bits,
//! file identity, modification stamps. On Unix these are the real `st_mode`, `st_dev`/`st_ino`
//! and `st_mtime`; on Windows they are derived from what std offers there (the read-only
//! attribute, creation and write times), which is enough for the uses here: keeping a
//! file's writability across a rewrite, and noticing that a file changed or was replaced.

use std::fs::{File, Metadata, Permissions};
use std::io;
use std::path::Path;

/// The permission bits (`& 0o7777`). Windows: `0o755` for a directory, `0o444` for a
/// read-only file, `0o644` otherwise.
pub fn mode(m: &Metadata) -> u32 {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        m.permissions().mode() & 0o7777
    }
    #[cfg(not(unix))]
    {
        if m.is_dir() {
            0o755
        } else if m.permissions().readonly() {
            0o444
        } else {
            0o644
        }
    }
}

/// Permissions carrying `mode`. Windows: read-only when no write bit is set.
pub fn permissions(mode: u32, like: Permissions) -> Permissions {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = like;
        Permissions::from_mode(mode & 0o7777)
    }
    #[cfg(not(unix))]
    {
        let mut p = like;
        p.set_readonly(mode & 0o222 == 0);
        p
    }
}

/// Sets `mode` on an open file.
pub fn set_file_mode(file: &File, mode: u32) -> io::Result<()> {
    let like = file.metadata()?.permissions();
    file.set_permissions(permissions(mode, like))
}

/// Sets `mode` on `path`.
pub fn set_path_mode(path: &Path, mode: u32) -> io::Result<()> {
    let like = std::fs::metadata(path)?.permissions();
    std::fs::set_permissions(path, permissions(mode, like))
}

/// The identity of the file behind `m`: `(st_dev, st_ino)` on Unix. Windows (whose file
/// index is not in stable std): the creation time and size, which tell a replaced file from
/// the original in practice but are not a proof.
pub fn identity(m: &Metadata) -> (u64, u64) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        (m.dev(), m.ino())
    }
    #[cfg(windows)]
    {
        use std::os::windows::fs::MetadataExt;
        (m.creation_time(), m.file_size())
    }
    #[cfg(not(any(unix, windows)))]
    {
        (0, m.len())
    }
}

/// The modification time as (seconds, nanoseconds) since the Unix epoch (negative seconds
/// before it), the same clock on every platform.
pub fn mtime(m: &Metadata) -> (i64, i64) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        (m.mtime(), m.mtime_nsec())
    }
    #[cfg(not(unix))]
    {
        match m
            .modified()
            .map(|t| t.duration_since(std::time::UNIX_EPOCH))
        {
            Ok(Ok(d)) => (d.as_secs() as i64, i64::from(d.subsec_nanos())),
            Ok(Err(e)) => {
                let d = e.duration();
                let (s, n) = (d.as_secs() as i64, i64::from(d.subsec_nanos()));
                if n == 0 {
                    (-s, 0)
                } else {
                    (-s - 1, 1_000_000_000 - n)
                }
            }
            Err(_) => (0, 0),
        }
    }
}

/// A stamp that changes when the file is replaced or rewritten: identity, size, mtime.
pub fn stamp(m: &Metadata) -> (u64, u64, i64, i64) {
    let (_, ino) = identity(m);
    let (s, ns) = mtime(m);
    (ino, m.len(), s, ns)
}

/// Whether `m` is a FIFO, socket or device (Unix); never on Windows.
pub fn is_special(m: &Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = m.file_type();
        t.is_fifo() || t.is_socket() || t.is_block_device() || t.is_char_device()
    }
    #[cfg(not(unix))]
    {
        let _ = m;
        false
    }
}
