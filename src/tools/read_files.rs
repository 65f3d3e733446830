//! `read_files`: up to 64 text files in one call, each shown like `read_file`, under one
//! output budget; a file that fails is reported inline and the batch goes on.

use super::read_file::{push_row, split_lines};
use super::{object_schema, read_annotations, Call, Handler, Output, ToolDef};
use crate::cancel::Cancel;
use crate::config::Config;
use crate::error::{Code, ToolError, ToolResult};
use crate::search::at::BaseDir;
use crate::{text, workspace};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

const DESCRIPTION: &str = "Read several text files (up to 64) in one call. Each file appears under a header line `==> path <==` with its lines numbered like read_file (the numbers and the tab are NOT part of the file). All files share one output budget: a file that does not fit is cut with a note to read the rest with read_file, and files after the budget ran out are listed as not shown. A path that fails (missing, a directory, binary, too large, outside the workspace) shows `==> path — code: message <==` and the other files are still read. Use it instead of several read_file calls when you need a handful of related files (a module and its tests, a config set); use read_file to page through one long file, grep to find where something is.";

/// Most paths one call reads.
pub const MAX_PATHS: u64 = 64;

/// The `read_files` tool definition.
pub fn def() -> ToolDef {
    ToolDef {
        name: "read_files",
        description: DESCRIPTION,
        schema,
        bounded: true,
        annotations: read_annotations(),
        handler: Handler::Blocking(run),
        aborted: ToolError::aborted,
        syntax: false,
    }
}

fn schema() -> Value {
    object_schema(
        json!({
            "paths": {
                "type": "array",
                "items": { "type": "string" },
                "minItems": 1,
                "maxItems": MAX_PATHS,
                "description": "The files to read, relative to the workspace root or absolute (1 to 64)."
            }
        }),
        &["paths"],
    )
}

/// The errors shown inline; anything else fails the whole call.
const INLINE: [Code; 5] = [
    Code::NotFound,
    Code::IsBinary,
    Code::NotAFile,
    Code::TooLarge,
    Code::PathEscape,
];

/// One file's section: its header and numbered lines, cut to `budget` bytes (at least one
/// line is always shown).
fn section(raw: &str, content: &str, budget: i64) -> String {
    let mut out = format!("==> {raw} <==\n");
    if content.is_empty() {
        out.push_str("(empty file)");
        return out;
    }
    let lines = split_lines(content);
    let total = lines.len();
    let max = usize::try_from(budget.max(1)).unwrap_or(usize::MAX);
    out.reserve(content.len() + 8 * total);
    let mut used = out.len();
    let mut shown = 0usize;
    for (i, line) in lines.iter().enumerate() {
        let mark = out.len();
        if shown > 0 {
            out.push('\n');
        }
        let len = push_row(&mut out, i as u64 + 1, line, max);
        if shown > 0 && used + len + 1 > max {
            out.truncate(mark);
            break;
        }
        used += len + 1;
        shown += 1;
    }
    if shown < total {
        out.push_str(&format!(
            "\n[... {shown} of {total} lines shown; use read_file for the rest ...]"
        ));
    }
    out
}

/// One path read and decoded (line endings normalised). `root` is the workspace root held
/// open for the call: a path under it is opened with `openat2` strictly beneath it, through
/// no symlink, which the kernel checks in the open itself. Anything else (a symlink on the
/// way, a missing file, no `openat2`) goes through [`text::load`], which gives the answer
/// and the error `read_file` gives.
fn read_one(config: &Config, root: Option<&BaseDir>, raw: &str) -> ToolResult<Vec<u8>> {
    // Opened beneath the root through no symlink, the file is inside: the realpath check of
    // `resolve` (a readlink per path component) would only repeat what the kernel proved.
    let lexical = || {
        (!raw.contains('\0')).then(|| workspace::lexical(config, workspace::unmention(config, raw)))
    };
    let beneath = root
        .zip(lexical())
        .and_then(|(r, abs)| r.open_file(&abs).ok())
        .filter(|opened| opened.beneath);
    match beneath {
        Some(opened) => text::load_opened(config, &opened.file, raw),
        None => {
            let abs = workspace::resolve(config, raw)?;
            text::load(config, &abs, raw)
        }
    }
}

