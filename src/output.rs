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

/// A string with room for `capacity` bytes whose memory is mapped in one go: a large result
/// gets fresh pages (its buffer outlives the call as a V8 external string), and faulting
/// them in one at a time as the text is copied cost ~2.3 µs a page here (~0.45 ms for an
/// 800 KB `read_files` result); `MADV_POPULATE_WRITE` (Linux ≥ 5.14) maps the range in one
/// call, ~40 % cheaper. Elsewhere, or when the kernel refuses, the pages fault as usual.
pub fn string_for(capacity: usize) -> String {
    let out = String::with_capacity(capacity);
    #[cfg(target_os = "linux")]
    if capacity >= PREFAULT_FROM {
        let page = 4096;
        let start = (out.as_ptr() as usize).div_ceil(page) * page;
        let end = (out.as_ptr() as usize + capacity) / page * page;
        if end > start {
            // SAFETY: the range lies inside the string's own allocation; populating pages
            // changes no contents (they read as zero, and nothing reads them before writing).
            unsafe {
                libc::madvise(
                    start as *mut libc::c_void,
                    end - start,
                    libc::MADV_POPULATE_WRITE,
                )
            };
        }
    }
    out
}

/// Below this the allocator hands out memory it already has; only large buffers are fresh.
#[cfg(target_os = "linux")]
const PREFAULT_FROM: usize = 256 * 1024;

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
