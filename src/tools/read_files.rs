//! `read_files`: up to 64 text files in one call, each shown like `read_file`, under one
//! output budget; a file that fails is reported inline and the batch goes on.

use super::read_file::{push_row, MAX_LINE_UNITS};
use super::title;
use super::{object_schema, read_annotations, Call, Handler, Output, ToolDef};
use crate::cancel::Cancel;
use crate::config::Config;
use crate::error::{Code, ToolError, ToolResult};
use crate::search::at::BaseDir;
use crate::{text, workspace};
use serde_json::{json, Map, Value};
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
        unstaged: false,
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

/// Appends one file's section to `out`: its header and numbered lines (`lines` of them, as
/// [`line_count`] counts), cut to `budget` bytes (at least one line is always shown).
/// Returns the section's length and whether every line was shown.
fn section(out: &mut String, raw: &str, content: &str, lines: usize, budget: i64) -> (usize, bool) {
    let begin = out.len();
    out.push_str("==> ");
    out.push_str(raw);
    out.push_str(" <==\n");
    if content.is_empty() {
        out.push_str("(empty file)");
        return (out.len() - begin, true);
    }
    let max = usize::try_from(budget.max(1)).unwrap_or(usize::MAX);
    let mut used = out.len() - begin;
    let (mut shown, mut from, mut cut) = (0usize, 0usize, false);
    let bytes = content.as_bytes();
    // The lines without their `\n` (a final empty line after a trailing `\n` is not one),
    // found as they are written rather than collected first.
    let ends =
        memchr::memchr_iter(b'\n', bytes).chain((!content.ends_with('\n')).then_some(bytes.len()));
    for nl in ends {
        let line = &content[from..nl];
        from = nl + 1;
        let mark = out.len();
        if shown > 0 {
            out.push('\n');
        }
        let len = push_row(out, shown as u64 + 1, line, max);
        if shown > 0 && used + len + 1 > max {
            out.truncate(mark);
            cut = true;
            break;
        }
        used += len + 1;
        shown += 1;
    }
    if cut {
        out.push_str(&format!(
            "\n[... {shown} of {lines} lines shown; use read_file for the rest ...]"
        ));
    }
    (out.len() - begin, !cut)
}

/// How many lines [`section`] numbers in `content` (0 when empty).
fn line_count(content: &str) -> usize {
    if content.is_empty() {
        return 0;
    }
    memchr::memchr_iter(b'\n', content.as_bytes()).count() + usize::from(!content.ends_with('\n'))
}

/// Room enough for a path's section whatever the budget (a hint: the output grows if it
/// is short): the header, the text, each row's number, tab and newline, a marker for
/// every line long enough to be cut, and the note after a cut.
fn room(raw: &str, read: &ToolResult<Got>) -> usize {
    let body = match read {
        Ok(Got::Text(text, lines, _)) => text_room(text, *lines),
        Ok(Got::Large) => 0,
        Err(e) => e.message.len() + 32,
    };
    raw.len() + 16 + body
}

/// [`room`] of a text of `lines` lines.
fn text_room(text: &str, lines: usize) -> usize {
    if text.is_empty() {
        return 16;
    }
    let number = (lines.checked_ilog10().unwrap_or(0) as usize + 1).max(6);
    text.len() + lines * (number + 2) + (text.len() / MAX_LINE_UNITS + 1) * 32 + 96
}

/// A path read and decoded, with its [`line_count`] and, with `staleWrites: "refuse"`, the
/// hash of its bytes (`crate::stale`).
fn read_counted(config: &Config, root: Option<&BaseDir>, raw: &str) -> ToolResult<Read> {
    read_one(config, root, raw).map(|bytes| {
        let hash = config
            .refuse_stale_writes
            .then(|| crate::stale::hash(&bytes));
        let text = decoded(bytes);
        let lines = line_count(&text);
        (text, lines, hash)
    })
}

/// A decoded text, its line count and (`staleWrites: "refuse"`) the hash of its bytes.
type Read = (String, usize, Option<crate::stale::Hash>);

