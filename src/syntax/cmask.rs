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
const KEYWORDS: &[&str] = &[
    "alignas",
    "alignof",
    "asm",
    "auto",
    "bool",
    "break",
    "case",
    "catch",
    "char",
    "char8_t",
    "char16_t",
    "char32_t",
    "class",
    "concept",
    "const",
    "consteval",
    "constexpr",
    "constinit",
    "const_cast",
    "continue",
    "co_await",
    "co_return",
    "co_yield",
    "decltype",
    "default",
    "delete",
    "do",
    "double",
    "dynamic_cast",
    "else",
    "enum",
    "explicit",
    "export",
    "extern",
    "false",
    "final",
    "float",
    "for",
    "friend",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "mutable",
    "namespace",
    "new",
    "noexcept",
    "nullptr",
    "operator",
    "override",
    "private",
    "protected",
    "public",
    "register",
    "reinterpret_cast",
    "requires",
    "restrict",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "static_assert",
    "static_cast",
    "struct",
    "switch",
    "template",
    "this",
    "thread_local",
    "throw",
    "true",
    "try",
    "typedef",
    "typeid",
    "typename",
    "union",
    "unsigned",
    "using",
    "virtual",
    "void",
    "volatile",
    "wchar_t",
    "while",
    "_Atomic",
    "_Bool",
    "_Complex",
    "_Noreturn",
    "_Thread_local",
    "_Alignas",
    "__attribute__",
    "__attribute",
    "__declspec",
    "__asm__",
    "__asm",
    "__inline",
    "__inline__",
    "__restrict",
    "__restrict__",
    "__extension__",
    "__thread",
    "__cdecl",
    "__stdcall",
    "__fastcall",
    "__thiscall",
    "__vectorcall",
    "__clrcall",
    "__based",
    "__unaligned",
    "__ptr32",
    "__ptr64",
    "__forceinline",
    "_Nonnull",
    "_Nullable",
    "__typeof__",
    "__typeof",
    "typeof",
    "__int128",
    "__volatile__",
    "__const",
];

/// Keywords that name a type (or make one) in a declaration's specifiers.
const TYPE_WORDS: &[&str] = &[
    "auto",
    "bool",
    "char",
    "char8_t",
    "char16_t",
    "char32_t",
    "double",
    "float",
    "int",
    "long",
    "short",
    "signed",
    "unsigned",
    "void",
    "wchar_t",
    "_Bool",
    "_Complex",
    "decltype",
    "typename",
    "__int128",
    "typeof",
    "__typeof__",
    "__typeof",
];

