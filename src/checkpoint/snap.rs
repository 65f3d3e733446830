//! The state of one path, as a checkpoint keeps it, and the content store behind it.

use crate::config::Config;
use crate::workspace::{self, Guard};
use std::fs::File;
use std::io::{self, Read, Write};
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

/// Why a path's state is [`Snap::Unreadable`] when it leads out of the workspace.
pub const OUTSIDE: &str = "it lies outside the workspace (a directory on its path leads out)";

/// A store's `objects` directory, opened through verified handles: every content is
/// linked, written, read and removed through it, so a `.clarvis` swapped for a symlink to
/// the outside cannot carry the store there.
#[derive(Debug)]
pub struct Objects {
    /// The verified handle, kept where I/O goes through it (Linux: `/proc/self/fd/<n>`, see
    /// [`workspace::io_path`]). Elsewhere I/O goes through the checked path, so the handle is
    /// closed once the open has been verified: held for the tools object's life it would only
    /// pin the directory — on Windows a directory open in a process cannot be removed, so
    /// deleting the workspace or its `.clarvis` would leave it behind (found under Wine).
    handle: Option<File>,
    path: PathBuf,
}

impl Objects {
    /// Opens (making, inside the root, what is missing) `<store>/objects`, and writes
    /// `.clarvis/.gitignore` (`*`) when there is none: `.clarvis/` is ignored by our own
    /// walk; git needs to be told.
    pub fn open(config: &Config, store: &Path) -> io::Result<Objects> {
        let fail = |e: crate::error::ToolError| io::Error::other(e.message);
        if let Some(clarvis) = store.ancestors().nth(2) {
            let (dir, _) =
                workspace::open_dir_for_write(config, clarvis, ".clarvis", true).map_err(fail)?;
            if let Ok(mut f) = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(workspace::io_path(&dir, clarvis).join(".gitignore"))
            {
                let _ = f.write_all(b"*\n");
            }
        }
        let path = store.join("objects");
        let (handle, _) =
            workspace::open_dir_for_write(config, &path, ".clarvis", true).map_err(fail)?;
        let handle = cfg!(target_os = "linux").then_some(handle);
        Ok(Objects { handle, path })
    }

    /// The directory, through its handle where one is kept.
    fn dir(&self) -> PathBuf {
        match &self.handle {
            Some(handle) => workspace::io_path(handle, &self.path),
            None => self.path.clone(),
        }
    }

    /// The stored object `name`, through the handle.
    pub fn at(&self, name: &str) -> PathBuf {
        self.dir().join(name)
    }
}

fn mtime_ns(m: &std::fs::Metadata) -> i128 {
    let (s, ns) = crate::fsmeta::mtime(m);
    i128::from(s) * 1_000_000_000 + i128::from(ns)
}

