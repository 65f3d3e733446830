//! Which uses of a name are certainly its workspace definition's, in Python and JavaScript:
//! a member access `recv.name` means the definition only when the receiver is something that
//! has it — `this`/`self`/`cls` in the defining class or a subclass, `super` below it, the
//! container itself (`Config.load`, `opcodes.BINARY`), an instance bound by `new X(…)`, `X(…)`
//! or `x: X` of such a class, the module defining it (`util.fn` after `util =
//! require('./util')`, `ft.Name` after `from . import typing as ft`). A language server finds
//! those and leaves out receivers it cannot type; so do we, by the syntax of the receiver and
//! of the line binding it (`receiver`). The rest — a receiver known to be another class or
//! module, a variable's or function's name reached through some object, a receiver of unknown
//! type when the name has several definitions or is also a member of the language's built-in
//! types (`get`, `clear`, `index`) — is *uncertain*: `find_references` lists it apart, after
//! the certain uses, instead of guessing. A Python module path (`from .testing import x`)
//! names a file, never a definition, and is uncertain too. TypeScript keeps every use: its
//! annotations type receivers the syntax alone cannot, and its uses measured ≥ 95 % precise.
//!
//! Which file a module spec names, and where an import line spells a module, is
//! [`super::modpath`]'s: this module holds the rules, that one the path arithmetic.

use super::model::Role;
use super::modpath;
use super::ondemand::Parsed;
use super::receiver::{self, Binding, Receiver};
use super::texts::Lines;
use super::{DefHit, RefHit};
use crate::syntax::defs::SymbolKind;
use crate::syntax::Grammar;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// Member names of the built-in types (JS: Object, Array, Map, Set, String, RegExp results,
/// Promise, Node's streams, emitters and timers; Python: dict, list, set, str, bytes, files):
/// on a receiver of unknown type they are more likely the built-in's than a workspace method.
// Packed rows: one name a line would make this list a fifth of the module.
#[rustfmt::skip]
const BUILTIN_MEMBERS: &[&str] = &[
    "add", "append", "apply", "argv", "assign", "bind", "call", "catch", "clear", "close", "concat",
    "copy", "count", "create", "decode", "delete", "destroy", "discard", "emit", "encode", "end",
    "endswith", "entries", "every", "exec", "extend", "filter", "finally", "find", "flush",
    "forEach", "format", "freeze", "get", "has", "includes", "index", "indexOf", "insert", "items",
    "join", "keys", "length", "lower", "map", "match", "message", "name", "next", "off", "on",
    "once", "pipe", "pop", "push", "read", "readline", "readlines", "reduce", "register", "remove",
    "removeListener", "replace", "resume", "reverse", "seek", "send", "set", "setdefault", "shift",
    "size", "slice", "some", "sort", "splice", "split", "stack", "startswith", "strip", "test",
    "then", "toString", "trim", "unshift", "update", "upper", "values", "write",
];

fn judged(g: Grammar) -> bool {
    matches!(g, Grammar::Python | Grammar::JavaScript)
}

/// A file's lines and bindings, read once per call.
struct FileFacts {
    lines: Lines,
    bindings: Option<HashMap<String, Vec<(usize, Binding)>>>,
}

/// What the judgement of one name's uses needs, built once per call from the name's
/// definitions and the candidate files ([`Judge::new`]); then [`Judge::split`] sorts the
/// uses, all at once or a file at a time.
pub struct Judge<'a> {
    name: &'a str,
    /// The containers (last element) of the name's member definitions.
    definers: HashSet<&'a str>,
    /// The files defining the name at top level, as module keys.
    top_level: Vec<PathBuf>,
    /// Every file defining the name, as module keys.
    defining: Vec<PathBuf>,
    /// Distinct definitions of the name.
    distinct: usize,
    /// Module-level variables whose definition holds the name (`const opcodes = { BINARY:
    /// 2 }`): their object literal's key is reached as `opcodes.BINARY`.
    objects: HashSet<&'a str>,
    /// Every class of the candidate files: name → bases (last dotted segment).
    classes: HashMap<&'a str, Vec<String>>,
    files: HashMap<&'a Path, &'a Parsed>,
}

/// `refs` split into the certain uses and the uncertain ones (see the module doc), both in
/// their order. A name with no definition among `files` keeps every use certain (nothing
/// to tell it apart from). `text_of` gives a file's text. One pass over a whole list, for
/// the tests: `find_references` reads each file once for several steps and uses [`Judge`] a
/// file at a time.
#[cfg(test)]
pub fn split(
    name: &str,
    refs: Vec<RefHit>,
    defs: &[DefHit],
    files: &[Parsed],
    text_of: impl Fn(&Path) -> Option<String>,
) -> (Vec<RefHit>, Vec<RefHit>) {
    match Judge::new(name, defs, files) {
        Some(judge) => judge.split(refs, |p| text_of(p).map(|t| super::texts::lines_of(&t))),
        None => (refs, Vec::new()),
    }
}

