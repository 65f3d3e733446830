//! The host's reaper of a monitor's shell: a thread that waits for the shell to exit, writes
//! what must be on disk before the monitor is seen as ended — a sandboxed shell's exit code,
//! 130 for a terminal's Ctrl-C, a captured monitor's staged changes (see
//! [`super::captured`]) — and only then reaps it, so it does not linger as a zombie of this
//! process (liveness is judged from the pid, and a new instance would see it as a stranger's
//! process).

use super::captured::Armed;
use std::path::{Path, PathBuf};

/// What the reaper of one monitor is given.
pub(super) struct Reaper {
    /// The shell.
    pub child: std::process::Child,
    /// The exit file, when the reaper writes it (a sandboxed shell's trap cannot, and a
    /// terminal's Ctrl-C ends the shell by a signal no trap reports).
    pub exit_file: Option<PathBuf>,
    /// Whether the shell's own EXIT trap writes the exit file (what it wrote stays).
    pub trapped: bool,
    /// Whether the shell runs on a terminal (a SIGINT death is reported as 130).
    pub on_terminal: bool,
    /// A captured monitor's overlay, staged before anything else is written.
    pub armed: Option<Armed>,
}

/// Starts the reaper thread.
pub(super) fn reaper(r: Reaper) {
    let _ = std::thread::Builder::new()
        .name("clarvis-monitor-reaper".into())
        .spawn(move || reap(r));
}

fn reap(r: Reaper) {
    let Reaper {
        mut child,
        exit_file,
        trapped,
        on_terminal,
        armed,
    } = r;
    let pid = child.id();
    let id = armed.as_ref().map(|a| (a.root.clone(), a.id.clone()));
    // A sandboxed shell's EXIT trap cannot write the exit file (the relay moves what it
    // wrote, later): its exit code is written here too, as the trap would have (nothing after
    // a kill by a signal) — before the zombie is reaped, so a poll that sees the pid gone
    // finds the file (`read::poll` waits on a zombie). On a terminal a Ctrl-C ends the shell
    // by SIGINT (see `spawn::script`), which no trap reports: written as 130, what a shell
    // reports for a command the interrupt ended. What the EXIT trap wrote stays.
    let write = |path: &Path, code: i32| {
        (trapped && super::line_written(path)) || std::fs::write(path, format!("{code}\n")).is_ok()
    };
    let code = |how: Ended| match how {
        Ended::Code(c) => Some(c),
        Ended::Signal(libc::SIGINT) if on_terminal => Some(130),
        Ended::Signal(_) => None,
    };
    let how = if exit_file.is_some() || armed.is_some() {
        exit_unreaped(&child)
    } else {
        None
    };
    // Without an unreaped exit (off Linux, or waitid failed) a capture is staged after the
    // reap: later than promised, never lost.
    let mut armed = armed;
    if how.is_some() {
        if let Some(a) = armed.take() {
            a.finish(pid);
        }
    }
    let written = exit_file
        .as_deref()
        .is_some_and(|path| how.and_then(code).is_some_and(|c| write(path, c)));
    if let (Some((root, id)), true) = (&id, armed.is_none()) {
        super::captured::staged(root, id);
    }
    let status = child.wait();
    if let Some(a) = armed {
        a.finish(pid);
    }
    if let (Some(path), false, Ok(status)) = (exit_file, written, status) {
        if let Some(c) = ended(status).and_then(code) {
            write(&path, c);
        }
    }
    if let Some((root, id)) = &id {
        super::captured::staged(root, id);
    }
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
