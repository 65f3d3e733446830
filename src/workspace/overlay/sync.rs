//! One scope's staging area shared by several processes (SPEC §13, "Several processes"): a
//! host that runs the MCP server and accepts from its own process, or two hosts on one
//! scope. Each process keeps the entries in memory (a read must not parse the manifest);
//! this module tells when another process replaced the manifest, and serialises the
//! read-modify-write of the manifest across processes.
//!
//! - A [`Stamp`] is what `stat` says of `manifest.json`: its identity, length and
//!   modification time. The manifest is only ever replaced by a rename, so any change gives
//!   it a new inode; the length and time guard the reuse of a freed inode number. A call
//!   compares the stamp once ([`super::Overlay::refresh`]); a read compares nothing.
//! - The writers (stage, forget, accept) hold an exclusive lock on `<scope>/lock` (`flock`
//!   on Unix, `LockFileEx` on Windows, through std) from reloading a stale state to saving
//!   the next one, so two processes never lose each other's changes or reuse a blob number.

use std::io;
use std::path::Path;
use std::time::SystemTime;

/// What `stat` says of the manifest (`None`: there is none).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Stamp {
    identity: (u64, u64),
    len: u64,
    modified: Option<SystemTime>,
}

/// The manifest's stamp now.
pub(super) fn stamp(dir: &Path) -> Option<Stamp> {
    let m = std::fs::metadata(dir.join(super::store::MANIFEST)).ok()?;
    Some(Stamp {
        identity: crate::fsmeta::identity(&m),
        len: m.len(),
        modified: m.modified().ok(),
    })
}

/// The scope's writer lock, held while the value lives. Locks of one process on separate
/// opens of the file exclude each other too, so no caller may take it twice.
#[derive(Debug)]
pub struct WriterLock {
    _file: std::fs::File,
}

/// Takes the scope's writer lock, waiting for another process (or thread) that holds it.
pub(super) fn lock(dir: &Path) -> io::Result<WriterLock> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(dir.join("lock"))?;
    file.lock()?;
    Ok(WriterLock { _file: file })
}
