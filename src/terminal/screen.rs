//! A terminal monitor's screen: its output fed through a terminal emulator (`vt100`), read
//! as the user of a real terminal would see it — rows of text, where the cursor is, the
//! window title, whether a full-screen program took the alternate screen.
//!
//! The emulator is fed lazily, from the log, by whoever asks for the screen; it remembers the
//! log offset it has read up to, so each look costs only what arrived since the last one.

use super::Size;
use std::num::NonZeroU16;

/// The longest title kept, in characters (a program can set any string).
const TITLE_MAX: usize = 256;

/// What the emulator reports beside the grid: the title.
#[derive(Debug, Default)]
struct Events {
    title: String,
}

impl vt100::Callbacks for Events {
    fn set_window_title(&mut self, _: &mut vt100::Screen, title: &[u8]) {
        self.title = String::from_utf8_lossy(title)
            .chars()
            .take(TITLE_MAX)
            .collect();
    }
}

/// An emulator and how far into the output it has read.
pub struct Screen {
    parser: vt100::Parser<Events>,
    size: Size,
    /// The output offset the emulator has consumed up to.
    pub fed: u64,
}

impl std::fmt::Debug for Screen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Screen")
            .field("size", &self.size)
            .field("fed", &self.fed)
            .finish()
    }
}

fn dim(n: u16) -> NonZeroU16 {
    NonZeroU16::new(n).unwrap_or(NonZeroU16::MIN)
}

/// What `monitor_screen` shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    /// The rows, top to bottom, trailing blanks removed (wide characters once).
    pub rows: Vec<String>,
    /// Cursor row and column, 0-based.
    pub cursor: (u16, u16),
    /// Whether the program shows the cursor.
    pub cursor_visible: bool,
    /// The window title the program set (OSC 0 or 2), `""` if none.
    pub title: String,
    /// Whether the alternate screen is in use (a full-screen program such as `vim`, `top`).
    pub alternate: bool,
}

impl Screen {
    /// A blank screen of `size` that has read the output up to `fed`.
    pub fn new(size: Size, fed: u64) -> Screen {
        Screen {
            parser: vt100::Parser::new_with_callbacks(
                dim(size.rows),
                dim(size.cols),
                0,
                Events::default(),
            ),
            size,
            fed,
        }
    }

    /// The screen's size.
    pub fn size(&self) -> Size {
        self.size
    }

    /// Feeds the output that follows what was fed.
    pub fn feed(&mut self, bytes: &[u8]) {
        self.parser.process(bytes);
        self.fed += bytes.len() as u64;
    }

    /// Resizes the screen (rows and columns cut or padded, as `vt100` does).
    pub fn resize(&mut self, size: Size) {
        self.parser.set_size(dim(size.rows), dim(size.cols));
        self.size = size;
    }

    /// Whether the program asked for application cursor keys (`ESC [ ? 1 h`).
    pub fn application_cursor(&self) -> bool {
        self.parser.screen().application_cursor()
    }

    /// The screen as it stands.
    pub fn snapshot(&self) -> Snapshot {
        let s = self.parser.screen();
        let (_, cols) = s.size();
        Snapshot {
            rows: s.rows(0, cols.get()).collect(),
            cursor: s.cursor_position(),
            cursor_visible: !s.hide_cursor(),
            title: self.parser.callbacks().title.clone(),
            alternate: s.alternate_screen(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_screen_shows_what_a_terminal_would() {
        let mut s = Screen::new(Size { cols: 20, rows: 4 }, 100);
        let out = b"\x1b]0;my title\x07hello\r\n\x1b[31mred\x1b[0m world\r\n50%\r99%";
        s.feed(out);
        let snap = s.snapshot();
        assert_eq!(snap.rows, vec!["hello", "red world", "99%", ""]);
        assert_eq!(snap.cursor, (2, 3));
        assert_eq!(snap.title, "my title");
        assert!(!snap.alternate);
        assert_eq!(s.fed, 100 + out.len() as u64);
        s.feed(b"\x1b[?1049h\x1b[?1h\x1b[H\x1b[2Jfull\x1b[?25l");
        let snap = s.snapshot();
        assert!(snap.alternate);
        assert!(!snap.cursor_visible);
        assert!(s.application_cursor());
        assert_eq!(snap.rows[0], "full");
        s.resize(Size { cols: 10, rows: 2 });
        assert_eq!(s.snapshot().rows.len(), 2);
    }
}
