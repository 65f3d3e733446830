//! One session's entry in the registry: its shell and what it keeps between calls, and the
//! ways an entry ends (idle expiry, eviction, `endShellSessions`) or (re)starts its shell.

use super::shell::{self, Shell};
use super::{script, Registry, SessionOutcome, State};
use crate::process::{Ending, Outcome};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};

/// A session of the registry.
pub(super) struct Entry {
    pub(super) slot: Arc<tokio::sync::Mutex<Slot>>,
    /// The table's tick at the last use (least recently used: the smallest).
    pub(super) used: AtomicU64,
    /// The running shell's pid and marker (`CLARVIS_SESSION_ID`), to kill a busy session.
    pub(super) live: Mutex<Option<(u32, String)>>,
    /// Removed from the table: a call that waited for it looks the name up again.
    pub(super) closed: AtomicBool,
    /// The working directory after the last call, readable while a command runs.
    pub(super) cwd: Mutex<Option<PathBuf>>,
}

/// What a session keeps between calls.
#[derive(Default)]
pub(super) struct Slot {
    pub(super) shell: Option<Shell>,
    pub(super) cwd: Option<PathBuf>,
    pub(super) exports: Option<String>,
    pub(super) xtrace: bool,
}

impl Entry {
    /// The running shell's pid and marker.
    pub(super) fn live(&self) -> Option<(u32, String)> {
        self.live.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Records the running shell (`None`: none runs).
    pub(super) fn set_live(&self, live: Option<(u32, String)>) {
        *self.live.lock().unwrap_or_else(|p| p.into_inner()) = live;
    }

    /// A new entry, used at `tick`.
    pub(super) fn new(tick: u64) -> Entry {
        Entry {
            slot: Arc::new(tokio::sync::Mutex::new(Slot::default())),
            used: AtomicU64::new(tick),
            live: Mutex::new(None),
            closed: AtomicBool::new(false),
            cwd: Mutex::new(None),
        }
    }
}

/// Ends `entry` if it is still unused since `stamp` and idle.
pub(super) async fn expire(registry: Weak<Registry>, entry: Weak<Entry>, stamp: u64) {
    let (Some(registry), Some(entry)) = (registry.upgrade(), entry.upgrade()) else {
        return;
    };
    let Ok(mut slot) = entry.slot.try_lock() else {
        return;
    };
    if entry.used.load(Ordering::SeqCst) != stamp {
        return;
    }
    entry.closed.store(true, Ordering::SeqCst);
    registry.lock().map.retain(|_, e| !Arc::ptr_eq(e, &entry));
    if let Some(sh) = slot.shell.take() {
        sh.end().await;
    }
}

/// Ends a removed entry's shell: at once when idle; when a command is running, its session's
/// processes are killed under it (the call then reports the session ended).
pub(super) async fn end_entry(e: &Entry) {
    match e.slot.try_lock() {
        Ok(mut slot) => {
            if let Some(sh) = slot.shell.take() {
                sh.end().await;
            }
        }
        Err(_) => {
            if let Some((pid, marker)) = e.live() {
                let _ =
                    tokio::task::spawn_blocking(move || shell::kill_session(pid, &marker, false))
                        .await;
            }
        }
    }
}

/// Starts the slot's shell in `root`, restoring the slot's working directory and exported
/// variables when `restore`.
pub(super) async fn start(
    entry: &Entry,
    slot: &mut Slot,
    root: &Path,
    sandbox: Option<&crate::sandbox::Sandbox>,
    restore: bool,
) -> std::io::Result<()> {
    // Each shell of a session gets its own marker: a sweep for a shell that was replaced
    // (one still running on another thread after the old shell was dropped) must never reach
    // its successor.
    let mut sh = Shell::spawn(root, &crate::atomic::unique_id(), sandbox)?;
    entry.set_live(Some((sh.pid(), sh.session_id.clone())));
    if restore {
        if let Some(cwd) = &slot.cwd {
            let text = script::restore(slot.exports.as_deref(), &cwd.to_string_lossy());
            sh.send(&text).await?;
        }
    } else {
        *slot = Slot::default();
    }
    slot.xtrace = false;
    slot.shell = Some(sh);
    Ok(())
}

pub(super) fn path_of(bytes: Vec<u8>) -> PathBuf {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStringExt;
        PathBuf::from(std::ffi::OsString::from_vec(bytes))
    }
    #[cfg(not(unix))]
    PathBuf::from(String::from_utf8_lossy(&bytes).into_owned())
}

pub(super) fn aborted_waiting() -> SessionOutcome {
    SessionOutcome {
        outcome: Outcome {
            ending: Ending::Aborted,
            stdout: String::new(),
            stderr: String::new(),
            killed_by: None,
            captured: None,
        },
        state: State::Kept,
        cwd: None,
    }
}
