//! `check_syntax`: does a file parse? ERROR and MISSING nodes from the compiled-in
//! tree-sitter grammar, as JSON (LATER.md §3 check_syntax).

use super::title;
use super::{object_schema, read_annotations, Call, Handler, Output, ToolDef};
use crate::error::{ToolError, ToolResult};
use crate::schema::str_arg;
use crate::syntax::{self, Purpose};
use serde_json::{json, Map, Value};

const DESCRIPTION: &str = "Check whether one source file parses, with the tree-sitter grammar for its extension (TypeScript/TSX, JavaScript, Python, Go, Rust, Java, C#, C/C++, Ruby, PHP, Bash, CSS, INI, PowerShell). Returns JSON {path, language, ok, errors: [{kind: \"error\"|\"missing\", line, column, near}], error_count, truncated}: line and column are 1-based (column in UTF-16 code units); near is the offending source line for an error, or the expected token for a missing one; at most 50 errors (truncated says there were more). ok means the file parses, nothing more: it does not type-check or lint. Use it after an edit to confirm the file is still well-formed, or to locate a syntax error a compiler message points near; read_file the reported lines to fix them. Errors: invalid_input (the extension has no grammar: the message lists the supported ones), not_found, not_a_file (a directory), is_binary, too_large (over maxFileBytes, or over the 2000000-byte parse limit), timeout (the parse took over 2 s: check a smaller file), aborted, path_escape, io_error.";

/// The `check_syntax` tool definition.
pub fn def() -> ToolDef {
    ToolDef {
        name: "check_syntax",
        description: DESCRIPTION,
        schema,
        bounded: false,
        annotations: read_annotations(),
        handler: Handler::Blocking(run),
        aborted: ToolError::aborted,
        syntax: true,
        unstaged: false,
    }
}

fn schema() -> Value {
    object_schema(
        json!({
            "path": { "type": "string", "description": "The source file to check, relative to the workspace root or absolute." }
        }),
        &["path"],
    )
}

fn run(call: &Call) -> ToolResult<Output> {
    let input = str_arg(&call.args, "path").unwrap_or_default();
    let (display, facts) =
        syntax::load_facts(&call.config, input, Purpose::Check, Some(&call.cancel))?;
    Ok(Output::text(
        syntax::check_json(&display, &facts).to_string(),
    ))
}

/// The call's title (`describeCall`): what a progress list or an approval prompt shows.
pub fn title(args: &Map<String, Value>) -> String {
    format!(
        "Check the syntax of {}",
        title::path(args, "path", "a file")
    )
}
