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
    Symlink,
    Other,
}

fn now_at(abs: &std::path::Path) -> std::io::Result<Now> {
    match std::fs::symlink_metadata(abs) {
        Ok(m) if m.file_type().is_symlink() => Ok(Now::Symlink),
        Ok(m) if m.is_file() => Ok(Now::File {
            hash: blake3::hash(&std::fs::read(abs)?).to_hex().to_string(),
        }),
        Ok(_) => Ok(Now::Other),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Now::Absent),
        Err(e) if crate::error::errno(&e) == Some(libc::ENOTDIR) => Ok(Now::Absent),
        Err(e) => Err(e),
    }
}

/// Why `now` conflicts with `entry`'s base: `(reason, whether force may override it)`.
fn conflict(entry: &Entry, now: &Now) -> Option<(&'static str, bool)> {
    match (now, &entry.base) {
        (Now::Symlink, _) => Some(("replaced by a symlink since it was staged", false)),
        (Now::Other, _) => Some(("not a regular file on disk", false)),
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
    let direct = Config {
        review: None,
        ..config.clone()
    };
    let entries = overlay.entries();
    let chosen = select(config, overlay, &entries, paths)?;
    let abs_paths: Vec<PathBuf> = chosen.iter().map(|r| overlay.abs(r)).collect();
    let _locks = atomic::lock_paths(&abs_paths);
    // Read again under the locks: another accept of this scope may have run meanwhile.
    let entries: BTreeMap<String, Entry> = overlay
        .entries()
        .into_iter()
        .filter(|(k, _)| chosen.contains(k))
        .collect();
    let mut conflicts = Vec::new();
    let mut present = BTreeMap::new();
    for (rel, e) in &entries {
        let now = now_at(&overlay.abs(rel)).map_err(|err| ToolError::fs(&err, rel))?;
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
    checkpoints.after(&written);
    let accepted: Vec<Value> = changes(&overlay.entries())
        .into_iter()
        .filter(|c| entries.contains_key(&c.path))
        .map(|c| json!({ "path": c.path, "kind": c.kind.as_str() }))
        .collect();
    let keys: Vec<String> = entries.keys().cloned().collect();
    overlay
        .forget(&keys)
        .map_err(|e| ToolError::fs(&e, ".clarvis/review"))?;
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
        if e.staged == Staged::Delete && present[rel] && !moved_sources.contains(rel) {
            ops.push(commit::Op::Delete {
                path: overlay.abs(rel),
            });
        }
    }
    Ok(ops)
}

/// Drops the entries whose change the disk already holds: a write whose bytes are there, a
/// deletion of what is gone. Run when a tools object opens, after the commit journal's
/// recovery: a kill between an accept's commit and its update of the manifest leaves the
/// applied changes listed, and they would otherwise show as pending (and conflict, "changed
/// on disk since it was staged") to the restarted host. A commit the kill interrupted was
/// rolled back by then, so its changes stay pending — all of them, or none.
pub fn settle(overlay: &Overlay) {
    let applied: Vec<String> = overlay
        .entries()
        .into_iter()
        .filter(|(rel, e)| {
            let abs = overlay.abs(rel);
            match &e.staged {
                Staged::Delete => matches!(now_at(&abs), Ok(Now::Absent)),
                Staged::Write { hash, len, .. } => {
                    std::fs::symlink_metadata(&abs).is_ok_and(|m| m.is_file() && m.len() == *len)
                        && matches!(now_at(&abs), Ok(Now::File { hash: h }) if h == *hash)
                }
            }
        })
        .map(|(rel, _)| rel)
        .collect();
    if !applied.is_empty() {
        // Best effort: failing, the entries stay pending, as before.
        let _ = overlay.forget(&applied);
    }
}
