//! `write_file`: (being implemented).

use super::{object_schema, Annotations, Call, Handler, ToolDef};
use crate::error::{Code, ToolError, ToolResult};
use serde_json::{json, Value};

/// The `write_file` tool definition.
pub fn def() -> ToolDef {
    ToolDef {
        name: "write_file",
        description: "write_file",
        schema,
        bounded: false,
        annotations: Annotations {
            read_only: false,
            destructive: true,
            idempotent: true,
            open_world: false,
        },
        handler: Handler::Blocking(run),
        aborted: ToolError::aborted,
    }
}

fn schema() -> Value {
    object_schema(
        json!({"path": {"type": "string"}, "content": {"type": "string"}}),
        &["path", "content"],
    )
}

fn run(_call: &Call) -> ToolResult<String> {
    Err(ToolError::new(
        Code::Internal,
        "write_file is not implemented yet",
    ))
}
