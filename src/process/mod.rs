//! Running one shell command to completion, with a timeout, cancellation, bounded output
//! capture and clean-up of everything it started. `tools/bash` only maps the outcome to
//! the contract's JSON and errors.
//!
//! The contract of [`run`]:
//! - the call ends when the shell exits, plus at most [`DRAIN`] to collect what background
//!   children still hold in the pipes; it never waits for a backgrounded process, and a
//!   normal exit leaves backgrounded processes running (that is how servers are started);
//!   what the shell itself wrote is always collected, however late the pumps run (see
//!   [`pump`]);
//! - a timeout, an abort or a stream past the capture ceiling SIGKILLs the shell's whole
//!   process tree (orphans included: the shell is a subreaper), then the group, then sweeps
//!   the call's marked processes (see [`group`]);
//! - precedence when several happen: aborted, then timeout, then output limit;
//! - memory stays bounded whatever the command writes (see [`capture`]).
//!
//! Isolation is not this module's: with the `sandbox` option, [`group::spawn`] hands the
//! command to `crate::sandbox` (its one hook here), which confines it between fork and exec.

pub mod capture;
pub mod grace;
pub mod group;
pub mod live;
pub mod monitor;
pub mod pump;
#[cfg(unix)]
pub mod session;
pub mod shell;
pub mod spill;
pub mod streams;
pub mod view;

use crate::cancel::Cancel;
use std::io;
use std::path::Path;
use std::time::Duration;
use streams::Streams;

/// How long the pipes are still read after the shell exits (or is killed), for output that
/// background children hold.
pub const DRAIN: Duration = Duration::from_millis(100);

/// The smallest capture ceiling: 8 MiB per stream.
pub const MIN_CAPTURE_CEILING: u64 = 8 * 1024 * 1024;

/// The per-stream capture ceiling for a configuration: `max(maxOutputBytes, 8 MiB)`.
pub fn capture_ceiling(max_output_bytes: u64) -> u64 {
    max_output_bytes.max(MIN_CAPTURE_CEILING)
}

/// What to run.
pub struct Request<'a> {
    /// The text given to `sh -c`.
    pub command: &'a str,
    /// The working directory (already resolved and checked).
    pub cwd: &'a Path,
    /// Run time before the group is killed.
    pub timeout: Duration,
    /// The workspace root, under which spill files go.
    pub root: &'a Path,
    /// The output budget shared by stdout and stderr.
    pub max_output_bytes: u64,
    /// Time between SIGTERM and SIGKILL when the command is killed (zero: SIGKILL at once).
    pub kill_grace: Duration,
    /// Where live output goes while the command runs (see [`live`]).
    pub on_output: Option<live::OutputSink>,
    /// The sandbox the command runs in, if any.
    pub sandbox: Option<&'a crate::sandbox::Sandbox>,
    /// Review mode's capture (with `sandbox`): what the command sees above the disk, and
    /// where its writes go instead of the workspace (see [`crate::sandbox::capture`]).
    pub capture: Option<crate::sandbox::capture::Request<'a>>,
}

/// How the command ended.
#[derive(Debug)]
pub enum Ending {
    /// The shell exited: its exit code (128 + n when killed by signal n) and the signal name.
    Exited {
        /// The exit code.
        code: i32,
        /// `SIGTERM`… when a signal ended the shell.
        signal: Option<String>,
    },
    /// The timeout fired; the group was killed.
    TimedOut,
    /// The caller aborted; the group was killed.
    Aborted,
    /// A stream passed the capture ceiling; the group was killed.
    OutputLimit,
    /// Waiting for the shell failed.
    Failed(io::Error),
}

/// The outcome of [`run`]: how it ended and the bounded views of both streams.
#[derive(Debug)]
pub struct Outcome {
    /// How the command ended.
    pub ending: Ending,
    /// The stdout view (whole, or head + marker + tail).
    pub stdout: String,
    /// The stderr view.
    pub stderr: String,
    /// When the command was killed (timeout, abort, output limit): the signal that ended
    /// the shell, `SIGTERM` when it exited within the grace, else `SIGKILL`.
    pub killed_by: Option<&'static str>,
    /// With [`Request::capture`]: the command's overlay, to read its changes from. Every
    /// process of the call has ended by then (a captured call leaves nothing running: what
    /// a background process wrote later could never be reviewed).
    pub captured: Option<crate::sandbox::capture::Captured>,
}

