//! Atomic writes, the symlink refusal, parent-directory creation and the in-process path locks.
//!
//! Every mutation in the crate goes through this module (CONTRACT §4). A file is never written
//! in place: the new bytes go to a temp file `.clarvis-tmp-<pid>-<millis>-<counter>-<12 hex>`
//! in the target's own directory (so the rename stays on one filesystem), which is fsynced,
//! given the old file's permission bits, renamed over the target, and then the directory is
//! fsynced. A crash leaves either the old or the new file, never a torn one; no temp file
//! survives a call, whether it succeeds or fails.
//!
//! Writing *through* a symlink is refused ([`refuse_symlink`]): a rename would replace the
//! link itself, which is never what the caller meant.
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
//! the user's files (recovery retires the journal first, see `patch::journal`).

use crate::config::Config;
use crate::error::{ToolError, ToolResult};
use crate::workspace;
use std::collections::HashSet;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, SystemTime};

mod parallel;
pub use parallel::{fsync_dirs, parallel_map, IO_THREADS};

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

/// Fails with [`symlink_error`] when `abs` itself is a symbolic link. Returns the target's
/// metadata (not followed) when it exists. Other lstat errors are mapped with `input`.
pub fn refuse_symlink(abs: &Path, input: &str) -> ToolResult<Option<fs::Metadata>> {
    match fs::symlink_metadata(abs) {
        Ok(m) if m.file_type().is_symlink() => Err(symlink_error(abs)),
        Ok(m) => Ok(Some(m)),
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
/// sweeps stale temp files from the directory. `mode` is normally [`mode_of`] the old file.
/// The caller has already refused symlinks and holds the path's lock. Parent directories
/// must exist.
pub fn replace(abs: &Path, bytes: &[u8], mode: Option<u32>) -> io::Result<()> {
    let dir = abs.parent().unwrap_or(Path::new("/"));
    let temp = write_temp(dir, bytes, mode)?;
    fs::rename(temp.path(), abs)?;
    temp.keep();
    fsync_dir(dir)?;
    sweep_stale(dir);
    Ok(())
}

/// How old a dead process's temp file must be before a sweep removes it. The pid check is
/// what matters; the age only spares a live writer whose pid this process cannot see (another
/// pid namespace sharing the directory), whose temp file is seconds old at most.
pub const STALE_TEMP_AGE: Duration = Duration::from_secs(30);

/// Whether `pid` is a running process: Windows asks the process handle for its exit code
/// (`STILL_ACTIVE` while it runs); a pid that cannot be opened for lack of rights is alive.
#[cfg(windows)]
pub fn pid_alive(pid: u32) -> bool {
    use windows_sys::Win32::Foundation::{
        CloseHandle, GetLastError, ERROR_ACCESS_DENIED, STILL_ACTIVE,
    };
    use windows_sys::Win32::System::Threading::{
        GetExitCodeProcess, OpenProcess, PROCESS_QUERY_LIMITED_INFORMATION,
    };
    if pid == 0 {
        return false;
    }
    // SAFETY: plain Win32 calls; the handle, when opened, is closed before returning.
    unsafe {
        let h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid);
        if h.is_null() {
            return GetLastError() == ERROR_ACCESS_DENIED;
        }
        let mut code = 0u32;
        let ok = GetExitCodeProcess(h, &mut code) != 0;
        CloseHandle(h);
        !ok || code == STILL_ACTIVE as u32
    }
}

/// Elsewhere without a probe, a pid is presumed alive (its files then wait for a later start).
#[cfg(not(any(unix, windows)))]
pub fn pid_alive(pid: u32) -> bool {
    pid != 0
}

/// Whether `pid` is a running process (a zombie is not; another user's process is).
#[cfg(unix)]
pub fn pid_alive(pid: u32) -> bool {
    let Ok(p) = libc::pid_t::try_from(pid) else {
        return false;
    };
    if p <= 0 {
        return false;
    }
    // SAFETY: signal 0 only checks existence and permission.
    if unsafe { libc::kill(p, 0) } != 0
        && io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
    {
        return false;
    }
    match fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !matches!(
            stat.rfind(')')
                .and_then(|i| stat[i + 1..].split_ascii_whitespace().next()),
            Some("Z") | Some("X")
        ),
        Err(_) => true,
    }
}

