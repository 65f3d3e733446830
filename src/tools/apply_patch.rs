//! `apply_patch`: a unified diff (or a `*** Begin Patch` patch) applied to one or more files
//! atomically. The tool only composes [`crate::patch`]: parse, resolve and lock the paths,
//! check and stage every block in order, then commit all file operations together.

use super::title;
use super::{object_schema, Annotations, Call, Handler, ToolDef};
use crate::atomic::commit::{self, Op};
use crate::error::{ToolError, ToolResult};
use crate::patch::prepare::{self, Change};
use crate::patch::{self, FilePatch};
use crate::schema::str_arg;
use crate::{atomic, workspace};
use serde_json::{json, Map, Value};
use std::path::PathBuf;

const DESCRIPTION: &str = "Apply a patch to one or more files in a single atomic step: every file changes or none does. Use it for coordinated edits across files, for creating, deleting or renaming files, and for many hunks in one file. For one small replacement in one file, edit_file is simpler; to replace a whole file, use write_file.

Formats:
1. Unified diff (as `git diff` or `diff -u` write it): `--- a/path` / `+++ b/path` headers, then `@@ -l,s +l,s @@` hunks whose lines start with ' ' (context), '-' (removed) or '+' (added). The counts in each @@ header must match the hunk's lines exactly. `--- /dev/null` creates a file, `+++ /dev/null` deletes one (its hunks must remove every line), different old and new paths rename (with hunks: rename and edit; `diff --git` with `rename from`/`rename to` and no hunks: a pure rename keeping the bytes). `\\ No newline at end of file` is honoured.
2. `*** Begin Patch` format: `*** Add File: p` followed by '+' lines; `*** Delete File: p`; `*** Update File: p` (optionally `*** Move to: q`) followed by hunks introduced by `@@` or `@@ <a line to search for first>`, with ' ', '-', '+' lines; end with `*** End Patch`. Hunks are found by content, searching forward.

Context and removed lines must match the file exactly (whitespace included), so read the file first and copy lines verbatim; a hunk may sit at a different line than stated (the nearest match wins). Line endings and a UTF-8 BOM are preserved; new files get LF.

