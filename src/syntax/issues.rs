//! The issue collector: ERROR and MISSING nodes, depth-first, as the original reports them.

use super::parse::Parsed;
use tree_sitter::Node;

/// The tool's issue cap.
pub const MAX_ISSUES: usize = 50;

/// Whether an issue is an ERROR node or a MISSING (expected but absent) token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// An ERROR node: text the grammar could not place.
    Error,
    /// A MISSING node: a token the parser inserted to recover.
    Missing,
}

impl Kind {
    /// `error` or `missing`.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Error => "error",
            Kind::Missing => "missing",
        }
    }
}

/// One syntax issue; `line` and `column` are 1-based, the column in UTF-16 code units.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Issue {
    /// ERROR or MISSING.
    pub kind: Kind,
    /// 1-based line.
    pub line: usize,
    /// 1-based column in UTF-16 code units (web-tree-sitter's unit).
    pub column: usize,
    /// ERROR: the trimmed source line (80 chars + `...`); MISSING: the expected token.
    pub near: String,
}

/// The issues of a tree, at most `max`; `truncated` when one more would have been recorded.
#[derive(Debug, Clone, Default)]
pub struct Issues {
    /// The recorded issues, in document order.
    pub list: Vec<Issue>,
    /// More issues exist than were recorded.
    pub truncated: bool,
}

/// Collects up to `max` issues. Iterative (a cursor), so deep trees cannot overflow the stack;
/// only subtrees that contain an error are entered.
pub fn collect(parsed: &Parsed, max: usize) -> Issues {
    let mut out = Issues::default();
    let root = parsed.tree.root_node();
    if !root.has_error() {
        return out;
    }
    let mut cursor = root.walk();
    'walk: loop {
        let node = cursor.node();
        let is_issue = node.is_error() || node.is_missing();
        if is_issue {
            if out.list.len() == max {
                out.truncated = true;
                break;
            }
            out.list.push(issue(parsed, node));
        }
        if !is_issue && node.has_error() && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                continue 'walk;
            }
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
    out
}

fn issue(parsed: &Parsed, node: Node) -> Issue {
    let p = node.start_position();
    let line_text = line_at(&parsed.text, node.start_byte() - p.column);
    let before = line_text.get(..p.column).unwrap_or(line_text);
    let column = before.encode_utf16().count() + 1;
    if node.is_missing() {
        return Issue {
            kind: Kind::Missing,
            line: p.row + 1,
            column,
            near: node.kind().to_string(),
        };
    }
    Issue {
        kind: Kind::Error,
        line: p.row + 1,
        column,
        near: cut(line_text.trim(), 80),
    }
}

/// The line starting at byte `start` (without its `\n`).
pub fn line_at(text: &str, start: usize) -> &str {
    let rest = text.get(start..).unwrap_or("");
    rest.split('\n').next().unwrap_or("")
}

/// `s` cut to `max` UTF-16 code units plus `...` when longer (JavaScript `slice` lengths).
pub fn cut(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut units = 0;
    for (i, c) in s.char_indices() {
        if units + c.len_utf16() > max {
            return format!("{}...", &s[..i]);
        }
        units += c.len_utf16();
    }
    s.to_string()
}
