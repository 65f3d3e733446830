//! A terminal's output as text: escape sequences removed and each line shown as it ends up
//! on the screen — a progress bar redrawn with carriage returns collapses to its last state,
//! erased parts of a line are gone, backspaces take effect.
//!
//! A line is rendered like a terminal row: printing overwrites at the cursor's column, `CR`
//! returns to column 0, `BS` and the cursor-column sequences (`CUF`, `CUB`, `CHA`) move it,
//! `EL` erases, `ECH`/`DCH`/`ICH` erase, delete or insert characters; `LF` ends the line.
//! A move to another row (`CUP`, `CUU`, `CUD`, …) ends the current line too, so a full-screen
//! program's repaint reads as lines rather than one jumble (its screen is `monitor_screen`'s
//! job). Colours, modes, titles and every other sequence are dropped. `vte` — the parser
//! under `vt100` — reads the bytes, so both see the same sequences.

use vte::{Params, Parser, Perform};

/// Turns terminal output into text, incrementally: feed bytes with [`Cleaner::push`], take
/// the finished lines with [`Cleaner::take_lines`], and the whole text with
/// [`Cleaner::finish`].
#[derive(Default)]
pub struct Cleaner {
    parser: Parser,
    line: Line,
}

#[derive(Default)]
struct Line {
    /// The current row's characters, one per column.
    cells: Vec<char>,
    /// The cursor's column.
    col: usize,
    /// Finished lines, each ending in `\n`.
    out: String,
}

impl Cleaner {
    /// Feeds bytes.
    pub fn push(&mut self, bytes: &[u8]) {
        self.parser.advance(&mut self.line, bytes);
    }

    /// The lines finished since the last call (each with its `\n`).
    pub fn take_lines(&mut self) -> String {
        std::mem::take(&mut self.line.out)
    }

    /// Everything not taken yet: the finished lines and the unfinished one as it stands.
    pub fn finish(mut self) -> String {
        let mut out = std::mem::take(&mut self.line.out);
        out.extend(self.line.cells.iter());
        out
    }
}

/// `bytes` as text (see the module).
pub fn clean(bytes: &[u8]) -> String {
    let mut c = Cleaner::default();
    c.push(bytes);
    c.finish()
}

impl Line {
    fn end_line(&mut self) {
        self.out.extend(self.cells.iter());
        self.out.push('\n');
        self.cells.clear();
        self.col = 0;
    }

    /// Ends the line when it holds something (a move to another row), keeping the column.
    fn leave_row(&mut self) {
        let col = self.col;
        if !self.cells.is_empty() {
            self.end_line();
        }
        self.col = col;
    }

    fn put(&mut self, c: char) {
        if self.col < self.cells.len() {
            self.cells[self.col] = c;
        } else {
            self.cells.resize(self.col, ' ');
            self.cells.push(c);
        }
        self.col += 1;
    }
}

/// A CSI parameter: its first value, with 0 or absent meaning `default`.
fn param(params: &Params, i: usize, default: usize) -> usize {
    params
        .iter()
        .nth(i)
        .and_then(|p| p.first().copied())
        .filter(|&v| v != 0)
        .map_or(default, usize::from)
}

impl Perform for Line {
    fn print(&mut self, c: char) {
        self.put(c);
    }

    fn execute(&mut self, byte: u8) {
        match byte {
            b'\n' | 0x0b | 0x0c => self.end_line(),
            b'\r' => self.col = 0,
            0x08 => self.col = self.col.saturating_sub(1),
            b'\t' => {
                if self.col >= self.cells.len() {
                    // At the end of the line (the usual case) the tab itself is kept.
                    self.cells.resize(self.col, ' ');
                    self.cells.push('\t');
                    self.col = self.cells.len();
                } else {
                    self.col = (self.col / 8 + 1) * 8;
                }
            }
            _ => {}
        }
    }

    fn csi_dispatch(&mut self, params: &Params, _inter: &[u8], ignore: bool, action: char) {
        if ignore {
            return;
        }
        let n = param(params, 0, 1);
        match action {
            'K' => match param(params, 0, 0) {
                0 => self.cells.truncate(self.col),
                1 => {
                    let end = (self.col + 1).min(self.cells.len());
                    self.cells[..end].fill(' ');
                }
                _ => self.cells.clear(),
            },
            'C' | 'a' => self.col += n,
            'D' => self.col = self.col.saturating_sub(n),
            'G' | '`' => self.col = n - 1,
            'X' => {
                let end = (self.col + n).min(self.cells.len());
                if self.col < end {
                    self.cells[self.col..end].fill(' ');
                }
            }
            // Deleting or inserting past the line's end changes nothing.
            'P' if self.col < self.cells.len() => {
                let end = (self.col + n).min(self.cells.len());
                self.cells.drain(self.col..end);
            }
            '@' if self.col < self.cells.len() => {
                let at = self.col;
                self.cells.splice(at..at, std::iter::repeat_n(' ', n));
            }
            'H' | 'f' => {
                self.leave_row();
                self.col = param(params, 1, 1) - 1;
            }
            'd' | 'A' | 'B' | 'e' => self.leave_row(),
            'E' | 'F' => {
                self.leave_row();
                self.col = 0;
            }
            _ => {}
        }
    }
}

