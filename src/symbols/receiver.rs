//! The receiver of a member access (`recv.name`) and what a file binds names to, read from the
//! source text around a reference (Python and JavaScript): the facts `certainty` judges a
//! member access by. Syntax only — what a line binds (`x = new X()`, `import m as x`,
//! `x: X`), never a type flowing through calls or returns, which is a checker's work.

use regex_automata::meta::Regex;
use std::collections::HashMap;
use std::sync::OnceLock;

/// What stands before the `.` of a member access.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Receiver {
    /// `this`, `self` or `cls`: the enclosing class's instance (or the class).
    This,
    /// `super` (JS) or `super()` (Python): the enclosing class's bases.
    Super,
    /// A plain identifier (`util`, `app`, `Config`).
    Name(String),
    /// Anything else: a chain (`a.b.name`), a call's result, an index, a literal.
    Other,
}

/// What a file binds a name to, as far as the binding's own line says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Binding {
    /// A module: `import * as x from 'spec'`, `import x from 'spec'`, `import spec as x`; the
    /// spec as written (`./util.js`, `flask.typing`).
    Module(String),
    /// A CommonJS module's exports: `x = require('spec')`. Its members are the properties of
    /// `module.exports`, which alias the module's definitions (`module.exports = { fn }`).
    Exports(String),
    /// `from module import name [as x]` (Python): `name` is a submodule or a symbol of it.
    From(String, String),
    /// An instance of (or a reference to) the class named so: `new X(…)`, `X(…)` with a
    /// capitalised callee (Python), an annotation `x: X`.
    Instance(String),
}

/// The receiver of the use of a name at 1-based `col` (UTF-16 units) of `lines[row]`, or
/// `None` when the use is not a member access (nothing but `.`/`?.` may stand before it, and
/// a spread's `...` is no member access). A chain continued on a new line (`\n  .name()`)
/// has a receiver the line cannot show: `Other`.
pub fn receiver(lines: &[String], row: usize, col: u32) -> Option<Receiver> {
    let line = lines.get(row)?;
    let mut units = 0usize;
    let mut at = line.len();
    for (i, c) in line.char_indices() {
        if units + 1 >= col as usize {
            at = i;
            break;
        }
        units += c.len_utf16();
    }
    // A use opening its line is no member access: a chain continued on the next line keeps
    // its `.` there (`  .name()`), and the line above may be a comment ending in a period.
    let before = line[..at].trim_end();
    // `recv["name"]` (and `recv?.["name"]`) is the member access `recv.name` spelt as a key.
    let rest = match ["[\"", "['"].iter().find_map(|q| before.strip_suffix(q)) {
        Some(b) => b.strip_suffix("?.").unwrap_or(b).trim_end(),
        None => before
            .strip_suffix("?.")
            .or_else(|| before.strip_suffix('.'))?,
    };
    if rest.ends_with('.') {
        return None; // `...name`: a spread
    }
    let rest = rest.trim_end();
    let ident_start = rest
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_alphanumeric() || *c == '_' || *c == '$')
        .last()
        .map(|(i, _)| i);
    if let Some(start) = ident_start {
        let ident = &rest[start..];
        let head = rest[..start].trim_end();
        if head.ends_with('.')
            || head.ends_with('#')
            || ident.starts_with(|c: char| c.is_ascii_digit())
        {
            return Some(Receiver::Other);
        }
        return Some(match ident {
            "this" | "self" | "cls" => Receiver::This,
            "super" => Receiver::Super,
            _ => Receiver::Name(ident.to_string()),
        });
    }
    // `super()` (Python): the call of super with no arguments.
    let call = rest.strip_suffix(')').map(str::trim_end);
    if call.and_then(|c| c.strip_suffix('(')).is_some_and(|c| {
        c.trim_end().ends_with("super")
            && !c
                .trim_end()
                .strip_suffix("super")
                .is_some_and(|h| h.ends_with('.'))
    }) {
        return Some(Receiver::Super);
    }
    Some(Receiver::Other)
}

