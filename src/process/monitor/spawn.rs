//! Starting a monitor: a detached `sh -c` in its own session, output appended to its log,
//! exit status written by an EXIT trap, state in a sidecar. Its stdin is `/dev/null` (the
//! original's), a pipe (`stdin: true`) or, with its stdout and stderr, a pseudo-terminal
//! (`tty`), which then is its controlling terminal too.

use super::{ensure_dir, file, new_id, save, Input, Sidecar};
use crate::process::group::CALL_ID_VAR;
use crate::terminal::{input, Size};
use std::fs::File;
use std::io;
use std::path::Path;
use std::process::{Command, Stdio};

/// The relay's end of the output (Unix; elsewhere there is no relay).
#[cfg(unix)]
type RelayInput = std::os::fd::OwnedFd;

/// A started monitor.
#[derive(Debug)]
pub struct Started {
    /// Its sidecar (already on disk).
    pub sidecar: Sidecar,
    /// The host's end of its input (a pipe's write end or the terminal's master), when it
    /// has one.
    pub input: Option<input::Writer>,
}

/// How the monitor's input is wired, as asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stdin {
    /// `/dev/null`.
    Null,
    /// A pipe the host writes to.
    Pipe,
    /// A pseudo-terminal of this size.
    Terminal(Size),
}

/// The script the shell runs: an EXIT trap that writes `$?` to `$MON_EXIT`, then the command
/// on its own line (so a trailing comment or an unterminated heredoc in it cannot swallow
/// the trap). A sandboxed shell cannot write under `.clarvis/` (a protected path): its
/// `$MON_EXIT` is a file in the sandbox's private temporary directory, which the relay moves
/// to the exit file (`relay::ExitCopy`), the host's reaper writing the code too while it lives.
///
/// On a terminal the shell turns job control on (`set -m`), as an interactive shell has it:
/// each command runs in its own process group, which the shell makes the terminal's
/// foreground group while it runs, so Ctrl-C reaches the command and not the shell. A
/// command that died of the interrupt makes the shell kill itself with SIGINT too (dash and
/// bash alike: the rest of the script does not run, as at a terminal), a REPL that caught it
/// goes on with the shell waiting, and a loop of built-ins, run by the shell itself in the
/// foreground, ends at once. The reaper writes 130 for a shell the interrupt ended (the EXIT
/// trap does not run on a death by a signal).
pub(super) fn script(command: &str, terminal: bool) -> String {
    let jobs = if terminal { "set -m\n" } else { "" };
    format!("trap 'echo $? > \"$MON_EXIT\"' EXIT\n{jobs}{command}\n")
}

/// What the command's three standard descriptors are, what the relay reads, and what the
/// host keeps.
struct Wiring {
    stdio: [Stdio; 3],
    #[cfg(unix)]
    relay: RelayInput,
    input: Option<input::Writer>,
    input_kind: Input,
}

/// How a monitor is started, besides its command and directory.
#[derive(Debug)]
pub struct Options<'a> {
    /// The `ready_when` pattern (kept in the sidecar).
    pub ready_when: Option<&'a str>,
    /// The log's bound (`monitorLogMaxBytes`).
    pub log_max: u64,
    /// The sandbox that confines it.
    pub sandbox: Option<&'a crate::sandbox::Sandbox>,
    /// Its input.
    pub stdin: Stdin,
    /// Review mode: its capture (with `sandbox`; see [`super::captured`]).
    pub capture: Option<super::captured::Capture<'a>>,
}

