//! The log relay (every Unix): a monitor's output goes through a pipe (or, for a terminal
//! monitor, the terminal's master) to a small process that appends it to the log and keeps
//! the log under `monitorLogMaxBytes`, dropping its oldest part. Holding the master, the relay
//! also keeps a terminal monitor's terminal open when the host that started it is gone.
//!
//! Why a separate process: the monitor must outlive the host (the state is on disk, a new
//! instance lists, polls and stops it), so nothing in the host may sit between the command
//! and its log — if the host died, the command would get SIGPIPE. And why a *fork* of the
//! host rather than a program: the package ships one native library and no executable. The
//! child runs only raw system calls (read, pwrite, ftruncate, flock) on buffers allocated
//! before the fork, never the allocator or a lock, which is what POSIX allows after forking
//! a multi-threaded process; it leaves the host's session, closes every other descriptor and
//! names itself `clarvis-relay`. It never holds the command up longer than a copy takes, and
//! exits when the last writer closes the pipe (the monitor and all its children are gone).
//!
//! The log is a rolling window: when a write would take it past `max` bytes, its oldest bytes
//! are dropped so that about `max / 2` remain (cut after a line break when one is near, else
//! on a character boundary), moved to the front of the same file under an exclusive `flock`
//! (readers take a shared one). The state file counts the bytes dropped so far, so offsets
//! stay those of the whole output: `<20 decimal digits><r|d><10 decimal digits>`: the bytes
//! dropped, `d` once the relay wrote everything and is exiting, and the relay's pid (so
//! `monitor_stop` can wait for it to be gone).

use std::fs::File;
use std::io;
use std::path::Path;

/// Length of the state file.
pub const STATE_LEN: usize = 31;

/// What the state file says: bytes dropped from the log's front, and whether the relay is done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct State {
    /// Bytes of output no longer in the log (logical offset of the log's first byte).
    pub dropped: u64,
    /// The relay has written all output and exited (or there is no relay).
    pub done: bool,
    /// The relay's pid, once it has started (`None` without a relay).
    pub relay: Option<u32>,
}

/// Reads a state file; a missing or unreadable one means a log without a relay.
pub fn read_state(path: &Path) -> State {
    let Ok(bytes) = std::fs::read(path) else {
        return State {
            dropped: 0,
            done: true,
            relay: None,
        };
    };
    let digits = bytes.get(..20).unwrap_or(&[]);
    let dropped = std::str::from_utf8(digits)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let relay = bytes
        .get(21..STATE_LEN)
        .and_then(|d| std::str::from_utf8(d).ok())
        .and_then(|s| s.parse::<u32>().ok())
        .filter(|&p| p > 0);
    State {
        dropped,
        done: bytes.get(20) != Some(&b'r'),
        relay,
    }
}

/// Writes `n` as zero-padded decimal into `out` (no allocation: the relay calls it).
fn digits(out: &mut [u8], mut n: u64) {
    let mut i = out.len();
    while i > 0 {
        i -= 1;
        out[i] = b'0' + (n % 10) as u8;
        n /= 10;
    }
}

fn encode(dropped: u64, state: u8, relay: u32) -> [u8; STATE_LEN] {
    let mut out = [b'0'; STATE_LEN];
    digits(&mut out[..20], dropped);
    out[20] = state;
    digits(&mut out[21..], u64::from(relay));
    out
}

/// Creates the state file (`0`, running) exclusively.
pub fn create_state(path: &Path) -> io::Result<File> {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .open(path)?;
    f.write_all(&encode(0, b'r', 0))?;
    Ok(f)
}

/// Waits (up to `wait`) for the relay of the monitor whose state file is `path` to write the
/// last output and exit — its input closes once the monitor's processes are gone — and
/// SIGKILLs it if it is still there then (a writer outside the monitor's tree holds the
/// pipe). Returns whether no relay is left. Used by `monitor_stop`, so that it returns with
/// nothing of the monitor running.
pub fn finish(path: &Path, wait: std::time::Duration) -> bool {
    let deadline = std::time::Instant::now() + wait;
    let Some(pid) = read_state(path).relay else {
        return true;
    };
    while !read_state(path).done && is_relay(pid, path) && std::time::Instant::now() < deadline {
        pause();
    }
    if read_state(path).done {
        // It exits right after saying so, whatever the load; `is_relay` knows it by the
        // state file it holds, so no other process is waited for.
        return exited(pid, path);
    }
    if is_relay(pid, path) {
        #[cfg(unix)]
        // SAFETY: a plain syscall on our relay, which has not finished (so its pid is its own).
        unsafe {
            libc::kill(pid as libc::pid_t, libc::SIGKILL);
        }
        return exited(pid, path);
    }
    true
}

