//! `write_file`: create or overwrite a whole file, atomically, with exactly the given content.
//!
//! The content is written verbatim as UTF-8: nothing of the replaced file (line endings, BOM)
//! is carried over, except its permission bits. Missing parent directories are created.

use super::title;
use super::{object_schema, Annotations, Call, Handler, Output, ToolDef};
use crate::atomic;
use crate::error::{Code, ToolError, ToolResult};
use crate::schema::str_arg;
use crate::syntax::Written;
use crate::{text, workspace};
use serde_json::{json, Map, Value};
use std::path::Path;

const DESCRIPTION: &str = "Create a new file, or replace an existing file's entire content, with exactly the given content (written verbatim as UTF-8; the write is atomic, so the file is never left half-written; an existing file keeps its permission bits). Missing parent directories are created. Use it for new files or complete rewrites. To change part of an existing file use edit_file (one replacement) or multi_edit (several) instead: they keep the rest of the file, its line endings and BOM untouched, and cost far fewer tokens. Errors: not_a_file (the path is a directory, a FIFO, socket or device, or a parent component is a file: choose another path), invalid_input (the path is a symlink: write to its target instead), path_escape (stay inside the workspace), io_error (e.g. permission denied).";

/// The `write_file` tool definition.
pub fn def() -> ToolDef {
    ToolDef {
        name: "write_file",
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
            "path": { "type": "string", "description": "File to write, relative to the workspace root or absolute." },
            "content": { "type": "string", "description": "The complete new content of the file, exactly as it should be on disk." }
        }),
        &["path", "content"],
    )
}

/// The prior content as `meta.diff` compares it: decoded UTF-8 with the BOM stripped and
/// line endings normalised; `None` for a file that is new, UTF-16 or not UTF-8, binary,
/// over `maxFileBytes` or unreadable (then there is no diff).
fn prior_text(call: &Call, abs: &Path, input: &str) -> Option<String> {
    let bytes = text::load(&call.config, abs, input).ok()?;
    let body = match text::detect_bom(&bytes) {
        text::Encoding::Utf8 => &bytes[..],
        text::Encoding::Utf8Bom => &bytes[3..],
        _ => return None,
    };
    let decoded = std::str::from_utf8(body).ok()?;
    let prior = text::normalize_eol(decoded).into_owned();
    // `meta.diff` quotes the replaced file.
    call.redaction.learn(&prior);
    Some(prior)
}

fn run(call: &Call) -> ToolResult<Output> {
    let input = str_arg(&call.args, "path").unwrap_or_default();
    let content = str_arg(&call.args, "content").unwrap_or_default();
    let abs = workspace::resolve_write(&call.config, input)?;
    let _lock = atomic::lock_paths(std::slice::from_ref(&abs));
    let existing = atomic::check_target(&call.config, &abs, input)?;
    if existing.as_ref().is_some_and(|m| m.is_dir()) {
        return Err(
            ToolError::new(Code::NotAFile, format!("Path is a directory: {input}"))
                .with("path", input),
        );
    }
    if call.cancel.is_cancelled() {
        return Err(ToolError::aborted());
    }
    if existing.as_ref().is_some_and(|m| m.is_file()) {
        call.refuse_stale(&abs, &workspace::display(&call.config, &abs), input)?;
    }
    // The parent is opened (and made, when missing) through verified directory handles, and
    // the write goes through that handle: a parent swapped for a symlink mid-call cannot move
    // the file, or a new directory, out of the workspace.
    // Only for meta.diff, which 0.1 results do not carry.
    let prior = existing
        .as_ref()
        .filter(|m| m.is_file() && call.config.compat != crate::config::Compat::V01)
        .and_then(|_| prior_text(call, &abs, input));
    // Review mode makes no directory: the staged write is all there is until accepted.
    let parent = abs.parent().unwrap_or(Path::new("/"));
    let opened = match atomic::staging::overlay(&call.config) {
        Some(_) => None,
        None => {
            let (dir, created_dirs) =
                workspace::open_dir_for_write(&call.config, parent, input, existing.is_none())?;
            workspace::verify_write_scope(&call.config, &dir, parent, abs.file_name(), input)
                .inspect_err(|_| super::endpoints::remove_created(&created_dirs))?;
            Some((dir, created_dirs))
        }
    };
    let shown = workspace::display(&call.config, &abs);
    let (created, warning) = crate::syntax::write_warning_during(
        &call.config,
        &shown,
        Written::Bytes(content.as_bytes()),
        || {
            call.before_write(std::slice::from_ref(&abs));
            let created = match &opened {
                Some((dir, created_dirs)) => {
                    atomic::write_file_in(dir, &abs, content.as_bytes(), input)
                        // Leave the tree as it was: remove the directories this call made.
                        .inspect_err(|_| super::endpoints::remove_created(created_dirs))?
                }
                None => atomic::write_file_confined(&call.config, &abs, content.as_bytes(), input)?,
            };
            call.after_write(std::slice::from_ref(&abs));
            ToolResult::Ok(created)
        },
    );
    let created = created?;
    let mut msg = format!(
        "Wrote {} bytes to {} ({}).",
        content.len(),
        shown,
        if created { "created" } else { "overwritten" }
    );
    msg.push_str(&warning);
    let out = Output::text(msg);
    Ok(match prior.filter(|_| !created) {
        Some(before) => super::edit_file::with_diff(call, out, &shown, &before, content),
        None => out,
    })
}

/// The call's title (`describeCall`): what a progress list or an approval prompt shows.
pub fn title(args: &Map<String, Value>) -> String {
    format!("Write {}", title::path(args, "path", "a file"))
}
