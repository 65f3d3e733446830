//! `review_reject` (opt-in, see [`super::REVIEW_TOOLS`]): the host's `tools.reject(paths?)`
//! as a tool, for a host that reaches the tools only over MCP.

use super::title;
use super::{object_schema, Annotations, Call, Handler, Output, ToolDef};
use crate::error::{ToolError, ToolResult};
use serde_json::{json, Map, Value};

const DESCRIPTION: &str =
    "Review mode: drop staged changes without applying them. Returns {rejected}.";

/// The `review_reject` tool definition.
pub fn def() -> ToolDef {
    ToolDef {
        name: "review_reject",
        description: DESCRIPTION,
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
        syntax: false,
        unstaged: true,
    }
}

fn schema() -> Value {
    object_schema(
        json!({
            "paths": {"type": "array", "items": {"type": "string"}, "description": "Only these paths (default: every staged change). A move travels whole."}
        }),
        &[],
    )
}

fn run(call: &Call) -> ToolResult<Output> {
    let staging = call.runtime.review_staging()?;
    let paths = crate::review::paths_arg(&call.args);
    let report = crate::review::reject(&call.config, staging, paths.as_deref())?;
    Ok(Output::text(report.to_string()))
}

/// The call's title (`describeCall`): what a progress list or an approval prompt shows.
pub fn title(args: &Map<String, Value>) -> String {
    match title::strings(args, "paths").len() {
        0 => "Reject all staged changes".into(),
        n => format!("Reject {}", title::count(n, "staged path")),
    }
}
