//! `replace`: project-wide find/replace with JavaScript regex semantics, previewed by
//! default and applied all files or none through the patch commit journal (LATER §5).

use super::glob::{compile, relative};
use super::{change_annotations, object_schema, Call, Handler, Output, ToolDef};
use crate::atomic::{self, parallel_map};
use crate::eol::EditableText;
use crate::error::{Code, ToolError, ToolResult};
use crate::jsregex::JsRegex;
use crate::patch::commit::{self, Op};
use crate::schema::{bool_arg, str_arg};
use crate::search::policy::Policy;
use crate::search::walk::walk;
use crate::text::{self, js_cmp};
use crate::{textdiff, workspace};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

const DESCRIPTION: &str = "Find and replace across files with a JavaScript regular expression. By default it is a DRY RUN: it reports how many replacements it would make in which files, with a unified diff per file, and changes nothing; call again with dry_run: false to apply — then every file changes or none does, and line endings, BOMs and permissions are kept. Scope it with `path` (a file, or a directory searched recursively, git-ignored files skipped) and/or `glob` (e.g. `**/*.ts`; a glob without `/` matches file names at any depth). `replacement` uses JavaScript syntax: $1..$99 for groups, $<name> for named groups, $& for the whole match, $$ for a literal $. ignore_case adds the i flag; multiline adds m and s (^/$ at line breaks, . matches newlines). Binary, non-UTF-8 and oversized files are skipped. Use it for renames and mechanical edits across many files; for one change in one file use edit_file, for structured multi-file edits apply_patch. Errors: invalid_input (no path or glob given, a bad regex — the message explains —, a pattern that matches the empty string, or a symlink among the files), not_found (no such path), path_escape (stay inside the workspace), io_error (nothing was changed).";

/// The `replace` tool definition.
pub fn def() -> ToolDef {
    ToolDef {
        name: "replace",
        description: DESCRIPTION,
        schema,
        bounded: false,
        annotations: change_annotations(),
        handler: Handler::Blocking(run),
        aborted: ToolError::aborted,
        syntax: false,
    }
}

fn schema() -> Value {
    object_schema(
        json!({
            "pattern": { "type": "string", "description": "JavaScript regular expression (no slashes, no flags), e.g. `oldName\\\\b` or `import (\\\\w+) from`." },
            "replacement": { "type": "string", "description": "Replacement text; $1..$99, $<name>, $& and $$ work as in JavaScript's String.replace." },
            "path": { "type": "string", "description": "A file, or a directory to search recursively. Default: the workspace root (then `glob` is required)." },
            "glob": { "type": "string", "description": "Only files matching this glob under the scope, e.g. `**/*.ts` or `*.md` (any depth)." },
            "ignore_case": { "type": "boolean", "description": "Case-insensitive (the i flag)." },
            "multiline": { "type": "boolean", "description": "^ and $ match at line breaks and . matches newlines (the m and s flags)." },
            "dry_run": { "type": "boolean", "default": true, "description": "Preview only (default). Pass false to write the changes." }
        }),
        &["pattern", "replacement"],
    )
}

/// One file that would change.
struct Changed {
    abs: PathBuf,
    shown: String,
    count: usize,
    before: String,
    after: String,
}

/// One walker thread's finds, handed over when its visitor is dropped (one lock per thread).
struct Collected<'a> {
    local: Vec<PathBuf>,
    all: &'a Mutex<Vec<PathBuf>>,
}

impl Drop for Collected<'_> {
    fn drop(&mut self) {
        if let Ok(mut all) = self.all.lock() {
            all.append(&mut self.local);
        }
    }
}

/// The files in scope, sorted by absolute path (a file scope is that file alone).
fn files_in_scope(call: &Call, input: &str, glob: Option<&str>) -> ToolResult<Vec<PathBuf>> {
    let shown = if input.is_empty() { "." } else { input };
    let base = workspace::resolve(&call.config, input)?;
    let meta = std::fs::metadata(&base).map_err(|e| ToolError::fs(&e, shown))?;
    if !meta.is_dir() {
        return Ok(vec![base]);
    }
    let glob = match glob {
        Some(g) if g.contains('/') => g.to_string(),
        Some(g) => format!("**/{g}"),
        None => "**/*".to_string(),
    };
    let matcher = compile(&glob, "glob")?;
    let policy = Arc::new(Policy::new(
        call.config.clone(),
        &base,
        true,
        call.warnings.clone(),
    ));
    let found: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
    walk(&base, policy, &call.cancel, || {
        let (base, matcher) = (&base, &matcher);
        let mut mine = Collected {
            local: Vec::new(),
            all: &found,
        };
        Box::new(move |entry: &ignore::DirEntry| {
            if relative(base, entry.path()).is_some_and(|rel| matcher.is_match(&*rel)) {
                mine.local.push(entry.path().to_path_buf());
            }
        }) as Box<dyn FnMut(&ignore::DirEntry) + Send>
    });
    if call.cancel.is_cancelled() {
        return Err(ToolError::aborted());
    }
    let mut files = found.into_inner().unwrap_or_default();
    files.sort_by(|a, b| js_cmp(&a.to_string_lossy(), &b.to_string_lossy()));
    Ok(files)
}

/// A file's text as replace reads it (`None` when it is skipped: unreadable, binary,
/// UTF-16, not UTF-8, over `maxFileBytes`).
fn readable(call: &Call, abs: &Path) -> Option<EditableText> {
    let shown = workspace::display(&call.config, abs);
    let bytes = text::load(&call.config, abs, &shown).ok()?;
    if matches!(
        text::detect_bom(&bytes),
        text::Encoding::Utf16Le | text::Encoding::Utf16Be
    ) {
        return None;
    }
    EditableText::decode(&bytes, &shown, "Editing").ok()
}

