//! Trigrams and the compressed posting lists that hold them.
//!
//! A trigram is three consecutive bytes of a file's *prepared* text (the buffer grep
//! searches: BOM dropped, UTF-16 transcoded, line endings normalised — see
//! `search::scan::prepare`), ASCII letters folded to lower case, packed into the low 24 bits
//! of a `u32`. Folding lets one index serve case-sensitive and case-insensitive queries:
//! a query's literals are folded the same way, so a file holding a literal always holds its
//! folded trigrams. Bytes ≥ 0x80 are kept as they are; the planner expands non-ASCII case
//! variants (`K` → `K`, `k`, U+212A) into alternatives instead.
//!
//! Posting lists are ascending file ids stored as LEB128 varints of the gaps (the first one
//! is the id itself). Trigrams over source code cluster in nearby files of one directory,
//! so most gaps fit one byte. Hand-written rather than `fst`: an FST maps keys to a single
//! `u64`, the lists themselves would still need a codec, and the key space (2^24 trigrams)
//! is small enough for a sorted fixed-width table searched by bisection in the mapped file.

/// Folds one byte the way the index does.
#[inline]
pub fn fold(b: u8) -> u8 {
    b.to_ascii_lowercase()
}

/// [`fold`] as a table: the extraction loop's fold is one load instead of a compare and an
/// add, 15–20 % of its time on the corpus.
static FOLD: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = (i as u8).to_ascii_lowercase();
        i += 1;
    }
    t
};

/// The trigram of three folded bytes.
#[inline]
pub fn pack(a: u8, b: u8, c: u8) -> u32 {
    (u32::from(a) << 16) | (u32::from(b) << 8) | u32::from(c)
}

/// The distinct trigrams of a literal (folded), in no particular order. Empty when the
/// literal is shorter than three bytes.
pub fn of_literal(lit: &[u8]) -> Vec<u32> {
    let mut out: Vec<u32> = lit
        .windows(3)
        .map(|w| pack(fold(w[0]), fold(w[1]), fold(w[2])))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Extracts a file's distinct trigrams with a reusable 2 MiB bitmap (one bit per possible
/// trigram): cheaper than sorting every window, and the bitmap is cleared by walking the
/// found list, not by zeroing it. (A branch-free variant, which writes every window and
/// advances past new ones only, measured 20 % slower: most windows repeat, so the branch
/// predicts well.)
pub struct Extractor {
    seen: Box<[u64; (1 << 24) / 64]>,
}

impl Default for Extractor {
    fn default() -> Self {
        let seen = vec![0u64; (1 << 24) / 64].into_boxed_slice();
        Extractor {
            seen: seen.try_into().unwrap_or_else(|_| unreachable!()),
        }
    }
}

impl Extractor {
    /// The distinct trigrams of `text`, in `out` (cleared first), in order of first
    /// appearance.
    pub fn extract(&mut self, text: &[u8], out: &mut Vec<u32>) {
        out.clear();
        if text.len() < 3 {
            return;
        }
        let fold = |b: u8| FOLD[usize::from(b)];
        let mut g = (u32::from(fold(text[0])) << 8) | u32::from(fold(text[1]));
        for &b in &text[2..] {
            g = ((g << 8) | u32::from(fold(b))) & 0x00FF_FFFF;
            // A trigram is < 2^24, so the word index is in bounds of the fixed-size bitmap.
            let (word, bit) = (&mut self.seen[(g >> 6) as usize], 1u64 << (g & 63));
            if *word & bit == 0 {
                *word |= bit;
                out.push(g);
            }
        }
        for &g in out.iter() {
            self.seen[(g >> 6) as usize] = 0;
        }
    }
}

/// Appends `v` as a LEB128 varint.
#[inline]
pub fn put_varint(out: &mut Vec<u8>, mut v: u32) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Decodes a posting list of `count` gaps into ascending ids. A truncated or overlong list
/// (which the checksum rules out) decodes to what is readable.
pub fn decode(bytes: &[u8], count: usize, out: &mut Vec<u32>) {
    out.clear();
    out.reserve(count);
    let (mut pos, mut last) = (0usize, 0u32);
    for i in 0..count {
        let (mut v, mut shift) = (0u32, 0u32);
        loop {
            let Some(&b) = bytes.get(pos) else { return };
            pos += 1;
            v |= u32::from(b & 0x7F).checked_shl(shift).unwrap_or(0);
            if b & 0x80 == 0 {
                break;
            }
            shift += 7;
        }
        last = if i == 0 { v } else { last.wrapping_add(v) };
        out.push(last);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extraction_is_folded_distinct_and_sorted() {
        let mut ex = Extractor::default();
        let mut out = Vec::new();
        ex.extract(b"AbcABC abc", &mut out);
        out.sort_unstable();
        let mut want = of_literal(b"AbcABC abc");
        want.sort_unstable();
        assert_eq!(out, want);
        assert!(out.contains(&pack(b'a', b'b', b'c')));
        assert!(!out.contains(&pack(b'A', b'b', b'c')));
        // The bitmap was cleared: a second text does not inherit the first one's grams.
        ex.extract(b"xyz", &mut out);
        assert_eq!(out, vec![pack(b'x', b'y', b'z')]);
        ex.extract(b"ab", &mut out);
        assert!(out.is_empty());
        // A long text: every distinct trigram once, whatever the repetitions.
        let long: Vec<u8> = (0..300_000u32).map(|i| (i * i % 251) as u8).collect();
        ex.extract(&long, &mut out);
        let n = out.len();
        out.sort_unstable();
        out.dedup();
        assert_eq!(out.len(), n);
        assert_eq!(out, of_literal(&long));
    }

    #[test]
    fn the_fold_table_is_the_fold() {
        for b in 0..=255u8 {
            assert_eq!(FOLD[usize::from(b)], fold(b), "{b}");
        }
    }

    #[test]
    fn varints_round_trip() {
        let ids = [0u32, 1, 2, 130, 20_000, 4_000_000_000];
        let mut bytes = Vec::new();
        let mut last = 0;
        for &id in &ids {
            put_varint(&mut bytes, id - last);
            last = id;
        }
        let mut out = Vec::new();
        decode(&bytes, ids.len(), &mut out);
        assert_eq!(out, ids);
    }
}
