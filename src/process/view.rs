//! What the model sees of a command's output: the shared budget split and the head-and-tail
//! view of a stream that did not fit.
//!
//! stdout and stderr share `maxOutputBytes`. If both fit, both are shown whole; otherwise a
//! stream within half the budget keeps all of it and the other gets the rest; when both are
//! over half, stderr gets `floor(max / 2)` and stdout the rest. A stream over its budget is
//! shown as about one third head, a marker line, and about two thirds tail (errors and
//! summaries live at the end), the whole view — marker included — within the budget.
//! Pure functions, no I/O.

/// The byte budgets `(stdout, stderr)` for streams of `out` and `err` bytes sharing `max`.
///
/// ```
/// use clarvis_agent_tools::process::view::split_budget;
/// assert_eq!(split_budget(1000, 300, 400), (300, 400));
/// assert_eq!(split_budget(1000, 100, 5000), (100, 900));
/// assert_eq!(split_budget(1001, 5000, 5000), (501, 500));
/// ```
pub fn split_budget(max: u64, out: u64, err: u64) -> (u64, u64) {
    if out.saturating_add(err) <= max {
        return (out, err);
    }
    let half = max / 2;
    if out <= half {
        (out, max - out)
    } else if err <= half {
        (max - err, err)
    } else {
        (max - half, half)
    }
}

/// The truncation marker: `[... output truncated: <shown> of <total> bytes shown; full
/// output written to <path> ...]`, or without the file part when there is no spill file.
pub fn marker(shown: u64, total: u64, spill: Option<&str>) -> String {
    match spill {
        Some(p) => format!(
            "[... output truncated: {shown} of {total} bytes shown; full output written to {p} ...]"
        ),
        None => format!("[... output truncated: {shown} of {total} bytes shown ...]"),
    }
}

/// Renders one stream for a budget.
///
/// `head` holds the stream's first bytes and `tail` its last bytes (each at least
/// `min(total, budget)` long; when the stream fits, `head` is the whole stream). A stream
/// within its budget is returned whole. Otherwise the result is head, the [`marker`] on its
/// own line, then tail — cut at line breaks when that keeps at least half of each part,
/// else on UTF-8 boundaries — and no longer than `budget` bytes when the
/// budget can hold the marker. Invalid UTF-8 is shown with U+FFFD.
pub fn render(head: &[u8], tail: &[u8], total: u64, budget: u64, spill: Option<&str>) -> String {
    if total <= budget {
        let n = usize::try_from(total).unwrap_or(usize::MAX).min(head.len());
        return String::from_utf8_lossy(&head[..n]).into_owned();
    }
    // Reserve room for the widest marker this view can have (shown <= budget) and its two
    // line breaks, so the view as a whole stays within the budget.
    let reserve = marker(budget, total, spill).len() as u64 + 2;
    let content = usize::try_from(budget.saturating_sub(reserve)).unwrap_or(usize::MAX);
    let head_len = (content / 3).min(head.len());
    let tail_len = (content - content / 3).min(tail.len());
    let head_part = &head[..head_cut(head, head_len)];
    let tail_part = &tail[tail_cut(tail, tail.len() - tail_len)..];
    let shown = (head_part.len() + tail_part.len()) as u64;
    let mut out = String::from_utf8_lossy(head_part).into_owned();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&marker(shown, total, spill));
    out.push('\n');
    out.push_str(&String::from_utf8_lossy(tail_part));
    out
}

/// Where the head ends: after the last line break in `head[..len]` when that keeps at least
/// half of it (whole lines read better), else on a UTF-8 boundary.
fn head_cut(head: &[u8], len: usize) -> usize {
    match head[..len].iter().rposition(|&b| b == b'\n') {
        Some(p) if p + 1 >= len / 2 => p + 1,
        _ => utf8_floor(head, len),
    }
}

/// Where the tail starts: after the first line break in `tail[start..]` when that keeps at
/// least half of it, else on a UTF-8 boundary.
fn tail_cut(tail: &[u8], start: usize) -> usize {
    let window = &tail[start..];
    match window.iter().position(|&b| b == b'\n') {
        Some(q) if q < window.len() / 2 => start + q + 1,
        _ => utf8_ceil(tail, start),
    }
}

fn is_continuation(b: u8) -> bool {
    b & 0xC0 == 0x80
}

