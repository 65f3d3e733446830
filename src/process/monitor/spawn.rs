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

/// Starts `command` in `cwd` (an existing directory) for the workspace `root`, its log kept
/// within `log_max` bytes (Unix; elsewhere the command appends to the log itself). On a
/// spawn failure the log is removed and the error returned.
pub fn start(
    root: &Path,
    cwd: &Path,
    command: &str,
    ready_when: Option<&str>,
    log_max: u64,
    sandbox: Option<&crate::sandbox::Sandbox>,
    stdin: Stdin,
) -> io::Result<Started> {
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
    if let Some(s) = sandbox {
        if let Err(e) = s.confine(&mut cmd, cwd) {
            remove_files(root, &id);
            return Err(e);
        }
    }
    let spawned = cmd.spawn();
    // The command's copies of the output's write end (the pipe, or the terminal's slave) are
    // the only ones left: the relay sees end of file when the monitor and all its children
    // are gone.
    drop(cmd);
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) => {
            remove_files(root, &id);
            return Err(e);
        }
    };
    #[cfg(unix)]
    {
        let (log, state) = files;
        let exit = trap_file
            .as_ref()
            .map(|t| super::relay::ExitCopy::new(&t.0, &file(root, &id, "exit"), child.id()))
            .transpose();
        let relayed = exit.and_then(|exit| {
            super::relay::spawn(&wiring.relay, &log, &state, log_max, exit.as_ref())
        });
        if let Err(e) = relayed {
            // Without a relay nobody reads the output: the command would block. End it.
            super::stop_pid(child.id(), &id);
            let _ = child.wait();
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
    // Reap it when it exits, so it does not linger as a zombie of this process (liveness is
    // judged from the pid, and a new instance would see it as a stranger's process).
    let exit_file =
        (sandbox.is_some() || terminal.is_some()).then(|| file(root, &sidecar.id, "exit"));
    let trapped = sandbox.is_none();
    let on_terminal = terminal.is_some();
    let _ = std::thread::Builder::new()
        .name("clarvis-monitor-reaper".into())
        .spawn(move || {
            // A sandboxed shell's EXIT trap cannot write the exit file (the relay moves what
            // it wrote, later): its exit code is written here too, as the trap would have
            // (nothing after a kill by a signal) — before the zombie is reaped, so a poll that
            // sees the pid gone finds the file (`read::poll` waits on a zombie).
            // On a terminal a Ctrl-C ends the shell by SIGINT (see `script`), which no trap
            // reports: written as 130, what a shell reports for a command the interrupt
            // ended. What the EXIT trap wrote stays.
            let write = |path: &Path, code: i32| {
                (trapped && super::line_written(path))
                    || std::fs::write(path, format!("{code}\n")).is_ok()
            };
            let code = |how: Ended| match how {
                Ended::Code(c) => Some(c),
                Ended::Signal(libc::SIGINT) if on_terminal => Some(130),
                Ended::Signal(_) => None,
            };
            let written = exit_file.as_deref().is_some_and(|path| {
                exit_unreaped(&child)
                    .and_then(code)
                    .is_some_and(|c| write(path, c))
            });
            let status = child.wait();
            if let (Some(path), false, Ok(status)) = (exit_file, written, status) {
                if let Some(c) = ended(status).and_then(code) {
                    write(&path, c);
                }
            }
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

/// How the monitor's shell ended.
#[derive(Clone, Copy)]
enum Ended {
    /// It exited with this code.
    Code(i32),
    /// This signal killed it.
    #[cfg_attr(not(unix), allow(dead_code))]
    Signal(i32),
}

/// How a reaped shell ended (`None`: neither known, off Unix a signal).
fn ended(status: std::process::ExitStatus) -> Option<Ended> {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            return Some(Ended::Signal(sig));
        }
    }
    status.code().map(Ended::Code)
}

/// Waits for `child` to exit without reaping it (it stays a zombie) and says how it ended
/// (`None` off Linux, where the caller writes the code after reaping, a moment after the pid
/// is gone).
fn exit_unreaped(child: &std::process::Child) -> Option<Ended> {
    #[cfg(target_os = "linux")]
    {
        let pid = libc::id_t::from(child.id());
        // SAFETY: `info` is a plain C struct the kernel fills; WNOWAIT leaves the child
        // to `child.wait()`.
        unsafe {
            let mut info: libc::siginfo_t = std::mem::zeroed();
            loop {
                let r = libc::waitid(libc::P_PID, pid, &mut info, libc::WEXITED | libc::WNOWAIT);
                if r == 0 {
                    break;
                }
                if std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
                    return None;
                }
            }
            match info.si_code {
                libc::CLD_EXITED => Some(Ended::Code(info.si_status())),
                libc::CLD_KILLED | libc::CLD_DUMPED => Some(Ended::Signal(info.si_status())),
                _ => None,
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        // `Child::wait` needs `&mut`: the caller's `wait` afterwards returns the same status.
        let _ = child;
        None
    }
}

/// Removes what a failed start left.
fn remove_files(root: &Path, id: &str) {
    for ext in ["log", "state"] {
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
