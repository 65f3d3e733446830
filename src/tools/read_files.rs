//! `read_files`: up to 64 text files in one call, each shown like `read_file`, under one
//! output budget; a file that fails is reported inline and the batch goes on.

use super::read_file::row;
use super::{object_schema, read_annotations, Call, Handler, Output, ToolDef};
use crate::error::{Code, ToolError, ToolResult};
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
    let mut lines: Vec<&str> = content.split('\n').collect();
    if lines.last() == Some(&"") {
        lines.pop();
    }
    let total = lines.len();
    let max = usize::try_from(budget.max(1)).unwrap_or(usize::MAX);
    let mut used = out.len();
    let mut shown = 0usize;
    for (i, line) in lines.iter().enumerate() {
        let r = row(i as u64 + 1, line, max);
        if shown > 0 && used + r.len() + 1 > max {
            break;
        }
        if shown > 0 {
            out.push('\n');
        }
        used += r.len() + 1;
        out.push_str(&r);
        shown += 1;
    }
    if shown < total {
        out.push_str(&format!(
            "\n[... {shown} of {total} lines shown; use read_file for the rest ...]"
        ));
    }
    out
}

fn read_one(call: &Call, raw: &str) -> ToolResult<String> {
    let abs = workspace::resolve(&call.config, raw)?;
    let bytes = text::load(&call.config, &abs, raw)?;
    Ok(text::normalize_eol(&text::decode_lossy(&bytes)).into_owned())
}

fn run(call: &Call) -> ToolResult<Output> {
    let paths: Vec<&str> = call
        .args
        .get("paths")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut budget = i64::try_from(call.config.max_output_bytes).unwrap_or(i64::MAX);
    let mut sections: Vec<String> = Vec::new();
    let mut done = 0;
    for raw in &paths {
        if budget <= 0 {
            break;
        }
        if call.cancel.is_cancelled() {
            return Err(ToolError::aborted());
        }
        let s = match read_one(call, raw) {
            Ok(content) => section(raw, &content, budget),
            Err(e) if INLINE.contains(&e.code) => {
                format!("==> {raw} \u{2014} {}: {} <==", e.code.as_str(), e.message)
            }
            Err(e) => return Err(e),
        };
        budget -= s.len() as i64 + 2;
        sections.push(s);
        done += 1;
    }
    if done < paths.len() {
        sections.push(format!(
            "[... {} more file(s) not shown; call read_files with fewer paths ...]",
            paths.len() - done
        ));
    }
    Ok(Output::text(sections.join("\n\n")))
}
