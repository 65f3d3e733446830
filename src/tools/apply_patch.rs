//! `apply_patch`: (being implemented).

use super::{object_schema, Annotations, Call, Handler, ToolDef};
use crate::error::{Code, ToolError, ToolResult};
use serde_json::{json, Value};

/// The `apply_patch` tool definition.
pub fn def() -> ToolDef {
    ToolDef {
        name: "apply_patch",
        description: "apply_patch",
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
    object_schema(json!({"patch": {"type": "string"}}), &["patch"])
}

fn run(_call: &Call) -> ToolResult<String> {
    Err(ToolError::new(
        Code::Internal,
        "apply_patch is not implemented yet",
    ))
}
