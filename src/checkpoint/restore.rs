//! What changed since a checkpoint, and putting it back.
//!
//! A restore is a writer like any other. It is planned under the paths' locks; every path it
//! is about to write, delete or re-create goes through the checks every writer makes —
//! confinement and the write scope (`workspace::check_write`), and the target rule
//! (`atomic::check_target`: no symlink, no FIFO, socket or device) — and then the whole
//! restore is performed as one commit confined by descriptor (`atomic::commit::
//! commit_confined`, as `apply_patch` does): each directory pinned through verified handles
//! (parents it re-creates made inside them), every restored file comes back, or none does,
//! even across a crash (the next start-up rolls the journal back). Permission bits travel
//! with the staged files; directories the agent created are removed afterwards, when empty,
//! through their pinned parents. Nothing is ever read from outside the workspace either: the
//! current state of a path that leads out is "unreadable", never hashed or diffed.

use super::snap::{read_blob, read_now, snapshot, Keep, Meta};
use super::{unknown, Snap, Store};
use crate::atomic;
use crate::atomic::commit::{self, Op};
use crate::config::Config;
use crate::error::{Code, ToolError, ToolResult};
use crate::workspace::{self, Guard, Pins};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// How a path differs from its checkpoint state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeKind {
    /// It did not exist at the checkpoint.
    Created,
    /// Its content or mode changed.
    Modified,
    /// It existed at the checkpoint and is gone.
    Deleted,
    /// It did not exist at the checkpoint; a `move` brought it from another path.
    Moved,
}

impl ChangeKind {
    /// `created`, `modified`, `deleted` or `moved`.
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Created => "created",
            ChangeKind::Modified => "modified",
            ChangeKind::Deleted => "deleted",
            ChangeKind::Moved => "moved",
        }
    }
}

/// One changed path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// The absolute path.
    pub path: PathBuf,
    /// How it changed.
    pub kind: ChangeKind,
    /// For [`ChangeKind::Moved`], where it came from.
    pub from: Option<PathBuf>,
    /// The text before and after (decoded UTF-8, `None` for a missing or binary side), for
    /// the caller's unified diff.
    pub before: Option<String>,
    /// See `before`.
    pub after: Option<String>,
}

/// A path left alone by a restore.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    /// The absolute path.
    pub path: PathBuf,
    /// Why: changed outside the tools, or its checkpoint state is unrecoverable.
    pub reason: String,
}

/// What a restore did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RestoreReport {
    /// Paths put back, with the change that was undone.
    pub restored: Vec<(PathBuf, ChangeKind)>,
    /// Paths left alone.
    pub conflicts: Vec<Conflict>,
}

fn text_of(bytes: &[u8]) -> Option<String> {
    if bytes.contains(&0) {
        return None;
    }
    String::from_utf8(bytes.to_vec()).ok()
}

impl Store {
    fn prior_of(
        &self,
        id: &str,
    ) -> ToolResult<(BTreeMap<PathBuf, Snap>, BTreeMap<PathBuf, PathBuf>)> {
        let st = self.lock();
        let c = st
            .checkpoints
            .iter()
            .find(|c| c.id == id)
            .ok_or_else(|| unknown(id))?;
        let moved = c
            .moved_from
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        Ok((c.prior.clone(), moved))
    }

    fn blob(&self, snap: &Snap) -> ToolResult<Vec<u8>> {
        let Snap::File {
            hash, size, stamp, ..
        } = snap
        else {
            return Ok(Vec::new());
        };
        let objects = self
            .objects
            .get()
            .ok_or_else(|| std::io::Error::other("the checkpoint store holds no content"));
        objects
            .and_then(|o| read_blob(o, hash, *size, *stamp))
            .map_err(|e| {
                ToolError::new(
                    Code::IoError,
                    format!("Checkpoint content is unreadable: {e}"),
                )
            })
    }

