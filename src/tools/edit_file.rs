//! `edit_file`: (being implemented).

use super::{object_schema, Annotations, Call, Handler, ToolDef};
use crate::error::{Code, ToolError, ToolResult};
use serde_json::{json, Value};

/// The `edit_file` tool definition.
pub fn def() -> ToolDef {
    ToolDef {
        name: "edit_file",
        description: "edit_file",
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
    }
}

fn schema() -> Value {
    object_schema(
        json!({
            "path": {"type": "string"},
            "old_string": {"type": "string", "minLength": 1},
            "new_string": {"type": "string"},
            "replace_all": {"type": "boolean", "default": false}
        }),
        &["path", "old_string", "new_string"],
    )
}

fn run(_call: &Call) -> ToolResult<String> {
    Err(ToolError::new(
        Code::Internal,
        "edit_file is not implemented yet",
    ))
}
