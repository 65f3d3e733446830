//! `multi_edit`: several edit_file edits on one file, applied in order, all or nothing.
//!
//! Each edit runs on the previous one's result with edit_file's rules. The file is written
//! once, after the last edit; any failing edit writes nothing and is reported with an
//! `edit[<i>]: ` prefix and an `index` field. File-level errors are not prefixed.

use super::edit_file::{open, save};
use super::title;
use super::{object_schema, Annotations, Call, Handler, Output, ToolDef};
use crate::edit;
use crate::error::{ToolError, ToolResult};
use crate::schema::str_arg;
use crate::syntax::Written;
use crate::workspace;
use serde_json::{json, Map, Value};

const DESCRIPTION: &str = "Apply several edits to ONE file in a single atomic call. Each edit is { old_string, new_string, replace_all? } with exactly edit_file's rules (literal match, unique unless replace_all, whitespace-tolerant fallback only for a unique region), and runs on the result of the previous edits, so later edits must match the text as earlier edits left it. Either every edit applies and the file is written once, or nothing is written. Line endings and a UTF-8 BOM are preserved. Prefer it over several edit_file calls on the same file; for edits across files use apply_patch; to rewrite a whole file use write_file. Errors: the failing edit's error (no_match, ambiguous_match, invalid_input) with its message prefixed by edit[<i>] and an index field (0-based): fix that edit and resend the whole batch; file errors (not_found, is_binary, too_large, path_escape) are not prefixed.";

/// The `multi_edit` tool definition.
pub fn def() -> ToolDef {
    ToolDef {
        name: "multi_edit",
        description: DESCRIPTION,
        schema,
        bounded: false,
        annotations: Annotations {
            read_only: false,
            destructive: true,
            idempotent: false,
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
            "path": { "type": "string", "description": "File to edit, relative to the workspace root or absolute." },
            "edits": {
                "type": "array",
                "minItems": 1,
                "description": "Edits applied in order, each on the result of the previous.",
                "items": {
                    "type": "object",
                    "properties": {
                        "old_string": { "type": "string", "minLength": 1, "description": "The exact text to replace." },
                        "new_string": { "type": "string", "description": "The replacement; must differ from old_string." },
                        "replace_all": { "type": "boolean", "default": false, "description": "Replace every exact occurrence." }
                    },
                    "required": ["old_string", "new_string"],
                    "additionalProperties": false
                }
            }
        }),
        &["path", "edits"],
    )
}

/// Marks a per-edit error with the edit's index.
fn at_index(err: ToolError, i: usize) -> ToolError {
    let message = format!("edit[{i}]: {}", err.message);
    ToolError { message, ..err }.with("index", i)
}

fn run(call: &Call) -> ToolResult<Output> {
    let input = str_arg(&call.args, "path").unwrap_or_default();
    let edits = call
        .args
        .get("edits")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let opened = open(call, input)?;
    let mut text = opened.file.text.clone();
    let mut tolerant = Vec::new();
    for (i, e) in edits.iter().enumerate() {
        let field = |k: &str| e.get(k).and_then(Value::as_str).unwrap_or_default();
        let all = e
            .get("replace_all")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        // 0.5 dropped the schema's minLength here; the handler refuses instead.
        if field("old_string").is_empty() {
            return Err(at_index(
                ToolError::invalid("old_string must not be empty."),
                i,
            ));
        }
        let done = edit::apply(&text, field("old_string"), field("new_string"), all)
            .map_err(|err| at_index(err, i))?;
        if let Some(note) = done.note {
            tolerant.push((i, note));
        }
        text = done.text;
    }
    let shown = workspace::display(&call.config, &opened.abs);
    let (saved, warning) =
        crate::syntax::write_warning_during(&call.config, &shown, Written::Text(&text), || {
            save(call, &opened.abs, input, &opened.file, &text)
        });
    saved?;
    let n = edits.len();
    let mut msg = if n == 1 {
        format!("Applied 1 edit to {shown}.")
    } else {
        format!("Applied {n} edits to {shown}.")
    };
    msg.push_str(&edit::report::multi_edit_suffix(&tolerant));
    msg.push_str(&warning);
    Ok(super::edit_file::with_diff(
        call,
        Output::text(msg),
        &shown,
        &opened.file.text,
        &text,
    ))
}

/// The call's title (`describeCall`): what a progress list or an approval prompt shows.
pub fn title(args: &Map<String, Value>) -> String {
    let n = args
        .get("edits")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    let path = title::path(args, "path", "a file");
    match n {
        0 => format!("Edit {path} (several edits)"),
        n => format!("Edit {path} ({})", title::count(n, "edit")),
    }
}
