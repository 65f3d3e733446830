//! The `*** Begin Patch` format (as OpenAI's codex `apply_patch` writes it), parsed into the
//! same plan as a unified diff.
//!
//! ```text
//! *** Begin Patch
//! *** Add File: path        then `+` lines: the new file's content (LF, final newline)
//! *** Delete File: path     the file is removed whatever it holds
//! *** Update File: path     optionally `*** Move to: other`, then hunks:
//! @@ optional anchor line   ` ` context, `-` removed, `+` added; `*** End of File` ends a
//!                           hunk that must sit at the end of the file
//! *** End Patch
//! ```
//!
//! The format states no line numbers: each hunk is searched for forward from the previous
//! one, exactly first and then ignoring surrounding whitespace (see [`super::locate`]). The
//! whole patch may sit inside a ``` fence. A patch without `*** End Patch` is refused, since a
//! truncated patch must not be half-applied.

use super::{malformed, missing_path, patch_lines, FilePatch, Hunk, HunkLine, Kind};
use crate::error::ToolResult;

const BEGIN: &str = "*** Begin Patch";
const END: &str = "*** End Patch";
const ADD: &str = "*** Add File: ";
const DELETE: &str = "*** Delete File: ";
const UPDATE: &str = "*** Update File: ";
const MOVE: &str = "*** Move to: ";
const EOF_MARK: &str = "*** End of File";

/// Whether the text is in this format: its first non-blank line (after an optional ```
/// fence) is `*** Begin Patch`.
pub fn is_codex(text: &str) -> bool {
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    match lines.next() {
        Some(l) if l.starts_with("```") => lines.next() == Some(BEGIN),
        Some(l) => l == BEGIN,
        None => false,
    }
}

/// Parses a `*** Begin Patch` … `*** End Patch` patch.
pub fn parse(text: &str) -> ToolResult<Vec<FilePatch>> {
    let lines = patch_lines(text);
    let mut i = lines.iter().position(|l| l.trim() == BEGIN).unwrap_or(0) + 1;
    let mut blocks = Vec::new();
    loop {
        let Some(line) = lines.get(i) else {
            return Err(malformed(format!("the patch does not end with \"{END}\"")));
        };
        let at = i + 1;
        if line.trim() == END {
            return Ok(blocks);
        }
        if let Some(path) = line.strip_prefix(ADD) {
            i += 1;
            let mut hunk = Hunk {
                start: Some(0),
                line: at,
                ..Hunk::default()
            };
            while let Some(body) = lines.get(i).and_then(|l| l.strip_prefix('+')) {
                hunk.lines.push(HunkLine {
                    kind: Kind::Add,
                    text: body.to_string(),
                });
                i += 1;
            }
            let hunks = if hunk.lines.is_empty() {
                vec![]
            } else {
                vec![hunk]
            };
            blocks.push(FilePatch {
                old_path: None,
                new_path: Some(path_of(path)?),
                hunks,
                delete_whole: false,
            });
        } else if let Some(path) = line.strip_prefix(DELETE) {
            i += 1;
            let path = path_of(path)?;
            blocks.push(FilePatch {
                old_path: Some(path),
                new_path: None,
                hunks: vec![],
                delete_whole: true,
            });
        } else if let Some(path) = line.strip_prefix(UPDATE) {
            i += 1;
            let old = path_of(path)?;
            let mut new = old.clone();
            if let Some(to) = lines.get(i).and_then(|l| l.strip_prefix(MOVE)) {
                new = path_of(to)?;
                i += 1;
            }
            let hunks = update_hunks(&lines, &mut i)?;
            if hunks.is_empty() && new == old {
                return Err(malformed(format!(
                    "\"{UPDATE}{old}\" at line {at} has no hunks"
                )));
            }
            blocks.push(FilePatch {
                old_path: Some(old),
                new_path: Some(new),
                hunks,
                delete_whole: false,
            });
        } else if line.trim().is_empty() {
            i += 1;
        } else {
            return Err(malformed(format!("unexpected line {at}: {line}")));
        }
    }
}

fn path_of(raw: &str) -> ToolResult<String> {
    let p = raw.trim();
    if p.is_empty() {
        return Err(missing_path());
    }
    Ok(p.to_string())
}

