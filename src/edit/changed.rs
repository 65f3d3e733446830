//! The bytes of a line new_string adds or changes, when a tolerant tier matched old_string
//! with different whitespace than the file's.
//!
//! The written line must be what the model meant in the file's own style, or the edit is
//! refused — never a line carrying the model's drift. Its indentation is decided, in order:
//! 1. new_string keeps the indentation of the old_string line it replaces one for one: the
//!    file's indentation of that line;
//! 2. the same old_string indentation was matched against the file in the region, always
//!    to the same file indentation: that one (an observed mapping, not a guess);
//! 3. the learned [`Plan`] extrapolates, but only in a file whose indentation uses one
//!    character throughout (where a width decides the bytes; with tabs and spaces mixed, as
//!    in alignment or string literals, 8 spaces could be `\t\t` or `\t····`);
//! 4. otherwise the edit is refused.
//!
//! The rest of a line modified one for one (see `kinship`) is a three-way
//! `merge3` of old_string's line, the file's line and new_string's line, so unchanged parts
//! keep the file's characters (typographic punctuation, tabs inside the line, trailing
//! whitespace); a line rewritten as a whole is written as the model sent it. A line with no
//! counterpart that contains tabs or runs of spaces inside it is refused when the region
//! showed such whitespace differing between old_string and the file.

use super::cascade::{indent_split, is_blank};
use super::merge::merge3_with;
use super::reindent::Plan;
use std::collections::HashMap;

/// What is known about the drift between old_string and the file region.
pub struct Context<'a> {
    /// Observed old_string indentation → the file indentations it matched.
    observed: HashMap<&'a str, Vec<&'a str>>,
    /// The plan learned from the matched lines (no inserted lines taken into account).
    plan: Option<Plan>,
    /// Whether any matched pair's indentation differs.
    pub indents_differ: bool,
    /// The one character the whole file indents with, if it uses only one.
    file_kind: Option<char>,
    /// Whether the file uses both tabs and spaces in indentation.
    file_mixed: bool,
    /// Whether whitespace inside a matched line differs between old_string and the file.
    interior_drift: bool,
    /// new_string is already in the file's indentation (see the rewrite's votes).
    keep_new: bool,
    /// What the rewrite does to every written line afterwards (typographic folding,
    /// stripping whitespace old_string added), so two candidate lines are compared as they
    /// would be written.
    finish: Box<dyn Fn(&str) -> String + 'a>,
}

/// Why a changed line cannot be written.
pub type Refusal = String;

/// How new_string's line relates to the old_string line it replaces one for one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kinship {
    /// At least half of the old line survives: the same line, modified; `mostly` when three
    /// quarters do (then even a changed end keeps the file's trailing whitespace).
    Modified { mostly: bool },
    /// At most a fifth survives: a new line written in its place.
    Rewritten,
    /// In between: which one the model meant is not decided.
    Unclear,
}

/// Compares the old line's text `base` with the new line's `new`, counting only characters
/// that survive in runs of three or more, so letters two unrelated lines share by chance
/// (`break` and `replaced`) do not make them one line.
fn kinship(base: &str, new: &str) -> Kinship {
    let (a, b): (Vec<char>, Vec<char>) = (base.chars().collect(), new.chars().collect());
    // A line shorter than three characters that survives whole is too little evidence
    // either way (`);` in `replaced(2);`).
    if a.len() < 3 {
        let whole = !a.is_empty() && b.windows(a.len()).any(|w| w == a.as_slice());
        return if whole {
            Kinship::Unclear
        } else {
            Kinship::Rewritten
        };
    }
    // Kept whole, in one piece (text prepended or appended): the same line, modified, however
    // the diff happens to align its characters (`///` in `/* note */ ///` pairs its slashes
    // with the comment's).
    if b.windows(a.len()).any(|w| w == a.as_slice()) {
        return Kinship::Modified { mostly: true };
    }
    let kept: usize = crate::diffops::myers(&a, &b, None)
        .iter()
        .filter_map(|op| match *op {
            similar::DiffOp::Equal { len, .. } if len >= 3 => Some(len),
            _ => None,
        })
        .sum();
    if kept * 2 >= a.len() {
        Kinship::Modified {
            mostly: kept * 4 >= a.len() * 3,
        }
    } else if kept * 5 <= a.len() {
        Kinship::Rewritten
    } else {
        Kinship::Unclear
    }
}

fn inner(line: &str) -> &str {
    indent_split(line).1.trim_end_matches([' ', '\t'])
}

impl<'a> Context<'a> {
    /// Learns the context from the matched (old_string line, file line) pairs and every line
    /// of the file.
    pub fn new(
        pairs: &[(&'a str, &'a str)],
        all_lines: &[&str],
        keep_new: bool,
        finish: Box<dyn Fn(&str) -> String + 'a>,
    ) -> Self {
        let mut observed: HashMap<&str, Vec<&str>> = HashMap::new();
        let mut indent_pairs = Vec::new();
        let mut interior_drift = false;
        for &(n, f) in pairs {
            if is_blank(n) && is_blank(f) && !n.is_empty() && !f.is_empty() && n != f {
                // A whitespace-only line the model wrote differently is drift seen too.
                indent_pairs.push((n, f));
                let seen = observed.entry(n).or_default();
                if !seen.contains(&f) {
                    seen.push(f);
                }
                continue;
            }
            if is_blank(n) || is_blank(f) {
                continue;
            }
            let (ni, fi) = (indent_split(n).0, indent_split(f).0);
            indent_pairs.push((ni, fi));
            let seen = observed.entry(ni).or_default();
            if !seen.contains(&fi) {
                seen.push(fi);
            }
            interior_drift |=
                inner(n) != inner(f) && inner(n).split_whitespace().eq(inner(f).split_whitespace());
        }
        let (mut tabs, mut spaces) = (false, false);
        for l in all_lines.iter().filter(|l| !is_blank(l)) {
            let ind = indent_split(l).0;
            tabs |= ind.contains('\t');
            spaces |= ind.contains(' ');
        }
        let file_kind = match (tabs, spaces) {
            (true, false) => Some('\t'),
            (false, true) => Some(' '),
            _ => None,
        };
        Context {
            indents_differ: indent_pairs.iter().any(|(n, f)| n != f),
            plan: Plan::learn(&indent_pairs, &[]),
            observed,
            file_kind,
            file_mixed: tabs && spaces,
            interior_drift,
            keep_new,
            finish,
        }
    }

