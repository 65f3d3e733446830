//! `replace`: project-wide find/replace with JavaScript regex semantics, previewed by
//! default and applied all files or none through the patch commit journal (LATER §5).

use super::glob::{compile, wanted};
use super::title;
use super::{change_annotations, object_schema, Call, Handler, Output, ToolDef};
use crate::atomic;
use crate::atomic::commit::{self, Op};
use crate::eol::EditableText;
use crate::error::{Code, ToolError, ToolResult};
use crate::jsregex::{Cut, JsRegex};
use crate::schema::{bool_arg, str_arg};
use crate::search::at::BaseDir;
use crate::search::policy::Policy;
use crate::search::walk::walk_wanted;
use crate::text::{self, js_cmp};
use crate::{textdiff, workspace};
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

const DESCRIPTION: &str = "Find and replace across files with a JavaScript regular expression. By default it is a DRY RUN: it reports how many replacements it would make in which files, with a unified diff per file, and changes nothing; call again with dry_run: false to apply — then every file changes or none does, and line endings, BOMs and permissions are kept. Scope it with `path` (a file, or a directory searched recursively, git-ignored files skipped) and/or `glob` (e.g. `**/*.ts`; a glob without `/` matches file names at any depth). `replacement` uses JavaScript syntax: $1..$99 for groups, $<name> for named groups, $& for the whole match, $$ for a literal $. ignore_case adds the i flag; multiline adds m and s (^/$ at line breaks, . matches newlines). Binary, non-UTF-8 and oversized files are skipped. Use it for renames and mechanical edits across many files; for one change in one file use edit_file, for structured multi-file edits apply_patch. Errors: invalid_input (no path or glob given, a bad regex — the message explains —, a pattern that matches the empty string, or a symlink among the files), not_found (no such path), not_a_file (the path is a FIFO, socket or device), path_escape (stay inside the workspace), io_error (nothing was changed).";

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
        unstaged: false,
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
    /// `abs` as text: the sort key (computed once, not per comparison).
    key: String,
    shown: String,
    count: usize,
    /// The file's unified diff (made on the walker thread that found it).
    patch: String,
}

/// One walker thread's finds, handed over when its visitor is dropped (one lock per thread).
struct Collected<'a> {
    local: Vec<Changed>,
    all: &'a Mutex<Vec<Changed>>,
}

impl Drop for Collected<'_> {
    fn drop(&mut self) {
        if let Ok(mut all) = self.all.lock() {
            all.append(&mut self.local);
        }
    }
}

/// What one scope's search found: the files that would change, sorted by path, and how
/// many files were scanned (read and decoded).
struct Found {
    changed: Vec<Changed>,
    scanned: usize,
}

/// The search: the pattern, its replacement, the counter of scanned files, and the first file
/// on which the pattern ran out of backtracking budget.
struct Search<'a> {
    call: &'a Call,
    re: &'a JsRegex,
    replacement: &'a str,
    scanned: AtomicUsize,
    cut: Mutex<Option<String>>,
}

