//! One session's shell process: starting it (in the sandbox when there is one), writing it a
//! script, reading its reports, and ending it with everything it started.

use super::script::{self, Report};
use crate::process::group::{self, CALL_ID_VAR, SESSION_ID_VAR};
use std::io;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// The most of a report kept in memory: a larger `export -p` is not kept (a restart then
/// restores the working directory only).
const MAX_REPORT: usize = 4 * 1024 * 1024;

/// Where a session's per-call pipes live: the same directory as we name it and as the
/// (possibly sandboxed) shell names it.
#[derive(Debug)]
pub struct PipeDir {
    /// Our name for it.
    pub host: PathBuf,
    /// The shell's name for it.
    pub inside: PathBuf,
}

impl PipeDir {
    /// A fresh private directory (mode 0700) under `(host, inside)`.
    pub fn create(base: (PathBuf, PathBuf), id: &str) -> io::Result<PipeDir> {
        let name = format!("clarvis-shell-{id}");
        let host = base.0.join(&name);
        let mut b = std::fs::DirBuilder::new();
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
        b.create(&host)?;
        Ok(PipeDir {
            host,
            inside: base.1.join(name),
        })
    }
}

impl Drop for PipeDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.host);
    }
}

/// A live session shell.
pub struct Shell {
    /// The `sh` process (its own process group and session, a subreaper).
    pub child: Child,
    pid: u32,
    stdin: ChildStdin,
    /// The shell's stdout: reports only (every command's own output goes to its call's pipes).
    ctl: ChildStdout,
    /// Report bytes read and not yet used.
    buf: Vec<u8>,
    /// The session's marker (`CLARVIS_SESSION_ID`), in everything the shell starts.
    pub session_id: String,
    /// Where the per-call pipes are made.
    pub pipes: PipeDir,
    /// Whether the shell has gone (exited or killed, and reaped).
    pub gone: bool,
}

impl Shell {
    /// Starts `sh -s` in `cwd`, reading scripts on stdin, its stdout a pipe for reports, its
    /// stderr `/dev/null`, in a new session, marked, and confined by `sandbox` when given.
    pub fn spawn(
        cwd: &Path,
        session_id: &str,
        sandbox: Option<&crate::sandbox::Sandbox>,
    ) -> io::Result<Shell> {
        let base = match sandbox {
            Some(s) => s.temp_dir()?,
            None => (std::env::temp_dir(), std::env::temp_dir()),
        };
        let pipes = PipeDir::create(base, &crate::atomic::unique_id())?;
        #[cfg(unix)]
        let mut cmd = match sandbox {
            Some(s) => s.shell(),
            None => std::process::Command::new("/bin/sh"),
        };
        #[cfg(not(unix))]
        let mut cmd = std::process::Command::new("sh");
        cmd.arg("-s")
            .current_dir(cwd)
            .env_remove("CDPATH")
            .env(CALL_ID_VAR, session_id)
            .env(SESSION_ID_VAR, session_id)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        group::new_session(&mut cmd);
        if let Some(s) = sandbox {
            s.confine(&mut cmd, cwd)?;
        }
        let mut cmd = Command::from(cmd);
        cmd.kill_on_drop(false);
        let mut child = cmd.spawn()?;
        let pid = child.id().unwrap_or(0);
        let (Some(stdin), Some(ctl)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(io::Error::other("the shell's pipes are missing"));
        };
        Ok(Shell {
            child,
            pid,
            stdin,
            ctl,
            buf: Vec::new(),
            session_id: session_id.to_string(),
            pipes,
            gone: false,
        })
    }

    /// The shell's pid (its process group id too).
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// Writes `text` to the shell's stdin.
    pub async fn send(&mut self, text: &str) -> io::Result<()> {
        self.stdin.write_all(text.as_bytes()).await?;
        self.stdin.flush().await
    }

    /// Whether the shell has exited (reaping it), without waiting.
    pub fn exited(&mut self) -> bool {
        if !self.gone && matches!(self.child.try_wait(), Ok(Some(_)) | Err(_)) {
            self.gone = true;
        }
        self.gone
    }

    /// Ends the shell and everything the session started — its process tree, its group and
    /// every process carrying the session's marker — and reaps it. Blocking walks run off
    /// the runtime's threads.
    pub async fn end(mut self) {
        let (pid, id, gone) = (self.pid, self.session_id.clone(), self.exited());
        let _ = tokio::task::spawn_blocking(move || kill_session(pid, &id, gone)).await;
        let _ = self.child.wait().await;
        self.gone = true;
    }
}

/// SIGKILLs a session: the shell's tree and group while the shell is unreaped (its pid still
/// ours), then every process with the session's marker.
pub fn kill_session(pid: u32, id: &str, gone: bool) {
    if !gone {
        group::kill_tree(pid);
        group::kill_group(pid);
    }
    group::sweep_marked_as(SESSION_ID_VAR, id);
}

impl Drop for Shell {
    fn drop(&mut self) {
        if !self.gone && !self.exited() {
            // Synchronously, while the shell is unreaped; the marker sweep off this thread.
            group::kill_tree(self.pid);
            group::kill_group(self.pid);
        }
        let id = std::mem::take(&mut self.session_id);
        let _ =
            std::thread::Builder::new().spawn(move || group::sweep_marked_as(SESSION_ID_VAR, &id));
    }
}

/// Reads the shell's stdout until a whole report framed by `nonce` is there: `None` at end
/// of file (the shell is gone). Cancel-safe: bytes read stay in `buf`. An `export -p` over
/// [`MAX_REPORT`] is dropped as it arrives (the report then has no exports).
pub async fn read_report(ctl: &mut ChildStdout, buf: &mut Vec<u8>, nonce: &str) -> Option<Report> {
    let mut chunk = vec![0u8; 64 * 1024];
    let mut cut = false;
    loop {
        if let Some((mut report, used)) = script::parse(buf, nonce) {
            buf.drain(..used);
            if cut {
                report.exports = None;
            }
            return Some(report);
        }
        let n = ctl.read(&mut chunk).await.ok().filter(|&n| n > 0)?;
        buf.extend_from_slice(&chunk[..n]);
        if buf.len() > MAX_REPORT {
            if let Some(start) = script::exports_start(buf, nonce) {
                // Keep the frame's start and enough of the end to find the end mark.
                let from = buf.len() - chunk.len();
                if from > start {
                    buf.drain(start..from);
                    cut = true;
                }
            }
        }
    }
}

impl Shell {
    /// The report reader and the child, borrowed apart (for one `select!`).
    pub fn parts(&mut self) -> (&mut ChildStdout, &mut Vec<u8>, &mut Child) {
        (&mut self.ctl, &mut self.buf, &mut self.child)
    }
}
