//! Private-key blocks, line by line: the one secret that spans lines.
//!
//! A `-----BEGIN … PRIVATE KEY-----` line starts a block; every body line after it is masked
//! on its own (`[REDACTED:private_key]`), so line numbers and view prefixes stay, until the
//! `-----END …-----` line or a line that cannot be part of a body (a view's footer, prose).
//! The BEGIN and END lines themselves stay visible: they say what the file holds.
//!
//! A view may cut the block. In a view (not in a source, where the whole block is there):
//! base64 lines directly above an `END … PRIVATE KEY` line are its body; and a run of
//! base64 lines with neither (`sed -n 5,9p key.pem`, a page of a log) is masked by its shape
//! — full-width lines of one width between 60 and 80 characters (PEM's 64, OpenSSH's 70,
//! MIME's 76), with upper- and lowercase letters and digits, and the shorter line that
//! ends them. A public block (`BEGIN CERTIFICATE`, `BEGIN PUBLIC KEY`) is left alone.
//!
//! Lines are those of the text as shown: read_file's `     3\t`, grep's `path:3:`, a diff's
//! `+`/`-` and indentation are not part of a body line (see [`content`]).

use super::Span;

const KIND: &str = "private_key";

/// Where the scan is, between lines.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum State {
    /// Outside any block.
    #[default]
    Outside,
    /// Inside a private key's body.
    Private,
    /// Inside a public block (a certificate, a public key).
    Public,
}

/// The line scanner: its state, and (in a view) the base64 lines seen since the last other
/// line, which an END line or their shape may still turn into a body.
#[derive(Debug, Default)]
pub struct Blocks {
    /// The state after the last line.
    pub state: State,
    view: bool,
    run: Vec<(usize, usize)>,
}

/// What a `-----BEGIN …-----` or `-----END …-----` in a line says.
struct Armor {
    begin: bool,
    private: bool,
    /// Where the armor line starts and ends in the line.
    start: usize,
    end: usize,
}

/// The armor's dashes, searched for in every line of a view: a searcher built once (building
/// one per line cost more than the search: a tenth of a megabyte's redaction).
static DASHES: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
    std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"-----"));

fn armor(line: &str) -> Option<Armor> {
    let i = DASHES.find(line.as_bytes())?;
    let rest = &line[i + 5..];
    let (begin, label_at) = if rest.starts_with("BEGIN ") {
        (true, 6)
    } else if rest.starts_with("END ") {
        (false, 4)
    } else {
        return armor(&line[i + 1..]).map(|a| Armor {
            start: a.start + i + 1,
            end: a.end + i + 1,
            ..a
        });
    };
    let label_rest = &rest[label_at..];
    let close = DASHES.find(label_rest.as_bytes())?;
    let label = &label_rest[..close];
    if !label
        .bytes()
        .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b' ')
    {
        return None;
    }
    Some(Armor {
        begin,
        private: label.contains("PRIVATE KEY"),
        start: i,
        end: i + 5 + label_at + close + 5,
    })
}

fn is_b64(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'+' || b == b'/'
}

/// A line's text with blanks (also edit hints' `·`/`→`) trimmed: `(start, end)`.
fn trimmed(line: &str) -> (usize, usize) {
    let rest = line.trim_start_matches([' ', '\t', '·', '→']);
    let start = line.len() - rest.len();
    (
        start,
        start + rest.trim_end_matches([' ', '\t', '\r', '·', '→']).len(),
    )
}