/// Reads all of an open file.
fn read_all(mut file: &File) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Reads a stored content back, checking it is still what was recorded: a copied object
/// must hash to its name, a linked one must have its recorded size and mtime. Anything but
/// a regular file there (swapped in since) is refused, never followed or waited on.
pub fn read_blob(
    objects: &Objects,
    hash: &str,
    size: u64,
    stamp: Option<i128>,
) -> io::Result<Vec<u8>> {
    let file = workspace::open_nofollow(&objects.at(hash))?;
    let m = file.metadata()?;
    if !m.is_file() {
        return Err(io::Error::other("the stored content is not a regular file"));
    }
    let bytes = read_all(&file)?;
    let intact = match stamp {
        Some(t) => bytes.len() as u64 == size && m.len() == size && mtime_ns(&m) == t,
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

/// Opens a store's [`Objects`] when a content is first kept (so a checkpoint costs nothing
/// on disk until a file changes).
pub type Opener<'a> = &'a dyn Fn() -> io::Result<&'a Objects>;

/// How [`snapshot`] keeps a file's content.
#[derive(Clone, Copy)]
pub enum Keep<'a> {
    /// Not at all: the snap only names the content's hash (to compare with).
    HashOnly,
    /// A copy in the store, named by its hash (stored once).
    Copy(Opener<'a>),
    /// A hard link in the store to the file's inode, falling back to a copy. O(1): for
    /// mutations that replace the file by a rename, after which nothing writes that inode
    /// again.
    Link(Opener<'a>),
}

/// What is at a path, found the way a checkpoint may look at it.
enum Found {
    Absent,
    Dir,
    Other,
    Outside,
    /// A regular file, open (non-blocking, not through a final symlink) and confined.
    File(File, std::fs::Metadata),
}

/// Looks at `path` without ever reading outside the workspace: a regular file is opened
/// without following a final symlink or blocking, and its descriptor must lie inside the
/// root (`guard`); a directory on the way swapped for a symlink to the outside makes it
/// [`Found::Outside`].
fn find(path: &Path, guard: &Guard) -> io::Result<Found> {
    let gone = |e: &io::Error| {
        e.kind() == io::ErrorKind::NotFound || crate::error::errno(e) == Some(libc::ENOTDIR)
    };
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if gone(&e) => return Ok(Found::Absent),
        Err(e) => return Err(e),
    };
    if meta.is_dir() {
        return Ok(Found::Dir);
    }
    if !meta.is_file() {
        return Ok(Found::Other);
    }
    let file = match workspace::open_nofollow(path) {
        Ok(f) => f,
        Err(e) if gone(&e) => return Ok(Found::Absent),
        // Swapped for a symlink since the lstat.
        Err(e) if crate::error::errno(&e) == Some(libc::ELOOP) => return Ok(Found::Other),
        Err(e) => return Err(e),
    };
    let meta = file.metadata()?;
    if meta.is_dir() {
        return Ok(Found::Dir);
    }
    if !meta.is_file() {
        return Ok(Found::Other);
    }
    if !guard.allows(&file, path) {
        return Ok(Found::Outside);
    }
    Ok(Found::File(file, meta))
}

/// The content of the regular file at `path` now, read as [`snapshot`] reads it (`None`
/// for anything else, or outside the workspace).
pub fn read_now(path: &Path, guard: &Guard) -> Option<Vec<u8>> {
    match find(path, guard).ok()? {
        Found::File(file, _) => read_all(&file).ok(),
        _ => None,
    }
}

/// The state of `path` now; a file's content kept as `keep` says. Never reads outside the
/// workspace (such a path is [`Snap::Unreadable`] with [`OUTSIDE`]), never follows a final
/// symlink, never blocks on a FIFO. Returns the snap and, when the content was stored by
/// this call, its size.
pub fn snapshot(path: &Path, guard: &Guard, keep: Keep<'_>) -> io::Result<(Snap, Option<u64>)> {
    let (file, meta) = match find(path, guard)? {
        Found::Absent => return Ok((Snap::Absent, None)),
        Found::Dir => return Ok((Snap::Dir, None)),
        Found::Other => return Ok((Snap::Other, None)),
        Found::Outside => return Ok((Snap::Unreadable(OUTSIDE.into()), None)),
        Found::File(file, meta) => (file, meta),
    };
    let mode = crate::fsmeta::mode(&meta);
    if let Keep::Link(open) = keep {
        let objects = open()?;
        let id = format!("l-{}", crate::atomic::unique_id());
        let blob = objects.at(&id);
        if std::fs::hard_link(path, &blob).is_ok() {
            // The link's own metadata: the inode's, unless someone wrote between the two.
            let m = std::fs::symlink_metadata(&blob)?;
            // The name is linked, not the descriptor: it must still be the inode that was
            // opened and confined, or the content is copied from the descriptor instead.
            if crate::fsmeta::identity(&m) == crate::fsmeta::identity(&meta) {
                let snap = Snap::File {
                    hash: id,
                    mode,
                    size: m.len(),
                    stamp: Some(mtime_ns(&m)),
                };
                return Ok((snap, Some(m.len())));
            }
            let _ = std::fs::remove_file(&blob);
        }
    }
    let bytes = read_all(&file)?;
    let hash = blake3::hash(&bytes).to_hex().to_string();
    let stored = match keep {
        Keep::Copy(open) | Keep::Link(open) => {
            let objects = open()?;
            if objects.at(&hash).exists() {
                None
            } else {
                store(objects, &hash, &bytes)?;
                Some(bytes.len() as u64)
            }
        }
        Keep::HashOnly => None,
    };
    let snap = Snap::File {
        hash,
        mode,
        size: bytes.len() as u64,
        stamp: None,
    };
    Ok((snap, stored))
}

/// Writes an object through a temp file and a rename, so a reader never sees half of one.
/// Not fsynced: a checkpoint does not outlive its process, so a crash loses it anyway.
fn store(objects: &Objects, hash: &str, bytes: &[u8]) -> io::Result<()> {
    let (tmp, mut file) = crate::atomic::create_temp(&objects.dir())?;
    file.write_all(bytes)?;
    std::fs::rename(tmp.path(), objects.at(hash))?;
    tmp.keep();
    Ok(())
}
