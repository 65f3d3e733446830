//! Why `old_string` was not found: the `no_match` error and its hints (CONTRACT §5).
//!
//! Two mistakes account for most misses and both are cheap to recognise: `old_string` was
//! copied with read_file's line-number prefixes, or its lines are right but their leading or
//! trailing spaces/tabs are not. The hint names the lines, so the model can re-read them.
//! Those two hints are the contract's and stand alone. Otherwise (improvement) the message
//! names the other likely causes found — typographic quotes, escape sequences — and the
//! closest candidate region with its first differing line shown with visible whitespace
//! ([`super::closest`]).

use super::closest::{self, Closest};
use super::{fmt_lines, typographic, Lines};
use crate::error::{Code, ToolError};

const BASE: &str = "old_string not found. It must match the file byte-for-byte (whitespace, indentation, and line breaks included) and must NOT include the line-number prefixes shown by read_file. Re-read the exact region and copy the text verbatim.";

const PREFIX_HINT: &str = " It looks like old_string still contains read_file's line-number prefixes (e.g. \"   12\\t\"): drop them so old_string is only the file's own text.";

/// Removes a read_file prefix (`^\s*\d+\t`) from one line, if it has one.
fn strip_prefix(line: &str) -> &str {
    let rest = line.trim_start();
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0 && rest.as_bytes().get(digits) == Some(&b'\t') {
        &rest[digits + 1..]
    } else {
        line
    }
}

/// 1-based first lines of every window of the file whose lines equal `old`'s lines once
/// leading and trailing spaces and tabs are ignored.
fn whitespace_only_matches(lines: &Lines, old: &str) -> Vec<usize> {
    let trim = |l: &str| -> String { l.trim_matches([' ', '\t']).to_string() };
    let mut needle: Vec<String> = old.split('\n').map(trim).collect();
    while needle.last().is_some_and(String::is_empty) {
        needle.pop();
    }
    let k = needle.len();
    if k == 0 || k > lines.lines.len() {
        return Vec::new();
    }
    (0..=lines.lines.len() - k)
        .filter(|&p| {
            lines.lines[p..p + k]
                .iter()
                .zip(&needle)
                .all(|(f, o)| f.trim_matches([' ', '\t']) == o)
        })
        .map(|p| p + 1)
        .collect()
}

/// The `no_match` error for an LF-normalised `old` that is absent from `text`.
pub fn no_match(text: &str, lines: &Lines, old: &str) -> ToolError {
    let stripped: Vec<&str> = old.split('\n').map(strip_prefix).collect();
    let stripped = stripped.join("\n");
    let hint = if stripped != old && !stripped.trim().is_empty() && text.contains(&stripped) {
        PREFIX_HINT.to_string()
    } else {
        match whitespace_only_matches(lines, old).as_slice() {
            [] => causes(text, lines, old),
            [one] => format!(" The text is present at line {one} {}", WS_TAIL),
            many => format!(
                " The text is present at lines {} {}",
                fmt_lines(many, 5),
                WS_TAIL
            ),
        }
    };
    ToolError::new(Code::NoMatch, format!("{BASE}{hint}"))
}

/// `s` with spaces shown as `·` and tabs as `→`, cut to 80 characters.
pub fn visible(s: &str) -> String {
    let mut out: String = s
        .chars()
        .take(80)
        .map(|c| match c {
            ' ' => '·',
            '\t' => '→',
            c => c,
        })
        .collect();
    if s.chars().count() > 80 {
        out.push('…');
    }
    out
}

/// Escape sequences of old_string that the file does not have there: never anywhere in the
/// file, or on an old_string line that the file does not contain.
fn foreign_escapes(text: &str, old: &str) -> Vec<&'static str> {
    [r"\n", r"\t", r#"\""#, r"\\"]
        .into_iter()
        .filter(|e| {
            old.contains(e)
                && (!text.contains(e)
                    || old
                        .lines()
                        .any(|l| l.contains(e) && !text.contains(l.trim())))
        })
        .collect()
}

