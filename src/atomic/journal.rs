//! The commit journal: what makes a multi-file patch all-or-nothing across a crash.
//!
//! Before the first rename of a commit that needs more than one, the commit writes
//! `<root>/.clarvis/journal/<pid>-<millis>-<counter>-<12 hex>.json` — every [`Step`] with its
//! temp and backup names and inodes, plus the directories it created — and fsyncs the file
//! and its directory. The journal is removed (and the removal fsynced) once every rename is
//! done and durable, before the tool reports success (an emptied journal directory is removed
//! too, and `.clarvis` when the commit created it); so a journal that is still there means
//! the patch was never reported applied, and recovery rolls it **back**: the user's files are
//! as before the call, which is what the caller saw (no success) and what a retry expects.
//!
//! [`recover`] runs when tools are built for a workspace (`createAgentTools`, `buildConfig`,
//! or a Rust caller) and undoes the journal of every commit whose process is gone (the pid is
//! dead, a zombie, or now belongs to a process started at another time). Journals of live
//! processes are in-flight commits and are left alone. It is idempotent (undo is decided from
//! inodes on disk, see [`super::undo`]), touches only the paths a journal names, and never
//! fails: what it cannot restore becomes a warning line. A journal that cannot be parsed was
//! cut short while being written — before any rename, since renames wait for its fsync — so
//! it is simply removed.
//!
//! Recovery writes like any other writer: with confinement on, every path of a journal is
//! reached through a verified handle on its directory (`workspace::Pins`), so a directory
//! swapped for a symlink to the outside since the crash cannot carry the rollback there; a
//! step whose directory no longer lies inside the root is left as it is, with a warning.

use super::undo::{undo, JPath, Step, Unrestored};
use crate::atomic::{fsync_dir, parallel_map, pid_alive, unique_id};
use crate::config::Config;
use crate::workspace::Pins;
use serde::{Deserialize, Serialize};
use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Where journals live, relative to the workspace root.
pub const JOURNAL_DIR: &str = ".clarvis/journal";

/// The format version written in every journal.
const VERSION: u32 = 1;

/// The content of one journal file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    /// Format version.
    pub version: u32,
    /// The committing process.
    pub pid: u32,
    /// Its start time (clock ticks since boot, `/proc/<pid>/stat` field 22), to tell a reused
    /// pid from the committing process.
    pub start: Option<u64>,
    /// The directories the commit created, in creation order.
    pub dirs: Vec<JPath>,
    /// The file operations, in commit order.
    pub steps: Vec<Step>,
}

impl Record {
    /// A journal record for this process.
    pub fn new(steps: Vec<Step>, dirs: &[PathBuf]) -> Record {
        Record {
            version: VERSION,
            pid: std::process::id(),
            start: start_time(std::process::id()),
            dirs: dirs.iter().map(|d| JPath::from(d.as_path())).collect(),
            steps,
        }
    }
}

/// A journal on disk; [`Written::remove`] retires it.
#[derive(Debug)]
pub struct Written {
    path: PathBuf,
    root: PathBuf,
    made_clarvis: bool,
}

impl Written {
    /// Removes the journal and makes the removal durable: the commit is now final. Then the
    /// journal directory goes when empty, and `.clarvis` too when this commit created it and
    /// it holds nothing else: a patch leaves no trace in the workspace but its own changes.
    pub fn remove(self) -> io::Result<()> {
        fs::remove_file(&self.path)?;
        fsync_dir(self.path.parent().unwrap_or(Path::new("/")))?;
        tidy(&self.root, self.made_clarvis);
        Ok(())
    }
}

/// Removes an empty journal directory, and `.clarvis` when `clarvis_too` and it holds only
/// the `.gitignore` it was created with. Best effort; losing a race to a concurrent commit
/// or spill file only leaves the directory in place.
fn tidy(root: &Path, clarvis_too: bool) {
    if fs::remove_dir(root.join(JOURNAL_DIR)).is_err() || !clarvis_too {
        return;
    }
    let clarvis = root.join(".clarvis");
    let only_ours = fs::read_dir(&clarvis).is_ok_and(|entries| {
        let names: Vec<_> = entries.flatten().map(|e| e.file_name()).collect();
        names.len() == 1 && names[0] == ".gitignore"
    }) && fs::read(clarvis.join(".gitignore")).is_ok_and(|b| b == b"*\n");
    if only_ours
        && fs::remove_file(clarvis.join(".gitignore")).is_ok()
        && fs::remove_dir(&clarvis).is_err()
    {
        // Something arrived meanwhile: keep it out of git again.
        let _ = fs::write(clarvis.join(".gitignore"), b"*\n");
    }
}

