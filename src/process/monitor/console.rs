//! Starting a terminal monitor on Windows: `sh -c` on a pseudo console (ConPTY,
//! [`crate::terminal::conpty`]) in a Job Object, its output copied into the rolling log by a
//! relay thread of the host ([`super::relay::thread`]), with the same files, sidecar and
//! environment (`TERM`, `COLUMNS`, `LINES`, `MON_EXIT`, the call marker) as on Unix.
//!
//! A pseudo console lives as long as the process that made it: the monitor runs while the
//! host does (Unix's relay process keeps it past the host; there is no such process here).
//! When the shell exits, the console is closed once its output has gone quiet (50 ms without
//! any, at most 2 s), which ends what the shell left attached to it — as a hangup ends a Unix
//! terminal's jobs — and makes the relay read end of file; the job, closed then, ends the
//! rest of its tree.

use super::{file, relay, save, Input, Sidecar, Started};
use crate::process::group::CALL_ID_VAR;
use crate::terminal::{cmdline, conpty, input, Size};
use std::collections::HashSet;
use std::ffi::OsString;
use std::io::{self, Read};
use std::path::Path;
use std::sync::{Arc, LazyLock, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The monitors of this process whose shell may have exited before their reaper wrote the exit
/// code. Windows keeps no zombie to mark that moment (Unix's poll waits on one), so without
/// this a Ctrl-C'd monitor would answer "not running" with no exit code until the reaper
/// writes its 130.
fn reapers() -> MutexGuard<'static, HashSet<String>> {
    static REAPING: LazyLock<Mutex<HashSet<String>>> = LazyLock::new(Default::default);
    REAPING.lock().unwrap_or_else(|e| e.into_inner())
}

/// Whether this process's reaper of monitor `id` has yet to settle its exit code (the monitor
/// counts as running until then, [`super::running`]).
pub(super) fn reaping(id: &str) -> bool {
    reapers().contains(id)
}

/// What `start` needs beyond the workspace: the command, its directory, its id.
pub(super) struct Request<'a> {
    pub root: &'a Path,
    pub cwd: &'a Path,
    pub command: &'a str,
    pub ready_when: Option<&'a str>,
    pub log_max: u64,
    pub id: String,
    pub size: Size,
    pub sh: &'a Path,
}

/// Starts the monitor; on a failure nothing of it is left (no file, no process).
pub(super) fn start(r: Request<'_>) -> io::Result<Started> {
    let remove = || {
        for ext in ["log", "state"] {
            let _ = std::fs::remove_file(file(r.root, &r.id, ext));
        }
    };
    let log = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .open(file(r.root, &r.id, "log"))?;
    let state_path = file(r.root, &r.id, "state");
    let state = relay::create_state(&state_path).inspect_err(|_| remove())?;
    let env = cmdline::environment(
        std::env::vars_os(),
        &[
            ("MON_EXIT", file(r.root, &r.id, "exit").into_os_string()),
            (CALL_ID_VAR, OsString::from(&r.id)),
            ("TERM", OsString::from("xterm-256color")),
            ("COLUMNS", OsString::from(r.size.cols.to_string())),
            ("LINES", OsString::from(r.size.rows.to_string())),
        ],
        &["CDPATH"],
    );
    let args = [
        r.sh.as_os_str().to_owned(),
        OsString::from("-c"),
        OsString::from(super::spawn::script(r.command, true)),
    ];
    let s = conpty::spawn(&args, r.cwd, &env, r.size, &r.id).inspect_err(|_| remove())?;
    let last = Arc::new(Mutex::new(Instant::now()));
    let output = Watched {
        inner: s.output,
        last: Arc::clone(&last),
    };
    let (done_tx, done_rx) = std::sync::mpsc::channel();
    let relayed = relay::thread::spawn(output, log, state, state_path, r.log_max, move || {
        let _ = done_tx.send(());
    });
    if let Err(e) = relayed {
        conpty::terminate_job(&r.id, s.pid);
        remove();
        return Err(e);
    }
    let exit_file = file(r.root, &r.id, "exit");
    // A copy of the input's write end lives as long as the console: the tools object that
    // holds the other may be dropped while the monitor runs, and the console host would end
    // the session when its input closes (a Unix terminal monitor outlives its tools object).
    let held_input = s.input.try_clone();
    let (console, job, process) = (Arc::clone(&s.console), s.job, s.process);
    let id = r.id.clone();
    reapers().insert(id.clone());
    let reaper = std::thread::Builder::new()
        .name("clarvis-monitor-reaper".into())
        .spawn(move || {
            let code = conpty::wait(&process);
            // Ctrl-C ended the shell (no EXIT trap runs then): 130, as on Unix.
            if code == Some(conpty::CONTROL_C_EXIT) && !super::line_written(&exit_file) {
                let _ = std::fs::write(&exit_file, "130\n");
            }
            reapers().remove(&id);
            let until = Instant::now() + Duration::from_secs(2);
            while Instant::now() < until
                && done_rx.try_recv().is_err()
                && last.lock().map(|t| t.elapsed()).unwrap_or_default() < Duration::from_millis(50)
            {
                std::thread::sleep(Duration::from_millis(5));
            }
            console.close();
            drop((job, held_input));
        });
    if reaper.is_err() {
        // Nobody will settle its code: let `running` go by the process alone.
        reapers().remove(&r.id);
    }
    let sidecar = Sidecar {
        id: r.id,
        command: r.command.to_string(),
        cwd: r.cwd.to_string_lossy().into_owned(),
        pid: s.pid,
        started_at: super::spawn::now_ms(),
        ready_when: r.ready_when.map(str::to_string),
        input: Input::Terminal {
            size: r.size,
            path: String::new(),
        },
    };
    save(r.root, &sidecar)?;
    let end = input::End {
        pipe: s.input,
        console: s.console,
    };
    Ok(Started {
        sidecar,
        input: Some(input::Writer::new(input::Kind::Terminal, end)),
    })
}

/// The console's output, noting when the last bytes came (the reaper closes the console once
/// it has been quiet a moment).
struct Watched {
    inner: std::fs::File,
    last: Arc<Mutex<Instant>>,
}

impl Read for Watched {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if let Ok(mut t) = self.last.lock() {
            *t = Instant::now();
        }
        Ok(n)
    }
}
