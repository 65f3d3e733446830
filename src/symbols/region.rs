//! The text a definition occupies, for the edits by symbol: the defining node lifted through
//! the wrappers it alone fills (`export`, `const x = …;`, a Python decorated definition, a
//! Go `type X struct`, a C++ template), preceded by the doc comments, attributes and
//! decorators attached to it (no blank line between, each on a line of its own).
//!
//! Between the outermost start (the first attached comment) and the defining node there
//! are several places a replacement may start; each is recorded with its first token
//! ([`Lead`]), so the replacement can start where the new source's first token says it
//! does (see `splice`): a new source without a doc comment keeps the file's, one without
//! `export` keeps the file's `export`.

use tree_sitter::{Node, Tree};

/// A place a definition's text may start, and what its first token is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lead {
    /// Byte offset in the text.
    pub at: usize,
    /// The first token there: [`COMMENT`] for any comment, else the token's text.
    pub token: String,
    /// Where a replacement starting here ends, when not at the region's end: a C `typedef`
    /// around a struct (`typedef struct S {…} S_t;`) is replaced whole by a new source that
    /// starts with `typedef`, the struct alone by one that starts with `struct`.
    pub end: Option<usize>,
}

/// The token of a comment, whatever its syntax (`//`, `///`, `#`, `/*`, `--`).
pub const COMMENT: &str = "\u{0}comment";

/// A definition's extent.
#[derive(Debug, Clone)]
pub struct Region {
    /// The possible starts, outermost (the first attached comment) first; never empty; the
    /// last is the defining node's own start, past any decorators it begins with.
    pub leads: Vec<Lead>,
    /// The defining node's start (the fallback start of a replacement).
    pub core: usize,
    /// The end of the lifted node.
    pub end: usize,
    /// The definition shares a declaration with others (`const a = 1, b = 2;`): that
    /// statement's own extent. A replacement must then be the declarator alone, and an
    /// insertion goes beside the whole statement.
    pub shared: Option<Box<Region>>,
}

impl Region {
    /// The outermost start.
    pub fn start(&self) -> usize {
        self.leads.first().map_or(self.core, |l| l.at)
    }

    /// The outermost end (a `typedef` around a struct ends after the struct).
    pub fn outer_end(&self) -> usize {
        self.leads
            .iter()
            .filter_map(|l| l.end)
            .fold(self.end, usize::max)
    }
}

/// Parents a definition is lifted into when it is their only definition.
const WRAPPERS: &[&str] = &[
    "export_statement",
    "lexical_declaration",
    "variable_declaration",
    "ambient_declaration",
    "expression_statement",
    "decorated_definition",
    "type_declaration",
    "const_declaration",
    "var_declaration",
    "template_declaration",
    "property_declaration",
];

/// The visibility and export modifiers a definition may begin with (Rust's `pub`, `pub(crate)`,
/// TypeScript's and PHP's `public`/`private`, Java's `modifiers`, C#'s `modifier`): a new
/// source that starts past them keeps them (see `splice`).
fn visibility(kind: &str) -> bool {
    matches!(
        kind,
        "visibility_modifier" | "accessibility_modifier" | "modifiers" | "modifier"
    )
}

/// Where the visibility modifiers `node` begins with (past its own annotations) end: the
/// start of its first other child.
fn past_visibility(node: Node) -> Option<usize> {
    let mut c = node.walk();
    let mut seen = false;
    for child in node.children(&mut c) {
        let kind = child.kind();
        if annotation(kind) || is_comment(kind) {
            continue;
        }
        if visibility(kind) {
            seen = true;
            continue;
        }
        return seen.then(|| child.start_byte());
    }
    None
}

/// Nodes that annotate the definition that follows them (or that they begin).
fn annotation(kind: &str) -> bool {
    matches!(
        kind,
        "attribute_item"
            | "decorator"
            | "annotation"
            | "marker_annotation"
            | "attribute_list"
            | "attribute"
    )
}

/// A comment node (every grammar's comment kinds contain the word).
pub fn is_comment(kind: &str) -> bool {
    kind.contains("comment")
}

/// The first token of the text at `at` in `tree`: [`COMMENT`] when it belongs to a comment.
pub fn token_at(tree: &Tree, text: &str, at: usize) -> String {
    let mut leaf = tree.root_node().descendant_for_byte_range(at, at);
    // A zero-width or enclosing node: go down to the first leaf starting here.
    while let Some(n) = leaf {
        if n.child_count() == 0 {
            break;
        }
        leaf = n.child(0);
    }
    let Some(leaf) = leaf else {
        return String::new();
    };
    let mut up = Some(leaf);
    for _ in 0..3 {
        match up {
            Some(n) if is_comment(n.kind()) => return COMMENT.to_string(),
            Some(n) => up = n.parent(),
            None => break,
        }
    }
    text.get(leaf.byte_range()).unwrap_or("").to_string()
}

