//! `bash`: (being implemented).

use super::{object_schema, Annotations, Call, Handler, ToolDef};
use crate::error::{Code, ToolError, ToolResult};
use serde_json::{json, Value};

/// The `bash` tool definition.
pub fn def() -> ToolDef {
    ToolDef {
        name: "bash",
        description: "bash",
        schema,
        bounded: true,
        annotations: Annotations { read_only: false, destructive: true, idempotent: false, open_world: true },
        handler: Handler::Blocking(run),
        aborted: ToolError::aborted,
    }
}

fn schema() -> Value {
    object_schema(json!({
        "command": {"type": "string"},
        "cwd": {"type": "string"},
        "timeout_ms": {"type": "integer", "minimum": 1}
    }), &["command"])
}

fn run(_call: &Call) -> ToolResult<String> {
    Err(ToolError::new(Code::Internal, "bash is not implemented yet"))
}