/// What one path shows with the budget left, or the error that fails the call. The text is
/// decoded in place (borrowed unless it needs transcoding or CRLF normalising).
fn show(raw: &str, read: ToolResult<Vec<u8>>, budget: i64) -> ToolResult<String> {
    match read {
        Ok(bytes) => Ok(section(
            raw,
            &text::normalize_eol(&text::decode_lossy(&bytes)),
            budget,
        )),
        Err(e) if INLINE.contains(&e.code) => Ok(format!(
            "==> {raw} \u{2014} {}: {} <==",
            e.code.as_str(),
            e.message
        )),
        Err(e) => Err(e),
    }
}

/// Below this many paths the files are read on the calling thread.
const PARALLEL_FROM: usize = 8;

/// One path's rendering: not yet done, done (`None`: skipped because the call was
/// cancelled), or taken by `run`.
enum Slot {
    Empty,
    Done(Option<ToolResult<String>>),
    Taken,
}

/// A call's paths, shared with the pool's helper threads ([`crate::pool`]).
struct Batch {
    config: Arc<Config>,
    cancel: Cancel,
    /// The workspace root held open for the call (confinement on).
    root: Option<BaseDir>,
    paths: Vec<String>,
    budget: i64,
    next: AtomicUsize,
    slots: Vec<Mutex<Slot>>,
}

