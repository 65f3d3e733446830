//! A terminal monitor's screen, brought up to date from its log (see
//! [`crate::terminal::screen`]).

use super::{end_offset, read, Sidecar};
use crate::terminal::screen::Screen;
use std::path::Path;

/// How much of the log one read feeds the emulator.
const CHUNK: u64 = 256 * 1024;

/// The most output an emulator is fed to catch up: when more than this arrived since it last
/// read, it starts afresh this far before the end. A terminal program repaints what it shows
/// well within it, and the log's window could be 16 MiB or more of a flood — feeding that
/// whole would make one look cost a second. (Measured: `vt100` takes about 60 MB/s here.)
pub const CATCH_UP_MAX: u64 = 4 * 1024 * 1024;

/// Feeds `slot`'s emulator (made when empty, resized to the sidecar's size) the output it has
/// not seen, and returns it. When the log no longer holds where it stopped (the window moved
/// on), or it is more than [`CATCH_UP_MAX`] behind, it starts over from a later point — a
/// fresh screen, as a terminal attached mid-stream would show.
pub fn refresh<'a>(root: &Path, s: &Sidecar, slot: &'a mut Option<Screen>) -> &'a mut Screen {
    let size = s.input.terminal().unwrap_or(crate::terminal::DEFAULT_SIZE);
    let end = end_offset(root, &s.id);
    let behind = slot
        .as_ref()
        .map_or(u64::MAX, |sc| end.saturating_sub(sc.fed));
    if slot.is_none() || behind > CATCH_UP_MAX {
        *slot = Some(Screen::new(size, end.saturating_sub(CATCH_UP_MAX)));
    }
    let screen = slot.get_or_insert_with(|| Screen::new(size, 0));
    if screen.size() != size {
        screen.resize(size);
    }
    while screen.fed < end {
        let (bytes, start) = read::bytes_from(root, &s.id, screen.fed, CHUNK.min(end - screen.fed));
        if bytes.is_empty() {
            break;
        }
        if start > screen.fed {
            // The window moved past what the emulator read: what is gone cannot be replayed.
            *screen = Screen::new(size, start);
        }
        screen.feed(&bytes);
    }
    screen
}