/// Where text the parser did not see starts before `node` (no blank line between): in a
/// tree every token is a node, so only masked text (C/C++ macros, `syntax::cmask`) lies
/// between one node and the next.
fn hidden_before(node: Node, text: &str) -> Option<usize> {
    let mut cur = node;
    let prev_end = loop {
        if let Some(p) = cur.prev_sibling() {
            break p.end_byte();
        }
        match cur.parent() {
            Some(p) => cur = p,
            None => break 0,
        }
    };
    let gap = text.get(prev_end..node.start_byte())?;
    // The last paragraph of the gap (after its last blank line).
    let from = gap.rfind("\n\n").map_or(0, |i| i + 2);
    let at = gap[from..].find(|c: char| !c.is_whitespace())?;
    Some(prev_end + from + at)
}

/// The identifier (or else the one character) at `at`.
fn word_at(text: &str, at: usize) -> String {
    let rest = &text[at..];
    let len = rest
        .find(|c: char| !(c == '_' || c == '$' || c.is_alphanumeric()))
        .unwrap_or(rest.len());
    let len = if len == 0 {
        rest.chars().next().map_or(0, char::len_utf8)
    } else {
        len
    };
    rest[..len].to_string()
}

/// Whether only spaces and tabs precede `at` on its line.
pub fn starts_line(text: &str, at: usize) -> bool {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    text[line_start..at]
        .bytes()
        .all(|b| b == b' ' || b == b'\t')
}

/// The node whose range is `span` (the outermost of those sharing it).
fn node_at(tree: &Tree, span: (usize, usize)) -> Option<Node<'_>> {
    let mut n = tree.root_node().descendant_for_byte_range(span.0, span.1)?;
    while let Some(p) = n.parent() {
        if p.start_byte() == span.0 && p.end_byte() == span.1 && p.parent().is_some() {
            n = p;
        } else {
            break;
        }
    }
    Some(n)
}

/// Whether `parent` holds no other definition of `child`'s kind (so lifting `child` into
/// it takes nothing else along).
fn sole(parent: Node, child: Node) -> bool {
    let mut c = parent.walk();
    let others = parent
        .named_children(&mut c)
        .filter(|n| n.kind() == child.kind() && n.id() != child.id())
        .count();
    others == 0
}

/// Where the decorators a node begins with end (Java annotations inside `modifiers`, a
/// TypeScript class's or method's decorators): the start of its first other child.
fn past_own_annotations(node: Node) -> Option<usize> {
    let mut cur = node;
    let mut moved = false;
    loop {
        let mut c = cur.walk();
        let children: Vec<Node> = cur.children(&mut c).collect();
        let mut i = 0;
        while i < children.len()
            && (annotation(children[i].kind()) || is_comment(children[i].kind()))
        {
            i += 1;
            moved = true;
        }
        let next = children.get(i)?;
        if next.kind() == "modifiers" && i == 0 && !moved {
            cur = *next;
            continue;
        }
        return moved.then(|| next.start_byte());
    }
}

/// The end of the `;` that closes a C/C++ `struct S {…};` at file or namespace level, where
/// the grammar leaves it beside the specifier rather than in a declaration.
fn specifier_semicolon(node: Node) -> Option<usize> {
    if !matches!(
        node.kind(),
        "struct_specifier" | "union_specifier" | "enum_specifier" | "class_specifier"
    ) {
        return None;
    }
    let next = node.next_sibling().filter(|n| n.kind() == ";")?;
    Some(next.end_byte())
}

