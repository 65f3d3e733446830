//! `multiline` grep: a unit is a maximal run of consecutive matched lines containing a match
//! that spans lines (else each line of the run is its own unit); zero-width matches are
//! dropped. Done here, directly on the matcher, because it needs every match's line span.

use super::scan::{Row, RowSink};
use grep_matcher::Matcher;

/// A run of matched lines: `[start, end)` bytes of whole lines (no final `\n`).
#[derive(Clone, Copy)]
struct Run {
    line: u64,
    end_line: u64,
    start: usize,
    end: usize,
    spans: bool,
}

/// Number of `\n` in `bytes`.
fn count_nl(bytes: &[u8]) -> u64 {
    bytes.iter().filter(|&&b| b == b'\n').count() as u64
}

fn line_start(buf: &[u8], at: usize) -> usize {
    buf[..at]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1)
}

fn line_end(buf: &[u8], at: usize) -> usize {
    buf[at..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(buf.len(), |p| at + p)
}

/// The multiline search: runs of matched lines, their units and context rows. `Err` is the
/// matcher's error (PCRE2's match limit) that ended the search; what came before was fed.
pub(super) fn scan_multiline<M: Matcher>(
    m: &M,
    buf: &[u8],
    before: u64,
    after: u64,
    sink: &mut dyn RowSink,
) -> Result<(), String> {
    let mut emitter = Emitter {
        buf,
        before,
        after,
        last: 0,
        prev: None,
        sink,
    };
    let mut run: Option<Run> = None;
    let (mut pos, mut line) = (0usize, 1u64);
    let mut at = 0usize;
    // The bounds of the line the last match sat on: many matches on one long line (`.` over
    // a minified file) must not each scan the whole line again (that was quadratic).
    let mut bounds: Option<(usize, usize)> = None;
    let mut failed = None;
    while at <= buf.len() {
        let found = match m.find_at(buf, at) {
            Ok(Some(found)) => found,
            Ok(None) => break,
            Err(e) => {
                failed = Some(e.to_string());
                break;
            }
        };
        if found.is_empty() {
            // Zero-width matches are dropped; step over one whole character.
            at = found.end() + buf.get(found.end()).map_or(1, |&b| utf8_len(b));
            continue;
        }
        let newlines = count_nl(&buf[pos..found.start()]);
        if newlines > 0 {
            bounds = None;
        }
        line += newlines;
        pos = found.start();
        let last_byte = found.end() - 1;
        let end_line = line + count_nl(&buf[found.start()..last_byte]);
        let start = bounds.map_or_else(|| line_start(buf, found.start()), |(s, _)| s);
        let end = match bounds {
            Some((_, e)) if end_line == line && last_byte < e => e,
            _ => line_end(buf, last_byte),
        };
        bounds = (end_line == line).then_some((start, end));
        let next = Run {
            line,
            end_line,
            start,
            end,
            spans: end_line > line,
        };
        run = match run {
            Some(r) if next.line <= r.end_line + 1 => Some(Run {
                end_line: r.end_line.max(next.end_line),
                end: r.end.max(next.end),
                spans: r.spans || next.spans,
                ..r
            }),
            Some(r) => {
                if !emitter.run(r) {
                    return Ok(());
                }
                Some(next)
            }
            None => Some(next),
        };
        at = found.end();
    }
    if let Some(r) = run {
        if !emitter.run(r) {
            return Ok(());
        }
    }
    emitter.after_context(u64::MAX);
    failed.map_or(Ok(()), Err)
}

fn utf8_len(lead: u8) -> usize {
    match lead {
        0xF0..=0xF7 => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        _ => 1,
    }
}

/// Emits runs as unit rows with context lines between them, each line once and in order.
struct Emitter<'b, 's> {
    buf: &'b [u8],
    before: u64,
    after: u64,
    /// The last line emitted (0 = none).
    last: u64,
    /// The previous run, whose after-context waits until the next run bounds it.
    prev: Option<Run>,
    sink: &'s mut dyn RowSink,
}

impl Emitter<'_, '_> {
    /// The previous run's after-context, this run's before-context, then its unit row(s).
    fn run(&mut self, r: Run) -> bool {
        if !self.after_context(r.line) {
            return false;
        }
        let mut lines: Vec<(u64, usize, usize)> = Vec::new();
        let (mut start, mut ln) = (r.start, r.line);
        while ln > 1 && r.line - (ln - 1) <= self.before && ln - 1 > self.last {
            let end = start - 1;
            let s = line_start(self.buf, end);
            ln -= 1;
            lines.push((ln, s, end));
            start = s;
        }
        for &(ln, s, e) in lines.iter().rev() {
            if !self.context(ln, s, e) {
                return false;
            }
        }
        let ok = if r.spans {
            self.sink.row(Row {
                line: r.line,
                end_line: r.end_line,
                unit: true,
                text: &self.buf[r.start..r.end],
            })
        } else {
            let mut ln = r.line;
            let sink = &mut *self.sink;
            self.buf[r.start..r.end].split(|&b| b == b'\n').all(|text| {
                let ok = sink.row(Row {
                    line: ln,
                    end_line: ln,
                    unit: true,
                    text,
                });
                ln += 1;
                ok
            })
        };
        self.last = r.end_line;
        self.prev = Some(r);
        ok
    }

    fn context(&mut self, line: u64, s: usize, e: usize) -> bool {
        self.last = line;
        self.sink.row(Row {
            line,
            end_line: line,
            unit: false,
            text: &self.buf[s..e],
        })
    }

    /// Up to `after` lines following the previous run, stopping before line `limit`.
    fn after_context(&mut self, limit: u64) -> bool {
        let Some(prev) = self.prev.take() else {
            return true;
        };
        let (mut pos, mut ln) = (prev.end, prev.end_line);
        while ln - prev.end_line < self.after && ln + 1 < limit {
            let s = pos + 1;
            // Past the end, or the empty remainder after a final newline: no more lines.
            if s >= self.buf.len() {
                break;
            }
            let e = line_end(self.buf, s);
            ln += 1;
            if !self.context(ln, s, e) {
                return false;
            }
            pos = e;
        }
        true
    }
}
