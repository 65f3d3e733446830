//! The outline walker: the original's captured and pass-through node types per language
//! (LATER.md §3 outline), walked with an explicit stack so deep nesting cannot overflow.
//! The captured types are the `outline` entries of [`defs`], the crate's one table of what
//! defines a symbol.

use super::defs;
use super::issues::{self, cut};
use super::lang::{Grammar, OUTLINE_GRAMMARS};
use super::memo::Facts;
use super::parse::Parsed;
use std::fmt::Write as _;
use std::sync::OnceLock;
use tree_sitter::{Node, TreeCursor};

/// At most this many symbol lines; the rest are counted in one line.
pub const MAX_SYMBOLS: usize = 2000;

/// One outline entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    /// Nesting depth (0 = top level).
    pub depth: usize,
    /// The node's first source line, trimmed, without a trailing `{` or `:`, ≤ 150 chars.
    pub header: String,
    /// The grammar's node type (`class_declaration`…).
    pub kind: &'static str,
    /// 1-based first line.
    pub start: usize,
    /// 1-based last line.
    pub end: usize,
}

/// How outline walks a grammar's tree; what it captures is `defs::outline_captures`.
struct Rules {
    pass: &'static [&'static str],
    /// JS/TS: a top-level `const/let/var` whose value is a function counts.
    top_level_fns: bool,
}

const TS: Rules = Rules {
    pass: &[
        "program",
        "export_statement",
        "expression_statement",
        "ambient_declaration",
        "statement_block",
        "class_body",
        "interface_body",
    ],
    top_level_fns: true,
};

const PYTHON: Rules = Rules {
    pass: &["module", "decorated_definition", "block"],
    top_level_fns: false,
};

const GO: Rules = Rules {
    pass: &["source_file", "type_declaration"],
    top_level_fns: false,
};

const RUST: Rules = Rules {
    pass: &["source_file", "declaration_list"],
    top_level_fns: false,
};

const JAVA: Rules = Rules {
    pass: &["program", "class_body", "interface_body", "enum_body"],
    top_level_fns: false,
};

const CSHARP: Rules = Rules {
    pass: &["compilation_unit", "declaration_list"],
    top_level_fns: false,
};

fn rules(g: Grammar) -> Option<&'static Rules> {
    match g {
        Grammar::TypeScript | Grammar::Tsx | Grammar::JavaScript => Some(&TS),
        Grammar::Python => Some(&PYTHON),
        Grammar::Go => Some(&GO),
        Grammar::Rust => Some(&RUST),
        Grammar::Java => Some(&JAVA),
        Grammar::CSharp => Some(&CSHARP),
        _ => None,
    }
}

/// A grammar's rules as flags per node kind id: the walk compares ids, not names (a name
/// costs a `strlen` and a string search per node). Every id whose name is listed is set, so
/// aliases with the same name match as the names did.
struct Kinds {
    capture: Vec<bool>,
    pass: Vec<bool>,
}

fn kinds(g: Grammar, rules: &Rules) -> &'static Kinds {
    static TABLES: [OnceLock<Kinds>; OUTLINE_GRAMMARS.len()] =
        [const { OnceLock::new() }; OUTLINE_GRAMMARS.len()];
    let at = OUTLINE_GRAMMARS.iter().position(|&o| o == g).unwrap_or(0);
    TABLES[at].get_or_init(|| {
        let lang = g.language();
        let count = lang.node_kind_count();
        let flags = |names: &[&str]| -> Vec<bool> {
            (0..count)
                .map(|id| {
                    u16::try_from(id)
                        .ok()
                        .and_then(|id| lang.node_kind_for_id(id))
                        .is_some_and(|name| names.contains(&name))
                })
                .collect()
        };
        let captured: Vec<&str> = defs::outline_captures(g).collect();
        Kinds {
            capture: flags(&captured),
            pass: flags(rules.pass),
        }
    })
}