/// Starts `command` in `cwd` (an existing directory) for the workspace `root`, its log kept
/// within `opts.log_max` bytes (Unix; elsewhere the command appends to the log itself). On a
/// spawn failure the log is removed and the error returned.
pub fn start(root: &Path, cwd: &Path, command: &str, opts: Options<'_>) -> io::Result<Started> {
    let Options {
        ready_when,
        log_max,
        sandbox,
        stdin,
        capture,
    } = opts;
    // Before any file is made: without a shell (Windows without Git for Windows) nothing runs.
    let sh = crate::process::shell::shell()?;
    ensure_dir(root)?;
    // A fresh id whose files do not exist yet (4 random bytes: a collision is rare, not impossible).
    let id = loop {
        let id = new_id();
        if !file(root, &id, "json").exists() && !file(root, &id, "log").exists() {
            break id;
        }
    };
    // Windows: a pseudo console, started its own way (`super::console`).
    #[cfg(windows)]
    if let Stdin::Terminal(size) = stdin {
        return super::console::start(super::console::Request {
            root,
            cwd,
            command,
            ready_when,
            log_max,
            id,
            size,
            sh: &sh,
        });
    }
    let wired = open_log(root, &id).and_then(|files| Ok((files, wire(root, &id, stdin)?)));
    let (files, wiring) = match wired {
        Ok(v) => v,
        Err(e) => {
            remove_files(root, &id);
            return Err(e);
        }
    };
    let [sin, sout, serr] = wiring.stdio;
    let terminal = match stdin {
        Stdin::Terminal(size) => Some(size),
        _ => None,
    };
    let mut cmd = match sandbox {
        Some(s) => s.shell(),
        None => Command::new(sh),
    };
    // Where the EXIT trap writes: the exit file, or for a sandboxed shell a file of the
    // sandbox's private temporary directory `(as the host names it, as the command does)`.
    let trap_file = match sandbox {
        Some(s) => match s.temp_dir() {
            Ok((host, inside)) => {
                let name = format!("clarvis-monitor-{id}.exit");
                Some((host.join(&name), inside.join(name)))
            }
            Err(e) => {
                remove_files(root, &id);
                return Err(e);
            }
        },
        None => None,
    };
    cmd.arg("-c")
        .arg(script(command, terminal.is_some()))
        .current_dir(cwd)
        // As for `bash` (`group::spawn`): no inherited CDPATH.
        .env_remove("CDPATH")
        .env(
            "MON_EXIT",
            trap_file
                .as_ref()
                .map_or_else(|| file(root, &id, "exit"), |t| t.1.clone()),
        )
        .env(CALL_ID_VAR, &id)
        .stdin(sin)
        .stdout(sout)
        .stderr(serr);
    if let Some(size) = terminal {
        cmd.env("TERM", "xterm-256color")
            .env("COLUMNS", size.cols.to_string())
            .env("LINES", size.rows.to_string());
    }
    crate::process::group::new_session(&mut cmd);
    // After `setsid` (a session leader may take a terminal), before the sandbox (which keeps
    // the terminal: its descriptors are inherited, `/dev/tty` and `/dev/pts` stay writable).
    #[cfg(unix)]
    if terminal.is_some() {
        crate::terminal::pty::make_controlling(&mut cmd);
    }
    let mut armed = None;
    if let Some(s) = sandbox {
        let confined = match capture {
            Some(c) => s
                .confine_captured(&mut cmd, cwd, &c.request)
                .map_err(io::Error::from)
                .and_then(|captured| {
                    super::captured::Armed::mark(root, &id, captured.dir())?;
                    armed = Some(super::captured::Armed {
                        captured,
                        stage: c.stage,
                        root: root.to_path_buf(),
                        id: id.clone(),
                    });
                    Ok(())
                }),
            None => s.confine(&mut cmd, cwd),
        };
        if let Err(e) = confined {
            remove_files(root, &id);
            return Err(e);
        }
    }
    let spawned = cmd.spawn();
    // The command's copies of the output's write end (the pipe, or the terminal's slave) are
    // the only ones left: the relay sees end of file when the monitor and all its children
    // are gone.
    drop(cmd);
    let child = match spawned {
        Ok(c) => c,
        Err(e) => {
            remove_files(root, &id);
            return Err(e);
        }
    };
    #[cfg(unix)]
    {
        let (log, state) = files;
        // A captured monitor's relay must not make it look ended before its changes are
        // staged: it leaves the code beside the exit file, for when the host dies first.
        let exit_ext = if armed.is_some() {
            super::captured::RELAY_EXIT
        } else {
            "exit"
        };
        let exit = trap_file
            .as_ref()
            .map(|t| super::relay::ExitCopy::new(&t.0, &file(root, &id, exit_ext), child.id()))
            .transpose();
        let relayed = exit.and_then(|exit| {
            super::relay::spawn(&wiring.relay, &log, &state, log_max, exit.as_ref())
        });
        if let Err(e) = relayed {
            // Without a relay nobody reads the output: the command would block. End it.
            super::stop_pid(child.id(), &id);
            let _ = { child }.wait();
            remove_files(root, &id);
            return Err(e);
        }
    }
    #[cfg(not(unix))]
    let _ = (files, log_max);
    let sidecar = Sidecar {
        id,
        command: command.to_string(),
        cwd: cwd.to_string_lossy().into_owned(),
        pid: child.id(),
        started_at: now_ms(),
        ready_when: ready_when.map(str::to_string),
        input: wiring.input_kind,
    };
    super::reap::reaper(super::reap::Reaper {
        child,
        exit_file: (sandbox.is_some() || terminal.is_some())
            .then(|| file(root, &sidecar.id, "exit")),
        trapped: sandbox.is_none(),
        on_terminal: terminal.is_some(),
        armed,
    });
    save(root, &sidecar)?;
    Ok(Started {
        sidecar,
        input: wiring.input,
    })
}

