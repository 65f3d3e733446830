//! `review_accept` (opt-in, see [`super::REVIEW_TOOLS`]): the host's `tools.accept(paths?,
//! { force })` as a tool, for a host that reaches the tools only over MCP.

use super::title;
use super::{object_schema, Annotations, Call, Handler, Output, ToolDef};
use crate::error::{ToolError, ToolResult};
use crate::schema::bool_arg;
use serde_json::{json, Map, Value};

const DESCRIPTION: &str = "Review mode: apply staged changes to the workspace, all or nothing. Files changed on disk since they were staged are reported as conflicts and nothing is applied unless force is true (a symlink in the way is never written through). Returns {accepted, conflicts}.";

/// The `review_accept` tool definition.
pub fn def() -> ToolDef {
    ToolDef {
        name: "review_accept",
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
    object_schema(
        json!({
            "paths": {"type": "array", "items": {"type": "string"}, "description": "Only these paths (default: every staged change). A move travels whole."},
            "force": {"type": "boolean", "description": "Overwrite files changed on disk since they were staged."}
        }),
        &[],
    )
}

fn run(call: &Call) -> ToolResult<Output> {
    let staging = call.runtime.review_staging()?;
    let paths = crate::review::paths_arg(&call.args);
    let force = bool_arg(&call.args, "force").unwrap_or(false);
    let report = crate::review::accept(
        &call.config,
        staging,
        &call.runtime.checkpoints,
        paths.as_deref(),
        force,
    )?;
    Ok(Output::text(report.to_string()))
}

/// The call's title (`describeCall`): what a progress list or an approval prompt shows.
pub fn title(args: &Map<String, Value>) -> String {
    match title::strings(args, "paths").len() {
        0 => "Accept all staged changes".into(),
        n => format!("Accept {}", title::count(n, "staged path")),
    }
}
