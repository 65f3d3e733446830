//! The host-facing checkpoint calls as JSON, with workspace-relative display paths: what
//! `tools.checkpoint`, `tools.changes`, `tools.restore` and `tools.checkpoints` return.

use super::{ChangeKind, Store};
use crate::config::Config;
use crate::error::ToolResult;
use crate::workspace;
use serde_json::{json, Value};
use std::path::PathBuf;

/// `[{ id, label, createdAt, paths }]`, oldest first.
pub fn list_json(store: &Store) -> Value {
    Value::Array(
        store
            .list()
            .into_iter()
            .map(|c| json!({"id": c.id, "label": c.label, "createdAt": c.created_ms, "paths": c.paths}))
            .collect(),
    )
}

/// `[{ path, kind, from?, diff? }]`: every path changed since checkpoint `id` of `store`,
/// with a unified diff in the `meta.diff` format when both sides are text. Each side a diff
/// is cut from goes to `source` first (the `checkpoint_changes` tool hands it to its
/// redaction, which judges a hunk's secrets on the whole file).
pub fn changes_json(
    store: &Store,
    config: &Config,
    id: &str,
    source: &dyn Fn(&str),
) -> ToolResult<Value> {
    let changes = store.changes(config, id)?;
    Ok(Value::Array(
        changes
            .into_iter()
            .map(|c| {
                let rel = workspace::display(config, &c.path);
                let mut o = json!({"path": rel, "kind": c.kind.as_str()});
                if let Some(from) = &c.from {
                    o["from"] = Value::from(workspace::display(config, from));
                }
                let before = c.before.as_deref().unwrap_or("");
                let after = c.after.as_deref().unwrap_or("");
                let text_sides = match c.kind {
                    ChangeKind::Modified => c.before.is_some() && c.after.is_some(),
                    ChangeKind::Created | ChangeKind::Moved => c.after.is_some(),
                    ChangeKind::Deleted => c.before.is_some(),
                };
                if text_sides {
                    source(before);
                    source(after);
                    if let Some(d) = crate::textdiff::file_patch(&rel, before, after) {
                        o["diff"] = Value::from(d);
                    }
                }
                o
            })
            .collect(),
    ))
}

/// The host's `tools.restore(id, { paths?, force? })`: [`restore_json`] on the workspace
/// itself even in review mode — the host decided, as when it accepts (SPEC §13,
/// "Checkpoints"); the model's `undo` and `checkpoint_restore` stage like every writer.
pub fn host_restore_json(
    store: &Store,
    config: &Config,
    id: &str,
    paths: Option<&[String]>,
    force: bool,
) -> ToolResult<Value> {
    restore_json(store, &config.without_review(), id, paths, force)
}

/// Restores checkpoint `id` of `store` (all its paths, or `paths` — workspace-relative or
/// absolute, resolved and confined like any tool path), as a writer confined like the
/// tools ([`super::Store::restore`]). `{ restored: [{path, kind}], conflicts: [{path,
/// reason}] }`, where `kind` is the change that was undone.
pub fn restore_json(
    store: &Store,
    config: &Config,
    id: &str,
    paths: Option<&[String]>,
    force: bool,
) -> ToolResult<Value> {
    let resolved: Option<Vec<PathBuf>> = match paths {
        None => None,
        Some(list) => Some(
            list.iter()
                .map(|p| workspace::resolve(config, p))
                .collect::<ToolResult<Vec<_>>>()?,
        ),
    };
    let report = store.restore(config, id, resolved.as_deref(), force)?;
    let restored: Vec<Value> = report
        .restored
        .iter()
        .map(|(p, k)| json!({"path": workspace::display(config, p), "kind": k.as_str()}))
        .collect();
    let conflicts: Vec<Value> = report
        .conflicts
        .iter()
        .map(|c| json!({"path": workspace::display(config, &c.path), "reason": c.reason}))
        .collect();
    Ok(json!({"restored": restored, "conflicts": conflicts}))
}