/// A process's start time in clock ticks since boot (Linux); `None` elsewhere or when gone.
pub fn start_time(pid: u32) -> Option<u64> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Field 22; the fields after `comm` start at 3, and comm may hold spaces and parens.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_ascii_whitespace().nth(19)?.parse().ok()
}

/// Whether the process that wrote `record` may still be running its commit.
fn owner_alive(record: &Record) -> bool {
    if record.pid == std::process::id() {
        // This process's own journals are commits in flight on other threads.
        return true;
    }
    if !pid_alive(record.pid) {
        return false;
    }
    match (record.start, start_time(record.pid)) {
        (Some(want), Some(now)) => want == now,
        _ => true,
    }
}

/// Makes `<root>/.clarvis/journal` (never through a symlink: it could lead outside the
/// workspace) and returns it, with whether `.clarvis` itself had to be created. The parents
/// of the directories it made are pushed to `to_sync`: the new entries must survive a power
/// loss as much as the journal in them ([`write`] fsyncs them together with the journal).
fn journal_dir(root: &Path, to_sync: &mut Vec<PathBuf>) -> io::Result<(PathBuf, bool)> {
    let clarvis = root.join(".clarvis");
    let dir = root.join(JOURNAL_DIR);
    let mut made_clarvis = false;
    for d in [&clarvis, &dir] {
        match fs::create_dir(d) {
            Ok(()) => {
                made_clarvis |= d == &clarvis;
                to_sync.push(d.parent().unwrap_or(root).to_path_buf());
                if d == &clarvis {
                    // Best effort, as for the bash spill files: keep `.clarvis` out of git.
                    if let Ok(mut f) = OpenOptions::new()
                        .write(true)
                        .create_new(true)
                        .open(clarvis.join(".gitignore"))
                    {
                        let _ = f.write_all(b"*\n");
                    }
                }
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
        if !fs::symlink_metadata(d)?.is_dir() {
            return Err(crate::error::os_error(libc::ENOTDIR));
        }
    }
    Ok((dir, made_clarvis))
}

/// Writes `record` as a new journal under `root` and makes it durable before returning: the
/// file, its directory and the parents of any directory made for it are fsynced, all at
/// once ([`parallel_map`]), so the journal costs one wait for the disk, not four.
pub fn write(root: &Path, record: &Record) -> io::Result<Written> {
    let json = serde_json::to_vec(record).map_err(io::Error::other)?;
    let mut attempt = 0;
    let mut to_sync = Vec::new();
    let (dir, made_clarvis, path, mut file) = loop {
        let (dir, made_clarvis) = journal_dir(root, &mut to_sync)?;
        let path = dir.join(format!("{}.json", unique_id()));
        match OpenOptions::new().write(true).create_new(true).open(&path) {
            Ok(file) => break (dir, made_clarvis, path, file),
            // A concurrent commit tidied the empty directory away in between: make it again.
            Err(e) if e.kind() == io::ErrorKind::NotFound && attempt < 5 => attempt += 1,
            Err(e) => return Err(e),
        }
    };
    to_sync.push(dir.clone());
    to_sync.sort();
    to_sync.dedup();
    let written = file.write_all(&json).and_then(|()| {
        // Item `None` is the journal file itself, the others its directories.
        let items: Vec<Option<&Path>> = std::iter::once(None)
            .chain(to_sync.iter().map(|d| Some(d.as_path())))
            .collect();
        parallel_map(&items, |item| match item {
            None => file.sync_all(),
            Some(d) => fsync_dir(d),
        })
        .into_iter()
        .collect::<io::Result<()>>()
    });
    match written {
        Ok(()) => Ok(Written {
            path,
            root: root.to_path_buf(),
            made_clarvis,
        }),
        Err(e) => {
            let _ = fs::remove_file(&path);
            tidy(root, made_clarvis);
            Err(e)
        }
    }
}

/// The journal files under `root`, oldest first (by the millis in their name).
fn journals(root: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(root.join(JOURNAL_DIR)) else {
        return Vec::new();
    };
    let mut found: Vec<(u128, PathBuf)> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_str()?.to_string();
            let stem = name.strip_suffix(".json")?;
            let millis = stem.split('-').nth(1)?.parse().ok()?;
            Some((millis, e.path()))
        })
        .collect();
    found.sort();
    found.into_iter().map(|(_, p)| p).collect()
}