    /// The content hash of a snap's file (a linked object is read and hashed).
    fn content_key(&self, snap: &Snap) -> Option<String> {
        match snap {
            Snap::File {
                stamp: None, hash, ..
            } => Some(hash.clone()),
            Snap::File { .. } => self
                .blob(snap)
                .ok()
                .map(|b| blake3::hash(&b).to_hex().to_string()),
            _ => None,
        }
    }

    fn same(&self, a: &Snap, b: &Snap) -> bool {
        match (a, b) {
            (
                Snap::File {
                    mode: m1, size: s1, ..
                },
                Snap::File {
                    mode: m2, size: s2, ..
                },
            ) => m1 == m2 && s1 == s2 && self.content_key(a) == self.content_key(b),
            _ => a == b,
        }
    }

    /// The state at `path` now (content hashed, not stored; unreadable when it leads out of
    /// the workspace).
    fn now_state(&self, path: &Path, guard: &Guard) -> ToolResult<Snap> {
        snapshot(path, guard, Keep::HashOnly)
            .map(|(s, _)| s)
            .map_err(|e| ToolError::fs(&e, &path.to_string_lossy()))
    }

    /// Every path that differs from its state at checkpoint `id`, in path order. Current
    /// contents are read confined to `config`'s workspace: a path that now leads out of it
    /// is listed without its text.
    pub fn changes(&self, config: &Config, id: &str) -> ToolResult<Vec<Change>> {
        let (prior, moved) = self.prior_of(id)?;
        let guard = Guard::new(config);
        let mut out = Vec::new();
        for (path, then) in prior {
            let now = self.now_state(&path, &guard)?;
            let kind = match (&then, &now) {
                (a, b) if self.same(a, b) => continue,
                (Snap::Absent, _) if moved.contains_key(&path) => ChangeKind::Moved,
                (Snap::Absent, _) => ChangeKind::Created,
                (_, Snap::Absent) => ChangeKind::Deleted,
                _ => ChangeKind::Modified,
            };
            let before = match &then {
                Snap::File { .. } => self.blob(&then).ok().and_then(|b| text_of(&b)),
                _ => None,
            };
            let after = match &now {
                Snap::File { .. } => read_now(&path, &guard).and_then(|b| text_of(&b)),
                _ => None,
            };
            out.push(Change {
                from: moved
                    .get(&path)
                    .cloned()
                    .filter(|_| kind == ChangeKind::Moved),
                path,
                kind,
                before,
                after,
            });
        }
        Ok(out)
    }

