//! The string-replacement engine behind edit_file and multi_edit (CONTRACT §5 edit_file).
//!
//! [`apply`] takes LF-normalised text and one edit and returns the new text, or the
//! `invalid_input` / `ambiguous_match` / `no_match` error the edit deserves. It never touches
//! the filesystem: decoding and re-encoding are [`crate::eol`]'s job, writing
//! [`crate::atomic`]'s. Locating is split from applying: [`exact`] finds literal occurrences,
//! [`cascade`] the whitespace-tolerant regions, [`diagnose`] explains a miss.

pub mod cascade;
pub mod diagnose;
pub mod exact;

use crate::error::{Code, ToolError, ToolResult};
use crate::text::normalize_eol;

/// The file's lines (split on `\n`) and the byte offset each starts at, computed once per
/// edit and shared by the cascade and the diagnostics.
#[derive(Debug)]
pub struct Lines<'a> {
    /// Every line without its `\n` (a text ending in `\n` has a last, empty line).
    pub lines: Vec<&'a str>,
    /// Byte offset of each line in the text.
    pub starts: Vec<usize>,
}

impl<'a> Lines<'a> {
    /// Splits `text` on `\n`.
    pub fn new(text: &'a str) -> Lines<'a> {
        let mut starts = Vec::new();
        let mut pos = 0;
        let lines = text
            .split('\n')
            .inspect(|l| {
                starts.push(pos);
                pos += l.len() + 1;
            })
            .collect();
        Lines { lines, starts }
    }
}

/// `a, b, c` with at most `max` numbers, then `, …`.
pub fn fmt_lines(lines: &[usize], max: usize) -> String {
    let mut s = lines
        .iter()
        .take(max)
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    if lines.len() > max {
        s.push_str(", …");
    }
    s
}

/// The outcome of one successful edit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    /// The text after the edit (LF-normalised).
    pub text: String,
    /// How many occurrences were replaced.
    pub count: usize,
    /// Whether the whitespace-tolerant cascade found the region.
    pub tolerant: bool,
}

/// Applies one edit to LF-normalised `text`.
///
/// `old_string` is looked up literally first (unique unless `replace_all`); failing that,
/// and only without `replace_all`, through the tolerant cascade with its line endings
/// normalised. `new_string` is inserted with its line endings normalised to `\n` (the
/// re-encoder gives new lines the file's dominant terminator).
///
/// ```
/// use clarvis_agent_tools::edit::apply;
/// let done = apply("let a = 1;\nlet b = 2;\n", "b = 2", "b = 3", false).unwrap();
/// assert_eq!(done.text, "let a = 1;\nlet b = 3;\n");
/// ```
pub fn apply(text: &str, old: &str, new: &str, replace_all: bool) -> ToolResult<Applied> {
    if old == new {
        return Err(ToolError::invalid(
            "old_string and new_string are identical — nothing to change.",
        ));
    }
    let new = normalize_eol(new);
    let offsets = exact::find_all(text, old);
    if offsets.len() > 1 && !replace_all {
        let lines = exact::line_numbers(text, &offsets);
        return Err(ToolError::new(
            Code::AmbiguousMatch,
            format!(
                "old_string matched {} times (at lines {}); it must be unique. Add surrounding lines to make the match unique, or pass replace_all: true to replace every occurrence.",
                offsets.len(),
                fmt_lines(&lines, 20)
            ),
        ));
    }
    if !offsets.is_empty() {
        return Ok(Applied {
            text: exact::replace_at(text, &offsets, old.len(), &new),
            count: offsets.len(),
            tolerant: false,
        });
    }
    let old = normalize_eol(old);
    let lines = Lines::new(text);
    if replace_all {
        return Err(diagnose::no_match(text, &lines, &old));
    }
    let regions = cascade::find(text, &lines, &old);
    match regions.as_slice() {
        [] => Err(diagnose::no_match(text, &lines, &old)),
        [r] => {
            let mut out = String::with_capacity(text.len() + new.len());
            out.push_str(&text[..r.start]);
            out.push_str(&new);
            out.push_str(&text[r.end..]);
            Ok(Applied {
                text: out,
                count: 1,
                tolerant: true,
            })
        }
        many => {
            let numbers: Vec<usize> = many.iter().map(|r| r.line).collect();
            Err(ToolError::new(
                Code::AmbiguousMatch,
                format!(
                    "old_string was not found exactly; after whitespace-tolerant matching it matched {} regions (at lines {}); it must be unique. Add surrounding lines, or correct the whitespace so it matches one region exactly.",
                    many.len(),
                    fmt_lines(&numbers, 20)
                ),
            )
            .with("lines", numbers))
        }
    }
}

#[cfg(test)]
mod tests;
