//! Searching one file: load it under the text rules, then report its rows in line order.
//!
//! Loading (CONTRACT §4): a file over `maxFileBytes` or binary (NUL in the first or last
//! 8000 bytes, unless a UTF-16 BOM leads) is skipped. UTF-16 with a BOM is transcoded to
//! UTF-8, a UTF-8 BOM dropped, `\r\n` and lone `\r` turned into `\n` — so `$` works on CRLF
//! files and line numbers agree with `read_file`'s. Invalid UTF-8 is searched as bytes.
//!
//! Rows: every line a renderer could show — each matching unit and each context line
//! within `before`/`after` lines of ANY unit — exactly once, in line order. Without
//! `multiline` a unit is a matching line and `grep-searcher` finds them (its fast
//! line-oriented path, context handled by it). With `multiline` a unit is a maximal run of
//! consecutive matched lines containing a match that spans lines (else each line of the run
//! is its own unit); zero-width matches are dropped. That grouping is done in
//! `search::multiline`, directly on the matcher, because it needs every match's line span.
//!
//! The file buffer is reused across files by one thread; only one file is in memory per
//! thread at a time.

use super::at::BaseDir;
use super::multiline::scan_multiline;
use crate::text::SNIFF_BYTES;
use crate::workspace::Guard;
use grep_matcher::Matcher;
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkMatch};
use std::io::{self, Read};
use std::path::Path;

/// One row of a file's result. `text` excludes the final line terminator; a multiline unit
/// spans `line..=end_line` and its text holds those lines joined by `\n`.
#[derive(Debug, Clone, Copy)]
pub struct Row<'a> {
    /// First line (1-based).
    pub line: u64,
    /// Last line (equal to `line` except for multiline units).
    pub end_line: u64,
    /// A match unit (`true`) or a context line.
    pub unit: bool,
    /// The row's bytes.
    pub text: &'a [u8],
}

/// Receives a file's rows in order; returning `false` stops the file's search.
pub trait RowSink {
    /// One row.
    fn row(&mut self, row: Row<'_>) -> bool;
}

/// Capacity above which a thread's file buffer is released after use, so one huge file
/// does not pin its size in memory for the rest of the walk.
const KEEP_BUFFER: usize = 4 << 20;

/// A per-thread searcher: the matcher, grep-searcher's state and the file buffer.
pub struct Scanner<M> {
    matcher: M,
    searcher: Searcher,
    multiline: bool,
    before: u64,
    after: u64,
    max_file_bytes: u64,
    buf: Vec<u8>,
    guard: Option<Guard>,
    required: Option<memchr::memmem::Finder<'static>>,
}

impl<M: Matcher> Scanner<M> {
    /// A scanner reporting `before`/`after` context lines around every unit.
    pub fn new(matcher: M, multiline: bool, before: u64, after: u64, max_file_bytes: u64) -> Self {
        let searcher = SearcherBuilder::new()
            .line_number(true)
            .multi_line(false)
            .before_context(usize::try_from(before).unwrap_or(usize::MAX))
            .after_context(usize::try_from(after).unwrap_or(usize::MAX))
            // Binary files are rejected by our own sniffing before the searcher runs, and
            // the buffer is already UTF-8.
            .binary_detection(BinaryDetection::none())
            .bom_sniffing(false)
            .build();
        Scanner {
            matcher,
            searcher,
            multiline,
            before,
            after,
            max_file_bytes,
            buf: Vec::new(),
            guard: None,
            required: None,
        }
    }

    /// Skips, before the text rules and the search, every file whose raw bytes do not
    /// contain `literal` ([`crate::search::matcher::plain_literal`]: the whole pattern, with
    /// no `\r`/`\n`). Sound because preparing a file only drops a BOM and rewrites line
    /// terminators: a match inside a line of the prepared text is a run of the raw bytes.
    /// UTF-16 files are transcoded first, so they are never pre-filtered. Most files of a
    /// rare-literal search then cost one SIMD substring pass instead of the binary sniff,
    /// the line-ending pass and the searcher's own pass.
    pub fn require_literal(mut self, literal: Option<&[u8]>) -> Self {
        self.required = literal.map(|l| memchr::memmem::Finder::new(l).into_owned());
        self
    }

