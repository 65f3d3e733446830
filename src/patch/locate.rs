//! Where a hunk fits in a file.
//!
//! A hunk with a stated position (unified diff) fits only where its context and removed
//! lines equal the file's lines exactly; there is no fuzz on content. The search starts at
//! the stated line shifted by the displacement of the previous hunk (where it was found minus
//! where it said it was) and tries that line, then +1, −1, +2, −2, … — the forward candidate
//! wins a tie — never going above `floor`, the line after the previous hunk's last changed
//! line (so the previous hunk's trailing context may be reused, its changes may not).
//!
//! A hunk without a position (the `*** Begin Patch` format) is searched for forward from
//! `floor`: its `@@` anchors first, each found after the previous one, then its old lines
//! right after the last anchor or later. Each search tries exact equality first, then
//! equality ignoring trailing whitespace, then ignoring surrounding whitespace; the first
//! level that finds anything decides, and the first position found wins.

use super::Hunk;

/// Where to look: the lowest index allowed and the previous hunk's displacement.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Search {
    /// The lowest index the hunk may start at.
    pub floor: usize,
    /// Found minus stated position of the previous hunk.
    pub displacement: isize,
}

/// The index in `file` where `hunk`'s old lines start, or `None` when it fits nowhere.
pub fn locate(file: &[&str], hunk: &Hunk, search: Search) -> Option<usize> {
    let old = hunk.old_lines();
    if old.len() > file.len() {
        return None;
    }
    let max = file.len() - old.len();
    match hunk.start {
        Some(stated) if !hunk.tolerant => {
            if search.floor > max {
                return None;
            }
            let target = (stated as isize + search.displacement)
                .clamp(search.floor as isize, max as isize) as usize;
            let fits = |at: usize| old.iter().zip(&file[at..]).all(|(a, b)| a == b);
            nearest_first(target, search.floor, max).find(|&at| fits(at))
        }
        _ => locate_forward(file, hunk, &old, search.floor),
    }
}

/// `target`, then `target+1`, `target-1`, `target+2`, … within `[lo, hi]`.
fn nearest_first(target: usize, lo: usize, hi: usize) -> impl Iterator<Item = usize> {
    let reach = (target - lo).max(hi - target);
    std::iter::once(target).chain((1..=reach).flat_map(move |d| {
        let up = target.checked_add(d).filter(|&x| x <= hi);
        let down = target.checked_sub(d).filter(|&x| x >= lo);
        up.into_iter().chain(down)
    }))
}

type Eq = fn(&str, &str) -> bool;
const LEVELS: [Eq; 3] = [
    |a, b| a == b,
    |a, b| a.trim_end() == b.trim_end(),
    |a, b| a.trim() == b.trim(),
];

