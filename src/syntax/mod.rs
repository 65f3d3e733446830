//! Native tree-sitter: the grammars compiled into the addon, parsing under the original's
//! limits, the issue collector, the outline walker and the advisory warnings on writes.
//!
//! The tools `outline` and `check_syntax` and the writers' warnings all go through
//! [`load_facts`] / [`parse`], so the limits and error messages live in one place.
//!
//! Tree-sitter never sees a file's raw bytes: every text reaches it decoded as `read_file`
//! decodes it ([`text::decode_text`]: a UTF-8 BOM stripped, UTF-16 LE/BE transcoded,
//! `\r\n` and lone `\r` read as `\n`), so the lines and columns it reports are those of
//! the text `read_file` shows, and a UTF-16 file parses as the source it is.

mod alloc;
pub mod cache;
pub mod cmask;
pub mod defs;
pub mod issues;
pub mod lang;
pub mod memo;
pub mod outline;
pub mod parse;

use crate::cancel::Cancel;
use crate::config::{Compat, Config};
use crate::error::{Code, ToolError, ToolResult};
use crate::{text, workspace};
use memo::Facts;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

pub use lang::{grammar_for, Grammar};
pub use parse::{ParseFailure, Parsed, MAX_PARSE_BYTES};

/// Writes over this many bytes get no syntax warning.
pub const WARN_MAX_BYTES: usize = 1_000_000;
/// A warning parse slower than this is dropped.
pub const WARN_BUDGET: Duration = Duration::from_millis(1000);
/// Multi-file writers check at most this many grammar-mapped files per call.
pub const WARN_MAX_FILES: usize = 5;

/// Which tool is asking: the unsupported-extension messages and the reported facts differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Purpose {
    /// `outline` (eight grammars).
    Outline,
    /// `check_syntax` (every mapped extension).
    Check,
}

/// The grammar for `input`, or the tool's `invalid_input`.
pub fn grammar_or_error(input: &str, purpose: Purpose) -> ToolResult<Grammar> {
    let ext = lang::extension(input);
    let shown = ext
        .as_deref()
        .map_or_else(|| "extensionless".to_string(), |e| format!("'{e}'"));
    match (grammar_for(input), purpose) {
        (Some(g), Purpose::Check) => Ok(g),
        (Some(g), Purpose::Outline) if g.has_outline() => Ok(g),
        (Some(g), Purpose::Outline) => Err(ToolError::invalid(format!(
            "outline does not support {} files (supported: {}); check_syntax does support them.",
            g.name(),
            lang::outline_names()
        ))),
        (None, Purpose::Outline) => Err(ToolError::invalid(format!(
            "outline does not support {shown} files (supported: {}).",
            lang::outline_names()
        ))),
        (None, Purpose::Check) => Err(ToolError::invalid(format!(
            "check_syntax does not support {shown} files; supported extensions: {}",
            lang::supported_extensions()
        ))),
    }
}

/// Maps a parse failure to the tools' error for `display`.
pub fn failure_error(f: ParseFailure, display: &str) -> ToolError {
    match f {
        ParseFailure::TooLarge => ToolError::new(
            Code::TooLarge,
            format!("File exceeds the {MAX_PARSE_BYTES}-byte parse limit: {display}"),
        )
        .with("path", display)
        .with("limit", MAX_PARSE_BYTES),
        ParseFailure::Timeout => {
            ToolError::new(Code::Timeout, format!("Parsing timed out: {display}"))
        }
        ParseFailure::Aborted => {
            ToolError::new(Code::Aborted, format!("Parsing aborted: {display}"))
        }
        ParseFailure::Runtime => {
            ToolError::new(Code::Internal, "tree-sitter runtime failed to load")
        }
    }
}

/// Resolves, loads (the text tools' checks: `not_found`, `not_a_file`, `too_large`,
/// `is_binary`), decodes ([`text::decode_text`]) and parses `input` within the tool budget,
/// or finds what it reports in the [`memo`]. The parse limit applies to the decoded text's
/// UTF-8 length, as the original measures it. Returns the display path too.
pub fn load_facts(
    config: &Config,
    input: &str,
    purpose: Purpose,
    cancel: Option<&Cancel>,
) -> ToolResult<(String, Arc<Facts>)> {
    let abs = workspace::resolve(config, input)?;
    let grammar = grammar_or_error(input, purpose)?;
    let bytes = text::load(config, &abs, input)?;
    let source = text::decode_text(&bytes);
    let display = workspace::display(config, &abs);
    if source.len() > MAX_PARSE_BYTES {
        return Err(failure_error(ParseFailure::TooLarge, &display));
    }
    let key = memo::key(purpose, grammar, &source);
    if let Some(facts) = memo::get(&key) {
        return Ok((display, facts));
    }
    let parsed = cache::parse(
        &abs,
        grammar,
        &source,
        parse::TOOL_BUDGET,
        cancel,
        match purpose {
            Purpose::Outline => cache::Reuse::Exact,
            Purpose::Check => cache::Reuse::Lookup,
        },
    )
    .map_err(|f| failure_error(f, &display))?;
    let facts = Arc::new(Facts::of(&parsed, purpose));
    parse::release(parsed.tree);
    memo::put(key, Arc::clone(&facts));
    Ok((display, facts))
}