/// Most bytes a path's section can show beyond what is left of the budget: its header,
/// a first row that is always shown (cut to the budget, plus its marker) and the note
/// after a cut, or its error line.
fn overshoot(raw: &str, read: &ToolResult<Got>) -> usize {
    raw.len() + 256 + read.as_ref().err().map_or(0, |e| e.message.len())
}

/// A path's reading, as kept for the caller.
enum Got {
    /// The decoded text, its [`line_count`] (counted on the worker) and the hash of its bytes
    /// (`staleWrites: "refuse"`).
    Text(String, usize, Option<crate::stale::Hash>),
    /// A text not kept: the texts kept so far would need more than the whole budget with
    /// it (64 large files would all be held at once). Read again if its section is
    /// written, cut to what is left of the budget.
    Large,
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
        // Review mode: a staged path is read through the overlay, on the path below.
        .filter(|(_, abs)| !workspace::overlay::is_staged(config, abs))
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

/// A file's bytes as the text its section shows: decoded and with line endings
/// normalised, reusing the bytes themselves when they already are that text (UTF-8
/// without a BOM or a CR, the common case).
fn decoded(bytes: Vec<u8>) -> String {
    let plain = matches!(
        text::decode_text(&bytes),
        std::borrow::Cow::Borrowed(s) if s.as_ptr() == bytes.as_ptr() && s.len() == bytes.len()
    );
    if plain {
        // SAFETY: `decode_text` borrowed all of `bytes` as a `str`: it checked that they
        // are valid UTF-8.
        return unsafe { String::from_utf8_unchecked(bytes) };
    }
    text::decode_text(&bytes).into_owned()
}

/// The line shown for a path that failed with an [`INLINE`] error.
fn failed(out: &mut String, raw: &str, e: &ToolError) -> usize {
    let begin = out.len();
    out.push_str(&format!(
        "==> {raw} \u{2014} {}: {} <==",
        e.code.as_str(),
        e.message
    ));
    out.len() - begin
}

/// Below this many paths the files are read on the calling thread.
const PARALLEL_FROM: usize = 8;

/// One path's text: not yet read, read (`None`: skipped because the call was cancelled),
/// or taken by `run`.
enum Slot {
    Empty,
    Done(Option<ToolResult<Got>>),
    Taken,
}

/// A call's paths, shared with the pool's helper threads ([`crate::pool`]).
struct Batch {
    config: Arc<Config>,
    cancel: Cancel,
    /// The workspace root held open for the call (confinement on).
    root: Option<BaseDir>,
    paths: Vec<String>,
    /// How many more bytes of sections the texts kept may make ([`Got`]): the budget and
    /// some slack, since [`text_room`] overestimates.
    allowance: AtomicUsize,
    next: AtomicUsize,
    slots: Vec<Mutex<Slot>>,
}

impl Batch {
    fn slot(&self, i: usize) -> MutexGuard<'_, Slot> {
        self.slots[i].lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Path `i` read and decoded, unless the call was cancelled.
    fn read(&self, i: usize) -> Option<ToolResult<Got>> {
        if self.cancel.is_cancelled() {
            return None;
        }
        let read = read_counted(&self.config, self.root.as_ref(), &self.paths[i]);
        Some(read.map(|(text, lines, hash)| {
            let need = text_room(&text, lines);
            let left = self
                .allowance
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |a| {
                    a.checked_sub(need)
                });
            match left {
                Ok(_) => Got::Text(text, lines, hash),
                Err(_) => Got::Large,
            }
        }))
    }

    /// Keeps the first reading of path `i` to land.
    fn keep(&self, i: usize, got: Option<ToolResult<Got>>) {
        let mut slot = self.slot(i);
        if matches!(*slot, Slot::Empty) {
            *slot = Slot::Done(got);
        }
    }

    /// Claims and reads paths in order until none is left.
    fn work(&self) {
        loop {
            let i = self.next.fetch_add(1, Ordering::Relaxed);
            if i >= self.paths.len() {
                return;
            }
            self.keep(i, self.read(i));
        }
    }

