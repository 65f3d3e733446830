//! grep's result text: the page of units, context rows, `--` separators and the footers.
//!
//! Paging units are files (`files_with_matches`, `count`) or match units (`content`); the
//! page is units `[offset, offset + head_limit)`. The result is chosen by the first rule
//! that applies (CONTRACT §5 grep, rules 1–6): `(no matches)`; the incomplete-scan warning;
//! `(no results at offset …)`; the page cut with the page-exceeded marker; the page with the
//! `showing A..B of N` footer; the page.
//!
//! The page is written through [`PageWriter`], which keeps only the first `max` bytes and
//! counts the rest: the cut page and its `[... output truncated: <shown> of <total> …]`
//! marker are exactly what `output::bound` would give, without ever holding a page larger
//! than the budget.

use super::collect::FileHit;
use super::scan::{Row, RowSink};
use std::collections::VecDeque;

/// The incomplete-scan warning (rule 2).
pub const INCOMPLETE: &str = "[... search incomplete: the scan hit its output cap; some matching files were not scanned. Narrow the pattern, path, or glob for complete results. ...]";

/// The output mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// One display path per file.
    Files,
    /// `path:N` per file.
    Count,
    /// `path:line:text` rows with optional context.
    Content,
}

/// Accumulates the page's rows (joined by `\n`), keeping at most `max` bytes.
pub struct PageWriter {
    max: usize,
    kept: Vec<u8>,
    total: usize,
    rows: usize,
}

impl PageWriter {
    /// A writer for a `max`-byte budget.
    pub fn new(max: u64) -> Self {
        let max = usize::try_from(max).unwrap_or(usize::MAX);
        PageWriter {
            max,
            kept: Vec::new(),
            total: 0,
            rows: 0,
        }
    }

    fn put(&mut self, bytes: &[u8]) {
        self.total += bytes.len();
        // Keep a few bytes past the budget so the cut can find a character boundary.
        let room = (self.max.saturating_add(4)).saturating_sub(self.kept.len());
        self.kept.extend_from_slice(&bytes[..bytes.len().min(room)]);
    }

    /// Starts a new row.
    pub fn row(&mut self) {
        if self.rows > 0 {
            self.put(b"\n");
        }
        self.rows += 1;
    }

    /// Appends text to the current row.
    pub fn text(&mut self, s: &str) {
        self.put(s.as_bytes());
    }

    /// Appends bytes shown with U+FFFD for invalid UTF-8.
    pub fn lossy(&mut self, bytes: &[u8]) {
        match std::str::from_utf8(bytes) {
            Ok(s) => self.put(s.as_bytes()),
            Err(_) => self.put(String::from_utf8_lossy(bytes).as_bytes()),
        }
    }

    /// The page's full length in bytes.
    pub fn len(&self) -> usize {
        self.total
    }

    /// Whether nothing was written.
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// `bound(page)`: the page, or its first `max` bytes (on a character boundary) plus the
    /// truncation marker.
    pub fn bounded(self) -> String {
        if self.total <= self.max {
            // Everything written was valid UTF-8: reuse the buffer instead of copying a
            // page that can be many megabytes.
            return String::from_utf8(self.kept)
                .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
        }
        let mut end = self.max.min(self.kept.len());
        while end > 0 && end < self.kept.len() && (self.kept[end] & 0xC0) == 0x80 {
            end -= 1;
        }
        let mut out = String::from_utf8_lossy(&self.kept[..end]).into_owned();
        out.push_str(&format!(
            "\n[... output truncated: {end} of {} bytes shown ...]",
            self.total
        ));
        out
    }
}

/// How the page is chosen and rendered.
pub struct PageSpec {
    /// The output mode.
    pub mode: Mode,
    /// Units skipped.
    pub offset: u64,
    /// Units shown at most (`None` = all).
    pub head_limit: Option<u64>,
    /// Context lines before each page match.
    pub before: u64,
    /// Context lines after each page match.
    pub after: u64,
    /// `maxOutputBytes`.
    pub max: u64,
}

