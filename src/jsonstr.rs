//! Writing a JSON string fast: the bytes serde_json writes for a `&str`, found eight at a
//! time. Tool answers that carry a large page of text (`monitor_poll`) spend most of their
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

/// Appends `s` as a JSON string literal, quotes included, to `out`.
pub fn push_str(out: &mut Vec<u8>, s: &str) {
    let b = s.as_bytes();
    out.reserve(b.len() + 2);
    out.push(b'"');
    let mut start = 0; // first byte not yet copied
    let mut i = 0;
    while i < b.len() {
        if i + 8 <= b.len() {
            let w = u64::from_le_bytes(b[i..i + 8].try_into().unwrap_or([0; 8]));
            let m = escape_mask(w);
            if m == 0 {
                i += 8;
                continue;
            }
            // Straight to the first byte that needs it.
            i += (m.trailing_zeros() / 8) as usize;
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

    proptest! {
        #[test]
        fn any_string_matches_serde_json(s in "(?s).{0,200}", t in "[\\x00-\\x7f]{0,64}") {
            prop_assert_eq!(ours(&s), serde_json::to_string(&s).unwrap());
            prop_assert_eq!(ours(&t), serde_json::to_string(&t).unwrap());
        }
    }
}