fn compiled(cell: &'static OnceLock<Vec<Regex>>, patterns: &[&str]) -> &'static [Regex] {
    cell.get_or_init(|| {
        patterns
            .iter()
            .map(|p| Regex::new(p).expect("binding pattern compiles"))
            .collect()
    })
}

/// Patterns of a JavaScript binding: group 1 the bound name, group 2 the module spec or the
/// class; the pattern's index says which.
const JS: [&str; 5] = [
    r#"(?:^|[^\w$.])(?:const|let|var)?\s*([A-Za-z_$][\w$]*)\s*=\s*require\(\s*['"]([^'"]+)['"]"#,
    r#"import\s+\*\s+as\s+([A-Za-z_$][\w$]*)\s+from\s+['"]([^'"]+)['"]"#,
    r#"import\s+([A-Za-z_$][\w$]*)\s*(?:,[^'"]*)?\s+from\s+['"]([^'"]+)['"]"#,
    r#"(?:^|[^\w$.])(?:const|let|var)?\s*([A-Za-z_$][\w$]*)\s*=\s*new\s+(?:[\w$]+\.)*([A-Za-z_$][\w$]*)"#,
    r#"@(?:param|type)\s*\{\s*(?:[\w$]+\.)*([A-Za-z_$][\w$]*)\s*\}\s*([A-Za-z_$][\w$]*)"#,
];

/// Python's: `import a.b as x`, `import a`, `from m import n as x`, `x = X(…)`, `x: X`.
const PY: [&str; 5] = [
    r"(?m)^\s*import\s+([\w.]+)\s+as\s+(\w+)\s*$",
    r"(?m)^\s*import\s+(\w+)[\w.]*\s*$",
    r"(?m)^\s*from\s+([\w.]+)\s+import\s+\(?([^()#\n]+)",
    r"(?m)(?:^|[^\w.])(\w+)\s*(?::[^=\n]+)?=\s*(?:\w+\.)*([A-Z]\w*)\(",
    r#"(?m)(?:^[ \t]*|[(,][ \t]*)(\w+)[ \t]*:[ \t]*['"]?(?:(?:t|typing)\.)?(?:Optional\[)?(?:\w+\.)*([A-Z]\w*)"#,
];

/// Every binding `text` makes, by bound name: (0-based line, what it binds), in line order.
pub fn bindings(text: &str, python: bool) -> HashMap<String, Vec<(usize, Binding)>> {
    static JS_RE: OnceLock<Vec<Regex>> = OnceLock::new();
    static PY_RE: OnceLock<Vec<Regex>> = OnceLock::new();
    let res = if python {
        compiled(&PY_RE, &PY)
    } else {
        compiled(&JS_RE, &JS)
    };
    let line_of = |at: usize| text[..at].bytes().filter(|&b| b == b'\n').count();
    let mut out: HashMap<String, Vec<(usize, Binding)>> = HashMap::new();
    for (k, re) in res.iter().enumerate() {
        for caps in re.captures_iter(text) {
            let Some(a) = caps.get_group(1) else {
                continue;
            };
            let a = &text[a.range()];
            let b = caps.get_group(2).map_or("", |b| &text[b.range()]);
            let line = line_of(caps.get_match().map_or(0, |m| m.start()));
            let mut add = |name: &str, binding: Binding| {
                out.entry(name.to_string())
                    .or_default()
                    .push((line, binding));
            };
            match (python, k) {
                (false, 0) => add(a, Binding::Exports(b.to_string())),
                (false, 1 | 2) => add(a, Binding::Module(b.to_string())),
                (false, 3) => add(a, Binding::Instance(b.to_string())),
                (false, _) => add(b, Binding::Instance(a.to_string())),
                (true, 0) => add(b, Binding::Module(a.to_string())),
                (true, 1) => add(a, Binding::Module(a.to_string())),
                (true, 2) => {
                    for item in b.split(',') {
                        let mut words = item.split_whitespace();
                        let (Some(name), alias) = (words.next(), words.nth(1)) else {
                            continue;
                        };
                        add(
                            alias.unwrap_or(name),
                            Binding::From(a.to_string(), name.to_string()),
                        );
                    }
                }
                (true, _) => add(a, Binding::Instance(b.to_string())),
            }
        }
    }
    for list in out.values_mut() {
        list.sort_by_key(|(line, _)| *line);
    }
    out
}

/// The binding of `name` in force at 0-based `row` among those `visible` from it (a
/// function's parameters and locals are not visible outside it): the last one on or above
/// it, else the first below (a module-level name bound after the function using it).
pub fn binding_at<'a>(
    all: &'a HashMap<String, Vec<(usize, Binding)>>,
    name: &str,
    row: usize,
    visible: impl Fn(usize) -> bool,
) -> Option<&'a Binding> {
    let list = all.get(name)?;
    list.iter()
        .rev()
        .find(|(line, _)| *line <= row && visible(*line))
        .or_else(|| list.iter().find(|(line, _)| visible(*line)))
        .map(|(_, b)| b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recv(line: &str, nth: usize, name: &str) -> Option<Receiver> {
        let at = line.match_indices(name).nth(nth).unwrap().0;
        receiver(&[line.to_string()], 0, u32::try_from(at + 1).unwrap())
    }

    #[test]
    fn receivers_are_read_back_from_the_dot() {
        let line = "x = this.go() + self.go + super().go() + util.go + a.b.go + f().go + [...go] + go + super.go + obj?.go";
        assert_eq!(recv(line, 0, "go"), Some(Receiver::This));
        assert_eq!(recv(line, 1, "go"), Some(Receiver::This));
        assert_eq!(recv(line, 2, "go"), Some(Receiver::Super));
        assert_eq!(recv(line, 3, "go"), Some(Receiver::Name("util".into())));
        assert_eq!(recv(line, 4, "go"), Some(Receiver::Other));
        assert_eq!(recv(line, 5, "go"), Some(Receiver::Other));
        assert_eq!(recv(line, 6, "go"), None, "a spread is no member access");
        assert_eq!(recv(line, 7, "go"), None);
        assert_eq!(recv(line, 8, "go"), Some(Receiver::Super));
        assert_eq!(recv(line, 9, "go"), Some(Receiver::Name("obj".into())));
        assert_eq!(recv("this.#p.go()", 0, "go"), Some(Receiver::Other));
        assert_eq!(
            recv("obj[\"go\"]()", 0, "go"),
            Some(Receiver::Name("obj".into()))
        );
        assert_eq!(recv("this?.['go']", 0, "go"), Some(Receiver::This));
        let chained = ["a".to_string(), "  .go()".to_string()];
        assert_eq!(receiver(&chained, 1, 4), Some(Receiver::Other));
        let after_comment = ["// the end.".to_string(), "go()".to_string()];
        assert_eq!(receiver(&after_comment, 1, 1), None);
    }

    #[test]
    fn js_bindings() {
        let text = "const util = require('../core/util.js')\nimport * as ns from './ns'\nlet cache = new LRU()\nconst { a } = require('x')\n/** @param {Agent} agent */\n";
        let b = bindings(text, false);
        assert_eq!(
            binding_at(&b, "util", 9, |_| true),
            Some(&Binding::Exports("../core/util.js".into()))
        );
        assert_eq!(
            binding_at(&b, "ns", 9, |_| true),
            Some(&Binding::Module("./ns".into()))
        );
        assert_eq!(
            binding_at(&b, "cache", 9, |_| true),
            Some(&Binding::Instance("LRU".into()))
        );
        assert_eq!(
            binding_at(&b, "agent", 9, |_| true),
            Some(&Binding::Instance("Agent".into()))
        );
        assert_eq!(binding_at(&b, "a", 9, |_| true), None);
    }

    #[test]
    fn python_bindings() {
        let text = "import uuid\nimport flask.typing as ft\nfrom . import types, utils as u\nfrom .app import Flask\n\ndef f(app: Flask, ctx: t.Optional[Context]) -> None:\n    fmt = HelpFormatter(width=3)\n    n: int = 1\n";
        let b = bindings(text, true);
        assert_eq!(
            binding_at(&b, "uuid", 9, |_| true),
            Some(&Binding::Module("uuid".into()))
        );
        assert_eq!(
            binding_at(&b, "ft", 9, |_| true),
            Some(&Binding::Module("flask.typing".into()))
        );
        assert_eq!(
            binding_at(&b, "types", 9, |_| true),
            Some(&Binding::From(".".into(), "types".into()))
        );
        assert_eq!(
            binding_at(&b, "u", 9, |_| true),
            Some(&Binding::From(".".into(), "utils".into()))
        );
        assert_eq!(
            binding_at(&b, "Flask", 9, |_| true),
            Some(&Binding::From(".app".into(), "Flask".into()))
        );
        assert_eq!(
            binding_at(&b, "app", 9, |_| true),
            Some(&Binding::Instance("Flask".into()))
        );
        assert_eq!(
            binding_at(&b, "ctx", 9, |_| true),
            Some(&Binding::Instance("Context".into()))
        );
        assert_eq!(
            binding_at(&b, "fmt", 9, |_| true),
            Some(&Binding::Instance("HelpFormatter".into()))
        );
        assert_eq!(binding_at(&b, "n", 9, |_| true), None);
    }
}