/// The bases a class's signature line names: Python's parenthesised list (keywords such as
/// `metaclass=` left out), JavaScript's `extends X`; each as its last dotted segment.
fn bases(sig: &str) -> Vec<String> {
    let last = |s: &str| {
        let s = s.split('[').next().unwrap_or("").trim();
        s.rsplit('.').next().unwrap_or("").to_string()
    };
    if let Some(rest) = sig.split_once(" extends ").map(|(_, r)| r) {
        let x: String = rest
            .trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || matches!(c, '_' | '$' | '.'))
            .collect();
        return vec![last(&x)];
    }
    let Some((_, rest)) = sig.split_once('(') else {
        return Vec::new();
    };
    let inner = rest.rsplit_once(')').map_or(rest, |(i, _)| i);
    inner
        .split(',')
        .filter(|b| !b.contains('=') && !b.trim().is_empty())
        .map(last)
        .collect()
}

impl<'a> Judge<'a> {
    /// The judge of `name`'s uses among `files`, given its definitions `defs`; `None` when
    /// no file is in a judged language (every use is certain, and nothing is worth building).
    pub fn new(name: &'a str, defs: &'a [DefHit], files: &'a [Parsed]) -> Option<Judge<'a>> {
        if !files.iter().any(|f| judged(f.grammar)) {
            return None;
        }
        let mut classes: HashMap<&str, Vec<String>> = HashMap::new();
        for f in files {
            for d in f.syms.defs.iter().filter(|d| d.kind == SymbolKind::Class) {
                classes
                    .entry(d.name.as_str())
                    .or_default()
                    .extend(bases(&d.sig));
            }
        }
        let mut objects = HashSet::new();
        for f in files {
            let Some(id) = f.syms.name_id(name) else {
                continue;
            };
            for d in f.syms.defs.iter().filter(|d| {
                d.container.is_empty()
                    && matches!(d.kind, SymbolKind::Constant | SymbolKind::Variable)
            }) {
                // A use of the name after the variable's own name, within its definition.
                let inside = |r: &super::model::Ref| {
                    r.name == id && (d.line, d.col) < (r.line, r.col) && r.line <= d.end_line
                };
                if f.syms.refs.iter().any(inside) {
                    objects.insert(d.name.as_str());
                }
            }
        }
        let distinct: HashSet<(&Path, String)> = defs
            .iter()
            .filter(|d| !d.def.decl)
            .map(|d| (d.abs.as_path(), d.def.container.join(".")))
            .collect();
        Some(Judge {
            name,
            definers: defs
                .iter()
                .filter_map(|d| d.def.container.last().map(String::as_str))
                .collect(),
            top_level: defs
                .iter()
                .filter(|d| d.def.container.is_empty())
                .map(|d| modpath::module_key(&d.abs))
                .collect(),
            defining: defs.iter().map(|d| modpath::module_key(&d.abs)).collect(),
            distinct: distinct.len(),
            objects,
            classes,
            files: files.iter().map(|f| (f.abs.as_path(), f)).collect(),
        })
    }

    /// `refs` split into the certain uses and the uncertain ones (see the module doc), both
    /// in their order. `lines_of` gives a file's lines; it is asked once per file in a judged
    /// language with a use that is not a definition.
    pub fn split(
        &self,
        refs: Vec<RefHit>,
        mut lines_of: impl FnMut(&Path) -> Option<Lines>,
    ) -> (Vec<RefHit>, Vec<RefHit>) {
        let mut facts: HashMap<PathBuf, Option<FileFacts>> = HashMap::new();
        let (mut certain, mut uncertain) = (Vec::new(), Vec::new());
        for r in refs {
            let sure = match self.files.get(r.abs.as_path()) {
                Some(f) if judged(f.grammar) && r.role != Role::Definition => {
                    let entry = facts.entry(r.abs.clone()).or_insert_with(|| {
                        lines_of(&r.abs).map(|lines| FileFacts {
                            lines,
                            bindings: None,
                        })
                    });
                    entry.as_mut().is_none_or(|ff| self.certain(f, ff, &r))
                }
                _ => true,
            };
            if sure {
                certain.push(r);
            } else {
                uncertain.push(r);
            }
        }
        (certain, uncertain)
    }

    /// Whether class `c` or one of its ancestors among the candidate files defines the name.
    fn reaches(&self, c: &str) -> bool {
        let mut seen = HashSet::new();
        let mut todo = vec![c.to_string()];
        while let Some(c) = todo.pop() {
            if self.definers.contains(c.as_str()) {
                return true;
            }
            if seen.len() < 64 && seen.insert(c.clone()) {
                todo.extend(self.classes.get(c.as_str()).into_iter().flatten().cloned());
            }
        }
        false
    }

    /// Whether a binding on 0-based line `at` of `f` is in scope on 0-based `row`: outside
    /// any function, or inside a function that also holds `row`.
    fn visible(f: &Parsed, at: usize, row: usize) -> bool {
        let (at, row) = (at as u32 + 1, row as u32 + 1);
        f.syms
            .defs
            .iter()
            .filter(|d| {
                matches!(d.kind, SymbolKind::Function | SymbolKind::Method)
                    && d.start_line <= at
                    && at <= d.end_line
            })
            .max_by_key(|d| d.start_line)
            .is_none_or(|d| d.start_line <= row && row <= d.end_line)
    }

    /// The innermost class of `f` around 1-based `line`.
    fn enclosing(f: &Parsed, line: u32) -> Option<&str> {
        f.syms
            .defs
            .iter()
            .filter(|d| d.kind == SymbolKind::Class && d.start_line <= line && line <= d.end_line)
            .max_by_key(|d| d.start_line)
            .map(|d| d.name.as_str())
    }

    fn certain(&self, f: &Parsed, ff: &mut FileFacts, r: &RefHit) -> bool {
        let python = f.grammar == Grammar::Python;
        let row = r.line as usize - 1;
        if python && r.role == Role::Import {
            if modpath::in_module_path(&ff.lines, row, r.col) {
                return false;
            }
            if let Some(m) = modpath::from_module(&ff.lines, row) {
                return self.workspace_module(m);
            }
        }
        let Some(recv) = receiver::receiver(&ff.lines, row, r.col) else {
            return true;
        };
        match recv {
            Receiver::This => match Self::enclosing(f, r.line) {
                Some(c) => self.reaches(c),
                None => self.unknown(python),
            },
            Receiver::Super => match Self::enclosing(f, r.line) {
                Some(c) => self
                    .classes
                    .get(c)
                    .is_some_and(|b| b.iter().any(|b| self.reaches(b))),
                None => self.unknown(python),
            },
            Receiver::Name(n) => {
                if self.definers.contains(n.as_str()) || self.objects.contains(n.as_str()) {
                    return true;
                }
                if self.classes.contains_key(n.as_str()) {
                    return self.reaches(&n);
                }
                let text_bindings = ff
                    .bindings
                    .get_or_insert_with(|| receiver::bindings(&ff.lines.join("\n"), python));
                match receiver::binding_at(text_bindings, &n, row, |at| Self::visible(f, at, row))
                    .cloned()
                {
                    Some(Binding::Module(spec)) => self.module(&spec, &f.abs, python, true),
                    // A property of `module.exports`: the language service takes it for
                    // another symbol than the definition it aliases (a rename of the function
                    // leaves `{ fn: renamed }` and `util.fn`), so do we.
                    Some(Binding::Exports(_)) => false,
                    Some(Binding::From(m, item)) => {
                        let sub = if m.chars().all(|c| c == '.') {
                            format!("{m}{item}")
                        } else {
                            format!("{m}.{item}")
                        };
                        if self.module(&sub, &f.abs, true, true) || self.reaches(&item) {
                            true
                        } else if self.classes.contains_key(item.as_str())
                            || self.module(&sub, &f.abs, true, false)
                        {
                            false
                        } else {
                            self.unknown(python)
                        }
                    }
                    Some(Binding::Instance(x)) => {
                        if self.reaches(&x) {
                            true
                        } else if self.classes.contains_key(x.as_str()) {
                            false
                        } else {
                            match receiver::binding_at(text_bindings, &x, row, |at| {
                                Self::visible(f, at, row)
                            }) {
                                Some(Binding::Module(spec) | Binding::Exports(spec)) => {
                                    self.module(spec, &f.abs, python, false)
                                }
                                _ => self.unknown(python),
                            }
                        }
                    }
                    None => self.unknown(python),
                }
            }
            Receiver::Other => self.unknown(python),
        }
    }

    /// Whether an absolute Python module path can be the workspace's: its first segment is a
    /// directory some definition of the name lies under (`from flask import Flask` inside
    /// flask, a re-export jedi follows). A relative one always can. `from jinja2 import
    /// Environment` beside a workspace `Environment` imports another definition.
    fn workspace_module(&self, m: &str) -> bool {
        let first = m.split('.').next().unwrap_or("");
        first.is_empty()
            || self
                .defining
                .iter()
                .any(|k| k.parent().is_some_and(|d| d.iter().any(|c| c == first)))
    }

    /// Whether the module `spec` (written in `from`) defines the name: at top level when
    /// `top`, anywhere otherwise.
    fn module(&self, spec: &str, from: &Path, python: bool, top: bool) -> bool {
        let keys = if top { &self.top_level } else { &self.defining };
        keys.iter()
            .any(|k| modpath::spec_matches(spec, from, python, k))
    }

    /// A receiver of unknown type. JavaScript: uncertain (no annotations; the language
    /// service leaves out what it types `any`). Python: certain only when the name is one
    /// class member with no built-in namesake — jedi infers much through calls and
    /// annotations, and a variable, function or class is reached through an object only as
    /// its module's member, which a bound receiver would have shown.
    fn unknown(&self, python: bool) -> bool {
        python
            && !self.definers.is_empty()
            && self.top_level.is_empty()
            && self.distinct <= 1
            && !BUILTIN_MEMBERS.contains(&self.name)
    }
}

#[cfg(test)]
#[path = "certainty_tests.rs"]
mod tests;