    /// Puts `paths` (all of the checkpoint's when `None`) back as they were at checkpoint
    /// `id`, as a writer confined by `config` (root, write scope; see the module doc). A
    /// path changed outside the tools since they last wrote it is a conflict and is left
    /// alone unless `force`. A path restore may not write (it leads out of the workspace or
    /// the write scope, or is a symlink, FIFO, socket or device now — `force` or not), or
    /// whose kind changed (a file became a directory), fails the whole restore before
    /// anything is touched.
    pub fn restore(
        &self,
        config: &Config,
        id: &str,
        paths: Option<&[PathBuf]>,
        force: bool,
    ) -> ToolResult<RestoreReport> {
        let (prior, _) = self.prior_of(id)?;
        let wanted: Vec<PathBuf> = match paths {
            None => prior.keys().cloned().collect(),
            Some(p) => p.to_vec(),
        };
        let _locks = atomic::lock_paths(&wanted);
        let ours = self.lock().ours.clone();
        let guard = Guard::new(config);
        let mut report = RestoreReport::default();
        let mut ops = Vec::new();
        let mut dirs = Vec::new();
        for path in &wanted {
            let Some(then) = prior.get(path) else {
                continue;
            };
            let meta = Meta::of(path);
            let now = self.now_state(path, &guard)?;
            if self.same(then, &now) {
                continue;
            }
            if let Snap::Unreadable(why) = then {
                report.conflicts.push(Conflict {
                    path: path.clone(),
                    reason: format!(
                        "unrecoverable: its state at the checkpoint could not be read ({why})"
                    ),
                });
                continue;
            }
            if !force && ours.get(path).copied() != meta {
                report.conflicts.push(Conflict {
                    path: path.clone(),
                    reason: "changed outside the tools since they last wrote it (pass force: true to overwrite)".into(),
                });
                continue;
            }
            // The checks of every writer, on every path this restore writes, deletes or
            // re-creates: what `bash` planted since the checkpoint (a symlink for a parent
            // directory or for the file, a FIFO) cannot lead the restore anywhere.
            let shown = workspace::display(config, path);
            workspace::check_write(config, path, &shown).map_err(refused)?;
            atomic::check_target(config, path, &shown).map_err(refused)?;
            match (then, &now) {
                (Snap::File { mode, .. }, Snap::File { .. }) => {
                    ops.push(Op::Modify {
                        path: path.clone(),
                        bytes: self.blob(then)?,
                        mode: Some(*mode),
                    });
                    report.restored.push((path.clone(), ChangeKind::Modified));
                }
                (Snap::File { mode, .. }, Snap::Absent) => {
                    ops.push(Op::Create {
                        path: path.clone(),
                        bytes: self.blob(then)?,
                        mode: Some(*mode),
                    });
                    report.restored.push((path.clone(), ChangeKind::Deleted));
                }
                (Snap::Absent, Snap::File { .. }) => {
                    ops.push(Op::Delete { path: path.clone() });
                    report.restored.push((path.clone(), ChangeKind::Created));
                }
                (Snap::Absent, Snap::Dir) => dirs.push(path.clone()),
                (then, now) => {
                    return Err(ToolError::invalid(format!(
                        "Cannot restore {}: it was {} at the checkpoint and is {} now; nothing was restored.",
                        path.display(),
                        kind_word(then),
                        kind_word(now)
                    ))
                    .with("path", path.to_string_lossy()));
                }
            }
        }
        // Deepest first, and only when empty: a directory holding anything else stays. Each
        // is pinned before the commit, so its refusal too comes before anything is touched.
        dirs.sort_by_key(|d| std::cmp::Reverse(d.components().count()));
        let mut pins = Pins::default();
        let dir_vias = dirs
            .iter()
            .map(|d| pins.pin(config, d, &workspace::display(config, d), false))
            .collect::<ToolResult<Vec<PathBuf>>>()
            .map_err(refused)?;
        if !ops.is_empty() {
            let pinned = commit::pin_ops(config, &mut pins, ops).map_err(refused)?;
            let options = commit::Options {
                journal_root: (!config.hooks.no_journal).then(|| config.workspace_root.clone()),
                ..commit::Options::default()
            };
            commit::commit_pinned(config, &pins, &pinned, options).map_err(|e| {
                let message = format!("Restore failed; nothing was restored: {}", e.message);
                ToolError { message, ..e }
            })?;
        }
        for (d, via) in dirs.into_iter().zip(dir_vias) {
            if std::fs::remove_dir(&via).is_ok() {
                report.restored.push((d, ChangeKind::Created));
            }
        }
        let touched: Vec<PathBuf> = report.restored.iter().map(|(p, _)| p.clone()).collect();
        self.after(&touched);
        Ok(report)
    }
}

/// A writer's refusal, as the refusal of the whole restore (code and fields kept).
fn refused(e: ToolError) -> ToolError {
    let message = format!("Restore refused; nothing was restored: {}", e.message);
    ToolError { message, ..e }
}

fn kind_word(s: &Snap) -> &'static str {
    match s {
        Snap::Absent => "absent",
        Snap::File { .. } => "a file",
        Snap::Dir => "a directory",
        Snap::Other => "neither a file nor a directory",
        Snap::Unreadable(_) => "unreadable",
    }
}
