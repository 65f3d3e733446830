//! Writing `new_string` over a region a tolerant tier matched, so that the model's drift does
//! not end up in the file.
//!
//! `old_string` → `new_string` is diffed line by line. A line new_string keeps unchanged from
//! old_string is written as the file's own line (its indentation, trailing whitespace,
//! quotes are the file's), blank lines the file has inside the region and old_string lacks are
//! kept, and blank lines old_string invented are not written. Lines new_string adds or changes
//! are written after the same transformation that made old_string match:
//! - re-indented by the [`Plan`] learned from the matched lines, unless no consistent plan
//!   exists or new_string is already in the file's indentation (its changed lines sit at the
//!   file's indentation rather than old_string's) — then they keep their own;
//! - trailing whitespace removed when old_string had trailing whitespace the file's lines
//!   lack and the region has none;
//! - typographic characters folded to ASCII when old_string had them and the region has none.
//!
//! Substring regions (tiers 4, 5 on a fragment, 7 exact) are replaced by new_string verbatim.

use super::blank_lines;
use super::cascade::{indent_split, is_blank, InnerTier, Region, Tier};
use super::reindent::Plan;
use super::typographic;
use super::Lines;
use similar::{Algorithm, DiffOp};
use std::time::{Duration, Instant};

/// The text that replaces a region, and what was adjusted on the way.
#[derive(Debug)]
pub struct Rewritten {
    /// The replacement text.
    pub text: String,
    /// Adjustments, for the success message (empty when new_string was written verbatim).
    pub notes: Vec<String>,
}

fn trailing_ws(line: &str) -> bool {
    line.ends_with([' ', '\t'])
}

/// `s` split into lines with trailing empty lines dropped, and the newlines that followed.
fn core_lines(s: &str) -> (Vec<&str>, &str) {
    let core = s.trim_end_matches('\n');
    let lines = if core.is_empty() {
        Vec::new()
    } else {
        core.split('\n').collect()
    };
    (lines, &s[core.len()..])
}

/// Votes on whether new_string's changed lines are written in old_string's indentation
/// (first) or already in the file's (second): lines replaced one for one are compared.
fn votes(
    ops: &[DiffOp],
    needle: &[&str],
    new: &[&str],
    file_indent: &dyn Fn(usize) -> Option<String>,
) -> (usize, usize) {
    let (mut old_side, mut file_side) = (0, 0);
    for op in ops {
        let (o, n, len) = match *op {
            DiffOp::Equal {
                old_index,
                new_index,
                len,
            } => (old_index, new_index, len),
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } if old_len == new_len => (old_index, new_index, old_len),
            _ => continue,
        };
        for k in 0..len {
            let (ni, fi) = (indent_split(needle[o + k]).0, file_indent(o + k));
            let mi = indent_split(new[n + k]).0;
            match fi {
                Some(fi) if fi != ni && !is_blank(new[n + k]) => {
                    old_side += usize::from(mi == ni);
                    file_side += usize::from(mi == fi);
                }
                _ => {}
            }
        }
    }
    (old_side, file_side)
}