/// Whether any journal is pending under `root` (a commit in flight, or one that crashed and
/// has not been recovered). Stale-temp sweeps hold off meanwhile: the backups it names may
/// be the only copies of the user's files.
pub fn any_pending(root: &Path) -> bool {
    !journals(root).is_empty()
}

/// Opens `path` and takes an exclusive `flock` on it without waiting; `None` when another
/// recoverer holds it or the journal is already gone.
fn lock(path: &Path) -> Option<fs::File> {
    let file = fs::File::open(path).ok()?;
    // std's lock is flock(LOCK_EX | LOCK_NB) on Unix, LockFileEx on Windows.
    file.try_lock().ok()?;
    // The holder before us may have finished and removed it: then this is a dead name.
    let same = match (file.metadata(), fs::metadata(path)) {
        (Ok(a), Ok(b)) => crate::fsmeta::identity(&a) == crate::fsmeta::identity(&b),
        _ => false,
    };
    same.then_some(file)
}

/// Rolls back every interrupted commit in `config`'s workspace whose process is gone, as a
/// writer confined to the root (see the module doc). Never fails; returns warn-sink lines
/// (each ending in `\n`) for what it could not restore.
pub fn recover(config: &Config) -> Vec<String> {
    let root = config.workspace_root.as_path();
    let mut warnings = Vec::new();
    for path in journals(root) {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        // One recoverer per journal, across processes: a second one would see the first
        // one's half-done work as damage. The lock goes with the descriptor.
        let Some(_lock) = lock(&path) else {
            continue;
        };
        let record = match fs::read(&path).map(|b| serde_json::from_slice::<Record>(&b)) {
            Ok(Ok(record)) => record,
            Ok(Err(_)) => {
                let pid = name.split('-').next().and_then(|p| p.parse().ok());
                if pid.is_some_and(|p| p == std::process::id() || pid_alive(p)) {
                    continue; // Still being written.
                }
                // Cut short before it was complete, so before any rename: nothing to undo.
                let _ = fs::remove_file(&path);
                continue;
            }
            Err(_) => continue, // Vanished (recovered by another process) or unreadable.
        };
        if owner_alive(&record) {
            continue;
        }
        let mut pins = Pins::default();
        let (steps, dirs, mut failed) = pinned(config, &record, &mut pins);
        failed.extend(undo(&steps, &dirs).into_iter().map(|u| Unrestored {
            path: pins.original(&u.path),
            detail: pins.unpin_text(&u.detail),
        }));
        for failed in failed {
            warnings.push(format!(
                "clarvis-agent-tools: warning: rolling back the interrupted patch {name}: could not restore {}: {}\n",
                failed.path.display(),
                failed.detail
            ));
        }
        // Retired even when something could not be restored: the warning said where
        // things are, and a journal that can never be completed must not block sweeps.
        if fs::remove_file(&path).is_ok() {
            let _ = fsync_dir(path.parent().unwrap_or(root));
        }
    }
    // An emptied journal directory goes; `.clarvis` stays (it may hold spill files).
    tidy(root, false);
    warnings
}

/// `record`'s steps and directories with every path reached through `pins` (confinement on;
/// as written otherwise), and the steps left out because a directory of theirs no longer
/// lies inside the root. The write scope does not apply: a rollback puts back what was.
fn pinned(
    config: &Config,
    record: &Record,
    pins: &mut Pins,
) -> (Vec<Step>, Vec<PathBuf>, Vec<Unrestored>) {
    let raw_dirs = record.dirs.iter().map(|d| d.0.clone());
    if !config.confine_to_workspace {
        return (record.steps.clone(), raw_dirs.collect(), Vec::new());
    }
    let unscoped = Config {
        write_scope: Vec::new(),
        ..config.clone()
    };
    let pins = std::cell::RefCell::new(pins);
    let via = |p: &Path| {
        let shown = p.to_string_lossy();
        pins.borrow_mut().pin(&unscoped, p, &shown, false).ok()
    };
    let mut failed = Vec::new();
    let mut steps = Vec::new();
    for step in &record.steps {
        let outside = std::cell::Cell::new(None);
        let mapped = step.map_paths(&|p| {
            via(p).unwrap_or_else(|| {
                outside.set(Some(p.to_path_buf()));
                p.to_path_buf()
            })
        });
        match outside.take() {
            None => steps.push(mapped),
            Some(p) => failed.push(Unrestored {
                path: p,
                detail: "its directory is missing or no longer inside the workspace; left as it is"
                    .into(),
            }),
        }
    }
    let dirs = raw_dirs.filter_map(|d| via(&d)).collect();
    (steps, dirs, failed)
}
