//! `edit_file`: replace one exact occurrence of a string in a file (or every one), with a
//! whitespace-tolerant fallback that only ever applies a unique match.
//!
//! The file is read and decoded first (`open`), so file-level errors win over argument
//! checks; the edit itself is [`crate::edit::apply`]; `save` re-encodes (per-line EOLs,
//! BOM) and writes atomically under the path's lock. multi_edit shares `open` and `save`.

use super::title;
use super::{object_schema, Annotations, Call, Handler, Output, ToolDef};
use crate::atomic::{self, PathGuard};
use crate::edit;
use crate::eol::EditableText;
use crate::error::{ToolError, ToolResult};
use crate::schema::{bool_arg, str_arg};
use crate::syntax::Written;
use crate::{text, workspace};
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};

const DESCRIPTION: &str = "Replace text in an existing file: old_string is matched literally (whitespace, indentation and line breaks included; never regex) and must occur exactly once, unless replace_all is true, in which case every occurrence is replaced. Copy old_string from read_file's output WITHOUT the line-number prefix, and include enough surrounding lines to make it unique. Line endings (CRLF/LF/CR) and a UTF-8 BOM are preserved; match against the text as read_file shows it. If no exact match exists (and replace_all is false), a tolerant search runs (indentation and other whitespace, curly quotes and dashes, a dropped or added blank line, over-escaped \\n / \\\" / doubled backslashes) and is used only when it finds exactly one region: new_string is then re-indented to the file's indentation, lines you left unchanged are kept exactly as the file has them, and the result names the tier and what was adjusted (if it says new_string was inserted verbatim, re-read the region to check its indentation). For several changes to one file prefer multi_edit; to create a file or rewrite it completely use write_file. Errors: no_match (re-read the file and copy the text verbatim; the message names the likely cause — line-number prefixes, whitespace, quote style, escapes — and the closest region with its first differing line), ambiguous_match (add surrounding lines, or set replace_all), invalid_input (old_string equals new_string), not_found (check the path), is_binary (binary, UTF-16 or non-UTF-8 files cannot be edited), too_large, path_escape.";

/// The `edit_file` tool definition.
pub fn def() -> ToolDef {
    ToolDef {
        name: "edit_file",
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
            "old_string": { "type": "string", "minLength": 1, "description": "The exact text to replace, copied from the file (no line-number prefixes)." },
            "new_string": { "type": "string", "description": "The replacement text; must differ from old_string." },
            "replace_all": { "type": "boolean", "default": false, "description": "Replace every exact occurrence instead of requiring exactly one." }
        }),
        &["path", "old_string", "new_string"],
    )
}

/// A file opened for editing: its path, the held lock and its decoded text.
pub(crate) struct Opened {
    pub abs: PathBuf,
    pub file: EditableText,
    _lock: PathGuard,
}

/// Resolves `input`, takes the path's lock (held until the returned value is dropped, so the
/// read-modify-write is serialised with other writers) and loads and decodes the file.
pub(crate) fn open(call: &Call, input: &str) -> ToolResult<Opened> {
    let abs = workspace::resolve_write(&call.config, input)?;
    let lock = atomic::lock_paths(std::slice::from_ref(&abs));
    let bytes = text::load(&call.config, &abs, input)?;
    let file = EditableText::decode(&bytes, input, "Editing")?;
    // Hints and `meta.diff` quote the file: its secrets are judged on all of it.
    call.redaction.learn(&file.text);
    Ok(Opened {
        abs,
        file,
        _lock: lock,
    })
}

/// Re-encodes `new_text` and writes it atomically, unless the call was aborted first.
pub(crate) fn save(
    call: &Call,
    abs: &Path,
    input: &str,
    file: &EditableText,
    new_text: &str,
) -> ToolResult<()> {
    let bytes = file.encode(new_text);
    if call.cancel.is_cancelled() {
        return Err(ToolError::aborted());
    }
    let abs_owned = [abs.to_path_buf()];
    call.before_write(&abs_owned);
    atomic::write_file_confined(&call.config, abs, &bytes, input)?;
    call.after_write(&abs_owned);
    Ok(())
}

fn run(call: &Call) -> ToolResult<Output> {
    let input = str_arg(&call.args, "path").unwrap_or_default();
    let old = str_arg(&call.args, "old_string").unwrap_or_default();
    let new = str_arg(&call.args, "new_string").unwrap_or_default();
    let replace_all = bool_arg(&call.args, "replace_all").unwrap_or(false);
    let opened = open(call, input)?;
    let done = edit::apply(&opened.file.text, old, new, replace_all)?;
    let shown = workspace::display(&call.config, &opened.abs);
    let (saved, warning) = crate::syntax::write_warning_during(
        &call.config,
        &shown,
        Written::Text(&done.text),
        || save(call, &opened.abs, input, &opened.file, &done.text),
    );
    saved?;
    let mut msg = edit::report::edit_file_success(&shown, &done);
    msg.push_str(&warning);
    let out = Output::text(msg);
    Ok(with_diff(call, out, &shown, &opened.file.text, &done.text))
}

/// Sets `meta.diff` (the decoded, LF-normalised text before and after, in jsdiff's
/// `createTwoFilesPatch` form) unless nothing changed. Not computed under `compat: "0.1"`,
/// whose results carry no meta.
pub(crate) fn with_diff(
    call: &Call,
    out: Output,
    shown: &str,
    before: &str,
    after: &str,
) -> Output {
    if call.config.compat == crate::config::Compat::V01 {
        return out;
    }
    match crate::textdiff::file_patch(shown, before, after) {
        Some(d) => {
            call.redaction.learn(after);
            out.with_meta("diff", Value::String(d))
        }
        None => out,
    }
}

/// The call's title (`describeCall`): what a progress list or an approval prompt shows.
pub fn title(args: &Map<String, Value>) -> String {
    let all = if args.get("replace_all") == Some(&Value::Bool(true)) {
        " (every occurrence)"
    } else {
        ""
    };
    format!("Edit {}{all}", title::path(args, "path", "a file"))
}
