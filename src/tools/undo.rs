//! `undo` (opt-in: only when `toolPolicy.allow` names it): take back the last mutating call
//! made through these tools, through the checkpoint store (`src/checkpoint/`).

use super::{change_annotations, object_schema, Call, Handler, Output, ToolDef};
use crate::checkpoint::LAST_CALL;
use crate::error::{ToolError, ToolResult};
use crate::workspace;
use serde_json::{json, Map, Value};

const DESCRIPTION: &str = "Take back the last change you made with a file tool (write_file, edit_file, multi_edit, apply_patch, replace, move, copy, mkdir, remove): every file it touched is put back as it was just before that call, all or nothing. Only the most recent call can be undone, once. A file that was changed by something else since (a person, a bash command) is left alone and reported. Errors: invalid_input (nothing to undo), io_error (nothing was changed).";

/// The `undo` tool definition.
pub fn def() -> ToolDef {
    ToolDef {
        name: "undo",
        description: DESCRIPTION,
        schema,
        bounded: false,
        annotations: change_annotations(),
        handler: Handler::Blocking(run),
        aborted: ToolError::aborted,
        syntax: false,
        unstaged: false,
    }
}

fn schema() -> Value {
    object_schema(json!({}), &[])
}

fn run(call: &Call) -> ToolResult<Output> {
    let config = &call.config;
    let store = &call.runtime.checkpoints;
    let report = store.restore(config, LAST_CALL, None, false).map_err(|e| {
        if e.code == crate::error::Code::NotFound {
            ToolError::invalid(
                "Nothing to undo: no file-changing call has run since the last undo.",
            )
        } else {
            e
        }
    })?;
    let _ = store.drop_checkpoint(LAST_CALL);
    if report.restored.is_empty() && report.conflicts.is_empty() {
        return Ok(Output::text(
            "Nothing to undo: the last call changed no file.",
        ));
    }
    let mut text = format!(
        "Undid the last change: {} path(s) put back.",
        report.restored.len()
    );
    for (p, kind) in &report.restored {
        text.push_str(&format!(
            "\n  {} {}",
            kind.as_str(),
            workspace::display(config, p)
        ));
    }
    for c in &report.conflicts {
        text.push_str(&format!(
            "\n  left alone: {} ({})",
            workspace::display(config, &c.path),
            c.reason
        ));
    }
    Ok(Output::text(text))
}

/// The call's title (`describeCall`): what a progress list or an approval prompt shows.
pub fn title(_args: &Map<String, Value>) -> String {
    "Undo the last file change".into()
}
