//! `monitor_stop`: end a monitor's whole process tree and delete its state.

use super::monitor_poll::not_found;
use super::title;
use super::{object_schema, Annotations, Call, Handler, Output, ToolDef};
use crate::error::{ToolError, ToolResult};
use crate::process::monitor;
use crate::schema::str_arg;
use serde_json::{json, Map, Value};
use std::time::Duration;

const DESCRIPTION: &str = "Stop a background command started with monitor_start: it gets SIGTERM, then SIGKILL if it has not exited shortly after, together with every process it started; its log and state are deleted (read what you need with monitor_poll first). Stopping a monitor that already exited just cleans up. Returns {\"stopped\":true,\"id\":...}. Errors: monitor_not_found (unknown id, or already stopped: see monitor_list).";

/// How long SIGTERM gets before SIGKILL, as in the original.
pub const STOP_GRACE: Duration = Duration::from_millis(400);

/// The `monitor_stop` tool definition.
pub fn def() -> ToolDef {
    ToolDef {
        name: "monitor_stop",
        description: DESCRIPTION,
        schema,
        bounded: true,
        annotations: Annotations {
            read_only: false,
            destructive: true,
            idempotent: false,
            open_world: true,
        },
        handler: Handler::Blocking(run),
        aborted: ToolError::aborted,
        syntax: false,
        unstaged: false,
    }
}

fn schema() -> Value {
    object_schema(
        json!({
            "id": { "type": "string", "description": "The monitor id from monitor_start (mon_…)." }
        }),
        &["id"],
    )
}

fn run(call: &Call) -> ToolResult<Output> {
    let root = &call.config.workspace_root;
    let id = str_arg(&call.args, "id").unwrap_or_default();
    let s = monitor::load(root, id).ok_or_else(|| not_found(id))?;
    if monitor::running(root, &s) {
        // `killGraceMs`, when set, applies here as to bash; unset keeps the original's 400 ms.
        let grace = call
            .config
            .kill_grace_ms
            .map_or(STOP_GRACE, Duration::from_millis);
        monitor::stop(&s, grace);
    } else {
        // Exited on its own: its background children may still hold the marker.
        crate::process::group::sweep_marked(&s.id);
    }
    // Review mode: what it wrote is staged by its reaper before it is reaped; return with
    // the changes in `pending()`.
    monitor::captured::await_staged(root, &s);
    // One whose host died before it: staged here, before its marker goes with its files.
    if let Some(staging) = &call.runtime.staging {
        crate::review::commands::adopt_orphans(staging);
    }
    // Its relay exits once the last writer is gone: return when it has.
    monitor::finish_relay(root, &s.id);
    monitor::forget(root, &s.id);
    // The host's end of its input and its screen go with it.
    call.runtime.terminals.forget(&s.id);
    Ok(Output::text(
        json!({"stopped": true, "id": s.id}).to_string(),
    ))
}

/// The call's title (`describeCall`): what a progress list or an approval prompt shows.
pub fn title(args: &Map<String, Value>) -> String {
    format!("Stop {}", title::named(args, "id", "monitor"))
}
