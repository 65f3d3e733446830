//! The unified-diff parser.
//!
//! Accepts what `diff -u`, `git diff` and `git format-patch` write: `--- a/x` / `+++ b/x`
//! headers (the `a/` / `b/` prefix and anything after a tab stripped, C-quoted names
//! unquoted, `/dev/null` for a create or delete), `diff --git` blocks whose extended headers
//! carry `rename from` / `rename to` (a rename without `---`/`+++`) or `new file mode` /
//! `deleted file mode` (an empty file created or deleted), `@@ -l,s +l,s @@` hunks (a missing
//! count means 1) and `\ No newline at end of file`. Text between blocks is ignored. A hunk
//! whose body disagrees with its header's counts, or holds a line that is not a hunk line, is
//! malformed: the parser never guesses where a hunk ends.

use super::{malformed, missing_path, patch_lines, FilePatch, Hunk, HunkLine, Kind};
use crate::error::ToolResult;
use names::{display_name, git_names};
pub use names::{header_path, unquote};

#[path = "names.rs"]
mod names;

/// Parses a unified diff into file blocks, in patch order.
pub fn parse(text: &str) -> ToolResult<Vec<FilePatch>> {
    let lines = patch_lines(text);
    let mut p = Parser {
        lines: &lines,
        i: 0,
    };
    let mut blocks = Vec::new();
    while p.i < lines.len() {
        let line = lines[p.i].as_str();
        if line.starts_with("diff --git ") {
            if let Some(block) = p.git_block()? {
                blocks.push(block);
            }
        } else if line.starts_with("--- ") && p.peek(1).is_some_and(|l| l.starts_with("+++ ")) {
            if let Some(block) = p.plain_block()? {
                blocks.push(block);
            }
        } else if let Some(name) = line.strip_prefix("--- ") {
            // A `---` header whose `+++` is not next (the patch may end there): as jsdiff,
            // the original's parser, this is malformed whatever follows.
            return Err(malformed(format!(
                "Missing \"+++ ...\" file header for {}",
                display_name(name)
            )));
        } else if let Some(name) = line.strip_prefix("+++ ") {
            return Err(malformed(format!(
                "Missing \"--- ...\" file header for {}",
                display_name(name)
            )));
        } else if line.starts_with("@@") {
            return Err(missing_path());
        } else {
            p.i += 1;
        }
    }
    Ok(blocks)
}

struct Parser<'a> {
    lines: &'a [String],
    i: usize,
}