/// Runs a command. `Err` means the shell could not be started; everything after that is
/// an [`Ending`]. `display` renders a spill file path for the model.
pub async fn run(
    req: Request<'_>,
    cancel: &Cancel,
    display: impl Fn(&Path) -> String,
) -> io::Result<Outcome> {
    let id = crate::atomic::unique_id();
    let (mut child, captured) =
        group::spawn(req.command, req.cwd, &id, req.sandbox, req.capture.as_ref())?;
    let pgid = child.id().unwrap_or(0);
    let mut guard = group::Guard::new(pgid, &id);
    let budget = streams::Budget {
        root: req.root,
        id: &id,
        max_output_bytes: req.max_output_bytes,
        on_output: req.on_output.clone(),
    };
    let streams = Streams::start(child.stdout.take(), child.stderr.take(), &budget);

    enum Event {
        Exited(io::Result<std::process::ExitStatus>),
        Timeout,
        Abort,
        Limit,
    }
    let event = tokio::select! {
        biased;
        _ = cancel.cancelled() => Event::Abort,
        status = child.wait() => Event::Exited(status),
        _ = tokio::time::sleep(req.timeout) => Event::Timeout,
        _ = streams.limit().cancelled() => Event::Limit,
    };
    let timed_out = matches!(event, Event::Timeout);
    let mut killed_by = None;
    let status = match event {
        Event::Exited(status) => Some(status),
        Event::Timeout | Event::Abort | Event::Limit => {
            // Kill before reaping: the shell's pid stays reserved, so the group id is ours.
            killed_by = Some(kill_all(pgid, &id, req.kill_grace).await);
            let _ = child.wait().await;
            None
        }
    };
    let killed = status.is_none();

    let (out, err) = streams.finish().await;

    let aborted = cancel.is_cancelled();
    let over = out.over_ceiling() || err.over_ceiling();
    if (aborted || over || captured.is_some()) && !killed {
        // Fired during the drain, after the shell exited: its leftovers get no grace. A
        // captured call's background processes end with it, before its changes are read.
        kill_all(pgid, &id, Duration::ZERO).await;
    }
    guard.disarm();

    let ending = match status {
        _ if aborted => Ending::Aborted,
        _ if timed_out => Ending::TimedOut,
        _ if over => Ending::OutputLimit,
        Some(Ok(status)) => exited(status),
        Some(Err(e)) => Ending::Failed(e),
        // Killed for the limit, yet no stream is over it: cannot happen, but say so.
        None => Ending::OutputLimit,
    };

    let (stdout, stderr) = streams::views(out, err, req.max_output_bytes, &display);
    Ok(Outcome {
        ending,
        stdout,
        stderr,
        killed_by,
        captured,
    })
}

/// The [`Ending`] of a shell that exited with `status`: its exit code, or 128 + n and the
/// signal's name when signal n ended it.
pub fn exited(status: std::process::ExitStatus) -> Ending {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            return Ending::Exited {
                code: 128 + sig,
                signal: Some(group::signal_name(sig)),
            };
        }
    }
    Ending::Exited {
        code: status.code().unwrap_or(-1),
        signal: None,
    }
}

/// With a grace, first SIGTERMs everything (see [`grace::terminate`] for the order) and waits
/// up to `grace` for the shell to exit;
/// then SIGKILLs the shell's descendants, the group (shell included), and sweeps marked
/// processes that left both (off the runtime's threads: the waits and walks block). The
/// shell is not reaped yet, so its pid — the group id — is still ours throughout. Returns
/// the signal that ended the shell.
async fn kill_all(pgid: u32, id: &str, grace: Duration) -> &'static str {
    let id = id.to_string();
    tokio::task::spawn_blocking(move || {
        let termed = !grace.is_zero() && grace::terminate(pgid, &id, grace);
        group::kill_tree(pgid);
        group::kill_group(pgid);
        group::sweep_marked(&id);
        if termed {
            "SIGTERM"
        } else {
            "SIGKILL"
        }
    })
    .await
    .unwrap_or("SIGKILL")
}

