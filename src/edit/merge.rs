//! A three-way merge of one line's text, so a line the model changed keeps the file's own
//! characters wherever the model did not change them.
//!
//! The base is old_string's line (with the model's drift), "ours" the file's line it matched
//! and "theirs" new_string's line. The changes base → theirs are the model's edit, the
//! changes base → ours are the drift (typographic punctuation, whitespace inside the line,
//! trailing whitespace). Both are computed character by character and replayed together on
//! the base: a part only the model changed takes the model's characters, a part only the
//! drift touched keeps the file's. Where both touched the same characters the model's edit
//! wins, unless the file's side there is a whitespace difference: then the right bytes cannot
//! be decided and the merge is refused.

use similar::DiffOp;

/// A change of the base: characters `start..end` replaced by `text`.
#[derive(Debug, Clone)]
struct Hunk {
    start: usize,
    end: usize,
    text: Vec<char>,
    theirs: bool,
}

fn hunks(base: &[char], other: &[char], theirs: bool) -> Vec<Hunk> {
    crate::diffops::myers(base, other, None)
        .into_iter()
        .filter(|op| !matches!(op, DiffOp::Equal { .. }))
        .map(|op| Hunk {
            start: op.old_range().start,
            end: op.old_range().end,
            text: other[op.new_range()].to_vec(),
            theirs,
        })
        .collect()
}

/// Whether two changes of the base touch the same characters (or insert at the same point,
/// or one inserts strictly inside the other's range).
fn overlaps(a: &Hunk, b: &Hunk) -> bool {
    let inside =
        |ins: &Hunk, r: &Hunk| ins.start == ins.end && r.start < ins.start && ins.start < r.end;
    (a.start < b.end && b.start < a.end)
        || (a.start == a.end && b.start == b.end && a.start == b.start)
        || inside(a, b)
        || inside(b, a)
}

/// The positions an insertion could take with the same result: text inserted next to equal
/// characters slides over them (`/* ` + `in */ /* ` + `!x` is also `/*` + ` in */ /*` +
/// ` !x`), and the diff picked one of them arbitrarily. A change of the base is its own range.
fn span(base: &[char], h: &Hunk) -> (usize, usize) {
    if h.start != h.end || h.text.is_empty() {
        return (h.start, h.end);
    }
    let (mut lo, mut text) = (h.start, h.text.clone());
    while lo > 0 && text.last() == Some(&base[lo - 1]) {
        text.rotate_right(1);
        lo -= 1;
    }
    let (mut hi, mut text) = (h.start, h.text.clone());
    while hi < base.len() && text.first() == Some(&base[hi]) {
        text.rotate_left(1);
        hi += 1;
    }
    (lo, hi)
}

/// Whether the drift `ours` and the model's change `theirs` could be ordered either way: an
/// insertion that slides onto or across the other's characters. Replayed at the diff's
/// arbitrary choice, the file's drifted characters would land inside the model's new text
/// (`/*\tin */` for the model's `/* in */`, the file's tab having been after the old `/*`).
fn ambiguous(base: &[char], ours: &Hunk, theirs: &Hunk) -> bool {
    let ((o_lo, o_hi), (t_lo, t_hi)) = (span(base, ours), span(base, theirs));
    match (ours.start == ours.end, theirs.start == theirs.end) {
        (true, true) => o_lo <= t_hi && t_lo <= o_hi,
        // Two or more places inside (or at the edges of) the other's range.
        (false, true) => t_hi.min(ours.end) > t_lo.max(ours.start),
        (true, false) => o_lo.max(theirs.start + 1) < o_hi.min(theirs.end - 1) + 1,
        (false, false) => false,
    }
}

fn is_ws(c: &[char]) -> bool {
    c.iter().all(|c| c.is_whitespace())
}

/// Merges `theirs` (the model's new line) onto `ours` (the file's line) over `base` (the
/// model's old line). `None`: the model's change overlaps a whitespace difference between
/// old_string and the file, so the bytes to write cannot be decided.
pub fn merge3(base: &str, ours: &str, theirs: &str) -> Option<String> {
    merge3_with(base, ours, theirs, false)
}

