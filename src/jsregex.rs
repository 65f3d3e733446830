//! JavaScript regular expressions, for the tools whose contract is JavaScript's `RegExp`
//! (`replace`, monitors' `ready_when` and `match`): the `regress` crate, an ECMAScript
//! engine (look-behind, backreferences, named groups, JS escapes and flags), plus
//! `String.prototype.replace`'s replacement syntax (`GetSubstitution`).
//!
//! Non-goal: UTF-16 code-unit semantics for lone surrogates — Rust strings hold code points,
//! so `.` never matches half of an astral character (JavaScript without `u` can).
//!
//! Every search is bounded: JavaScript regexes backtrack, and `(a+)+$` on a long run of `a`
//! takes exponential time. A search gets [`BASE_STEPS`] plus [`STEPS_PER_BYTE`] per byte of
//! its input in backtracking steps (the vendored `regress::budget`, see
//! `vendor/regress/VENDORED.md`) and a stop predicate (the call's cancellation); past either
//! it ends with [`Cut`] instead of an answer. Linear patterns never come near the budget:
//! `\w+foo` over prose takes a few steps per byte.

use regress::{Match, Regex};

/// One replacement: the match's range in the input and its replacement's in the output.
pub type Replaced = (std::ops::Range<usize>, std::ops::Range<usize>);

/// Backtracking steps every search may take, whatever its input's length.
pub const BASE_STEPS: u64 = 1_000_000;
/// Further backtracking steps per byte of input.
pub const STEPS_PER_BYTE: u64 = 100;

/// A search cut short: the pattern backtracked past its budget on this input, or the stop
/// predicate fired. Its result would be incomplete, so there is none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cut;

/// Runs `f` (searches of `len` bytes of input) under the budget and `stop`.
fn bounded<T>(len: usize, stop: &dyn Fn() -> bool, f: impl FnOnce() -> T) -> Result<T, Cut> {
    let steps = BASE_STEPS.saturating_add(STEPS_PER_BYTE.saturating_mul(len as u64));
    match regress::budget::run(steps, stop, f) {
        (v, true) => Ok(v),
        (_, false) => Err(Cut),
    }
}

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

    /// Whether the regex matches anywhere in `text` (`RegExp.prototype.test`), within the
    /// budget.
    pub fn is_match(&self, text: &str) -> Result<bool, Cut> {
        self.is_match_until(text, &|| false)
    }

    /// [`JsRegex::is_match`], also cut short once `stop` says so.
    pub fn is_match_until(&self, text: &str, stop: &dyn Fn() -> bool) -> Result<bool, Cut> {
        bounded(text.len(), stop, || self.re.find(text).is_some())
    }

    /// The ranges of every non-empty match, left to right (`text.matchAll(/re/g)`), within
    /// the budget.
    pub fn find_all(&self, text: &str) -> Result<Vec<std::ops::Range<usize>>, Cut> {
        bounded(text.len(), &|| false, || {
            self.re
                .find_iter(text)
                .map(|m| m.range())
                .filter(|r| !r.is_empty())
                .collect()
        })
    }

    /// `text.replace(/re/g, replacement)`: the new text and the number of matches (an empty
    /// match advances by one character), within the budget.
    pub fn replace_all(&self, text: &str, replacement: &str) -> Result<(String, usize), Cut> {
        self.replace_all_until(text, replacement, &|| false)
    }

    /// [`JsRegex::replace_all`], also cut short once `stop` says so.
    pub fn replace_all_until(
        &self,
        text: &str,
        replacement: &str,
        stop: &dyn Fn() -> bool,
    ) -> Result<(String, usize), Cut> {
        self.replace_all_recording(text, replacement, stop, None)
    }

    /// [`JsRegex::replace_all_until`], also recording each match: its range in `text` and the
    /// range its replacement takes in the result (how a result position maps back).
    pub fn replace_all_mapped(
        &self,
        text: &str,
        replacement: &str,
        stop: &dyn Fn() -> bool,
    ) -> Result<(String, usize, Vec<Replaced>), Cut> {
        let mut edits = Vec::new();
        let (out, n) = self.replace_all_recording(text, replacement, stop, Some(&mut edits))?;
        Ok((out, n, edits))
    }

    fn replace_all_recording(
        &self,
        text: &str,
        replacement: &str,
        stop: &dyn Fn() -> bool,
        mut edits: Option<&mut Vec<Replaced>>,
    ) -> Result<(String, usize), Cut> {
        bounded(text.len(), stop, || {
            let mut out = String::with_capacity(text.len());
            let mut last = 0;
            let mut count = 0;
            for m in self.re.find_iter(text) {
                out.push_str(&text[last..m.start()]);
                let at = out.len();
                self.expand(&m, text, replacement, &mut out);
                if let Some(e) = edits.as_deref_mut() {
                    e.push((m.range(), at..out.len()));
                }
                last = m.end();
                count += 1;
            }
            out.push_str(&text[last..]);
            (out, count)
        })
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
    use super::{Cut, JsRegex};

    fn rep(p: &str, flags: &str, text: &str, r: &str) -> String {
        JsRegex::new(p, flags)
            .unwrap()
            .replace_all(text, r)
            .unwrap()
            .0
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
        assert_eq!(JsRegex::new("a", "").unwrap().is_match("cat"), Ok(true));
        assert_eq!(JsRegex::new("a+", "").unwrap().is_match(""), Ok(false));
        assert_eq!(JsRegex::new("a*", "").unwrap().is_match(""), Ok(true));
    }

    #[test]
    fn catastrophic_backtracking_is_cut_not_hung() {
        let evil = JsRegex::new("(a+)+$", "").unwrap();
        let text = format!("{}!", "a".repeat(40));
        let started = std::time::Instant::now();
        assert_eq!(evil.is_match(&text), Err(Cut));
        assert_eq!(evil.replace_all(&text, "x"), Err(Cut));
        // 2^40 steps uncut; the budget ends it in well under a minute even in a debug build.
        assert!(started.elapsed() < std::time::Duration::from_secs(60));
        // The same pattern is answered where it does not explode, and the budget resets.
        assert_eq!(evil.is_match("aaaa"), Ok(true));
        assert_eq!(JsRegex::new("a", "").unwrap().is_match("cat"), Ok(true));
        // A stop predicate cuts a search short too.
        assert_eq!(evil.is_match_until(&text, &|| true), Err(Cut));
    }

    #[test]
    fn linear_patterns_on_large_inputs_stay_within_the_budget() {
        let text = "lorem ipsum dolor sit amet consectetur ".repeat(100_000);
        let re = JsRegex::new(r"\w+foo", "").unwrap();
        assert_eq!(re.is_match(&text), Ok(false));
        let (out, n) = JsRegex::new(r"(\w+) (\w+)", "")
            .unwrap()
            .replace_all(&text, "$2 $1")
            .unwrap();
        assert_eq!(n, 300_000);
        assert_eq!(out.len(), text.len());
    }
}
