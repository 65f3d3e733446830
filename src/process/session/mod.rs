//! Shell sessions: `bash { command, session }` runs the command in a named, persistent shell
//! of one tools object, so the working directory, variables, shell options, functions and
//! aliases carry over to the next call with the same name.
//!
//! The design, in short (SPEC "Shell sessions" has the whole of it):
//! - a session is one `sh -s` process ([`shell`]) reading scripts on its stdin, in its own
//!   process group and session, a subreaper, marked `CLARVIS_SESSION_ID=<id>` (fresh for each shell of the session), confined by
//!   the sandbox like a stateless command;
//! - each call gets two fresh named pipes (FIFOs) in the session's private directory and
//!   runs `{ command eval '<command>'; } </dev/null >|out 2>|err` in the shell itself
//!   ([`script`]): the command's stdout and stderr are exactly its own, whatever it prints,
//!   and nothing of ours is in them;
//! - completion is a report the shell writes on its own stdout — a channel no command
//!   writes to — framed by a random per-call nonce: exit status, options, working directory
//!   and `export -p` (kept to restore a restarted shell);
//! - an interruption (timeout, abort, output ceiling) kills the processes carrying the
//!   call's marker (`CLARVIS_CALL_ID`), leaving the shell and earlier calls' background
//!   processes alone; a shell that does not report within [`run::SETTLE`] is killed and
//!   restarted with its working directory and exported variables ([`run`]);
//! - at most `maxShellSessions` live at once: a new name past the limit ends the least
//!   recently used idle session, or fails when every session is running a command; a session
//!   idle for `shellSessionIdleMs` ends; all end with the tools object (dropping the
//!   [`Sessions`] kills every shell and what it started).

mod entry;
pub mod run;
pub mod script;
pub mod shell;

use crate::cancel::Cancel;
use crate::process::{Ending, Outcome, Request};
use entry::{aborted_waiting, end_entry, expire, path_of, start, Entry, Slot};
use run::Fate;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What became of the session in a call, as the result tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// A new shell ran the command (first call of the name, or after the last one ended).
    Started,
    /// The session's shell ran the command and lives on.
    Resumed,
    /// The shell was replaced — after an interruption it could not survive, or because it
    /// died while idle: the working directory and exported variables were restored.
    Restarted,
    /// The command was interrupted and the shell survived it.
    Kept,
    /// The shell exited during the command (`exit`, `set -e`, `exec`): the session is over.
    Ended,
}

impl State {
    /// `"started"`, `"resumed"`, `"restarted"`, `"kept"` or `"ended"`.
    pub fn as_str(self) -> &'static str {
        match self {
            State::Started => "started",
            State::Resumed => "resumed",
            State::Restarted => "restarted",
            State::Kept => "kept",
            State::Ended => "ended",
        }
    }
}

/// A call's outcome and what became of its session.
#[derive(Debug)]
pub struct SessionOutcome {
    /// The command's outcome, as a stateless call has it.
    pub outcome: Outcome,
    /// What became of the session.
    pub state: State,
    /// The session's working directory after the call (`None` once it ended).
    pub cwd: Option<PathBuf>,
}

/// Why a session call did not run.
#[derive(Debug)]
pub enum SessionError {
    /// The shell could not be started, or the command handed to it.
    Io(std::io::Error),
    /// Every one of the `maxShellSessions` sessions is running a command.
    Limit(u64),
}

/// One tools object's sessions.
pub struct Sessions {
    inner: Arc<Registry>,
}

struct Registry {
    max: u64,
    idle: Duration,
    table: Mutex<Table>,
}

#[derive(Default)]
struct Table {
    map: HashMap<String, Arc<Entry>>,
    tick: u64,
}

impl std::fmt::Debug for Sessions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sessions")
            .field("max", &self.inner.max)
            .field("idle", &self.inner.idle)
            .finish()
    }
}

impl Sessions {
    /// At most `max` live sessions; each ends after `idle_ms` unused.
    pub fn new(max: u64, idle_ms: u64) -> Sessions {
        Sessions {
            inner: Arc::new(Registry {
                max: max.max(1),
                idle: Duration::from_millis(idle_ms),
                table: Mutex::new(Table::default()),
            }),
        }
    }

    /// The working directory of session `name` after its last call, if it is live.
    pub fn cwd(&self, name: &str) -> Option<PathBuf> {
        let entry = self.inner.lock().map.get(name).cloned()?;
        let cwd = entry.cwd.lock().unwrap_or_else(|p| p.into_inner()).clone();
        cwd
    }

    /// How many sessions are live.
    pub fn len(&self) -> usize {
        self.inner.lock().map.len()
    }

    /// Whether no session is live.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Ends every session — a running command with it — and returns how many there were.
    /// Each one's processes are gone when it returns.
    pub async fn end_all(&self) -> usize {
        let entries: Vec<Arc<Entry>> = self.inner.lock().map.drain().map(|(_, e)| e).collect();
        for e in &entries {
            e.closed.store(true, Ordering::SeqCst);
            end_entry(e).await;
        }
        entries.len()
    }