/// The replacement for `region` (of a line tier) given the `old_string` it matched (`needle`,
/// LF-normalised and decoded as the tier did) and `new` (likewise).
pub fn rewrite(
    text: &str,
    lines: &Lines,
    region: &Region,
    tier: Tier,
    needle: &str,
    new: &str,
) -> Rewritten {
    let verbatim = || Rewritten {
        text: new.to_string(),
        notes: Vec::new(),
    };
    if region.count == 0 {
        let matched = &text[region.start..region.end];
        if tier == Tier::Typographic
            && typographic::has_typographic(new)
            && !typographic::has_typographic(matched)
        {
            return Rewritten {
                text: typographic::fold(new),
                notes: vec!["wrote typographic quotes, dashes and spaces of new_string as ASCII, as the file does".to_string()],
            };
        }
        return verbatim();
    }
    let file = &lines.lines[region.line - 1..region.line - 1 + region.count];
    let (needle, _) = core_lines(needle);
    let (new_lines, tail) = core_lines(new);
    let map: Vec<Option<usize>> = match tier {
        Tier::BlankLines => blank_lines::align(&needle, file),
        _ if needle.len() == file.len() => (0..needle.len()).map(Some).collect(),
        _ => return verbatim(),
    };
    let pairs: Vec<(usize, usize)> = map
        .iter()
        .enumerate()
        .filter_map(|(i, f)| f.map(|f| (i, f)))
        .collect();
    // Tier 3 may move words across lines; only a per-line equivalence allows line surgery.
    let collapsed = matches!(
        tier,
        Tier::Collapsed | Tier::Escapes(_, Some(InnerTier::Collapsed))
    );
    if collapsed
        && pairs
            .iter()
            .any(|&(i, f)| !needle[i].split_whitespace().eq(file[f].split_whitespace()))
    {
        return verbatim();
    }
    let deadline = Instant::now() + Duration::from_millis(200);
    let ops = similar::capture_diff_slices_deadline(
        Algorithm::Myers,
        &needle,
        &new_lines,
        Some(deadline),
    );
    let indent_pairs: Vec<(&str, &str)> = pairs
        .iter()
        .filter(|&&(i, f)| !is_blank(needle[i]) && !is_blank(file[f]))
        .map(|&(i, f)| (indent_split(needle[i]).0, indent_split(file[f]).0))
        .collect();
    let mut inserted = Vec::new();
    for op in &ops {
        inserted.extend(
            op.new_range()
                .filter(|_| !matches!(op, DiffOp::Equal { .. })),
        );
    }
    let inserted_indents: Vec<&str> = inserted
        .iter()
        .filter(|&&j| !is_blank(new_lines[j]))
        .map(|&j| indent_split(new_lines[j]).0)
        .collect();
    let file_indent = |i: usize| {
        map[i]
            .filter(|&f| !is_blank(file[f]))
            .map(|f| indent_split(file[f]).0.to_string())
    };
    let (old_side, file_side) = votes(&ops, &needle, &new_lines, &file_indent);
    let indents_differ = indent_pairs.iter().any(|(n, f)| n != f);
    let plan = match Plan::learn(&indent_pairs, &inserted_indents) {
        Some(Plan::Identity) | None => None,
        Some(_) if file_side > old_side => None,
        plan => plan,
    };
    let strip = pairs
        .iter()
        .any(|&(i, f)| trailing_ws(needle[i]) && !trailing_ws(file[f]))
        && !file.iter().any(|l| trailing_ws(l));
    let fold = needle.iter().any(|l| typographic::has_typographic(l))
        && !file.iter().any(|l| typographic::has_typographic(l));
    let dash = if pairs
        .iter()
        .any(|&(i, f)| typographic::dash_is_double(needle[i], file[f]))
    {
        "--"
    } else {
        "-"
    };

    let mut out: Vec<String> = Vec::with_capacity(new_lines.len() + 2);
    let mut notes = Vec::new();
    let (mut next_file, mut prev_deleted, mut restored) = (0, false, 0);
    let (mut reindented, mut stripped, mut folded) = (false, false, false);
    let mut emit_new = |line: &str, out: &mut Vec<String>| {
        let mut s = line.to_string();
        if let Some(plan) = &plan {
            let (ind, rest) = indent_split(line);
            if !is_blank(line) {
                if let Some(mapped) = plan.apply(ind) {
                    reindented |= mapped != ind;
                    s = format!("{mapped}{rest}");
                }
            }
        }
        if fold && typographic::has_typographic(&s) {
            s = typographic::fold_with(&s, dash);
            folded = true;
        }
        if strip && trailing_ws(&s) {
            s.truncate(s.trim_end_matches([' ', '\t']).len());
            stripped = true;
        }
        out.push(s);
    };
    for op in &ops {
        for i in op.old_range() {
            let Some(f) = map[i] else { continue };
            let kept = matches!(op, DiffOp::Equal { .. });
            // File lines old_string skipped (blank lines it dropped) stay, unless they sit
            // between two lines new_string deletes.
            if kept || !prev_deleted {
                out.extend(file[next_file..f].iter().map(|l| l.to_string()));
            }
            if kept {
                restored += usize::from(file[f] != needle[i]);
                out.push(file[f].to_string());
            }
            prev_deleted = !kept;
            next_file = f + 1;
        }
        if !matches!(op, DiffOp::Equal { .. }) {
            for j in op.new_range() {
                emit_new(new_lines[j], &mut out);
            }
        }
    }
    out.extend(
        file[next_file.min(file.len())..]
            .iter()
            .map(|l| l.to_string()),
    );
    if reindented {
        let plan = plan.as_ref().map_or_else(String::new, Plan::describe);
        notes.push(format!(
            "re-indented new_string to the file's indentation ({plan})"
        ));
    } else if indents_differ && !inserted_indents.is_empty() {
        notes.push(if file_side > old_side {
            "kept new_string's indentation, which already matched the file's".to_string()
        } else {
            "inserted new lines with new_string's own indentation (no consistent re-indentation exists), so re-read the region to verify it".to_string()
        });
    }
    if restored > 0 {
        notes.push(format!(
            "kept {restored} line{} new_string did not change exactly as in the file",
            if restored == 1 { "" } else { "s" }
        ));
    }
    let blank_delta = file.iter().filter(|l| is_blank(l)).count() as i64
        - needle.iter().filter(|l| is_blank(l)).count() as i64;
    if tier == Tier::BlankLines && blank_delta != 0 {
        notes.push(format!(
            "old_string had {} blank line{} {} than the file region; the file's blank lines were kept",
            blank_delta.abs(),
            if blank_delta.abs() == 1 { "" } else { "s" },
            if blank_delta > 0 { "fewer" } else { "more" }
        ));
    }
    if stripped {
        notes.push("removed the trailing whitespace old_string had added".to_string());
    }
    if folded {
        notes.push(
            "wrote typographic quotes, dashes and spaces in new lines as ASCII, as the file does"
                .to_string(),
        );
    }
    let mut text = out.join("\n");
    text.push_str(tail);
    if text == new {
        notes.clear();
    }
    Rewritten { text, notes }
}