/// How long a relay that has finished, or was SIGKILLed, may take to be gone. It has nothing
/// left to do: only a relay stopped by someone (SIGSTOP) ever comes near this bound.
const EXIT_BOUND: std::time::Duration = std::time::Duration::from_secs(30);

/// Waits until relay `pid` of state file `path` is gone (at most [`EXIT_BOUND`]); returns
/// whether it is.
pub fn exited(pid: u32, path: &Path) -> bool {
    let end = std::time::Instant::now() + EXIT_BOUND;
    while is_relay(pid, path) && std::time::Instant::now() < end {
        pause();
    }
    !is_relay(pid, path)
}

fn pause() {
    std::thread::sleep(std::time::Duration::from_millis(2));
}

/// Whether `pid` is the live relay of the monitor whose state file is `state`. Linux: a
/// process holding `state` open — the relay does from its fork (before it has named itself)
/// until it exits and the kernel closes its files, and no other process does, so a reused
/// pid is never taken for it.
#[cfg(target_os = "linux")]
pub fn is_relay(pid: u32, state: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    let Ok(want) = std::fs::metadata(state) else {
        return false;
    };
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return false;
    };
    fds.flatten().any(|fd| {
        std::fs::metadata(fd.path()).is_ok_and(|m| m.dev() == want.dev() && m.ino() == want.ino())
    })
}

/// Whether `pid` is a live relay process. Other Unixes: a fork cannot rename itself, so the
/// test is weaker — the pid is alive and leads its own session, as the relay does. It is only
/// asked while the state file says the relay has not finished, or just after, so a reused
/// pid passes it only if the relay died without finishing and its pid went to another
/// session leader.
#[cfg(all(unix, not(target_os = "linux")))]
pub fn is_relay(pid: u32, _state: &Path) -> bool {
    let Ok(p) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // SAFETY: plain queries about a pid; no memory is passed.
    unsafe { p > 1 && libc::kill(p, 0) == 0 && libc::getsid(p) == p }
}

/// Off Unix the relay is a thread of the host ([`thread`]): `pid` is this process and the
/// thread has not finished.
#[cfg(not(unix))]
pub fn is_relay(pid: u32, state: &Path) -> bool {
    pid == std::process::id() && thread::is_running(state)
}

/// Whether a process other than relay `pid` holds the relay's input pipe — or, for a
/// terminal monitor, the terminal's slave `tty` (its device path; empty for none) — a
/// background child of the monitor, still able to write. When none does, the relay's end of
/// file is certain. Linux; elsewhere `true` (not knowable: the caller keeps to its short wait).
#[cfg(target_os = "linux")]
pub fn pipe_shared(pid: u32, tty: &str) -> bool {
    let link = |p: &Path| std::fs::read_link(p).ok();
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return false;
    };
    let mut pipes: Vec<_> = fds
        .flatten()
        .filter_map(|fd| link(&fd.path()))
        .filter(|l| l.to_string_lossy().starts_with("pipe:"))
        .collect();
    if !tty.is_empty() {
        pipes.push(std::path::PathBuf::from(tty));
    }
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return true;
    };
    procs
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|n| n.parse::<u32>().is_ok_and(|p| p != pid))
        })
        .filter_map(|e| std::fs::read_dir(e.path().join("fd")).ok())
        .flat_map(|fds| fds.flatten())
        .any(|fd| link(&fd.path()).is_some_and(|l| pipes.contains(&l)))
}

/// See the Linux version: not knowable here.
#[cfg(not(target_os = "linux"))]
pub fn pipe_shared(_pid: u32, _tty: &str) -> bool {
    true
}

#[cfg(unix)]
mod child;
pub mod thread;
#[cfg(unix)]
pub use child::{pipe, spawn, ExitCopy};

/// How much one read takes: at most a quarter of the window, so that after a drop (to half)
/// a chunk always fits.
fn chunk_size(max: u64) -> usize {
    usize::try_from((max / 4).clamp(1, 64 * 1024)).unwrap_or(64 * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s");
        assert_eq!(
            read_state(&p),
            State {
                dropped: 0,
                done: true,
                relay: None
            }
        );
        create_state(&p).unwrap();
        assert_eq!(
            read_state(&p),
            State {
                dropped: 0,
                done: false,
                relay: None
            }
        );
        std::fs::write(&p, encode(12_345_678_901, b'd', 4242)).unwrap();
        assert_eq!(
            read_state(&p),
            State {
                dropped: 12_345_678_901,
                done: true,
                relay: Some(4242)
            }
        );
        assert_eq!(&encode(7, b'r', 99)[..], b"00000000000000000007r0000000099");
    }
}
