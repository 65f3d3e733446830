//! Staging a commit (step 1 of [`super`]): every new content written to a `.clarvis-tmp-*`
//! file beside its target and fsynced, every modified file backed up, every operation turned
//! into a [`Step`]. The temp files are filled and fsynced side by side ([`parallel_map`]); the
//! rest runs in operation order, so the plan, and what a failure leaves to undo, is the same
//! as if everything ran in order.

use super::{parent, Op};
use crate::atomic::undo::{file_id, FileId, JPath, Step};
use crate::atomic::{
    create_temp, ensure_parent_dirs, fill_temp, parallel_map, temp_name, TempFile,
};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// The staged steps and the directories created for them.
#[derive(Default)]
pub(super) struct Plan {
    pub(super) steps: Vec<Step>,
    pub(super) dirs: Vec<PathBuf>,
}

/// How many operations are staged at a time: their temp files stay open between being
/// created and filled, so this bounds the descriptors a huge patch holds at once.
const STAGE_CHUNK: usize = 256;

/// One operation between the passes of [`stage_chunk`].
struct Pending<'a> {
    op: &'a Op,
    /// The identity of the file the operation replaces, deletes or moves.
    old_id: Option<FileId>,
    /// The staged temp file, its handle, its content and mode.
    temp: Option<Staged<'a>>,
}

struct Staged<'a> {
    temp: TempFile,
    file: fs::File,
    bytes: &'a [u8],
    mode: Option<u32>,
}

/// Stages every operation; on failure `plan` holds what was staged so far, for `undo`.
pub(super) fn stage(ops: &[Op], plan: &mut Plan) -> io::Result<()> {
    ops.chunks(STAGE_CHUNK)
        .try_for_each(|chunk| stage_chunk(chunk, plan))
}

/// Stages `ops` in three passes: (1) in order, identities, modes, parent directories and an
/// empty temp file per new content; (2) all temp files written and fsynced in parallel
/// ([`parallel_map`]): a journaling filesystem then folds their fsyncs into a few journal
/// commits instead of one per file; (3) in order, backups, and each operation becomes a
/// [`Step`]. A temp file not yet in a step is removed when its [`TempFile`] drops, so a
/// failure in any pass leaves only what `plan` records.
fn stage_chunk(ops: &[Op], plan: &mut Plan) -> io::Result<()> {
    let mut pending = Vec::with_capacity(ops.len());
    for op in ops {
        let (old_id, temp) = match op {
            Op::Modify { path, bytes, mode } => {
                let old_id = regular_id(path)?;
                let mode = match mode {
                    Some(m) => Some(*m),
                    None => mode_of(path)?,
                };
                (Some(old_id), Some(new_temp(path, bytes, mode, plan)?))
            }
            Op::Create { path, bytes, mode } => (None, Some(new_temp(path, bytes, *mode, plan)?)),
            Op::Delete { path } => (Some(regular_id(path)?), None),
            Op::Move {
                from,
                to,
                bytes: None,
            } => {
                let id = regular_id(from)?;
                plan.dirs.extend(ensure_parent_dirs(parent(to))?);
                (Some(id), None)
            }
            Op::Move {
                from,
                to,
                bytes: Some(bytes),
            } => {
                let old_id = regular_id(from)?;
                let mode = mode_of(from)?;
                (Some(old_id), Some(new_temp(to, bytes, mode, plan)?))
            }
        };
        pending.push(Pending { op, old_id, temp });
    }
    let filled = parallel_map(&pending, |p| match &p.temp {
        Some(s) => fill_temp(&s.file, s.bytes, s.mode)
            .and_then(|()| s.file.metadata())
            .map(|m| {
                let (ino, size, s, ns) = crate::fsmeta::stamp(&m);
                Some(FileId(ino, size, s, ns))
            }),
        None => Ok(None),
    });
    let mut ids = Vec::with_capacity(filled.len());
    for id in filled {
        ids.push(id?);
    }
    for (p, temp_id) in pending.into_iter().zip(ids) {
        plan.steps.push(finish_step(p, temp_id)?);
    }
    Ok(())
}

