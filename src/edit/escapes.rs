//! Escape drift for tier 7: `old_string` written with one level of escaping too many — the
//! model JSON-escaped its text twice (`\n`, `\t`, `\"` where the file has a newline, a tab,
//! a quote), escaped only the quotes, or doubled every backslash. Each [`Decoder`] undoes one
//! of these; tier 7 tries them in order on `old_string` and, when one resolves to a region,
//! decodes `new_string` the same way (the model made the same mistake in both).

/// One way of undoing an extra level of escaping.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decoder {
    /// `\n`, `\t`, `\r`, `\"`, `\'`, `\\` → the characters (a JSON-style unescape).
    Json,
    /// `\"` and `\'` → the quote.
    Quotes,
    /// `\\` → `\`.
    Backslashes,
}

impl Decoder {
    /// Every decoder, in the order tier 7 tries them.
    pub const ALL: [Decoder; 3] = [Decoder::Json, Decoder::Quotes, Decoder::Backslashes];

    /// What this decoder read differently, for the success message.
    pub fn describe(self) -> &'static str {
        match self {
            Decoder::Json => {
                r#"escape sequences (\n, \t, \", \\) read as the characters they stand for"#
            }
            Decoder::Quotes => r#"escaped quotes (\") read as plain quotes"#,
            Decoder::Backslashes => r"doubled backslashes (\\) read as single ones",
        }
    }

    /// `s` with this decoder's escapes undone; unknown escapes are kept as written.
    pub fn decode(self, s: &str) -> String {
        let mut out = String::with_capacity(s.len());
        let mut chars = s.chars().peekable();
        while let Some(c) = chars.next() {
            if c != '\\' {
                out.push(c);
                continue;
            }
            let next = chars.peek().copied();
            let decoded = match (self, next) {
                (Decoder::Json, Some('n')) => Some('\n'),
                (Decoder::Json, Some('t')) => Some('\t'),
                (Decoder::Json, Some('r')) => Some('\r'),
                (Decoder::Json | Decoder::Backslashes, Some('\\')) => Some('\\'),
                (Decoder::Json | Decoder::Quotes, Some(q @ ('"' | '\''))) => Some(q),
                _ => None,
            };
            match decoded {
                Some(d) => {
                    out.push(d);
                    chars.next();
                }
                None => out.push('\\'),
            }
        }
        out
    }
}

/// Whether `s` contains anything a decoder could change.
pub fn has_escapes(s: &str) -> bool {
    s.contains('\\')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_undoes_one_level_of_escaping() {
        assert_eq!(
            Decoder::Json.decode(r#"if (a) {\n\tputs(\"x\\n\");\n}"#),
            "if (a) {\n\tputs(\"x\\n\");\n}"
        );
        assert_eq!(Decoder::Json.decode(r"a\qb\"), r"a\qb\");
    }

    #[test]
    fn quotes_and_backslashes_touch_only_their_escape() {
        assert_eq!(Decoder::Quotes.decode(r#"f(\"a\n\")"#), r#"f("a\n")"#);
        assert_eq!(
            Decoder::Backslashes.decode(r#"s = "\\n\\t""#),
            r#"s = "\n\t""#
        );
        assert_eq!(Decoder::Backslashes.decode(r#"\""#), r#"\""#);
    }
}
