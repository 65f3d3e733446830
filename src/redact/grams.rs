//! Pieces of learned secrets. A view can cut a secret inside itself — `head -c`/`tail -c`
//! at a stream's edge, `cut -c`, a program that wraps long lines — and a piece matches no
//! whole needle. So every 8-byte ASCII window of a learned secret's masked text (at least
//! [`MIN_SECRET`] bytes long) that holds no blank and two of upper-case, lower-case and
//! digits is a gram, and every run of a view that grams cover is masked. Eight ASCII bytes
//! are a `u64`: a window is looked up by its bytes, behind a bloom filter that rejects
//! almost every position of an ordinary text at once.

use super::Span;
use std::collections::HashMap;

/// The window: a piece shorter than this can still show.
const GRAM: usize = 8;
/// A secret shorter than this gives no grams (its own needle covers it).
const MIN_SECRET: usize = 12;
/// Bloom filter bits (a power of two).
const BLOOM_BITS: usize = 1 << 16;
/// Most grams kept (the rest of a huge source teaches whole needles only).
const MAX_GRAMS: usize = 200_000;

/// The grams of the secrets learned so far.
#[derive(Clone)]
pub(super) struct Grams {
    bloom: Vec<u64>,
    kinds: HashMap<u64, &'static str>,
}

impl Default for Grams {
    fn default() -> Grams {
        Grams {
            bloom: vec![0; BLOOM_BITS / 64],
            kinds: HashMap::new(),
        }
    }
}

fn bit(w: u64) -> usize {
    (w.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 48) as usize % BLOOM_BITS
}

/// Whether a window can be a gram: ASCII, no blank or control, two classes of characters.
fn eligible(b: &[u8]) -> bool {
    let (mut upper, mut lower, mut digit) = (false, false, false);
    for &c in b {
        if !c.is_ascii_graphic() {
            return false;
        }
        upper |= c.is_ascii_uppercase();
        lower |= c.is_ascii_lowercase();
        digit |= c.is_ascii_digit();
    }
    u8::from(upper) + u8::from(lower) + u8::from(digit) >= 2
}

fn word(b: &[u8]) -> u64 {
    let mut w = [0u8; GRAM];
    w.copy_from_slice(b);
    u64::from_le_bytes(w)
}

impl Grams {
    /// Whether no gram was learned.
    pub fn is_empty(&self) -> bool {
        self.kinds.is_empty()
    }

    /// Adds the grams of `secret` (the masked text of a needle).
    pub fn add(&mut self, secret: &str, kind: &'static str) {
        let b = secret.as_bytes();
        if b.len() < MIN_SECRET {
            return;
        }
        for win in b.windows(GRAM) {
            if self.kinds.len() >= MAX_GRAMS {
                return;
            }
            if eligible(win) {
                let w = word(win);
                self.bloom[bit(w) / 64] |= 1 << (bit(w) % 64);
                self.kinds.entry(w).or_insert(kind);
            }
        }
    }

    /// Every run of `text` covered by grams, as spans.
    pub fn find(&self, text: &str, out: &mut Vec<Span>) {
        if self.is_empty() {
            return;
        }
        let b = text.as_bytes();
        let mut run: Option<(usize, usize, &'static str)> = None;
        for i in 0..b.len().saturating_sub(GRAM - 1) {
            let w = word(&b[i..i + GRAM]);
            let hit = self.bloom[bit(w) / 64] & (1 << (bit(w) % 64)) != 0;
            let Some(&kind) = hit.then(|| self.kinds.get(&w)).flatten() else {
                continue;
            };
            run = match run {
                Some((s, e, k)) if i <= e => Some((s, i + GRAM, k)),
                Some((s, e, k)) => {
                    out.push(span(s, e, k));
                    Some((i, i + GRAM, kind))
                }
                None => Some((i, i + GRAM, kind)),
            };
        }
        if let Some((s, e, k)) = run {
            out.push(span(s, e, k));
        }
    }
}

fn span(start: usize, end: usize, kind: &'static str) -> Span {
    Span {
        start,
        end,
        anchor: start,
        kind,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_of_a_secret_are_found_anywhere_and_words_are_not() {
        let mut g = Grams::default();
        g.add(
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dozjgNryP4J3jVmNHl0w5N",
            "jwt",
        );
        g.add("short1A", "secret");
        let text = "x iOiJIUzI1NiJ9.eyJzdWIiOi y";
        let mut out = Vec::new();
        g.find(text, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(&text[out[0].start..out[0].end], "iOiJIUzI1NiJ9.eyJzdWIiOi");
        let mut none = Vec::new();
        g.find("the word eyJhb and short1A alone", &mut none);
        assert!(none.is_empty(), "{none:?}");
    }
}
