//! Running one command in a session shell: its own stdout and stderr pipes, the report that
//! says it is done, and the interruption (timeout, abort, output ceiling) that ends the
//! command and what it started while the shell lives on when it can.

use super::script::{Report, Script};
use super::shell::{read_report, Shell};
use crate::cancel::Cancel;
use crate::process::streams::{self, Budget, Streams};
use crate::process::{exited, group, Ending, Outcome, Request};
use std::collections::HashSet;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::net::unix::pipe;

/// How long an interrupted command's shell gets to report once the command's processes are
/// killed. A shell that does not report by then is busy in its own loop (or waiting on a
/// process that shed its marker): it is killed and the session restarted.
pub const SETTLE: Duration = Duration::from_secs(2);

/// What became of the shell.
#[derive(Debug)]
pub enum Fate {
    /// It reported after the command: the session goes on, in this state.
    Kept(Report),
    /// It exited during the command (`exit`, `set -e`, `exec`): the session is over.
    Exited,
    /// It had to be killed to end the command: the session must be restarted.
    Killed,
}

/// The call's two pipes, named in the session's pipe directory, removed when dropped.
struct Fifos(Vec<PathBuf>);

impl Fifos {
    fn make(dir: &Path, call_id: &str) -> io::Result<Fifos> {
        let mut made = Fifos(Vec::new());
        for ext in ["out", "err"] {
            let p = dir.join(format!("{call_id}.{ext}"));
            mkfifo(&p)?;
            made.0.push(p);
        }
        Ok(made)
    }
}

impl Drop for Fifos {
    fn drop(&mut self) {
        for p in &self.0 {
            let _ = std::fs::remove_file(p);
        }
    }
}

