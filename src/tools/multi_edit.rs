//! `multi_edit`: (being implemented).

use super::{object_schema, Annotations, Call, Handler, ToolDef};
use crate::error::{Code, ToolError, ToolResult};
use serde_json::{json, Value};

/// The `multi_edit` tool definition.
pub fn def() -> ToolDef {
    ToolDef {
        name: "multi_edit",
        description: "multi_edit",
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
            "edits": {
                "type": "array",
                "minItems": 1,
                "items": {
                    "type": "object",
                    "properties": {
                        "old_string": {"type": "string", "minLength": 1},
                        "new_string": {"type": "string"},
                        "replace_all": {"type": "boolean", "default": false}
                    },
                    "required": ["old_string", "new_string"],
                    "additionalProperties": false
                }
            }
        }),
        &["path", "edits"],
    )
}

fn run(_call: &Call) -> ToolResult<String> {
    Err(ToolError::new(
        Code::Internal,
        "multi_edit is not implemented yet",
    ))
}
