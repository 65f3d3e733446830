//! `monitor_list`: every monitor of the workspace, running or finished, newest first.

use super::monitor_poll::LOOK;
use super::{object_schema, Call, Handler, Output, ToolDef};
use crate::error::{ToolError, ToolResult};
use crate::process::monitor;
use serde_json::{json, Map, Value};

const DESCRIPTION: &str = "List the background commands started with monitor_start, newest first: JSON {monitors: [{id, command, running, started_at (epoch ms), cwd}]}. Finished monitors stay listed until monitor_stop removes them; one on a terminal has \"tty\": true. Use it to find a lost id or to see what is still running before starting another.";

/// The `monitor_list` tool definition.
pub fn def() -> ToolDef {
    ToolDef {
        name: "monitor_list",
        description: DESCRIPTION,
        schema,
        bounded: true,
        annotations: LOOK,
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
    let root = &call.config.workspace_root;
    let monitors: Vec<Value> = monitor::list(root)
        .iter()
        .map(|s| {
            let mut m = json!({"id": s.id, "command": s.command, "running": monitor::running(root, s),
                "started_at": s.started_at, "cwd": s.cwd});
            // Only for a terminal monitor, so the original's entries stay exact.
            if s.input.terminal().is_some() {
                m["tty"] = json!(true);
            }
            m
        })
        .collect();
    Ok(Output::text(json!({ "monitors": monitors }).to_string()))
}

/// The call's title (`describeCall`): what a progress list or an approval prompt shows.
pub fn title(_args: &Map<String, Value>) -> String {
    "List monitors".into()
}
