//! One walk over a parse tree gives a file's definitions and every identifier used as code.
//!
//! The walk visits every node once with a tree cursor (no recursion, no allocation per node
//! beyond a frame on an explicit stack) and compares node-kind ids against the grammar's
//! tables ([`super::compiled`]); only candidate definitions are looked at by name
//! ([`super::recognize`]). An identifier's role comes from its slot: the nearest ancestor
//! that is not a wrapper, and the field it sits in there.

use super::compiled::{self, Table, IDENT, NOT_IDENT, RESTRICTED, TYPE_IDENT};
use super::model::{Def, FileSyms, Ref, Role};
use super::recognize::{recognize, Ctx};
use crate::syntax::defs::SymbolKind;
use crate::syntax::Parsed;
use std::collections::{HashMap, HashSet};
use tree_sitter::{Node, TreeCursor};

/// The walk's maps are probed once per identifier with keys from this file: SipHash's
/// defence against chosen keys costs more than the rest of the probe (2 % of a table build).
type Fast = foldhash::fast::FixedState;

/// One entered node.
#[derive(Clone, Copy)]
struct Frame {
    kind: u16,
    field: u16,
    /// It pushed a container.
    container: Option<SymbolKind>,
    /// It opened a local scope.
    scope: bool,
    /// It is an import.
    import: bool,
}

struct Walk<'a> {
    table: &'static Table,
    parsed: &'a Parsed,
    language: tree_sitter::Language,
    frames: Vec<Frame>,
    /// The enclosing containers: their qualifying segments and kinds.
    containers: Vec<(Vec<String>, SymbolKind)>,
    kinds: Vec<SymbolKind>,
    local: usize,
    imports: usize,
    /// Start bytes of the name nodes of definitions met so far.
    def_names: HashSet<usize, Fast>,
    names: HashMap<&'a str, u32, Fast>,
    out: FileSyms,
}

