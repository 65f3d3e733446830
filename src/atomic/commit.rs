//! Performing a patch's file operations all together, or not at all — even across a crash.
//!
//! 1. **Stage.** Every new content is written to a `.clarvis-tmp-*` file beside its target
//!    (missing parent directories are created for it) and fsynced; every modified file gets
//!    a `.clarvis-tmp-*` backup beside it (a hard link when the filesystem allows, a copy
//!    otherwise). Each operation becomes a [`Step`] naming its files and their identities.
//!    Nothing the caller can see has changed yet except new directories. The temp files are
//!    written and fsynced side by side ([`parallel_map`]): a journaling filesystem folds
//!    concurrent fsyncs into a few journal commits, where one after the other each costs one.
//! 2. **Journal.** When the commit needs more than one rename, the steps are written to a
//!    durable journal in `<root>/.clarvis/journal/` (see [`super::journal`]) before the first.
//! 3. **Perform**, in order: modify = rename the temp over the target; create = rename the
//!    temp into place, refusing an existing file (`RENAME_NOREPLACE`); delete = rename the
//!    file to a backup name; rename = `rename(2)`, refusing an existing destination; rename +
//!    edit = place the temp at the destination, then park the source at a backup name.
//! 4. **Finish.** Directories fsynced (each touched one once, and the parents of directories
//!    made for new files, all together), journal removed (durably: only now is the patch
//!    applied), backups removed, stale temp files swept from the touched directories.
//!
//! On any failure the steps are undone from the state of the disk ([`undo`]); what cannot be
//! restored is named in the error and its journal is kept, so the next start-up retries. A
//! crash between 3 and 4 is rolled back by [`super::journal::recover`]. The caller holds the
//! path locks; other processes are not coordinated.

use super::journal::{self, Record};
use super::undo::{discard_backups, rename_noreplace, undo, Step, Unrestored};
use crate::atomic::{fsync_dirs, parallel_map, rename_over, sweep_stale};
use crate::error::{io_detail, Code, ToolError, ToolResult};
use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// One file operation of a patch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op {
    /// Replace an existing file's content.
    Modify {
        /// The file.
        path: PathBuf,
        /// Its new bytes.
        bytes: Vec<u8>,
        /// The permission bits it gets; `None` keeps the old file's.
        mode: Option<u32>,
    },
    /// Create a new file, with any missing parents.
    Create {
        /// The file.
        path: PathBuf,
        /// Its bytes.
        bytes: Vec<u8>,
        /// The permission bits it gets; `None` applies the process umask to 0666, as for
        /// any new file.
        mode: Option<u32>,
    },
    /// Remove a file.
    Delete {
        /// The file.
        path: PathBuf,
    },
    /// Move a file; with `bytes`, the destination gets that content and the source's mode,
    /// otherwise the file itself is renamed (bytes, mode and inode kept).
    Move {
        /// The source.
        from: PathBuf,
        /// The destination (must not exist).
        to: PathBuf,
        /// New content, for a rename that also edits.
        bytes: Option<Vec<u8>>,
    },
}

/// How a commit runs, beyond its operations.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The workspace root whose `.clarvis/journal` receives the commit journal; `None`
    /// commits without one (no protection against a crash between two renames).
    pub journal_root: Option<PathBuf>,
    /// Test hook: fail after this many file operations, to prove rollback.
    pub fail_after: Option<u64>,
    /// Test hook: sleep this long before each file operation after the first, so a test can
    /// kill the process mid-commit.
    pub pause: Option<Duration>,
    /// Maps the operations' paths to the ones the journal records, when the operations go
    /// through pinned directory handles (`workspace::Pins`) that mean nothing after a crash.
    pub journal_paths: Option<PathMap>,
    /// Directories made for this commit before it started (`workspace::Pins`): their parents
    /// are fsynced with the touched directories, so the new entries are as durable as the
    /// files in them. (Directories the commit makes itself are covered already.)
    pub created_dirs: Vec<PathBuf>,
}

impl Options {
    /// A workspace commit through the crash journal (`apply_patch`, review's `accept`), with
    /// the test hooks' faults: no journal, a failure after n operations, a pause between them.
    pub fn journaled(config: &crate::config::Config) -> Options {
        Options {
            journal_root: (!config.hooks.no_journal).then(|| config.workspace_root.clone()),
            fail_after: config.hooks.fail_commit_after,
            pause: config
                .hooks
                .commit_pause_ms
                .map(std::time::Duration::from_millis),
            ..Options::default()
        }
    }
}

/// A path mapping for [`Options::journal_paths`].
#[derive(Clone)]
pub struct PathMap(std::sync::Arc<dyn Fn(&Path) -> PathBuf + Send + Sync>);

impl PathMap {
    /// Wraps a mapping function.
    pub fn new(f: impl Fn(&Path) -> PathBuf + Send + Sync + 'static) -> PathMap {
        PathMap(std::sync::Arc::new(f))
    }
}

impl std::fmt::Debug for PathMap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PathMap")
    }
}

/// Performs `ops` atomically as a group, without a journal. `fail_after` (a test hook) makes
/// the commit fail after that many operations, to prove rollback. `show` renders a path for
/// the error.
pub fn commit(
    ops: &[Op],
    fail_after: Option<u64>,
    show: &dyn Fn(&Path) -> String,
) -> ToolResult<()> {
    let options = Options {
        fail_after,
        ..Options::default()
    };
    commit_with(ops, &options, show)
}