/// Where a line's own text starts in a view, after a prefix the view added: read_file's
/// (and `cat -n`'s) `   12\t`, `grep -n`'s `12:`, grep's `path:12:` / `path-12-`, a diff's
/// `+` / `-`. `None` when the line has none.
pub fn view_prefix(line: &str) -> Option<usize> {
    let b = line.as_bytes();
    let digits = |from: usize| b[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    let spaces = b.iter().take_while(|&&c| c == b' ').count();
    let d = digits(spaces);
    if d > 0 && b.get(spaces + d) == Some(&b'\t') {
        return Some(spaces + d + 1);
    }
    let d = digits(0);
    if d > 0 && matches!(b.get(d), Some(b':') | Some(b'-')) {
        return Some(d + 1);
    }
    // `path:12:`: a path has no blanks.
    for (i, &c) in b.iter().enumerate() {
        if c == b' ' || c == b'\t' {
            break;
        }
        if i > 0 && matches!(c, b':' | b'-') {
            let d = digits(i + 1);
            if d > 0 && matches!(b.get(i + 1 + d), Some(b':') | Some(b'-')) {
                return Some(i + 2 + d);
            }
        }
    }
    (matches!(b.first(), Some(b'+') | Some(b'-')) && !line.starts_with("-----")).then_some(1)
}

/// The body of a line, if it is one: as the line stands, else (in a view) after its view
/// prefix, else (inside a block) its last base64 word of 16 characters or more. `(start,
/// end)` in the line.
fn body_of(line: &str, view: bool, inside: bool) -> Option<(usize, usize)> {
    let (s, e) = trimmed(line);
    if let Some((bs, be)) = body(&line[s..e]) {
        return Some((s + bs, s + be));
    }
    if view {
        if let Some(p) = view_prefix(line) {
            let (s, e) = trimmed(&line[p..]);
            if let Some((bs, be)) = body(&line[p + s..p + e]) {
                return Some((p + s + bs, p + s + be));
            }
        }
    }
    if inside {
        let (_, e) = trimmed(line);
        let b = line.as_bytes();
        let run = b[..e]
            .iter()
            .rev()
            .take_while(|&&c| is_b64(c) || c == b'=')
            .count();
        if run >= 16 {
            return Some((e - run, e));
        }
    }
    None
}

/// A line's own text in a view (for deciding whether it ends a block): trimmed, after its
/// view prefix if any.
fn own(line: &str, view: bool) -> &str {
    let from = if view {
        view_prefix(line).unwrap_or(0)
    } else {
        0
    };
    let (s, e) = trimmed(&line[from..]);
    &line[from + s..from + e]
}

/// The base64 of a body line: `(start, end)` within `text` (the line's content with string
/// quotes, a trailing `,`, `+` or escaped `\n` around it removed), or `None` when the line
/// is not one. PEM headers (`Proc-Type:`, `DEK-Info:`) count as body too.
fn body(text: &str) -> Option<(usize, usize)> {
    if text.starts_with("Proc-Type:") || text.starts_with("DEK-Info:") {
        return Some((0, text.len()));
    }
    let mut s = text;
    let lead = s.len() - s.trim_start_matches(['"', '\'']).len();
    s = &s[lead..];
    loop {
        // `strip_suffix`, not `trim_end_matches`: a string pattern there builds a two-way
        // searcher per call, and this runs for every line of a view.
        let mut t = s.trim_end_matches([',', '"', '\'', ' ', '+', ';']);
        while let Some(u) = t.strip_suffix("\\n").or_else(|| t.strip_suffix("\\r")) {
            t = u;
        }
        if t.len() == s.len() {
            break;
        }
        s = t;
    }
    let b = s.as_bytes();
    let pad = b.iter().rev().take_while(|&&c| c == b'=').count();
    let core = &b[..b.len() - pad];
    // A PGP checksum line is `=` and four characters.
    let core = core.strip_prefix(b"=").filter(|_| pad == 0).unwrap_or(core);
    (!core.is_empty() && pad <= 2 && core.iter().all(|&c| is_b64(c)))
        .then_some((lead, lead + s.len()))
}

/// Whether a body is one base64 word (no quotes or headers around it): what a run of
/// candidate lines is made of.
fn is_word(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|c| is_b64(c) || c == b'=')
}

impl Blocks {
    /// A scanner for a view (`true`: cut blocks are recognised by END lines and shape) or a
    /// source (`false`: only whole blocks).
    pub fn new(view: bool, state: State) -> Blocks {
        Blocks {
            state,
            view,
            run: Vec::new(),
        }
    }

    /// Where the pending base64 run starts, if lines are pending.
    pub fn pending_from(&self) -> Option<usize> {
        self.run.first().map(|r| r.0)
    }

    /// Scans every line of `text`, then judges a run still pending at its end.
    pub fn scan(&mut self, text: &str, out: &mut Vec<Span>) {
        let b = text.as_bytes();
        let mut at = 0;
        while at < b.len() {
            if !self.view && self.state == State::Outside {
                // A source has blocks only from a BEGIN line on: jump to the next one.
                match memchr::memmem::find(&b[at..], b"-----BEGIN ") {
                    Some(i) => {
                        at = memchr::memrchr(b'\n', &b[..at + i])
                            .map_or(0, |n| n + 1)
                            .max(at)
                    }
                    None => break,
                }
            }
            let end = memchr::memchr(b'\n', &b[at..]).map_or(b.len(), |n| at + n);
            self.line(text, at, end, out);
            at = end + 1;
        }
        self.settle(text, out);
    }