/// The hints beyond the contract's two: quote style, escapes, the closest region.
fn causes(text: &str, lines: &Lines, old: &str) -> String {
    let mut out = String::new();
    if typographic::has_typographic(old) {
        out.push_str(" old_string contains typographic characters (curly quotes, long dashes, non-breaking spaces or an ellipsis); the file may use the plain ASCII quote style (\", ', -, ...) there.");
    }
    let escapes = foreign_escapes(text, old);
    if !escapes.is_empty() {
        out.push_str(&format!(
            " old_string contains escape sequences the file does not have there ({}): write the characters themselves (a real newline, tab, quote, single backslash) as they appear in the file.",
            escapes.join(", ")
        ));
    }
    if let Some(c) = closest::find(lines, old) {
        out.push_str(&closest_hint(&c));
    }
    out
}

fn closest_hint(c: &Closest) -> String {
    let span = if c.first == c.last {
        format!("line {}", c.first)
    } else {
        format!("lines {}-{}", c.first, c.last)
    };
    let mut s = format!(
        " The closest region is {span} ({} of {} lines match once trimmed)",
        c.matching, c.total
    );
    if let Some(d) = &c.diff {
        s.push_str(&format!(
            "; first difference at line {}: the file has \"{}\" where old_string has \"{}\"",
            d.line,
            visible(&d.file),
            visible(&d.old)
        ));
        if let Some(kind) = d.kind {
            s.push_str(&format!(" ({kind})"));
        }
    }
    s.push_str(". Re-read that region with read_file and copy it verbatim.");
    s
}

const WS_TAIL: &str = "but its leading/trailing whitespace differs from old_string. Re-read that region with read_file and copy the indentation verbatim.";

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(text: &str, old: &str) -> String {
        no_match(text, &Lines::new(text), old).message
    }

    #[test]
    fn plain_miss() {
        assert_eq!(msg("abc\n", "xyz"), BASE);
    }

    #[test]
    fn line_number_prefixes_are_recognised() {
        let m = msg(
            "fn a() {\n    b();\n}\n",
            "     1\tfn a() {\n     2\t    b();",
        );
        assert_eq!(m, format!("{BASE}{PREFIX_HINT}"));
        assert!(m.ends_with(
            r#"(e.g. "   12\t"): drop them so old_string is only the file's own text."#
        ));
    }

    #[test]
    fn other_causes_and_the_closest_region_are_named() {
        let text = "fn a() {\n    say(\"hi\");\n    done();\n}\n";
        let m = msg(
            text,
            "fn a() {\n    say(\u{201C}hi\u{201D});\n    don();\n}",
        );
        assert!(m.starts_with(BASE));
        assert!(m.contains(" old_string contains typographic characters"));
        assert!(m.ends_with(" The closest region is lines 1-4 (2 of 4 lines match once trimmed); first difference at line 2: the file has \"····say(\"hi\");\" where old_string has \"····say(\u{201C}hi\u{201D});\" (quote/dash style). Re-read that region with read_file and copy it verbatim."));
        let m = msg(text, r#"say(\"hi\");\n    donе();"#);
        assert!(m.contains(
            r#"old_string contains escape sequences the file does not have there (\n, \"): write"#
        ));
        // The file has `\n` in a string elsewhere: the escaped line is still named.
        let text = "fn a() {\n    say(\"hi\\n\");\n    done();\n}\n";
        let m = msg(text, r#"fn a() {\n    done());\n}"#);
        assert!(
            m.contains(r#"escape sequences the file does not have there (\n): write"#),
            "{m}"
        );
    }

    #[test]
    fn whitespace_differences_name_the_lines() {
        let text = "a\n  x\n  y\nb\n  x\n  y\n";
        assert_eq!(
            msg(text, "x\ny\n"),
            format!("{BASE} The text is present at lines 2, 5 but its leading/trailing whitespace differs from old_string. Re-read that region with read_file and copy the indentation verbatim.")
        );
        let many = "\tq\n".repeat(7);
        assert!(msg(&many, "q").contains("at lines 1, 2, 3, 4, 5, … but"));
        assert!(msg("  q\n", "q").contains(" The text is present at line 1 but"));
    }
}