#[cfg(all(test, target_os = "linux"))]
mod sandboxed_tests;

#[cfg(test)]
mod tests {
    use super::*;

    async fn run_in(root: &Path, command: &str, timeout: Duration, cancel: &Cancel) -> Outcome {
        let req = Request {
            command,
            cwd: root,
            timeout,
            root,
            max_output_bytes: 1024,
            kill_grace: Duration::ZERO,
            on_output: None,
            sandbox: None,
            capture: None,
        };
        run(req, cancel, |p| p.display().to_string()).await.unwrap()
    }

    /// Runs the trap command until a run's timeout fired after the trap was set (the command
    /// says `up` then): the timer starts at spawn, and on a loaded machine it can fire before
    /// the shell gets that far, which says nothing about the kill. Each retry waits 4× longer.
    async fn run_trapped(root: &Path, kill_grace: Duration) -> Outcome {
        let mut timeout = Duration::from_millis(300);
        loop {
            let req = Request {
                command: "trap 'echo trapped; exit 0' TERM; echo up; while :; do sleep 0.05; done",
                cwd: root,
                timeout,
                root,
                max_output_bytes: 1024,
                kill_grace,
                on_output: None,
                sandbox: None,
                capture: None,
            };
            let out = run(req, &Cancel::new(), |p| p.display().to_string())
                .await
                .unwrap();
            if out.stdout.starts_with("up\n") || timeout > Duration::from_secs(100) {
                return out;
            }
            timeout *= 4;
        }
    }

    #[tokio::test]
    async fn a_grace_lets_a_sigterm_trap_run() {
        let root = tempfile::tempdir().unwrap();
        let out = run_trapped(root.path(), Duration::from_secs(600)).await;
        assert!(matches!(out.ending, Ending::TimedOut), "{:?}", out.ending);
        assert_eq!(out.stdout, "up\ntrapped\n");
        assert_eq!(out.killed_by, Some("SIGTERM"));
    }

    #[tokio::test]
    async fn without_a_grace_the_kill_is_sigkill() {
        let root = tempfile::tempdir().unwrap();
        let out = run_trapped(root.path(), Duration::ZERO).await;
        assert!(matches!(out.ending, Ending::TimedOut), "{:?}", out.ending);
        assert_eq!(out.stdout, "up\n");
        assert_eq!(out.killed_by, Some("SIGKILL"));
    }

    #[tokio::test]
    async fn abort_wins_over_timeout() {
        let root = tempfile::tempdir().unwrap();
        let cancel = Cancel::new();
        cancel.cancel();
        let out = run_in(root.path(), "sleep 5", Duration::ZERO, &cancel).await;
        assert!(matches!(out.ending, Ending::Aborted), "{:?}", out.ending);
    }

    #[tokio::test]
    async fn timeout_wins_over_output_limit() {
        let root = tempfile::tempdir().unwrap();
        // The timeout is already due when the first event is picked; the limit comes later.
        let out = run_in(root.path(), "yes", Duration::ZERO, &Cancel::new()).await;
        assert!(matches!(out.ending, Ending::TimedOut), "{:?}", out.ending);
    }

    #[tokio::test]
    async fn output_limit_reports_bounded_views() {
        let root = tempfile::tempdir().unwrap();
        let out = run_in(root.path(), "yes", Duration::from_secs(30), &Cancel::new()).await;
        assert!(
            matches!(out.ending, Ending::OutputLimit),
            "{:?}",
            out.ending
        );
        assert!(out.stdout.len() <= 1024 && out.stdout.starts_with("y\ny\n"));
        assert!(out.stdout.contains(&format!(
            " of {MIN_CAPTURE_CEILING} bytes shown; full output written to "
        )));
    }
}