/// Now, in epoch milliseconds (a sidecar's `startedAt`).
pub(super) fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// Removes what a failed start left.
fn remove_files(root: &Path, id: &str) {
    for ext in ["log", "state", super::captured::PENDING] {
        let _ = std::fs::remove_file(file(root, id, ext));
    }
}

/// The log (created empty; Unix: with the relay's state file), or the log opened for append
/// where the command writes it itself.
#[cfg(unix)]
fn open_log(root: &Path, id: &str) -> io::Result<(File, File)> {
    let log = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .open(file(root, id, "log"))?;
    let state = super::relay::create_state(&file(root, id, "state"))?;
    Ok((log, state))
}

#[cfg(not(unix))]
fn open_log(root: &Path, id: &str) -> io::Result<File> {
    std::fs::OpenOptions::new()
        .append(true)
        .create_new(true)
        .open(file(root, id, "log"))
}

/// Unix: the output goes into a pipe (or the terminal) the relay reads; stdin is
/// `/dev/null`, a pipe, or the terminal.
#[cfg(unix)]
fn wire(_root: &Path, _id: &str, stdin: Stdin) -> io::Result<Wiring> {
    use std::os::fd::OwnedFd;
    if let Stdin::Terminal(size) = stdin {
        let pty = crate::terminal::pty::open(size)?;
        let slave = pty.slave;
        let stdio = [
            Stdio::from(slave.try_clone()?),
            Stdio::from(slave.try_clone()?),
            Stdio::from(slave),
        ];
        let relay = pty.master.try_clone()?;
        return Ok(Wiring {
            stdio,
            relay,
            input: Some(input::Writer::new(input::Kind::Terminal, pty.master)),
            input_kind: Input::Terminal {
                size,
                path: pty.path,
            },
        });
    }
    let (read, write) = super::relay::pipe()?;
    let out = File::from(write);
    let err = out.try_clone()?;
    let (sin, input, input_kind) = match stdin {
        Stdin::Pipe => {
            let (r, w) = io::pipe()?;
            let writer = input::Writer::new(input::Kind::Pipe, OwnedFd::from(w));
            (Stdio::from(r), Some(writer), Input::Pipe)
        }
        _ => (Stdio::null(), None, Input::Null),
    };
    Ok(Wiring {
        stdio: [sin, Stdio::from(out), Stdio::from(err)],
        relay: read,
        input,
        input_kind,
    })
}

/// Elsewhere the command appends to the log itself, and takes no input (see
/// [`crate::terminal`]: `monitor_start` refuses `stdin` before this, and Windows starts a
/// terminal monitor in `super::console`).
#[cfg(not(unix))]
fn wire(root: &Path, id: &str, stdin: Stdin) -> io::Result<Wiring> {
    if stdin != Stdin::Null {
        return Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "monitors with a stdin pipe need Unix",
        ));
    }
    let log = std::fs::OpenOptions::new()
        .append(true)
        .open(file(root, id, "log"))?;
    let err = log.try_clone()?;
    Ok(Wiring {
        stdio: [Stdio::null(), Stdio::from(log), Stdio::from(err)],
        input: None,
        input_kind: Input::Null,
    })
}
