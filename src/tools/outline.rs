//! `outline`: the symbols of a source file (classes, functions, methods…) with their line
//! ranges, from the compiled-in tree-sitter grammars (LATER.md §3 outline).
//!
//! Beyond the original, `paths` outlines several files or whole directories in one call;
//! without it the output is byte-identical to the original's single-file form.

use super::title;
use super::{object_schema, read_annotations, Call, Handler, Output, ToolDef};
use crate::error::{Code, ToolError, ToolResult};
use crate::schema::str_arg;
use crate::search::policy::Policy;
use crate::syntax::{self, outline, Purpose};
use crate::text::js_cmp;
use crate::workspace;
use crate::workspace::overlay::Child;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};

const DESCRIPTION: &str = "Map a source file's structure without reading it whole: one line per class, interface, function, method, type and similar symbol, indented by nesting, each with its 1-based line range, e.g. `  class Server (1-40)` / `    async start(): Promise<void> (5-12)`. Supports TypeScript/TSX, JavaScript, Python, Go, Rust, Java and C#. Use it before read_file on a large file to find the lines you need (then read_file with offset/limit), or to see a module's API. To outline several files or whole directories in one call, pass `paths` (files or directories; directories are searched recursively for supported files, honouring .gitignore): each file's outline follows the previous one, and the result is cut to maxOutputBytes at a file boundary. Ends with a note when the file has syntax errors (the outline may then be incomplete; run check_syntax). Errors: invalid_input (unsupported extension: the message lists the supported languages; check_syntax supports more), not_found, not_a_file (a directory: pass it in `paths`), is_binary, too_large (over maxFileBytes, or over the 2000000-byte parse limit), timeout (parse over 2 s), aborted, path_escape, io_error.";

/// Directory expansion stops after this many files.
const MAX_FILES: usize = 10_000;

/// The `outline` tool definition.
pub fn def() -> ToolDef {
    ToolDef {
        name: "outline",
        description: DESCRIPTION,
        schema,
        bounded: false,
        annotations: read_annotations(),
        handler: Handler::Blocking(run),
        aborted: ToolError::aborted,
        syntax: true,
        unstaged: false,
    }
}

fn schema() -> Value {
    object_schema(
        json!({
            "path": { "type": "string", "description": "The source file to outline, relative to the workspace root or absolute." },
            "paths": { "type": "array", "items": { "type": "string" }, "description": "Optional: more files or directories to outline in the same call (after path, which may then be a directory too)." }
        }),
        &["path"],
    )
}

fn run(call: &Call) -> ToolResult<Output> {
    let input = str_arg(&call.args, "path").unwrap_or_default();
    match call.args.get("paths") {
        Some(Value::Array(more)) => {
            let mut inputs = vec![input.to_string()];
            inputs.extend(more.iter().filter_map(|v| v.as_str().map(str::to_string)));
            many(call, &inputs)
        }
        _ => {
            let (display, facts) =
                syntax::load_facts(&call.config, input, Purpose::Outline, Some(&call.cancel))?;
            let text = outline::render(&display, &facts);
            Ok(Output::text(text))
        }
    }
}

/// Several files and directories: one outline per file, separated by a blank line; a file
/// that fails shows `<path>: <error message>` instead. Cut at a file boundary once the text
/// would pass `maxOutputBytes`.
fn many(call: &Call, inputs: &[String]) -> ToolResult<Output> {
    let mut files: Vec<String> = Vec::new();
    for input in inputs {
        let abs = workspace::resolve(&call.config, input)?;
        if workspace::overlay::stat(&call.config, &abs).is_ok_and(|m| m.is_dir()) {
            // Confined by descriptor, unless only staged files make it (review mode).
            if std::fs::symlink_metadata(&abs).is_ok() {
                drop(workspace::open_dir_confined(&call.config, &abs, input)?);
            }
            let mut found = expand(call, &abs);
            files.append(&mut found);
        } else {
            files.push(input.clone());
        }
        if files.len() >= MAX_FILES {
            files.truncate(MAX_FILES);
            break;
        }
    }
    let limit = usize::try_from(call.config.max_output_bytes).unwrap_or(usize::MAX);
    let mut out = String::new();
    each_block(call, &files, |i, block| {
        let sep = if out.is_empty() { "" } else { "\n\n" };
        if out.len() + sep.len() + block.len() > limit {
            out.push_str(&format!(
                "{sep}[... {} more files omitted (maxOutputBytes) ...]",
                files.len() - i
            ));
            return false;
        }
        out.push_str(sep);
        out.push_str(&block);
        true
    })?;
    if out.is_empty() {
        out.push_str("(no supported source files)");
    }
    Ok(Output::text(out))
}

