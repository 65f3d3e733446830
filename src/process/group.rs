//! Starting a command in its own session and killing everything it started.
//!
//! The shell runs in a new session (`setsid`), so it leads a fresh process group whose id
//! is its pid and it has no controlling terminal (a command that opens `/dev/tty` fails at
//! once instead of hanging until the timeout). Every process of the call also inherits
//! `CLARVIS_CALL_ID=<unique>` in its environment. On Linux the shell is also made a *child
//! subreaper* (`PR_SET_CHILD_SUBREAPER`, kept across `exec`): a descendant orphaned by a
//! double fork is re-parented to the shell instead of init, so while the shell lives every
//! process of the call — whatever its session, group or environment — is in the shell's
//! process tree.
//!
//! Killing is therefore three-fold, in this order: [`kill_tree`] stops the shell and SIGKILLs
//! its descendants (the shell still alive, so orphans keep landing under it) until none is left,
//! then `killpg(SIGKILL)` takes the group and the shell, then [`sweep_marked`] walks
//! `/proc/*/environ` for processes carrying the call's marker (the only net left once the
//! shell has exited, e.g. for an abort during the drain). A process that both scrubs its
//! environment and outlives the shell escapes; this is a cleanup, not a sandbox.

use std::path::Path;
use std::process::Stdio;
use tokio::process::{Child, Command};

/// The environment variable that marks every process of one call.
pub const CALL_ID_VAR: &str = "CLARVIS_CALL_ID";

/// The environment variable that marks every process of one shell session (see
/// [`super::session`]), whichever call started it.
pub const SESSION_ID_VAR: &str = "CLARVIS_SESSION_ID";

/// Starts `sh -c <command>` in `cwd` with stdin on `/dev/null`, stdout and stderr piped,
/// in a new session, marked with `CLARVIS_CALL_ID=<id>`, without `CDPATH`, and confined by
/// `sandbox` when given (the one hook of the sandbox in the spawn path). The shell is the
/// sandbox's, else [`super::shell::shell`] (its error, on Windows without Git for Windows'
/// `sh.exe`, says so). With `capture` (review mode, `sandbox` given) the command runs over an
/// overlay instead ([`crate::sandbox::Sandbox::confine_captured`]), returned with the child.
pub fn spawn(
    command: &str,
    cwd: &Path,
    id: &str,
    sandbox: Option<&crate::sandbox::Sandbox>,
    capture: Option<&crate::sandbox::capture::Request<'_>>,
) -> std::io::Result<(Child, Option<crate::sandbox::capture::Captured>)> {
    let mut cmd = match sandbox {
        Some(s) => s.shell(),
        None => std::process::Command::new(super::shell::shell()?),
    };
    cmd.arg("-c")
        .arg(command)
        .current_dir(cwd)
        // An inherited CDPATH would send `cd name` somewhere the guard's analysis of the
        // command cannot see (SPEC "Guard and elicit").
        .env_remove("CDPATH")
        .env(CALL_ID_VAR, id)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    new_session(&mut cmd);
    let captured = match (sandbox, capture) {
        (Some(s), Some(request)) => Some(s.confine_captured(&mut cmd, cwd, request)?),
        (Some(s), None) => {
            s.confine(&mut cmd, cwd)?;
            None
        }
        (None, _) => None,
    };
    let mut cmd = Command::from(cmd);
    cmd.kill_on_drop(false);
    Ok((cmd.spawn()?, captured))
}

/// Makes `cmd` start a new session (its own process group, no controlling terminal) and, on
/// Linux, a child subreaper (orphans of double forks stay in its tree while it lives).
pub fn new_session(cmd: &mut std::process::Command) {
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: `setsid` and `prctl` are async-signal-safe and touch no parent memory.
        unsafe {
            cmd.pre_exec(|| {
                if libc::setsid() == -1 {
                    return Err(std::io::Error::last_os_error());
                }
                // Best effort: without it only the group kill and the marker sweep remain.
                #[cfg(target_os = "linux")]
                libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
                Ok(())
            });
        }
    }
    #[cfg(not(unix))]
    let _ = cmd;
}