    /// Path `i`'s text, read here if no worker has finished it yet: a helper thread
    /// descheduled on a busy machine never holds the call up (the file is then read twice,
    /// and the first reading to land is used).
    fn take(&self, i: usize) -> Option<ToolResult<Got>> {
        if matches!(*self.slot(i), Slot::Empty) {
            let got = self.read(i);
            self.keep(i, got);
        }
        match std::mem::replace(&mut *self.slot(i), Slot::Taken) {
            Slot::Done(got) => got,
            Slot::Empty | Slot::Taken => None,
        }
    }
}

/// The bytes of sections the texts a call keeps may make: the budget, a quarter more and
/// 64 KiB, for the overestimate of [`text_room`].
fn allowance(budget: u64) -> usize {
    let budget = usize::try_from(budget).unwrap_or(usize::MAX);
    budget.saturating_add(budget / 4).saturating_add(64 << 10)
}

/// Reads every path: with many, the pool's helpers and this thread share them. The caller
/// then takes each text in path order ([`Batch::take`]).
fn prepare(call: &Call, root: Option<BaseDir>, paths: &[&str]) -> Arc<Batch> {
    let batch = Arc::new(Batch {
        config: Arc::clone(&call.config),
        cancel: call.cancel.clone(),
        root,
        paths: paths.iter().map(|p| (*p).to_string()).collect(),
        allowance: AtomicUsize::new(allowance(call.config.max_output_bytes)),
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
    let batch = prepare(call, root, &paths);
    let mut read = Vec::with_capacity(paths.len());
    for i in 0..paths.len() {
        read.push(batch.take(i).ok_or_else(ToolError::aborted)?);
    }
    // Every section is written straight into the result, whose room is reserved once (a
    // large result is a buffer whose pages are already mapped: see `output::string_for`):
    // what the texts need, or what the budget lets through, whichever is less.
    let need: usize = paths
        .iter()
        .zip(&read)
        .map(|(raw, r)| room(raw, r) + 2)
        .sum();
    let most = paths
        .iter()
        .zip(&read)
        .map(|(raw, r)| overshoot(raw, r) + 2)
        .fold(usize::try_from(budget).unwrap_or(0), usize::saturating_add);
    let mut out = crate::output::string_for(need.min(most) + 96);
    let mut done = 0;
    for (raw, got) in paths.iter().zip(read) {
        if budget <= 0 {
            break;
        }
        if done > 0 {
            out.push_str("\n\n");
        }
        let text = match got {
            Ok(Got::Text(text, lines, hash)) => Ok((text, lines, hash)),
            Ok(Got::Large) => read_counted(&call.config, batch.root.as_ref(), raw),
            Err(e) => Err(e),
        };
        let len = match text {
            Ok((text, lines, hash)) => {
                let (len, whole) = section(&mut out, raw, &text, lines, budget);
                // A section shows the file's start, in at most `len` bytes of it.
                call.redaction.learn_around(&text, 0..len.min(text.len()));
                if let (true, Some(hash)) = (whole, hash) {
                    let abs =
                        workspace::lexical(&call.config, workspace::unmention(&call.config, raw));
                    let lines = lines as u64;
                    call.shown_hash(&abs, hash, lines.min(1), lines, lines);
                }
                len
            }
            Err(e) if INLINE.contains(&e.code) => failed(&mut out, raw, &e),
            Err(e) => return Err(e),
        };
        budget -= len as i64 + 2;
        done += 1;
    }
    if call.cancel.is_cancelled() {
        return Err(ToolError::aborted());
    }
    if done < paths.len() {
        if done > 0 {
            out.push_str("\n\n");
        }
        out.push_str(&format!(
            "[... {} more file(s) not shown; call read_files with fewer paths ...]",
            paths.len() - done
        ));
    }
    Ok(Output::text(out))
}

/// The call's title (`describeCall`): what a progress list or an approval prompt shows.
pub fn title(args: &Map<String, Value>) -> String {
    match title::strings(args, "paths").as_slice() {
        [] => "Read files".to_string(),
        [one] => format!("Read {}", title::short_path(one)),
        many => format!(
            "Read {}: {}",
            title::count(many.len(), "file"),
            many.iter()
                .map(|p| title::short_path(p))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

#[cfg(test)]
#[path = "read_files_tests.rs"]
mod tests;
