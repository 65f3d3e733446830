//! The last few parse trees, so a file that is parsed again — an agent's second edit of the
//! same file, an outline after a check — costs an incremental re-parse or nothing, instead of
//! a full parse.
//!
//! An entry keeps the exact text its tree was parsed from, so it can never describe content
//! that differs: a lookup whose text is byte-equal reuses the tree as it is; any other text is
//! diffed against the kept one (common prefix and suffix), the difference becomes the tree's
//! `InputEdit` and tree-sitter re-parses only around it. The path is only a hint of which
//! entry is worth diffing, so a file changed behind our back is still parsed right.
//!
//! Only a tree from a full parse ("fresh") is reused for the tools' output (`outline`,
//! `check_syntax`): after an incremental re-parse tree-sitter's error recovery may shape an
//! erroneous region differently from a full parse (measured: 19 trees of 27,000 random edits,
//! all with errors), and those outputs are byte-for-byte contracts. The write warnings use the
//! incremental tree: "does it still parse?" is `has_error` (O(1)), and the first issue was the
//! full parse's in every one of those 27,000 edits (`cache_tests` keeps checking it).

use super::lang::Grammar;
use super::parse::{self, ParseFailure, Parsed, MAX_PARSE_BYTES};
use crate::cancel::Cancel;
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;
use tree_sitter::{InputEdit, Point, Tree};

/// At most this many trees are kept (process-wide, every tools object together).
pub const MAX_ENTRIES: usize = 8;
/// At most this many bytes of source text are kept in all entries together. The trees take
/// far more than their text (a 287 KB TypeScript file: 12.7 MB, 44×), so this bounds the
/// cache at about 45 MB.
pub const MAX_TEXT_BYTES: usize = 1_000_000;

/// How a caller may use a kept tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reuse {
    /// `outline` and the library calls: only a fresh tree of byte-equal text; otherwise a
    /// full parse, which is kept.
    Exact,
    /// `check_syntax`: as [`Reuse::Exact`], but its full parse is not kept. Checking a whole
    /// tree file by file would only churn the cache, and the bench showed it costs: every
    /// call copied its text in and freed an evicted tree another thread had allocated.
    Lookup,
    /// The write warnings: an incremental re-parse from the kept tree of the same path.
    Incremental,
}

struct Entry {
    key: PathBuf,
    grammar: Grammar,
    text: String,
    tree: Tree,
    /// The tree came from a full parse.
    fresh: bool,
}

/// Most recently used first.
static CACHE: Mutex<VecDeque<Entry>> = Mutex::new(VecDeque::new());

/// Parses `text` (the content of `key`, already decoded as `read_file` decodes it:
/// [`crate::text::decode_text`]) like [`parse::parse`], through the cache.
pub fn parse(
    key: &Path,
    grammar: Grammar,
    text: &str,
    budget: Duration,
    cancel: Option<&Cancel>,
    reuse: Reuse,
) -> Result<Parsed, ParseFailure> {
    if text.len() > MAX_PARSE_BYTES {
        return Err(ParseFailure::TooLarge);
    }
    match take(key, grammar) {
        Some(e) if e.text == text && (e.fresh || reuse == Reuse::Incremental) => {
            let tree = e.tree.clone();
            let text = e.text.clone();
            put(e);
            Ok(Parsed {
                text,
                tree,
                grammar,
                masked: Vec::new(),
            })
        }
        Some(Entry {
            text: old,
            mut tree,
            ..
        }) if reuse == Reuse::Incremental => {
            tree.edit(&edit_between(&old, text));
            drop(old);
            let p = parse::parse_text(grammar, text.to_owned(), Some(&tree), budget, cancel)?;
            keep(key, &p, false);
            Ok(p)
        }
        _ => {
            let p = parse::parse_text(grammar, text.to_owned(), None, budget, cancel)?;
            if reuse != Reuse::Lookup {
                keep(key, &p, true);
            }
            Ok(p)
        }
    }
}

fn keep(key: &Path, p: &Parsed, fresh: bool) {
    if p.text.len() <= MAX_TEXT_BYTES {
        put(Entry {
            key: key.to_path_buf(),
            grammar: p.grammar,
            text: p.text.clone(),
            tree: p.tree.clone(),
            fresh,
        });
    }
}

/// Removes and returns the entry for `key` and `grammar`.
fn take(key: &Path, grammar: Grammar) -> Option<Entry> {
    let mut cache = CACHE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let at = cache
        .iter()
        .position(|e| e.grammar == grammar && e.key == key)?;
    cache.remove(at)
}

/// Keeps `entry` as the most recent, replacing any entry for its key, evicting the least
/// recently used beyond the bounds. Evicted trees are freed after the lock is released, off
/// the caller's path ([`parse::release`]).
fn put(entry: Entry) {
    let mut evicted = Vec::new();
    {
        let mut cache = CACHE
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(at) = cache.iter().position(|e| e.key == entry.key) {
            evicted.extend(cache.remove(at));
        }
        cache.push_front(entry);
        let mut bytes: usize = cache.iter().map(|e| e.text.len()).sum();
        while cache.len() > MAX_ENTRIES || bytes > MAX_TEXT_BYTES {
            let Some(old) = cache.pop_back() else { break };
            bytes -= old.text.len();
            evicted.push(old);
        }
    }
    for old in evicted {
        parse::release(old.tree);
    }
}

/// The edit that turns `old` into `new`: everything between their common prefix and their
/// common suffix, on UTF-8 character boundaries.
pub fn edit_between(old: &str, new: &str) -> InputEdit {
    let (o, n) = (old.as_bytes(), new.as_bytes());
    let mut start = common_len(o, n, true);
    while !old.is_char_boundary(start) {
        start -= 1;
    }
    let mut suffix = common_len(&o[start..], &n[start..], false);
    while !old.is_char_boundary(o.len() - suffix) {
        suffix -= 1;
    }
    let (old_end, new_end) = (o.len() - suffix, n.len() - suffix);
    InputEdit {
        start_byte: start,
        old_end_byte: old_end,
        new_end_byte: new_end,
        start_position: point(o, start),
        old_end_position: point(o, old_end),
        new_end_position: point(n, new_end),
    }
}

/// The length of the common prefix (`front`) or suffix of `a` and `b`: whole 64-byte blocks
/// first (a `memcmp` each), then byte by byte.
fn common_len(a: &[u8], b: &[u8], front: bool) -> usize {
    const BLOCK: usize = 64;
    let max = a.len().min(b.len());
    // The `i`-th..`i + len`-th bytes from the front, or from the back.
    let span = |x: &[u8], i: usize, len: usize| -> std::ops::Range<usize> {
        if front {
            i..i + len
        } else {
            x.len() - i - len..x.len() - i
        }
    };
    let mut same = 0;
    while same + BLOCK <= max && a[span(a, same, BLOCK)] == b[span(b, same, BLOCK)] {
        same += BLOCK;
    }
    while same < max && a[span(a, same, 1)] == b[span(b, same, 1)] {
        same += 1;
    }
    same
}

/// Row and byte column of byte `at`.
fn point(text: &[u8], at: usize) -> Point {
    let before = &text[..at];
    let row = memchr::memchr_iter(b'\n', before).count();
    let line_start = memchr::memrchr(b'\n', before).map_or(0, |i| i + 1);
    Point::new(row, at - line_start)
}

/// Drops every kept tree (tests).
#[cfg(test)]
pub fn clear() {
    CACHE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clear();
}
