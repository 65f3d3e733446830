//! The commit as every workspace writer runs it: confined by descriptor.
//!
//! [`super::commit_with`] works on whatever paths it is given. A writer first pins the
//! directory of each path through verified handles ([`Pins`]): the directory must lie inside
//! the root and the path inside the write scope, judged by the opened handle, and the
//! missing parents of a new file are made one at a time inside handles already verified.
//! The operations then name their files through those handles (`/proc/self/fd/<n>/<name>`
//! on Linux), so no step — staging, backups, renames, deletes, rollback — can be redirected
//! by a directory swapped for a symlink after the checks. `apply_patch`, `replace`, and
//! checkpoint restore (and with it `undo`) commit this way.

use super::{commit_with, Op, Options, PathMap};
use crate::config::Config;
use crate::error::ToolResult;
use crate::workspace::{self, Pins};
use std::path::PathBuf;

/// Pins every path of `ops` into `pins` and commits them (see the module doc). `options`
/// carries the journal root and test hooks; the journal records workspace paths, and
/// messages name display paths. When pinning or the commit fails, the directories pinning
/// made are removed again. `pins` may already hold directories the caller pinned (so their
/// refusal came before anything was touched); it stays usable after the commit.
pub fn commit_confined(
    config: &Config,
    pins: &mut Pins,
    ops: Vec<Op>,
    options: Options,
) -> ToolResult<()> {
    if let Some(overlay) = crate::atomic::staging::overlay(config) {
        return crate::atomic::staging::stage_ops(&overlay, &ops, &|p| p.to_path_buf(), &|p| {
            workspace::display(config, p)
        });
    }
    let pinned = pin_ops(config, pins, ops)?;
    commit_pinned(config, pins, &pinned, options)
}

/// The first half of [`commit_confined`]: `ops` with every path pinned (errors are the
/// checks' own: `path_escape`, `not_a_file`…); the directories made for them are removed
/// again on failure.
pub fn pin_ops(config: &Config, pins: &mut Pins, ops: Vec<Op>) -> ToolResult<Vec<Op>> {
    ops.into_iter()
        .map(|op| pin(config, pins, op))
        .collect::<ToolResult<Vec<Op>>>()
        .inspect_err(|_| pins.remove_created())
}

/// The second half of [`commit_confined`]: commits operations [`pin_ops`] returned.
pub fn commit_pinned(
    config: &Config,
    pins: &Pins,
    pinned: &[Op],
    options: Options,
) -> ToolResult<()> {
    if let Some(overlay) = crate::atomic::staging::overlay(config) {
        return crate::atomic::staging::stage_ops(&overlay, pinned, &|p| pins.original(p), &|p| {
            workspace::display(config, &pins.original(p))
        });
    }
    let options = Options {
        journal_paths: Some(PathMap::new(pins.unpinner())),
        created_dirs: pins.created().to_vec(),
        ..options
    };
    commit_with(pinned, &options, &|p| {
        workspace::display(config, &pins.original(p))
    })
    .inspect_err(|_| pins.remove_created())
}

/// `op` with each path rewritten through its pinned directory; a new file's (or a move's
/// destination's) missing parents are made.
fn pin(config: &Config, pins: &mut Pins, op: Op) -> ToolResult<Op> {
    let mut at = |path: PathBuf, create: bool| {
        let shown = workspace::display(config, &path);
        pins.pin(config, &path, &shown, create)
    };
    Ok(match op {
        Op::Modify { path, bytes, mode } => Op::Modify {
            path: at(path, false)?,
            bytes,
            mode,
        },
        Op::Create { path, bytes, mode } => Op::Create {
            path: at(path, true)?,
            bytes,
            mode,
        },
        Op::Delete { path } => Op::Delete {
            path: at(path, false)?,
        },
        Op::Move { from, to, bytes } => Op::Move {
            from: at(from, false)?,
            to: at(to, true)?,
            bytes,
        },
    })
}
