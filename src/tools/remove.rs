//! `remove`: delete one file, through the same all-or-nothing commit as `apply_patch`.

use super::title;
use super::{change_annotations, object_schema, Call, Handler, Output, ToolDef};
use crate::atomic;
use crate::atomic::commit::{self, Op};
use crate::error::{Code, ToolError, ToolResult};
use crate::schema::str_arg;
use crate::workspace;
use serde_json::{json, Map, Value};

const DESCRIPTION: &str = "Delete one file. Files only: directories are refused (use bash for those), and a symlink is refused rather than followed. The deletion is atomic. Use it to remove a file the task made obsolete; to rename use move. Errors: not_found (nothing there: check with list_dir or glob), not_a_file (a directory, FIFO, socket or device), invalid_input (a symlink), path_escape (stay inside the workspace), io_error.";

/// The `remove` tool definition.
pub fn def() -> ToolDef {
    ToolDef {
        name: "remove",
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

fn schema() -> Value {
    object_schema(
        json!({
            "path": { "type": "string", "description": "The file to delete, relative to the workspace root or absolute." }
        }),
        &["path"],
    )
}

fn run(call: &Call) -> ToolResult<Output> {
    let input = str_arg(&call.args, "path").unwrap_or_default();
    let abs = workspace::resolve_write(&call.config, input)?;
    let shown = workspace::display(&call.config, &abs);
    let _lock = atomic::lock_paths(std::slice::from_ref(&abs));
    let Some(meta) = atomic::check_target(&call.config, &abs, &shown)? else {
        return Err(
            ToolError::new(Code::NotFound, format!("No such file: {shown}"))
                .with("path", shown.as_str()),
        );
    };
    if meta.is_dir() {
        return Err(ToolError::new(
            Code::NotAFile,
            format!("Path is a directory (files only): {shown}"),
        )
        .with("path", shown.as_str()));
    }
    if call.cancel.is_cancelled() {
        return Err(ToolError::aborted());
    }
    if let Some(overlay) = atomic::staging::overlay(&call.config) {
        call.before_write(std::slice::from_ref(&abs));
        overlay.stage_delete(&abs, &shown)?;
        call.after_write(std::slice::from_ref(&abs));
        return Ok(Output::text(format!("Removed {shown}.")));
    }
    // Through a verified handle on the parent, like every other writer.
    let parent = abs.parent().unwrap_or(std::path::Path::new("/"));
    let dir = workspace::open_dir_confined(&call.config, parent, &shown)?;
    workspace::verify_write_scope(&call.config, &dir, parent, abs.file_name(), &shown)?;
    let target = super::endpoints::via(&dir, &abs);
    call.before_write(std::slice::from_ref(&abs));
    commit::commit(&[Op::Delete { path: target }], None, &|_| shown.clone())?;
    call.after_write(std::slice::from_ref(&abs));
    Ok(Output::text(format!("Removed {shown}.")))
}

/// The call's title (`describeCall`): what a progress list or an approval prompt shows.
pub fn title(args: &Map<String, Value>) -> String {
    format!("Delete {}", title::path(args, "path", "a file"))
}