impl<'a> Parser<'a> {
    fn peek(&self, ahead: usize) -> Option<&'a str> {
        self.lines.get(self.i + ahead).map(String::as_str)
    }

    /// `--- old` / `+++ new` then hunks.
    /// `None` for `/dev/null` on both sides with no hunks: a block that says nothing (the
    /// patch then has no applicable hunks), not a path error.
    fn plain_block(&mut self) -> ToolResult<Option<FilePatch>> {
        let old = header_path(&self.lines[self.i][4..]);
        let new = header_path(&self.lines[self.i + 1][4..]);
        self.i += 2;
        let hunks = self.hunks()?;
        if old.is_none() && new.is_none() {
            return if hunks.is_empty() {
                Ok(None)
            } else {
                Err(missing_path())
            };
        }
        Ok(Some(FilePatch {
            old_path: old,
            new_path: new,
            hunks,
            delete_whole: false,
        }))
    }

    /// `diff --git a/x b/y`, extended headers, then optional `---`/`+++` and hunks. `None` for
    /// a block that changes nothing a text patch can express (a mode change alone).
    fn git_block(&mut self) -> ToolResult<Option<FilePatch>> {
        let names = git_names(&self.lines[self.i]["diff --git ".len()..]);
        self.i += 1;
        let (mut rename_from, mut rename_to) = (None, None);
        let (mut created, mut deleted) = (false, false);
        while let Some(line) = self.peek(0) {
            if line.starts_with("diff --git ") || line.starts_with("--- ") || line.starts_with("@@")
            {
                break;
            }
            if let Some(rest) = line.strip_prefix("rename from ") {
                rename_from = Some(unquote(rest));
            } else if let Some(rest) = line.strip_prefix("rename to ") {
                rename_to = Some(unquote(rest));
            } else if line.starts_with("new file mode ") {
                created = true;
            } else if line.starts_with("deleted file mode ") {
                deleted = true;
            } else if line == "GIT binary patch" || line.starts_with("Binary files ") {
                let name = names.as_ref().map(|n| n.1.clone()).unwrap_or_default();
                return Err(malformed(format!(
                    "binary patches are not supported ({name})"
                )));
            } else if !is_extended_header(line) {
                break;
            }
            self.i += 1;
        }
        let (mut old, mut new) = match (&rename_from, &rename_to) {
            (Some(from), Some(to)) => (Some(from.clone()), Some(to.clone())),
            _ => match &names {
                Some((a, b)) => (Some(a.clone()), Some(b.clone())),
                None => (None, None),
            },
        };
        if created {
            old = None;
        }
        if deleted {
            new = None;
        }
        let mut has_headers = self.peek(0).is_some_and(|l| l.starts_with("--- "))
            && self.peek(1).is_some_and(|l| l.starts_with("+++ "));
        if has_headers {
            let h_old = header_path(&self.lines[self.i][4..]);
            let h_new = header_path(&self.lines[self.i + 1][4..]);
            // `---`/`+++` naming other files belong to the next block (whose `diff --git`
            // line was left out), not to this one.
            let fits = |h: &Option<String>, a: &Option<String>, b: &Option<String>| {
                h.is_none() || h == a || h == b || (a.is_none() && b.is_none())
            };
            let names_old = names.as_ref().map(|n| n.0.clone());
            let names_new = names.as_ref().map(|n| n.1.clone());
            has_headers =
                fits(&h_old, &names_old, &rename_from) && fits(&h_new, &names_new, &rename_to);
            if has_headers {
                (old, new) = (h_old, h_new);
                self.i += 2;
            }
        }
        if !has_headers {
            let line = self.peek(0).unwrap_or("");
            if line.starts_with("--- ") && !self.peek(1).is_some_and(|l| l.starts_with("+++ ")) {
                return Err(malformed(format!(
                    "Missing \"+++ ...\" file header for {}",
                    display_name(&line[4..])
                )));
            }
        }
        if old.is_none() && new.is_none() {
            return Err(missing_path());
        }
        let hunks = self.hunks()?;
        let renamed = rename_from.is_some() && rename_to.is_some();
        if hunks.is_empty() && !created && !deleted && !renamed && !has_headers {
            return Ok(None);
        }
        Ok(Some(FilePatch {
            old_path: old,
            new_path: new,
            hunks,
            delete_whole: false,
        }))
    }

    /// The hunks of the current block, up to the next block header.
    fn hunks(&mut self) -> ToolResult<Vec<Hunk>> {
        let mut hunks: Vec<Hunk> = Vec::new();
        while let Some(line) = self.peek(0) {
            if line.starts_with("@@") {
                hunks.push(self.hunk()?);
            } else if starts_block(line, self.peek(1)) {
                break;
            } else if let Some(last) = hunks.last().filter(|_| looks_like_hunk_line(line)) {
                // The hunk has more lines than its header counts: never drop them silently.
                let what = if line.starts_with('-') {
                    "Removed"
                } else {
                    "Added"
                };
                return Err(malformed(format!(
                    "{what} line count did not match for hunk at line {}",
                    last.line
                )));
            } else {
                self.i += 1;
            }
        }
        Ok(hunks)
    }

    fn hunk(&mut self) -> ToolResult<Hunk> {
        let at = self.i + 1;
        let header = self.lines[self.i].as_str();
        let Some((old_start, old_count, new_count)) = hunk_header(header) else {
            return Err(malformed(format!(
                "Invalid hunk header at line {at}: {header}"
            )));
        };
        self.i += 1;
        let mut hunk = Hunk {
            line: at,
            ..Hunk::default()
        };
        let (mut removed, mut added) = (0usize, 0usize);
        while let Some(line) = self.peek(0) {
            let wanted = removed < old_count || added < new_count;
            if !wanted && !line.starts_with('\\') {
                break;
            }
            let (kind, text) = match line.chars().next() {
                None => (Kind::Context, ""),
                Some(' ') => (Kind::Context, &line[1..]),
                Some('-') => (Kind::Remove, &line[1..]),
                Some('+') => (Kind::Add, &line[1..]),
                Some('\\') => {
                    match hunk.lines.last().map(|l| l.kind) {
                        Some(Kind::Remove) => hunk.old_no_newline = true,
                        Some(Kind::Add) => hunk.new_no_newline = true,
                        Some(Kind::Context) => {
                            hunk.old_no_newline = true;
                            hunk.new_no_newline = true;
                        }
                        None => {}
                    }
                    self.i += 1;
                    continue;
                }
                Some(_) => {
                    return Err(malformed(format!(
                        "Hunk at line {at} contained invalid line {line}"
                    )))
                }
            };
            match kind {
                Kind::Context => {
                    removed += 1;
                    added += 1;
                }
                Kind::Remove => removed += 1,
                Kind::Add => added += 1,
            }
            hunk.lines.push(HunkLine {
                kind,
                text: text.to_string(),
            });
            self.i += 1;
        }
        // As diff tools do: an omitted count of 1 with no lines on that side means 0.
        let new_count = if added == 0 && new_count == 1 {
            0
        } else {
            new_count
        };
        let old_count = if removed == 0 && old_count == 1 {
            0
        } else {
            old_count
        };
        if added != new_count {
            return Err(malformed(format!(
                "Added line count did not match for hunk at line {at}"
            )));
        }
        if removed != old_count {
            return Err(malformed(format!(
                "Removed line count did not match for hunk at line {at}"
            )));
        }
        // `-l,0` names the line after which the hunk inserts; otherwise `l` is 1-based.
        hunk.start = Some(if old_count == 0 {
            old_start
        } else {
            old_start.saturating_sub(1)
        });
        Ok(hunk)
    }
}