    /// Only reads files whose opened descriptor lies inside the guard's root: a directory
    /// swapped for a symlink to the outside during the walk yields nothing.
    pub fn confined(mut self, guard: Guard) -> Self {
        self.guard = guard.is_on().then_some(guard);
        self
    }

    /// Loads `path` into the buffer. `false` when it is to be skipped: unreadable, over
    /// `maxFileBytes`, or binary.
    /// The file is opened relative to `base` when it lies under it (see [`BaseDir`]).
    pub fn load(&mut self, base: &BaseDir, path: &Path) -> bool {
        self.buf.clear();
        if self.buf.capacity() > KEEP_BUFFER {
            self.buf = Vec::new();
        }
        let ok = read_confined(
            base,
            self.guard.as_ref(),
            path,
            self.max_file_bytes,
            &mut self.buf,
        );
        ok && self.may_match() && prepare(&mut self.buf)
    }

    /// The loaded file's text (invalid UTF-8 shown as U+FFFD, as rows are).
    pub fn text(&self) -> std::borrow::Cow<'_, str> {
        String::from_utf8_lossy(&self.buf)
    }

    /// The [`Scanner::require_literal`] test of the raw buffer.
    fn may_match(&self) -> bool {
        use crate::text::{detect_bom, Encoding};
        match &self.required {
            None => true,
            Some(_) if matches!(detect_bom(&self.buf), Encoding::Utf16Le | Encoding::Utf16Be) => {
                true
            }
            Some(finder) => finder.find(&self.buf).is_some(),
        }
    }

    /// Searches the loaded buffer, feeding `sink`. `Err` is a matcher error (PCRE2's match or
    /// depth limit, on a pattern that backtracks catastrophically on this file) that ended the
    /// search early, as `rg` ends that file; the rows found before it were fed. Our sink
    /// never fails and the slice is in memory, so nothing else can err.
    pub fn scan(&mut self, sink: &mut dyn RowSink) -> Result<(), String> {
        if self.multiline {
            scan_multiline(&self.matcher, &self.buf, self.before, self.after, sink)
        } else {
            let mut adapter = Adapter { sink };
            self.searcher
                .search_slice(&self.matcher, &self.buf, &mut adapter)
                .map_err(|e| e.to_string())
        }
    }
}

/// Reads `path` (opened relative to `base` when it lies under it, see [`BaseDir`]) into
/// `buf`, raw. `false` when it is to be skipped: unreadable, not a regular file, over `max`
/// bytes, or — with a `guard` — opened outside the root (a directory swapped for a symlink
/// during the walk is skipped like an unreadable file; a file opened beneath the verified
/// base was checked by the kernel already).
pub fn read_confined(
    base: &BaseDir,
    guard: Option<&Guard>,
    path: &Path,
    max: u64,
    buf: &mut Vec<u8>,
) -> bool {
    base.open_file(path)
        .and_then(|opened| {
            if !opened.beneath && guard.is_some_and(|g| !g.allows(&opened.file, path)) {
                return Ok(false);
            }
            read_limited(opened.file, max, buf)
        })
        .unwrap_or(false)
}

/// Reads at most `max + 1` bytes; `Ok(false)` when the file is larger than `max`.
/// The file was opened non-blocking ([`BaseDir::open_file`]), so a FIFO given as the search
/// path is skipped instead of hanging.
fn read_limited(file: std::fs::File, max: u64, buf: &mut Vec<u8>) -> io::Result<bool> {
    let meta = file.metadata()?;
    if !meta.is_file() || meta.len() > max {
        return Ok(false);
    }
    buf.reserve(usize::try_from(meta.len()).unwrap_or(0).saturating_add(1));
    // The file may grow between the stat and the read: never read more than the limit.
    file.take(max.saturating_add(1)).read_to_end(buf)?;
    Ok(buf.len() as u64 <= max)
}