/// Produces the result text for the kept files. `rows_of` feeds a file's rows (from memory
/// or by searching it again) into a sink; it is only called in content mode.
pub fn render(
    spec: &PageSpec,
    hits: &[FileHit],
    incomplete: bool,
    rows_of: &mut dyn FnMut(&FileHit, &mut dyn RowSink),
) -> String {
    let total: u64 = match spec.mode {
        Mode::Content => hits.iter().map(|h| h.units).sum(),
        _ => hits.len() as u64,
    };
    if total == 0 {
        return if incomplete {
            INCOMPLETE.to_string()
        } else {
            "(no matches)".to_string()
        };
    }
    if !incomplete && spec.offset >= total {
        return format!("(no results at offset {}; {total} total)", spec.offset);
    }
    let end = spec
        .head_limit
        .map_or(total, |l| spec.offset.saturating_add(l).min(total));
    let mut page = PageWriter::new(spec.max);
    match spec.mode {
        Mode::Files | Mode::Count => {
            let (from, to) = (spec.offset.min(total) as usize, end as usize);
            for h in hits.get(from..to.max(from)).unwrap_or_default() {
                page.row();
                page.text(&h.path);
                if spec.mode == Mode::Count {
                    page.text(&format!(":{}", h.units));
                }
            }
        }
        Mode::Content => {
            let mut state = Separators {
                enabled: spec.before > 0 || spec.after > 0,
                last: None,
            };
            let mut first = 0u64;
            for (index, h) in hits.iter().enumerate() {
                let range = first..first + h.units;
                first += h.units;
                if range.end <= spec.offset || range.start >= end {
                    continue;
                }
                let mut file = FileRender {
                    spec,
                    page: &mut page,
                    seps: &mut state,
                    index,
                    path: &h.path,
                    next_unit: range.start,
                    page_end: end,
                    after_until: 0,
                    pending: VecDeque::new(),
                };
                rows_of(h, &mut file);
            }
        }
    }
    let shown_to = end.max(spec.offset);
    if incomplete {
        return format!("{}\n{INCOMPLETE}", page.bounded());
    }
    if page.len() as u64 > spec.max {
        return format!(
            "{}\n[... page exceeded {} bytes and was cut; set or reduce head_limit to page in smaller chunks ...]",
            page.bounded(),
            spec.max
        );
    }
    let mut out = page.bounded();
    if shown_to < total {
        out.push_str(&format!(
            "\n[... showing {}..{shown_to} of {total}; call again with offset={shown_to} for more ...]",
            spec.offset
        ));
    }
    out
}

/// Where the last rendered row ended, for `--` between non-adjacent groups.
struct Separators {
    enabled: bool,
    last: Option<(usize, u64)>,
}

/// An owned row waiting to learn whether it is before-context of a page unit.
struct Pending {
    line: u64,
    end_line: u64,
    unit: bool,
    text: Vec<u8>,
}

/// Renders one file's rows: the page's units, and rows within `before`/`after` lines of
/// them (other units there are shown as match rows).
struct FileRender<'a> {
    spec: &'a PageSpec,
    page: &'a mut PageWriter,
    seps: &'a mut Separators,
    index: usize,
    path: &'a str,
    /// Global index of the next unit this file reports.
    next_unit: u64,
    page_end: u64,
    /// Rows up to this line are after-context of a page unit (0 = none).
    after_until: u64,
    pending: VecDeque<Pending>,
}

