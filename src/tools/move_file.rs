//! `move`: rename a file within the workspace (bytes, mode and inode kept).

use super::endpoints::{remove_created, via, Endpoints};
use super::title;
use super::{change_annotations, object_schema, Call, Handler, Output, ToolDef};
use crate::atomic;
use crate::error::{ToolError, ToolResult};
use serde_json::{json, Map, Value};

const DESCRIPTION: &str = "Move or rename one file inside the workspace: the file keeps its bytes, permissions and identity; missing parent directories of the destination are created. Refuses to replace an existing file unless overwrite is true. Files only: to move a directory use bash (mv). Use it instead of write_file + delete when renaming, so nothing is re-encoded; use copy to keep the source. Errors: not_found (no such source), not_a_file (the source is a directory, or the destination is one; or either is a FIFO, socket or device), invalid_input (source and destination are the same, the destination exists without overwrite, or a symlink at either end), path_escape (stay inside the workspace), io_error (e.g. the two paths are on different filesystems).";

/// The `move` tool definition.
pub fn def() -> ToolDef {
    ToolDef {
        name: "move",
        description: DESCRIPTION,
        schema,
        bounded: false,
        annotations: change_annotations(),
        handler: Handler::Blocking(run),
        aborted: ToolError::aborted,
        syntax: false,
        unstaged: false,
    }
}

/// The schema `move` and `copy` share.
pub fn transfer_schema() -> Value {
    object_schema(
        json!({
            "source": { "type": "string", "description": "The file to take, relative to the workspace root or absolute." },
            "destination": { "type": "string", "description": "Where it goes (parent directories are created)." },
            "overwrite": { "type": "boolean", "default": false, "description": "Replace an existing file at the destination." }
        }),
        &["source", "destination"],
    )
}

fn schema() -> Value {
    transfer_schema()
}

fn run(call: &Call) -> ToolResult<Output> {
    let ends = Endpoints::check(call, true)?;
    if call.cancel.is_cancelled() {
        return Err(ToolError::aborted());
    }
    if let Some(staged) = ends.staged(call, "Moved") {
        return staged.map(Output::text);
    }
    let (from_dir, to_dir, created) = ends.dirs(call)?;
    call.before_move(&ends.src, &ends.dst);
    let from = via(&from_dir, &ends.src);
    let to = via(&to_dir, &ends.dst);
    atomic::rename_over(&from, &to)
        .map_err(|e| ToolError::fs(&e, &ends.src_shown))
        .inspect_err(|_| remove_created(&created))?;
    // Both directory entries changed: make both durable.
    let _ = atomic::fsync_dir(&to.parent().map(|p| p.to_path_buf()).unwrap_or_default());
    let _ = atomic::fsync_dir(&from.parent().map(|p| p.to_path_buf()).unwrap_or_default());
    call.after_write(&[ends.src.clone(), ends.dst.clone()]);
    Ok(Output::text(ends.message("Moved")))
}

/// The call's title (`describeCall`): what a progress list or an approval prompt shows.
pub fn title(args: &Map<String, Value>) -> String {
    format!(
        "Move {} to {}",
        title::path(args, "source", "a file"),
        title::path(args, "destination", "another path")
    )
}
