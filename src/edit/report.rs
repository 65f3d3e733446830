//! The words of a tolerant outcome: the ambiguity error and the success messages of
//! edit_file and multi_edit. The contract's sentences are kept as the core; what this layer
//! adds says which tier matched and what was adjusted, so the model can trust (or re-check)
//! the result without re-reading the file every time.

use super::cascade::{Region, Tier};
use super::{fmt_lines, Applied, Note};
use crate::error::{Code, ToolError};

/// The contract's tolerant success sentence, for a region written verbatim.
const VERBATIM: &str = "(matched after a whitespace-tolerant search; the matched region — including its leading indentation — was replaced by new_string verbatim, so re-read the file to verify the indentation is correct).";

/// `ambiguous_match` for several regions of the deciding tier (field `lines`). Tiers 1–4 keep
/// the contract's message exactly; tiers 5–7 name themselves.
pub fn ambiguous(tier: Tier, regions: &[Region]) -> ToolError {
    let numbers: Vec<usize> = regions.iter().map(|r| r.line).collect();
    let (n, at) = (regions.len(), fmt_lines(&numbers, 20));
    let message = match tier {
        Tier::Indent | Tier::Trimmed | Tier::Collapsed | Tier::Substring => format!(
            "old_string was not found exactly; after whitespace-tolerant matching it matched {n} regions (at lines {at}); it must be unique. Add surrounding lines, or correct the whitespace so it matches one region exactly."
        ),
        _ => format!(
            "old_string was not found exactly; after tolerant matching ({}) it matched {n} regions (at lines {at}); it must be unique. Add surrounding lines, or copy old_string verbatim from the file so it matches one region exactly.",
            tier.describe()
        ),
    };
    ToolError::new(Code::AmbiguousMatch, message).with("lines", numbers)
}

/// The refusal of a tolerant match whose changed lines cannot be written without the model's
/// drift (`no_match`, fields `line` and `reason`): a wrong byte is never written.
pub fn refused(tier: Tier, region: &Region, why: &str) -> ToolError {
    ToolError::new(
        Code::NoMatch,
        format!(
            "old_string was not found exactly; tolerant matching ({}) found it at line {}, but {why}, so nothing was written. Re-read that region with read_file and send old_string and new_string with the file's exact {}.",
            tier.describe(),
            region.line,
            match tier {
                Tier::Escapes(..) => "characters (a real newline, tab, quote or single backslash where the file has one, not an escape sequence for it)",
                Tier::Typographic => "punctuation (its quotes, dashes and spaces)",
                _ => "whitespace (tabs vs spaces)",
            }
        ),
    )
    .with("line", region.line)
    .with("reason", why.to_string())
}

/// edit_file's success message.
pub fn edit_file_success(shown: &str, done: &Applied) -> String {
    match (&done.note, done.count) {
        (Some(note), _) if note.adjustments.is_empty() => {
            format!("Replaced 1 occurrence in {shown} {VERBATIM} Matched by {}.", note.tier)
        }
        (Some(note), _) => format!(
            "Replaced 1 occurrence in {shown} (matched after a whitespace-tolerant search — {}; {}).",
            note.tier,
            note.adjustments.join("; ")
        ),
        (None, 1) => format!("Replaced 1 occurrence in {shown}."),
        (None, n) => format!("Replaced {n} occurrences in {shown}."),
    }
}

/// multi_edit's suffix for its tolerant edits (`(index, note)`), empty when there are none.
pub fn multi_edit_suffix(notes: &[(usize, Note)]) -> String {
    if notes.is_empty() {
        return String::new();
    }
    let k = notes.len();
    if notes.iter().all(|(_, n)| n.adjustments.is_empty()) {
        let tiers: Vec<String> = notes
            .iter()
            .map(|(i, n)| format!("edit[{i}] {}", n.tier))
            .collect();
        return format!(
            " ({k} matched after a whitespace-tolerant search; each such region — including its leading indentation — was replaced verbatim, so re-read to verify.) Matched by: {}.",
            tiers.join("; ")
        );
    }
    let parts: Vec<String> = notes
        .iter()
        .map(|(i, n)| {
            let what = if n.adjustments.is_empty() {
                "replaced verbatim, so re-read to verify".to_string()
            } else {
                n.adjustments.join(", ")
            };
            format!("edit[{i}] {}: {what}", n.tier)
        })
        .collect();
    format!(
        " ({k} matched after a whitespace-tolerant search — {}.)",
        parts.join("; ")
    )
}
