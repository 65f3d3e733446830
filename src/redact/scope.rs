//! One call's redaction: the redactor, plus the secrets the call's sources taught it.
//!
//! A tool that shows a slice of a text (read_file's lines, grep's rows, a diff's hunks, a
//! monitor's page) hands the text — or a window around the slice — to [`Scope::learn`].
//! The secrets found there (a whole key block, an assignment) become needles: each line of
//! a secret's text, or, when that is shorter than [`SHORT`] bytes, the line from its key on
//! (`PASS=x`), which then must stand apart from the text around it. [`Scope::text`] masks
//! the needles wherever the result shows them, together with what the rules find in the
//! result itself — so a body line read without its BEGIN line, or a value in an edit hint,
//! is masked as surely as a whole block; and a piece of a secret the view cut inside it
//! (`head -c`) by its grams ([`super::grams`]).

use super::grams::Grams;
use super::{apply, keys, Redactor, Span, WITHHELD};
use aho_corasick::{AhoCorasick, MatchKind};
use serde_json::Value;
use std::collections::HashSet;
use std::sync::{Arc, Mutex};

/// A needle shorter than this is matched only where it stands apart (no letter, digit or
/// base64 character next to it), and carries its key when it has one.
const SHORT: usize = 8;
/// Bytes of context read around a slice: more than any key block.
const CONTEXT: usize = 16 << 10;
/// Most needles one call keeps (a file of a million assignments must not make the masking
/// cost more than the read).
const MAX_NEEDLES: usize = 50_000;

/// A secret's text as learned from a source.
struct Needle {
    /// The bytes of the needle masked (all of it, or the value after its key).
    mask: std::ops::Range<usize>,
    kind: &'static str,
    /// Must not have a word or base64 character on either side.
    apart: bool,
}

#[derive(Default)]
struct Learned {
    texts: Vec<String>,
    needles: Vec<Needle>,
    seen: HashSet<String>,
    grams: Arc<Grams>,
    cache: Option<Needles>,
}

struct Inner {
    redactor: Arc<Redactor>,
    learned: Mutex<Learned>,
}

/// The redaction of one call (cheap to clone; off without `redactSecrets`).
#[derive(Clone, Default)]
pub struct Scope(Option<Arc<Inner>>);

impl std::fmt::Debug for Scope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Scope(on)"
        } else {
            "Scope(off)"
        })
    }
}

impl Scope {
    /// No redaction: every text leaves as it is.
    pub fn off() -> Scope {
        Scope(None)
    }

    /// The redaction of a call under `redactor` (off when `None`).
    pub fn new(redactor: Option<&Arc<Redactor>>) -> Scope {
        Scope(redactor.map(|r| {
            Arc::new(Inner {
                redactor: Arc::clone(r),
                learned: Mutex::default(),
            })
        }))
    }

    /// Whether redaction is on.
    pub fn is_on(&self) -> bool {
        self.0.is_some()
    }

    /// The redactor, when redaction is on.
    pub fn redactor(&self) -> Option<&Arc<Redactor>> {
        self.0.as_ref().map(|i| &i.redactor)
    }

    /// Learns the secrets of `source`, a text (LF line endings) this call shows parts of.
    pub fn learn(&self, source: &str) {
        let Some(inner) = &self.0 else { return };
        let mut spans = Vec::new();
        // A host pattern undecided on a source teaches nothing; the result itself is judged.
        let _ = inner.redactor.find(source, false, &mut spans);
        if spans.is_empty() {
            return;
        }
        let mut learned = inner.learned.lock().unwrap_or_else(|p| p.into_inner());
        for span in spans {
            learned.add(source, span);
        }
    }

    /// Learns the secrets of `before` and of `after`, which `edits` (each a range of
    /// `before` and the range its replacement took in `after`) made from it — and, in `after`,
    /// what is left of each secret of `before` that an edit rewrote in part (`xoxb-…` with its
    /// letters replaced is no token any more, but its digits are still the secret's).
    pub fn learn_rewritten(&self, before: &str, after: &str, edits: &[crate::jsregex::Replaced]) {
        let Some(inner) = &self.0 else { return };
        self.learn(before);
        self.learn(after);
        let mut spans = Vec::new();
        let _ = inner.redactor.find(before, false, &mut spans);
        let mut learned = inner.learned.lock().unwrap_or_else(|p| p.into_inner());
        for span in spans {
            let (start, end) = (
                moved(edits, span.start, false),
                moved(edits, span.end, true),
            );
            if start < end && after.is_char_boundary(start) && after.is_char_boundary(end) {
                learned.add(
                    after,
                    Span {
                        start,
                        end,
                        anchor: start,
                        kind: span.kind,
                    },
                );
            }
        }
    }

