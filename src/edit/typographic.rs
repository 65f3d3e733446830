//! Typographic folding for tier 5: curly quotes, dashes, non-breaking and other Unicode
//! spaces, and the ellipsis compared as their ASCII forms (the set codex's `seek_sequence`
//! normalises). Models often "prettify" punctuation they copy; source code almost never
//! contains these characters, so folding them is a cheap, low-risk equivalence.
//!
//! Comparison folds on the fly (no allocation per line), so the tier is one linear pass.

use super::cascade::{disproportionate, line_tier, Needle, Region};
use super::Lines;

/// The ASCII form of a typographic character (up to three characters), or `None` when the
/// character is not one this module folds.
fn fold_char(c: char) -> Option<&'static str> {
    Some(match c {
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' | '\u{2032}' => "'",
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' | '\u{2033}' | '\u{00AB}'
        | '\u{00BB}' => "\"",
        '\u{2010}' | '\u{2011}' | '\u{2012}' | '\u{2013}' | '\u{2014}' | '\u{2015}'
        | '\u{2212}' => "-",
        '\u{00A0}' | '\u{2002}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}' => " ",
        '\u{2026}' => "...",
        _ => return None,
    })
}

/// Whether `s` contains any character this module folds.
pub fn has_typographic(s: &str) -> bool {
    !s.is_ascii() && s.chars().any(|c| fold_char(c).is_some())
}

/// The characters of `s` with typographic ones folded to ASCII and runs of `-` read as one
/// (a typographer turns `--` into an em dash, so `—` must compare equal to `-` and `--`).
fn folded(s: &str) -> impl Iterator<Item = char> + '_ {
    let mut prev_dash = false;
    s.chars()
        .flat_map(|c| {
            let mut buf = [None, None, None];
            match fold_char(c) {
                Some(ascii) => ascii.chars().zip(&mut buf).for_each(|(a, b)| *b = Some(a)),
                None => buf[0] = Some(c),
            }
            buf.into_iter().flatten()
        })
        .filter(move |&c| {
            let repeat = c == '-' && prev_dash;
            prev_dash = c == '-';
            !repeat
        })
}

/// `s` with typographic characters written in ASCII; dashes become `dash` (`-` or `--`,
/// whichever the file used where old_string had a dash).
pub fn fold_with(s: &str, dash: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match fold_char(c) {
            Some("-") => out.push_str(dash),
            Some(ascii) => out.push_str(ascii),
            None => out.push(c),
        }
    }
    out
}

/// `s` with typographic characters written in ASCII (dashes as `-`), dash runs kept.
pub fn fold(s: &str) -> String {
    fold_with(s, "-")
}

/// Whether a typographic dash in old_string's `needle` line stood for `--` in the `file` line.
pub fn dash_is_double(needle: &str, file: &str) -> bool {
    needle.chars().any(|c| fold_char(c) == Some("-")) && file.contains("--")
}

/// Whether two lines are equal once trimmed and folded (both trims also drop the Unicode
/// spaces folded here, so a non-breaking indent counts as indentation).
pub fn eq_line(a: &str, b: &str) -> bool {
    let (a, b) = (a.trim(), b.trim());
    if a.is_ascii() && b.is_ascii() {
        return a == b;
    }
    folded(a).eq(folded(b))
}

/// Tier 5's window predicate: every line equal once trimmed and folded.
pub fn tier(file: &[&str], needle: &[&str]) -> bool {
    file.iter().zip(needle).all(|(f, o)| eq_line(f, o))
}

