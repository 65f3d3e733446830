//! Trigrams and the compressed posting lists that hold them.
//!
//! A trigram is three consecutive bytes of a file's *prepared* text (the buffer grep
//! searches: BOM dropped, UTF-16 transcoded, line endings normalised — see
//! `search::scan::prepare`), each mapped to a 7-bit class ([`class`]) and packed into the
//! low 21 bits of a `u32`. The class of an ASCII byte is the byte with letters folded to
//! lower case: one index serves case-sensitive and case-insensitive queries, since a query's
//! literals are mapped the same way and a file holding a literal always holds its mapped
//! trigrams. The 26 upper-case codes are then free, and so are the control codes text never
//! holds; bytes ≥ 0x80 share those 55 classes. That makes a non-ASCII trigram less
//! selective (it stands for a few byte trigrams), never wrong: the index only narrows the
//! files, and every candidate is searched. The planner expands non-ASCII case variants
//! (`K` → `K`, `k`, U+212A) into alternatives.
//!
//! Why 21 bits and not 24: a build's (trigram, file) pairs then fit a `u32` with an 11-bit
//! file number within a range of 2,048 files ([`PAIR_ID_BITS`]), which halves the memory
//! the sort streams through, and the extraction's table of seen trigrams shrinks to 2 MiB
//! of bytes.
//!
//! Posting lists are ascending file ids stored as LEB128 varints of the gaps (the first one
//! is the id itself). Trigrams over source code cluster in nearby files of one directory,
//! so most gaps fit one byte. Hand-written rather than `fst`: an FST maps keys to a single
//! `u64`, the lists themselves would still need a codec, and the key space (2^21 trigrams)
//! is small enough for a sorted fixed-width table searched by bisection in the mapped file.

/// Folds one byte the way queries are folded before their trigrams are taken: ASCII letters
/// to lower case, everything else as it is ([`class`] then maps the result).
#[inline]
pub fn fold(b: u8) -> u8 {
    b.to_ascii_lowercase()
}

/// Bits of the file number in a build pair (`trigram << PAIR_ID_BITS | file`): a build's
/// id ranges hold at most `1 << PAIR_ID_BITS` files.
pub const PAIR_ID_BITS: u32 = 11;

/// The codes bytes ≥ 0x80 are mapped to: the upper-case letters (folded away) and the
/// control codes other than tab, line feed and carriage return (prepared text holds no NUL:
/// such a file is binary and not indexed).
const SPARE: [u8; 55] = {
    let mut t = [0u8; 55];
    let mut n = 0;
    let mut b = 1u8;
    while b < 0x80 {
        let control = b < 0x20 && b != b'\t' && b != b'\n' && b != b'\r';
        if control || b == 0x7F || b.is_ascii_uppercase() {
            t[n] = b;
            n += 1;
        }
        b += 1;
    }
    assert!(n == 55);
    t
};

/// [`class`] as a table.
static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = if i < 0x80 {
            (i as u8).to_ascii_lowercase()
        } else {
            SPARE[(i - 0x80) % SPARE.len()]
        };
        i += 1;
    }
    t
};

/// The 7-bit class of a byte: what trigrams are made of.
#[inline]
pub fn class(b: u8) -> u8 {
    CLASS[usize::from(b)]
}

/// The trigram of three classes.
#[inline]
pub fn pack(a: u8, b: u8, c: u8) -> u32 {
    (u32::from(a & 0x7F) << 14) | (u32::from(b & 0x7F) << 7) | u32::from(c & 0x7F)
}

