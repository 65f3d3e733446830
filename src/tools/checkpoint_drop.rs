//! `checkpoint_drop` (opt-in, see [`super::CHECKPOINT_TOOLS`]): the host's
//! `tools.dropCheckpoint(id)` as a tool.

use super::title;
use super::{object_schema, Annotations, Call, Handler, Output, ToolDef};
use crate::error::{ToolError, ToolResult};
use crate::schema::str_arg;
use serde_json::{json, Map, Value};

const DESCRIPTION: &str = "Free a checkpoint and what it stored.";

/// The `checkpoint_drop` tool definition.
pub fn def() -> ToolDef {
    ToolDef {
        name: "checkpoint_drop",
        description: DESCRIPTION,
        schema,
        bounded: false,
        annotations: Annotations {
            read_only: false,
            destructive: true,
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
    object_schema(json!({"id": {"type": "string"}}), &["id"])
}

fn run(call: &Call) -> ToolResult<Output> {
    let id = str_arg(&call.args, "id").unwrap_or_default();
    call.runtime.checkpoints.drop_checkpoint(id)?;
    Ok(Output::text(json!({ "dropped": true }).to_string()))
}

/// The call's title (`describeCall`): what a progress list or an approval prompt shows.
pub fn title(args: &Map<String, Value>) -> String {
    format!("Drop {}", title::named(args, "id", "checkpoint"))
}