/// Keywords followed by a parenthesised argument that belongs to them.
const WITH_ARGS: &[&str] = &[
    "__attribute__",
    "__attribute",
    "__declspec",
    "alignas",
    "_Alignas",
    "decltype",
    "noexcept",
    "throw",
    "__asm__",
    "__asm",
    "asm",
    "typeof",
    "__typeof__",
    "__typeof",
    "_Atomic",
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
                let delim = format!(")\"{}\"", &text[open..paren.min(b.len())]).replace(")\"", ")");
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

    /// Looks at one declaration-level statement `a..b`, ended by `end`.
    fn statement(&mut self, a: usize, b: usize, end: &str, levels: &[Level]) {
        if a >= b {
            return;
        }
        let class = levels.iter().rev().find_map(|l| match l {
            Level::Decl(n) => Some(n.clone()),
            Level::Code => None,
        });
        let class = class.flatten();
        // A statement without its `;` before a `}` is a macro (`UV_HANDLE_FIELDS`,
        // `_GLIBCXX_END_NAMESPACE_VERSION`).
        if end == "}" && self.units_only(a, b) {
            self.hide(a, b);
            return;
        }
        if matches!(self.s(a), "using" | "static_assert" | "friend") {
            return;
        }
        // The names and macro calls the statement starts with.
        let mut run = a;
        let mut first_line_end = None;
        while run < b && self.name(run) {
            run += 1;
            if self.is(run, "(") {
                run = self.close(run, b);
            }
            let broke = self
                .toks
                .get(run)
                .is_some_and(|t| t.line > self.toks[run - 1].line);
            if broke && first_line_end.is_none() {
                first_line_end = Some(run);
            }
        }
        let mut a = a;
        if run > a
            && matches!(
                self.s(run),
                "template"
                    | "namespace"
                    | "typedef"
                    | "using"
                    | "class"
                    | "struct"
                    | "union"
                    | "enum"
                    | "extern"
                    | "friend"
                    | "static"
                    | "inline"
                    | "virtual"
                    | "explicit"
                    | "constexpr"
            )
        {
            // No name precedes these keywords: `V8_INLINE static T f()`,
            // `_GLIBCXX_BEGIN_NAMESPACE_VERSION template<…> class X`.
            self.hide(a, run);
            a = run;
        } else if let Some(p) = first_line_end.filter(|&p| p < b && self.head_has_type(p, b)) {
            // `DECLARE_X(…)` or `MI_EXPORT` alone on its line before a declaration that has
            // its own type (a type alone on its line before the name is left alone).
            self.hide(a, p);
            a = p;
        }
        self.declaration(a, b, end, class.as_deref());
    }

    /// Whether the head of the declaration `a..b` names a type before its first `(`: a type
    /// keyword, or two units (a unit: a name with its scopes and template arguments).
    fn head_has_type(&self, a: usize, b: usize) -> bool {
        let mut units = 0;
        let mut i = a;
        while i < b && !matches!(self.s(i), "(" | "=" | ";" | "[") {
            let s = self.s(i);
            if TYPE_WORDS.contains(&s) || matches!(s, "struct" | "class" | "union" | "enum") {
                return true;
            }
            if self.name(i) {
                units += 1;
                i += 1;
                loop {
                    if self.is(i, "::") && self.name(i + 1) {
                        i += 2;
                    } else if self.is(i, "<") {
                        i = self.close(i, b);
                    } else {
                        break;
                    }
                }
                continue;
            }
            i += 1;
        }
        units >= 2
    }

    /// One declaration `a..b` (past any macros that led it).
    fn declaration(&mut self, a: usize, b: usize, end: &str, class: Option<&str>) {
        // Items of the head: keywords, punctuation, and units (a name with its `::` parts
        // and template arguments).
        let mut units: Vec<(usize, usize)> = Vec::new();
        let mut typed = false;
        let mut class_key = false;
        let mut i = a;
        while i < b {
            let s = self.s(i);
            match s {
                "(" | "=" | "[" | ":" | "," | "{" => break,
                "operator" => return,
                "template" if self.is(i + 1, "<") => {
                    i = self.close(i + 1, b);
                    continue;
                }
                "class" | "struct" | "union" | "enum" => {
                    self.class_head(i, b, end);
                    class_key = true;
                    typed = true;
                    // `struct S` is the type: skip its name.
                    i += 1;
                    while i < b && (self.name(i) || self.is(i, "::")) {
                        i += 1;
                    }
                    continue;
                }
                _ if WITH_ARGS.contains(&s) => {
                    typed |= TYPE_WORDS.contains(&s);
                    i += 1;
                    if self.is(i, "(") {
                        i = self.close(i, b);
                    }
                    continue;
                }
                _ if TYPE_WORDS.contains(&s) => typed = true,
                _ if self.name(i) => {
                    let u0 = i;
                    i += 1;
                    loop {
                        if self.is(i, "::") && self.name(i + 1) {
                            i += 2;
                        } else if self.is(i, "<") {
                            i = self.close(i, b);
                        } else {
                            break;
                        }
                    }
                    units.push((u0, i));
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
        let head_end = i;
        if class_key && !self.is(head_end, "(") {
            return;
        }
        // Only the type precedes the `(` (no declared name yet): `int (WINAPI *cb)(…)`.
        let bare_type = if typed {
            units.is_empty()
        } else {
            units.len() == 1
        };
        if let Some(cc) = self.callconv(head_end, bare_type, b) {
            self.hide(cc, cc + 1);
            return;
        }
        let Some(&(name_at, _)) = units.last() else {
            return;
        };
        // The declared name is the last unit; the others are the type and macros.
        let before = &units[..units.len() - 1];
        let ctor = class.is_some_and(|c| self.s(name_at) == c && self.is(head_end, "("))
            || (name_at > a && self.is(name_at - 1, "~"));
        let typedef = self.is(a, "typedef");
        // `Array(T) name;`: a macro used as a type (no type before it).
        if before.is_empty()
            && !typed
            && !ctor
            && self.is(head_end, "(")
            && !class.is_some_and(|c| self.s(name_at) == c)
        {
            let close = self.close(head_end, b);
            let after_ok = (close..b).all(|k| self.name(k) || self.is(k, "*") || self.is(k, "&"))
                && close < b
                && self.name(b - 1)
                && !self.starts_pointer(head_end + 1);
            if after_ok && (typedef || class.is_some() || end == ";") {
                self.hide(head_end, close);
            }
            return;
        }
        let mut keep: Option<usize> = None;
        if !typed && !ctor {
            // The type: a unit with template arguments or a scope, else the first one
            // followed by `*` or `&`, else the last.
            let marked: Vec<usize> = (0..before.len())
                .filter(|&k| {
                    let (s, e) = before[k];
                    (s..e).any(|t| self.is(t, "<") || self.is(t, "::"))
                })
                .collect();
            keep = if marked.len() == 1 {
                Some(marked[0])
            } else {
                (0..before.len())
                    .find(|&k| matches!(self.s(before[k].1), "*" | "&" | "&&"))
                    .or(before.len().checked_sub(1))
            };
        }
        for (k, &(s, e)) in before.iter().enumerate() {
            if Some(k) != keep && e - s == 1 {
                self.hide(s, e);
            }
        }
        if self.is(head_end, "(") {
            let close = self.close(head_end, b);
            if typed || !before.is_empty() || ctor {
                self.trailing(head_end, close, b);
            }
        }
    }

    /// `(WINAPI *name)(…)` after a type alone: the calling convention's index.
    fn callconv(&self, open: usize, bare_type: bool, b: usize) -> Option<usize> {
        let shape = bare_type
            && self.is(open, "(")
            && self.name(open + 1)
            && matches!(self.s(open + 2), "*" | "&" | "^")
            && self.is(self.close(open, b), "(");
        shape.then_some(open + 1)
    }

    fn starts_pointer(&self, i: usize) -> bool {
        matches!(self.s(i), "*" | "&" | "^") || (self.name(i) && matches!(self.s(i + 1), "*" | "&"))
    }

    /// Macros after the parameter list `open..close` of a declaration ending at `b`.
    fn trailing(&mut self, open: usize, close: usize, b: usize) {
        // A K&R parameter list (`f(a, b) int a; …`): names only.
        let inner = open + 1..close.saturating_sub(1);
        let kr = inner
            .clone()
            .all(|k| if (k - inner.start) % 2 == 0 { self.name(k) } else { self.is(k, ",") });
        if !inner.is_empty() && kr {
            return;
        }
        let mut found: Vec<(usize, usize)> = Vec::new();
        let mut i = close;
        while i < b {
            let s = self.s(i);
            match s {
                "const" | "volatile" | "override" | "final" | "&" | "&&" | "mutable" => i += 1,
                _ if WITH_ARGS.contains(&s) => {
                    i += 1;
                    if self.is(i, "(") {
                        i = self.close(i, b);
                    }
                }
                "[" if self.is(i + 1, "[") => i = self.close(i, b),
                ":" | "=" | "->" | "try" => break,
                _ if self.name(i) => {
                    let s0 = i;
                    i += 1;
                    if self.is(i, "(") {
                        i = self.close(i, b);
                    }
                    found.push((s0, i));
                }
                _ => return,
            }
        }
        for (s, e) in found {
            self.hide(s, e);
        }
    }

    /// `class V8_EXPORT V8_NODISCARD Name final : …`: the names before the class's own.
    fn class_head(&mut self, key: usize, b: usize, end: &str) {
        let mut run: Vec<(usize, usize)> = Vec::new();
        let mut i = key + 1;
        while i < b && self.name(i) {
            let s0 = i;
            i += 1;
            loop {
                if self.is(i, "::") && self.name(i + 1) {
                    i += 2;
                } else if self.is(i, "(") {
                    // `DECLSPEC_ALIGN(8)`.
                    i = self.close(i, b);
                } else {
                    break;
                }
            }
            run.push((s0, i));
        }
        let opens = (i == b && end == "{")
            || matches!(self.s(i), ":" | "final" | "<")
                && !(self.is(i, ":") && self.is(i + 1, ":"));
        if run.len() >= 2 && opens {
            for &(s, e) in &run[..run.len() - 1] {
                self.hide(s, e);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::mask;

    fn masked(src: &str) -> String {
        mask(src).map_or_else(|| src.to_string(), |(m, _)| m)
    }

    /// `src` with each of `words` (in order, each after the previous) blanked.
    fn blanked(src: &str, words: &[&str]) -> String {
        let mut out = src.to_string();
        let mut from = 0;
        for w in words {
            let at = from + out[from..].find(w).unwrap();
            out.replace_range(at..at + w.len(), &" ".repeat(w.len()));
            from = at + w.len();
        }
        out
    }

    #[test]
    fn masks_macros_in_declarations_only() {
        let cases: [(&str, &[&str]); 12] = [
            ("class V8_EXPORT Isolate {\n};\n", &["V8_EXPORT"]),
            (
                "struct V8_EXPORT V8_NODISCARD S final : B {};",
                &["V8_EXPORT", "V8_NODISCARD"],
            ),
            (
                "mi_decl_nodiscard size_t f(void) mi_attr_noexcept {\n  if (x) y(1);\n}\n",
                &["mi_decl_nodiscard", "mi_attr_noexcept"],
            ),
            ("void mi_cdecl f(void);", &["mi_cdecl"]),
            ("typedef int (WINAPI *cb)(int);", &["WINAPI"]),
            ("typedef Array(Subtree) SubtreeArray;", &["(Subtree)"]),
            ("struct S {\n  UV_HANDLE_FIELDS\n};", &["UV_HANDLE_FIELDS"]),
            (
                "struct S {\n  UV_REQ_FIELDS\n  cb_t cb;\n};",
                &["UV_REQ_FIELDS"],
            ),
            (
                "namespace std {\nV8_INLINE static T* f() { return 0; }\n}",
                &["V8_INLINE"],
            ),
            (
                "class A {\n  A() _GLIBCXX_NOEXCEPT : x(1) { }\n  size_t size() const NOEXC;\n};",
                &["_GLIBCXX_NOEXCEPT", "NOEXC"],
            ),
            (
                "class A {\n  Q_OBJECT\npublic:\n  void f();\n};",
                &["Q_OBJECT"],
            ),
            (
                "PCRE2_EXP_DEFN int PCRE2_CALL_CONVENTION\nf(int a) {}",
                &["PCRE2_EXP_DEFN", "PCRE2_CALL_CONVENTION"],
            ),
        ];
        for (src, words) in cases {
            assert_eq!(masked(src), blanked(src, words), "{src}");
        }
        assert_eq!(
            masked("void* f(size_t n) ATTR;"),
            blanked("void* f(size_t n) ATTR;", &["ATTR"])
        );
        // Left alone: code, types on a line of their own, K&R definitions, ordinary
        // declarations, pointers, enums, preprocessor lines.
        for src in [
            "void f(void) {\n  if (p) free(p);\n  FOO BAR baz(1);\n}\n",
            "PCRE2_SPTR\nf(int a) {}",
            "int f(a, b) int a; char *b; {}",
            "struct S s;\nconst struct S *p;\nstatic unsigned long x = 1;\nstd::vector<int> v;",
            "static sljit_u8* f(int);\nT *g(void);\nint (*cb)(int);\nx_t (*h)(void);",
            "bool f(seg_t* s) {}\nvoid g(seg_t *s, int n);\nint (x_t *p);",
            "enum E {\n  A,\n  B\n};",
            "#define X(a) a b c(d) e\nint x;",
            "struct S { int x; } s;",
            "template <typename T> class X : public Y<T> { };",
            "extern \"C\" {\nint f(void);\n}",
        ] {
            assert_eq!(masked(src), src, "{src}");
        }
    }
}

/// Not a test: prints what [`mask`] hides in the file `MASK_FILE`.
#[cfg(test)]
#[test]
#[ignore]
fn dump_mask() {
    let Ok(path) = std::env::var("MASK_FILE") else {
        return;
    };
    let text = std::fs::read_to_string(path).unwrap();
    for r in mask(&text).map(|m| m.1).unwrap_or_default() {
        let line = text[..r.start].matches('\n').count() + 1;
        println!("{line}: {:?}", &text[r]);
    }
}