/// Sends SIGKILL to the process group `pgid` (a no-op when it is gone).
pub fn kill_group(pgid: u32) {
    #[cfg(unix)]
    if let Ok(pgid) = libc::pid_t::try_from(pgid) {
        if pgid > 1 {
            // SAFETY: plain syscall; ESRCH (group already gone) is fine.
            unsafe {
                libc::killpg(pgid, libc::SIGKILL);
            }
        }
    }
    #[cfg(not(unix))]
    let _ = pgid;
}

/// Stops `root` (SIGSTOP) and SIGKILLs every descendant of it, repeating until a pass finds
/// none alive: a process may fork between two passes, and its orphans re-parent to `root`
/// (a subreaper) as long as `root` lives. Call it before killing `root` (SIGKILL ends a
/// stopped process too). Linux only;
/// elsewhere it does nothing. Returns how many signals were sent.
pub fn kill_tree(root: u32) -> usize {
    #[cfg(target_os = "linux")]
    {
        let Ok(root) = libc::pid_t::try_from(root) else {
            return 0;
        };
        if root <= 1 {
            return 0;
        }
        // Freeze the shell first: it must neither exit (its orphans would go to init, out of
        // reach) nor report its children's deaths ("Killed") into the captured stderr.
        // SAFETY: plain syscall on our own unreaped child.
        unsafe {
            libc::kill(root, libc::SIGSTOP);
        }
        // Descendants of our own unreaped child: their pids cannot be reused meanwhile.
        kill_until_gone(50, 2, || descendants(root))
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = root;
        0
    }
}

/// SIGKILLs every pid `find` returns, pass after pass (a dying parent's children can show up
/// only in the next snapshot), until a pass finds none or `rounds` run out, pausing
/// `pause_ms` between passes. Returns how many signals were sent.
#[cfg(target_os = "linux")]
fn kill_until_gone(
    rounds: usize,
    pause_ms: u64,
    mut find: impl FnMut() -> Vec<libc::pid_t>,
) -> usize {
    let mut sent = 0;
    for _ in 0..rounds {
        let pids = find();
        if pids.is_empty() {
            break;
        }
        for pid in pids {
            // SAFETY: a plain syscall; callers only return pids they may signal (see there).
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
            sent += 1;
        }
        std::thread::sleep(std::time::Duration::from_millis(pause_ms));
    }
    sent
}

/// The live (not zombie) descendants of `root`, from one snapshot of `/proc/*/stat`.
#[cfg(target_os = "linux")]
pub(super) fn descendants(root: libc::pid_t) -> Vec<libc::pid_t> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    // (pid, ppid, zombie) for every process that could be read.
    let table: Vec<(libc::pid_t, libc::pid_t, bool)> = dir
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<libc::pid_t>().ok())
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            // `pid (comm) state ppid …`; comm may hold spaces and parentheses.
            let rest = &stat[stat.rfind(')')? + 1..];
            let mut fields = rest.split_ascii_whitespace();
            let state = fields.next()?;
            let ppid = fields.next()?.parse().ok()?;
            Some((pid, ppid, state == "Z" || state == "X"))
        })
        .collect();
    let mut found = Vec::new();
    let mut frontier = vec![root];
    let mut seen = std::collections::HashSet::from([root]);
    while let Some(parent) = frontier.pop() {
        for &(pid, ppid, zombie) in &table {
            if ppid == parent && seen.insert(pid) {
                frontier.push(pid);
                if !zombie {
                    found.push(pid);
                }
            }
        }
    }
    found
}

/// SIGKILLs every process whose environment holds `CLARVIS_CALL_ID=<id>`, repeating until
/// a pass finds none (a process may fork while the sweep runs). Linux only; elsewhere it
/// does nothing. Returns how many signals were sent.
pub fn sweep_marked(id: &str) -> usize {
    sweep_marked_as(CALL_ID_VAR, id)
}

/// [`sweep_marked`] for the marker variable `var` (`CLARVIS_CALL_ID` or
/// `CLARVIS_SESSION_ID`).
pub fn sweep_marked_as(var: &str, id: &str) -> usize {
    #[cfg(target_os = "linux")]
    {
        let needle = format!("{var}={id}").into_bytes();
        let me = std::process::id();
        // Pids that carried our marker a moment ago.
        kill_until_gone(8, 5, || marked_pids(&needle, me))
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (var, id);
        0
    }
}