/// Performs `ops` atomically as a group, journaled under `options.journal_root` when the
/// commit has more than one rename. `show` renders a path for the error.
pub fn commit_with(
    ops: &[Op],
    options: &Options,
    show: &dyn Fn(&Path) -> String,
) -> ToolResult<()> {
    let mut plan = Plan::default();
    if let Err(e) = stage(ops, &mut plan) {
        let failed = undo(&plan.steps, &plan.dirs);
        return Err(failure(&e, &failed, show));
    }
    let journal = match &options.journal_root {
        Some(root) if renames(&plan.steps) > 1 => {
            let record = match &options.journal_paths {
                Some(PathMap(map)) => {
                    let steps = plan.steps.iter().map(|s| s.map_paths(&**map)).collect();
                    let dirs: Vec<PathBuf> = plan.dirs.iter().map(|d| map(d)).collect();
                    Record::new(steps, &dirs)
                }
                None => Record::new(plan.steps.clone(), &plan.dirs),
            };
            match journal::write(root, &record) {
                Ok(written) => Some(written),
                Err(e) => {
                    let failed = undo(&plan.steps, &plan.dirs);
                    return Err(failure(&e, &failed, show));
                }
            }
        }
        _ => None,
    };
    let performed = plan.steps.iter().enumerate().try_for_each(|(i, step)| {
        if options.fail_after == Some(i as u64) {
            return Err(io::Error::other(format!(
                "injected failure after {i} file operations (test hook)"
            )));
        }
        if let (Some(pause), true) = (options.pause, i > 0) {
            std::thread::sleep(pause);
        }
        perform(step)
    });
    if let Err(e) = performed {
        let failed = undo(&plan.steps, &plan.dirs);
        if failed.is_empty() {
            if let Some(j) = journal {
                let _ = j.remove();
            }
        }
        // Otherwise the journal stays: the next start-up retries, and sweeps spare the
        // backups it names meanwhile.
        return Err(failure(&e, &failed, show));
    }
    let mut dirs: Vec<PathBuf> = plan.steps.iter().flat_map(touched).collect();
    dirs.sort();
    dirs.dedup();
    // A new directory's own entry lives in its parent, which must be durable too, or a file
    // created in it could vanish with it after a power loss.
    let mut to_sync = dirs.clone();
    to_sync.extend(
        plan.dirs
            .iter()
            .chain(&options.created_dirs)
            .map(|d| parent(d).to_path_buf()),
    );
    to_sync.sort();
    to_sync.dedup();
    // All at once: one wait for the disk. The operations are done; a directory fsync
    // failing cannot undo them.
    let _ = fsync_dirs(&to_sync);
    if let Some(j) = journal {
        // Best effort: a journal that outlives its commit is rolled back at the next start,
        // which restores the old files — but only after this process is gone.
        let _ = j.remove();
    }
    // Removing a backup frees the old file's blocks, which can wait for the device (online
    // discard, a busy journal): done side by side, like the staging fsyncs.
    parallel_map(&plan.steps, |step| {
        discard_backups(std::slice::from_ref(step))
    });
    for dir in &dirs {
        sweep_stale(dir);
    }
    Ok(())
}

fn failure(err: &io::Error, failed: &[Unrestored], show: &dyn Fn(&Path) -> String) -> ToolError {
    let mut message = format!("Failed to apply patch: {}", detail(err));
    if !failed.is_empty() {
        let shown: Vec<String> = failed.iter().map(|u| show(&u.path)).collect();
        message.push_str(&format!(
            "; rollback could not restore {}",
            shown.join(", ")
        ));
    }
    ToolError::new(Code::IoError, message)
}

fn detail(err: &io::Error) -> String {
    match err.raw_os_error() {
        Some(_) => io_detail(err),
        None => format!("EIO: {err}"),
    }
}

fn parent(path: &Path) -> &Path {
    path.parent().unwrap_or(Path::new("/"))
}

/// How many renames performing `steps` takes: a journal is needed from two.
fn renames(steps: &[Step]) -> usize {
    steps
        .iter()
        .map(|s| {
            if matches!(s, Step::RenameEdit { .. }) {
                2
            } else {
                1
            }
        })
        .sum()
}

/// The directories whose entries a performed step changed.
fn touched(step: &Step) -> Vec<PathBuf> {
    match step {
        Step::Modify { target, .. } | Step::Create { target, .. } | Step::Delete { target, .. } => {
            vec![parent(&target.0).to_path_buf()]
        }
        Step::Rename { from, to, .. } | Step::RenameEdit { from, to, .. } => {
            vec![parent(&from.0).to_path_buf(), parent(&to.0).to_path_buf()]
        }
    }
}

fn perform(step: &Step) -> io::Result<()> {
    match step {
        Step::Modify { target, temp, .. } => rename_over(&temp.0, &target.0),
        Step::Create { target, temp, .. } => rename_noreplace(&temp.0, &target.0),
        Step::Delete { target, backup, .. } => rename_over(&target.0, &backup.0),
        Step::Rename { from, to, .. } => rename_noreplace(&from.0, &to.0),
        Step::RenameEdit {
            from,
            to,
            temp,
            backup,
            ..
        } => {
            rename_noreplace(&temp.0, &to.0)?;
            rename_over(&from.0, &backup.0)
        }
    }
}

mod confined;
mod stage;
pub use confined::{commit_confined, commit_pinned, pin_ops};
use stage::{stage, Plan};

// Unix only: these tests build symlinks, FIFOs and permission bits.
#[cfg(all(test, unix))]
#[path = "commit_tests.rs"]
mod tests;
