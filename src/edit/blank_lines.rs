//! Tier 6, blank-line-insensitive matching: `old_string`'s non-blank lines equal (per-line
//! trimmed) a run of the file's non-blank lines, blank lines on either side ignored — the
//! model dropped a blank line inside the block, or added one. The region runs from the first
//! to the last matched non-blank line, so the file's own blank lines inside it are known and
//! kept by the rewrite ([`super::rewrite`]).

use super::cascade::{disproportionate, is_blank, Needle, Region};
use super::Lines;

/// Candidate regions (empty when `old_string` has fewer than two non-blank lines: a single
/// line is tiers 2 and 4's business).
pub fn find(text: &str, lines: &Lines, needle: &Needle) -> Vec<Region> {
    let want: Vec<&str> = needle
        .lines
        .iter()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty())
        .collect();
    let mut found = Vec::new();
    if want.len() < 2 {
        return found;
    }
    let non_blank: Vec<usize> = (0..lines.lines.len())
        .filter(|&i| !is_blank(lines.lines[i]))
        .collect();
    if non_blank.len() < want.len() {
        return found;
    }
    for t in 0..=non_blank.len() - want.len() {
        let window = &non_blank[t..t + want.len()];
        if !window
            .iter()
            .zip(&want)
            .all(|(&i, w)| lines.lines[i].trim() == *w)
        {
            continue;
        }
        let (first, last) = (window[0], window[want.len() - 1]);
        let start = lines.starts[first];
        let line_end = lines.starts[last] + lines.lines[last].len();
        let end = line_end + usize::from(needle.ends_with_newline && line_end < text.len());
        // Proportion is judged on the lines themselves: the newline after the block (which
        // the region takes when old_string ends with one) is not a line of the block.
        if !disproportionate(&text[start..line_end], needle) {
            found.push(Region {
                start,
                end,
                line: first + 1,
                count: last - first + 1,
            });
        }
    }
    found
}

/// Pairs `old_string`'s lines with the region's lines: each needle line gets the index of
/// its file line, or `None` for a blank line the file does not have there. Non-blank lines
/// pair in order (they matched); a blank line pairs with a blank file line when both sides
/// have one at that point.
pub fn align(needle: &[&str], region: &[&str]) -> Vec<Option<usize>> {
    let mut map = Vec::with_capacity(needle.len());
    let mut f = 0;
    for line in needle {
        if is_blank(line) {
            if f < region.len() && is_blank(region[f]) {
                map.push(Some(f));
                f += 1;
            } else {
                map.push(None);
            }
            continue;
        }
        while f < region.len() && is_blank(region[f]) {
            f += 1;
        }
        map.push((f < region.len()).then_some(f));
        f += 1;
    }
    map
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str, old: &str) -> Vec<(usize, usize)> {
        let lines = Lines::new(text);
        find(text, &lines, &Needle::new(old))
            .iter()
            .map(|r| (r.line, r.count))
            .collect()
    }

    #[test]
    fn a_dropped_or_added_blank_line_still_matches() {
        let text = "a\nb\n\nc\nd\n";
        assert_eq!(run(text, "b\nc"), vec![(2, 3)]);
        assert_eq!(run(text, "  a\n\n  b"), vec![(1, 2)]);
        assert_eq!(run(text, "b"), Vec::<(usize, usize)>::new());
        assert_eq!(run("x\ny\n\nx\n\ny\n", "x\ny"), vec![(1, 2), (4, 3)]);
    }

    #[test]
    fn alignment_marks_blank_lines_the_file_lacks() {
        assert_eq!(align(&["a", "b"], &["a", "", "b"]), vec![Some(0), Some(2)]);
        assert_eq!(
            align(&["a", "", "b"], &["a", "b"]),
            vec![Some(0), None, Some(1)]
        );
        assert_eq!(
            align(&["a", "", "b"], &["a", "", "", "b"]),
            vec![Some(0), Some(1), Some(3)]
        );
    }
}
