//! `checkpoint_list` (opt-in, see [`super::CHECKPOINT_TOOLS`]): the host's
//! `tools.checkpoints()` as a tool.

use super::{object_schema, read_annotations, Call, Handler, Output, ToolDef};
use crate::error::{ToolError, ToolResult};
use serde_json::{json, Map, Value};

const DESCRIPTION: &str =
    "List the live checkpoints, oldest first: [{id, label, createdAt, paths}].";

/// The `checkpoint_list` tool definition.
pub fn def() -> ToolDef {
    ToolDef {
        name: "checkpoint_list",
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
    object_schema(json!({}), &[])
}

fn run(call: &Call) -> ToolResult<Output> {
    Ok(Output::text(
        crate::checkpoint::api::list_json(&call.runtime.checkpoints).to_string(),
    ))
}

/// The call's title (`describeCall`): what a progress list or an approval prompt shows.
pub fn title(_args: &Map<String, Value>) -> String {
    "List checkpoints".into()
}
