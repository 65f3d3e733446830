//! Building grep's regex: the Rust engine first, PCRE2 when the pattern needs it.
//!
//! Like `rg --engine auto`: a pattern is compiled with `grep-regex` (finite automata,
//! literal optimisations); when that engine rejects it — look-around, backreferences and
//! other PCRE-only syntax — PCRE2 (`grep-pcre2`, JIT when available) is tried. If both
//! reject it, the Rust engine's explanation is reported as `Invalid regex: <detail>`.
//!
//! Flags: `^`/`$` always anchor at line boundaries; `ignore_case` is case folding;
//! `multiline` makes `.` match `\n` and lets matches cross lines. Without `multiline` the
//! Rust matcher is told `\n` terminates lines, which lets the searcher use its fast
//! line-oriented path (and makes a literal `\n` in the pattern an error, as in ripgrep).

use crate::error::{ToolError, ToolResult};

/// A compiled pattern on one of the two engines.
pub enum Engine {
    /// ripgrep's default engine.
    Rust(grep_regex::RegexMatcher),
    /// PCRE2, for look-around and backreferences.
    Pcre2(grep_pcre2::RegexMatcher),
}

/// Compiles `pattern`. Error: `invalid_input` `Invalid regex: <detail>`, field `pattern`.
pub fn build(pattern: &str, ignore_case: bool, multiline: bool) -> ToolResult<Engine> {
    let mut rust = grep_regex::RegexMatcherBuilder::new();
    rust.case_insensitive(ignore_case)
        .multi_line(true)
        .dot_matches_new_line(multiline)
        .line_terminator(if multiline { None } else { Some(b'\n') });
    let rust_err = match rust.build(pattern) {
        Ok(m) => return Ok(Engine::Rust(m)),
        Err(e) => e.to_string(),
    };
    // A literal line break without `multiline` can never match a line: say so instead of
    // letting PCRE2 accept a pattern that silently finds nothing.
    if !rust_err.contains("is not allowed in a regex") {
        let mut pcre = grep_pcre2::RegexMatcherBuilder::new();
        pcre.caseless(ignore_case)
            .multi_line(true)
            .dotall(multiline)
            .utf(true)
            .ucp(true)
            .jit_if_available(true);
        if let Ok(m) = pcre.build(pattern) {
            return Ok(Engine::Pcre2(m));
        }
    }
    Err(
        ToolError::invalid(format!("Invalid regex: {}", explain(pattern, &rust_err)))
            .with("pattern", pattern),
    )
}

/// The bytes of `pattern` when it is one plain literal that can only match inside a line
/// (no regex syntax, not case-insensitive, not `multiline`, no `\r` or `\n`): a file
/// whose raw bytes lack them cannot match, so [`crate::search::scan::Scanner`] skips it
/// before preparing and searching it. Parsed exactly as `grep-regex` translates a
/// pattern (same parser defaults, `utf8(false)`), so the bytes are the ones its matcher
/// looks for; anything else (a class, a repetition, inline flags that fold case, a parse
/// error) gives `None` and no pre-filter.
pub fn plain_literal(pattern: &str, ignore_case: bool, multiline: bool) -> Option<Vec<u8>> {
    use regex_syntax::hir::{translate::TranslatorBuilder, HirKind, Literal};
    if ignore_case || multiline {
        return None;
    }
    let ast = regex_syntax::ast::parse::Parser::new()
        .parse(pattern)
        .ok()?;
    let hir = TranslatorBuilder::new()
        .utf8(false)
        .multi_line(true)
        .build()
        .translate(pattern, &ast)
        .ok()?;
    match hir.kind() {
        HirKind::Literal(Literal(bytes))
            if !bytes.is_empty() && !bytes.contains(&b'\n') && !bytes.contains(&b'\r') =>
        {
            Some(bytes.to_vec())
        }
        _ => None,
    }
}

/// The parser's own explanation of `pattern` (caret under the user's text), else the
/// engine's message (size limits, a line terminator without `multiline`).
fn explain(pattern: &str, engine_err: &str) -> String {
    match regex_syntax::ast::parse::Parser::new().parse(pattern) {
        Err(e) => e.to_string(),
        Ok(_) => engine_err.trim().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engines_are_chosen_like_rg_auto() {
        assert!(matches!(build("fo+", false, false), Ok(Engine::Rust(_))));
        assert!(matches!(
            build("foo(?=bar)", false, false),
            Ok(Engine::Pcre2(_))
        ));
        assert!(matches!(
            build(r"(a)\1", false, false),
            Ok(Engine::Pcre2(_))
        ));
        let err = build("foo(", false, false).err().unwrap();
        assert_eq!(
            err.message,
            "Invalid regex: regex parse error:\n    foo(\n       ^\nerror: unclosed group"
        );
        assert_eq!(err.fields["pattern"], "foo(");
        assert!(build(r"a\nb", false, false).is_err());
        assert!(matches!(build(r"a\nb", false, true), Ok(Engine::Rust(_))));
    }

    #[test]
    fn plain_literals_only() {
        let lit = |p: &str| plain_literal(p, false, false);
        assert_eq!(lit("Ed25519").as_deref(), Some(&b"Ed25519"[..]));
        assert_eq!(lit(r"a\.b\(").as_deref(), Some(&b"a.b("[..]));
        assert_eq!(lit("é").as_deref(), Some("é".as_bytes()));
        assert_eq!(lit(r"\x{e9}").as_deref(), Some("é".as_bytes()));
        assert_eq!(lit("(?x) a b").as_deref(), Some(&b"ab"[..]));
        // Bytes that are not UTF-8 are what grep-regex (utf8 off) looks for too.
        assert_eq!(lit(r"(?-u:\xFF)").as_deref(), Some(&[0xFF][..]));
        for p in [
            "a.b", "a|b", "ab+", "(?i)ab", "a(?i:b)", "^ab", "ab$", r"\bab", "", "(", r"a\rb",
            r"a\nb",
        ] {
            assert_eq!(lit(p), None, "{p}");
        }
        assert_eq!(plain_literal("ab", true, false), None);
        assert_eq!(plain_literal("ab", false, true), None);
    }
}