/// The symbols of a parsed file in document order (all of them; the caller caps the text).
pub fn symbols(parsed: &Parsed) -> Vec<Symbol> {
    let Some(rules) = rules(parsed.grammar) else {
        return Vec::new();
    };
    let kinds = kinds(parsed.grammar, rules);
    let flag = |v: &[bool], n: Node| v.get(usize::from(n.kind_id())).copied().unwrap_or(false);
    let mut out = Vec::new();
    // (node, depth) in reverse document order, so popping visits in order.
    let mut stack: Vec<(Node, usize)> = Vec::new();
    // One cursor for the whole walk: `node.walk()` per node would allocate its stack each time.
    let mut cursor = parsed.tree.walk();
    push_children(&mut stack, &mut cursor, parsed.tree.root_node(), 0);
    while let Some((node, depth)) = stack.pop() {
        if flag(&kinds.capture, node) || (rules.top_level_fns && depth == 0 && fn_binding(node)) {
            out.push(Symbol {
                depth,
                header: header(&parsed.text, node),
                kind: node.kind(),
                start: node.start_position().row + 1,
                end: node.end_position().row + 1,
            });
            push_children(&mut stack, &mut cursor, node, depth + 1);
        } else if flag(&kinds.pass, node) {
            push_children(&mut stack, &mut cursor, node, depth);
        }
    }
    out
}

fn push_children<'t>(
    stack: &mut Vec<(Node<'t>, usize)>,
    cursor: &mut TreeCursor<'t>,
    node: Node<'t>,
    depth: usize,
) {
    let at = stack.len();
    for child in node.named_children(cursor) {
        stack.push((child, depth));
    }
    stack[at..].reverse();
}

/// Whether a node of type `kind` is a function value (`() => …`, `function () {…}`).
pub fn is_function_value(kind: &str) -> bool {
    matches!(
        kind,
        "arrow_function" | "function_expression" | "function" | "generator_function"
    )
}

/// `const f = () => …` and friends: a declaration whose declarator value is a function.
fn fn_binding(node: Node) -> bool {
    if !matches!(node.kind(), "lexical_declaration" | "variable_declaration") {
        return false;
    }
    let mut c = node.walk();
    let found = node.named_children(&mut c).any(|d| {
        d.kind() == "variable_declarator"
            && d.child_by_field_name("value")
                .is_some_and(|v| is_function_value(v.kind()))
    });
    found
}

/// The outline header of `node`: its first line, trimmed, without a trailing `{` or `:`,
/// at most 150 characters.
pub fn header(text: &str, node: Node) -> String {
    let first = issues::line_at(text, node.start_byte());
    // The node may end on its first line before the line does.
    let first = if node.end_position().row == node.start_position().row {
        text.get(node.start_byte()..node.end_byte())
            .unwrap_or(first)
    } else {
        first
    };
    let t = first.trim();
    let t = t
        .strip_suffix('{')
        .or_else(|| t.strip_suffix(':'))
        .unwrap_or(t)
        .trim_end();
    cut(t, 150)
}

/// The outline text: header line, symbol lines (capped), `(no symbols found)`, and the
/// syntax-error note.
pub fn render(display: &str, facts: &Facts) -> String {
    let syms = &facts.symbols;
    let mut out = format!(
        "{display} — {}, {} lines",
        facts.grammar.name(),
        facts.lines
    );
    if syms.is_empty() {
        out.push_str("\n  (no symbols found)");
    }
    for s in syms.iter().take(MAX_SYMBOLS) {
        out.push('\n');
        for _ in 0..=s.depth {
            out.push_str("  ");
        }
        let _ = write!(out, "{} ({}-{})", s.header, s.start, s.end);
    }
    if syms.len() > MAX_SYMBOLS {
        out.push_str(&format!(
            "\n  [... {} more symbols omitted ...]",
            syms.len() - MAX_SYMBOLS
        ));
    }
    if facts.has_error {
        out.push_str(&format!(
            "\nnote: file has syntax errors ({}{}); outline may be incomplete — run check_syntax.",
            facts.issues.list.len(),
            if facts.issues.truncated { "+" } else { "" }
        ));
    }
    out
}
