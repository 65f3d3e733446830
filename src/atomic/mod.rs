//! Atomic writes, the symlink refusal, parent-directory creation and the in-process path locks.
//!
//! Every mutation in the crate goes through this module (CONTRACT §4). A file is never written
//! in place: the new bytes go to a temp file `.clarvis-tmp-<pid>-<millis>-<counter>-<12 hex>`
//! in the target's own directory (so the rename stays on one filesystem), which is fsynced,
//! given the old file's permission bits, renamed over the target, and then the directory is
//! fsynced. A crash leaves either the old or the new file, never a torn one; no temp file
//! survives a call, whether it succeeds or fails.
//!
//! Writing *through* a symlink is refused, and so is writing over a FIFO, socket or device
//! ([`check_target`], the one rule every writer applies to its target): a rename would
//! replace the link or the special file itself, which is never what the caller meant.
//!
//! Writers of one path serialise on an in-process lock ([`lock_paths`]), keyed by the
//! canonical path, so two concurrent read-modify-write calls on one file both land.
//! Multi-path operations lock all their paths in sorted order, which rules out deadlock.
//! This coordinates calls inside one process only; other processes and editors are not
//! coordinated (a non-goal).
//!
//! Multi-file commits (apply_patch) build on the pieces: [`temp_name`], [`write_temp`],
//! [`create_temp`] + [`fill_temp`], [`TempFile`], [`fsync_dir`], [`fsync_dirs`],
//! [`ensure_parent_dirs`], [`mode_of`], and [`parallel_map`], which runs their fsyncs
//! side by side so a commit of many files waits for the disk a few times, not once per file.
//!
//! A process killed mid-write leaves its temp file behind. Every successful write sweeps its
//! directory ([`sweep_stale`]): a `.clarvis-tmp-<pid>-…` file whose pid is not a running
//! process and which is older than [`STALE_TEMP_AGE`] is removed — unless a commit journal
//! is pending in a workspace above the directory, whose backups may be the only copies of
//! the user's files (recovery retires the journal first, see [`journal`]).
//!
//! [`commit`] performs several file operations all-or-nothing on these pieces (apply_patch,
//! replace, remove, checkpoint restore), with a [`journal`] that lets the next start-up roll
//! back a commit cut short by a crash ([`undo`] decides from the disk what to put back).

use crate::config::Config;
use crate::error::{ToolError, ToolResult};
use crate::workspace;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

pub mod commit;
pub mod journal;
mod locks;
mod parallel;
pub mod staging;
mod stale;
pub mod undo;
pub use crate::busy::{held_open, rename_over, retry_busy, BUSY_RETRY_DELAYS};
pub use locks::{lock_key, lock_paths, PathGuard};
pub use parallel::{fsync_dirs, parallel_map, IO_THREADS};
pub use stale::{pid_alive, sweep_stale, STALE_TEMP_AGE};

/// The prefix every temp and backup file starts with.
pub const TEMP_PREFIX: &str = ".clarvis-tmp-";

/// A fresh temp path in `dir`: `.clarvis-tmp-<pid>-<millis>-<counter>-<12 random hex>`.
///
/// The counter makes names unique within the process, the pid across processes, the random
/// part across pid reuse; the file is still created with `O_EXCL`.
pub fn temp_name(dir: &Path) -> PathBuf {
    dir.join(format!("{TEMP_PREFIX}{}", unique_id()))
}

/// A name part unique across processes and calls: pid, milliseconds since the epoch, a
/// per-process counter and 12 random hex digits, joined by `-`. Temp files, bash spill
/// files and commit journals all use it, so a leftover's owner pid is in its name.
///
/// ```
/// let u = clarvis_agent_tools::atomic::unique_id();
/// assert_eq!(u.split('-').count(), 4);
/// ```
pub fn unique_id() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let millis = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let rnd = rand::random::<u64>() & 0xFFFF_FFFF_FFFF;
    format!("{}-{millis}-{n}-{rnd:012x}", std::process::id())
}

/// A temp file that is removed when dropped, unless [`TempFile::keep`] was called (after it
/// has been renamed into place).
#[derive(Debug)]
pub struct TempFile {
    path: PathBuf,
    armed: bool,
}

impl TempFile {
    /// Wraps an existing temp path so it is cleaned up on drop.
    pub fn new(path: PathBuf) -> TempFile {
        TempFile { path, armed: true }
    }