    /// The plan, for the success message.
    pub fn plan(&self) -> Option<&Plan> {
        self.plan.as_ref()
    }

    /// The file-style indentation for new_string's indentation `mi`; `partner` is the
    /// (old_string line, file line) this line replaces one for one.
    fn indent(&self, mi: &str, partner: Option<(&str, &str)>) -> Result<String, Refusal> {
        if self.keep_new {
            return Ok(mi.to_string());
        }
        let foreign = |k: char| mi.chars().any(|c| c != k);
        // A line that replaces one of old_string's one for one at its indentation keeps the
        // file's indentation of that line: observed, whatever drifted elsewhere.
        if let Some((n, f)) = partner.filter(|(n, f)| !is_blank(n) && !is_blank(f)) {
            if indent_split(n).0 == mi {
                return Ok(indent_split(f).0.to_string());
            }
        }
        if !self.indents_differ && self.interior_drift && !mi.is_empty() {
            return Err("whitespace inside the matched lines differs between old_string and the file, so the indentation of a new line is not decided".to_string());
        }
        if !self.indents_differ {
            // No drift seen; but a tab in an all-spaces file (or the reverse) is the model's.
            return match self.file_kind {
                Some(k) if !mi.is_empty() && foreign(k) => Err(format!(
                    "its indentation uses {} where the file indents only with {}",
                    if k == ' ' { "tabs" } else { "spaces" },
                    if k == ' ' { "spaces" } else { "tabs" }
                )),
                _ => Ok(mi.to_string()),
            };
        }
        // In a file that indents with both tabs and spaces, an old_string indentation seen
        // once does not decide a new line's: `····` may be the file's own four spaces or
        // two drifted tabs.
        match self.observed.get(mi).map(Vec::as_slice) {
            Some([one]) if !self.file_mixed => return Ok(one.to_string()),
            Some(many) if many.len() > 1 || self.file_mixed => {
                return Err(format!(
                    "old_string's indentation {} matched {} in the file, which indents with both tabs and spaces",
                    super::diagnose::visible(mi),
                    many.iter()
                        .map(|s| super::diagnose::visible(s))
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            }
            _ => {}
        }
        match &self.plan {
            Some(_) if self.file_mixed => Err("the file mixes tabs and spaces in its indentation, so a width does not decide the characters".to_string()),
            Some(plan) => match plan.apply(mi) {
                Some(m) if self.file_kind.is_none_or(|k| m.chars().all(|c| c == k)) => Ok(m),
                _ => Err("its indentation does not map onto the file's".to_string()),
            },
            None => Err("no consistent re-indentation maps old_string's indentation onto the file's".to_string()),
        }
    }

    /// The text of a line with no counterpart in the file, after its indentation.
    fn fresh(&self, rest: &str) -> Result<String, Refusal> {
        let body = rest.trim_end_matches([' ', '\t']);
        if self.interior_drift && (body.contains('\t') || body.contains("  ")) {
            return Err("whitespace inside the matched lines differs between old_string and the file, and this new line has tabs or runs of spaces inside it".to_string());
        }
        Ok(rest.to_string())
    }

    /// The line to write for new_string's line `line`.
    pub fn line(&self, line: &str, partner: Option<(&str, &str)>) -> Result<String, Refusal> {
        let (mi, rest) = indent_split(line);
        if rest.is_empty() {
            // Whitespace only: map it as an indentation when drift was seen.
            return if self.indents_differ {
                self.indent(mi, None)
            } else {
                Ok(line.to_string())
            };
        }
        let indent = self.indent(mi, partner)?;
        // A line modified keeps the file's characters where the model did not change it; a
        // line rewritten is the model's new text, and the file's characters of the line it
        // replaces (its trailing whitespace, a quote that happens to survive) do not belong
        // in it. When neither is clear and the two would differ, nothing is written.
        let rest = match partner.filter(|(n, f)| !is_blank(n) && !is_blank(f)) {
            Some((n, f)) => {
                let (n, f) = (indent_split(n).1, indent_split(f).1);
                let kin = kinship(n, rest);
                let mostly = kin == Kinship::Modified { mostly: true };
                let merged = merge3_with(n, f, rest, mostly).ok_or_else(|| {
                    "it changes whitespace inside the line, or the end of a line with trailing whitespace, where old_string and the file differ"
                        .to_string()
                });
                match kin {
                    Kinship::Modified { .. } => merged?,
                    Kinship::Rewritten => self.fresh(rest)?,
                    Kinship::Unclear => match (merged, self.fresh(rest)) {
                        (Ok(m), Ok(r)) if (self.finish)(&m) == (self.finish)(&r) => m,
                        _ => return Err("it changes so much of the line it replaces that whether the file's own characters there (trailing whitespace, typographic punctuation) stay is not decided".to_string()),
                    },
                }
            }
            None => self.fresh(rest)?,
        };
        Ok(format!("{indent}{rest}"))
    }
}
