//! Terminals: what a monitor started with `tty` (or `stdin`) needs beyond its log — the
//! pseudo-terminal it runs on, the host's end of its input, the named keys, its output as
//! text without escape sequences, and its screen as a terminal emulator shows it.
//!
//! The live part is [`Terminals`], a service of the tools object (`Runtime::terminals`): the
//! input ends of the monitors this tools object started, and the emulators of the screens it
//! was asked for. Everything else about a monitor stays on disk (`process::monitor`), so
//! another tools object — or a new host after this one exited — still lists, polls, reads
//! the screen of and stops it; only input needs the end this object holds.
//!
//! Platforms: every Unix (a pseudo-terminal from `posix_openpt`, a pipe for `stdin`);
//! Windows 10 1809 and later, `tty` only (a pseudo console, ConPTY: [`conpty`], its output
//! copied to the log by a relay thread of the host, its tree in a Job Object). A stdin pipe
//! is refused there with `invalid_input` (Windows monitors have no relay process to hold it),
//! and a Windows without ConPTY refuses `tty` with `io_error` saying so.

pub mod clean;
pub mod cmdline;
#[cfg(windows)]
pub mod conpty;
pub mod input;
pub mod keys;
#[cfg(unix)]
pub mod pty;
pub mod screen;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// A terminal's size in character cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Size {
    /// Columns.
    pub cols: u16,
    /// Rows.
    pub rows: u16,
}

/// `tty: true`: 120 columns, 40 rows.
pub const DEFAULT_SIZE: Size = Size {
    cols: 120,
    rows: 40,
};

/// The widest terminal a monitor may have (the emulator's memory grows with the cells).
pub const MAX_COLS: u16 = 500;
/// The tallest terminal a monitor may have.
pub const MAX_ROWS: u16 = 200;
/// The smallest width and height.
pub const MIN_SIDE: u16 = 2;

/// What this tools object keeps for one monitor.
#[derive(Debug, Default)]
pub struct Entry {
    /// The host's end of its input (`None`: a monitor this object did not start, whose
    /// screen it was asked for).
    pub input: Option<input::Writer>,
    /// Its screen's emulator, made on the first look.
    pub screen: Mutex<Option<screen::Screen>>,
    /// The furthest `next_offset` this object has answered with for the monitor
    /// (`monitor_start`, `monitor_poll`, `monitor_write`): a `monitor_write` that sends
    /// nothing answers from here, so a prompt that came before the call is not missed.
    pub delivered: AtomicU64,
}

/// The live terminals of one tools object, by monitor id. Dropping it closes the host's input
/// ends: a monitor on a terminal keeps running (the relay holds the terminal; on Windows the
/// reaper thread holds a copy of the console's input until the console closes), one with a
/// stdin pipe reads end of file.
#[derive(Debug, Default)]
pub struct Terminals {
    map: Mutex<HashMap<String, Arc<Entry>>>,
}

impl Terminals {
    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Entry>>> {
        self.map.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Keeps the input end of monitor `id`, just started.
    pub fn attach(&self, id: &str, input: input::Writer) {
        self.map().insert(
            id.to_string(),
            Arc::new(Entry {
                input: Some(input),
                screen: Mutex::new(None),
                delivered: AtomicU64::new(0),
            }),
        );
    }

    /// What is kept for `id`, if anything.
    pub fn get(&self, id: &str) -> Option<Arc<Entry>> {
        self.map().get(id).cloned()
    }

    /// What is kept for `id`, made empty (no input, no screen yet) if there was nothing.
    pub fn entry(&self, id: &str) -> Arc<Entry> {
        Arc::clone(self.map().entry(id.to_string()).or_default())
    }

    /// Notes that an answer about monitor `id` ended at log offset `next` (only for a monitor
    /// with an entry: one this object gives input to or has drawn).
    pub fn delivered(&self, id: &str, next: u64) {
        if let Some(e) = self.get(id) {
            e.delivered.fetch_max(next, Ordering::SeqCst);
        }
    }

    /// Where the output no answer of this object has shown yet starts, for monitor `id`.
    pub fn unread_from(&self, id: &str) -> Option<u64> {
        self.get(id).map(|e| e.delivered.load(Ordering::SeqCst))
    }

    /// Drops what is kept for `id` (the monitor was stopped).
    pub fn forget(&self, id: &str) {
        self.map().remove(id);
    }

    /// Drops every entry whose monitor `exists` says is gone (stopped or swept by another
    /// tools object), so the registry holds at most what the state directory does.
    pub fn retain(&self, exists: impl Fn(&str) -> bool) {
        self.map().retain(|id, _| exists(id));
    }

    /// How many monitors have an entry.
    pub fn len(&self) -> usize {
        self.map().len()
    }

    /// Whether no monitor has an entry.
    pub fn is_empty(&self) -> bool {
        self.map().is_empty()
    }
}
