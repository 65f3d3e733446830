//! C and C++ macros the grammar cannot know, hidden from the symbol engine's parse.
//!
//! Real C and C++ put macros where the language has specifiers: export and inline macros
//! before a declaration (`V8_EXPORT`, `mi_decl_nodiscard`), calling conventions before the
//! name (`void mi_cdecl f(void)`, `typedef int (WINAPI *cb)(…)`), attribute macros after the
//! parameters (`size() const _GLIBCXX_NOEXCEPT`, `f(void) mi_attr_noexcept {`), between a
//! class key and the class name (`class V8_EXPORT Isolate {`), as whole statements
//! (`_GLIBCXX_BEGIN_NAMESPACE_VERSION`, `UV_HANDLE_FIELDS` in a struct body, `Q_OBJECT`),
//! and as types (`typedef Array(Subtree) SubtreeArray;`). tree-sitter reads them as types or
//! names, and its error recovery then swallows or misplaces the definitions around them.
//!
//! [`mask`] finds such tokens from the declaration's shape alone — where the language
//! allows one type name, a second bare name is a macro; after a parameter list, a bare
//! name before `{` or `;` is one; a statement with no `;` is one — and replaces them with
//! spaces of the same byte length (newlines kept), so every offset, line and column of the
//! rest is unchanged. Only declaration levels are looked at (the file, namespaces,
//! `extern "C"` blocks, class bodies), never function bodies or initialisers, and
//! preprocessor lines are left alone. The symbol tools parse the masked text
//! ([`super::parse::parse_masked`]); `check_syntax` and the writers' warnings parse the file
//! as it is.

mod decl;

use std::ops::Range;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Tk {
    Ident,
    Punct,
    Lit,
}

#[derive(Clone, Copy, Debug)]
struct Tok {
    kind: Tk,
    start: usize,
    end: usize,
    line: usize,
}

/// Keywords that are never a macro's name (C and C++; a macro named so is not masked).
#[rustfmt::skip]
const KEYWORDS: &[&str] = &[
    "alignas", "alignof", "asm", "auto", "bool", "break", "case", "catch", "char", "char8_t",
    "char16_t", "char32_t", "class", "concept", "const", "consteval", "constexpr", "constinit",
    "const_cast", "continue", "co_await", "co_return", "co_yield", "decltype", "default",
    "delete", "do", "double", "dynamic_cast", "else", "enum", "explicit", "export", "extern",
    "false", "final", "float", "for", "friend", "goto", "if", "inline", "int", "long",
    "mutable", "namespace", "new", "noexcept", "nullptr", "operator", "override", "private",
    "protected", "public", "register", "reinterpret_cast", "requires", "restrict", "return",
    "short", "signed", "sizeof", "static", "static_assert", "static_cast", "struct", "switch",
    "template", "this", "thread_local", "throw", "true", "try", "typedef", "typeid", "typename",
    "union", "unsigned", "using", "virtual", "void", "volatile", "wchar_t", "while", "_Atomic",
    "_Bool", "_Complex", "_Noreturn", "_Thread_local", "_Alignas", "__attribute__",
    "__attribute", "__declspec", "__asm__", "__asm", "__inline", "__inline__", "__restrict",
    "__restrict__", "__extension__", "__thread", "__cdecl", "__stdcall", "__fastcall",
    "__thiscall", "__vectorcall", "__clrcall", "__based", "__unaligned", "__ptr32", "__ptr64",
    "__forceinline", "_Nonnull", "_Nullable", "__typeof__", "__typeof", "typeof", "__int128",
    "__volatile__", "__const",
];

/// Keywords that name a type (or make one) in a declaration's specifiers.
#[rustfmt::skip]
const TYPE_WORDS: &[&str] = &[
    "auto", "bool", "char", "char8_t", "char16_t", "char32_t", "double", "float", "int", "long",
    "short", "signed", "unsigned", "void", "wchar_t", "_Bool", "_Complex", "decltype",
    "typename", "__int128", "typeof", "__typeof__", "__typeof",
];

/// Keywords followed by a parenthesised argument that belongs to them.
#[rustfmt::skip]
const WITH_ARGS: &[&str] = &[
    "__attribute__", "__attribute", "__declspec", "alignas", "_Alignas", "decltype", "noexcept",
    "throw", "__asm__", "__asm", "asm", "typeof", "__typeof__", "__typeof", "_Atomic",
];

