//! `tools.accept(paths?, { force })`: the chosen staged changes applied to the workspace
//! together, through the confined, journaled commit `apply_patch` uses.

use super::{changes, select};
use crate::atomic::{self, commit};
use crate::config::Config;
use crate::error::{ToolError, ToolResult};
use crate::workspace::overlay::{Base, Entry, Overlay, Staged};
use crate::workspace::Pins;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// What the disk holds at a path now, for the conflict check.
enum Now {
    Absent,
    File { hash: String },
    Dir,
    Symlink,
    Other,
}

/// What the disk holds at `rel` now. A symlink anywhere below the root on the way counts as
/// the path's own (a directory swapped for a link to elsewhere, maybe holding the same bytes,
/// must not let the write through it).
fn now_at(overlay: &Overlay, rel: &str) -> std::io::Result<Now> {
    let mut dir = overlay.abs("");
    let parts: Vec<&str> = rel.split('/').collect();
    for part in &parts[..parts.len().saturating_sub(1)] {
        dir.push(part);
        match std::fs::symlink_metadata(&dir) {
            Ok(m) if m.file_type().is_symlink() => return Ok(Now::Symlink),
            Ok(m) if m.is_dir() => {}
            // A file or nothing where a directory was: the path itself is absent.
            _ => return Ok(Now::Absent),
        }
    }
    let abs = overlay.abs(rel);
    match std::fs::symlink_metadata(&abs) {
        Ok(m) if m.file_type().is_symlink() => Ok(Now::Symlink),
        Ok(m) if m.is_file() => Ok(Now::File {
            hash: blake3::hash(&std::fs::read(&abs)?).to_hex().to_string(),
        }),
        Ok(m) if m.is_dir() => Ok(Now::Dir),
        Ok(_) => Ok(Now::Other),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Now::Absent),
        Err(e) if crate::error::errno(&e) == Some(libc::ENOTDIR) => Ok(Now::Absent),
        Err(e) => Err(e),
    }
}

/// Why `now` conflicts with `entry`'s base: `(reason, whether force may override it)`.
fn conflict(entry: &Entry, now: &Now) -> Option<(&'static str, bool)> {
    if entry.staged == Staged::Dir {
        // A directory is made unless something else holds its name: a file the host did not
        // see when the directory was staged (force replaces it), a link, a special file.
        return match (now, &entry.base) {
            (Now::Symlink, _) => Some(("replaced by a symlink since it was staged", false)),
            (Now::Other, _) => Some(("not a regular file on disk", false)),
            (Now::Absent | Now::Dir, _) => None,
            (Now::File { hash }, Base::File { hash: base, .. }) if hash == base => None,
            (Now::File { .. }, _) => Some(("created on disk since it was staged", true)),
        };
    }
    match (now, &entry.base) {
        (Now::Symlink, _) => Some(("replaced by a symlink since it was staged", false)),
        (Now::Other | Now::Dir, _) => Some(("not a regular file on disk", false)),
        (Now::Absent, Base::Absent) => None,
        (Now::File { .. }, Base::Absent) => Some(("created on disk since it was staged", true)),
        (Now::Absent, Base::File { .. }) => Some(("deleted on disk since it was staged", true)),
        (Now::File { hash }, Base::File { hash: base, .. }) => {
            (hash != base).then_some(("changed on disk since it was staged", true))
        }
    }
}

/// Applies the chosen changes of `overlay` (all when `paths` is `None`) to the workspace:
/// `{ accepted: [{ path, kind }], conflicts: [{ path, reason }] }`. Any conflict force may not
/// override (a symlink or special file in the way), or any conflict without `force`, and
/// nothing is applied. `checkpoints` records the prior state, as for any write.
pub fn accept(
    config: &Config,
    overlay: &Overlay,
    checkpoints: &crate::checkpoint::Store,
    paths: Option<&[String]>,
    force: bool,
) -> ToolResult<Value> {
    // The workspace itself: this configuration's writers must not stage again.
    let direct = config.without_review();
    let scope_fail = |e: std::io::Error| ToolError::fs(&e, ".clarvis/review");
    overlay.refresh();
    let entries = overlay.entries();
    let chosen = select(config, overlay, &entries, paths)?;
    let abs_paths: Vec<PathBuf> = chosen.iter().map(|r| overlay.abs(r)).collect();
    // The path locks first, as every writer takes them before it stages (which takes the
    // writer lock): the other order could deadlock with an edit of a chosen path.
    let _locks = atomic::lock_paths(&abs_paths);
    // Held to the end: another process's accept of this scope waits, then finds its
    // changes gone or conflicting.
    let writer = overlay.writer_lock().map_err(scope_fail)?;
    overlay.refresh();
    // Read again under the locks: another accept of this scope may have run meanwhile.
    let entries: BTreeMap<String, Entry> = overlay
        .entries()
        .into_iter()
        .filter(|(k, _)| chosen.contains(k))
        .collect();
    let mut conflicts = Vec::new();
    let mut present = BTreeMap::new();
    for (rel, e) in &entries {
        let now = now_at(overlay, rel).map_err(|err| ToolError::fs(&err, rel))?;
        if let Some((reason, forceable)) = conflict(e, &now) {
            if !(force && forceable) {
                conflicts.push(json!({ "path": rel, "reason": reason }));
            }
        }
        present.insert(rel.clone(), matches!(now, Now::File { .. }));
    }
    if !conflicts.is_empty() {
        return Ok(json!({ "accepted": [], "conflicts": conflicts }));
    }
    let ops = ops_of(overlay, &entries, &present)?;
    let written: Vec<PathBuf> = entries.keys().map(|r| overlay.abs(r)).collect();
    // Budget notices of the checkpoints have no call to go to here.
    drop(checkpoints.before(&direct, &written, None));
    let options = commit::Options::journaled(config);
    if !ops.is_empty() {
        commit::commit_confined(&direct, &mut Pins::default(), ops, options)?;
    }
    make_dirs(&direct, overlay, &entries)?;
    checkpoints.after(&written);
    let accepted: Vec<Value> = changes(&overlay.entries())
        .into_iter()
        .filter(|c| entries.contains_key(&c.path))
        .map(|c| json!({ "path": c.path, "kind": c.kind.as_str() }))
        .collect();
    let keys: Vec<String> = entries.keys().cloned().collect();
    overlay.forget_locked(&writer, &keys).map_err(scope_fail)?;
    Ok(json!({ "accepted": accepted, "conflicts": [] }))
}

