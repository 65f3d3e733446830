//! `apply_patch`'s engine: parse a patch into a [`FilePatch`] plan, locate and apply its
//! hunks, and commit every file operation together.
//!
//! Two input formats produce the same plan: a unified diff (git-style headers accepted,
//! [`parse`]) and the `*** Begin Patch` format ([`codex`]). [`locate`] finds where a hunk
//! fits, [`apply`] rewrites a file's lines, [`prepare`] checks every block against the disk
//! and stages its outcome; the tool hands the staged operations to
//! [`crate::atomic::commit`], which performs them all-or-nothing.
//! Nothing in this module formats the tool's success text: that is the tool's job.

pub mod apply;
pub mod codex;
pub mod locate;
pub mod parse;
pub mod prepare;

use crate::error::{ToolError, ToolResult};

/// What a hunk line does to the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Present on both sides (` `).
    Context,
    /// Present only in the old file (`-`).
    Remove,
    /// Present only in the new file (`+`).
    Add,
}

/// One line of a hunk, without its prefix or line terminator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HunkLine {
    /// What the line does.
    pub kind: Kind,
    /// The line's text.
    pub text: String,
}

/// A run of context, removed and added lines that applies at one place.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Hunk {
    /// 0-based index in the old file where the hunk's old lines start (for a hunk without old
    /// lines: the index it inserts before). `None` when the format states no position.
    pub start: Option<usize>,
    /// The hunk's lines, in order.
    pub lines: Vec<HunkLine>,
    /// Lines that must be found, in order, before the hunk (the `@@ context` anchors of the
    /// `*** Begin Patch` format).
    pub anchors: Vec<String>,
    /// The hunk must end at the end of the file (`*** End of File`).
    pub at_eof: bool,
    /// `\ No newline at end of file` followed an old-side line.
    pub old_no_newline: bool,
    /// `\ No newline at end of file` followed a new-side line.
    pub new_no_newline: bool,
    /// Accept lines that differ only in surrounding whitespace when no exact match exists
    /// (the `*** Begin Patch` format only; unified diffs match exactly).
    pub tolerant: bool,
    /// 1-based line of the patch where the hunk starts, for messages.
    pub line: usize,
}

impl Hunk {
    /// The lines the hunk expects in the old file.
    pub fn old_lines(&self) -> Vec<&str> {
        self.lines
            .iter()
            .filter(|l| l.kind != Kind::Add)
            .map(|l| l.text.as_str())
            .collect()
    }

    /// Number of added lines.
    pub fn added(&self) -> usize {
        self.lines.iter().filter(|l| l.kind == Kind::Add).count()
    }

    /// Number of removed lines.
    pub fn removed(&self) -> usize {
        self.lines.iter().filter(|l| l.kind == Kind::Remove).count()
    }
}

/// One file block of a patch: which paths it names and the hunks to apply.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FilePatch {
    /// The old path as written (prefix `a/` stripped); `None` for `/dev/null` (a create).
    pub old_path: Option<String>,
    /// The new path as written (prefix `b/` stripped); `None` for `/dev/null` (a delete).
    pub new_path: Option<String>,
    /// The hunks, in patch order.
    pub hunks: Vec<Hunk>,
    /// Delete the file whatever it holds (`*** Delete File:`), instead of requiring the hunks
    /// to remove every line.
    pub delete_whole: bool,
}

/// Parses a patch in either format. `*** Begin Patch` (optionally inside a ``` fence) selects
/// the codex format; anything else is read as a unified diff.
pub fn parse_patch(text: &str) -> ToolResult<Vec<FilePatch>> {
    if codex::is_codex(text) {
        codex::parse(text)
    } else {
        parse::parse(text)
    }
}

/// The `Malformed patch: <detail>` error.
pub fn malformed(detail: impl AsRef<str>) -> ToolError {
    ToolError::invalid(format!("Malformed patch: {}", detail.as_ref()))
}

/// The error for a block that names no usable path.
pub fn missing_path() -> ToolError {
    ToolError::invalid("Patch is missing a valid file path")
}

/// Splits patch text into lines: `\r\n`, `\n` and lone `\r` all end a line (as they do in the
/// files the hunks are matched against); the empty string after a final terminator is dropped.
pub fn patch_lines(text: &str) -> Vec<String> {
    let norm = crate::text::normalize_eol(text);
    let mut lines: Vec<String> = norm.split('\n').map(str::to_string).collect();
    if lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines
}