/// Creates the (empty) temp file for `bytes` beside `target`, making missing parents.
fn new_temp<'a>(
    target: &Path,
    bytes: &'a [u8],
    mode: Option<u32>,
    plan: &mut Plan,
) -> io::Result<Staged<'a>> {
    let dir = parent(target);
    plan.dirs.extend(ensure_parent_dirs(dir)?);
    let (temp, file) = create_temp(dir)?;
    Ok(Staged {
        temp,
        file,
        bytes,
        mode,
    })
}

/// The step for a staged operation, making the backup a modify needs.
fn finish_step(p: Pending<'_>, temp_id: Option<FileId>) -> io::Result<Step> {
    let missing = || io::Error::other("staging lost track of a file identity");
    let old_id = p.old_id.ok_or_else(missing);
    // The temp file is kept (no longer removed on drop) only once its step is certain.
    let staged = match (p.temp, temp_id) {
        (Some(s), Some(id)) => Ok((s.temp, id)),
        _ => Err(missing()),
    };
    let keep = |(temp, id): (TempFile, FileId)| (JPath(temp.keep()), id);
    Ok(match p.op {
        Op::Modify { path, .. } => {
            let (old_id, staged) = (old_id?, staged?);
            let backup = back_up(path)?;
            let backup_id = match file_id(&backup) {
                Ok(id) => id,
                Err(e) => {
                    let _ = fs::remove_file(&backup);
                    return Err(e);
                }
            };
            let (temp, temp_id) = keep(staged);
            Step::Modify {
                target: JPath::from(path.as_path()),
                temp,
                temp_id,
                backup_id,
                backup: JPath(backup),
                old_id,
            }
        }
        Op::Create { path, .. } => {
            let (temp, temp_id) = keep(staged?);
            Step::Create {
                target: JPath::from(path.as_path()),
                temp,
                temp_id,
            }
        }
        Op::Delete { path } => Step::Delete {
            old_id: old_id?,
            target: JPath::from(path.as_path()),
            backup: JPath(temp_name(parent(path))),
        },
        Op::Move {
            from,
            to,
            bytes: None,
        } => Step::Rename {
            from: JPath::from(from.as_path()),
            to: JPath::from(to.as_path()),
            id: old_id?,
        },
        Op::Move {
            from,
            to,
            bytes: Some(_),
        } => {
            let old_id = old_id?;
            let (temp, temp_id) = keep(staged?);
            Step::RenameEdit {
                from: JPath::from(from.as_path()),
                to: JPath::from(to.as_path()),
                temp,
                temp_id,
                backup: JPath(temp_name(parent(from))),
                old_id,
            }
        }
    })
}

/// The identity of the file a step replaces, deletes or moves, which must be a regular file:
/// callers refuse anything else up front ([`crate::atomic::check_target`]), and this
/// refuses what was swapped in since (a symlink, FIFO, socket or device), before anything
/// is touched.
fn regular_id(path: &Path) -> io::Result<FileId> {
    if !fs::symlink_metadata(path)?.is_file() {
        return Err(io::Error::other(
            "a file to change is no longer a regular file (a symlink, FIFO, socket or device took its place)",
        ));
    }
    file_id(path)
}

fn mode_of(path: &Path) -> io::Result<Option<u32>> {
    Ok(Some(crate::fsmeta::mode(&fs::metadata(path)?)))
}

/// Keeps the current file as a `.clarvis-tmp-*` backup beside it: a hard link (the file
/// stays in place, so readers never see it missing), or a copy where links are unsupported.
fn back_up(path: &Path) -> io::Result<PathBuf> {
    let backup = temp_name(parent(path));
    if fs::hard_link(path, &backup).is_err() {
        let _ = fs::remove_file(&backup);
        if let Err(e) = fs::copy(path, &backup) {
            let _ = fs::remove_file(&backup);
            return Err(e);
        }
    }
    Ok(backup)
}