/// Whether `line` (followed by `next`) opens a new block.
fn starts_block(line: &str, next: Option<&str>) -> bool {
    line.starts_with("diff --git ")
        || line.starts_with("Index: ")
        || (line.starts_with("--- ") && next.is_some_and(|n| n.starts_with("+++ ")))
}

/// A stray `+`/`-`/` ` line after a complete hunk. `--` and `-- ` are the signature
/// separators `git format-patch` writes at the end of a mail, not hunk lines.
fn looks_like_hunk_line(line: &str) -> bool {
    if line == "--" || line == "-- " || line.starts_with("--- ") || line.starts_with("+++ ") {
        return false;
    }
    line.starts_with('+') || line.starts_with('-') || line.starts_with(' ')
}

fn is_extended_header(line: &str) -> bool {
    const HEADERS: [&str; 9] = [
        "old mode ",
        "new mode ",
        "similarity index ",
        "dissimilarity index ",
        "index ",
        "copy from ",
        "copy to ",
        "rename old ",
        "rename new ",
    ];
    HEADERS.iter().any(|h| line.starts_with(h))
}

/// `@@ -l[,s] +l[,s] @@…` → (old start, old count, new count).
fn hunk_header(line: &str) -> Option<(usize, usize, usize)> {
    let rest = line.strip_prefix("@@ -")?;
    let (ranges, _) = rest.split_once(" @@")?;
    let (old, new) = ranges.split_once(" +")?;
    let (old_start, old_count) = range(old)?;
    let (_, new_count) = range(new)?;
    Some((old_start, old_count, new_count))
}

fn range(s: &str) -> Option<(usize, usize)> {
    let digits = |d: &str| -> Option<usize> {
        if d.is_empty() || !d.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        d.parse().ok()
    };
    match s.split_once(',') {
        Some((start, count)) => Some((digits(start)?, digits(count)?)),
        None => Some((digits(s)?, 1)),
    }
}

#[cfg(test)]
#[path = "parse_tests.rs"]
mod tests;