/// The hunks of an `*** Update File:` block, up to the next `*** ` line.
fn update_hunks(lines: &[String], i: &mut usize) -> ToolResult<Vec<Hunk>> {
    let mut hunks: Vec<Hunk> = Vec::new();
    let mut current: Option<Hunk> = None;
    while let Some(line) = lines.get(*i) {
        let at = *i + 1;
        if line == EOF_MARK {
            let Some(h) = current.as_mut().filter(|h| !h.lines.is_empty()) else {
                return Err(malformed(format!(
                    "\"{EOF_MARK}\" at line {at} does not follow a hunk"
                )));
            };
            h.at_eof = true;
            *i += 1;
            continue;
        }
        if line.starts_with("*** ") {
            break;
        }
        if line == "@@" || line.starts_with("@@ ") {
            let anchor = line.get(3..).unwrap_or("").to_string();
            // Consecutive `@@` lines narrow the search step by step (class, then method).
            let h = match current.take() {
                Some(h) if h.lines.is_empty() => h,
                done => {
                    hunks.extend(done);
                    Hunk {
                        tolerant: true,
                        line: at,
                        ..Hunk::default()
                    }
                }
            };
            let mut h = h;
            if !anchor.trim().is_empty() {
                h.anchors.push(anchor);
            }
            current = Some(h);
            *i += 1;
            continue;
        }
        let (kind, text) = match line.chars().next() {
            None => (Kind::Context, ""),
            Some(' ') => (Kind::Context, &line[1..]),
            Some('-') => (Kind::Remove, &line[1..]),
            Some('+') => (Kind::Add, &line[1..]),
            Some(_) => {
                return Err(malformed(format!(
                    "unexpected line {at} in an update hunk: {line}"
                )))
            }
        };
        let h = current.get_or_insert_with(|| Hunk {
            tolerant: true,
            line: at,
            ..Hunk::default()
        });
        if h.at_eof {
            return Err(malformed(format!("line {at} follows \"{EOF_MARK}\"")));
        }
        h.lines.push(HunkLine {
            kind,
            text: text.to_string(),
        });
        *i += 1;
    }
    if let Some(h) = current {
        if h.lines.is_empty() {
            return Err(malformed(format!(
                "the hunk at line {} has no lines",
                h.line
            )));
        }
        hunks.push(h);
    }
    Ok(hunks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_the_format() {
        assert!(is_codex("\n*** Begin Patch\n*** End Patch\n"));
        assert!(is_codex("```\n*** Begin Patch\n*** End Patch\n```\n"));
        assert!(!is_codex("--- a/x\n+++ b/x\n"));
    }

    #[test]
    fn all_operations() {
        let p = "```\n*** Begin Patch\n*** Add File: new/a.txt\n+one\n+two\n*** Delete File: old.txt\n*** Update File: src/m.rs\n*** Move to: src/n.rs\n@@ impl X\n@@ fn f\n a\n-b\n+B\n\n@@\n-y\n+z\n*** End of File\n*** End Patch\n```\n";
        let blocks = parse(p).unwrap();
        assert_eq!(blocks.len(), 3);
        assert_eq!(blocks[0].new_path.as_deref(), Some("new/a.txt"));
        assert_eq!(blocks[0].hunks[0].lines.len(), 2);
        assert!(blocks[1].delete_whole && blocks[1].new_path.is_none());
        let u = &blocks[2];
        assert_eq!(
            (u.old_path.as_deref(), u.new_path.as_deref()),
            (Some("src/m.rs"), Some("src/n.rs"))
        );
        assert_eq!(u.hunks.len(), 2);
        assert_eq!(
            u.hunks[0].anchors,
            vec!["impl X".to_string(), "fn f".to_string()]
        );
        assert_eq!(u.hunks[0].lines.len(), 4, "a blank line is empty context");
        assert!(u.hunks[1].at_eof && u.hunks[1].tolerant && u.hunks[1].start.is_none());
    }

    #[test]
    fn malformed_inputs() {
        let m = |p: &str| parse(p).unwrap_err().message;
        assert_eq!(
            m("*** Begin Patch\n*** Add File: a\n+x\n"),
            "Malformed patch: the patch does not end with \"*** End Patch\""
        );
        assert_eq!(
            m("*** Begin Patch\nhello\n*** End Patch\n"),
            "Malformed patch: unexpected line 2: hello"
        );
        assert_eq!(
            m("*** Begin Patch\n*** Update File: a\n*** End Patch\n"),
            "Malformed patch: \"*** Update File: a\" at line 2 has no hunks"
        );
        assert_eq!(
            m("*** Begin Patch\n*** Update File: a\n@@ x\n*** End Patch\n"),
            "Malformed patch: the hunk at line 3 has no lines"
        );
        assert_eq!(
            m("*** Begin Patch\n*** Delete File:  \n*** End Patch\n"),
            "Patch is missing a valid file path"
        );
    }
}
