//! Writing a JSON string fast: the bytes serde_json writes for a `&str`, with the bytes that
//! need escaping found sixteen (SSE2) or eight at a time. Tool answers that carry a large page of text (`monitor_poll`) spend most of their
//! time escaping it, and serde_json looks at one byte per step.
//!
//! The output is byte-for-byte serde_json's (`\"`, `\\`, `\b \f \n \r \t`, other control
//! characters as `\u00xx`; everything else, DEL and non-ASCII included, as is), which the
//! tests check against serde_json itself.

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// The bytes of `w` (little-endian) that need escaping — below 0x20, `"` or `\` — as a mask
/// with the high bit of each such byte set. Exact for the lowest flagged byte (the classic
/// "has a byte less than n" / "has a zero byte" word tricks can only add false flags above a
/// true one), which is all the caller uses.
#[inline]
fn escape_mask(w: u64) -> u64 {
    let below_space = w.wrapping_sub(LO * 0x20) & !w;
    let q = w ^ (LO * u64::from(b'"'));
    let quote = q.wrapping_sub(LO) & !q;
    let k = w ^ (LO * u64::from(b'\\'));
    let backslash = k.wrapping_sub(LO) & !k;
    (below_space | quote | backslash) & HI
}

/// How many bytes from the start of `b` need no escaping, looking 16 at a time (SSE2, part
/// of every x86-64), then 8 at a time; stops at the first byte that needs it or near the
/// end (the caller finishes byte by byte).
#[inline]
fn clean_prefix(b: &[u8]) -> usize {
    let mut i = 0;
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        // SAFETY: SSE2 is baseline on x86-64; loads are unaligned and stay inside `b`.
        unsafe {
            let limit = _mm_set1_epi8(0x1f);
            let quote = _mm_set1_epi8(b'"' as i8);
            let backslash = _mm_set1_epi8(b'\\' as i8);
            while i + 16 <= b.len() {
                let x = _mm_loadu_si128(b.as_ptr().add(i).cast());
                // Unsigned x <= 0x1f  <=>  min(x, 0x1f) == x.
                let control = _mm_cmpeq_epi8(_mm_min_epu8(x, limit), x);
                let special = _mm_or_si128(
                    control,
                    _mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, backslash)),
                );
                let m = _mm_movemask_epi8(special) as u32;
                if m != 0 {
                    return i + m.trailing_zeros() as usize;
                }
                i += 16;
            }
        }
    }
    while i + 8 <= b.len() {
        let w = u64::from_le_bytes(b[i..i + 8].try_into().unwrap_or([0; 8]));
        let m = escape_mask(w);
        if m != 0 {
            return i + (m.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    i
}

/// Appends `s` as a JSON string literal, quotes included, to `out`.
pub fn push_str(out: &mut Vec<u8>, s: &str) {
    let b = s.as_bytes();
    out.reserve(b.len() + 2);
    out.push(b'"');
    let mut start = 0; // first byte not yet copied
    let mut i = 0;
    while i < b.len() {
        // Straight to the next byte that needs it (or to the last few bytes).
        i += clean_prefix(&b[i..]);
        if i >= b.len() {
            break;
        }
        let c = b[i];
        let esc: &[u8] = match c {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x08 => b"\\b",
            0x0c => b"\\f",
            0..=0x1f => b"",
            _ => {
                i += 1;
                continue;
            }
        };
        out.extend_from_slice(&b[start..i]);
        if esc.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.extend_from_slice(b"\\u00");
            out.push(HEX[(c >> 4) as usize]);
            out.push(HEX[(c & 0xf) as usize]);
        } else {
            out.extend_from_slice(esc);
        }
        i += 1;
        start = i;
    }
    out.extend_from_slice(&b[start..]);
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn ours(s: &str) -> String {
        let mut v = Vec::new();
        push_str(&mut v, s);
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn every_byte_value_matches_serde_json() {
        for c in 0u32..0x800 {
            let ch = char::from_u32(c).unwrap();
            for s in [
                ch.to_string(),
                format!("abcdefg{ch}xyz"),
                format!("{ch}01234567{ch}"),
            ] {
                assert_eq!(ours(&s), serde_json::to_string(&s).unwrap(), "{c:#x}");
            }
        }
        assert_eq!(ours(""), "\"\"");
        assert_eq!(
            ours("\u{2028}\u{1F600}\"\\"),
            serde_json::to_string("\u{2028}\u{1F600}\"\\").unwrap()
        );
    }

    #[test]
    fn a_special_byte_at_every_position_of_a_long_run() {
        for special in ['"', '\\', '\n', '\u{1}', '\u{1f}', '\u{7f}', '\u{e9}', ' '] {
            for at in 0..48 {
                let mut s: String = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV".into();
                s.insert(at, special);
                assert_eq!(
                    ours(&s),
                    serde_json::to_string(&s).unwrap(),
                    "{special:?} at {at}"
                );
            }
        }
    }

    proptest! {
        #[test]
        fn any_string_matches_serde_json(s in "(?s).{0,200}", t in "[\\x00-\\x7f]{0,64}") {
            prop_assert_eq!(ours(&s), serde_json::to_string(&s).unwrap());
            prop_assert_eq!(ours(&t), serde_json::to_string(&t).unwrap());
        }
    }
}