/// Applies the text rules in place: binary → `false`; BOMs, UTF-16 and line endings handled.
pub fn prepare(buf: &mut Vec<u8>) -> bool {
    use crate::text::{detect_bom, Encoding};
    if is_binary(buf) {
        return false;
    }
    match detect_bom(buf) {
        Encoding::Utf8 => {}
        Encoding::Utf8Bom => {
            buf.drain(..3);
        }
        Encoding::Utf16Le | Encoding::Utf16Be => {
            let decoded = crate::text::decode_lossy(buf).into_owned();
            *buf = decoded.into_bytes();
        }
    }
    normalize_eol(buf);
    true
}

/// [`crate::text::is_binary`], the same rule (a NUL in the first or last
/// [`SNIFF_BYTES`] bytes, unless a UTF-16 BOM leads) at a grep's scale: `memchr`'s SIMD
/// search instead of `<[u8]>::contains` (a word-at-a-time loop, several times slower), and a
/// file shorter than twice the window is scanned once, not as an overlapping head and tail.
/// On the benchmark corpus this was 4–5 % of a whole-corpus grep's CPU time.
pub fn is_binary(bytes: &[u8]) -> bool {
    use crate::text::{detect_bom, Encoding};
    if matches!(detect_bom(bytes), Encoding::Utf16Le | Encoding::Utf16Be) {
        return false;
    }
    if bytes.len() <= 2 * SNIFF_BYTES {
        return memchr::memchr(0, bytes).is_some();
    }
    memchr::memchr(0, &bytes[..SNIFF_BYTES]).is_some()
        || memchr::memchr(0, &bytes[bytes.len() - SNIFF_BYTES..]).is_some()
}

/// `\r\n` and lone `\r` become `\n`, in place (the buffer only shrinks).
pub fn normalize_eol(buf: &mut Vec<u8>) {
    // The common LF-only file costs one SIMD pass (`memchr`; `contains` was ~5 % of a grep).
    let Some(first) = memchr::memchr(b'\r', buf) else {
        return;
    };
    let mut w = first;
    let mut r = first;
    let n = buf.len();
    while r < n {
        let b = buf[r];
        if b == b'\r' {
            buf[w] = b'\n';
            if r + 1 < n && buf[r + 1] == b'\n' {
                r += 1;
            }
        } else {
            buf[w] = b;
        }
        w += 1;
        r += 1;
    }
    buf.truncate(w);
}

/// Bridges grep-searcher's sink to [`RowSink`].
struct Adapter<'s> {
    sink: &'s mut dyn RowSink,
}

fn strip_nl(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\n").unwrap_or(line)
}

