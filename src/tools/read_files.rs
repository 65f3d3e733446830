//! `read_files`: up to 64 text files in one call, each shown like `read_file`, under one
//! output budget; a file that fails is reported inline and the batch goes on.

use super::read_file::{push_row, split_lines};
use super::{object_schema, read_annotations, Call, Handler, Output, ToolDef};
use crate::error::{Code, ToolError, ToolResult};
use crate::search::at::BaseDir;
use crate::{text, workspace};
use serde_json::{json, Value};

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
fn read_one(call: &Call, root: Option<&BaseDir>, raw: &str) -> ToolResult<Vec<u8>> {
    // Opened beneath the root through no symlink, the file is inside: the realpath check of
    // `resolve` (a readlink per path component) would only repeat what the kernel proved.
    let lexical = || {
        let config = &call.config;
        (!raw.contains('\0')).then(|| workspace::lexical(config, workspace::unmention(config, raw)))
    };
    let beneath = root
        .zip(lexical())
        .and_then(|(r, abs)| r.open_file(&abs).ok())
        .filter(|opened| opened.beneath);
    match beneath {
        Some(opened) => text::load_opened(&call.config, &opened.file, raw),
        None => {
            let abs = workspace::resolve(&call.config, raw)?;
            text::load(&call.config, &abs, raw)
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

/// Reads and renders every path, on a few threads when there are many: each file is
/// rendered as if the whole budget were left (the common case: it fits). Results are in
/// path order; `None` for a path a worker skipped because the call was cancelled.
fn prepare(
    call: &Call,
    root: Option<&BaseDir>,
    paths: &[&str],
    budget: i64,
) -> Vec<Option<ToolResult<String>>> {
    let one = |raw: &str| {
        if call.cancel.is_cancelled() {
            return None;
        }
        Some(show(raw, read_one(call, root, raw), budget))
    };
    let threads = crate::search::walk::threads().min(4);
    if paths.len() < PARALLEL_FROM || threads < 2 {
        return paths.iter().map(|raw| one(raw)).collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let slots: Vec<std::sync::Mutex<Option<ToolResult<String>>>> =
        paths.iter().map(|_| std::sync::Mutex::new(None)).collect();
    let work = || loop {
        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let Some(raw) = paths.get(i) else { break };
        let got = one(raw);
        if let Ok(mut slot) = slots[i].lock() {
            *slot = got;
        }
    };
    std::thread::scope(|s| {
        for _ in 1..threads {
            s.spawn(work);
        }
        work();
    });
    slots
        .into_iter()
        .map(|m| m.into_inner().ok().flatten())
        .collect()
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
    let prepared = prepare(call, root.as_ref(), &paths, budget);
    let mut sections: Vec<String> = Vec::new();
    let mut done = 0;
    for (raw, got) in paths.iter().zip(prepared) {
        if budget <= 0 {
            break;
        }
        let Some(got) = got else {
            return Err(ToolError::aborted());
        };
        let mut s = got?;
        // Rendered against the whole budget (which counts a newline after the last row): cut
        // it to what is left (rare, so read again).
        if s.len() as i64 >= budget {
            s = show(raw, read_one(call, root.as_ref(), raw), budget)?;
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
    Ok(Output::text(sections.join("\n\n")))
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