/// The distinct trigrams of a literal, in no particular order. Empty when the literal is
/// shorter than three bytes.
pub fn of_literal(lit: &[u8]) -> Vec<u32> {
    let mut out: Vec<u32> = lit
        .windows(3)
        .map(|w| pack(class(w[0]), class(w[1]), class(w[2])))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Extracts a file's distinct trigrams with a reusable table of one byte per possible
/// trigram (2 MiB), cleared by walking the found list rather than by zeroing it. Bytes
/// measured faster than bits here (fewer instructions a window), and a branch-free variant
/// no faster: most windows repeat, so the branch predicts well.
pub struct Extractor {
    seen: Box<[u8; 1 << 21]>,
}

impl Default for Extractor {
    fn default() -> Self {
        let seen = vec![0u8; 1 << 21].into_boxed_slice();
        Extractor {
            seen: seen.try_into().unwrap_or_else(|_| unreachable!()),
        }
    }
}

impl Extractor {
    /// Appends `gram << PAIR_ID_BITS | id` to `pairs` for each distinct trigram of `text`,
    /// in order of first appearance (`id < 1 << PAIR_ID_BITS`).
    // Not inlined into the build's loop over files: there the loop's pointers were spilled
    // to the stack and reloaded every byte.
    #[inline(never)]
    pub fn extract(&mut self, text: &[u8], id: u32, pairs: &mut Vec<u32>) {
        if text.len() < 3 {
            return;
        }
        let start = pairs.len();
        let c = |b: u8| u32::from(class(b));
        let mut g = (c(text[0]) << 7) | c(text[1]);
        for &b in &text[2..] {
            g = ((g << 7) | c(b)) & 0x1F_FFFF;
            // A trigram is < 2^21: in bounds of the fixed-size table.
            let seen = &mut self.seen[g as usize];
            if *seen == 0 {
                *seen = 1;
                pairs.push((g << PAIR_ID_BITS) | id);
            }
        }
        for &p in &pairs[start..] {
            self.seen[(p >> PAIR_ID_BITS) as usize] = 0;
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

    /// The distinct trigrams `extract` finds in `text`.
    fn grams(ex: &mut Extractor, text: &[u8]) -> Vec<u32> {
        let mut pairs = Vec::new();
        ex.extract(text, 5, &mut pairs);
        assert!(pairs.iter().all(|p| p & ((1 << PAIR_ID_BITS) - 1) == 5));
        pairs.iter().map(|p| p >> PAIR_ID_BITS).collect()
    }

    #[test]
    fn extraction_is_folded_and_distinct() {
        let mut ex = Extractor::default();
        let mut out = grams(&mut ex, b"AbcABC abc");
        out.sort_unstable();
        assert_eq!(out, of_literal(b"AbcABC abc"));
        assert!(out.contains(&pack(b'a', b'b', b'c')));
        assert!(!out.contains(&pack(b'A', b'b', b'c')));
        // The table was cleared: a second text does not inherit the first one's grams.
        assert_eq!(grams(&mut ex, b"xyz"), vec![pack(b'x', b'y', b'z')]);
        assert!(grams(&mut ex, b"ab").is_empty());
        // A long text, every byte value: every distinct trigram once.
        let long: Vec<u8> = (0..300_000u32).map(|i| (i * i % 251) as u8).collect();
        let mut out = grams(&mut ex, &long);
        let n = out.len();
        out.sort_unstable();
        out.dedup();
        assert_eq!(out.len(), n);
        assert_eq!(out, of_literal(&long));
        // Every short length and prefix: the first windows and the last.
        for len in 0..80 {
            let mut out = grams(&mut ex, &long[..len]);
            out.sort_unstable();
            assert_eq!(out, of_literal(&long[..len]), "{len}");
        }
    }

    #[test]
    fn classes_fold_ascii_and_keep_text_codes_apart() {
        for b in 0..=255u8 {
            let c = class(b);
            assert!(c < 0x80, "{b}");
            // A query folded first maps the same.
            assert_eq!(class(fold(b)), c, "{b}");
            if b < 0x80 {
                assert_eq!(c, fold(b), "{b}");
            } else {
                // Never a code text uses as itself.
                assert!(
                    !c.is_ascii_lowercase() && !c.is_ascii_digit() && !c.is_ascii_punctuation()
                );
                assert!(![b' ', b'\t', b'\n', b'\r', 0].contains(&c), "{b}");
            }
        }
        // The 128 high bytes spread over the 55 spare codes.
        let used: std::collections::BTreeSet<u8> = (0x80..=255u8).map(class).collect();
        assert_eq!(used.len(), 55);
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
