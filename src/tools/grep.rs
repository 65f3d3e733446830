//! `grep`: (being implemented).

use super::{object_schema, Annotations, Call, Handler, ToolDef};
use crate::error::{Code, ToolError, ToolResult};
use serde_json::{json, Value};

/// The `grep` tool definition.
pub fn def() -> ToolDef {
    ToolDef {
        name: "grep",
        description: "grep",
        schema,
        bounded: true,
        annotations: super::read_annotations(),
        handler: Handler::Blocking(run),
        aborted: ToolError::aborted,
    }
}

fn schema() -> Value {
    object_schema(
        json!({
            "pattern": {"type": "string"},
            "path": {"type": "string"},
            "glob": {"type": "string"},
            "output_mode": {"type": "string", "enum": ["files_with_matches", "content", "count"], "default": "files_with_matches"},
            "ignore_case": {"type": "boolean", "default": false},
            "multiline": {"type": "boolean", "default": false},
            "context": {"type": "integer", "minimum": 0, "default": 0},
            "before_context": {"type": "integer", "minimum": 0},
            "after_context": {"type": "integer", "minimum": 0},
            "head_limit": {"type": "integer", "minimum": 1},
            "offset": {"type": "integer", "minimum": 0, "default": 0}
        }),
        &["pattern"],
    )
}

fn run(_call: &Call) -> ToolResult<String> {
    Err(ToolError::new(
        Code::Internal,
        "grep is not implemented yet",
    ))
}
