//! The string-replacement engine behind edit_file and multi_edit (CONTRACT §5 edit_file).
//!
//! [`apply`] takes LF-normalised text and one edit and returns the new text, or the
//! `invalid_input` / `ambiguous_match` / `no_match` error the edit deserves. It never touches
//! the filesystem: decoding and re-encoding are [`crate::eol`]'s job, writing
//! [`crate::atomic`]'s. Locating is split from applying: [`exact`] finds literal occurrences,
//! [`cascade`] the tolerant regions (with [`typographic`], [`blank_lines`] and [`escapes`] for
//! tiers 5–7), [`rewrite`] writes new_string over a tolerant region without carrying the
//! model's drift into the file (with [`reindent`], [`changed`] and [`merge`]), [`diagnose`] explains a miss and
//! [`report`] words the success messages.

pub mod blank_lines;
pub mod cascade;
pub mod changed;
pub mod closest;
pub mod diagnose;
pub mod escapes;
pub mod exact;
pub mod merge;
pub mod placement;
pub mod reindent;
pub mod report;
pub mod rewrite;
pub mod typographic;

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
    /// For a tolerant match: which tier matched and what was adjusted.
    pub note: Option<Note>,
}

/// How a tolerant match was made, for the success message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    /// The tier that matched (see [`cascade::Tier::describe`]).
    pub tier: String,
    /// What was adjusted while writing new_string; empty when it was written verbatim.
    pub adjustments: Vec<String>,
}

/// Applies one edit to LF-normalised `text`.
///
/// `old_string` is looked up literally first (unique unless `replace_all`); failing that,
/// and only without `replace_all`, through the tolerant cascade with its line endings
/// normalised; a unique tolerant region is rewritten by [`rewrite::rewrite`]. `new_string`
/// is inserted with its line endings normalised to `\n` (the re-encoder gives new lines the
/// file's dominant terminator).
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
    let mut offsets = exact::find_all(text, old);
    if offsets.len() == 1 && !replace_all {
        // One occurrence by the contract's count, but others overlapping it: which one the
        // model meant is not decided.
        offsets = exact::find_overlapping(text, old);
    }
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
            note: None,
        });
    }
    let crlf = old.contains('\r');
    let old = normalize_eol(old);
    let lines = Lines::new(text);
    if replace_all {
        return Err(diagnose::no_match(text, &lines, &old));
    }
    let Some(found) = cascade::find_tier(text, &lines, &old) else {
        return Err(diagnose::no_match(text, &lines, &old));
    };
    match found.regions.as_slice() {
        [] => Err(diagnose::no_match(text, &lines, &old)),
        [r] => {
            let (r, tier) = &placed(text, &found, r, &new);
            let (r, tier) = (r, *tier);
            let new = match found.tier {
                cascade::Tier::Escapes(decoder, _) => {
                    normalize_eol(&decoder.decode(&new)).into_owned()
                }
                _ => new.into_owned(),
            };
            let mut done = rewrite::rewrite(text, &lines, r, tier, &found.needle, &new)
                .map_err(|why| report::refused(found.tier, r, &why))?;
            if let cascade::Tier::Escapes(..) = found.tier {
                done.notes
                    .insert(0, "decoded new_string's escapes the same way".to_string());
            }
            let mut out = String::with_capacity(text.len() + done.text.len());
            out.push_str(&text[..r.start]);
            out.push_str(&done.text);
            out.push_str(&text[r.end..]);
            let mut tier = found.tier.describe();
            if crlf {
                tier.push_str(" (old_string's CRLF line endings read as LF)");
            }
            Ok(Applied {
                text: out,
                count: 1,
                tolerant: true,
                note: Some(Note {
                    tier,
                    adjustments: done.notes,
                }),
            })
        }
        many => Err(report::ambiguous(found.tier, many)),
    }
}

/// The region a unique tolerant match `r` of `found` rewrites, and the tier it is rewritten
/// as: a tier-4 match that covers whole lines (only whitespace around it on its lines, and
/// old_string and new_string ending in a line break) is the whole lines, so the line break old_string
/// names is the file's own and the edit is rewritten line by line (tier 2).
pub fn placed(
    text: &str,
    found: &cascade::Found,
    r: &cascade::Region,
    new: &str,
) -> (cascade::Region, cascade::Tier) {
    let whole = (found.tier == cascade::Tier::Substring)
        .then(|| rewrite::whole_lines(text, r, &found.needle, new))
        .flatten();
    match whole {
        Some(w) => (w, cascade::Tier::Trimmed),
        None => (*r, found.tier),
    }
}

#[cfg(test)]
mod drift_tests;
#[cfg(test)]
mod inline_tests;
#[cfg(test)]
mod tests;
