//! Applying a block's hunks to a decoded file, and re-encoding the result.
//!
//! All hunks of a block are located first ([`super::locate`], each after the previous one's
//! last change) against the original lines; only if every one fits is the new content built.
//! Lines the patch did not touch keep their own terminator, added lines get the file's
//! dominant one, the BOM is kept. The last line ends the way the file's last line did unless
//! a hunk reaching the end of the file says otherwise with `\ No newline at end of file`.
//!
//! When the block does not fit, [`apply`] reports which hunk is to blame, found by applying
//! the hunks one at a time, each on the result of the previous, without the ordering floor:
//! the first that fits nowhere is named; if each fits alone, no hunk is named.

use super::locate::{locate, Search};
use super::{Hunk, Kind};
use crate::eol::{EditableText, Eol};

/// The result of applying a block to a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    /// The new file's bytes (BOM and terminators carried over).
    pub bytes: Vec<u8>,
    /// How many lines the new content has.
    pub lines: usize,
}

/// Why a block did not apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// The 1-based index of the first hunk that fits nowhere.
    Hunk(usize),
    /// Each hunk fits on its own, but not all of them together in order.
    Block,
}

enum Piece<'a> {
    Kept(usize),
    Added(&'a str),
}

/// Applies `hunks` in order to `file`.
pub fn apply(file: &EditableText, hunks: &[Hunk]) -> Result<Applied, Failure> {
    let lines: Vec<&str> = file
        .text
        .split_inclusive('\n')
        .map(|l| l.strip_suffix('\n').unwrap_or(l))
        .collect();
    let n = lines.len();
    let mut removed = vec![false; n];
    let mut inserted: Vec<Vec<&str>> = vec![Vec::new(); n + 1];
    let mut search = Search::default();
    let mut final_newline: Option<bool> = None;
    for hunk in hunks {
        let Some(at) = locate(&lines, hunk, search) else {
            return Err(diagnose(&lines, hunks));
        };
        let mut old = at;
        let mut last_change = at;
        for line in &hunk.lines {
            match line.kind {
                Kind::Context => old += 1,
                Kind::Remove => {
                    removed[old] = true;
                    old += 1;
                    last_change = old;
                }
                Kind::Add => {
                    inserted[old].push(&line.text);
                    last_change = old;
                }
            }
        }
        if old == n {
            if hunk.new_no_newline {
                final_newline = Some(false);
            } else if hunk.old_no_newline {
                final_newline = Some(true);
            }
        }
        search = Search {
            floor: last_change,
            displacement: hunk.start.map_or(0, |s| at as isize - s as isize),
        };
    }
    let mut pieces = Vec::with_capacity(n);
    for i in 0..=n {
        pieces.extend(inserted[i].iter().map(|t| Piece::Added(t)));
        if i < n && !removed[i] {
            pieces.push(Piece::Kept(i));
        }
    }
    let had_final = file.terminators.last().is_none_or(|t| *t != Eol::None);
    let ends_with_newline = final_newline.unwrap_or(had_final);
    Ok(Applied {
        bytes: encode(file, &lines, &pieces, ends_with_newline),
        lines: pieces.len(),
    })
}

fn encode(
    file: &EditableText,
    lines: &[&str],
    pieces: &[Piece],
    ends_with_newline: bool,
) -> Vec<u8> {
    let mut out = Vec::with_capacity(file.text.len() + 64);
    if file.bom {
        out.extend_from_slice(&[0xEF, 0xBB, 0xBF]);
    }
    let last = pieces.len().saturating_sub(1);
    for (j, piece) in pieces.iter().enumerate() {
        let (text, own) = match piece {
            Piece::Kept(i) => (lines[*i], file.terminators[*i]),
            Piece::Added(t) => (*t, file.dominant),
        };
        let eol = match own {
            _ if j == last && !ends_with_newline => Eol::None,
            // A line that gained a successor (or must now end the file with one) needs one.
            Eol::None => file.dominant,
            own => own,
        };
        out.extend_from_slice(text.as_bytes());
        out.extend_from_slice(eol.as_str().as_bytes());
    }
    out
}

/// Names the hunk to blame: the hunks applied one at a time, each on the previous result.
fn diagnose(lines: &[&str], hunks: &[Hunk]) -> Failure {
    let mut current: Vec<&str> = lines.to_vec();
    let mut shift: isize = 0;
    for (k, hunk) in hunks.iter().enumerate() {
        let search = Search {
            floor: 0,
            displacement: shift,
        };
        let Some(at) = locate(&current, hunk, search) else {
            return Failure::Hunk(k + 1);
        };
        let old_len = hunk.lines.len() - hunk.added();
        // Context lines keep the file's text (they may differ in whitespace when tolerant).
        let mut replacement = Vec::with_capacity(hunk.lines.len() - hunk.removed());
        let mut old_i = at;
        for l in &hunk.lines {
            match l.kind {
                Kind::Context => {
                    replacement.push(current[old_i]);
                    old_i += 1;
                }
                Kind::Remove => old_i += 1,
                Kind::Add => replacement.push(l.text.as_str()),
            }
        }
        current.splice(at..at + old_len, replacement);
        shift += hunk.added() as isize - hunk.removed() as isize;
    }
    Failure::Block
}

#[cfg(test)]
#[path = "apply_tests.rs"]
mod tests;