    /// Learns the secrets of `source` around `shown` (the bytes a slice comes from),
    /// [`CONTEXT`] bytes either side, cut at line breaks.
    pub fn learn_around(&self, source: &str, shown: std::ops::Range<usize>) {
        if self.0.is_none() {
            return;
        }
        let b = source.as_bytes();
        let from = shown.start.saturating_sub(CONTEXT).min(b.len());
        let from = match memchr::memrchr(b'\n', &b[..from]) {
            Some(nl) => nl + 1,
            None => 0,
        };
        let to = shown.end.saturating_add(CONTEXT).min(b.len());
        let to = memchr::memchr(b'\n', &b[to..]).map_or(b.len(), |nl| to + nl);
        self.learn(&source[from..to]);
    }

    /// `text` as it may leave toward the model: every secret masked. A JSON object or array
    /// (`bash`'s result, an error envelope, `checkpoint_changes`) is masked string by string — and a string under a key that
    /// names a secret whole — then written again only if something changed.
    pub fn text(&self, text: String) -> String {
        match &self.0 {
            Some(inner) => mask_text(&inner.redactor, inner.needles().as_ref(), text),
            None => text,
        }
    }

    /// Every string inside `v` masked in place (a result's `meta`: `meta.diff` quotes the file
    /// as much as the result does).
    pub fn value(&self, v: &mut Value) {
        if let Some(inner) = &self.0 {
            walk(&inner.redactor, inner.needles().as_ref(), v);
        }
    }
}

impl Scope {
    /// The redactor and what was learned so far, when redaction is on (live masking).
    pub(super) fn parts(&self) -> Option<(&Redactor, Option<Needles>)> {
        self.0.as_ref().map(|i| (&*i.redactor, i.needles()))
    }
}

impl Inner {
    fn needles(&self) -> Option<Needles> {
        self.learned
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .needles()
    }
}

/// `text` masked as it leaves (see [`Scope::text`]), with the learned `needles` if any.
pub(super) fn mask_text(r: &Redactor, needles: Option<&Needles>, text: String) -> String {
    let json = (text.starts_with('{') && text.ends_with('}'))
        || (text.starts_with('[') && text.ends_with(']'));
    if json {
        if let Ok(mut v) = serde_json::from_str::<Value>(&text) {
            return if walk(r, needles, &mut v) {
                v.to_string()
            } else {
                text
            };
        }
    }
    plain(r, needles, text).0
}

/// Masks the strings of `v`; whether any changed.
fn walk(r: &Redactor, needles: Option<&Needles>, v: &mut Value) -> bool {
    match v {
        Value::String(s) => {
            let (masked, changed) = plain(r, needles, std::mem::take(s));
            *s = masked;
            changed
        }
        Value::Array(a) => a.iter_mut().fold(false, |c, x| walk(r, needles, x) | c),
        Value::Object(o) => o
            .iter_mut()
            .fold(false, |c, (k, x)| match (keys::classify(k), &*x) {
                (Some(kind), Value::String(s)) if keys::plausible(s) => {
                    *x = Value::String(format!("[REDACTED:{kind}]"));
                    true
                }
                _ => walk(r, needles, x) | c,
            }),
        _ => false,
    }
}

/// A plain text masked: what the rules find in it as shown, and the learned needles. Whether
/// anything was masked.
fn plain(r: &Redactor, needles: Option<&Needles>, text: String) -> (String, bool) {
    let mut spans = Vec::new();
    if r.find(&text, true, &mut spans).is_err() {
        return (WITHHELD.to_string(), true);
    }
    if let Some(n) = needles {
        find_needles(n, &text, &mut spans);
    }
    let changed = !spans.is_empty();
    (apply(text, &mut spans), changed)
}

