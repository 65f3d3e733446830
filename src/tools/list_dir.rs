//! `list_dir`: the entries of one directory, directories first, then files with sizes.

use super::title;
use super::{object_schema, read_annotations, Call, Handler, ToolDef};
use crate::error::{Code, ToolError, ToolResult};
use crate::schema::str_arg;
use crate::text::js_cmp;
use crate::workspace;
use crate::workspace::overlay::Child;
use serde_json::{json, Map, Value};

const DESCRIPTION: &str = "List the entries of one directory (not recursive). Directories come first, each shown as `name/`; then files as `name<TAB>size in bytes`. Dotfiles are included and no ignore rules apply. Defaults to the workspace root. Use this to see what a directory holds; to find files by name pattern across the tree use glob, and to find files by content use grep. Errors: not_found (check the parent directory), not_a_file (the path is a file: use read_file), path_escape (stay inside the workspace).";

/// The `list_dir` tool definition.
pub fn def() -> ToolDef {
    ToolDef {
        name: "list_dir",
        description: DESCRIPTION,
        schema,
        bounded: false,
        annotations: read_annotations(),
        handler: Handler::Blocking(|c| run(c).map(Into::into)),
        aborted: ToolError::aborted,
        syntax: false,
        unstaged: false,
    }
}

fn schema() -> Value {
    object_schema(
        json!({
            "path": { "type": "string", "description": "Directory to list; defaults to the workspace root." }
        }),
        &[],
    )
}

fn run(call: &Call) -> ToolResult<String> {
    let input = str_arg(&call.args, "path").unwrap_or("");
    let shown = if input.is_empty() { "." } else { input };
    let abs = workspace::resolve(&call.config, input)?;
    // List through the opened, verified directory: the path may be swapped for a symlink
    // to the outside between the resolve above and the read below.
    // Review mode: the staged tree's changes to this directory (one only staged files make
    // has no handle: its entries are theirs).
    let view = workspace::overlay::dir_view(&call.config, &abs);
    let dir = match workspace::open_dir_confined(&call.config, &abs, shown) {
        Err(e)
            if e.code == Code::NotFound
                && (view.is_some() || workspace::overlay::is_staged_dir(&call.config, &abs)) =>
        {
            None
        }
        dir => Some(dir?),
    };
    let mut dirs: Vec<String> = Vec::new();
    let mut files: Vec<(String, u64)> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let entries = match &dir {
        Some(dir) => Some(
            std::fs::read_dir(workspace::io_path(dir, &abs))
                .map_err(|e| ToolError::fs(&e, shown))?,
        ),
        None => None,
    };
    for entry in entries.into_iter().flatten() {
        if call.cancel.is_cancelled() {
            return Err(ToolError::aborted());
        }
        let entry = entry.map_err(|e| ToolError::fs(&e, shown))?;
        let raw = entry.file_name();
        let name = raw.to_string_lossy().into_owned();
        let staged = view.as_ref().and_then(|v| v.get(&raw));
        if staged.is_some() {
            seen.insert(raw);
        }
        // Follow symlinks for the type; a broken link is a file of size 0.
        match staged {
            Some(Child::Deleted) => {}
            Some(Child::File(len)) => files.push((name, len)),
            Some(Child::Dir) => dirs.push(name),
            None => match std::fs::metadata(entry.path()) {
                Ok(m) if m.is_dir() => dirs.push(name),
                Ok(m) => files.push((name, m.len())),
                Err(_) => files.push((name, 0)),
            },
        }
    }
    for (name, child) in view.iter().flat_map(|v| v.added(|n| seen.contains(n))) {
        let name = name.to_string_lossy().into_owned();
        match child {
            Child::File(len) => files.push((name, len)),
            _ => dirs.push(name),
        }
    }
    if dirs.is_empty() && files.is_empty() {
        return Ok("(empty directory)".into());
    }
    dirs.sort_by(|a, b| js_cmp(a, b));
    files.sort_by(|a, b| js_cmp(&a.0, &b.0));
    let mut rows: Vec<String> = dirs.into_iter().map(|d| format!("{d}/")).collect();
    rows.extend(files.into_iter().map(|(f, size)| format!("{f}\t{size}")));
    Ok(rows.join("\n"))
}

/// The call's title (`describeCall`): what a progress list or an approval prompt shows.
pub fn title(args: &Map<String, Value>) -> String {
    format!("List {}", title::path(args, "path", "the workspace root"))
}