/// How many bytes at the end of `bytes` are an escape sequence still being written (0 when
/// none): a page of the log that ends inside one leaves it for the next page, so the next
/// read does not start in the middle of a sequence and show its tail as text. Only the last
/// 4 KiB are looked at: a longer unfinished sequence (a huge title) is not held back.
pub fn unfinished_escape(bytes: &[u8]) -> usize {
    let window = &bytes[bytes.len().saturating_sub(4096)..];
    let Some(at) = memchr::memrchr(0x1b, window) else {
        return 0;
    };
    let seq = &window[at..];
    let done = match seq.get(1) {
        None => false,
        // CSI: parameters and intermediates, then a final byte.
        Some(b'[') => seq[2..].iter().any(|b| (0x40..=0x7e).contains(b)),
        // OSC and the other strings end with BEL or ST (ESC \ — whose ESC is a later one).
        Some(b']' | b'P' | b'_' | b'^' | b'X') => seq[2..].contains(&0x07),
        // An intermediate needs its final byte.
        Some(0x20..=0x2f) => seq[2..].iter().any(|b| !(0x20..=0x2f).contains(b)),
        Some(_) => true,
    };
    if done {
        0
    } else {
        seq.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_are_removed_and_lines_kept() {
        assert_eq!(
            clean(b"\x1b[1;31merror\x1b[0m: x\r\nok\r\n"),
            "error: x\nok\n"
        );
        assert_eq!(clean(b"\x1b]0;my title\x07prompt$ "), "prompt$ ");
        assert_eq!(clean(b"a\tb\n"), "a\tb\n");
        assert_eq!(
            clean("caf\u{e9} \u{1F600}\n".as_bytes()),
            "caf\u{e9} \u{1F600}\n"
        );
    }

    #[test]
    fn carriage_return_progress_collapses_to_its_last_state() {
        assert_eq!(clean(b" 10%\r 50%\r100%\ndone\n"), "100%\ndone\n");
        assert_eq!(clean(b"[#    ]\r\x1b[K[#####] ok\n"), "[#####] ok\n");
        assert_eq!(clean(b"downloading\rdone\n"), "doneloading\n");
        assert_eq!(clean(b"abc\x08\x08X\n"), "aXc\n");
        assert_eq!(clean(b"12345\r\x1b[2C\x1b[K\n"), "12\n");
        assert_eq!(clean(b"progress 3/3\x1b[2K\rfinished\n"), "finished\n");
    }

    #[test]
    fn a_move_to_another_row_ends_the_line() {
        assert_eq!(clean(b"\x1b[H\x1b[2Jtop\x1b[2;1Hsecond"), "top\nsecond");
        assert_eq!(clean(b"\x1b[3;5Hx"), "    x");
    }

    #[test]
    fn lines_can_be_taken_as_they_finish() {
        let mut c = Cleaner::default();
        c.push(b"one\r\ntw");
        assert_eq!(c.take_lines(), "one\n");
        c.push(b"o\x1b[3");
        assert_eq!(c.take_lines(), "");
        c.push(b"1mthree\r\n");
        assert_eq!(c.take_lines(), "twothree\n");
        c.push(b"4");
        assert_eq!(c.finish(), "4");
    }

    #[test]
    fn an_unfinished_sequence_at_the_end_is_found() {
        assert_eq!(unfinished_escape(b"text"), 0);
        assert_eq!(unfinished_escape(b"text\x1b"), 1);
        assert_eq!(unfinished_escape(b"text\x1b[1;3"), 5);
        assert_eq!(unfinished_escape(b"text\x1b[1;31m"), 0);
        assert_eq!(unfinished_escape(b"\x1b]0;tit"), 7);
        assert_eq!(unfinished_escape(b"\x1b]0;title\x07"), 0);
        assert_eq!(unfinished_escape(b"\x1b("), 2);
        assert_eq!(unfinished_escape(b"\x1b(B"), 0);
        assert_eq!(unfinished_escape(b"\x1b7"), 0);
    }
}