    /// Runs `req.command` in session `name` (started in `req.cwd` when new; `cd`: a
    /// directory to change to first).
    pub async fn run(
        &self,
        name: &str,
        req: Request<'_>,
        cd: Option<&Path>,
        cancel: &Cancel,
        display: impl Fn(&Path) -> String,
    ) -> Result<SessionOutcome, SessionError> {
        let (entry, mut slot) = loop {
            let entry = self.entry(name).await?;
            let slot = tokio::select! {
                biased;
                _ = cancel.cancelled() => return Ok(aborted_waiting()),
                s = Arc::clone(&entry.slot).lock_owned() => s,
            };
            if !entry.closed.load(Ordering::SeqCst) {
                break (entry, slot);
            }
        };
        let slot = &mut *slot;
        let alive = slot.shell.as_mut().is_some_and(|sh| !sh.exited());
        let begin = match alive {
            true => State::Resumed,
            false => {
                // A shell that died while idle is replaced with its state restored.
                let old = slot.shell.take();
                let restore = old.is_some();
                if let Some(old) = old {
                    old.end().await;
                }
                match start(&entry, slot, req.cwd, req.sandbox, restore).await {
                    Ok(()) => {}
                    Err(e) => {
                        self.remove(name, &entry);
                        return Err(SessionError::Io(e));
                    }
                }
                if restore {
                    State::Restarted
                } else {
                    State::Started
                }
            }
        };
        let sandbox = req.sandbox;
        let root = req.cwd.to_path_buf();
        let shell = slot.shell.as_mut().expect("a shell was just made");
        let ran = run::run(shell, &req, cd, slot.xtrace, cancel, display).await;
        let (outcome, fate) = match ran {
            Ok(v) => v,
            Err(e) => {
                if let Some(sh) = slot.shell.take() {
                    sh.end().await;
                }
                self.remove(name, &entry);
                return Err(SessionError::Io(e));
            }
        };
        let interrupted = !matches!(outcome.ending, Ending::Exited { .. } | Ending::Failed(_));
        let state = match fate {
            Fate::Kept(report) => {
                slot.cwd = Some(path_of(report.cwd));
                slot.exports = report.exports;
                slot.xtrace = report.flags.contains('x');
                if interrupted {
                    State::Kept
                } else {
                    begin
                }
            }
            Fate::Exited => State::Ended,
            Fate::Killed if entry.closed.load(Ordering::SeqCst) => State::Ended,
            Fate::Killed => {
                slot.shell = None;
                match start(&entry, slot, &root, sandbox, true).await {
                    Ok(()) => State::Restarted,
                    Err(_) => State::Ended,
                }
            }
        };
        if state == State::Ended {
            if let Some(sh) = slot.shell.take() {
                sh.end().await;
            }
            *slot = Slot::default();
            entry.set_live(None);
            self.remove(name, &entry);
        } else {
            self.touch(&entry);
        }
        *entry.cwd.lock().unwrap_or_else(|p| p.into_inner()) =
            slot.shell.as_ref().and(slot.cwd.clone());
        Ok(SessionOutcome {
            outcome,
            state,
            cwd: slot.shell.as_ref().and(slot.cwd.clone()),
        })
    }

    /// The live entry for `name`, made when missing — past the limit, after ending the
    /// least recently used idle session.
    async fn entry(&self, name: &str) -> Result<Arc<Entry>, SessionError> {
        let evicted = {
            let mut t = self.inner.lock();
            if let Some(e) = t.map.get(name) {
                return Ok(Arc::clone(e));
            }
            let mut evicted = None;
            if t.map.len() as u64 >= self.inner.max {
                let idle = t
                    .map
                    .iter()
                    .filter(|(_, e)| e.slot.try_lock().is_ok())
                    .min_by_key(|(_, e)| e.used.load(Ordering::SeqCst))
                    .map(|(k, _)| k.clone());
                let Some(k) = idle else {
                    return Err(SessionError::Limit(self.inner.max));
                };
                evicted = t.map.remove(&k);
            }
            t.tick += 1;
            let entry = Arc::new(Entry::new(t.tick));
            t.map.insert(name.to_string(), Arc::clone(&entry));
            evicted
        };
        if let Some(e) = evicted {
            e.closed.store(true, Ordering::SeqCst);
            end_entry(&e).await;
        }
        Ok(Arc::clone(self.inner.lock().map.get(name).ok_or_else(
            || SessionError::Io(std::io::Error::other("the session was ended meanwhile")),
        )?))
    }

    fn remove(&self, name: &str, entry: &Arc<Entry>) {
        entry.closed.store(true, Ordering::SeqCst);
        let mut t = self.inner.lock();
        if t.map.get(name).is_some_and(|e| Arc::ptr_eq(e, entry)) {
            t.map.remove(name);
        }
    }

    /// Marks `entry` used now and arms its idle timer.
    fn touch(&self, entry: &Arc<Entry>) {
        let stamp = {
            let mut t = self.inner.lock();
            t.tick += 1;
            t.tick
        };
        entry.used.store(stamp, Ordering::SeqCst);
        let (registry, weak) = (Arc::downgrade(&self.inner), Arc::downgrade(entry));
        let idle = self.inner.idle;
        tokio::spawn(async move {
            tokio::time::sleep(idle).await;
            expire(registry, weak, stamp).await;
        });
    }
}

impl Registry {
    fn lock(&self) -> std::sync::MutexGuard<'_, Table> {
        self.table.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests;