impl Batch {
    fn slot(&self, i: usize) -> MutexGuard<'_, Slot> {
        self.slots[i].lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Path `i` read and rendered as if the whole budget were left (the common case: it
    /// fits), unless the call was cancelled.
    fn render(&self, i: usize) -> Option<ToolResult<String>> {
        if self.cancel.is_cancelled() {
            return None;
        }
        let raw = &self.paths[i];
        Some(show(
            raw,
            read_one(&self.config, self.root.as_ref(), raw),
            self.budget,
        ))
    }

    /// Keeps the first rendering of path `i` to land.
    fn keep(&self, i: usize, got: Option<ToolResult<String>>) {
        let mut slot = self.slot(i);
        if matches!(*slot, Slot::Empty) {
            *slot = Slot::Done(got);
        }
    }

    /// Claims and renders paths in order until none is left.
    fn work(&self) {
        loop {
            let i = self.next.fetch_add(1, Ordering::Relaxed);
            if i >= self.paths.len() {
                return;
            }
            self.keep(i, self.render(i));
        }
    }

    /// Path `i`'s rendering, made here if no worker has finished it yet: a helper thread
    /// descheduled on a busy machine never holds the call up (the file is then read twice,
    /// and the first rendering to land is used).
    fn take(&self, i: usize) -> Option<ToolResult<String>> {
        if matches!(*self.slot(i), Slot::Empty) {
            let got = self.render(i);
            self.keep(i, got);
        }
        match std::mem::replace(&mut *self.slot(i), Slot::Taken) {
            Slot::Done(got) => got,
            Slot::Empty | Slot::Taken => None,
        }
    }
}

/// Reads and renders every path: with many, the pool's helpers and this thread share
/// them. The caller then takes each rendering in path order ([`Batch::take`]).
fn prepare(call: &Call, root: Option<BaseDir>, paths: &[&str], budget: i64) -> Arc<Batch> {
    let batch = Arc::new(Batch {
        config: Arc::clone(&call.config),
        cancel: call.cancel.clone(),
        root,
        paths: paths.iter().map(|p| (*p).to_string()).collect(),
        budget,
        next: AtomicUsize::new(0),
        slots: paths.iter().map(|_| Mutex::new(Slot::Empty)).collect(),
    });
    if paths.len() >= PARALLEL_FROM {
        for _ in 0..crate::pool::helpers() {
            let b = Arc::clone(&batch);
            crate::pool::submit(Box::new(move || b.work()));
        }
    }
    batch.work();
    batch
}

fn run(call: &Call) -> ToolResult<Output> {
    let paths: Vec<&str> = call
        .args
        .get("paths")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut budget = i64::try_from(call.config.max_output_bytes).unwrap_or(i64::MAX);
    let guard = workspace::Guard::new(&call.config);
    // Without confinement the plain path is as cheap: no descriptor check to save.
    let root = guard
        .is_on()
        .then(|| BaseDir::open(&call.config.workspace_root).confine(&guard));
    let batch = prepare(call, root, &paths, budget);
    let mut sections: Vec<String> = Vec::new();
    let mut done = 0;
    for (i, raw) in paths.iter().enumerate() {
        if budget <= 0 {
            break;
        }
        let Some(got) = batch.take(i) else {
            return Err(ToolError::aborted());
        };
        let mut s = got?;
        // Rendered against the whole budget (which counts a newline after the last row): cut
        // it to what is left (rare, so read again).
        if s.len() as i64 >= budget {
            s = show(
                raw,
                read_one(&call.config, batch.root.as_ref(), raw),
                budget,
            )?;
        }
        budget -= s.len() as i64 + 2;
        sections.push(s);
        done += 1;
    }
    if call.cancel.is_cancelled() {
        return Err(ToolError::aborted());
    }
    if done < paths.len() {
        sections.push(format!(
            "[... {} more file(s) not shown; call read_files with fewer paths ...]",
            paths.len() - done
        ));
    }
    let len = sections.iter().map(|s| s.len() + 2).sum::<usize>();
    let mut out = crate::output::string_for(len);
    for (i, s) in sections.iter().enumerate() {
        if i > 0 {
            out.push_str("\n\n");
        }
        out.push_str(s);
    }
    Ok(Output::text(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `run` keeps a section rendered against the whole budget only when it is shorter than
    /// what is left: a section exactly as long as the budget is cut (its last row's newline
    /// counts), so it must be rendered again.
    #[test]
    fn a_section_fits_only_below_the_budget() {
        let content = "alpha\nbeta\ngamma\n";
        let full = section("f.txt", content, i64::MAX);
        assert_eq!(
            full,
            "==> f.txt <==\n     1\talpha\n     2\tbeta\n     3\tgamma"
        );
        let n = full.len() as i64;
        assert_eq!(section("f.txt", content, n + 1), full);
        assert_ne!(section("f.txt", content, n), full);
        assert!(section("f.txt", content, n)
            .ends_with("[... 2 of 3 lines shown; use read_file for the rest ...]"));
    }

    #[test]
    fn paths_claimed_by_a_helper_that_never_finished_are_rendered_by_the_caller() {
        let dir = tempfile::tempdir().unwrap();
        for (name, body) in [("a.txt", "one\n"), ("b.txt", "two\nthree\n")] {
            std::fs::write(dir.path().join(name), body).unwrap();
        }
        let config = Arc::new(Config::with_root(dir.path()));
        let batch = Batch {
            config,
            cancel: Cancel::new(),
            root: None,
            paths: vec!["a.txt".into(), "b.txt".into(), "gone.txt".into()],
            budget: i64::MAX,
            // Every path claimed by a helper that was descheduled before rendering any.
            next: AtomicUsize::new(3),
            slots: (0..3).map(|_| Mutex::new(Slot::Empty)).collect(),
        };
        batch.work();
        let a = batch.take(0).unwrap().unwrap();
        assert_eq!(a, "==> a.txt <==\n     1\tone");
        // The helper wakes up and finishes path 0 after the caller took it: ignored.
        batch.keep(0, Some(Ok("late".into())));
        assert!(matches!(*batch.slot(0), Slot::Taken));
        // A helper's rendering that landed first is the one used.
        batch.keep(1, Some(Ok("from the helper".into())));
        assert_eq!(batch.take(1).unwrap().unwrap(), "from the helper");
        let gone = batch.take(2).unwrap().unwrap();
        assert!(
            gone.starts_with("==> gone.txt \u{2014} not_found: "),
            "{gone}"
        );
        // Cancelled before a path was rendered: `None`, which `run` reports as aborted.
        let cancelled = Batch {
            cancel: Cancel::new(),
            next: AtomicUsize::new(0),
            slots: vec![Mutex::new(Slot::Empty)],
            paths: vec!["a.txt".into()],
            ..batch
        };
        cancelled.cancel.cancel();
        assert!(cancelled.take(0).is_none());
    }

    #[test]
    fn rows_match_the_formatting_machinery() {
        let mut out = String::new();
        for ln in [1u64, 9, 10, 99_999, 999_999, 1_000_000, 12_345_678] {
            out.clear();
            push_row(&mut out, ln, "x", usize::MAX);
            assert_eq!(out, format!("{ln:>6}\tx"));
        }
        out.clear();
        let long = "é".repeat(2001);
        push_row(&mut out, 1, &long, usize::MAX);
        assert_eq!(
            out,
            format!("     1\t{} [... line truncated ...]", "é".repeat(2000))
        );
        out.clear();
        push_row(&mut out, 1, "abcdefghijklmnopqrstuvwxyz0123456789", 40);
        assert_eq!(out, "     1\tabcdefgh [... line truncated ...]");
    }
}
