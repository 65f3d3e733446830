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
use super::changed::{Context, Refusal};
use super::placement::{core_lines, sliding, votes};
use super::reindent::Plan;
use super::typographic;
use super::Lines;
use similar::DiffOp;
use std::time::{Duration, Instant};

/// The text that replaces a region, and what was adjusted on the way.
#[derive(Debug)]
pub struct Rewritten {
    /// The replacement text.
    pub text: String,
    /// Adjustments, for the success message (empty when new_string was written verbatim).
    pub notes: Vec<String>,
}

/// A new line as it is written: typographic punctuation folded to ASCII with `dash` when
/// the file has none, trailing whitespace old_string added removed when `strip`.
fn finish(line: &str, dash: Option<&str>, strip: bool) -> String {
    let mut s = match dash {
        Some(dash) if typographic::has_typographic(line) => typographic::fold_with(line, dash),
        _ => line.to_string(),
    };
    if strip {
        s.truncate(s.trim_end_matches([' ', '\t']).len());
    }
    s
}

/// Whether `s` is only spaces and tabs (or empty).
fn spaces_only(s: &str) -> bool {
    s.bytes().all(|b| b == b' ' || b == b'\t')
}

fn trailing_ws(line: &str) -> bool {
    line.ends_with([' ', '\t'])
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
) -> Result<Rewritten, Refusal> {
    let verbatim = || Rewritten {
        text: new.to_string(),
        notes: Vec::new(),
    };
    if region.count == 0 && tier == Tier::Substring {
        return substring(text, region, needle, new);
    }
    if region.count == 0 {
        let matched = &text[region.start..region.end];
        if tier == Tier::Typographic
            && typographic::has_typographic(new)
            && !typographic::has_typographic(matched)
        {
            return Ok(Rewritten {
                text: typographic::fold(new),
                notes: vec!["wrote typographic quotes, dashes and spaces of new_string as ASCII, as the file does".to_string()],
            });
        }
        return Ok(verbatim());
    }
    let file = &lines.lines[region.line - 1..region.line - 1 + region.count];
    let (needle, needle_tail) = core_lines(needle);
    let (new_lines, tail) = core_lines(new);
    // The region holds at most one of old_string's trailing newlines; the others are
    // old_string's, not the region's, and must not be written again from new_string's.
    let extra = needle_tail.len().saturating_sub(usize::from(
        text[..region.end].ends_with('\n') && !needle_tail.is_empty(),
    ));
    let Some(tail) = tail.get(extra..) else {
        return Err("old_string ends with blank lines the matched region does not have, and new_string removes them".to_string());
    };
    // Blank lines at new_string's end are written empty, but each stands for a line of the
    // region, and where the region has whitespace-only lines which of them new_string keeps
    // (and so which whitespace survives) is not decided by the strings.
    let trailing_blank = tail.len() > usize::from(!needle_tail.is_empty());
    if trailing_blank && file.iter().any(|l| is_blank(l) && !l.is_empty()) {
        return Err("new_string ends with blank lines and the matched region has lines holding only whitespace, so which of them new_string keeps is not decided".to_string());
    }
    // new_string without old_string's final line break ends on the file's next line, whose
    // whitespace-only remainder (which old_string did not show) would trail its last line.
    let next = &text[region.end..];
    let rest_of_line = &next[..next.find('\n').unwrap_or(next.len())];
    if !needle_tail.is_empty()
        && tail.is_empty()
        && !rest_of_line.is_empty()
        && spaces_only(rest_of_line)
    {
        return Err("new_string ends without old_string's final line break, on a file line that holds only whitespace old_string did not show".to_string());
    }
    let map: Vec<Option<usize>> = match tier {
        Tier::BlankLines => blank_lines::align(&needle, file),
        _ if needle.len() == file.len() => (0..needle.len()).map(Some).collect(),
        _ => return Ok(verbatim()),
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
        return Ok(verbatim());
    }
    let deadline = Instant::now() + Duration::from_millis(200);
    let ops = crate::diffops::myers(&needle, &new_lines, Some(deadline));
    if let Some(why) = sliding(&ops, &needle, &new_lines, &map, file) {
        return Err(why);
    }
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
    let matched: Vec<(&str, &str)> = pairs.iter().map(|&(i, f)| (needle[i], file[f])).collect();
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

    let finish = move |s: &str| finish(s, fold.then_some(dash), strip);
    let ctx = Context::new(
        &matched,
        &lines.lines,
        file_side > old_side,
        Box::new(finish),
    );
    let mut out: Vec<String> = Vec::with_capacity(new_lines.len() + 2);
    let mut notes = Vec::new();
    let (mut next_file, mut prev_deleted, mut restored) = (0, false, 0);
    let (mut reindented, mut stripped, mut folded, mut merged) = (false, false, false, 0usize);
    let mut emit_new = |line: &str, partner: Option<usize>, out: &mut Vec<String>| {
        let partner = partner.and_then(|i| map[i].map(|f| (needle[i], file[f])));
        let mut s = ctx.line(line, partner).map_err(|why| {
            format!(
                "new_string's line \"{}\" cannot be written in the file's own whitespace: {why}",
                super::diagnose::visible(line)
            )
        })?;
        let (ind, _) = indent_split(line);
        reindented |= !is_blank(line) && indent_split(&s).0 != ind;
        merged += usize::from(partner.is_some() && indent_split(&s).1 != indent_split(line).1);
        folded |= fold && typographic::has_typographic(&s);
        stripped |= strip && trailing_ws(&s);
        s = finish(&s);
        out.push(s);
        Ok::<(), Refusal>(())
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
                let partner = match *op {
                    DiffOp::Replace {
                        old_index,
                        old_len,
                        new_index,
                        new_len,
                    } if old_len == new_len => Some(old_index + j - new_index),
                    _ => None,
                };
                emit_new(new_lines[j], partner, &mut out)?;
            }
        }
    }
    out.extend(
        file[next_file.min(file.len())..]
            .iter()
            .map(|l| l.to_string()),
    );
    if reindented {
        let plan = ctx
            .plan()
            .map_or_else(|| "as the lines it matched".to_string(), Plan::describe);
        notes.push(format!(
            "re-indented new_string to the file's indentation ({plan})"
        ));
    } else if indents_differ && !inserted_indents.is_empty() && file_side > old_side {
        notes.push("kept new_string's indentation, which already matched the file's".to_string());
    }
    if merged > 0 {
        notes.push(format!(
            "kept the file's own characters in the unchanged parts of {merged} changed line{}",
            if merged == 1 { "" } else { "s" }
        ));
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
    Ok(Rewritten { text, notes })
}