/// The definitions and references of `parsed` (empty for a grammar without symbols).
pub fn extract(parsed: &Parsed) -> FileSyms {
    let Some(table) = compiled::table(parsed.grammar) else {
        return FileSyms::default();
    };
    let mut w = Walk {
        table,
        parsed,
        language: parsed.grammar.language(),
        frames: Vec::with_capacity(64),
        containers: Vec::new(),
        kinds: Vec::new(),
        local: 0,
        imports: 0,
        def_names: HashSet::default(),
        names: HashMap::default(),
        out: FileSyms {
            has_error: parsed.tree.root_node().has_error(),
            ..FileSyms::default()
        },
    };
    let mut cursor = parsed.tree.walk();
    w.enter(&cursor);
    'walk: loop {
        if cursor.goto_first_child() {
            w.enter(&cursor);
            continue;
        }
        loop {
            w.leave();
            if cursor.goto_next_sibling() {
                w.enter(&cursor);
                break;
            }
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
    w.masked_uses();
    w.out
}

/// 1-based UTF-16 column of byte `at`, whose line starts `byte_col` bytes earlier.
pub fn utf16_col(text: &str, at: usize, byte_col: usize) -> u32 {
    let start = at.saturating_sub(byte_col);
    let prefix = text.get(start..at).unwrap_or("");
    let units = if prefix.is_ascii() {
        prefix.len()
    } else {
        prefix.encode_utf16().count()
    };
    u32::try_from(units + 1).unwrap_or(u32::MAX)
}

/// The line holding byte `at`, trimmed, without a trailing `{`, cut at 150 characters.
pub fn signature(text: &str, at: usize) -> String {
    let start = text
        .get(..at)
        .and_then(|t| t.rfind('\n'))
        .map_or(0, |i| i + 1);
    let line = crate::syntax::issues::line_at(text, start).trim();
    let line = line.strip_suffix('{').unwrap_or(line).trim_end();
    crate::syntax::issues::cut(line, 150)
}

fn line_of(n: Node) -> u32 {
    u32::try_from(n.start_position().row + 1).unwrap_or(u32::MAX)
}

impl<'a> Walk<'a> {
    fn enter(&mut self, cursor: &TreeCursor<'a>) {
        let node = cursor.node();
        let kind = node.kind_id();
        let named = node.is_named();
        // A frame's field is read only when it is an ancestor (or a named literal): an
        // anonymous leaf (punctuation, keywords: a third of the nodes) never needs its own.
        let field = if named || node.child_count() > 0 {
            cursor.field_id().map_or(0, |f| f.get())
        } else {
            0
        };
        let mut frame = Frame {
            kind,
            field,
            container: None,
            scope: false,
            import: false,
        };
        if !named {
            self.frames.push(frame);
            return;
        }
        let k = usize::from(kind);
        if let Some((_, sk)) = self.table.def_of(self.parsed.grammar, kind) {
            frame.container = self.definition(node, sk);
        }
        if self.table.import.get(k).copied().unwrap_or(false) {
            self.imports += 1;
            frame.import = true;
        }
        if self.table.scope.get(k).copied().unwrap_or(false) && !self.module_body() {
            self.local += 1;
            frame.scope = true;
        }
        let class = self.table.ident.get(k).copied().unwrap_or(NOT_IDENT);
        if class != NOT_IDENT && node.child_count() == 0 {
            self.identifier(node, class, field);
        } else if self.table.key_leaf.contains(&kind) {
            self.string_key(node);
        }
        self.frames.push(frame);
    }

    fn leave(&mut self) {
        let Some(f) = self.frames.pop() else { return };
        if f.container.is_some() {
            self.containers.pop();
            self.kinds.pop();
        }
        if f.scope {
            self.local -= 1;
        }
        if f.import {
            self.imports -= 1;
        }
    }

    /// A scope node directly inside a module or namespace definition is its body, not a
    /// local scope (`namespace N { export const x = 1 }` defines `N.x`).
    fn module_body(&self) -> bool {
        self.frames
            .last()
            .is_some_and(|f| f.container == Some(SymbolKind::Module))
    }

    /// Records what the candidate `node` defines; returns the container kind it opens.
    fn definition(&mut self, node: Node<'a>, kind: SymbolKind) -> Option<SymbolKind> {
        let text = self.parsed.text.as_str();
        let ctx = Ctx {
            grammar: self.parsed.grammar,
            table: self.table,
            parent_kind: match self.frames.last() {
                Some(f) => self.language.node_kind_for_id(f.kind).unwrap_or(""),
                None => "",
            },
            text,
            containers: &self.kinds,
            local: self.local > 0,
            inner_name: self
                .containers
                .last()
                .and_then(|(segs, _)| segs.last())
                .map(String::as_str),
        };
        let found = recognize(&ctx, node, kind)?;
        let mut container: Vec<String> = self
            .containers
            .iter()
            .flat_map(|(segs, _)| segs.iter().cloned())
            .collect();
        if found.of_class {
            // `this.x = …` in a constructor: a member of the class, not of the method.
            container.pop();
        }
        container.extend(found.qualifier.iter().cloned());
        let start = node.start_position().row + 1;
        let end = node.end_position().row + 1;
        if found.report {
            for (name_node, name) in &found.names {
                if name.is_empty() {
                    continue;
                }
                self.def_names.insert(name_node.start_byte());
                self.out.defs.push(Def {
                    name: name.clone(),
                    kind: found.kind,
                    container: container.clone(),
                    decl: found.decl,
                    line: line_of(*name_node),
                    col: utf16_col(
                        text,
                        name_node.start_byte(),
                        name_node.start_position().column,
                    ),
                    start_line: u32::try_from(start).unwrap_or(u32::MAX),
                    end_line: u32::try_from(end).unwrap_or(u32::MAX),
                    span: (node.start_byte(), node.end_byte()),
                    sig: signature(text, name_node.start_byte()),
                });
            }
        }
        let scope = found.scope?;
        let mut segs = found.qualifier;
        segs.push(scope);
        self.containers.push((segs, found.kind));
        self.kinds.push(found.kind);
        Some(found.kind)
    }

    /// The names of the macros the parser did not see (C/C++, `syntax::cmask`) are still
    /// used there: a call when arguments follow (`Array(T)`), else a read. Kept in text order.
    fn masked_uses(&mut self) {
        if self.parsed.masked.is_empty() {
            return;
        }
        let text: &'a str = self.parsed.text.as_str();
        // The ranges are in text order: count lines as they go.
        let (mut pos, mut line, mut line_start) = (0usize, 1u32, 0usize);
        for range in &self.parsed.masked {
            if range.start < pos {
                continue;
            }
            let skipped = &text[pos..range.start];
            if let Some(i) = skipped.rfind('\n') {
                line += u32::try_from(skipped.matches('\n').count()).unwrap_or(0);
                line_start = pos + i + 1;
            }
            pos = range.start;
            let Some(span) = text.get(range.clone()) else {
                continue;
            };
            let len = span
                .find(|c: char| !(c == '_' || c == '$' || c.is_ascii_alphanumeric()))
                .unwrap_or(span.len());
            if len == 0 || span.as_bytes()[0].is_ascii_digit() {
                continue;
            }
            let name = &text[range.start..range.start + len];
            let role = if span[len..].trim_start().starts_with('(') {
                Role::Call
            } else {
                Role::Read
            };
            let id = self.name_id(name);
            self.out.refs.push(Ref {
                name: id,
                line,
                col: utf16_col(text, range.start, range.start - line_start),
                role,
            });
        }
        self.out.refs.sort_by_key(|r| (r.line, r.col));
    }

    /// The id of `name` in the file's name table (added when new).
    fn name_id(&mut self, name: &'a str) -> u32 {
        let next = u32::try_from(self.names.len()).unwrap_or(u32::MAX);
        *self.names.entry(name).or_insert_with(|| {
            self.out.names.push(name.into());
            next
        })
    }

    /// A string literal spelling an identifier in a member slot (`obj["name"]`, `T["name"]`)
    /// names the member as `.name` does: the checker resolves it so, and TypeScript's own
    /// references include it. Any other string stays out (find_references never reports text).
    fn string_key(&mut self, fragment: Node<'a>) {
        let t = self.table;
        let Some(at) = self.frames.len().checked_sub(1) else {
            return;
        };
        if !t.key_string.contains(&self.frames[at].kind) {
            return;
        }
        let (mut at, mut field) = (at, self.frames[at].field);
        if at > 0 && t.key_wrapper.contains(&self.frames[at - 1].kind) {
            at -= 1;
            field = self.frames[at].field;
        }
        let Some(slot) = at.checked_sub(1).map(|i| self.frames[i]) else {
            return;
        };
        // The whole literal: the fragment sits between the quotes (no escape, no second part).
        let quoted = |n: Option<Node>| n.is_some_and(|n| !n.is_named());
        if !Table::has(&t.string_keys, slot.kind, field)
            || !quoted(fragment.prev_sibling())
            || !quoted(fragment.next_sibling())
        {
            return;
        }
        let text: &'a str = self.parsed.text.as_str();
        let Some(name) = text.get(fragment.byte_range()).filter(|n| {
            !n.starts_with(|c: char| c.is_ascii_digit())
                && n.chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
        }) else {
            return;
        };
        let called = at
            .checked_sub(2)
            .is_some_and(|g| Table::has(&t.calls, self.frames[g].kind, slot.field));
        let id = self.name_id(name);
        self.out.refs.push(Ref {
            name: id,
            line: line_of(fragment),
            col: utf16_col(
                text,
                fragment.start_byte(),
                fragment.start_position().column,
            ),
            role: if called { Role::Call } else { Role::Member },
        });
    }

    fn identifier(&mut self, node: Node<'a>, class: u8, field: u16) {
        let table = self.table;
        if class == RESTRICTED {
            let parent = self.frames.last().map_or(0, |f| f.kind);
            let allowed = table
                .only_under
                .iter()
                .any(|(leaf, parents)| *leaf == node.kind_id() && parents.contains(&parent));
            if !allowed {
                return;
            }
        }
        let text: &'a str = self.parsed.text.as_str();
        let Some(name) = text.get(node.byte_range()).filter(|n| !n.is_empty()) else {
            return;
        };
        let role = self.role(node, class, field);
        let id = self.name_id(name);
        self.out.refs.push(Ref {
            name: id,
            line: line_of(node),
            col: utf16_col(text, node.start_byte(), node.start_position().column),
            role,
        });
    }

    fn role(&self, node: Node, class: u8, field: u16) -> Role {
        let t = self.table;
        if self.def_names.contains(&node.start_byte()) {
            return Role::Definition;
        }
        if self.imports > 0 {
            return Role::Import;
        }
        // The slot: the nearest ancestor that is not a wrapper, and our field in it.
        let mut at = self.frames.len();
        let mut field = field;
        while at > 0
            && t.through
                .get(usize::from(self.frames[at - 1].kind))
                .copied()
                .unwrap_or(false)
        {
            field = self.frames[at - 1].field;
            at -= 1;
        }
        let Some(parent) = at.checked_sub(1).map(|i| self.frames[i]) else {
            return Role::Read;
        };
        if Table::has(&t.calls, parent.kind, field) {
            return Role::Call;
        }
        if Table::has(&t.members, parent.kind, field) {
            let called = at
                .checked_sub(2)
                .is_some_and(|g| Table::has(&t.calls, self.frames[g].kind, parent.field));
            return if called { Role::Call } else { Role::Member };
        }
        if Table::has(&t.writes, parent.kind, field) {
            return Role::Write;
        }
        if class == TYPE_IDENT
            || t.types
                .get(usize::from(parent.kind))
                .copied()
                .unwrap_or(false)
            || (field != 0 && t.type_fields.contains(&field))
        {
            return Role::Type;
        }
        debug_assert!(class == IDENT || class == RESTRICTED);
        Role::Read
    }
}
