//! Reading a monitor's log: the head `ready_when` is tested against, and `monitor_poll`'s
//! page with partial-line hold-back, `match` filtering, the "more buffered" footer and the
//! "dropped" line when the rolling log no longer holds the requested offset.
//!
//! Offsets are those of the whole output: the log holds the window from `dropped` (the relay's
//! state file) on. A read takes the log's shared lock (`super::lock`), so the relay cannot move the window
//! between reading `dropped` and reading the bytes.

use super::relay;
use super::{exit_status, file, running, Input, Sidecar};
use crate::jsregex::JsRegex;
use crate::terminal::clean;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// A read of the log: `bytes` from logical offset `start`, with the log's logical `end` and
/// the logical offset of its first byte (`dropped`).
struct Range {
    bytes: Vec<u8>,
    start: u64,
    end: u64,
    dropped: u64,
}

/// Up to `max` bytes of the monitor's output from logical `offset` (clamped to what the log
/// holds).
fn read_range(root: &Path, id: &str, offset: u64, max: u64) -> Range {
    let empty = |dropped| Range {
        bytes: Vec::new(),
        start: dropped,
        end: dropped,
        dropped,
    };
    let Ok(f) = std::fs::File::open(file(root, id, "log")) else {
        return empty(0);
    };
    let _lock = super::lock::shared(&f);
    let dropped = relay::read_state(&file(root, id, "state")).dropped;
    let size = f.metadata().map(|m| m.len()).unwrap_or(0);
    let phys = offset.saturating_sub(dropped).min(size);
    if (&f).seek(SeekFrom::Start(phys)).is_err() {
        return empty(dropped);
    }
    let mut bytes = Vec::with_capacity(usize::try_from((size - phys).min(max)).unwrap_or(0));
    let _ = (&f).take(max).read_to_end(&mut bytes);
    Range {
        bytes,
        start: dropped + phys,
        end: dropped + size,
        dropped,
    }
}

/// The logical offset just past the output written so far (the log's end).
pub fn end_offset(root: &Path, id: &str) -> u64 {
    let Ok(f) = std::fs::File::open(file(root, id, "log")) else {
        return 0;
    };
    let _lock = super::lock::shared(&f);
    let dropped = relay::read_state(&file(root, id, "state")).dropped;
    dropped + f.metadata().map(|m| m.len()).unwrap_or(0)
}

/// Up to `max` bytes of the output from logical `offset` (clamped to what the log holds), and
/// the logical offset they start at (later than `offset` when the log dropped what was there).
pub fn bytes_from(root: &Path, id: &str, offset: u64, max: u64) -> (Vec<u8>, u64) {
    let r = read_range(root, id, offset, max);
    (r.bytes, r.start)
}

/// While the monitor's shell is a zombie without an exit file, waits (at most a second) for
/// its reaper to write the file: a sandboxed shell's EXIT trap cannot write it, and its reaper
/// writes the code before reaping it (`spawn`), so "not running" never comes with a missing
/// exit code. (With the host gone, the relay moves the trap's code before it says it is done,
/// which `settle` waits for.)
fn await_exit_file(root: &Path, s: &Sidecar) {
    let until = std::time::Instant::now() + std::time::Duration::from_secs(1);
    while !super::exit_written(root, &s.id) && zombie(s.pid) && std::time::Instant::now() < until {
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

/// Whether `pid` is a zombie (exited, not yet reaped).
pub(super) fn zombie(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rfind(')')
            .and_then(|i| stat[i + 1..].split_ascii_whitespace().next())
            == Some("Z")
    })
}