    /// Scans the line `text[at..end]` (without its line break).
    pub fn line(&mut self, text: &str, at: usize, end: usize, out: &mut Vec<Span>) {
        let line = &text[at..end];
        if let Some(a) = armor(line) {
            if a.begin {
                self.settle(text, out);
                let mut push = |s: usize, e: usize| push_span(out, at + s, at + e);
                let rest = &line[a.end..];
                match (a.private, armor(rest)) {
                    // A whole block on one line (`"-----BEGIN…-----\nMII…\n-----END…-----"`).
                    (true, Some(end)) if !end.begin => {
                        if rest[..end.start].bytes().filter(|&c| is_b64(c)).count() >= 8 {
                            push(a.end, a.end + end.start);
                        }
                    }
                    (true, _) => {
                        // Body text after the armor (a key in one string, cut).
                        let rest = rest.trim_end_matches(['"', '\'', ',', ';', ' ']);
                        if rest.bytes().filter(|&c| is_b64(c)).count() >= 8 {
                            push(a.end, a.end + rest.len());
                        }
                        self.state = State::Private;
                    }
                    (false, _) => self.state = State::Public,
                }
                return;
            }
            if a.private {
                // Body text before the END armor on its line (`MII…\n-----END…`).
                if self.state == State::Private || self.view {
                    let from = if self.view {
                        view_prefix(line).unwrap_or(0)
                    } else {
                        0
                    };
                    if let Some((s, e)) = body_of(&line[from..a.start.max(from)], false, false) {
                        push_span(out, at + from + s, at + from + e);
                    }
                }
                if self.state == State::Outside && self.view {
                    // The END rule: the base64 lines right above are the body.
                    for (s, e) in self.run.drain(..) {
                        push_span(out, s, e);
                    }
                }
            }
            self.run.clear();
            self.state = State::Outside;
            return;
        }
        match self.state {
            State::Private => {
                if let Some((s, e)) = body_of(line, self.view, true) {
                    push_span(out, at + s, at + e);
                    return;
                }
                let own = own(line, self.view);
                if own.is_empty() || own == "--" {
                    return;
                }
                self.state = State::Outside;
            }
            State::Public => {
                let own = own(line, self.view);
                if own.is_empty() || own == "--" || body_of(line, self.view, false).is_some() {
                    return;
                }
                self.state = State::Outside;
            }
            State::Outside => {}
        }
        if self.view {
            // Most lines are code or prose: a blank or punctuation inside them says so at once.
            let (s, e) = trimmed(line);
            if line.as_bytes()[s..e].iter().any(|c| {
                matches!(
                    c,
                    b' ' | b'(' | b';' | b'{' | b'"' | b'\'' | b',' | b'<' | b'.'
                )
            }) {
                self.settle(text, out);
                return;
            }
            match body_of(line, true, false) {
                Some((s, e)) if is_word(&line[s..e]) => self.run.push((at + s, at + e)),
                _ => self.settle(text, out),
            }
        }
    }

    /// Judges the pending run by its shape and forgets it.
    pub fn settle(&mut self, text: &str, out: &mut Vec<Span>) {
        shape(text, &self.run, out);
        self.run.clear();
    }
}

fn push_span(out: &mut Vec<Span>, start: usize, end: usize) {
    if end > start {
        out.push(Span {
            start,
            end,
            anchor: start,
            kind: KIND,
        });
    }
}

/// Masks the parts of a run of base64 lines (outside any block) that look like a key's
/// body: at least two lines of one width between 60 and 80 (or one of exactly 64, 70 or 76),
/// plus a shorter line right after them, with upper- and lowercase letters and digits; and
/// any other line of the run that is one [`random`] word.
fn shape(text: &str, run: &[(usize, usize)], out: &mut Vec<Span>) {
    let width = |r: &(usize, usize)| r.1 - r.0;
    let mut i = 0;
    while i < run.len() {
        let w = width(&run[i]);
        let mut j = i;
        while j < run.len() && width(&run[j]) == w {
            j += 1;
        }
        let tail = usize::from(j < run.len() && width(&run[j]) < w);
        let wide = (60..=80).contains(&w) && (j - i >= 2 || matches!(w, 64 | 70 | 76));
        let lines = &run[i..j + tail];
        if wide && mixed(lines.iter().map(|r| &text[r.0..r.1])) {
            for r in lines {
                push_span(out, r.0, r.1);
            }
            i = j + tail;
        } else {
            for r in &run[i..j] {
                if random(&text[r.0..r.1]) {
                    out.push(Span {
                        start: r.0,
                        end: r.1,
                        anchor: r.0,
                        kind: "secret",
                    });
                }
            }
            i = j;
        }
    }
}

/// A lone line that is one random-looking base64 word of 16 characters or more (a key's
/// last body line, a token echoed alone): letters of both cases and digits, changing class
/// at least every third character, and few vowels — unlike an identifier made of words
/// (`AppDelegate2Test`, `LanguageModelV3CallOptions`: four letters in ten are vowels; in
/// random base64, two).
fn random(s: &str) -> bool {
    let class = |b: u8| match b {
        b'A'..=b'Z' => 0,
        b'a'..=b'z' => 1,
        b'0'..=b'9' => 2,
        _ => 3,
    };
    let b = s.trim_end_matches('=').as_bytes();
    let changes = b.windows(2).filter(|w| class(w[0]) != class(w[1])).count();
    let letters = b.iter().filter(|c| c.is_ascii_alphabetic()).count();
    let vowels = b
        .iter()
        .filter(|c| matches!(c.to_ascii_lowercase(), b'a' | b'e' | b'i' | b'o' | b'u'))
        .count();
    b.len() >= 16
        && changes * 3 >= b.len()
        && vowels * 10 < letters * 3
        && mixed(std::iter::once(s))
}

/// Whether the lines hold uppercase and lowercase letters and digits (random base64 does;
/// `====…` rules and hex digests do not).
fn mixed<'a>(lines: impl Iterator<Item = &'a str>) -> bool {
    let (mut upper, mut lower, mut digit) = (false, false, false);
    for b in lines.flat_map(str::bytes) {
        upper |= b.is_ascii_uppercase();
        lower |= b.is_ascii_lowercase();
        digit |= b.is_ascii_digit();
    }
    upper && lower && digit
}