/// The pids (other than `me`) whose environment holds `needle` (`CLARVIS_CALL_ID=<id>`).
#[cfg(target_os = "linux")]
pub(super) fn marked_pids(needle: &[u8], me: u32) -> Vec<libc::pid_t> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<libc::pid_t>().ok())
        .filter(|&pid| pid as u32 != me)
        .filter(|pid| {
            // Zombies and other users' processes read as empty or fail: skipped.
            std::fs::read(format!("/proc/{pid}/environ"))
                .is_ok_and(|env| env.split(|&b| b == 0).any(|var| var == needle))
        })
        .collect()
}

/// Kills the tree and the group and sweeps the marker if dropped while armed, so a call abandoned
/// mid-run (its future dropped) leaves nothing behind.
pub struct Guard {
    pgid: u32,
    id: String,
    armed: bool,
}

impl Guard {
    /// Arms a guard for the group `pgid` marked with `id`.
    pub fn new(pgid: u32, id: &str) -> Guard {
        Guard {
            pgid,
            id: id.to_string(),
            armed: true,
        }
    }

    /// The call finished normally: the group is left alone (backgrounded processes live on).
    pub fn disarm(&mut self) {
        self.armed = false;
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        if self.armed {
            // Synchronously, while the shell is alive and its pid cannot have been reused.
            kill_tree(self.pgid);
            kill_group(self.pgid);
            let id = std::mem::take(&mut self.id);
            // Off the current thread: a drop must not block on a /proc walk.
            let _ = std::thread::Builder::new().spawn(move || sweep_marked(&id));
        }
    }
}

/// The name Node gives signal `n` (`SIGTERM`), or `SIG<n>` for one without a name.
pub fn signal_name(n: i32) -> String {
    #[cfg(unix)]
    {
        #[cfg(any(target_os = "linux", target_os = "android"))]
        match n {
            libc::SIGSTKFLT => return "SIGSTKFLT".into(),
            libc::SIGPWR => return "SIGPWR".into(),
            _ => {}
        }
        let name = match n {
            libc::SIGHUP => "SIGHUP",
            libc::SIGINT => "SIGINT",
            libc::SIGQUIT => "SIGQUIT",
            libc::SIGILL => "SIGILL",
            libc::SIGTRAP => "SIGTRAP",
            libc::SIGABRT => "SIGABRT",
            libc::SIGBUS => "SIGBUS",
            libc::SIGFPE => "SIGFPE",
            libc::SIGKILL => "SIGKILL",
            libc::SIGUSR1 => "SIGUSR1",
            libc::SIGSEGV => "SIGSEGV",
            libc::SIGUSR2 => "SIGUSR2",
            libc::SIGPIPE => "SIGPIPE",
            libc::SIGALRM => "SIGALRM",
            libc::SIGTERM => "SIGTERM",
            libc::SIGCHLD => "SIGCHLD",
            libc::SIGCONT => "SIGCONT",
            libc::SIGSTOP => "SIGSTOP",
            libc::SIGTSTP => "SIGTSTP",
            libc::SIGTTIN => "SIGTTIN",
            libc::SIGTTOU => "SIGTTOU",
            libc::SIGURG => "SIGURG",
            libc::SIGXCPU => "SIGXCPU",
            libc::SIGXFSZ => "SIGXFSZ",
            libc::SIGVTALRM => "SIGVTALRM",
            libc::SIGPROF => "SIGPROF",
            libc::SIGWINCH => "SIGWINCH",
            libc::SIGIO => "SIGIO",
            libc::SIGSYS => "SIGSYS",
            _ => return format!("SIG{n}"),
        };
        name.into()
    }
    #[cfg(not(unix))]
    format!("SIG{n}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(signal_name(15), "SIGTERM");
        assert_eq!(signal_name(9), "SIGKILL");
        assert_eq!(signal_name(2), "SIGINT");
        assert_eq!(signal_name(63), "SIG63");
    }
}
