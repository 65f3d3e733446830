//! Reading a monitor's log: the head `ready_when` is tested against, and `monitor_poll`'s
//! page with partial-line hold-back, `match` filtering and the "more buffered" footer.

use super::{exit_status, file, running, Sidecar};
use crate::jsregex::JsRegex;
use crate::output::utf8_prefix;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// Up to `max` bytes of `path` from `offset`, and the file's size.
fn read_range(path: &Path, offset: u64, max: u64) -> (Vec<u8>, u64) {
    let Ok(mut f) = std::fs::File::open(path) else {
        return (Vec::new(), 0);
    };
    let size = f.metadata().map(|m| m.len()).unwrap_or(0);
    let start = offset.min(size);
    if f.seek(SeekFrom::Start(start)).is_err() {
        return (Vec::new(), size);
    }
    let mut buf = Vec::with_capacity(usize::try_from((size - start).min(max)).unwrap_or(0));
    let _ = (&mut f).take(max).read_to_end(&mut buf);
    (buf, size)
}

/// Bytes cut back to the last complete UTF-8 character (a character cut by the read is held
/// back for the next poll); invalid bytes inside are shown as U+FFFD.
fn complete_utf8(buf: &[u8]) -> (String, usize) {
    let mut end = buf.len();
    // A trailing incomplete sequence is at most 3 bytes.
    for back in 1..=3.min(buf.len()) {
        let i = buf.len() - back;
        let b = buf[i];
        if b & 0xC0 == 0x80 {
            continue;
        }
        let need = if b >= 0xF0 {
            4
        } else if b >= 0xE0 {
            3
        } else if b >= 0xC0 {
            2
        } else {
            1
        };
        if need > back {
            end = i;
        }
        break;
    }
    (String::from_utf8_lossy(&buf[..end]).into_owned(), end)
}

/// The head of the log `ready_when` is tested against: its first `max` bytes (cut on a
/// character boundary).
pub fn ready_head(root: &Path, id: &str, max: u64) -> String {
    let (buf, _) = read_range(&file(root, id, "log"), 0, max);
    let text = String::from_utf8_lossy(&buf).into_owned();
    utf8_prefix(&text, usize::try_from(max).unwrap_or(usize::MAX)).to_string()
}

/// One `monitor_poll` answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Polled {
    /// Whether the process is still running.
    pub running: bool,
    /// The page (filtered by `match`, with the footer when more is buffered).
    pub output: String,
    /// Where the next poll should start.
    pub next_offset: u64,
    /// The natural exit code, `None` while running or after a kill.
    pub exit_code: Option<i64>,
}

/// Reads from `offset` (clamped to the log) at most `max` bytes. When nothing more is
/// buffered and the process still runs, a trailing partial line is held back (unless it is
/// the only line); then `filter` keeps the matching lines.
pub fn poll(root: &Path, s: &Sidecar, offset: u64, max: u64, filter: Option<&JsRegex>) -> Polled {
    let alive = running(root, s);
    let (buf, size) = read_range(&file(root, &s.id, "log"), offset, max);
    let start = offset.min(size);
    // More is buffered when the page was cut by `max`, not when a line is held back.
    let more = start + (buf.len() as u64) < size;
    let (mut text, mut used) = complete_utf8(&buf);
    let mut next = start + used as u64;
    if next >= size && alive && text.contains('\n') && !text.ends_with('\n') {
        if let Some(nl) = text.rfind('\n') {
            used = nl + 1;
            text.truncate(used);
            next = start + used as u64;
        }
    }
    let mut output = match filter {
        None => text,
        Some(re) => {
            let mut lines: Vec<&str> = text.split('\n').collect();
            if lines.last() == Some(&"") {
                lines.pop();
            }
            lines
                .into_iter()
                .filter(|l| re.is_match(l))
                .collect::<Vec<_>>()
                .join("\n")
        }
    };
    if more {
        output.push_str(&format!(
            "\n[... more output buffered; continue with offset={next} ...]"
        ));
    }
    Polled {
        running: alive,
        output,
        next_offset: next,
        exit_code: if alive {
            None
        } else {
            exit_status(root, &s.id).flatten()
        },
    }
}

#[cfg(test)]
mod tests {
    use super::complete_utf8;

    #[test]
    fn a_cut_character_is_held_back() {
        let s = "ab\u{e9}".as_bytes();
        assert_eq!(complete_utf8(&s[..3]), ("ab".to_string(), 2));
        assert_eq!(complete_utf8(s), ("ab\u{e9}".to_string(), 4));
        let emoji = "x\u{1F600}".as_bytes();
        assert_eq!(complete_utf8(&emoji[..4]).1, 1);
    }
}