/// After the monitor's shell exited, waits for the relay to write the output still in the
/// pipe, so a poll that says "not running" shows all of it. That is certain once no process
/// but the relay holds the pipe, so then the wait is as long as the relay takes, however
/// loaded the machine; while a background child of the monitor keeps the pipe open (it may
/// never close it), the wait gives up after 300 ms.
pub fn settle(root: &Path, s: &Sidecar) {
    let path = file(root, &s.id, "state");
    let tty = match &s.input {
        Input::Terminal { path, .. } => path.as_str(),
        _ => "",
    };
    let short = std::time::Instant::now() + std::time::Duration::from_millis(300);
    let mut certain = false;
    loop {
        let state = relay::read_state(&path);
        let Some(pid) = state.relay.filter(|&p| relay::is_relay(p, &path)) else {
            // No relay (any more): nothing more will be written.
            return;
        };
        if state.done {
            relay::exited(pid, &path);
            return;
        }
        if !certain && std::time::Instant::now() >= short {
            if relay::pipe_shared(pid, tty) {
                return;
            }
            certain = true;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}

/// Where the bytes end once cut back to the last complete UTF-8 character (a character cut
/// by the read is held back for the next poll).
fn complete_end(buf: &[u8]) -> usize {
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
    end
}

/// The head of the log `ready_when` is tested against: its first `max` bytes (cut on a
/// character boundary), and the logical offset just after it.
/// A terminal monitor's head is its text (escapes removed, see [`crate::terminal::clean`]).
pub fn ready_head(root: &Path, s: &Sidecar, max: u64) -> (String, u64) {
    let r = read_range(root, &s.id, 0, max);
    // Offsets count the log's bytes: cut on them, then show invalid ones as U+FFFD.
    let mut end = complete_end(&r.bytes);
    let head = if s.input.terminal().is_some() {
        end -= clean::unfinished_escape(&r.bytes[..end]);
        clean::clean(&r.bytes[..end])
    } else {
        String::from_utf8_lossy(&r.bytes[..end]).into_owned()
    };
    (head, r.start + end as u64)
}

/// The last `max` bytes the log holds, as text (what the sandbox note judges a failed
/// monitor by: the denial is near the end, and may lie on an earlier page than the last).
pub fn tail(root: &Path, id: &str, max: u64) -> String {
    let end = read_range(root, id, u64::MAX, 0).end;
    let r = read_range(root, id, end.saturating_sub(max), max);
    String::from_utf8_lossy(&r.bytes).into_owned()
}

/// How a page of output is shown.
#[derive(Clone, Copy, Default)]
pub struct View<'a> {
    /// `match`: keep only the lines it matches.
    pub filter: Option<&'a JsRegex>,
    /// Show a terminal's output as text: escapes removed, carriage-return rewrites collapsed
    /// (`monitor_poll` on a terminal monitor without `raw`).
    pub clean: bool,
    /// Show a trailing partial line (a prompt) rather than hold it back while the program
    /// runs (`monitor_write`: the prompt is the answer).
    pub partial: bool,
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
    /// Bytes between the requested offset and the oldest byte the rolling log still holds.
    pub dropped: u64,
    /// The logical offset the page starts at.
    pub start: u64,
    /// Whether the page reaches the end of the log (nothing more buffered, nothing held back).
    pub at_end: bool,
}

/// Reads from `offset` (clamped to the log) at most `max` bytes. When nothing more is
/// buffered and the process still runs, a trailing partial line is held back (unless it is
/// the only line); then `filter` keeps the matching lines.
pub fn poll(root: &Path, s: &Sidecar, offset: u64, max: u64, view: View<'_>) -> Polled {
    let alive = running(root, s);
    if !alive {
        await_exit_file(root, s);
        settle(root, s);
    }
    let Range {
        bytes: buf,
        start,
        end: size,
        dropped,
    } = read_range(root, &s.id, offset, max);
    let lost = start.saturating_sub(offset.min(size));
    // More is buffered when the page was cut by `max`, not when a line is held back.
    let more = start + (buf.len() as u64) < size;
    let mut buf = buf;
    let mut used = complete_end(&buf);
    // On bytes, before any U+FFFD replacement: offsets count the log's bytes.
    if !view.partial && start + used as u64 >= size && alive && buf[..used].last() != Some(&b'\n') {
        if let Some(nl) = memchr::memrchr(b'\n', &buf[..used]) {
            used = nl + 1;
        }
    }
    if view.clean && (alive || more) {
        // A sequence cut by the page (or still being written) is read whole next time —
        // unless it fills the page, which must move on.
        let cut = clean::unfinished_escape(&buf[..used]);
        if cut < used || !more {
            used -= cut;
        }
    }
    buf.truncate(used);
    let next = start + used as u64;
    let text = if view.clean {
        clean::clean(&buf)
    } else {
        String::from_utf8(buf)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    };
    let mut output = match view.filter {
        None => text,
        Some(re) => {
            let mut lines: Vec<&str> = text.split('\n').collect();
            if lines.last() == Some(&"") {
                lines.pop();
            }
            lines
                .into_iter()
                // A line the pattern cannot decide within its budget is kept: the filter
                // never hides output it could not judge.
                .filter(|l| re.is_match(l) != Ok(false))
                .collect::<Vec<_>>()
                .join("\n")
        }
    };
    if more {
        output.push_str(&format!(
            "\n[... more output buffered; continue with offset={next} ...]"
        ));
    }
    if lost > 0 {
        output.insert_str(
            0,
            &format!("[... {lost} bytes of output dropped: the log keeps only the most recent output; this starts at offset={dropped} ...]\n"),
        );
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
        dropped: lost,
        start,
        at_end: next >= size,
    }
}

/// The log's text (invalid UTF-8 as U+FFFD) from `margin` bytes before logical offset
/// `from` to `margin` bytes after `to`: the source a page of it is judged on when
/// redacting (a key block whose BEGIN line an earlier poll showed).
pub fn around(root: &Path, id: &str, from: u64, to: u64, margin: u64) -> String {
    let start = from.saturating_sub(margin);
    let len = to.saturating_sub(start).saturating_add(margin);
    let r = read_range(root, id, start, len);
    String::from_utf8_lossy(&r.bytes).into_owned()
}

#[cfg(test)]
mod tests {
    use super::complete_end;

    #[test]
    fn a_cut_character_is_held_back() {
        let s = "ab\u{e9}".as_bytes();
        assert_eq!(complete_end(&s[..3]), 2);
        assert_eq!(complete_end(s), 4);
        let emoji = "x\u{1F600}".as_bytes();
        assert_eq!(complete_end(&emoji[..4]), 1);
        assert_eq!(complete_end(b"a\xffb"), 3);
    }
}
