//! Live output (`onOutput`, MCP progress) masked as it streams: per stream, a line is
//! released only once it is complete — so a secret cut across two chunks is judged whole —
//! and the key-block state carries from chunk to chunk (a body line is masked although its
//! BEGIN line went out in an earlier chunk). A run of base64 lines is held until a line that
//! ends it says whether it was a body; a line with no break is released in pieces past
//! [`HOLD_LINE`] bytes, cut at a blank at least [`KEEP`] bytes before its end. What the call
//! learned of its sources (the files a command names) is masked in the chunks too.

use super::blocks::{Blocks, State};
use super::scope::{find_needles, Needles};
use super::{apply, Redactor, Scope, WITHHELD};
use std::sync::Mutex;

/// A line without a break is held up to this many bytes.
const HOLD_LINE: usize = 8 << 10;
/// A pending base64 run is judged (and released) once it is this long.
const HOLD_RUN: usize = 64 << 10;
/// When a long line is released in pieces, at least this much of its end is kept back.
const KEEP: usize = 512;

#[derive(Default)]
struct Held {
    text: String,
    state: State,
}

/// The live masking of one call's output streams (`0`: stdout, `1`: stderr).
pub struct Live {
    scope: Scope,
    streams: Mutex<[Held; 2]>,
}

impl Live {
    /// Masking for the streams of the call whose redaction is `scope`.
    pub fn new(scope: Scope) -> Live {
        Live {
            scope,
            streams: Mutex::default(),
        }
    }

    /// Takes `chunk` of stream `i`; returns what can go out now, masked (maybe empty).
    pub fn push(&self, i: usize, chunk: &str) -> String {
        let Some((r, needles)) = self.scope.parts() else {
            return chunk.to_string();
        };
        let mut streams = self.streams.lock().unwrap_or_else(|p| p.into_inner());
        let held = &mut streams[i.min(1)];
        held.text.push_str(chunk);
        release(r, needles.as_ref(), held, false)
    }

    /// What stream `i` still holds, masked: at the end of the call.
    pub fn finish(&self, i: usize) -> String {
        let Some((r, needles)) = self.scope.parts() else {
            return String::new();
        };
        let mut streams = self.streams.lock().unwrap_or_else(|p| p.into_inner());
        release(r, needles.as_ref(), &mut streams[i.min(1)], true)
    }
}

/// Where a line with no break may be cut: after the last blank at least [`KEEP`] bytes
/// before its end (else at that point, on a character boundary).
fn long_cut(text: &str) -> usize {
    let mut at = text.len() - KEEP;
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    text[..at].rfind([' ', '\t']).map_or(at, |i| i + 1)
}

fn release(r: &Redactor, needles: Option<&Needles>, held: &mut Held, end: bool) -> String {
    let text = &held.text;
    let cut = if end {
        text.len()
    } else {
        match memchr::memrchr2(b'\n', b'\r', text.as_bytes()) {
            Some(i) => i + 1,
            None if text.len() > HOLD_LINE => long_cut(text),
            None => 0,
        }
    };
    if cut == 0 {
        return String::new();
    }
    let part = &text[..cut];
    let mut blocks = Blocks::new(true, held.state);
    let mut spans = Vec::new();
    let mut at = 0;
    for nl in memchr::memchr_iter(b'\n', part.as_bytes()) {
        blocks.line(part, at, nl, &mut spans);
        at = nl + 1;
    }
    if at < part.len() {
        blocks.line(part, at, part.len(), &mut spans);
    }
    let mut upto = cut;
    match blocks.pending_from() {
        // The run may still turn out to be a body: hold it.
        Some(p) if !end && cut - p < HOLD_RUN => upto = p,
        _ => blocks.settle(part, &mut spans),
    }
    held.state = blocks.state;
    let out = text[..upto].to_string();
    held.text.drain(..upto);
    spans.retain(|s| s.end <= upto);
    r.rules.find(&out, &mut spans);
    if let Some(n) = needles {
        find_needles(n, &out, &mut spans);
    }
    if r.find_host(&out, &mut spans).is_err() {
        return WITHHELD.to_string();
    }
    apply(out, &mut spans)
}