/// Removes the `.clarvis-tmp-<pid>-…` regular files in `dir` left by processes that are no
/// longer running and older than [`STALE_TEMP_AGE`] — none while a commit journal is pending
/// in a `.clarvis/journal` of `dir` or an ancestor. Best effort; returns how many it removed.
pub fn sweep_stale(dir: &Path) -> usize {
    let Ok(entries) = fs::read_dir(dir) else {
        return 0;
    };
    let now = SystemTime::now();
    let me = std::process::id();
    let stale: Vec<PathBuf> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name();
            let rest = name.to_str()?.strip_prefix(TEMP_PREFIX)?;
            let pid: u32 = rest.split('-').next()?.parse().ok()?;
            if pid == me || pid_alive(pid) {
                return None;
            }
            // DirEntry::metadata does not follow a symlink.
            let meta = e.metadata().ok()?;
            let age = now.duration_since(meta.modified().ok()?).ok()?;
            (meta.is_file() && age >= STALE_TEMP_AGE).then(|| e.path())
        })
        .collect();
    if stale.is_empty() || dir.ancestors().any(crate::patch::journal::any_pending) {
        return 0;
    }
    stale.iter().filter(|p| fs::remove_file(p).is_ok()).count()
}

/// The whole single-file write: refuses a symlink, carries the old mode over and replaces
/// the file atomically. Returns whether the file was created. Errors carry `input`.
pub fn write_file(abs: &Path, bytes: &[u8], input: &str) -> ToolResult<bool> {
    let meta = refuse_symlink(abs, input)?;
    let mode = meta.as_ref().map(crate::fsmeta::mode);
    replace(abs, bytes, mode).map_err(|e| ToolError::fs(&e, input))?;
    Ok(meta.is_none())
}

/// [`write_file`] pinned to the target's directory: the parent is opened and verified
/// inside the root first ([`workspace::open_dir_confined`]), then the symlink check, the temp
/// file, the rename and the directory fsync all go through that handle, so a parent swapped
/// for a symlink to the outside mid-call cannot move the write out of the workspace.
pub fn write_file_confined(
    config: &Config,
    abs: &Path,
    bytes: &[u8],
    input: &str,
) -> ToolResult<bool> {
    let parent = abs.parent().unwrap_or(Path::new("/"));
    let dir = workspace::open_dir_confined(config, parent, input)?;
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
    let meta = match fs::symlink_metadata(&via) {
        Ok(m) if m.file_type().is_symlink() => return Err(symlink_error(abs)),
        Ok(m) => Some(m),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(ToolError::fs(&e, input)),
    };
    let mode = meta.as_ref().map(crate::fsmeta::mode);
    replace(&via, bytes, mode).map_err(|e| ToolError::fs(&e, input))?;
    Ok(meta.is_none())
}

// ---------------------------------------------------------------------------------------
// Path locks

struct LockTable {
    held: Mutex<HashSet<PathBuf>>,
    freed: Condvar,
}

fn table() -> &'static LockTable {
    static TABLE: OnceLock<LockTable> = OnceLock::new();
    TABLE.get_or_init(|| LockTable {
        held: Mutex::new(HashSet::new()),
        freed: Condvar::new(),
    })
}

fn lock_table(t: &LockTable) -> MutexGuard<'_, HashSet<PathBuf>> {
    // A panic while holding the table's mutex cannot leave the set inconsistent (every
    // critical section is a single insert/remove), so a poisoned lock is still usable.
    t.held.lock().unwrap_or_else(|p| p.into_inner())
}