fn run(call: &Call) -> ToolResult<Output> {
    let pattern = str_arg(&call.args, "pattern").unwrap_or_default();
    let replacement = str_arg(&call.args, "replacement").unwrap_or_default();
    let path = str_arg(&call.args, "path").filter(|p| !p.is_empty());
    let glob = str_arg(&call.args, "glob").filter(|g| !g.is_empty());
    if path.is_none() && glob.is_none() {
        return Err(ToolError::invalid(
            "Provide `path` or `glob` to scope the replacement.",
        ));
    }
    let mut flags = String::new();
    if bool_arg(&call.args, "ignore_case") == Some(true) {
        flags.push('i');
    }
    if bool_arg(&call.args, "multiline") == Some(true) {
        flags.push_str("ms");
    }
    let invalid =
        |e: String| ToolError::invalid(format!("Invalid regex: {e}")).with("pattern", pattern);
    let re = JsRegex::new(pattern, &flags).map_err(invalid)?;
    if JsRegex::new(pattern, "").map_err(invalid)?.is_match("") {
        return Err(ToolError::invalid(
            "pattern matches the empty string; refusing to insert the replacement between every character.",
        ));
    }
    let files = files_in_scope(call, path.unwrap_or(""), glob)?;
    let scanned = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<Option<Changed>> = parallel_map(&files, |abs| {
        if call.cancel.is_cancelled() {
            return None;
        }
        let file = readable(call, abs)?;
        scanned.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let (after, count) = re.replace_all(&file.text, replacement);
        (after != file.text).then(|| Changed {
            abs: abs.clone(),
            shown: workspace::display(&call.config, abs),
            count,
            before: file.text,
            after,
        })
    });
    if call.cancel.is_cancelled() {
        return Err(ToolError::aborted());
    }
    let changed: Vec<Changed> = results.into_iter().flatten().collect();
    if changed.is_empty() {
        return Ok(Output::text("(no matches)"));
    }
    let total: usize = changed.iter().map(|c| c.count).sum();
    let patches: Vec<String> = changed
        .iter()
        .map(|c| textdiff::two_files_patch(&c.shown, &c.shown, &c.before, &c.after))
        .collect();
    if bool_arg(&call.args, "dry_run") != Some(false) {
        let scanned = scanned.into_inner();
        return Ok(Output::text(format!(
            "{total} replacement(s) across {} file(s); {scanned} scanned (dry run \u{2014} pass dry_run: false to apply)\n\n{}",
            changed.len(),
            patches.join("\n")
        )));
    }
    apply(call, &re, replacement, &changed)?;
    let mut text = format!(
        "Replaced {total} occurrence(s) in {} file(s):",
        changed.len()
    );
    for c in &changed {
        let noun = if c.count == 1 {
            "replacement"
        } else {
            "replacements"
        };
        text.push_str(&format!("\n  M {} ({} {noun})", c.shown, c.count));
    }
    // LATER §2.6: the applied files' syntax warnings (only source files are copied).
    let written: Vec<(String, Vec<u8>)> = changed
        .iter()
        .filter(|c| crate::syntax::grammar_for(&c.shown).is_some())
        .map(|c| (c.shown.clone(), c.after.as_bytes().to_vec()))
        .collect();
    text.push_str(&crate::syntax::write_warnings(&call.config, &written));
    Ok(Output::text(text).with_meta("diff", Value::String(patches.join("\n"))))
}

/// Writes every changed file or none: under the files' locks (sorted), each file is read
/// again and re-encoded with its own line endings and BOM, then all are committed together
/// through verified directory handles and the commit journal.
fn apply(call: &Call, re: &JsRegex, replacement: &str, changed: &[Changed]) -> ToolResult<()> {
    let config = &call.config;
    let paths: Vec<PathBuf> = changed.iter().map(|c| c.abs.clone()).collect();
    for c in changed {
        workspace::check_write_scope(config, &c.abs, &c.shown)?;
    }
    let _locks = atomic::lock_paths(&paths);
    let mut ops = Vec::with_capacity(changed.len());
    let mut pins = workspace::Pins::default();
    for c in changed {
        atomic::refuse_symlink(&c.abs, &c.shown)?;
        let Some(file) = readable(call, &c.abs) else {
            return Err(ToolError::new(
                Code::IoError,
                format!(
                    "Failed to apply replacement: {} could not be read again",
                    c.shown
                ),
            ));
        };
        let (after, _) = re.replace_all(&file.text, replacement);
        let path = pins.pin(config, &c.abs, &c.shown, false)?;
        ops.push(Op::Modify {
            path,
            bytes: file.encode(&after),
        });
    }
    if call.cancel.is_cancelled() {
        return Err(ToolError::aborted());
    }
    call.before_write(&paths);
    let options = commit::Options {
        journal_root: (!config.hooks.no_journal).then(|| config.workspace_root.clone()),
        fail_after: config.hooks.fail_commit_after,
        journal_paths: Some(commit::PathMap::new(pins.unpinner())),
        ..commit::Options::default()
    };
    commit::commit_with(&ops, &options, &|p| {
        workspace::display(config, &pins.original(p))
    })
    .map_err(|e| match e.code {
        Code::IoError => ToolError::new(
            Code::IoError,
            format!("Failed to apply replacement: {}", e.message),
        ),
        _ => e,
    })?;
    call.after_write(&paths);
    Ok(())
}
