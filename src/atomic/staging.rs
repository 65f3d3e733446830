//! Review mode at the writers (SPEC §13): when `config.review` is on, the single-file write
//! and the multi-file commit stage their operations in the scope's staging area
//! ([`crate::workspace::overlay`]) instead of touching the workspace. Everything a tool
//! checks and computes before it writes runs unchanged, so validation, drift handling,
//! syntax warnings and `meta.diff` are those of a real write.

use super::commit::Op;
use crate::config::Config;
use crate::error::{ToolError, ToolResult};
use crate::workspace::overlay::{self, Overlay};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The staging area writes go to, when review is on.
pub fn overlay(config: &Config) -> Option<Arc<Overlay>> {
    overlay::of(config)
}

/// Stages `ops` (paths as the caller gave them, mapped by `original` when they go through
/// pinned handles) as one change; `show` names a path in errors.
pub fn stage_ops(
    overlay: &Overlay,
    ops: &[Op],
    original: &dyn Fn(&Path) -> PathBuf,
    show: &dyn Fn(&Path) -> String,
) -> ToolResult<()> {
    let mut owned: Vec<(PathBuf, Option<Vec<u8>>, Option<PathBuf>)> = Vec::new();
    for op in ops {
        match op {
            Op::Modify { path, bytes, .. } | Op::Create { path, bytes, .. } => {
                owned.push((original(path), Some(bytes.clone()), None));
            }
            Op::Delete { path } => owned.push((original(path), None, None)),
            Op::Move { from, to, bytes } => {
                let (from, to) = (original(from), original(to));
                let bytes = match bytes {
                    Some(b) => b.clone(),
                    None => overlay
                        .current_bytes(&from)
                        .map_err(|e| ToolError::fs(&e, &show(&from)))?,
                };
                owned.push((to, Some(bytes), Some(from.clone())));
                owned.push((from, None, None));
            }
        }
    }
    let changes: Vec<overlay::Change<'_>> = owned
        .iter()
        .map(|(p, b, f)| (p.as_path(), b.as_deref(), f.as_deref()))
        .collect();
    let input = owned.first().map(|(p, _, _)| show(p)).unwrap_or_default();
    overlay.stage(&changes, &input)
}
