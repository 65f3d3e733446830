//! Starting a monitor: a detached `sh -c` in its own session, output appended to its log,
//! exit status written by an EXIT trap, state in a sidecar.

use super::{ensure_dir, file, new_id, save, Sidecar};
use crate::process::group::CALL_ID_VAR;
use std::fs::File;
use std::io;
/// The relay's end of the output pipe (Unix; elsewhere there is no relay).
#[cfg(unix)]
type RelayInput = std::os::fd::OwnedFd;
#[cfg(not(unix))]
type RelayInput = File;
use std::path::Path;
use std::process::{Command, Stdio};

/// A started monitor.
#[derive(Debug)]
pub struct Started {
    /// Its sidecar (already on disk).
    pub sidecar: Sidecar,
}

/// The script the shell runs: an EXIT trap that writes `$?` to `$MON_EXIT`, then the command
/// on its own line (so a trailing comment or an unterminated heredoc in it cannot swallow
/// the trap). A sandboxed shell cannot write under `.clarvis/` (a protected path): the host's
/// reaper writes the exit file for it.
fn script(command: &str, sandboxed: bool) -> String {
    if sandboxed {
        return format!("{command}\n");
    }
    format!("trap 'echo $? > \"$MON_EXIT\"' EXIT\n{command}\n")
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
) -> io::Result<Started> {
    ensure_dir(root)?;
    // A fresh id whose files do not exist yet (4 random bytes: a collision is rare, not impossible).
    let id = loop {
        let id = new_id();
        if !file(root, &id, "json").exists() && !file(root, &id, "log").exists() {
            break id;
        }
    };
    let log_path = file(root, &id, "log");
    let (out, relay_input, relay_files) = match open_output(root, &id, &log_path, log_max) {
        Ok(v) => v,
        Err(e) => {
            remove_files(root, &id);
            return Err(e);
        }
    };
    let err = out.try_clone()?;
    let mut cmd = match sandbox {
        Some(s) => s.shell(),
        None => Command::new("/bin/sh"),
    };
    cmd.arg("-c")
        .arg(script(command, sandbox.is_some()))
        .current_dir(cwd)
        // As for `bash` (`group::spawn`): no inherited CDPATH.
        .env_remove("CDPATH")
        .env("MON_EXIT", file(root, &id, "exit"))
        .env(CALL_ID_VAR, &id)
        .stdin(Stdio::null())
        .stdout(Stdio::from(out))
        .stderr(Stdio::from(err));
    crate::process::group::new_session(&mut cmd);
    if let Some(s) = sandbox {
        if let Err(e) = s.confine(&mut cmd, cwd) {
            remove_files(root, &id);
            return Err(e);
        }
    }
    let spawned = cmd.spawn();
    // The command's copies of the pipe's write end are the only ones left: the relay sees
    // end of file when the monitor and all its children are gone.
    drop(cmd);
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) => {
            remove_files(root, &id);
            return Err(e);
        }
    };
    #[cfg(unix)]
    if let (Some(input), Some((log, state))) = (relay_input, relay_files) {
        if let Err(e) = super::relay::spawn(&input, &log, &state, log_max) {
            // Without a relay nobody reads the pipe: the command would block. End it.
            super::stop_pid(child.id(), &id);
            let _ = child.wait();
            remove_files(root, &id);
            return Err(e);
        }
    }
    #[cfg(not(unix))]
    let _ = (relay_input, relay_files);
    let sidecar = Sidecar {
        id,
        command: command.to_string(),
        cwd: cwd.to_string_lossy().into_owned(),
        pid: child.id(),
        started_at: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as u64)
            .unwrap_or(0),
        ready_when: ready_when.map(str::to_string),
    };
    // Reap it when it exits, so it does not linger as a zombie of this process (liveness is
    // judged from the pid, and a new instance would see it as a stranger's process).
    let exit_file = sandbox.is_some().then(|| file(root, &sidecar.id, "exit"));
    let _ = std::thread::Builder::new()
        .name("clarvis-monitor-reaper".into())
        .spawn(move || {
            // A sandboxed shell has no EXIT trap: its exit code is written here, as the trap
            // would have (nothing after a kill by a signal) — before the zombie is reaped, so
            // a poll that sees the pid gone finds the file (`read::poll` waits on a zombie).
            let write = |path: &Path, code: i32| std::fs::write(path, format!("{code}\n")).is_ok();
            let written = exit_file
                .as_deref()
                .is_some_and(|path| exit_code_unreaped(&child).is_some_and(|c| write(path, c)));
            let status = child.wait();
            if let (Some(path), false, Ok(Some(code))) =
                (exit_file, written, status.map(|s| s.code()))
            {
                write(&path, code);
            }
        });
    save(root, &sidecar)?;
    Ok(Started { sidecar })
}

/// Waits for `child` to exit without reaping it (it stays a zombie) and returns its exit code,
/// or `None` when a signal ended it (or off Linux, where the caller writes the code after
/// reaping, a moment after the pid is gone).
fn exit_code_unreaped(child: &std::process::Child) -> Option<i32> {
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
            (info.si_code == libc::CLD_EXITED).then(|| info.si_status())
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

/// Where the command's output goes, the relay's input, and the relay's log and state files.
/// On Unix: a pipe whose write end the command gets, read by the relay; elsewhere the log
/// itself, opened for append.
#[allow(clippy::type_complexity)]
fn open_output(
    root: &Path,
    id: &str,
    log_path: &Path,
    log_max: u64,
) -> io::Result<(File, Option<RelayInput>, Option<(File, File)>)> {
    #[cfg(unix)]
    {
        let log = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(log_path)?;
        let state = super::relay::create_state(&file(root, id, "state"))?;
        let (read, write) = super::relay::pipe()?;
        let _ = log_max;
        Ok((File::from(write), Some(read), Some((log, state))))
    }
    #[cfg(not(unix))]
    {
        let _ = (root, id, log_max);
        let log = std::fs::OpenOptions::new()
            .append(true)
            .create_new(true)
            .open(log_path)?;
        Ok((log, None, None))
    }
}