/// The masked copy of `text` and the masked ranges, or `None` when nothing is masked.
pub fn mask(text: &str) -> Option<(String, Vec<Range<usize>>)> {
    let toks = tokens(text);
    let mut m = Masker {
        text,
        toks: &toks,
        out: Vec::new(),
    };
    m.run();
    if m.out.is_empty() {
        return None;
    }
    let mut bytes = text.as_bytes().to_vec();
    m.out.sort_by_key(|r| r.start);
    for r in &m.out {
        for b in &mut bytes[r.clone()] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    }
    // Only ASCII bytes of whole tokens were replaced by ASCII spaces.
    let masked = String::from_utf8(bytes).ok()?;
    Some((masked, m.out))
}

fn tokens(text: &str) -> Vec<Tok> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut line = 0;
    let mut line_start = true;
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            line += 1;
            line_start = true;
            i += 1;
            continue;
        }
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'*') {
            i += 2;
            while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                if b[i] == b'\n' {
                    line += 1;
                }
                i += 1;
            }
            i = (i + 2).min(b.len());
            continue;
        }
        if c == b'#' && line_start {
            // A preprocessor line, with its continuations.
            while i < b.len() && b[i] != b'\n' {
                if b[i] == b'\\' && b.get(i + 1) == Some(&b'\n') {
                    line += 1;
                    i += 1;
                }
                i += 1;
            }
            continue;
        }
        line_start = false;
        let start = i;
        let kind = if c == b'_' || c == b'$' || c.is_ascii_alphabetic() {
            while i < b.len() && (b[i] == b'_' || b[i] == b'$' || b[i].is_ascii_alphanumeric()) {
                i += 1;
            }
            // A raw string (`R"x(…)x"`).
            if b.get(i) == Some(&b'"') && text[start..i].ends_with('R') {
                let open = i + 1;
                let paren = text[open..].find('(').map_or(b.len(), |p| open + p);
                let delim = format!("){}\"", &text[open..paren.min(b.len())]);
                i = text[paren.min(b.len())..]
                    .find(&delim)
                    .map_or(b.len(), |p| paren + p + delim.len());
                Tk::Lit
            } else {
                Tk::Ident
            }
        } else if c.is_ascii_digit() {
            while i < b.len()
                && (b[i].is_ascii_alphanumeric() || b[i] == b'.' || b[i] == b'\'' || b[i] == b'_')
            {
                i += 1;
            }
            Tk::Lit
        } else if c == b'"' || c == b'\'' {
            i += 1;
            while i < b.len() && b[i] != c && b[i] != b'\n' {
                if b[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            i = (i + 1).min(b.len());
            Tk::Lit
        } else {
            let two = b.get(i..i + 2).unwrap_or_default();
            i += if two == b"::" || two == b"->" || two == b"&&" {
                2
            } else {
                1
            };
            // Never split a UTF-8 character.
            while i < b.len() && !text.is_char_boundary(i) {
                i += 1;
            }
            Tk::Punct
        };
        out.push(Tok {
            kind,
            start,
            end: i.min(b.len()),
            line,
        });
    }
    out
}

struct Masker<'a> {
    text: &'a str,
    toks: &'a [Tok],
    out: Vec<Range<usize>>,
}

/// What a `{` opens.
#[derive(Clone, PartialEq)]
enum Level {
    /// Declarations: the file, a namespace, `extern "C"`, a class body (with its name).
    Decl(Option<String>),
    /// Code or data: a function body, an initialiser, an enum body.
    Code,
}

