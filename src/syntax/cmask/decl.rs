//! The rules of one declaration-level statement (see [`super`]): names before a keyword that
//! starts a declaration, a macro alone on its line, extra names in the specifiers, macros
//! after the parameters, calling conventions, macro types, class heads.

use super::{Level, Masker, TYPE_WORDS, WITH_ARGS};

impl Masker<'_> {
    /// Looks at one declaration-level statement `a..b`, ended by `end`.
    pub(super) fn statement(&mut self, a: usize, b: usize, end: &str, levels: &[Level]) {
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
                i = self.unit_end(i, b, "<");
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
                    i = self.unit_end(i, b, "<");
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
            && class.is_none_or(|c| self.s(name_at) != c)
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
        let kr = inner.clone().all(|k| {
            if (k - inner.start) % 2 == 0 {
                self.name(k)
            } else {
                self.is(k, ",")
            }
        });
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
            // `DECLSPEC_ALIGN(8)` is one item of the run.
            i = self.unit_end(i, b, "(");
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

    /// The end of the unit starting with the name at `i`: its `::` parts and the groups
    /// opened by `group` (`<` for template arguments, `(` for a macro's arguments).
    fn unit_end(&self, i: usize, b: usize, group: &str) -> usize {
        let mut i = i + 1;
        loop {
            if self.is(i, "::") && self.name(i + 1) {
                i += 2;
            } else if self.is(i, group) {
                i = self.close(i, b);
            } else {
                return i;
            }
        }
    }
}
