//! Output bounds: cutting text to a byte budget on a UTF-8 boundary, with the marker the
//! model sees. (`bash` keeps its own head-and-tail view and spill files in `tools/bash`.)

/// The longest prefix of `s` that is at most `max` bytes and ends on a char boundary.
pub fn utf8_prefix(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// The longest suffix of `s` that is at most `max` bytes and starts on a char boundary.
pub fn utf8_suffix(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut start = s.len() - max;
    while !s.is_char_boundary(start) {
        start += 1;
    }
    &s[start..]
}

/// Dispatch step 4: `text` cut to `max` bytes plus
/// `\n[... output truncated: <shown> of <total> bytes shown ...]`, or `text` unchanged when
/// it fits.
pub fn bound(text: String, max: u64) -> String {
    let max = usize::try_from(max).unwrap_or(usize::MAX);
    if text.len() <= max {
        return text;
    }
    let total = text.len();
    let shown = utf8_prefix(&text, max).len();
    let mut out = text;
    out.truncate(shown);
    out.push_str(&format!(
        "\n[... output truncated: {shown} of {total} bytes shown ...]"
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bound_cuts_on_char_boundary() {
        let s = "é".repeat(600); // 1200 bytes
        let out = bound(s, 1001);
        assert!(out.starts_with(&"é".repeat(500)));
        assert!(out.ends_with("\n[... output truncated: 1000 of 1200 bytes shown ...]"));
        assert_eq!(bound("short".into(), 1024), "short");
    }

    #[test]
    fn suffix_starts_on_boundary() {
        assert_eq!(utf8_suffix("aé", 1), "");
        assert_eq!(utf8_suffix("aé", 2), "é");
    }
}