/// The largest cut `<= at` that does not split a UTF-8 sequence (at most 3 bytes back, so
/// invalid input cannot make it walk far).
fn utf8_floor(bytes: &[u8], at: usize) -> usize {
    let mut i = at;
    while i > 0 && i < bytes.len() && at - i < 3 && is_continuation(bytes[i]) {
        i -= 1;
    }
    if i < bytes.len() && is_continuation(bytes[i]) {
        at
    } else {
        i
    }
}

/// The smallest cut `>= at` that does not split a UTF-8 sequence (at most 3 bytes forward).
fn utf8_ceil(bytes: &[u8], at: usize) -> usize {
    let mut i = at;
    while i < bytes.len() && i - at < 3 && is_continuation(bytes[i]) {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_fit() {
        assert_eq!(split_budget(1024, 1024, 0), (1024, 0));
        assert_eq!(split_budget(1024, 500, 524), (500, 524));
    }

    #[test]
    fn one_within_half_keeps_all_and_the_other_gets_the_rest() {
        assert_eq!(split_budget(1024, 512, 9000), (512, 512));
        assert_eq!(split_budget(1024, 9000, 10), (1014, 10));
        assert_eq!(split_budget(1024, 0, 2000), (0, 1024));
    }

    #[test]
    fn both_over_half_stderr_gets_the_floor() {
        assert_eq!(split_budget(1024, 600, 600), (512, 512));
        assert_eq!(split_budget(1025, 513, 513), (513, 512));
        assert_eq!(split_budget(131072, u64::MAX, u64::MAX), (65536, 65536));
    }

    #[test]
    fn whole_when_within_budget() {
        assert_eq!(render(b"abc", b"abc", 3, 3, None), "abc");
        assert_eq!(render(b"", b"", 0, 0, None), "");
    }

    #[test]
    fn head_marker_tail_within_budget() {
        let data: Vec<u8> = (0..10_000).map(|i| b"0123456789\n"[i % 11]).collect();
        let budget = 1000;
        let v = render(
            &data,
            &data,
            data.len() as u64,
            budget,
            Some(".clarvis/x.log"),
        );
        assert!(v.len() as u64 <= budget, "{} > {budget}", v.len());
        let lines: Vec<&str> = v.split('\n').collect();
        let m = lines
            .iter()
            .position(|l| l.starts_with("[... output truncated: "))
            .unwrap();
        assert!(
            lines[m].ends_with(" of 10000 bytes shown; full output written to .clarvis/x.log ...]")
        );
        let head = lines[..m].join("\n");
        let tail = lines[m + 1..].join("\n");
        assert!(data.starts_with(head.as_bytes()));
        // Cut at line breaks: whole lines on both sides.
        assert!(
            head.ends_with('9') && tail.starts_with("0123456789\n"),
            "{v}"
        );
        assert!(data.ends_with(tail.as_bytes()));
        // About one third head, two thirds tail.
        assert!(
            tail.len() > head.len() * 3 / 2,
            "head {} tail {}",
            head.len(),
            tail.len()
        );
        let shown: usize = lines[m]["[... output truncated: ".len()..]
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        // The line break before the marker may belong to the head (it was cut after one).
        let (h, t) = (head.len(), tail.len());
        assert!(
            shown == h + t || shown == h + t + 1,
            "shown {shown}, head {h}, tail {t}"
        );
    }

    #[test]
    fn shown_counts_head_and_tail_bytes() {
        let data = vec![b'x'; 5000];
        let v = render(&data, &data, 5000, 600, None);
        let m = marker(0, 0, None);
        assert!(m.len() < 100);
        let (head, rest) = v.split_once('\n').unwrap();
        let (mark, tail) = rest.split_once('\n').unwrap();
        assert_eq!(mark, marker((head.len() + tail.len()) as u64, 5000, None));
        assert!(v.len() <= 600);
    }

    #[test]
    fn never_splits_a_character() {
        let data = "é".repeat(3000).into_bytes();
        for budget in [700u64, 701, 702, 703] {
            let v = render(&data, &data, data.len() as u64, budget, None);
            assert!(!v.contains('\u{FFFD}'), "budget {budget}: {v}");
        }
    }

    #[test]
    fn invalid_utf8_is_replaced_not_dropped() {
        let data = vec![0xFFu8; 10];
        assert_eq!(render(&data, &data, 10, 10, None), "\u{FFFD}".repeat(10));
    }
}
