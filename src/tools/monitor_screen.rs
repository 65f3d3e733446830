//! `monitor_screen`: a terminal monitor's screen as its user would see it.

use super::monitor_poll::{not_found, LOOK};
use super::title;
use super::{object_schema, Call, Handler, Output, ToolDef};
use crate::error::{ToolError, ToolResult};
use crate::process::monitor;
use crate::schema::str_arg;
use serde_json::{json, Map, Value};

const DESCRIPTION: &str = "Read the screen of a program running on a terminal (monitor_start with tty: true), as a person at that terminal would see it: JSON {running, size: {cols, rows}, title, cursor: {row, col, visible} (0-based), alternate_screen (a full-screen program such as top, vim or less is showing), rows: [the text of each screen row, trailing blanks removed], next_offset, exit_code}. Use it for full-screen programs, whose output is a stream of cursor moves that monitor_poll cannot show well; use monitor_write to press keys. Errors: monitor_not_found (unknown id), invalid_input (the monitor has no terminal: read it with monitor_poll).";

/// The `monitor_screen` tool definition.
pub fn def() -> ToolDef {
    ToolDef {
        name: "monitor_screen",
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
    let Some(size) = s.input.terminal() else {
        return Err(ToolError::invalid(format!(
            "{id} has no terminal (it was started without tty): read its output with monitor_poll"
        ))
        .with("id", id));
    };
    let running = monitor::running(root, &s);
    if !running {
        // The last output may still be in the relay's hands: show the final screen.
        monitor::settle(root, &s);
    }
    let entry = call.runtime.terminals.entry(id);
    let mut slot = entry.screen.lock().unwrap_or_else(|p| p.into_inner());
    let screen = monitor::screen::refresh(root, &s, &mut slot);
    let snap = screen.snapshot();
    let exit_code = if running {
        None
    } else {
        monitor::exit_status(root, id).flatten()
    };
    Ok(Output::text(
        json!({
            "running": running,
            "size": {"cols": size.cols, "rows": size.rows},
            "title": snap.title,
            "cursor": {"row": snap.cursor.0, "col": snap.cursor.1, "visible": snap.cursor_visible},
            "alternate_screen": snap.alternate,
            "rows": snap.rows,
            "next_offset": screen.fed,
            "exit_code": exit_code,
        })
        .to_string(),
    ))
}

/// The call's title (`describeCall`): what a progress list or an approval prompt shows.
pub fn title(args: &Map<String, Value>) -> String {
    format!(
        "Look at the screen of {}",
        title::named(args, "id", "monitor")
    )
}
