//! JavaScript regular expressions, for the tools whose contract is JavaScript's `RegExp`
//! (`replace`, monitors' `ready_when` and `match`): the `regress` crate, an ECMAScript
//! engine (look-behind, backreferences, named groups, JS escapes and flags), plus
//! `String.prototype.replace`'s replacement syntax (`GetSubstitution`).
//!
//! Non-goal: UTF-16 code-unit semantics for lone surrogates — Rust strings hold code points,
//! so `.` never matches half of an astral character (JavaScript without `u` can).

use regress::{Match, Regex};

/// A compiled JavaScript regex.
pub struct JsRegex {
    re: Regex,
    /// Whether the pattern has named groups (`$<name>` is literal otherwise).
    named: bool,
}

impl std::fmt::Debug for JsRegex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("JsRegex")
    }
}

impl JsRegex {
    /// Compiles `pattern` with JavaScript `flags` (`i`, `m`, `s`, `u`…; `g` and `y` are
    /// accepted and change nothing here: iteration is the caller's). The error is the
    /// engine's description, for `Invalid regex: <msg>`.
    pub fn new(pattern: &str, flags: &str) -> Result<JsRegex, String> {
        let flags: String = flags
            .chars()
            .filter(|c| !matches!(c, 'g' | 'y' | 'd'))
            .collect();
        let re = Regex::with_flags(pattern, flags.as_str()).map_err(|e| e.to_string())?;
        let named = re
            .find("")
            .map(|m| m.named_groups().next().is_some())
            .unwrap_or_else(|| pattern.contains("(?<"));
        Ok(JsRegex { re, named })
    }

    /// Whether the regex matches anywhere in `text` (`RegExp.prototype.test`).
    pub fn is_match(&self, text: &str) -> bool {
        self.re.find(text).is_some()
    }

    /// Every match, left to right, as `String.prototype.replace` with a `g` regex finds
    /// them (an empty match advances by one character).
    pub fn find_iter<'a>(&'a self, text: &'a str) -> impl Iterator<Item = Match> + 'a {
        self.re.find_iter(text)
    }

    /// `text.replace(/re/g, replacement)`: the new text and the number of matches.
    pub fn replace_all(&self, text: &str, replacement: &str) -> (String, usize) {
        let mut out = String::with_capacity(text.len());
        let mut last = 0;
        let mut count = 0;
        for m in self.find_iter(text) {
            out.push_str(&text[last..m.start()]);
            self.expand(&m, text, replacement, &mut out);
            last = m.end();
            count += 1;
        }
        out.push_str(&text[last..]);
        (out, count)
    }

    /// ECMAScript `GetSubstitution`: `$$`, `$&`, `` $` ``, `$'`, `$n`/`$nn` (1–99, two digits
    /// when that group exists, else one), `$<name>` (when the pattern has named groups);
    /// anything else is literal. A group that did not participate gives "".
    pub fn expand(&self, m: &Match, text: &str, replacement: &str, out: &mut String) {
        let groups = m.captures.len();
        let group = |i: usize, out: &mut String| {
            if let Some(r) = m.group(i) {
                out.push_str(&text[r]);
            }
        };
        let b = replacement.as_bytes();
        let mut i = 0;
        while i < b.len() {
            let rest = &replacement[i..];
            let Some(next) = rest.find('$') else {
                out.push_str(rest);
                break;
            };
            out.push_str(&rest[..next]);
            i += next;
            let after = b.get(i + 1).copied();
            match after {
                Some(b'$') => {
                    out.push('$');
                    i += 2;
                }
                Some(b'&') => {
                    out.push_str(&text[m.range()]);
                    i += 2;
                }
                Some(b'`') => {
                    out.push_str(&text[..m.start()]);
                    i += 2;
                }
                Some(b'\'') => {
                    out.push_str(&text[m.end()..]);
                    i += 2;
                }
                Some(d) if d.is_ascii_digit() => {
                    let one = usize::from(d - b'0');
                    let two = b
                        .get(i + 2)
                        .filter(|c| c.is_ascii_digit())
                        .map(|c| one * 10 + usize::from(c - b'0'));
                    match two {
                        Some(n) if (1..=groups).contains(&n) => {
                            group(n, out);
                            i += 3;
                        }
                        _ if (1..=groups).contains(&one) => {
                            group(one, out);
                            i += 2;
                        }
                        _ => {
                            out.push('$');
                            i += 1;
                        }
                    }
                }
                Some(b'<') if self.named => match replacement[i + 2..].find('>') {
                    Some(end) => {
                        let name = &replacement[i + 2..i + 2 + end];
                        if let Some(r) = m.named_group(name) {
                            out.push_str(&text[r]);
                        }
                        i += 2 + end + 1;
                    }
                    None => {
                        out.push('$');
                        i += 1;
                    }
                },
                _ => {
                    out.push('$');
                    i += 1;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::JsRegex;

    fn rep(p: &str, flags: &str, text: &str, r: &str) -> String {
        JsRegex::new(p, flags).unwrap().replace_all(text, r).0
    }

    // Expected values are what Node prints for `text.replace(new RegExp(p, 'g' + flags), r)`.
    #[test]
    fn replacement_syntax_like_javascript() {
        assert_eq!(rep("(a)(b)?", "", "ac ab", "[$1|$2]"), "[a|]c [a|b]");
        assert_eq!(rep("b", "", "abc", "$`|$&|$'"), "aa|b|cc");
        assert_eq!(rep("b", "", "abc", "$$1 $0 $"), "a$1 $0 $c");
        assert_eq!(rep("(x)", "", "x", "$10"), "x0");
        assert_eq!(rep("(?<w>o+)", "", "foo", "<$<w>|$<nope>>"), "f<oo|>");
        assert_eq!(rep("o", "", "foo", "$<w>"), "f$<w>$<w>");
        assert_eq!(rep("(?<=a)b", "", "ab cb", "X"), "aX cb");
        assert_eq!(rep("(\\w)\\1", "", "aa ab", "<$1>"), "<a> ab");
        assert_eq!(rep("^x", "m", "x\nx", "y"), "y\ny");
        assert_eq!(rep("a.b", "s", "a\nb", "_"), "_");
        assert_eq!(rep("A", "i", "aA", "b"), "bb");
    }

    #[test]
    fn errors_and_tests() {
        assert!(JsRegex::new("(", "").is_err());
        assert!(JsRegex::new("a", "").unwrap().is_match("cat"));
        assert!(!JsRegex::new("a+", "").unwrap().is_match(""));
        assert!(JsRegex::new("a*", "").unwrap().is_match(""));
    }
}