/// Outlines `files` on up to four threads and hands each file's block (its outline, or
/// `<path>: <error message>`) to `take` in list order, until `take` returns false. An abort
/// ends the call with `aborted`. Workers stop taking files once the caller has stopped.
fn each_block(
    call: &Call,
    files: &[String],
    mut take: impl FnMut(usize, String) -> bool,
) -> ToolResult<()> {
    let workers = crate::pool::threads().min(4).min(files.len());
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<(usize, ToolResult<String>)>();
    std::thread::scope(|s| {
        for _ in 0..workers {
            let tx = tx.clone();
            let (next, stop) = (&next, &stop);
            s.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if stop.load(Ordering::Relaxed) || i >= files.len() {
                    break;
                }
                if tx.send((i, block(call, &files[i]))).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        let mut early: BTreeMap<usize, ToolResult<String>> = BTreeMap::new();
        let mut done = Ok(());
        for i in 0..files.len() {
            let result = loop {
                if let Some(r) = early.remove(&i) {
                    break r;
                }
                match rx.recv() {
                    Ok((k, r)) => {
                        early.insert(k, r);
                    }
                    // Every worker has stopped without sending `i`: cannot happen, as a worker
                    // that took `i` sends it; end rather than wait.
                    Err(_) => break Err(ToolError::aborted()),
                }
            };
            match result {
                Ok(text) => {
                    if !take(i, text) {
                        break;
                    }
                }
                Err(e) => {
                    done = Err(e);
                    break;
                }
            }
        }
        stop.store(true, Ordering::Relaxed);
        done
    })
}

/// One file's block; only an abort is an error.
fn block(call: &Call, file: &str) -> ToolResult<String> {
    if call.cancel.is_cancelled() {
        return Err(ToolError::new(
            Code::Aborted,
            format!("Parsing aborted: {file}"),
        ));
    }
    match syntax::load_facts(&call.config, file, Purpose::Outline, Some(&call.cancel)) {
        Ok((display, facts)) => Ok(outline::render(&display, &facts)),
        Err(e) if e.code == Code::Aborted => Err(e),
        Err(e) => Ok(format!("{file}: {}", e.message)),
    }
}

/// The outline-supported files under `dir` (ignore rules honoured), depth-first in name
/// order, as display paths.
fn expand(call: &Call, dir: &Path) -> Vec<String> {
    let policy = Policy::new(Arc::clone(&call.config), dir, true, call.warnings.clone());
    let mut out = Vec::new();
    let mut stack: Vec<PathBuf> = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        // Review mode: the staged tree's changes to this directory (which may exist only
        // there: then the disk has nothing to list).
        let view = workspace::overlay::dir_view(&call.config, &d);
        let mut listed: Vec<(OsString, PathBuf, bool)> = std::fs::read_dir(&d)
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
            .filter_map(|e| {
                let ft = e.file_type().ok()?;
                let name = e.file_name();
                let is_dir = match view.as_ref().and_then(|v| v.get(&name)) {
                    Some(Child::Deleted) => return None,
                    Some(Child::File(_)) => false,
                    Some(Child::Dir) => true,
                    None if ft.is_symlink() => return None,
                    None => ft.is_dir(),
                };
                Some((name, e.path(), is_dir))
            })
            .collect();
        if let Some(v) = &view {
            let on_disk: std::collections::HashSet<OsString> =
                listed.iter().map(|(n, _, _)| n.clone()).collect();
            for (name, child) in v.added(|n| on_disk.contains(n)) {
                listed.push((name.to_os_string(), d.join(name), child == Child::Dir));
            }
        }
        let mut entries: Vec<(String, PathBuf, bool)> = listed
            .into_iter()
            .filter(|(_, path, is_dir)| !policy.hides(path, *is_dir))
            .map(|(name, path, is_dir)| (name.to_string_lossy().into_owned(), path, is_dir))
            .collect();
        entries.sort_by(|a, b| js_cmp(&a.0, &b.0));
        let mut subdirs = Vec::new();
        for (name, path, is_dir) in entries {
            if is_dir {
                subdirs.push(path);
            } else if syntax::grammar_for(&name).is_some_and(|g| g.has_outline()) {
                out.push(workspace::display(&call.config, &path));
                if out.len() >= MAX_FILES {
                    return out;
                }
            }
        }
        stack.extend(subdirs.into_iter().rev());
    }
    out
}

/// The call's title (`describeCall`): what a progress list or an approval prompt shows.
pub fn title(args: &Map<String, Value>) -> String {
    let mut all: Vec<&str> = title::text(args, "path").into_iter().collect();
    all.extend(title::strings(args, "paths"));
    match all.as_slice() {
        [] => "Outline a file".into(),
        [one] => format!("Outline {}", title::short_path(one)),
        many => format!("Outline {}", title::count(many.len(), "path")),
    }
}