/// The extent of the definition whose defining node spans `span`.
pub fn region(tree: &Tree, text: &str, span: (usize, usize)) -> Option<Region> {
    let node = node_at(tree, span)?;
    let mut inner: Vec<usize> = Vec::new();
    if let Some(at) = past_own_annotations(node) {
        inner.push(at);
    }
    inner.push(node.start_byte());
    let mut top = node;
    let mut shared = None;
    while let Some(p) = top.parent() {
        if !WRAPPERS.contains(&p.kind()) {
            break;
        }
        if !sole(p, top) {
            if p.parent().is_some() {
                shared = region(tree, text, (p.start_byte(), p.end_byte())).map(Box::new);
            }
            break;
        }
        top = p;
        inner.push(top.start_byte());
    }
    // C and C++: `struct S {…};` is the struct with its `;` (a declaration declaring nothing
    // else); in `typedef struct S {…} S_t;` the typedef is a further start, with its own end.
    let mut typedef = None;
    if matches!(
        node.kind(),
        "struct_specifier" | "union_specifier" | "enum_specifier" | "class_specifier"
    ) {
        if let Some(p) = top.parent() {
            let declares_nothing = matches!(p.kind(), "declaration" | "field_declaration")
                && p.child_by_field_name("declarator").is_none();
            if declares_nothing && p.child_by_field_name("type") == Some(top) {
                top = p;
                inner.push(top.start_byte());
            } else if p.kind() == "type_definition" && p.child_by_field_name("type") == Some(top) {
                typedef = Some(p);
                top = p;
                inner.push(top.start_byte());
            }
        }
    }
    let visible = past_visibility(node);
    // Macros the parser did not see (C/C++, `syntax::cmask`) right before the definition
    // (`V8_EXPORT void f()`, `MI_EXPORT` on the line above) belong to it: a start of their own.
    let hidden = hidden_before(top, text);
    // Attached annotations and comments: previous siblings, each on a line of its own, with
    // no blank line between them and what follows.
    let mut outer: Vec<usize> = Vec::new();
    let mut next_start = hidden.unwrap_or(top.start_byte());
    let mut prev = top.prev_sibling();
    while let Some(p) = prev {
        let kind = p.kind();
        let attached = (is_comment(kind) || annotation(kind))
            && !text[p.start_byte()..].starts_with("//!")
            && !text[p.start_byte()..].starts_with("/*!")
            && text[p.end_byte()..next_start].matches('\n').count() <= 1
            && text[p.end_byte()..next_start].trim().is_empty()
            && starts_line(text, p.start_byte());
        if !attached {
            break;
        }
        outer.push(p.start_byte());
        next_start = p.start_byte();
        prev = p.prev_sibling();
    }
    let mut starts: Vec<usize> = outer
        .into_iter()
        .chain(hidden)
        .chain(inner.into_iter().rev())
        .chain(visible)
        .collect();
    starts.sort_unstable();
    starts.dedup();
    let leads = starts
        .iter()
        .map(|&at| Lead {
            at,
            token: if Some(at) == hidden {
                word_at(text, at)
            } else {
                token_at(tree, text, at)
            },
            end: None,
        })
        .map(|mut l| {
            if let Some(t) = typedef.filter(|t| t.start_byte() == l.at) {
                l.end = Some(t.end_byte());
            }
            l
        })
        .collect();
    Some(Region {
        leads,
        core: node.start_byte(),
        // A typedef's struct ends with the struct unless the replacement starts at `typedef`.
        end: if typedef.is_some() {
            node.end_byte()
        } else {
            specifier_semicolon(top).unwrap_or(top.end_byte())
        },
        shared,
    })
}

/// Where a syntax error makes the extent of the definition spanning `span` uncertain: an
/// error or missing token at its edges — between the start of its text (its first attached
/// comment) and its defining node, directly under the defining node (not nested in its
/// parameters or body), right after it on its last line, or a body whose `{` or `}` error
/// recovery made up. Recovery around a macro the grammar does not know gives the defining
/// node a start or an end that is not the definition's (`static _Atomic(void*) x;` above a
/// function taken into it, `f(void) mi_attr_noexcept {` ending it at its `)`), and an edit
/// there would overwrite its neighbours. An error nested inside (a definition being fixed)
/// leaves the extent as it is. Returns the error's byte offset.
pub fn uncertain(tree: &Tree, text: &str, span: (usize, usize), region: &Region) -> Option<usize> {
    let node = node_at(tree, span)?;
    let bad = |n: Node| n.is_error() || n.is_missing();
    let mut c = node.walk();
    if let Some(e) = node.children(&mut c).find(|n| bad(*n)) {
        return Some(e.start_byte());
    }
    if let Some(b) = node.child_by_field_name("body") {
        if missing_edge(b) {
            return Some(b.start_byte());
        }
    }
    let from = region.start();
    let end = region.outer_end();
    let to = text[end..].find('\n').map_or(text.len(), |i| end + i);
    // Outside the defining node: its lead (attached comments, wrappers) and the rest of its
    // last line.
    let mut stack = vec![tree.root_node()];
    while let Some(n) = stack.pop() {
        if n.end_byte() < from || n.start_byte() > to || !n.has_error() {
            continue;
        }
        if n.id() == node.id() {
            continue;
        }
        let outside = n.end_byte() <= node.start_byte() || n.start_byte() >= node.end_byte();
        if bad(n) && outside {
            return Some(n.start_byte().max(from));
        }
        let mut c = n.walk();
        stack.extend(n.children(&mut c));
    }
    None
}

/// Whether a body's first or last token was made up by error recovery (`{` or `}` missing).
fn missing_edge(body: Node) -> bool {
    let count = body.child_count();
    count > 0
        && (body.child(0).is_some_and(|c| c.is_missing())
            || body.child(count - 1).is_some_and(|c| c.is_missing()))
}