/// The key a path is locked under: its real location (the longest existing prefix
/// canonicalised), so `a/../f`, `./f` and a symlinked directory all name one lock.
pub fn lock_key(path: &Path) -> PathBuf {
    crate::workspace::realpath_prefix(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Holds the locks of one or more paths; dropping it releases them.
#[must_use = "the locks are released when the guard is dropped"]
#[derive(Debug)]
pub struct PathGuard {
    keys: Vec<PathBuf>,
}

impl Drop for PathGuard {
    fn drop(&mut self) {
        let t = table();
        let mut held = lock_table(t);
        for k in &self.keys {
            held.remove(k);
        }
        drop(held);
        t.freed.notify_all();
    }
}

/// Locks every path in `paths` (blocking), one at a time in sorted order of their keys so
/// two multi-path operations can never deadlock. Duplicates are locked once. Call it from
/// blocking code only (tool handlers run on the blocking pool).
pub fn lock_paths(paths: &[PathBuf]) -> PathGuard {
    let mut keys: Vec<PathBuf> = paths.iter().map(|p| lock_key(p)).collect();
    keys.sort();
    keys.dedup();
    let t = table();
    let mut guard = PathGuard {
        keys: Vec::with_capacity(keys.len()),
    };
    for key in keys {
        let mut held = lock_table(t);
        while held.contains(&key) {
            held = t.freed.wait(held).unwrap_or_else(|p| p.into_inner());
        }
        held.insert(key.clone());
        drop(held);
        guard.keys.push(key);
    }
    guard
}

// Unix only: these tests build symlinks, FIFOs and permission bits.
#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::{symlink, PermissionsExt};
    use std::sync::Arc;

    fn leftovers(dir: &Path) -> Vec<String> {
        fs::read_dir(dir)
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(TEMP_PREFIX))
            .collect()
    }

    #[test]
    fn temp_names_have_the_contract_shape() {
        let p = temp_name(Path::new("/x"));
        let name = p.file_name().unwrap().to_str().unwrap();
        let parts: Vec<&str> = name.strip_prefix(TEMP_PREFIX).unwrap().split('-').collect();
        assert_eq!(parts.len(), 4);
        assert_eq!(parts[0], std::process::id().to_string());
        assert!(parts[1].parse::<u128>().is_ok() && parts[2].parse::<u64>().is_ok());
        assert_eq!(parts[3].len(), 12);
        assert!(parts[3].chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(temp_name(Path::new("/x")), temp_name(Path::new("/x")));
    }

    #[test]
    fn write_keeps_mode_and_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("run.sh");
        assert!(write_file(&f, b"one", "run.sh").unwrap());
        fs::set_permissions(&f, fs::Permissions::from_mode(0o755)).unwrap();
        assert!(!write_file(&f, b"two", "run.sh").unwrap());
        assert_eq!(fs::read(&f).unwrap(), b"two");
        assert_eq!(
            fs::metadata(&f).unwrap().permissions().mode() & 0o7777,
            0o755
        );
        assert!(leftovers(dir.path()).is_empty());
    }

    #[test]
    fn symlinks_are_refused_and_failures_clean_up() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("real"), "x").unwrap();
        let link = dir.path().join("link");
        symlink(dir.path().join("real"), &link).unwrap();
        let e = write_file(&link, b"y", "link").unwrap_err();
        assert_eq!(
            e.message,
            format!("Refusing to write through a symlink: {}", link.display())
        );
        assert_eq!(e.fields["path"], link.to_str().unwrap());
        assert_eq!(fs::read(dir.path().join("real")).unwrap(), b"x");
        // Renaming a file over a non-empty directory fails after the temp was written.
        fs::create_dir(dir.path().join("d")).unwrap();
        fs::write(dir.path().join("d/inner"), "").unwrap();
        assert!(replace(&dir.path().join("d"), b"z", None).is_err());
        assert!(leftovers(dir.path()).is_empty());
    }

    #[test]
    fn parents_are_created_and_files_in_the_way_fail() {
        let dir = tempfile::tempdir().unwrap();
        let created = ensure_parent_dirs(&dir.path().join("a/b/c")).unwrap();
        assert_eq!(
            created,
            vec![
                dir.path().join("a"),
                dir.path().join("a/b"),
                dir.path().join("a/b/c")
            ]
        );
        assert!(ensure_parent_dirs(&dir.path().join("a/b"))
            .unwrap()
            .is_empty());
        fs::write(dir.path().join("f"), "").unwrap();
        let e = ensure_parent_dirs(&dir.path().join("f/x")).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::ENOTDIR));
    }

    #[test]
    fn locks_serialise_writers_of_one_path() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("counter");
        fs::write(&f, "0").unwrap();
        let f = Arc::new(f);
        let threads: Vec<_> = (0..8)
            .map(|_| {
                let f = f.clone();
                std::thread::spawn(move || {
                    for _ in 0..20 {
                        // Lock through a different spelling of the same path.
                        let alias = f.parent().unwrap().join(".").join("counter");
                        let _g = lock_paths(&[alias, dir_of(&f)]);
                        let n: u32 = fs::read_to_string(&*f).unwrap().parse().unwrap();
                        write_file(&f, (n + 1).to_string().as_bytes(), "counter").unwrap();
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(fs::read_to_string(&*f).unwrap(), "160");
    }

    fn dir_of(f: &Path) -> PathBuf {
        f.parent().unwrap().to_path_buf()
    }
}