/// For a one-line needle fragment: byte ranges `(start, end)` within `line` whose folded
/// text equals `needle` folded (non-overlapping, left to right).
pub fn find_in_line(line: &str, needle_folded: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    if needle_folded.is_empty() {
        return out;
    }
    let needle_folded: String = folded(needle_folded).collect();
    // An ASCII line folds to itself unless it has a dash run: search it as it is (the usual
    // case, and what keeps this tier linear without an allocation per line).
    if line.is_ascii() && !line.contains("--") {
        out.extend(
            line.match_indices(needle_folded.as_str())
                .map(|(at, m)| (at, at + m.len())),
        );
        return out;
    }
    // Folded text plus the original byte offset each folded byte came from.
    let mut text = String::with_capacity(line.len());
    let mut origin = Vec::with_capacity(line.len() + 1);
    let mut utf8 = [0u8; 4];
    for (i, c) in line.char_indices() {
        let piece = fold_char(c).unwrap_or_else(|| c.encode_utf8(&mut utf8));
        if piece == "-" && text.ends_with('-') {
            continue;
        }
        origin.extend(std::iter::repeat_n(i, piece.len()));
        text.push_str(piece);
    }
    origin.push(line.len());
    for (at, m) in text.match_indices(needle_folded.as_str()) {
        let end_folded = at + m.len();
        // Never cut a folded multi-character expansion (e.g. half an ellipsis) at either edge.
        let starts_clean = at == 0 || origin[at - 1] != origin[at];
        let ends_clean = origin[end_folded] != origin[end_folded - 1];
        if starts_clean && ends_clean {
            out.push((origin[at], origin[end_folded]));
        }
    }
    out
}

/// Tier 5: whole lines, or for a one-line `old_string` a fragment within a line.
pub fn regions(text: &str, lines: &Lines, needle: &Needle) -> Vec<Region> {
    let found = line_tier(text, lines, needle, tier);
    // A fragment search only makes sense for a needle with typographic characters: an ASCII
    // fragment of an ASCII line was already looked up exactly.
    if !found.is_empty() || needle.lines.len() != 1 || !has_typographic(needle.text) {
        return found;
    }
    let part = fold(needle.lines[0].trim());
    if part.is_empty() {
        return found;
    }
    let mut out = Vec::new();
    for (i, line) in lines.lines.iter().enumerate() {
        for (a, b) in find_in_line(line, &part) {
            let (start, end) = (lines.starts[i] + a, lines.starts[i] + b);
            if !disproportionate(&text[start..end], needle) {
                out.push(Region {
                    start,
                    end,
                    line: i + 1,
                    count: 0,
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_quotes_dashes_spaces_and_ellipsis() {
        assert_eq!(
            fold("\u{201C}a\u{201D} \u{2018}b\u{2019} \u{2013}\u{2014}\u{00A0}\u{2026}"),
            "\"a\" 'b' -- ..."
        );
        assert!(has_typographic("x \u{2019}"));
        assert!(!has_typographic("plain é"));
    }

    #[test]
    fn line_equality_trims_and_folds() {
        assert!(eq_line("  say(\"hi\")", "say(\u{201C}hi\u{201D})  "));
        assert!(eq_line("a...", "a\u{2026}"));
        assert!(eq_line("count--;", "count\u{2014};"));
        assert!(eq_line("a - b", "a \u{2013} b"));
        assert!(!eq_line("a..", "a\u{2026}"));
        assert!(!eq_line("say('hi')", "say(\u{201C}hi\u{201D})"));
    }

    #[test]
    fn fragments_map_back_to_original_bytes() {
        let line = "  msg = \u{201C}it\u{2019}s\u{201D} + x";
        let found = find_in_line(line, &fold("\u{201C}it's\u{201D}"));
        assert_eq!(found.len(), 1);
        assert_eq!(&line[found[0].0..found[0].1], "\u{201C}it\u{2019}s\u{201D}");
        assert_eq!(
            find_in_line("a\u{2026}b", ".b"),
            Vec::<(usize, usize)>::new()
        );
        assert_eq!(find_in_line("x = y--;", "y\u{2014};"), vec![(4, 8)]);
        assert_eq!(
            fold_with("a\u{2014}b \u{201C}c\u{201D}", "--"),
            "a--b \"c\""
        );
    }
}
