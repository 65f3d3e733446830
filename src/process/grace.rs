//! The graceful first step of a kill (`killGraceMs`): SIGTERM to everything the call
//! started, then a wait for the shell to exit on its own. What is left after it is taken by
//! the SIGKILL pass of [`group`].

#[cfg(target_os = "linux")]
use super::group;

/// Asks the whole tree to stop, each process once: SIGTERM to the group (the shell included),
/// then to every descendant of the shell `pgid` and every process marked with `id` that is
/// outside the group (`setsid` children), parents before children; then waits up to `grace`
/// for the shell to exit, without reaping it (its pid, the group id, stays ours for the
/// SIGKILL pass that follows). Returns whether the shell exited within the grace. Linux only;
/// elsewhere it returns `false` at once.
///
/// The order is what makes a trap dependable. A POSIX shell runs a trap only between
/// commands: were a child signalled first and the shell a moment later, the shell could reap
/// the dead child, find no trap pending and start its next command, which then holds the
/// trap back past the grace. `killpg` queues the signal to every member of the group in one
/// step, so the shell has it before any child it waits for can die.
pub fn terminate(pgid: u32, id: &str, grace: std::time::Duration) -> bool {
    terminate_paced(pgid, id, grace, std::time::Duration::ZERO)
}

/// [`terminate`], pausing `pace` after each signal it sends: tests widen the window between
/// two signals with it, to show that no order of delivery depends on the sender's speed.
fn terminate_paced(
    pgid: u32,
    id: &str,
    grace: std::time::Duration,
    pace: std::time::Duration,
) -> bool {
    #[cfg(target_os = "linux")]
    {
        let Ok(root) = libc::pid_t::try_from(pgid) else {
            return false;
        };
        if root <= 1 {
            return false;
        }
        // One snapshot before any signal: the processes a trap starts from here on are its
        // own clean-up and must not be signalled.
        let needle = format!("{}={id}", group::CALL_ID_VAR).into_bytes();
        let mut targets = group::descendants(root);
        targets.extend(group::marked_pids(&needle, std::process::id()));
        // SAFETY: plain syscall on our own group; ESRCH is fine.
        unsafe {
            libc::killpg(root, libc::SIGTERM);
        }
        pause(pace);
        let mut sent = std::collections::HashSet::from([root]);
        for pid in targets {
            // Members of the group have the signal already: a second one reads as an
            // insistent user to the many programs that quit hard on it.
            // SAFETY: plain syscalls on descendants of our unreaped child or marked processes.
            if sent.insert(pid) && unsafe { libc::getpgid(pid) } != root {
                // SAFETY: as above.
                unsafe {
                    libc::kill(pid, libc::SIGTERM);
                }
                pause(pace);
            }
        }
        let deadline = std::time::Instant::now() + grace;
        loop {
            if exited(root) {
                return true;
            }
            if std::time::Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (pgid, id, grace, pace);
        false
    }
}

/// Sleeps `pace` (tests only; nothing at all in use).
#[cfg(target_os = "linux")]
fn pause(pace: std::time::Duration) {
    if !pace.is_zero() {
        std::thread::sleep(pace);
    }
}

/// Whether our child `pid` has exited, leaving it unreaped (`WNOWAIT`).
#[cfg(target_os = "linux")]
fn exited(pid: libc::pid_t) -> bool {
    // SAFETY: `info` is a plain C struct written by the kernel; zeroed is a valid value.
    unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        let r = libc::waitid(
            libc::P_PID,
            pid as libc::id_t,
            &mut info,
            libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
        );
        r == 0 && info.si_pid() != 0
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::time::Duration;
    use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};

    /// A shell that traps SIGTERM waits on a child in its group or, after `setsid`, outside
    /// it. Whatever the sender's pace between two signals (here 300 ms, time enough for the
    /// shell to reap a child that died first and run on to `echo next`), the shell has the
    /// signal before its child dies, so its trap runs.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_shell_hears_the_kill_before_its_children_die() {
        for launcher in ["", "setsid "] {
            let dir = tempfile::tempdir().unwrap();
            let id = format!("grace-order-{}", launcher.len());
            let command = format!(
                "trap 'echo trapped; exit 0' TERM; {launcher}sh -c 'echo armed; exec sleep 1000'; echo next"
            );
            let (mut child, _) = group::spawn(&command, dir.path(), &id, None, None).unwrap();
            let pid = child.id().unwrap();
            let mut out = BufReader::new(child.stdout.take().unwrap());
            let mut line = String::new();
            // The child prints `armed` after the trap is set and after `setsid`.
            out.read_line(&mut line).await.unwrap();
            assert_eq!(line, "armed\n");
            let id2 = id.clone();
            let termed = tokio::task::spawn_blocking(move || {
                terminate_paced(
                    pid,
                    &id2,
                    Duration::from_secs(30),
                    Duration::from_millis(300),
                )
            })
            .await
            .unwrap();
            group::kill_tree(pid);
            group::kill_group(pid);
            group::sweep_marked(&id);
            let mut rest = String::new();
            out.read_to_string(&mut rest).await.unwrap();
            child.wait().await.unwrap();
            assert_eq!(
                (launcher, rest.as_str(), termed),
                (launcher, "trapped\n", true)
            );
        }
    }
}
