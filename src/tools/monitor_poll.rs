//! `monitor_poll`: a monitor's new output since an offset, whether it still runs, its exit code.

use super::{object_schema, Annotations, Call, Handler, Output, ToolDef};
use crate::error::{Code, ToolError, ToolResult};
use crate::jsregex::JsRegex;
use crate::process::monitor;
use crate::schema::{int_arg, str_arg};
use serde_json::{json, Value};

const DESCRIPTION: &str = "Read a background command's output (see monitor_start): JSON {running, output, next_offset, exit_code}. Pass the previous next_offset as `offset` to get only what is new; a line still being written is held back until it is complete. `match` (a JavaScript regex) keeps only the matching lines, e.g. `error|warn`. When more output is waiting than one page holds, the output ends with `[... more output buffered; continue with offset=N ...]`. exit_code is set once the process has exited on its own (null while running or after monitor_stop). Errors: monitor_not_found (unknown id: see monitor_list), invalid_input (bad match regex).";

/// The annotations of the monitor tools that only look (they still sit with the other
/// monitor tools, off the read-only surface, as in the original).
pub const LOOK: Annotations = Annotations {
    read_only: false,
    destructive: false,
    idempotent: true,
    open_world: false,
};

/// The `monitor_poll` tool definition.
pub fn def() -> ToolDef {
    ToolDef {
        name: "monitor_poll",
        description: DESCRIPTION,
        schema,
        bounded: true,
        annotations: LOOK,
        handler: Handler::Blocking(run),
        aborted: ToolError::aborted,
        syntax: false,
    }
}

fn schema() -> Value {
    object_schema(
        json!({
            "id": { "type": "string", "description": "The monitor id from monitor_start (mon_…)." },
            "offset": { "type": "integer", "minimum": 0, "default": 0, "description": "Byte offset to read from: the next_offset of the previous poll (0 = from the start)." },
            "match": { "type": "string", "description": "JavaScript regex: keep only the lines that match." }
        }),
        &["id"],
    )
}

/// `monitor_not_found` for an id with no (readable) sidecar.
pub fn not_found(id: &str) -> ToolError {
    ToolError::new(Code::MonitorNotFound, format!("No such monitor: {id}")).with("id", id)
}

fn run(call: &Call) -> ToolResult<Output> {
    let root = &call.config.workspace_root;
    let id = str_arg(&call.args, "id").unwrap_or_default();
    let s = monitor::load(root, id).ok_or_else(|| not_found(id))?;
    let filter = match str_arg(&call.args, "match") {
        Some(p) => Some(JsRegex::new(p, "").map_err(|e| {
            ToolError::invalid(format!("Invalid match regex: {e}")).with("match", p)
        })?),
        None => None,
    };
    let offset = u64::try_from(int_arg(&call.args, "offset").unwrap_or(0)).unwrap_or(0);
    let p = monitor::poll(
        root,
        &s,
        offset,
        call.config.max_output_bytes,
        filter.as_ref(),
    );
    let mut v = json!({"running": p.running, "output": p.output, "next_offset": p.next_offset, "exit_code": p.exit_code});
    if p.dropped > 0 {
        // Only then: the original's four keys stay exact otherwise.
        v["dropped"] = p.dropped.into();
    }
    Ok(Output::text(v.to_string()))
}