impl FileRender<'_> {
    fn emit(&mut self, line: u64, end_line: u64, unit: bool, text: &[u8]) {
        if self.seps.enabled {
            if let Some((file, last)) = self.seps.last {
                if file != self.index || line > last + 1 {
                    self.page.row();
                    self.page.text("--");
                }
            }
            self.seps.last = Some((self.index, end_line));
        }
        self.page.row();
        self.page.text(self.path);
        let sep = if unit { b':' } else { b'-' };
        let mut digits = [0u8; 22];
        let mut i = digits.len() - 1;
        digits[i] = sep;
        let mut n = line;
        loop {
            i -= 1;
            digits[i] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        i -= 1;
        digits[i] = sep;
        self.page.put(&digits[i..]);
        self.page.lossy(text);
    }
}

impl RowSink for FileRender<'_> {
    fn row(&mut self, row: Row<'_>) -> bool {
        let on_page = row.unit && (self.spec.offset..self.page_end).contains(&self.next_unit);
        if row.unit {
            self.next_unit += 1;
        }
        if on_page {
            let from = row.line.saturating_sub(self.spec.before);
            while let Some(p) = self.pending.pop_front() {
                if p.end_line >= from {
                    self.emit(p.line, p.end_line, p.unit, &p.text);
                }
            }
            self.emit(row.line, row.end_line, true, row.text);
            self.after_until = self
                .after_until
                .max(row.end_line.saturating_add(self.spec.after));
        } else if self.after_until > 0 && row.line <= self.after_until {
            self.emit(row.line, row.end_line, row.unit, row.text);
        } else {
            if self.next_unit >= self.page_end {
                // Past the page and its after-context: nothing more from this file.
                return false;
            }
            if self.spec.before > 0 {
                let from = row.line.saturating_sub(self.spec.before);
                while self.pending.front().is_some_and(|p| p.end_line < from) {
                    self.pending.pop_front();
                }
                self.pending.push_back(Pending {
                    line: row.line,
                    end_line: row.end_line,
                    unit: row.unit,
                    text: row.text.to_vec(),
                });
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writer_matches_output_bound() {
        for max in [1024u64, 1030, 1031] {
            let rows: Vec<String> = (0..200).map(|i| format!("é{i}xyz")).collect();
            let mut w = PageWriter::new(max);
            for r in &rows {
                w.row();
                w.text(r);
            }
            assert_eq!(w.bounded(), crate::output::bound(rows.join("\n"), max));
        }
    }

    fn files(names: &[&str]) -> Vec<FileHit> {
        names
            .iter()
            .map(|n| FileHit {
                path: n.to_string(),
                abs: n.into(),
                units: 2,
                bytes: 1,
                rows: None,
            })
            .collect()
    }

    fn spec(mode: Mode, offset: u64, head_limit: Option<u64>) -> PageSpec {
        PageSpec {
            mode,
            offset,
            head_limit,
            before: 0,
            after: 0,
            max: 1024,
        }
    }

    #[test]
    fn paging_rules() {
        let hits = files(&["a", "b", "c"]);
        let mut none = |_: &FileHit, _: &mut dyn RowSink| {};
        assert_eq!(
            render(&spec(Mode::Files, 0, None), &hits, false, &mut none),
            "a\nb\nc"
        );
        assert_eq!(
            render(&spec(Mode::Count, 1, Some(1)), &hits, false, &mut none),
            "b:2\n[... showing 1..2 of 3; call again with offset=2 for more ...]"
        );
        assert_eq!(
            render(&spec(Mode::Files, 3, None), &hits, false, &mut none),
            "(no results at offset 3; 3 total)"
        );
        assert_eq!(
            render(&spec(Mode::Files, 0, None), &[], false, &mut none),
            "(no matches)"
        );
        assert_eq!(
            render(&spec(Mode::Files, 0, None), &[], true, &mut none),
            INCOMPLETE
        );
        assert_eq!(
            render(&spec(Mode::Files, 5, None), &hits, true, &mut none),
            format!("\n{INCOMPLETE}")
        );
        assert_eq!(
            render(&spec(Mode::Files, 0, Some(1)), &hits, true, &mut none),
            format!("a\n{INCOMPLETE}")
        );
    }
}
