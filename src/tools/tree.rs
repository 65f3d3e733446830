//! `tree`: a directory's layout as a box-drawing tree, directories first, to a depth.

use super::{object_schema, read_annotations, Call, Handler, Output, ToolDef};
use crate::error::{Code, ToolError, ToolResult};
use crate::schema::{bool_arg, int_arg, str_arg};
use crate::search::policy::Policy;
use crate::text::js_cmp;
use crate::workspace;
use serde_json::{json, Value};
use std::fs::File;
use std::io;
use std::path::Path;
use std::sync::Arc;

const DESCRIPTION: &str = "Show a directory's layout as a tree: directories first (`name/`), then files with their size in bytes (`name<TAB>size`); symlinks are shown as `name@` and never followed. `depth` levels are shown (default 4, at most 20). Files ignored by git (.gitignore, .git/info/exclude, global excludes) and the .git directory are hidden unless respect_gitignore is false. Use it to get oriented in an unfamiliar project or a large directory; use list_dir for one directory's entries, glob to find files by pattern, grep to find text. Errors: not_found (no such directory), not_a_file (the path is a file: use file_stat or read_file), path_escape (stay inside the workspace), io_error (a directory could not be read).";

/// Depth when `depth` is 0 or omitted.
pub const DEFAULT_DEPTH: u64 = 4;
/// Larger depths are clamped to this.
pub const MAX_DEPTH: u64 = 20;

/// The `tree` tool definition.
pub fn def() -> ToolDef {
    ToolDef {
        name: "tree",
        description: DESCRIPTION,
        schema,
        bounded: false,
        annotations: read_annotations(),
        handler: Handler::Blocking(run),
        aborted: ToolError::aborted,
        syntax: false,
    }
}

fn schema() -> Value {
    object_schema(
        json!({
            "path": { "type": "string", "default": ".", "description": "The directory to show (default: the workspace root)." },
            "depth": { "type": "integer", "minimum": 0, "description": "How many levels to show: 1 shows only the directory's own entries. 0 or omitted means 4; values over 20 are treated as 20." },
            "respect_gitignore": { "type": "boolean", "default": true, "description": "Hide git-ignored files and .git (default true)." }
        }),
        &[],
    )
}

/// One entry: its label and, for a directory to descend into, its path.
struct Entry {
    name: String,
    /// The name as the directory holds it (`name` is its lossy UTF-8 form).
    raw: std::ffi::OsString,
    is_dir: bool,
    label: String,
}

struct Walk<'a> {
    call: &'a Call,
    policy: Policy,
    out: String,
}

impl Walk<'_> {
    /// The entries of the open directory `handle` (whose workspace path is `dir`), listed
    /// through the handle so a swapped path component cannot redirect the listing.
    fn entries(&self, handle: &File, dir: &Path) -> ToolResult<Vec<Entry>> {
        let shown = workspace::display(&self.call.config, dir);
        let rd = std::fs::read_dir(workspace::io_path(handle, dir))
            .map_err(|e| ToolError::fs(&e, &shown))?;
        let mut out = Vec::new();
        for item in rd {
            let item = item.map_err(|e| ToolError::fs(&e, &shown))?;
            let Ok(ft) = item.file_type() else { continue };
            let raw = item.file_name();
            let name = raw.to_string_lossy().into_owned();
            let path = dir.join(&raw);
            let is_dir = ft.is_dir();
            if self.policy.hides(&path, is_dir) {
                continue;
            }
            let label = if ft.is_symlink() {
                format!("{name}@")
            } else if is_dir {
                format!("{name}/")
            } else {
                let size = item.metadata().map(|m| m.len()).unwrap_or(0);
                format!("{name}\t{size}")
            };
            out.push(Entry {
                name,
                raw,
                is_dir,
                label,
            });
        }
        out.sort_by(|a, b| {
            b.is_dir
                .cmp(&a.is_dir)
                .then_with(|| js_cmp(&a.name, &b.name))
        });
        Ok(out)
    }

    fn render(&mut self, handle: &File, dir: &Path, prefix: &str, levels: u64) -> ToolResult<()> {
        if self.call.cancel.is_cancelled() {
            return Err(ToolError::aborted());
        }
        let entries = self.entries(handle, dir)?;
        let n = entries.len();
        for (i, e) in entries.into_iter().enumerate() {
            let last = i + 1 == n;
            self.out.push('\n');
            self.out.push_str(prefix);
            self.out.push_str(if last {
                "\u{2514}\u{2500}\u{2500} "
            } else {
                "\u{251c}\u{2500}\u{2500} "
            });
            self.out.push_str(&e.label);
            if e.is_dir && levels > 1 {
                let path = dir.join(&e.raw);
                let sub = match workspace::open_subdir(handle, dir, &e.raw) {
                    Ok(sub) => sub,
                    // Gone or no longer a directory since it was listed (a symlink now, say):
                    // it stays listed as it was, and is not descended.
                    Err(err) if vanished(&err) => continue,
                    Err(err) => {
                        let shown = workspace::display(&self.call.config, &path);
                        return Err(ToolError::fs(&err, &shown));
                    }
                };
                let child = format!("{prefix}{}", if last { "    " } else { "\u{2502}   " });
                self.render(&sub, &path, &child, levels - 1)?;
            }
        }
        Ok(())
    }
}

/// An entry that changed between the listing and the descent.
fn vanished(err: &io::Error) -> bool {
    matches!(
        crate::error::errno(err),
        Some(libc::ENOENT | libc::ENOTDIR | libc::ELOOP)
    )
}

fn run(call: &Call) -> ToolResult<Output> {
    let input = str_arg(&call.args, "path").unwrap_or(".");
    let input = if input.is_empty() { "." } else { input };
    let abs = workspace::resolve(&call.config, input)?;
    let meta = std::fs::metadata(&abs).map_err(|e| ToolError::fs(&e, input))?;
    if !meta.is_dir() {
        return Err(
            ToolError::new(Code::NotAFile, format!("Not a directory: {input}")).with("path", input),
        );
    }
    // Confine the directory itself by descriptor, as list_dir does; the walk descends from
    // this handle with `openat(O_NOFOLLOW)`, never by path.
    let handle = workspace::open_dir_confined(&call.config, &abs, input)?;
    let depth = match int_arg(&call.args, "depth") {
        None | Some(0) => DEFAULT_DEPTH,
        Some(d) => u64::try_from(d).unwrap_or(DEFAULT_DEPTH).min(MAX_DEPTH),
    };
    let respect = bool_arg(&call.args, "respect_gitignore").unwrap_or(true);
    let policy = Policy::new(
        Arc::clone(&call.config),
        &abs,
        respect,
        call.warnings.clone(),
    );
    let root = workspace::display(&call.config, &abs);
    let mut walk = Walk {
        call,
        policy,
        out: root.clone(),
    };
    walk.render(&handle, &abs, "", depth)?;
    if walk.out == root {
        walk.out.push_str("\n(no entries)");
    }
    Ok(Output::text(walk.out))
}
