//! `replace_symbol`: replace a definition, found by name, with new source (issue 29).
//!
//! The definition is found in the file as it is when the call runs (so edits elsewhere in
//! the file since the model read it do not matter), replaced from where the new source's
//! first token starts it (see [`crate::symbols::splice`]), re-indented to the file, and
//! written through edit_file's writer path ([`super::symbol_edit`]).

use super::symbol_edit::{notes, run, source_arg, tool_def};
use super::{object_schema, Call, Output, ToolDef};
use crate::error::ToolResult;
use crate::symbols::splice::replace;
use serde_json::{json, Map, Value};

const DESCRIPTION: &str = "Replace one definition (function, method, class, struct, enum, interface, trait, type alias, constant, module-level variable, macro) in a file by its name, instead of matching old_string: pass `symbol` (the name, qualified when the file has several: `Config.load`, `config::load`) and `new_source`, the complete new definition. The whole definition is replaced — from its doc comment, decorators, attributes and `export` down to its last line — starting where your new_source starts: a new_source that begins with a doc comment or decorator replaces the old ones; one that begins at the signature keeps the doc comment, decorators and `export` above it (the result says so). new_source is re-indented to the definition's indentation (give it dedented or as the file shows it; tabs or spaces as the file uses) and written with the file's line endings and encoding, atomically; the result carries the diff and warns when the file no longer parses. The definition is found in the file as it is now, so it may have moved since you read it. Languages: TypeScript/TSX, JavaScript, Python, Go, Rust, Java, C#, C/C++, Ruby, PHP, Bash, PowerShell. Use find_symbol to see the definitions of a name, insert_symbol to add a definition beside another, edit_file for a few lines inside a definition. Errors: no_match (no definition of that name in the file; the message names the closest), ambiguous_match (several definitions of the name: it lists each `path:line`; qualify the name — overloads no qualifier separates are edited with edit_file), invalid_input (an empty new_source, a name that is not an identifier, a language without symbol support, a definition whose extent a syntax error at its edges makes uncertain — edit those lines with edit_file), stale_write (with staleWrites: refuse, the definition's lines were not read as they are now), not_found, is_binary, too_large, path_escape.";

/// The `replace_symbol` tool definition.
pub fn def() -> ToolDef {
    tool_def("replace_symbol", DESCRIPTION, schema, run_call)
}

fn schema() -> Value {
    object_schema(
        json!({
            "path": {"type": "string", "description": "The file holding the definition, relative to the workspace root or absolute."},
            "symbol": {"type": "string", "description": "The definition's name, optionally qualified by its class, module or namespace: `parseConfig`, `Config.load`, `config::load`."},
            "new_source": {"type": "string", "description": "The complete new definition (signature and body; with its doc comment and decorators to replace those too)."}
        }),
        &["path", "symbol", "new_source"],
    )
}

fn run_call(call: &Call) -> ToolResult<Output> {
    let source = source_arg(call, "new_source")?;
    run(
        call,
        true,
        &|parsed, target| replace(parsed, target, source),
        |done| {
            let (a, b) = done.spliced.lines;
            let what = format!(
                "{} `{}`",
                done.target.def.kind.as_str(),
                done.target.qualified
            );
            if done.unchanged {
                return format!(
                    "{what} in {} already reads as new_source: nothing written.",
                    done.shown
                );
            }
            format!(
                "Replaced {what} in {} (now lines {a}-{b}).{}",
                done.shown,
                notes(done, "new_source")
            )
        },
    )
}

/// The call's title (`describeCall`): `Replace "Config.load" in src/config.ts`.
pub fn title(args: &Map<String, Value>) -> String {
    let name =
        super::title::text(args, "symbol").map_or("a definition".into(), super::title::quoted);
    format!(
        "Replace {name} in {}",
        super::title::path(args, "path", "a file")
    )
}