impl<'a> Masker<'a> {
    fn s(&self, i: usize) -> &'a str {
        self.toks.get(i).map_or("", |t| &self.text[t.start..t.end])
    }

    fn is(&self, i: usize, s: &str) -> bool {
        self.s(i) == s
    }

    fn ident(&self, i: usize) -> bool {
        self.toks.get(i).is_some_and(|t| t.kind == Tk::Ident)
    }

    /// A name that may be a macro: an identifier that is no keyword.
    fn name(&self, i: usize) -> bool {
        self.ident(i) && !KEYWORDS.contains(&self.s(i))
    }

    /// The index after the group that opens at `i` (`(`, `[`, `<` or `{`), or `end`.
    fn close(&self, i: usize, end: usize) -> usize {
        let (open, shut) = match self.s(i) {
            "(" => ("(", ")"),
            "[" => ("[", "]"),
            "<" => ("<", ">"),
            _ => ("{", "}"),
        };
        let mut depth = 0usize;
        let mut j = i;
        while j < end {
            let s = self.s(j);
            if s == open {
                depth += 1;
            } else if s == shut {
                depth -= 1;
                if depth == 0 {
                    return j + 1;
                }
            } else if open == "<" && matches!(s, ";" | "{" | "}") {
                return end;
            }
            j += 1;
        }
        end
    }

    /// Masks tokens `from..to`: one range per macro (a name with its arguments).
    fn hide(&mut self, from: usize, to: usize) {
        let mut depth = 0usize;
        for k in from..to.min(self.toks.len()) {
            let t = self.toks[k];
            let s = &self.text[t.start..t.end];
            let starts = depth == 0 && t.kind == Tk::Ident;
            match s {
                "(" => depth += 1,
                ")" => depth = depth.saturating_sub(1),
                _ => {}
            }
            match self.out.last_mut() {
                Some(r) if !starts && k > from => r.end = t.end,
                _ => self.out.push(t.start..t.end),
            }
        }
    }

    fn run(&mut self) {
        let mut levels = vec![Level::Decl(None)];
        let mut start = 0;
        let mut i = 0;
        while i < self.toks.len() {
            let decl = matches!(levels.last(), Some(Level::Decl(_)));
            match self.s(i) {
                "{" => {
                    let level = if decl {
                        self.opens(start, i)
                    } else {
                        Level::Code
                    };
                    if decl {
                        self.statement(start, i, "{", &levels);
                    }
                    levels.push(level);
                    start = i + 1;
                }
                "}" => {
                    if decl {
                        self.statement(start, i, "}", &levels);
                    }
                    if levels.len() > 1 {
                        levels.pop();
                    }
                    start = i + 1;
                }
                ";" if decl => {
                    self.statement(start, i, ";", &levels);
                    start = i + 1;
                }
                "(" | "[" if decl => {
                    // Never split a statement inside parentheses (`for (;;)` is code anyway).
                    let end = self.close(i, self.toks.len());
                    i = end;
                    continue;
                }
                ":" if decl
                    && i == start + 1
                    && matches!(self.s(start), "public" | "private" | "protected") =>
                {
                    start = i + 1;
                }
                ":" if decl
                    && i > start + 1
                    && matches!(
                        self.s(i - 1),
                        "public" | "private" | "protected" | "signals" | "slots"
                    )
                    && self.units_only(start, i - 1) =>
                {
                    // `Q_OBJECT` (or any statement-like macro) before an access label.
                    self.hide(start, i - 1);
                    start = i + 1;
                }
                _ => {}
            }
            i += 1;
        }
    }

    /// Whether `a..b` is only names and macro calls (`X`, `Y(…)`), at least one.
    fn units_only(&self, a: usize, b: usize) -> bool {
        let mut i = a;
        if a >= b {
            return false;
        }
        while i < b {
            if !self.name(i) {
                return false;
            }
            i += 1;
            if self.is(i, "(") {
                i = self.close(i, b);
            }
        }
        i == b
    }

    /// What the `{` at `at`, closing the head `start..at`, opens.
    fn opens(&self, start: usize, at: usize) -> Level {
        let mut i = start;
        while i < at {
            match self.s(i) {
                "namespace" => return Level::Decl(None),
                "extern" if self.toks.get(i + 1).is_some_and(|t| t.kind == Tk::Lit) => {
                    return Level::Decl(None)
                }
                "enum" | "=" | "(" => return Level::Code,
                "class" | "struct" | "union" => {
                    // The class's name: the last name before `{`, `:` or `final`.
                    let mut j = i + 1;
                    let mut last = None;
                    while j < at && !matches!(self.s(j), ":" | "final" | "{") {
                        if self.name(j) {
                            last = Some(self.s(j).to_string());
                        }
                        if self.is(j, "(") || self.is(j, "<") {
                            j = self.close(j, at);
                            continue;
                        }
                        j += 1;
                    }
                    return Level::Decl(last);
                }
                _ => i += 1,
            }
        }
        Level::Code
    }
}

#[cfg(test)]
mod tests;