/// [`merge3`], where `end_changed_ok` lets whitespace the file has after the line's end
/// follow a model's change of that end (`x = 1␠␠` edited to `x = 2` keeps `␠␠`): the
/// caller knows the line is mostly kept.
pub fn merge3_with(base: &str, ours: &str, theirs: &str, end_changed_ok: bool) -> Option<String> {
    if base == ours {
        return Some(theirs.to_string());
    }
    if base == theirs {
        return Some(ours.to_string());
    }
    // Trailing whitespace old_string has and the file's line lacks drifted at the line's *end*,
    // not at a column: where new_string's line ends is where it must go. Diffed in place it
    // would be replayed as "delete these characters" at its old column, and an edit appending
    // after it (`x;␠` → `x;␠/* note */␠`) would lose the model's own space between `x;` and
    // the comment (`x;/* note */`). So it is taken off the base, and off theirs when the model
    // kept it there, and the rest merges as a line without it.
    let body = |s: &'_ str| s.trim_end_matches([' ', '\t']).len();
    let (base_end, theirs_end) = (&base[body(base)..], &theirs[body(theirs)..]);
    if !base_end.is_empty() && body(ours) == ours.len() {
        let theirs = if theirs_end == base_end {
            &theirs[..body(theirs)]
        } else {
            theirs
        };
        return merge3_with(&base[..body(base)], ours, theirs, end_changed_ok);
    }
    let b: Vec<char> = base.chars().collect();
    let o: Vec<char> = ours.chars().collect();
    let t: Vec<char> = theirs.chars().collect();
    let mut all = hunks(&b, &o, false);
    // Whitespace the file has after the line's end belongs after whatever ends the line, and
    // when the model changed that end, whether it meant to keep it is not decided: an ours
    // insertion there touching a change of theirs at the end is a conflict, not a merge.
    let end = b.len();
    let trailing = all
        .iter()
        .any(|h| h.start == end && h.end == end && is_ws(&h.text));
    let changes = hunks(&b, &t, true);
    if trailing && !end_changed_ok && changes.iter().any(|h| h.end == end) {
        return None;
    }
    if all
        .iter()
        .any(|o| changes.iter().any(|t| ambiguous(&b, o, t)))
    {
        return None;
    }
    all.extend(changes);
    all.sort_by_key(|h| (h.start, h.end));
    let mut clusters: Vec<Vec<Hunk>> = Vec::new();
    for h in all {
        match clusters.last_mut() {
            Some(c) if c.iter().any(|x| overlaps(x, &h)) => c.push(h),
            _ => clusters.push(vec![h]),
        }
    }
    let mut out = String::with_capacity(ours.len() + theirs.len());
    let mut pos = 0;
    for c in clusters {
        let start = c.iter().map(|h| h.start).min().unwrap_or(pos);
        let end = c.iter().map(|h| h.end).max().unwrap_or(pos);
        out.extend(&b[pos..start]);
        if c.iter().all(|h| h.theirs) || c.iter().all(|h| !h.theirs) {
            // One side only: hunks of one side never overlap each other, so this is one.
            for h in &c {
                out.extend(&h.text);
            }
        } else {
            if c.iter()
                .any(|h| !h.theirs && is_ws(&b[h.start..h.end]) && is_ws(&h.text))
            {
                return None;
            }
            // The model's version of the cluster's range.
            let mut p = start;
            for h in c.iter().filter(|h| h.theirs) {
                out.extend(&b[p..h.start.max(p)]);
                out.extend(&h.text);
                p = h.end.max(p);
            }
            out.extend(&b[p..end.max(p)]);
        }
        pos = end.max(pos);
    }
    out.extend(&b[pos..]);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::{merge3, merge3_with};

    #[test]
    fn unchanged_parts_keep_the_files_characters() {
        // En dash and curly quotes in the file, ASCII in the model's strings.
        assert_eq!(
            merge3(
                "a - \"b\" = 1",
                "a \u{2013} \u{201C}b\u{201D} = 1",
                "a - \"b\" = 2"
            )
            .as_deref(),
            Some("a \u{2013} \u{201C}b\u{201D} = 2")
        );
        // Trailing whitespace and a tab inside the line survive.
        assert_eq!(
            merge3_with("x = 1", "x = 1  ", "x = 2", true).as_deref(),
            Some("x = 2  ")
        );
        assert_eq!(
            merge3("int x;    // c", "int x;\t// c", "long x;    // c").as_deref(),
            Some("long x;\t// c")
        );
    }

    #[test]
    fn trailing_whitespace_old_string_added_goes_only_from_the_new_lines_end() {
        // Appending after the drifted space: the model's space before its comment stays.
        for pad in [" ", "  ", "\t", " \t"] {
            let base = format!("x;{pad}");
            let appended = format!("x;{pad}/* note */{pad}");
            assert_eq!(
                merge3(&base, "x;", &appended).as_deref(),
                Some(format!("x;{pad}/* note */").as_str()),
                "{pad:?}"
            );
            // Prepending and replacing inside the line, the pad kept or dropped by the model.
            let prepended = format!("/* note */ x;{pad}");
            assert_eq!(
                merge3(&base, "x;", &prepended).as_deref(),
                Some("/* note */ x;")
            );
            assert_eq!(
                merge3(
                    &format!("let a = 1;{pad}"),
                    "let a = 1;",
                    "let a = 2; // two"
                )
                .as_deref(),
                Some("let a = 2; // two")
            );
        }
        // The drift stays the file's where the model's change is elsewhere: inner
        // whitespace the file has (a tab) survives, the end gets none.
        assert_eq!(
            merge3("int x;    // c ", "int x;\t// c", "long x;    // c ").as_deref(),
            Some("long x;\t// c")
        );
    }

    #[test]
    fn the_models_change_wins_unless_it_touches_drifted_whitespace() {
        assert_eq!(
            merge3("a - b", "a \u{2013} b", "a + b").as_deref(),
            Some("a + b")
        );
        assert_eq!(merge3("x    y", "x\ty", "x  y"), None);
        // The model rewrote the end of a line whose trailing whitespace it did not see.
        assert_eq!(merge3("return foo", "return foo  ", "return bar"), None);
        assert_eq!(
            merge3("return foo", "return foo  ", "return foo; // x"),
            None
        );
        assert_eq!(
            merge3("let foo = 1;", "let foo = 1;  ", "let bar = 1;").as_deref(),
            Some("let bar = 1;  ")
        );
    }
}