/// A tier-4 region that is whole lines once the whitespace around it is counted: old_string
/// ended with a line break (so the contract's proportion rule kept it out of tiers 1–3),
/// new_string does too or is empty (deleting those lines), and only spaces
/// and tabs stand between the match and its lines' edges. Such a match is the
/// per-line trimmed match of those lines, and is rewritten as one, so the file's whitespace
/// at the lines' edges is decided line by line instead of being left around new_string.
pub fn whole_lines(text: &str, region: &Region, needle: &str, new: &str) -> Option<Region> {
    if !needle.ends_with('\n') || !(new.is_empty() || new.ends_with('\n')) {
        return None;
    }
    let start = text[..region.start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[region.end..]
        .find('\n')
        .map_or(text.len(), |i| region.end + i);
    if !spaces_only(&text[start..region.start]) || !spaces_only(&text[region.end..line_end]) {
        return None;
    }
    Some(Region {
        start,
        end: (line_end + 1).min(text.len()),
        line: region.line,
        count: text[start..line_end].matches('\n').count() + 1,
    })
}

/// Tier 4 matched `needle` trimmed inside a line: new_string loses the same leading and
/// trailing whitespace, so the model's indentation is not written after the file's. A
/// new_string that does not share old_string's edges, or whose further lines carry an
/// indentation the file's line does not have, cannot be placed without guessing.
fn substring(text: &str, region: &Region, needle: &str, new: &str) -> Result<Rewritten, Refusal> {
    let body = needle.trim();
    let lead = &needle[..needle.find(body).unwrap_or(0)];
    let trail = &needle[lead.len() + body.len()..];
    let line_start = text[..region.start].rfind('\n').map_or(0, |i| i + 1);
    let file_lead = &text[line_start..region.start];
    // new_string sharing old_string's edges loses them; one without leading whitespace is
    // written as it is (the contract's verbatim tier 4); one with a different leading
    // whitespace would put the model's indentation after the file's.
    let line_end = text[region.end..]
        .find('\n')
        .map_or(text.len(), |i| region.end + i);
    if (trail.contains('\n') && !spaces_only(&text[region.end..line_end]))
        || (lead.contains('\n') && !spaces_only(file_lead))
    {
        return Err("old_string starts or ends with a line break, but the text tolerant matching found continues on that line in the file".to_string());
    }
    if (lead.contains('\n') && !new.starts_with(lead))
        || (trail.contains('\n') && !new.ends_with(trail))
    {
        return Err("old_string starts or ends with a line break that new_string does not, and tolerant matching found it only inside a line, so where new_string's lines begin and end is not decided".to_string());
    }
    let mid = match new.strip_prefix(lead) {
        Some(m) if !lead.is_empty() => m.strip_suffix(trail).ok_or_else(|| {
            "new_string does not end with the whitespace old_string had after the matched text, so where its lines end is not decided".to_string()
        })?,
        _ if new.starts_with([' ', '\t']) => {
            return Err("new_string starts with whitespace other than old_string's, which would be written after the file's own indentation".to_string());
        }
        _ if !lead.is_empty() && (new.is_empty() || (!trail.is_empty() && new.ends_with(trail))) => {
            return Err("old_string has whitespace around the text it matched inside a line and new_string does not start with it, so whether the line's indentation and end stay is not decided".to_string());
        }
        _ => new,
    };
    let mid = mid
        .strip_suffix(trail)
        .filter(|_| !trail.is_empty())
        .unwrap_or(mid);
    let indented_more = mid.split('\n').skip(1).any(|l| l.starts_with([' ', '\t']));
    if indented_more && lead != file_lead {
        return Err(
            "new_string adds indented lines, and old_string's indentation differs from the file's"
                .to_string(),
        );
    }
    let notes = if mid == new {
        Vec::new()
    } else {
        vec!["wrote new_string without the leading and trailing whitespace old_string had around the matched text".to_string()]
    };
    Ok(Rewritten {
        text: mid.to_string(),
        notes,
    })
}