impl Search<'_> {
    /// Whether the searches should stop: the call was cancelled, or a file already cut the
    /// pattern short (the call fails, so the other files need not be searched).
    fn stopped(&self) -> bool {
        self.call.cancel.is_cancelled() || self.cut.lock().map_or(true, |c| c.is_some())
    }

    /// Notes that the pattern was cut short on `abs` (the first such file is reported).
    fn note_cut(&self, abs: &Path) {
        if let Ok(mut c) = self.cut.lock() {
            c.get_or_insert_with(|| workspace::display(&self.call.config, abs));
        }
    }

    /// One file's bytes (as [`text::load`] returns them) searched: `None` when nothing
    /// changes or the file is skipped (UTF-16, not UTF-8).
    fn scan(&self, abs: &Path, bytes: &[u8]) -> Option<Changed> {
        let enc = text::detect_bom(bytes);
        let body = match enc {
            text::Encoding::Utf16Le | text::Encoding::Utf16Be => return None,
            text::Encoding::Utf8Bom => &bytes[3..],
            text::Encoding::Utf8 => bytes,
        };
        let s = std::str::from_utf8(body).ok()?;
        if self.stopped() {
            return None;
        }
        self.scanned.fetch_add(1, Ordering::Relaxed);
        let stop = || self.stopped();
        // Most files do not match: without a CR the editable text is the file itself, so it
        // is searched in place before anything is copied.
        if memchr::memchr(b'\r', body).is_none() {
            match self.re.is_match_until(s, &stop) {
                Ok(true) => {}
                Ok(false) => return None,
                Err(Cut) => {
                    self.note_cut(abs);
                    return None;
                }
            }
        }
        let file = EditableText::from_str_with_bom(s, enc == text::Encoding::Utf8Bom);
        // With redaction the replacements are recorded: a secret the pattern rewrote in part
        // (`[a-z]` → `Y` over a token) still shows its rest on the patch's `+` side.
        let Ok((after, count, edits)) =
            self.re
                .replace_all_mapped(&file.text, self.replacement, &stop)
        else {
            self.note_cut(abs);
            return None;
        };
        if after == file.text {
            return None;
        }
        let shown = workspace::display(&self.call.config, abs);
        let patch = textdiff::two_files_patch(&shown, &shown, &file.text, &after);
        // The patch quotes both sides: their secrets are judged on the whole files.
        self.call
            .redaction
            .learn_rewritten(&file.text, &after, &edits);
        Some(Changed {
            abs: abs.to_path_buf(),
            key: abs.to_string_lossy().into_owned(),
            shown,
            count,
            patch,
        })
    }

    /// Searches the scope `input` (a file, or a directory walked in parallel with the
    /// ignore policy, `glob` filtering): each walker thread reads, searches and diffs the
    /// files it meets, so reading overlaps the walk.
    fn scope(&self, input: &str, glob: Option<&str>) -> ToolResult<Found> {
        let call = self.call;
        let shown = if input.is_empty() { "." } else { input };
        let base = workspace::resolve(&call.config, input)?;
        let meta =
            workspace::overlay::stat(&call.config, &base).map_err(|e| ToolError::fs(&e, shown))?;
        // A FIFO, socket or device named as the scope is refused like any writer's target
        // (found in a directory, such a file is skipped: the walk meets regular files only).
        if !meta.is_dir() && !meta.is_file() {
            return Err(ToolError::not_regular(shown));
        }
        if !meta.is_dir() {
            let changed = readable_bytes(call, &base)
                .and_then(|bytes| self.scan(&base, &bytes))
                .into_iter()
                .collect();
            return Ok(self.found(changed));
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
        // Files are opened beneath the base's verified descriptor (`openat2`, no symlinks),
        // or checked against the root one by one where that is unavailable, as grep does.
        let guard = workspace::Guard::new(&call.config);
        let base_dir = BaseDir::open(&base).confine(&guard);
        let found: Mutex<Vec<Changed>> = Mutex::new(Vec::new());
        walk_wanted(
            &base,
            policy,
            &call.cancel,
            Some(wanted(&base, matcher)),
            || {
                let (base_dir, guard, found) = (&base_dir, &guard, &found);
                let mut mine = Collected {
                    local: Vec::new(),
                    all: found,
                };
                Box::new(move |path: &Path| {
                    let Ok(opened) = base_dir.open_file(path) else {
                        return;
                    };
                    if !opened.beneath && !guard.allows(&opened.file, path) {
                        return;
                    }
                    let shown = workspace::display(&call.config, path);
                    let Ok(bytes) = text::load_opened(&call.config, &opened.file, &shown) else {
                        return;
                    };
                    mine.local.extend(self.scan(path, &bytes));
                }) as crate::search::walk::Visit
            },
        );
        Ok(self.found(found.into_inner().unwrap_or_default()))
    }

    fn found(&self, mut changed: Vec<Changed>) -> Found {
        changed.sort_by(|a, b| js_cmp(&a.key, &b.key));
        Found {
            changed,
            scanned: self.scanned.load(Ordering::Relaxed),
        }
    }
}

/// A file's bytes as replace reads it (`None` when it is skipped: unreadable, binary, over
/// `maxFileBytes`).
fn readable_bytes(call: &Call, abs: &Path) -> Option<Vec<u8>> {
    let shown = workspace::display(&call.config, abs);
    text::load(&call.config, abs, &shown).ok()
}

