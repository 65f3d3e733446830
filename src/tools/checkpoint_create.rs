//! `checkpoint_create` (opt-in, see [`super::CHECKPOINT_TOOLS`]): the host's
//! `tools.checkpoint(label?)` as a tool, so an MCP client can mark a point to go back to.

use super::title;
use super::{object_schema, Annotations, Call, Handler, Output, ToolDef};
use crate::error::{ToolError, ToolResult};
use crate::schema::str_arg;
use serde_json::{json, Map, Value};

const DESCRIPTION: &str = "Take a checkpoint of the workspace: every later change made through these tools can be listed with checkpoint_changes and taken back with checkpoint_restore. Returns {\"id\"}.";

/// The `checkpoint_create` tool definition.
pub fn def() -> ToolDef {
    ToolDef {
        name: "checkpoint_create",
        description: DESCRIPTION,
        schema,
        bounded: false,
        // Changes no file, but it is not a read: a read-only surface has nothing to take
        // back, and the annotations stay those the MCP tool always had.
        annotations: Annotations {
            read_only: false,
            destructive: false,
            idempotent: false,
            open_world: false,
        },
        handler: Handler::Blocking(run),
        aborted: ToolError::aborted,
        syntax: false,
        unstaged: true,
    }
}

fn schema() -> Value {
    object_schema(
        json!({"label": {"type": "string", "description": "A name to remember it by."}}),
        &[],
    )
}

fn run(call: &Call) -> ToolResult<Output> {
    let label = str_arg(&call.args, "label").map(str::to_string);
    let id = call.runtime.checkpoints.checkpoint(label)?;
    Ok(Output::text(json!({ "id": id }).to_string()))
}

/// The call's title (`describeCall`): what a progress list or an approval prompt shows.
pub fn title(args: &Map<String, Value>) -> String {
    match title::text(args, "label") {
        Some(l) => format!("Create checkpoint {}", title::quoted(l)),
        None => "Create a checkpoint".into(),
    }
}