fn mkfifo(p: &Path) -> io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(p.as_os_str().as_bytes()).map_err(io::Error::other)?;
    // SAFETY: a plain syscall on a valid C string.
    if unsafe { libc::mkfifo(c.as_ptr(), 0o600) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// A pipe's read end, and a write end we hold until the command is done: with it, no end
/// of file comes before the shell opens the pipe; without it, end of file comes as soon as
/// every process of the command has closed it.
fn open_pair(p: &Path) -> io::Result<(pipe::Receiver, pipe::Sender)> {
    let rx = pipe::OpenOptions::new().open_receiver(p)?;
    let tx = pipe::OpenOptions::new().open_sender(p)?;
    Ok((rx, tx))
}

/// Runs `req.command` in `shell` (first changing to `cd` when given; `xtrace`: whether
/// `set -x` is on). `Err` means the command could not be handed to the shell.
pub async fn run(
    shell: &mut Shell,
    req: &Request<'_>,
    cd: Option<&Path>,
    xtrace: bool,
    cancel: &Cancel,
    display: impl Fn(&Path) -> String,
) -> io::Result<(Outcome, Fate)> {
    let call_id = crate::atomic::unique_id();
    let nonce = format!("{:032x}", rand::random::<u128>());
    let fifos = Fifos::make(&shell.pipes.host, &call_id)?;
    let (out_rx, out_tx) = open_pair(&fifos.0[0])?;
    let (err_rx, err_tx) = open_pair(&fifos.0[1])?;
    let inside = |ext: &str| {
        shell
            .pipes
            .inside
            .join(format!("{call_id}.{ext}"))
            .to_string_lossy()
            .into_owned()
    };
    let (out_name, err_name) = (inside("out"), inside("err"));
    let cd = cd.map(|d| d.to_string_lossy().into_owned());
    let text = Script {
        command: req.command,
        call_id: &call_id,
        cd: cd.as_deref(),
        out: &out_name,
        err: &err_name,
        nonce: &nonce,
        xtrace,
    }
    .text();
    shell.send(&text).await?;
    let budget = Budget {
        root: req.root,
        id: &call_id,
        max_output_bytes: req.max_output_bytes,
        on_output: req.on_output.clone(),
    };
    let streams = Streams::start(Some(out_rx), Some(err_rx), &budget);

    enum Event {
        Reported(Option<Report>),
        Exited(io::Result<std::process::ExitStatus>),
        Timeout,
        Abort,
        Limit,
    }
    let event = {
        let (ctl, buf, child) = shell.parts();
        tokio::select! {
            biased;
            _ = cancel.cancelled() => Event::Abort,
            r = read_report(ctl, buf, &nonce) => Event::Reported(r),
            s = child.wait() => Event::Exited(s),
            _ = tokio::time::sleep(req.timeout) => Event::Timeout,
            _ = streams.limit().cancelled() => Event::Limit,
        }
    };
    let timed_out = matches!(event, Event::Timeout);
    let mut killed_by = None;
    let (status, fate) = match event {
        Event::Reported(Some(r)) => (Some(Ok(reported(r.status))), Fate::Kept(r)),
        Event::Reported(None) => {
            // End of file: the shell is exiting; its status is the command's.
            let s = shell.child.wait().await;
            shell.gone = true;
            (Some(s.map(code_of)), Fate::Exited)
        }
        Event::Exited(s) => {
            shell.gone = true;
            (Some(s.map(code_of)), Fate::Exited)
        }
        Event::Timeout | Event::Abort | Event::Limit => {
            let (signal, fate) = interrupt(shell, &call_id, &nonce, req.kill_grace).await;
            killed_by = Some(signal);
            (None, fate)
        }
    };
    // The command is done: our write ends go, so the pumps end at end of file (or after the
    // drain, when a background process still holds a pipe).
    drop((out_tx, err_tx));
    let (out, err) = streams.finish().await;
    drop(fifos);

    let aborted = cancel.is_cancelled();
    let over = out.over_ceiling() || err.over_ceiling();
    if (aborted || over) && killed_by.is_none() {
        // Fired during the drain: what the command left running goes, the shell stays.
        let id = call_id.clone();
        let _ = tokio::task::spawn_blocking(move || group::sweep_marked(&id)).await;
    }
    let ending = match status {
        _ if aborted => Ending::Aborted,
        _ if timed_out => Ending::TimedOut,
        _ if over => Ending::OutputLimit,
        Some(Ok(code)) => code,
        Some(Err(e)) => Ending::Failed(e),
        None => Ending::OutputLimit,
    };
    let (stdout, stderr) = streams::views(out, err, req.max_output_bytes, &display);
    Ok((
        Outcome {
            ending,
            stdout,
            stderr,
            killed_by,
            captured: None,
        },
        fate,
    ))
}

/// A reported status as an [`Ending`]. `$?` cannot tell `exit 137` from a SIGKILL, so no
/// signal is named.
fn reported(status: i32) -> Ending {
    Ending::Exited {
        code: status,
        signal: None,
    }
}

fn code_of(s: std::process::ExitStatus) -> Ending {
    exited(s)
}

/// Ends the running command: SIGTERM to its processes and up to `grace` for the shell to
/// report, then SIGKILL to every process carrying the call's marker and up to [`SETTLE`] for
/// the report; a shell that still does not report is killed. Returns the signal that ended
/// the command and what became of the shell.
///
/// While waiting, the marker is looked for again every [`RESWEEP`]: a process the shell had
/// forked but not yet `exec`ed when the interruption came carries the shell's environment,
/// not the call's marker, and takes the marker only at its `exec` — after a single sweep.
async fn interrupt(
    shell: &mut Shell,
    call_id: &str,
    nonce: &str,
    grace: Duration,
) -> (&'static str, Fate) {
    if cfg!(target_os = "linux") {
        if !grace.is_zero() {
            let term = Sweep::Term(Default::default());
            if let Some(fate) = settle(shell, nonce, grace, call_id, &term).await {
                return ("SIGTERM", fate);
            }
        }
        if let Some(fate) = settle(shell, nonce, SETTLE, call_id, &Sweep::Kill).await {
            return ("SIGKILL", fate);
        }
    }
    // Without /proc (or a shell that would not stop) the command's processes cannot be
    // told from the session's: the whole session goes.
    kill_shell(shell).await;
    ("SIGKILL", Fate::Killed)
}

/// How often the call's marker is looked for again while the shell has not reported.
const RESWEEP: Duration = Duration::from_millis(50);

/// What a look for the call's marker does to the processes it finds.
#[derive(Clone)]
enum Sweep {
    /// SIGTERM, once per process (a second one means "now" to many programs): the pids
    /// signalled so far.
    Term(Arc<Mutex<HashSet<libc::pid_t>>>),
    /// SIGKILL until they are gone.
    Kill,
}

impl Sweep {
    fn run(&self, call_id: &str) {
        match self {
            Sweep::Term(done) => {
                let mut done = done.lock().unwrap_or_else(|p| p.into_inner());
                let sent = signal_marked(call_id, libc::SIGTERM, &done);
                done.extend(sent);
            }
            Sweep::Kill => {
                group::sweep_marked(call_id);
            }
        }
    }
}

/// Sweeps for the call's marker (off the runtime's threads) now and every [`RESWEEP`], for
/// up to `wait`, until the shell reports: `Kept` when it does, `Killed` when the shell died
/// meanwhile (the session is restarted: the command did not mean to end it), `None` when
/// neither happened.
async fn settle(
    shell: &mut Shell,
    nonce: &str,
    wait: Duration,
    call_id: &str,
    sweep: &Sweep,
) -> Option<Fate> {
    let deadline = tokio::time::Instant::now() + wait;
    loop {
        let (id, sw) = (call_id.to_string(), sweep.clone());
        let _ = tokio::task::spawn_blocking(move || sw.run(&id)).await;
        let next = (tokio::time::Instant::now() + RESWEEP).min(deadline);
        let (ctl, buf, child) = shell.parts();
        let fate = tokio::select! {
            biased;
            r = read_report(ctl, buf, nonce) => Some(r.map_or(Fate::Killed, Fate::Kept)),
            _ = child.wait() => Some(Fate::Killed),
            _ = tokio::time::sleep_until(next) => None,
        };
        if matches!(fate, Some(Fate::Killed)) {
            kill_shell(shell).await;
        }
        if fate.is_some() || next >= deadline {
            return fate;
        }
    }
}

/// Kills the shell and everything of its session, and reaps it.
async fn kill_shell(shell: &mut Shell) {
    let (pid, id, gone) = (shell.pid(), shell.session_id.clone(), shell.exited());
    let _ = tokio::task::spawn_blocking(move || super::shell::kill_session(pid, &id, gone)).await;
    let _ = shell.child.wait().await;
    shell.gone = true;
}

/// Sends `sig` to every process carrying the call's marker but those in `skip`; returns the
/// pids signalled.
fn signal_marked(call_id: &str, sig: i32, skip: &HashSet<libc::pid_t>) -> Vec<libc::pid_t> {
    #[cfg(target_os = "linux")]
    {
        let needle = format!("{}={call_id}", group::CALL_ID_VAR).into_bytes();
        let pids: Vec<libc::pid_t> = group::marked_pids(&needle, std::process::id())
            .into_iter()
            .filter(|p| !skip.contains(p))
            .collect();
        for &pid in &pids {
            // SAFETY: a plain syscall on a process that carried our marker a moment ago.
            unsafe {
                libc::kill(pid, sig);
            }
        }
        pids
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (call_id, sig, skip);
        Vec::new()
    }
}
