//! `glob`: (being implemented).

use super::{object_schema, Annotations, Call, Handler, ToolDef};
use crate::error::{Code, ToolError, ToolResult};
use serde_json::{json, Value};

/// The `glob` tool definition.
pub fn def() -> ToolDef {
    ToolDef {
        name: "glob",
        description: "glob",
        schema,
        bounded: false,
        annotations: super::read_annotations(),
        handler: Handler::Blocking(run),
        aborted: ToolError::aborted,
    }
}

fn schema() -> Value {
    object_schema(
        json!({"pattern": {"type": "string"}, "path": {"type": "string"}, "respect_gitignore": {"type": "boolean", "default": true}}),
        &["pattern"],
    )
}

fn run(_call: &Call) -> ToolResult<String> {
    Err(ToolError::new(
        Code::Internal,
        "glob is not implemented yet",
    ))
}
