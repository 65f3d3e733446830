//! Performing a patch's file operations all together, or not at all.
//!
//! Every new content is first written to a `.clarvis-tmp-*` file beside its target (missing
//! parent directories are created for it) and fsynced; nothing the caller can see has
//! changed yet except those directories. Then the operations run in order, each one
//! journaled: a modified or deleted file is first kept as a `.clarvis-tmp-*` backup beside it
//! (a hard link when the filesystem allows, a copy otherwise), a created file or a rename
//! destination must not exist (the caller holds the path locks; other processes are not
//! coordinated). If any step fails, the journal is undone in reverse — backups renamed back,
//! created files and directories removed — and the error says what could not be restored.
//! On success the backups are removed and the directories fsynced. No temp file survives.

use crate::atomic::{ensure_parent_dirs, fsync_dir, temp_name, write_temp, TempFile};
use crate::error::{io_detail, Code, ToolError, ToolResult};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// One file operation of a patch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op {
    /// Replace an existing file's content; its permission bits are kept.
    Modify {
        /// The file.
        path: PathBuf,
        /// Its new bytes.
        bytes: Vec<u8>,
    },
    /// Create a new file (LF content, default permissions), with any missing parents.
    Create {
        /// The file.
        path: PathBuf,
        /// Its bytes.
        bytes: Vec<u8>,
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

enum Undo {
    /// Put a backup back in place.
    Restore { backup: PathBuf, target: PathBuf },
    /// Remove a file this commit created.
    Remove(PathBuf),
    /// Rename a moved file back.
    MoveBack { from: PathBuf, to: PathBuf },
}

#[derive(Default)]
struct Journal {
    undo: Vec<Undo>,
    backups: Vec<PathBuf>,
    dirs_created: Vec<PathBuf>,
    dirs_touched: Vec<PathBuf>,
}

/// Performs `ops` atomically as a group. `fail_after` (a test hook) makes the commit fail
/// after that many operations, to prove rollback. `show` renders a path for the error.
pub fn commit(
    ops: &[Op],
    fail_after: Option<u64>,
    show: &dyn Fn(&Path) -> String,
) -> ToolResult<()> {
    let mut journal = Journal::default();
    let result = stage(ops, &mut journal).and_then(|mut temps| {
        for (i, op) in ops.iter().enumerate() {
            if fail_after == Some(i as u64) {
                return Err(io::Error::other(format!(
                    "injected failure after {i} file operations (test hook)"
                )));
            }
            perform(op, temps[i].take(), &mut journal)?;
        }
        Ok(())
    });
    match result {
        Ok(()) => {
            for backup in &journal.backups {
                let _ = fs::remove_file(backup);
            }
            journal.dirs_touched.sort();
            journal.dirs_touched.dedup();
            for dir in &journal.dirs_touched {
                // The operations are done; a directory fsync failing cannot undo them.
                let _ = fsync_dir(dir);
            }
            Ok(())
        }
        Err(err) => {
            let failed = rollback(&mut journal);
            let mut message = format!("Failed to apply patch: {}", detail(&err));
            if !failed.is_empty() {
                let shown: Vec<String> = failed.iter().map(|p| show(p)).collect();
                message.push_str(&format!(
                    "; rollback could not restore {}",
                    shown.join(", ")
                ));
            }
            Err(ToolError::new(Code::IoError, message))
        }
    }
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

/// Writes every new content to a temp file beside its target.
fn stage(ops: &[Op], journal: &mut Journal) -> io::Result<Vec<Option<TempFile>>> {
    let mut temps = Vec::with_capacity(ops.len());
    for op in ops {
        let (target, bytes, mode) = match op {
            Op::Modify { path, bytes } => (path, bytes, mode_of(path)?),
            Op::Create { path, bytes } => (path, bytes, None),
            Op::Move {
                from,
                to,
                bytes: Some(bytes),
            } => (to, bytes, mode_of(from)?),
            Op::Move {
                to, bytes: None, ..
            } => {
                journal.dirs_created.extend(ensure_parent_dirs(parent(to))?);
                temps.push(None);
                continue;
            }
            Op::Delete { .. } => {
                temps.push(None);
                continue;
            }
        };
        let dir = parent(target);
        journal.dirs_created.extend(ensure_parent_dirs(dir)?);
        temps.push(Some(write_temp(dir, bytes, mode)?));
    }
    Ok(temps)
}

fn mode_of(path: &Path) -> io::Result<Option<u32>> {
    use std::os::unix::fs::PermissionsExt;
    Ok(Some(fs::metadata(path)?.permissions().mode() & 0o7777))
}

fn perform(op: &Op, temp: Option<TempFile>, journal: &mut Journal) -> io::Result<()> {
    match (op, temp) {
        (Op::Modify { path, .. }, Some(temp)) => {
            let backup = back_up(path, journal)?;
            fs::rename(temp.path(), path)?;
            temp.keep();
            journal.undo.push(Undo::Restore {
                backup,
                target: path.clone(),
            });
            journal.dirs_touched.push(parent(path).to_path_buf());
        }
        (Op::Create { path, .. }, Some(temp)) => {
            place_new(temp, path)?;
            journal.undo.push(Undo::Remove(path.clone()));
            journal.dirs_touched.push(parent(path).to_path_buf());
        }
        (Op::Delete { path }, _) => {
            let backup = temp_name(parent(path));
            fs::rename(path, &backup)?;
            journal.backups.push(backup.clone());
            journal.undo.push(Undo::Restore {
                backup,
                target: path.clone(),
            });
            journal.dirs_touched.push(parent(path).to_path_buf());
        }
        (
            Op::Move {
                from,
                to,
                bytes: None,
            },
            _,
        ) => {
            refuse_existing(to)?;
            fs::rename(from, to)?;
            journal.undo.push(Undo::MoveBack {
                from: from.clone(),
                to: to.clone(),
            });
            journal.dirs_touched.push(parent(from).to_path_buf());
            journal.dirs_touched.push(parent(to).to_path_buf());
        }
        (
            Op::Move {
                from,
                to,
                bytes: Some(_),
            },
            Some(temp),
        ) => {
            place_new(temp, to)?;
            journal.undo.push(Undo::Remove(to.clone()));
            let backup = temp_name(parent(from));
            fs::rename(from, &backup)?;
            journal.backups.push(backup.clone());
            journal.undo.push(Undo::Restore {
                backup,
                target: from.clone(),
            });
            journal.dirs_touched.push(parent(from).to_path_buf());
            journal.dirs_touched.push(parent(to).to_path_buf());
        }
        _ => {
            return Err(io::Error::other(
                "internal: a staged write has no temp file",
            ))
        }
    }
    Ok(())
}

/// Keeps the current file as a `.clarvis-tmp-*` backup beside it: a hard link (the file
/// stays in place, so readers never see it missing), or a copy where links are unsupported.
fn back_up(path: &Path, journal: &mut Journal) -> io::Result<PathBuf> {
    let backup = temp_name(parent(path));
    if fs::hard_link(path, &backup).is_err() {
        let _ = fs::remove_file(&backup);
        fs::copy(path, &backup)?;
    }
    journal.backups.push(backup.clone());
    Ok(backup)
}

fn refuse_existing(path: &Path) -> io::Result<()> {
    match fs::symlink_metadata(path) {
        Ok(_) => Err(io::Error::from_raw_os_error(libc::EEXIST)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// Moves a staged temp file to a path that must not exist.
fn place_new(temp: TempFile, path: &Path) -> io::Result<()> {
    refuse_existing(path)?;
    fs::rename(temp.path(), path)?;
    temp.keep();
    Ok(())
}

/// Undoes the journal in reverse; returns the paths it could not restore.
fn rollback(journal: &mut Journal) -> Vec<PathBuf> {
    let mut failed = Vec::new();
    let mut keep: Vec<PathBuf> = Vec::new();
    while let Some(step) = journal.undo.pop() {
        let (ok, path) = match step {
            Undo::Restore { backup, target } => {
                let ok = fs::rename(&backup, &target).is_ok();
                if !ok {
                    // The backup is now the only copy of the user's file: never delete it.
                    keep.push(backup);
                }
                (ok, target)
            }
            Undo::Remove(path) => {
                let r = fs::remove_file(&path);
                (
                    r.is_ok() || r.is_err_and(|e| e.kind() == io::ErrorKind::NotFound),
                    path,
                )
            }
            Undo::MoveBack { from, to } => (fs::rename(&to, &from).is_ok(), from),
        };
        if !ok {
            failed.push(path);
        }
    }
    for backup in journal.backups.drain(..) {
        // Restored backups are gone already; any other is a leftover of a failed step.
        if !keep.contains(&backup) {
            let _ = fs::remove_file(backup);
        }
    }
    for dir in journal.dirs_created.drain(..).rev() {
        // Only empty directories go: something else may have been put there meanwhile.
        let _ = fs::remove_dir(dir);
    }
    failed
}

#[cfg(test)]
#[path = "commit_tests.rs"]
mod tests;
