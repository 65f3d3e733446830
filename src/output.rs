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

/// A string with room for `capacity` bytes for a large result. Such a buffer outlives the
/// call as a V8 external string, so it cannot come from memory the allocator already has;
/// faulting its pages in one at a time as the text is copied cost ~2.3 µs a page here
/// (~0.45 ms for an 800 KB `read_files` result), and mapping them in one call
/// (`MADV_POPULATE_WRITE`, Linux ≥ 5.14) still ~0.3 ms. So a spare buffer of the size of
/// the last large result is kept mapped: a call takes it and a pool helper maps the next
/// one after the call ([`crate::pool`]), off the caller's path. (Buffers V8 collects are
/// not kept: it collects them in bursts, long after the next call, and keeping them held
/// up to 16 MB of any tool's old results.) Without a fitting spare the pages are mapped
/// here.
pub fn string_for(capacity: usize) -> String {
    if capacity < PREFAULT_FROM {
        return String::with_capacity(capacity);
    }
    let out = spare(capacity).unwrap_or_else(|| mapped(capacity));
    let next = capacity + capacity / 8;
    if next <= SPARE_BYTES {
        crate::pool::submit(Box::new(move || {
            if !spares().iter().any(|s| fits(s, capacity)) {
                add(&mut spares(), mapped(next));
            }
        }));
    }
    out
}

/// A fresh string of `capacity` bytes whose pages are mapped in one call ([`populate`]).
fn mapped(capacity: usize) -> String {
    let mut out = String::with_capacity(capacity);
    // SAFETY: only the pages of the spare capacity are populated; no byte is written, so
    // the string stays empty and valid UTF-8.
    populate(unsafe { out.as_mut_vec() }.spare_capacity_mut());
    out
}

/// Maps the whole pages of `buf` in one call (Linux `MADV_POPULATE_WRITE`, ≥ 5.14) instead of
/// a fault per page as they are first written; contents are unchanged (fresh pages read as
/// zero). Elsewhere, or when the kernel refuses, the pages fault as usual.
pub fn populate<T>(buf: &mut [T]) {
    #[cfg(target_os = "linux")]
    {
        let page = 4096;
        let from = buf.as_ptr() as usize;
        let start = from.div_ceil(page) * page;
        let end = (from + std::mem::size_of_val(buf)) / page * page;
        if end > start {
            // SAFETY: the range lies inside `buf`; populating pages changes no contents.
            unsafe {
                libc::madvise(
                    start as *mut libc::c_void,
                    end - start,
                    libc::MADV_POPULATE_WRITE,
                )
            };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = buf;
}

/// Below this the allocator hands out memory it already has; only large buffers are fresh.
const PREFAULT_FROM: usize = 256 * 1024;

/// Most buffers kept for reuse, and most bytes they hold together: an agent reading large
/// results keeps at most this much mapped between calls.
const SPARE_COUNT: usize = 2;
const SPARE_BYTES: usize = 16 << 20;

/// Mapped buffers for the next large results.
static SPARES: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

fn spares() -> std::sync::MutexGuard<'static, Vec<String>> {
    SPARES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Whether `spare` suits a result of `capacity` bytes: room enough, and not more than four
/// times too large (a small result must not pin a big buffer in V8 for its lifetime).
fn fits(spare: &String, capacity: usize) -> bool {
    (capacity..=capacity.saturating_mul(4)).contains(&spare.capacity())
}

/// Takes the smallest spare buffer that [`fits`] a result of `capacity` bytes.
fn spare(capacity: usize) -> Option<String> {
    take_fitting(&mut spares(), capacity)
}

fn take_fitting(spares: &mut Vec<String>, capacity: usize) -> Option<String> {
    let best = spares
        .iter()
        .enumerate()
        .filter(|(_, s)| fits(s, capacity))
        .min_by_key(|(_, s)| s.capacity())
        .map(|(i, _)| i)?;
    Some(spares.swap_remove(best))
}

/// Adds `buffer` to the spares (if it is in the size range kept), then frees spares
/// beyond the bounds, the oldest first.
fn add(spares: &mut Vec<String>, mut buffer: String) {
    if !(PREFAULT_FROM..=SPARE_BYTES).contains(&buffer.capacity()) {
        return;
    }
    buffer.clear();
    spares.push(buffer);
    while spares.len() > SPARE_COUNT
        || spares.iter().map(String::capacity).sum::<usize>() > SPARE_BYTES
    {
        spares.remove(0);
    }
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
    fn spare_buffers_fit_and_stay_within_bounds() {
        const K: usize = 1024;
        let mut spares = Vec::new();
        // Too small to be worth keeping, or over the byte bound: freed.
        add(&mut spares, String::with_capacity(PREFAULT_FROM - 1));
        add(&mut spares, String::with_capacity(SPARE_BYTES + 1));
        assert!(spares.is_empty());
        let mut text = String::with_capacity(1000 * K);
        text.push_str("old result");
        add(&mut spares, text);
        // Kept empty; too small for a larger result, too large (over 4×) for a small one.
        assert!(spares[0].is_empty());
        assert!(take_fitting(&mut spares, 1001 * K).is_none());
        assert!(take_fitting(&mut spares, 249 * K).is_none());
        add(&mut spares, String::with_capacity(600 * K));
        // The smallest that fits, once.
        assert!(take_fitting(&mut spares, 500 * K).unwrap().capacity() >= 600 * K);
        assert!(take_fitting(&mut spares, 500 * K).unwrap().capacity() >= 1000 * K);
        assert!(take_fitting(&mut spares, 500 * K).is_none());
        // At most SPARE_COUNT buffers and SPARE_BYTES bytes: the oldest go first.
        for cap in [300 * K, 400 * K, 500 * K] {
            add(&mut spares, String::with_capacity(cap));
        }
        assert_eq!(spares.len(), SPARE_COUNT);
        assert!(spares[0].capacity() < 500 * K && spares[1].capacity() >= 500 * K);
        add(&mut spares, String::with_capacity(SPARE_BYTES - 100 * K));
        assert_eq!(spares.len(), 1);
        assert!(spares[0].capacity() >= SPARE_BYTES - 100 * K);
    }

    #[test]
    fn suffix_starts_on_boundary() {
        assert_eq!(utf8_suffix("aé", 1), "");
        assert_eq!(utf8_suffix("aé", 2), "é");
    }
}