/// A file's text as replace reads it (`None` when it is skipped: unreadable, binary,
/// UTF-16, not UTF-8, over `maxFileBytes`).
fn readable(call: &Call, abs: &Path) -> Option<EditableText> {
    let shown = workspace::display(&call.config, abs);
    let bytes = readable_bytes(call, abs)?;
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
    if JsRegex::new(pattern, "").map_err(invalid)?.is_match("") == Ok(true) {
        return Err(ToolError::invalid(
            "pattern matches the empty string; refusing to insert the replacement between every character.",
        ));
    }
    let search = Search {
        call,
        re: &re,
        replacement,
        scanned: AtomicUsize::new(0),
        cut: Mutex::new(None),
    };
    let found = search.scope(path.unwrap_or(""), glob);
    if call.cancel.is_cancelled() {
        return Err(ToolError::aborted());
    }
    if let Some(shown) = search.cut.lock().ok().and_then(|c| c.clone()) {
        return Err(too_complex(pattern, &shown));
    }
    let Found { changed, scanned } = found?;
    if changed.is_empty() {
        return Ok(Output::text("(no matches)"));
    }
    let total: usize = changed.iter().map(|c| c.count).sum();
    let patches: Vec<&str> = changed.iter().map(|c| c.patch.as_str()).collect();
    if bool_arg(&call.args, "dry_run") != Some(false) {
        return Ok(Output::text(format!(
            "{total} replacement(s) across {} file(s); {scanned} scanned (dry run \u{2014} pass dry_run: false to apply)\n\n{}",
            changed.len(),
            patches.join("\n")
        )));
    }
    let afters = apply(call, &re, replacement, &changed)?;
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
    let written = changed
        .iter()
        .zip(&afters)
        .map(|(c, after)| (c.shown.as_str(), crate::syntax::Written::Text(after)));
    text.push_str(&crate::syntax::write_warnings(&call.config, written));
    Ok(Output::text(text).with_meta("diff", Value::String(patches.join("\n"))))
}

/// Writes every changed file or none: under the files' locks (sorted), each file is read
/// again and re-encoded with its own line endings and BOM, then all are committed together
/// through verified directory handles and the commit journal. Returns each file's new text
/// (line endings normalised), in `changed`'s order.
fn apply(
    call: &Call,
    re: &JsRegex,
    replacement: &str,
    changed: &[Changed],
) -> ToolResult<Vec<String>> {
    let config = &call.config;
    let paths: Vec<PathBuf> = changed.iter().map(|c| c.abs.clone()).collect();
    for c in changed {
        workspace::check_write_scope(config, &c.abs, &c.shown)?;
    }
    let _locks = atomic::lock_paths(&paths);
    let mut ops = Vec::with_capacity(changed.len());
    let mut afters = Vec::with_capacity(changed.len());
    for c in changed {
        atomic::check_target(config, &c.abs, &c.shown)?;
        let Some(file) = readable(call, &c.abs) else {
            return Err(ToolError::new(
                Code::IoError,
                format!(
                    "Failed to apply replacement: {} could not be read again",
                    c.shown
                ),
            ));
        };
        let stop = || call.cancel.is_cancelled();
        let Ok((after, _)) = re.replace_all_until(&file.text, replacement, &stop) else {
            if call.cancel.is_cancelled() {
                return Err(ToolError::aborted());
            }
            let pattern = str_arg(&call.args, "pattern").unwrap_or_default();
            return Err(too_complex(pattern, &c.shown));
        };
        ops.push(Op::Modify {
            path: c.abs.clone(),
            bytes: file.encode(&after),
            mode: None,
        });
        afters.push(after);
    }
    if call.cancel.is_cancelled() {
        return Err(ToolError::aborted());
    }
    call.before_write(&paths);
    let options = commit::Options {
        journal_root: (!config.hooks.no_journal).then(|| config.workspace_root.clone()),
        fail_after: config.hooks.fail_commit_after,
        ..commit::Options::default()
    };
    commit::commit_confined(config, &mut workspace::Pins::default(), ops, options).map_err(
        |e| match e.code {
            Code::IoError => ToolError::new(
                Code::IoError,
                format!("Failed to apply replacement: {}", e.message),
            ),
            _ => e,
        },
    )?;
    call.after_write(&paths);
    Ok(afters)
}

/// The error for a pattern that ran out of backtracking budget on `shown` (nothing written).
fn too_complex(pattern: &str, shown: &str) -> ToolError {
    ToolError::invalid(format!(
        "Regular expression too complex: it backtracked past its limit on {shown}; nothing was changed. Simplify the pattern (nested quantifiers such as (a+)+ backtrack exponentially)."
    ))
    .with("pattern", pattern)
    .with("path", shown)
}

/// The call's title (`describeCall`): what a progress list or an approval prompt shows.
pub fn title(args: &Map<String, Value>) -> String {
    let pattern = title::text(args, "pattern").map_or("a pattern".into(), title::quoted);
    let with = title::text(args, "replacement")
        .map_or(String::new(), |r| format!(" with {}", title::quoted(r)));
    let scope = title::scope(args);
    let verb = if args.get("dry_run") == Some(&Value::Bool(false)) {
        "Replace"
    } else {
        "Preview replacing"
    };
    format!("{verb} {pattern}{with}{scope}")
}
