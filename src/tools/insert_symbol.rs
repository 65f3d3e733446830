//! `insert_symbol`: insert new source before or after a definition found by name (issue 29).
//!
//! The anchor is found in the file as it is when the call runs; the source goes above its
//! doc comment and attributes or below its last line, re-indented to it, separated by the
//! blank lines that separate it from its siblings (see [`crate::symbols::splice`]), through
//! edit_file's writer path ([`super::symbol_edit`]).

use super::symbol_edit::{notes, run, source_arg, tool_def};
use super::{object_schema, Call, Output, ToolDef};
use crate::error::{ToolError, ToolResult};
use crate::schema::str_arg;
use crate::symbols::splice::{insert, Position};
use serde_json::{json, Map, Value};

const DESCRIPTION: &str = "Insert new source (a function, method, class, import, constant…) before or after an existing definition found by name: pass `symbol` (the anchor's name, qualified when the file has several: `Config.load`, `config::load`), `position` (`before`: above its doc comment, decorators and attributes; `after`: below its last line) and `source`. The source is re-indented to the anchor's indentation (tabs or spaces as the file uses), separated from it by the blank lines that separate the anchor from its neighbours, and written with the file's line endings and encoding, atomically; the result carries the diff and warns when the file no longer parses. To add a method to a class, anchor on another method of it. The anchor is found in the file as it is now, so it may have moved since you read it. Languages: TypeScript/TSX, JavaScript, Python, Go, Rust, Java, C#, C/C++, Ruby, PHP, Bash, PowerShell. Errors: no_match (no definition of that name in the file; the message names the closest), ambiguous_match (several definitions of the name: it lists each `path:line`; qualify the name), invalid_input (an empty source, a position other than before/after, a name that is not an identifier, a language without symbol support, an anchor whose extent a syntax error at its edges makes uncertain), not_found, is_binary, too_large, path_escape.";

/// The `insert_symbol` tool definition.
pub fn def() -> ToolDef {
    tool_def("insert_symbol", DESCRIPTION, schema, run_call)
}

fn schema() -> Value {
    object_schema(
        json!({
            "path": {"type": "string", "description": "The file holding the anchor definition, relative to the workspace root or absolute."},
            "symbol": {"type": "string", "description": "The anchor definition's name, optionally qualified: `parseConfig`, `Config.load`, `config::load`."},
            "position": {"type": "string", "enum": ["before", "after"], "description": "before: above the anchor (and its doc comment, decorators, attributes); after: below its last line."},
            "source": {"type": "string", "description": "The source to insert: one or more complete definitions."}
        }),
        &["path", "symbol", "position", "source"],
    )
}

fn run_call(call: &Call) -> ToolResult<Output> {
    let position = match str_arg(&call.args, "position").unwrap_or_default() {
        "before" => Position::Before,
        "after" => Position::After,
        other => {
            return Err(ToolError::invalid(format!(
                "position must be \"before\" or \"after\", got: {other}"
            ))
            .with("field", "position"))
        }
    };
    let source = source_arg(call, "source")?;
    run(
        call,
        false,
        &|parsed, target| Ok(insert(parsed, target, source, position)),
        |done| {
            let (a, b) = done.spliced.lines;
            let side = match position {
                Position::Before => "before",
                Position::After => "after",
            };
            format!(
                "Inserted lines {a}-{b} {side} {} `{}` in {}.{}",
                done.target.def.kind.as_str(),
                done.target.qualified,
                done.shown,
                notes(done, "source")
            )
        },
    )
}

/// The call's title (`describeCall`): `Insert after "Config.load" in src/config.ts`.
pub fn title(args: &Map<String, Value>) -> String {
    let side = match super::title::text(args, "position") {
        Some("before") => "before",
        _ => "after",
    };
    let name =
        super::title::text(args, "symbol").map_or("a definition".into(), super::title::quoted);
    format!(
        "Insert {side} {name} in {}",
        super::title::path(args, "path", "a file")
    )
}
