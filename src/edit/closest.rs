//! The closest candidate region for a `no_match`: where in the file old_string most likely
//! was meant to be, and its first differing line, so the refusal can show the model what to
//! copy instead of only saying "not found".
//!
//! Every non-trivial line of old_string (trimmed, 3+ characters) votes for the file lines it
//! equals, at the offset that would align it; the offset with most votes wins (earliest on a
//! tie, preferring a region that starts inside the file). One pass over the file with a hash lookup per line.

use super::cascade::is_blank;
use super::{typographic, Lines};
use std::collections::HashMap;

/// The first line where the closest region and old_string differ.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    /// 1-based file line number.
    pub line: usize,
    /// The file's line there (empty past the end of the region).
    pub file: String,
    /// old_string's line.
    pub old: String,
    /// What kind of difference it is, when recognisable (`whitespace only`, …).
    pub kind: Option<&'static str>,
}

/// The region old_string most resembles.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Closest {
    /// 1-based first line.
    pub first: usize,
    /// 1-based last line.
    pub last: usize,
    /// How many of old_string's lines equal (trimmed) their file line.
    pub matching: usize,
    /// old_string's line count (trailing empty lines excluded).
    pub total: usize,
    /// The first differing line, if any differs.
    pub diff: Option<Difference>,
}

fn kind(file: &str, old: &str) -> Option<&'static str> {
    if file.trim() == old.trim() {
        Some("whitespace only")
    } else if typographic::eq_line(file, old) {
        Some("quote/dash style")
    } else if is_blank(old) && !is_blank(file) {
        Some("old_string has a blank line the file does not have here")
    } else if is_blank(file) && !is_blank(old) {
        Some("the file has a blank line here that old_string lacks")
    } else if file.trim_end().ends_with(old.trim()) {
        Some("old_string's line is only the end of the file's line")
    } else {
        None
    }
}

/// The closest region to the LF-normalised `old`, if any of its lines occurs in the file.
pub fn find(lines: &Lines, old: &str) -> Option<Closest> {
    let mut needle: Vec<&str> = old.split('\n').collect();
    while needle.last() == Some(&"") {
        needle.pop();
    }
    let mut index: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, l) in needle.iter().enumerate() {
        let t = l.trim();
        if t.chars().count() >= 3 {
            index.entry(t).or_default().push(i);
        }
    }
    if index.is_empty() {
        return None;
    }
    let mut votes: HashMap<isize, usize> = HashMap::new();
    for (f, l) in lines.lines.iter().enumerate() {
        if let Some(is) = index.get(l.trim()) {
            for &i in is.iter().take(8) {
                *votes.entry(f as isize - i as isize).or_default() += 1;
            }
        }
    }
    // Most votes; then a region that starts inside the file; then the earliest.
    let (&offset, _) = votes
        .iter()
        .max_by_key(|&(&o, &v)| (v, o >= 0, std::cmp::Reverse(o)))?;
    let n = lines.lines.len() as isize;
    let at = |i: usize| {
        let f = offset + i as isize;
        (0..n).contains(&f).then(|| lines.lines[f as usize])
    };
    let matching = (0..needle.len())
        .filter(|&i| at(i).is_some_and(|f| f.trim() == needle[i].trim()))
        .count();
    let diff = (0..needle.len())
        .find(|&i| at(i) != Some(needle[i]))
        .map(|i| {
            let file = at(i).unwrap_or_default();
            Difference {
                line: (offset + i as isize + 1).max(1) as usize,
                file: file.to_string(),
                old: needle[i].to_string(),
                kind: kind(file, needle[i]),
            }
        });
    let first = offset.max(0) as usize + 1;
    let last = ((offset + needle.len() as isize).min(n)).max(1) as usize;
    Some(Closest {
        first,
        last,
        matching,
        total: needle.len(),
        diff,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_region_with_most_matching_lines_wins() {
        let text = "fn a() {\n    one();\n}\nfn b() {\n    two();\n    three();\n}\n";
        let c = find(&Lines::new(text), "fn b() {\n    two();\n    thre();\n}").unwrap();
        assert_eq!((c.first, c.last, c.matching, c.total), (4, 7, 3, 4));
        let d = c.diff.unwrap();
        assert_eq!(
            (d.line, d.file.as_str(), d.old.as_str(), d.kind),
            (6, "    three();", "    thre();", None)
        );
    }

    #[test]
    fn differences_are_classified() {
        let text = "a = 1\nb = \"x\"\nc = 3\n";
        let c = find(&Lines::new(text), "a = 1\nb = \u{201C}x\u{201D}\nc = 3").unwrap();
        assert_eq!(c.diff.unwrap().kind, Some("quote/dash style"));
        let c = find(&Lines::new(text), "a = 1\n\nb = \"x\"").unwrap();
        assert_eq!(c.diff.unwrap().line, 2);
        assert!(find(&Lines::new(text), "zz").is_none());
    }
}