/// The check_syntax result object.
pub fn check_json(display: &str, facts: &Facts) -> Value {
    let found = &facts.issues;
    let errors: Vec<Value> = found
        .list
        .iter()
        .map(|i| json!({"kind": i.kind.as_str(), "line": i.line, "column": i.column, "near": i.near}))
        .collect();
    json!({
        "path": display,
        "language": facts.grammar.name(),
        "ok": found.list.is_empty(),
        "errors": errors,
        "error_count": found.list.len(),
        "truncated": found.truncated,
    })
}

/// The structured outline (the library call `outlineOf`): path, language, line count,
/// symbols with kind/depth/lines, and the syntax-error count.
pub fn outline_json(display: &str, facts: &Facts) -> Value {
    let syms: Vec<Value> = facts
        .symbols
        .iter()
        .map(|s| json!({"name": s.header, "kind": s.kind, "depth": s.depth, "startLine": s.start, "endLine": s.end}))
        .collect();
    json!({
        "path": display,
        "language": facts.grammar.name(),
        "lines": facts.lines,
        "symbols": syms,
        "errorCount": facts.issues.list.len(),
        "truncated": facts.issues.truncated,
    })
}

/// The library call behind `outlineOf(path)` / `checkSyntax(path)`: the structured
/// [`outline_json`] or the tool's [`check_json`] for one file, with the tools' errors.
pub fn library_call(config: &Config, path: &str, purpose: Purpose) -> ToolResult<Value> {
    if !config.tree_sitter_available {
        return Err(ToolError::new(
            Code::Internal,
            "tree-sitter runtime failed to load",
        ));
    }
    let (display, facts) = load_facts(config, path, purpose, None)?;
    Ok(match purpose {
        Purpose::Outline => outline_json(&display, &facts),
        Purpose::Check => check_json(&display, &facts),
    })
}

/// What a writer left in a file, for its warning: either form is parsed as the text
/// `read_file` would show of that file, so the warning's line and column point into it.
#[derive(Debug, Clone, Copy)]
pub enum Written<'a> {
    /// The bytes on disk (write_file's content, apply_patch's encoded files): decoded with
    /// [`text::decode_text`] before the parse.
    Bytes(&'a [u8]),
    /// The text already decoded as `read_file` decodes the file (the editors' LF-normalised
    /// text without its BOM): parsed as it is, never decoded twice (a second BOM in it is
    /// text, as it is to read_file).
    Text(&'a str),
}

impl<'a> Written<'a> {
    /// The text a parse of this file sees.
    fn text(self) -> std::borrow::Cow<'a, str> {
        match self {
            Written::Bytes(b) => text::decode_text(b),
            Written::Text(t) => std::borrow::Cow::Borrowed(t),
        }
    }

    /// The size the warning's limit is checked against before any decoding.
    fn len(self) -> usize {
        match self {
            Written::Bytes(b) => b.len(),
            Written::Text(t) => t.len(),
        }
    }

    /// An owned copy, for a helper thread.
    fn to_owned(self) -> Owned {
        match self {
            Written::Bytes(b) => Owned::Bytes(b.to_vec()),
            Written::Text(t) => Owned::Text(t.to_owned()),
        }
    }
}

/// A [`Written`] a helper thread owns.
enum Owned {
    Bytes(Vec<u8>),
    Text(String),
}

impl Owned {
    fn written(&self) -> Written<'_> {
        match self {
            Owned::Bytes(b) => Written::Bytes(b),
            Owned::Text(t) => Written::Text(t),
        }
    }
}

/// The LATER.md §2.6 warning lines for what a write left on disk: at most
/// [`WARN_MAX_FILES`] grammar-mapped files (others take no slot), each checked for its first
/// issue. Files over [`WARN_MAX_BYTES`] and parses over [`WARN_BUDGET`] are skipped; every
/// failure is swallowed. `""` when nothing is wrong or tree-sitter is turned off. A file
/// without a grammar costs one extension lookup: no decoding, no parse.
pub fn write_warnings<'a>(
    config: &Config,
    files: impl IntoIterator<Item = (&'a str, Written<'a>)>,
) -> String {
    warnings(config, files.into_iter())
}

