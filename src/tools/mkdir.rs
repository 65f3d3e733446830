//! `mkdir`: create a directory and its missing parents (`mkdir -p`); idempotent.

use super::title;
use super::{object_schema, Annotations, Call, Handler, Output, ToolDef};
use crate::error::{Code, ToolError, ToolResult};
use crate::schema::str_arg;
use crate::workspace;
use serde_json::{json, Map, Value};

const DESCRIPTION: &str = "Create a directory, with any missing parent directories (like mkdir -p). Creating one that already exists is fine (the result says so). You rarely need it before writing: write_file, copy and move create parent directories themselves. Errors: not_a_file (a file is in the way: at the path itself or at one of its parents), path_escape (stay inside the workspace), io_error (e.g. no permission).";

/// The `mkdir` tool definition.
pub fn def() -> ToolDef {
    ToolDef {
        name: "mkdir",
        description: DESCRIPTION,
        schema,
        bounded: false,
        annotations: Annotations {
            read_only: false,
            destructive: false,
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
            "path": { "type": "string", "description": "The directory to create, relative to the workspace root or absolute." }
        }),
        &["path"],
    )
}

fn run(call: &Call) -> ToolResult<Output> {
    let input = str_arg(&call.args, "path").unwrap_or_default();
    let abs = workspace::resolve_write(&call.config, input)?;
    let shown = workspace::display(&call.config, &abs);
    let _lock = crate::atomic::lock_paths(std::slice::from_ref(&abs));
    match workspace::overlay::stat(&call.config, &abs) {
        Ok(m) if m.is_dir() => {
            // Confined by descriptor like any other use of the path (a directory only the
            // staged tree holds has no handle).
            match workspace::open_dir_confined(&call.config, &abs, &shown) {
                Err(e)
                    if e.code == Code::NotFound
                        && workspace::overlay::is_staged_dir(&call.config, &abs) => {}
                dir => drop(dir?),
            }
            return Ok(Output::text(format!("Directory already exists: {shown}.")));
        }
        Ok(_) => {
            return Err(ToolError::new(
                Code::NotAFile,
                format!("Path exists and is not a directory: {shown}"),
            )
            .with("path", shown.as_str()))
        }
        Err(_) => {}
    }
    if call.cancel.is_cancelled() {
        return Err(ToolError::aborted());
    }
    // Review mode: the directory is staged (accept makes it with its parents); a file in
    // the way at a parent is refused as the real mkdir refuses it.
    if let Some(overlay) = crate::atomic::staging::overlay(&call.config) {
        let mut parent = abs.parent();
        while let Some(d) = parent.filter(|d| d.starts_with(&call.config.workspace_root)) {
            match workspace::overlay::stat(&call.config, d) {
                Ok(m) if m.is_dir() => break,
                Ok(_) => {
                    return Err(
                        ToolError::new(Code::NotAFile, format!("Not a directory: {shown}"))
                            .with("path", shown.as_str()),
                    )
                }
                Err(_) => parent = d.parent(),
            }
        }
        overlay.stage_dir(&abs, &shown)?;
        return Ok(Output::text(format!("Created directory {shown}.")));
    }
    call.before_write(std::slice::from_ref(&abs));
    let (dir, created) =
        workspace::open_dir_for_write(&call.config, &abs, &shown, true).map_err(|e| {
            if e.code == Code::NotAFile {
                ToolError::new(Code::NotAFile, format!("Not a directory: {shown}"))
                    .with("path", shown.as_str())
            } else {
                e
            }
        })?;
    // In the scope by the handle too; what a swapped ancestor led elsewhere is taken back.
    workspace::verify_write_scope(&call.config, &dir, &abs, None, &shown)
        .inspect_err(|_| super::endpoints::remove_created(&created))?;
    call.after_write(std::slice::from_ref(&abs));
    Ok(Output::text(if created.is_empty() {
        format!("Directory already exists: {shown}.")
    } else {
        format!("Created directory {shown}.")
    }))
}

/// The call's title (`describeCall`): what a progress list or an approval prompt shows.
pub fn title(args: &Map<String, Value>) -> String {
    match title::text(args, "path") {
        Some(p) => format!("Create directory {}", title::short_path(p)),
        None => "Create a directory".into(),
    }
}