    /// The temp file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Disarms the cleanup (the file was renamed away) and returns the path.
    pub fn keep(mut self) -> PathBuf {
        self.armed = false;
        std::mem::take(&mut self.path)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if self.armed {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// Writes `bytes` to a new temp file in `dir`, fsyncs it and, when `mode` is given, sets
/// those permission bits (otherwise the process umask applies, as for any new file).
/// On failure nothing is left behind.
pub fn write_temp(dir: &Path, bytes: &[u8], mode: Option<u32>) -> io::Result<TempFile> {
    let (temp, file) = create_temp(dir)?;
    fill_temp(&file, bytes, mode)?;
    Ok(temp)
}

/// Creates a new, empty temp file in `dir` (`O_EXCL`) and returns it with its open handle;
/// the file is removed when the [`TempFile`] is dropped unarmed. [`fill_temp`] completes it.
/// The two halves let a multi-file commit create its temp files in order and fill them in
/// parallel ([`parallel_map`]).
pub fn create_temp(dir: &Path) -> io::Result<(TempFile, File)> {
    let path = temp_name(dir);
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o666);
    }
    let file = options.open(&path)?;
    Ok((TempFile::new(path), file))
}

/// Writes `bytes` to a temp file made by [`create_temp`], sets `mode` when given and fsyncs
/// it: once this returns, the bytes are durable.
pub fn fill_temp(mut file: &File, bytes: &[u8], mode: Option<u32>) -> io::Result<()> {
    file.write_all(bytes)?;
    if let Some(mode) = mode {
        // fchmod, not chmod: the bits land on the file we wrote, whatever the name points to.
        crate::fsmeta::set_file_mode(file, mode)?;
    }
    file.sync_all()
}

/// fsyncs a directory so a rename or unlink inside it is durable. Best effort on
/// filesystems that do not support it (`EINVAL`).
/// Windows cannot open a directory for syncing; NTFS journals the rename itself.
pub fn fsync_dir(dir: &Path) -> io::Result<()> {
    #[cfg(not(unix))]
    if cfg!(not(unix)) {
        let _ = dir;
        return Ok(());
    }
    match File::open(dir).and_then(|d| d.sync_all()) {
        Err(e) if crate::error::errno(&e) == Some(libc::EINVAL) => Ok(()),
        other => other,
    }
}

/// The permission bits of an existing file (`None` when it does not exist).
pub fn mode_of(path: &Path) -> io::Result<Option<u32>> {
    match fs::symlink_metadata(path) {
        Ok(m) => Ok(Some(crate::fsmeta::mode(&m))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// The refusal for writing through a symlink: `invalid_input`, `path` = the absolute path.
pub fn symlink_error(abs: &Path) -> ToolError {
    let shown = abs.to_string_lossy();
    ToolError::invalid(format!("Refusing to write through a symlink: {shown}"))
        .with("path", shown.as_ref())
}

/// What a writer finds at its target, checked alike by every writer before it writes,
/// replaces, moves or deletes it (`lstat`: a final symlink is never followed). Nothing there
/// → `None`; a regular file or a directory → its metadata (each tool words its own refusal
/// of a directory); a symlink → [`symlink_error`]; a FIFO, socket or device → `not_a_file`
/// `Not a regular file: <input>` ([`ToolError::not_regular`]), since replacing one would
/// silently turn it into a regular file and reading one could block. Other lstat errors
/// are mapped with `input`.
///
/// In review mode a staged path is judged as staged: a staged deletion is nothing there, a
/// staged write a regular file.
pub fn check_target(config: &Config, abs: &Path, input: &str) -> ToolResult<Option<fs::Metadata>> {
    if let Some(view) = staging::overlay(config).and_then(|o| o.view(abs)) {
        return match view {
            workspace::overlay::View::Deleted => Ok(None),
            workspace::overlay::View::File(blob) => fs::symlink_metadata(&blob)
                .map(Some)
                .map_err(|e| ToolError::fs(&e, input)),
        };
    }
    check_target_at(abs, abs, input)
}

/// [`check_target`] looking at `at` — the target reached through a verified directory
/// handle ([`workspace::io_path`]), at the moment of the write — while errors name `abs`
/// and `input`.
pub fn check_target_at(at: &Path, abs: &Path, input: &str) -> ToolResult<Option<fs::Metadata>> {
    match fs::symlink_metadata(at) {
        Ok(m) if m.file_type().is_symlink() => Err(symlink_error(abs)),
        Ok(m) if m.is_file() || m.is_dir() => Ok(Some(m)),
        Ok(_) => Err(ToolError::not_regular(input)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(ToolError::fs(&e, input)),
    }
}

/// Creates the missing ancestors of `dir` (and `dir` itself), top down, and returns the
/// directories it created in creation order, so a caller can remove them on rollback.
/// An existing non-directory on the way fails with `ENOTDIR` (std's `create_dir_all` would
/// say `EEXIST`, which maps to the wrong error code).
pub fn ensure_parent_dirs(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut missing = Vec::new();
    let mut cur = dir;
    loop {
        match fs::metadata(cur) {
            Ok(m) if m.is_dir() => break,
            Ok(_) => return Err(crate::error::os_error(libc::ENOTDIR)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                missing.push(cur.to_path_buf());
                match cur.parent() {
                    Some(p) => cur = p,
                    None => break,
                }
            }
            Err(e) => return Err(e),
        }
    }
    let mut created = Vec::new();
    for d in missing.into_iter().rev() {
        match fs::create_dir(&d) {
            Ok(()) => created.push(d),
            // Another writer created it in between: fine if it is a directory.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && d.is_dir() => {}
            Err(e) => return Err(e),
        }
    }
    Ok(created)
}

/// Replaces `abs` with `bytes` atomically (temp file, fsync, mode, rename, fsync dir), then
/// sweeps stale temp files from the directory. A target another process holds open on
/// Windows is waited for ([`rename_over`]). `mode` is normally [`mode_of`] the old file.
/// The caller has already refused symlinks and holds the path's lock. Parent directories
/// must exist.
pub fn replace(abs: &Path, bytes: &[u8], mode: Option<u32>) -> io::Result<()> {
    let dir = abs.parent().unwrap_or(Path::new("/"));
    let temp = write_temp(dir, bytes, mode)?;
    rename_over(temp.path(), abs)?;
    temp.keep();
    fsync_dir(dir)?;
    sweep_stale(dir);
    Ok(())
}

/// The whole single-file write: refuses what [`check_target`] refuses, carries the old mode
/// over and replaces the file atomically. Returns whether the file was created. Errors
/// carry `input`.
pub fn write_file(abs: &Path, bytes: &[u8], input: &str) -> ToolResult<bool> {
    let meta = check_target_at(abs, abs, input)?;
    let mode = meta.as_ref().map(crate::fsmeta::mode);
    replace(abs, bytes, mode).map_err(|e| ToolError::fs(&e, input))?;
    Ok(meta.is_none())
}

/// [`write_file`] pinned to the target's directory: the parent is opened and verified
/// inside the root (and the target inside the write scope) first
/// ([`workspace::open_dir_confined`], [`workspace::verify_write_scope`]), then the target
/// check, the temp file, the rename and the directory fsync all go through that handle, so a parent swapped
/// for a symlink to the outside mid-call cannot move the write out of the workspace.
pub fn write_file_confined(
    config: &Config,
    abs: &Path,
    bytes: &[u8],
    input: &str,
) -> ToolResult<bool> {
    if let Some(overlay) = staging::overlay(config) {
        let created = check_target(config, abs, input)?.is_none();
        overlay.stage_write(abs, bytes, input)?;
        return Ok(created);
    }
    let parent = abs.parent().unwrap_or(Path::new("/"));
    let dir = workspace::open_dir_confined(config, parent, input)?;
    workspace::verify_write_scope(config, &dir, parent, abs.file_name(), input)?;
    write_file_in(&dir, abs, bytes, input)
}

/// [`write_file`] through `dir`, an open handle on `abs`'s parent directory (see
/// [`workspace::open_dir_for_write`]). Errors name `abs` and `input` as `write_file` does.
pub fn write_file_in(dir: &File, abs: &Path, bytes: &[u8], input: &str) -> ToolResult<bool> {
    let parent = abs.parent().unwrap_or(Path::new("/"));
    let Some(name) = abs.file_name() else {
        return Err(ToolError::fs(&crate::error::os_error(libc::EISDIR), input));
    };
    let via = workspace::io_path(dir, parent).join(name);
    // Checked again through the handle, at the moment of the write: what the caller saw by
    // path may have been swapped since.
    let meta = check_target_at(&via, abs, input)?;
    let mode = meta.as_ref().map(crate::fsmeta::mode);
    replace(&via, bytes, mode).map_err(|e| ToolError::fs(&e, input))?;
    Ok(meta.is_none())
}

#[cfg(all(test, unix))]
mod tests;