fn locate_forward(file: &[&str], hunk: &Hunk, old: &[&str], floor: usize) -> Option<usize> {
    let mut from = floor;
    for anchor in &hunk.anchors {
        let at = LEVELS
            .iter()
            .find_map(|eq| (from..file.len()).find(|&i| eq(file[i], anchor)))?;
        from = at + 1;
    }
    if old.is_empty() {
        // Pure insertion: after the anchors, or at the end when there are none.
        return Some(if hunk.anchors.is_empty() {
            file.len()
        } else {
            from
        });
    }
    let max = file.len() - old.len();
    if from > max {
        return None;
    }
    let fits = |eq: Eq, at: usize| old.iter().zip(&file[at..]).all(|(a, b)| eq(b, a));
    if hunk.at_eof && LEVELS.iter().any(|eq| fits(*eq, max)) {
        return Some(max);
    }
    LEVELS
        .iter()
        .find_map(|eq| (from..=max).find(|&at| fits(*eq, at)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::patch::{HunkLine, Kind};

    fn hunk(start: Option<usize>, spec: &[(&str, Kind)]) -> Hunk {
        Hunk {
            start,
            lines: spec
                .iter()
                .map(|(t, k)| HunkLine {
                    kind: *k,
                    text: t.to_string(),
                })
                .collect(),
            tolerant: start.is_none(),
            ..Hunk::default()
        }
    }

    fn at(file: &[&str], h: &Hunk, floor: usize, displacement: isize) -> Option<usize> {
        locate(
            file,
            h,
            Search {
                floor,
                displacement,
            },
        )
    }

    #[test]
    fn exact_at_the_stated_line() {
        let file = ["a", "b", "c", "b", "c"];
        let h = hunk(Some(3), &[("b", Kind::Context), ("c", Kind::Remove)]);
        assert_eq!(at(&file, &h, 0, 0), Some(3));
        let h = hunk(Some(1), &[("b", Kind::Context), ("c", Kind::Remove)]);
        assert_eq!(at(&file, &h, 0, 0), Some(1));
    }

    #[test]
    fn forward_wins_a_tie() {
        let file = ["x", "m", "x", "y", "x"];
        // Stated at 2 ("x" is there too), so look at an index with equal distance both ways.
        let h = hunk(Some(3), &[("x", Kind::Remove)]);
        assert_eq!(at(&file, &h, 0, 0), Some(4));
        let h = hunk(Some(1), &[("x", Kind::Remove)]);
        assert_eq!(at(&file, &h, 0, 0), Some(2));
    }

    #[test]
    fn displacement_shifts_the_start() {
        let file = ["q", "q", "q", "q", "q", "q"];
        let h = hunk(Some(1), &[("q", Kind::Remove)]);
        assert_eq!(at(&file, &h, 0, 3), Some(4));
        assert_eq!(at(&file, &h, 0, -5), Some(0));
    }

    #[test]
    fn never_above_the_floor() {
        let file = ["a", "b", "c", "d"];
        let h = hunk(Some(0), &[("a", Kind::Remove)]);
        assert_eq!(at(&file, &h, 1, 0), None);
        let h = hunk(Some(0), &[("b", Kind::Context), ("c", Kind::Remove)]);
        assert_eq!(at(&file, &h, 1, 0), Some(1));
    }

    #[test]
    fn no_fuzz_on_content() {
        let file = ["a  ", "b"];
        let h = hunk(Some(0), &[("a", Kind::Remove)]);
        assert_eq!(at(&file, &h, 0, 0), None);
        let h = hunk(Some(0), &[("a", Kind::Context), ("x", Kind::Remove)]);
        assert_eq!(at(&["a"], &h, 0, 0), None, "longer than the file");
    }

    #[test]
    fn insertion_positions() {
        let file = ["a", "b"];
        let h = hunk(Some(2), &[("c", Kind::Add)]);
        assert_eq!(at(&file, &h, 0, 0), Some(2));
        assert_eq!(at(&[], &hunk(Some(0), &[("c", Kind::Add)]), 0, 0), Some(0));
    }

    #[test]
    fn forward_search_with_anchors_and_whitespace_levels() {
        let file = ["fn a() {", "  x", "}", "fn b() {", "  x", "}"];
        let mut h = hunk(None, &[("  x", Kind::Remove)]);
        assert_eq!(at(&file, &h, 0, 0), Some(1));
        h.anchors = vec!["fn b() {".into()];
        assert_eq!(at(&file, &h, 0, 0), Some(4));
        let h = hunk(None, &[("x   ", Kind::Remove)]);
        assert_eq!(
            at(&file, &h, 2, 0),
            Some(4),
            "trimmed level, from the floor"
        );
        let mut h = hunk(None, &[("}", Kind::Context)]);
        h.at_eof = true;
        assert_eq!(at(&file, &h, 0, 0), Some(5));
        let mut h = hunk(None, &[("new", Kind::Add)]);
        assert_eq!(at(&file, &h, 0, 0), Some(6));
        h.anchors = vec!["fn a() {".into()];
        assert_eq!(at(&file, &h, 0, 0), Some(1));
        h.anchors = vec!["missing".into()];
        assert_eq!(at(&file, &h, 0, 0), None);
    }
}