impl Sink for Adapter<'_> {
    type Error = io::Error;

    fn matched(&mut self, _: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, io::Error> {
        let first = mat.line_number().unwrap_or(0);
        for (line, text) in (first..).zip(mat.lines()) {
            if !self.sink.row(Row {
                line,
                end_line: line,
                unit: true,
                text: strip_nl(text),
            }) {
                return Ok(false);
            }
        }
        Ok(true)
    }

    fn context(&mut self, _: &Searcher, ctx: &SinkContext<'_>) -> Result<bool, io::Error> {
        let line = ctx.line_number().unwrap_or(0);
        Ok(self.sink.row(Row {
            line,
            end_line: line,
            unit: false,
            text: strip_nl(ctx.bytes()),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::matcher::{build, Engine};

    /// Collects rows as `L<line>[-<end>]:text` (units) or `L<line>-text` (context).
    #[derive(Default)]
    struct Rows(Vec<String>);

    impl RowSink for Rows {
        fn row(&mut self, r: Row<'_>) -> bool {
            let text = String::from_utf8_lossy(r.text);
            self.0.push(match (r.unit, r.end_line > r.line) {
                (true, true) => format!("{}-{}:{text}", r.line, r.end_line),
                (true, false) => format!("{}:{text}", r.line),
                (false, _) => format!("{}-{text}", r.line),
            });
            true
        }
    }

    fn rows(
        pattern: &str,
        multiline: bool,
        before: u64,
        after: u64,
        content: &[u8],
    ) -> Vec<String> {
        let mut buf = content.to_vec();
        assert!(prepare(&mut buf));
        let mut out = Rows::default();
        match build(pattern, false, multiline).unwrap() {
            Engine::Rust(m) => {
                let mut s = Scanner::new(&m, multiline, before, after, 1 << 20);
                s.buf = buf;
                s.scan(&mut out).unwrap();
            }
            Engine::Pcre2(m) => {
                let mut s = Scanner::new(&m, multiline, before, after, 1 << 20);
                s.buf = buf;
                s.scan(&mut out).unwrap();
            }
        }
        out.0
    }

    #[test]
    fn lines_and_context() {
        let text = b"a1\nb\nc\nd\na2\ne\nf\ng\nh\na3\n";
        assert_eq!(rows("a", false, 0, 0, text), ["1:a1", "5:a2", "10:a3"]);
        assert_eq!(
            rows("a", false, 1, 1, text),
            ["1:a1", "2-b", "4-d", "5:a2", "6-e", "9-h", "10:a3"]
        );
    }

    #[test]
    fn crlf_and_lone_cr_are_line_ends() {
        assert_eq!(rows("b$", false, 0, 0, b"a\r\nb\r\nc\rb\r"), ["2:b", "4:b"]);
    }

    #[test]
    fn multiline_units() {
        let text = b"x\nfoo\nbar\nbaz\ny\nz\nbaz\n";
        // foo\nbar spans lines; baz on the adjacent line 4 is absorbed into the unit.
        assert_eq!(
            rows(r"foo\nbar|baz", true, 0, 0, text),
            ["2-4:foo\nbar\nbaz", "7:baz"]
        );
        // Single-line matches on consecutive lines stay one row per line.
        assert_eq!(rows("ba.", true, 0, 0, text), ["3:bar", "4:baz", "7:baz"]);
        // Zero-width matches are dropped.
        assert!(rows("^", true, 0, 0, text).is_empty());
        assert_eq!(
            rows(r"foo\nbar", true, 1, 2, text),
            ["1-x", "2-3:foo\nbar", "4-baz", "5-y"]
        );
        // A match ending with the line's newline stays on that line.
        assert_eq!(rows("y\n", true, 0, 0, text), ["5:y"]);
    }

    #[test]
    fn multiline_context_is_not_duplicated() {
        let text = b"1\n2\nm\n4\nm\n6\n7\n";
        assert_eq!(
            rows("m", true, 2, 2, text),
            ["1-1", "2-2", "3:m", "4-4", "5:m", "6-6", "7-7"]
        );
    }

    #[test]
    fn pcre2_and_encodings() {
        assert_eq!(
            rows(r"foo(?=bar)", false, 0, 0, b"foobaz\nfoobar\n"),
            ["2:foobar"]
        );
        assert_eq!(rows(r"(\w)\1", false, 0, 0, b"abc\nabbc\n"), ["2:abbc"]);
        let utf16: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain("hé\nneedle\n".encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        assert_eq!(rows("needle", false, 0, 0, &utf16), ["2:needle"]);
        assert_eq!(rows("b", false, 0, 0, b"a\xE9b\n"), ["1:a\u{FFFD}b"]);
        let mut bin = b"a\0b".to_vec();
        assert!(!prepare(&mut bin));
    }

    #[test]
    fn binary_sniffing_agrees_with_read_file() {
        // Sizes around one and two windows, a NUL at each interesting position.
        for len in [
            0,
            1,
            SNIFF_BYTES,
            SNIFF_BYTES + 1,
            2 * SNIFF_BYTES,
            2 * SNIFF_BYTES + 1,
            40_000,
        ] {
            let clean = vec![b'a'; len];
            assert!(!is_binary(&clean));
            for at in [
                0,
                SNIFF_BYTES - 1,
                SNIFF_BYTES,
                len / 2,
                len.saturating_sub(SNIFF_BYTES + 1),
                len.saturating_sub(SNIFF_BYTES),
                len.saturating_sub(1),
            ] {
                if at >= len {
                    continue;
                }
                let mut b = clean.clone();
                b[at] = 0;
                assert_eq!(
                    is_binary(&b),
                    crate::text::is_binary(&b),
                    "len {len}, NUL at {at}"
                );
            }
        }
        assert!(!is_binary(&[0xFF, 0xFE, b'a', 0]));
        assert!(!is_binary(&[0xFE, 0xFF, 0, b'a']));
    }
}