/// The commit operations for `entries` against the disk as it is (`present`: a regular file
/// is there now): a staged write becomes a modify or a create, a deletion a delete (nothing
/// when the file is gone already), a move whose source is still there a rename that carries
/// the source's mode.
fn ops_of(
    overlay: &Overlay,
    entries: &BTreeMap<String, Entry>,
    present: &BTreeMap<String, bool>,
) -> ToolResult<Vec<commit::Op>> {
    let mut ops = Vec::new();
    let mut moved_sources = Vec::new();
    for (rel, e) in entries {
        let Staged::Write { blob, .. } = &e.staged else {
            continue;
        };
        let bytes =
            std::fs::read(overlay.blob_path(blob)).map_err(|err| ToolError::fs(&err, rel))?;
        let path = overlay.abs(rel);
        let source = e
            .from
            .as_ref()
            .filter(|f| entries.get(*f).is_some_and(|s| s.staged == Staged::Delete) && present[*f]);
        match source {
            Some(from) if !present[rel] => {
                moved_sources.push(from.clone());
                ops.push(commit::Op::Move {
                    from: overlay.abs(from),
                    to: path,
                    bytes: Some(bytes),
                });
            }
            _ if present[rel] => ops.push(commit::Op::Modify {
                path,
                bytes,
                mode: None,
            }),
            _ => ops.push(commit::Op::Create {
                path,
                bytes,
                mode: None,
            }),
        }
    }
    for (rel, e) in entries {
        // A directory staged where a file was (removed, then made) replaces the file.
        let replaced = e.staged == Staged::Dir || e.staged == Staged::Delete;
        if replaced && present[rel] && !moved_sources.contains(rel) {
            ops.push(commit::Op::Delete {
                path: overlay.abs(rel),
            });
        }
    }
    Ok(ops)
}

/// Makes the staged directories of `entries` (with their parents), confined and within the
/// write scope as `mkdir` makes them. After the commit: a directory needs no journal (one
/// left behind by a crash is empty and harmless, and `settle` drops its entry).
fn make_dirs(
    direct: &Config,
    overlay: &Overlay,
    entries: &BTreeMap<String, Entry>,
) -> ToolResult<()> {
    for (rel, e) in entries {
        if e.staged != Staged::Dir {
            continue;
        }
        let abs = overlay.abs(rel);
        let (dir, created) = crate::workspace::open_dir_for_write(direct, &abs, rel, true)?;
        crate::workspace::verify_write_scope(direct, &dir, &abs, None, rel)
            .inspect_err(|_| crate::workspace::remove_created(&created))?;
    }
    Ok(())
}

/// Drops the entries whose change the disk already holds: a write whose bytes are there, a
/// deletion of what is gone. Run when a tools object opens, after the commit journal's
/// recovery: a kill between an accept's commit and its update of the manifest leaves the
/// applied changes listed, and they would otherwise show as pending (and conflict, "changed
/// on disk since it was staged") to the restarted host. A commit the kill interrupted was
/// rolled back by then, so its changes stay pending — all of them, or none. Then the blobs
/// no entry names are swept ([`Overlay::sweep`]).
pub fn settle(overlay: &Overlay) {
    let applied: Vec<String> = overlay
        .entries()
        .into_iter()
        .filter(|(rel, e)| {
            let abs = overlay.abs(rel);
            match &e.staged {
                Staged::Delete => matches!(now_at(overlay, rel), Ok(Now::Absent)),
                Staged::Dir => matches!(now_at(overlay, rel), Ok(Now::Dir)),
                Staged::Write { hash, len, .. } => {
                    std::fs::symlink_metadata(&abs).is_ok_and(|m| m.is_file() && m.len() == *len)
                        && matches!(now_at(overlay, rel), Ok(Now::File { hash: h }) if h == *hash)
                }
            }
        })
        .map(|(rel, _)| rel)
        .collect();
    if !applied.is_empty() {
        // Best effort: failing, the entries stay pending, as before.
        let _ = overlay.forget(&applied);
    }
    // Best effort too: a stray blob costs disk space, nothing else.
    let _ = overlay.sweep();
}
