//! `review_pending` (opt-in, see [`super::REVIEW_TOOLS`]): the host's `tools.pending()` as a
//! tool, for a host that reaches the tools only over MCP. Its diffs quote files, so it
//! answers through dispatch like every tool: bounded, and masked by `redactSecrets`.

use super::{object_schema, read_annotations, Call, Handler, Output, ToolDef};
use crate::error::{ToolError, ToolResult};
use serde_json::{json, Map, Value};

const DESCRIPTION: &str = "Review mode: the changes staged for review, [{path, kind, from?, diff?}] (kind: created, modified, deleted or moved), with unified diffs.";

/// The `review_pending` tool definition.
pub fn def() -> ToolDef {
    ToolDef {
        name: "review_pending",
        description: DESCRIPTION,
        schema,
        bounded: false,
        annotations: read_annotations(),
        handler: Handler::Blocking(run),
        aborted: ToolError::aborted,
        syntax: false,
        unstaged: false,
    }
}

fn schema() -> Value {
    object_schema(json!({}), &[])
}

fn run(call: &Call) -> ToolResult<Output> {
    let staging = call.runtime.review_staging()?;
    Ok(Output::text(
        crate::review::pending_json(staging, &call.redaction).to_string(),
    ))
}

/// The call's title (`describeCall`): what a progress list or an approval prompt shows.
pub fn title(_args: &Map<String, Value>) -> String {
    "List staged changes".into()
}