/// [`write_warnings`] for one file, without copying it (the single-file writers).
pub fn write_warning(config: &Config, rel: &str, written: Written<'_>) -> String {
    warnings(config, std::iter::once((rel, written)))
}

/// Runs `write` (a single-file writer's save) and computes [`write_warning`] for `written`
/// meanwhile, on one of the long-lived helper threads ([`crate::pool`]): the parse overlaps
/// the write's fsyncs instead of following them. A write that gets no warning (no grammar,
/// too big, warnings off) runs alone: no copy, no parse. When the write is done and no helper
/// has taken the parse yet (all busy, or none on one core), the caller parses itself, so a
/// busy helper never holds the call. A warning that panics is dropped (advisory); a failed
/// `write` makes the caller discard the warning.
///
/// A helper, not a thread spawned per write: the spawn and a new thread's cold start cost
/// ~180 µs on top of a ~340 µs incremental parse of a 2,000-line file (measured).
pub fn write_warning_during<T>(
    config: &Arc<Config>,
    rel: &str,
    written: Written<'_>,
    write: impl FnOnce() -> T,
) -> (T, String) {
    // Decoding never makes a text longer than its UTF-8 bytes (a BOM and CRs go), so a
    // file over the limit before it is over it after: no copy is made for it.
    let eligible = warnings_on(config) && written.len() <= WARN_MAX_BYTES;
    if !eligible || grammar_for(rel).is_none() {
        return (write(), String::new());
    }
    type Job = (Arc<Config>, String, Owned);
    let job: Arc<Mutex<Option<Job>>> = Arc::new(Mutex::new(Some((
        Arc::clone(config),
        rel.to_string(),
        written.to_owned(),
    ))));
    let (tx, rx) = std::sync::mpsc::sync_channel::<String>(1);
    // Not queued (no helpers), the job simply stays for the caller.
    let theirs = Arc::clone(&job);
    crate::pool::submit(Box::new(move || {
        let taken = theirs.lock().unwrap_or_else(PoisonError::into_inner).take();
        if let Some((config, rel, owned)) = taken {
            let _ = tx.send(write_warning(&config, &rel, owned.written()));
        }
    }));
    let done = write();
    let mine = job.lock().unwrap_or_else(PoisonError::into_inner).take();
    let warning = match mine {
        Some(_) => write_warning(config, rel, written),
        // A helper has it: its answer, or nothing if it panicked.
        None => rx.recv().unwrap_or_default(),
    };
    (done, warning)
}

/// Warnings are on: tree-sitter is, and the surface is not 0.1's (which had no syntax tools
/// and no warnings: its exact texts stay as they were).
fn warnings_on(config: &Config) -> bool {
    config.tree_sitter_available && config.compat != Compat::V01
}

fn warnings<'a>(config: &Config, files: impl Iterator<Item = (&'a str, Written<'a>)>) -> String {
    if !warnings_on(config) {
        return String::new();
    }
    let mut out = String::new();
    let eligible = files
        .filter_map(|(rel, written)| grammar_for(rel).map(|g| (rel, written, g)))
        .take(WARN_MAX_FILES);
    for (rel, written, grammar) in eligible {
        if written.len() > WARN_MAX_BYTES {
            continue;
        }
        let source = written.text();
        // A text checked before (a write that restores earlier content) is answered by the
        // memo. Only full parses fill it: an incremental tree may shape an error region
        // differently, which is fine for this one line but not for check_syntax's report.
        let found = match memo::get(&memo::key(Purpose::Check, grammar, &source)) {
            Some(facts) => facts.issues.list.first().cloned(),
            None => {
                let key = config.workspace_root.join(rel);
                let reuse = cache::Reuse::Incremental;
                let Ok(parsed) = cache::parse(&key, grammar, &source, WARN_BUDGET, None, reuse)
                else {
                    continue;
                };
                let first = issues::collect(&parsed, 1).list.into_iter().next();
                parse::release(parsed.tree);
                first
            }
        };
        let Some(first) = found else {
            continue;
        };
        let what = match first.kind {
            issues::Kind::Missing => format!("(missing `{}`)", first.near),
            issues::Kind::Error => format!("(near `{}`)", first.near),
        };
        out.push_str(&format!(
            "\nwarning: {} syntax error in {rel} at line {}, column {} {what}; run check_syntax for details.",
            grammar.name(),
            first.line,
            first.column
        ));
    }
    out
}

#[cfg(test)]
mod cache_tests;
#[cfg(test)]
mod encoding_tests;
#[cfg(test)]
mod tests;