/// The learned needles as matched: the automaton, and what a match of needle `i` masks.
#[derive(Clone)]
pub(super) struct Needles {
    ac: Arc<AhoCorasick>,
    masks: Arc<Vec<(std::ops::Range<usize>, &'static str, bool)>>,
    grams: Arc<Grams>,
}

impl Learned {
    fn add(&mut self, source: &str, span: Span) {
        let mut from = span.start;
        while from < span.end {
            let line_end = memchr::memchr(b'\n', &source.as_bytes()[from..span.end])
                .map_or(span.end, |i| from + i);
            let piece = source[from..line_end].trim_end_matches('\r');
            let to = from + piece.len();
            if !piece.is_empty() {
                if piece.len() >= SHORT {
                    self.push(piece.to_string(), 0..piece.len(), span.kind, false);
                } else {
                    // A short value carries its key (same line) and must stand apart.
                    let anchor = if from == span.start {
                        span.anchor
                    } else {
                        from
                    };
                    let ctx = &source[anchor..to];
                    self.push(ctx.to_string(), from - anchor..to - anchor, span.kind, true);
                }
            }
            from = line_end + 1;
        }
    }

    fn push(
        &mut self,
        text: String,
        mask: std::ops::Range<usize>,
        kind: &'static str,
        apart: bool,
    ) {
        if self.needles.len() >= MAX_NEEDLES {
            return;
        }
        // A view may cut the secret itself (`head -c`, `cut -c`): its pieces are grams.
        Arc::make_mut(&mut self.grams).add(&text[mask.clone()], kind);
        // Edit hints show spaces as `·` and tabs as `→`.
        if text.contains([' ', '\t']) {
            let visible = |s: &str| s.replace(' ', "·").replace('\t', "→");
            let (pre, mid) = (visible(&text[..mask.start]), visible(&text[mask.clone()]));
            let v = format!("{pre}{mid}{}", visible(&text[mask.end..]));
            let m = pre.len()..pre.len() + mid.len();
            self.push_one(v, m, kind, apart);
        }
        self.push_one(text, mask, kind, apart);
    }

    fn push_one(
        &mut self,
        text: String,
        mask: std::ops::Range<usize>,
        kind: &'static str,
        apart: bool,
    ) {
        if self.seen.insert(text.clone()) {
            self.texts.push(text);
            self.needles.push(Needle { mask, kind, apart });
            self.cache = None;
        }
    }

    /// The needles as matched (built once per batch of learning), if there are any.
    fn needles(&mut self) -> Option<Needles> {
        if self.texts.is_empty() {
            return None;
        }
        if self.cache.is_none() {
            let ac = AhoCorasick::builder()
                .match_kind(MatchKind::Standard)
                .build(&self.texts)
                .ok()?;
            let masks = self
                .needles
                .iter()
                .map(|n| (n.mask.clone(), n.kind, n.apart))
                .collect();
            self.cache = Some(Needles {
                ac: Arc::new(ac),
                masks: Arc::new(masks),
                grams: Arc::clone(&self.grams),
            });
        }
        self.cache.clone()
    }
}

/// Where position `p` of the text before `edits` is after them: shifted past the edits
/// before it; inside an edit, that edit's replacement's start (`end`: its end).
fn moved(edits: &[crate::jsregex::Replaced], p: usize, end: bool) -> usize {
    let mut delta: isize = 0;
    for (from, to) in edits {
        if from.end <= p {
            delta += to.len() as isize - from.len() as isize;
            continue;
        }
        if from.start < p {
            return if end { to.end } else { to.start };
        }
        break;
    }
    p.saturating_add_signed(delta)
}

/// Whether the byte next to a short needle joins it to a longer word (or base64 run).
fn joins(b: Option<&u8>, after: bool) -> bool {
    b.is_some_and(|&c| {
        c.is_ascii_alphanumeric() || c == b'_' || c == b'/' || (after && matches!(c, b'+' | b'='))
    })
}

/// The matches of the learned needles in `text`, as spans.
pub(super) fn find_needles(n: &Needles, text: &str, out: &mut Vec<Span>) {
    n.grams.find(text, out);
    let b = text.as_bytes();
    for m in n.ac.find_overlapping_iter(text) {
        let (mask, kind, apart) = &n.masks[m.pattern().as_usize()];
        if *apart
            && (joins(m.start().checked_sub(1).and_then(|i| b.get(i)), false)
                || joins(b.get(m.end()), true))
        {
            continue;
        }
        out.push(Span {
            start: m.start() + mask.start,
            end: m.start() + mask.end,
            anchor: m.start(),
            kind,
        });
    }
}