Errors: patch_failed (a hunk's lines are not in the file: field `file`, and `hunk` = the 1-based hunk that fits nowhere; re-read the file and regenerate that hunk), invalid_input (malformed patch: fix the detail named; a create over an existing file; a rename onto an existing file; two blocks for the same file: merge them), not_found / not_a_file (check paths with list_dir or glob), is_binary / too_large (use another tool), path_escape (stay inside the workspace), io_error (nothing was changed unless the message says rollback failed).";

/// The `apply_patch` tool definition.
pub fn def() -> ToolDef {
    ToolDef {
        name: "apply_patch",
        description: DESCRIPTION,
        schema,
        bounded: false,
        annotations: Annotations {
            read_only: false,
            destructive: true,
            idempotent: false,
            open_world: false,
        },
        handler: Handler::Blocking(|c| run(c).map(Into::into)),
        aborted: ToolError::aborted,
        syntax: false,
        unstaged: false,
    }
}

fn schema() -> Value {
    object_schema(
        json!({"patch": {"type": "string", "description": "A unified diff spanning one or more files, or a `*** Begin Patch` … `*** End Patch` patch."}}),
        &["patch"],
    )
}

fn run(call: &Call) -> ToolResult<String> {
    let config = &call.config;
    let text = str_arg(&call.args, "patch").unwrap_or_default();
    let mut blocks: Vec<FilePatch> = patch::parse_patch(text)?;
    // A `--- a/x` / `+++ b/x` pair without hunks says nothing.
    blocks.retain(|b| !(b.hunks.is_empty() && b.old_path.is_some() && b.old_path == b.new_path));
    if blocks.is_empty() {
        return Err(ToolError::invalid("Patch contains no applicable hunks"));
    }
    let resolved = prepare::resolve(config, &blocks);
    let paths: Vec<PathBuf> = resolved.iter().flat_map(|r| r.paths().cloned()).collect();
    let _locks = atomic::lock_paths(&paths);
    let mut ops: Vec<Op> = Vec::new();
    let mut changes: Vec<Change> = Vec::new();
    for r in &resolved {
        let (op, change) = prepare::stage(config, r)?;
        if config.refuse_stale_writes {
            refuse_stale(call, r, &op, &change)?;
        }
        ops.extend(op);
        changes.push(change);
    }
    if call.cancel.is_cancelled() {
        return Err(ToolError::aborted());
    }
    // What the syntax warnings check after the commit: created, modified and moved-and-edited
    // files under their (new) display paths; deletes and pure renames are not checked.
    let written: Vec<(String, Vec<u8>)> = ops
        .iter()
        .filter_map(|op| match op {
            Op::Modify { path, bytes, .. } | Op::Create { path, bytes, .. } => Some((path, bytes)),
            Op::Move {
                to,
                bytes: Some(bytes),
                ..
            } => Some((to, bytes)),
            _ => None,
        })
        .filter(|(path, _)| crate::syntax::grammar_for(&path.to_string_lossy()).is_some())
        .map(|(path, bytes)| (workspace::display(config, path), bytes.clone()))
        .collect();
    call.before_write(&paths);
    for op in &ops {
        if let Op::Move { from, to, .. } = op {
            call.before_move(from, to);
        }
    }
    // Every target's directory pinned through verified handles, so no step of the commit
    // can be redirected outside the root by a directory swapped for a symlink mid-call.
    let options = commit::Options::journaled(config);
    commit::commit_confined(config, &mut workspace::Pins::default(), ops, options)?;
    call.after_write(&paths);
    let mut out = summary(&changes);
    out.push_str(&crate::syntax::write_warnings(
        config,
        written
            .iter()
            .map(|(rel, bytes)| (rel.as_str(), crate::syntax::Written::Bytes(bytes))),
    ));
    Ok(out)
}

/// `staleWrites: "refuse"`: a block that deletes an existing file or removes every line of
/// it is refused unless the file holds what the model last saw of it whole.
fn refuse_stale(
    call: &Call,
    r: &prepare::Resolved,
    op: &Option<Op>,
    change: &Change,
) -> ToolResult<()> {
    let target = match op {
        Some(Op::Delete { path }) | Some(Op::Modify { path, .. }) => path,
        _ => return Ok(()),
    };
    let old_lines = prepare::old_lines(&call.config, r);
    if !prepare::replaces_whole(op, change, old_lines) {
        return Ok(());
    }
    let shown = workspace::display(&call.config, target);
    call.refuse_stale(target, &shown, &shown)
}

/// `Applied patch:` and one line per file.
pub fn summary(changes: &[Change]) -> String {
    let mut out = String::from("Applied patch:");
    for c in changes {
        out.push_str("\n  ");
        out.push_str(&match c {
            Change::Modified {
                path,
                added,
                removed,
            } => format!("M {path} (+{added} -{removed})"),
            Change::Added {
                path,
                added,
                removed,
            } => format!("A {path} (+{added} -{removed})"),
            Change::Deleted {
                path,
                added,
                removed,
            } => format!("D {path} (+{added} -{removed})"),
            Change::Renamed {
                from,
                to,
                counts: None,
            } => format!("R {from} -> {to}"),
            Change::Renamed {
                from,
                to,
                counts: Some((a, d)),
            } => format!("R {from} -> {to} (+{a} -{d})"),
        });
    }
    out
}

/// The call's title (`describeCall`): what a progress list or an approval prompt shows.
pub fn title(args: &Map<String, Value>) -> String {
    let Some(text) = title::text(args, "patch") else {
        return "Apply a patch".into();
    };
    let mut names: Vec<String> = Vec::new();
    if let Ok(blocks) = patch::parse_patch(text) {
        for b in &blocks {
            if let Some(n) = b.new_path.as_ref().or(b.old_path.as_ref()) {
                if !names.contains(n) {
                    names.push(n.clone());
                }
            }
        }
    }
    match names.as_slice() {
        [] => "Apply a patch".into(),
        [one] => format!("Patch {}", title::short_path(one)),
        many => format!("Patch {}", title::count(many.len(), "file")),
    }
}
