//! `checkpoint_changes` (opt-in, see [`super::CHECKPOINT_TOOLS`]): the host's
//! `tools.changes(id)` as a tool. Its diffs quote files, so it answers through dispatch like
//! every tool: bounded, and masked by `redactSecrets`.

use super::title;
use super::{object_schema, read_annotations, Call, Handler, Output, ToolDef};
use crate::error::{ToolError, ToolResult};
use crate::schema::str_arg;
use serde_json::{json, Map, Value};

const DESCRIPTION: &str =
    "What changed since a checkpoint: [{path, kind, from?, diff?}] with unified diffs.";

/// The `checkpoint_changes` tool definition.
pub fn def() -> ToolDef {
    ToolDef {
        name: "checkpoint_changes",
        description: DESCRIPTION,
        schema,
        bounded: false,
        annotations: read_annotations(),
        handler: Handler::Blocking(run),
        aborted: ToolError::aborted,
        syntax: false,
        unstaged: false,
    }
}

fn schema() -> Value {
    object_schema(json!({"id": {"type": "string"}}), &["id"])
}

fn run(call: &Call) -> ToolResult<Output> {
    let id = str_arg(&call.args, "id").unwrap_or_default();
    let learn = |source: &str| call.redaction.learn(source);
    let changes =
        crate::checkpoint::api::changes_json(&call.runtime.checkpoints, &call.config, id, &learn)?;
    Ok(Output::text(changes.to_string()))
}

/// The call's title (`describeCall`): what a progress list or an approval prompt shows.
pub fn title(args: &Map<String, Value>) -> String {
    format!(
        "Show changes since {}",
        title::named(args, "id", "checkpoint")
    )
}
