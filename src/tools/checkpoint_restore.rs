//! `checkpoint_restore` (opt-in, see [`super::CHECKPOINT_TOOLS`]): the host's
//! `tools.restore(id, { paths?, force? })` as a tool.

use super::title;
use super::{object_schema, Annotations, Call, Handler, Output, ToolDef};
use crate::error::{ToolError, ToolResult};
use crate::schema::{bool_arg, str_arg};
use serde_json::{json, Map, Value};

const DESCRIPTION: &str = "Put files back as they were at a checkpoint, all or nothing. Files changed outside the tools are reported as conflicts and left alone unless force is true. Returns {restored, conflicts}.";

/// The `checkpoint_restore` tool definition.
pub fn def() -> ToolDef {
    ToolDef {
        name: "checkpoint_restore",
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
        unstaged: false,
    }
}

fn schema() -> Value {
    object_schema(
        json!({
            "id": {"type": "string"},
            "paths": {"type": "array", "items": {"type": "string"}, "description": "Only these paths (default: all)."},
            "force": {"type": "boolean", "description": "Overwrite files changed outside the tools too."}
        }),
        &["id"],
    )
}

fn run(call: &Call) -> ToolResult<Output> {
    let id = str_arg(&call.args, "id").unwrap_or_default();
    let paths: Option<Vec<String>> = call.args.get("paths").and_then(Value::as_array).map(|a| {
        a.iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect()
    });
    let force = bool_arg(&call.args, "force").unwrap_or(false);
    let report = crate::checkpoint::api::restore_json(
        &call.runtime.checkpoints,
        &call.config,
        id,
        paths.as_deref(),
        force,
    )?;
    Ok(Output::text(report.to_string()))
}

/// The call's title (`describeCall`): what a progress list or an approval prompt shows.
pub fn title(args: &Map<String, Value>) -> String {
    let checkpoint = title::named(args, "id", "checkpoint");
    match title::strings(args, "paths").len() {
        0 => format!("Restore {checkpoint}"),
        n => format!("Restore {} from {checkpoint}", title::count(n, "path")),
    }
}
