//! Live output: a command's output handed to the host while it runs (`onOutput`).
//!
//! The pumps that capture a stream also hand each chunk they keep to an [`OutputSink`], as
//! text: a [`Utf8Chunker`] holds back a character cut by a read until its last bytes arrive,
//! so no chunk ends inside a character (invalid bytes become U+FFFD, as in the result). Only
//! bytes within the capture ceiling are passed on, so what a host receives is bounded like the
//! capture itself. The sink must not block: it is called on the runtime's worker threads.

use std::sync::Arc;

/// Which stream a chunk came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    /// The command's stdout.
    Stdout,
    /// The command's stderr.
    Stderr,
}

impl Stream {
    /// `"stdout"` or `"stderr"`, as the host sees it.
    pub fn as_str(self) -> &'static str {
        match self {
            Stream::Stdout => "stdout",
            Stream::Stderr => "stderr",
        }
    }
}

/// Receives live output chunks, in the order each stream produced them. Must return at once.
#[derive(Clone)]
pub struct OutputSink(Arc<dyn Fn(Stream, String) + Send + Sync>);

impl OutputSink {
    /// A sink calling `f` for every chunk.
    pub fn new(f: impl Fn(Stream, String) + Send + Sync + 'static) -> OutputSink {
        OutputSink(Arc::new(f))
    }

    /// Hands one chunk on.
    pub fn send(&self, stream: Stream, text: String) {
        (self.0)(stream, text)
    }
}

impl std::fmt::Debug for OutputSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OutputSink")
    }
}

/// How many trailing bytes of `buf` are the start of a character whose remaining bytes have
/// not arrived yet (0 to 3).
pub fn incomplete_tail(buf: &[u8]) -> usize {
    for back in 1..=3.min(buf.len()) {
        let b = buf[buf.len() - back];
        if b & 0xC0 == 0x80 {
            continue;
        }
        let need = match b {
            0xF0.. => 4,
            0xE0.. => 3,
            0xC0.. => 2,
            _ => 1,
        };
        return if need > back { back } else { 0 };
    }
    0
}

/// Turns a byte stream into text chunks that never split a character.
#[derive(Debug, Default)]
pub struct Utf8Chunker {
    carry: Vec<u8>,
}

impl Utf8Chunker {
    /// The text of `bytes` (after what was held back), minus a cut character at the end,
    /// which is held for the next call.
    pub fn push(&mut self, bytes: &[u8]) -> String {
        let joined;
        let buf: &[u8] = if self.carry.is_empty() {
            bytes
        } else {
            self.carry.extend_from_slice(bytes);
            joined = std::mem::take(&mut self.carry);
            &joined
        };
        let keep = buf.len() - incomplete_tail(buf);
        let text = String::from_utf8_lossy(&buf[..keep]).into_owned();
        self.carry = buf[keep..].to_vec();
        text
    }

    /// What is still held back (an unfinished character at the end of the stream), as text.
    pub fn finish(&mut self) -> String {
        let rest = std::mem::take(&mut self.carry);
        String::from_utf8_lossy(&rest).into_owned()
    }
}

/// One stream's live feed: the chunker and where its text goes.
pub struct Feed {
    stream: Stream,
    sink: OutputSink,
    chunker: Utf8Chunker,
}

impl Feed {
    /// A feed of `stream` into `sink`.
    pub fn new(stream: Stream, sink: OutputSink) -> Feed {
        Feed {
            stream,
            sink,
            chunker: Utf8Chunker::default(),
        }
    }

    /// Passes on the complete characters of `bytes`.
    pub fn push(&mut self, bytes: &[u8]) {
        let text = self.chunker.push(bytes);
        if !text.is_empty() {
            self.sink.send(self.stream, text);
        }
    }

    /// Passes on what was held back, at the end of the stream.
    pub fn finish(mut self) {
        let text = self.chunker.finish();
        if !text.is_empty() {
            self.sink.send(self.stream, text);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_character_waits_for_its_last_bytes() {
        let s = "a\u{e9}\u{1F600}z".as_bytes();
        for cut in 0..=s.len() {
            for cut2 in cut..=s.len() {
                let mut c = Utf8Chunker::default();
                let mut out = c.push(&s[..cut]);
                out += &c.push(&s[cut..cut2]);
                out += &c.push(&s[cut2..]);
                out += &c.finish();
                assert_eq!(out, "a\u{e9}\u{1F600}z", "cuts {cut} {cut2}");
            }
        }
        let mut c = Utf8Chunker::default();
        assert_eq!(c.push(&s[..4]), "a\u{e9}");
    }

    #[test]
    fn invalid_bytes_become_replacement_characters() {
        let mut c = Utf8Chunker::default();
        assert_eq!(c.push(&[b'x', 0xFF, b'y']), "x\u{FFFD}y");
        // A lead byte never completed is flushed at the end.
        assert_eq!(c.push(&[b'a', 0xE2, 0x82]), "a");
        assert_eq!(c.finish(), "\u{FFFD}");
    }

    #[test]
    fn feed_sends_in_order_and_skips_empty_chunks() {
        let got = Arc::new(std::sync::Mutex::new(Vec::new()));
        let g = got.clone();
        let sink = OutputSink::new(move |s, t| g.lock().unwrap().push((s, t)));
        let mut f = Feed::new(Stream::Stderr, sink);
        f.push(&[0xC3]);
        f.push(&[0xA9, b'!']);
        f.finish();
        assert_eq!(
            *got.lock().unwrap(),
            vec![(Stream::Stderr, "\u{e9}!".to_string())]
        );
    }
}
