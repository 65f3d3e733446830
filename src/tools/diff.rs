//! `diff`: a unified diff between two text files of the workspace (decoded and with line
//! endings normalised, so a CRLF-only difference is no difference).

use super::title;
use super::{object_schema, read_annotations, Call, Handler, Output, ToolDef};
use crate::error::{ToolError, ToolResult};
use crate::schema::str_arg;
use crate::{text, textdiff, workspace};
use serde_json::{json, Map, Value};

const DESCRIPTION: &str = "Compare two text files and get a unified diff (`--- from`, `+++ to`, `@@` hunks with 3 lines of context), or `(no differences)`. Files are compared as decoded text with line endings normalised, so files that differ only in CRLF vs LF or a byte-order mark are reported as identical. Use it to compare a file with its backup or a generated copy, or two variants of a config; use grep to find text, read_file to read one file. Errors (for either file): not_found, not_a_file (a directory), is_binary (not a text file), too_large, path_escape.";

/// The `diff` tool definition.
pub fn def() -> ToolDef {
    ToolDef {
        name: "diff",
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
    object_schema(
        json!({
            "from": { "type": "string", "description": "The original file (the `---` side)." },
            "to": { "type": "string", "description": "The changed file (the `+++` side)." }
        }),
        &["from", "to"],
    )
}

/// One operand: its display path and decoded, LF-normalised text.
fn operand(call: &Call, input: &str) -> ToolResult<(String, String)> {
    let abs = workspace::resolve(&call.config, input)?;
    let bytes = text::load(&call.config, &abs, input)?;
    let content = text::decode_text(&bytes).into_owned();
    call.redaction.learn(&content);
    Ok((workspace::display(&call.config, &abs), content))
}

fn run(call: &Call) -> ToolResult<Output> {
    let (from_name, from) = operand(call, str_arg(&call.args, "from").unwrap_or_default())?;
    let (to_name, to) = operand(call, str_arg(&call.args, "to").unwrap_or_default())?;
    if from == to {
        return Ok(Output::text("(no differences)"));
    }
    Ok(Output::text(textdiff::two_files_patch(
        &from_name, &to_name, &from, &to,
    )))
}

/// The call's title (`describeCall`): what a progress list or an approval prompt shows.
pub fn title(args: &Map<String, Value>) -> String {
    format!(
        "Compare {} with {}",
        title::path(args, "from", "a file"),
        title::path(args, "to", "another")
    )
}
