//! The log relay: a monitor's output goes through a pipe to a small process that appends it to
//! the log and keeps the log under `monitorLogMaxBytes`, dropping its oldest part.
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
    let sleep = || std::thread::sleep(std::time::Duration::from_millis(2));
    while !read_state(path).done && is_relay(pid) && std::time::Instant::now() < deadline {
        sleep();
    }
    if read_state(path).done {
        // It said it is done and exits right after; past that the pid may be another
        // process's (a reused pid is never killed): a short wait, no signal.
        let end = std::time::Instant::now() + std::time::Duration::from_millis(50);
        while is_relay(pid) && std::time::Instant::now() < end {
            sleep();
        }
        return true;
    }
    if is_relay(pid) {
        #[cfg(unix)]
        // SAFETY: a plain syscall on our relay, which has not finished (so its pid is its own).
        unsafe {
            libc::kill(pid as libc::pid_t, libc::SIGKILL);
        }
        let end = std::time::Instant::now() + std::time::Duration::from_secs(2);
        while is_relay(pid) && std::time::Instant::now() < end {
            sleep();
        }
    }
    !is_relay(pid)
}

/// Whether `pid` is a live (not zombie) relay process.
pub fn is_relay(pid: u32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    // `<pid> (<comm>) <state> …`
    let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else {
        return false;
    };
    let state = stat[close + 1..].split_ascii_whitespace().next();
    &stat[open + 1..close] == "clarvis-relay" && !matches!(state, Some("Z") | Some("X"))
}

#[cfg(target_os = "linux")]
pub use fork::{pipe, spawn};

/// The Linux-only part: the pipe, the fork and the child's loop.
#[cfg(target_os = "linux")]
mod fork {
    use super::{encode, STATE_LEN};
    use std::fs::File;
    use std::io;
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

    /// A pipe, both ends close-on-exec: `(read, write)`.
    pub fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
        let mut fds = [0 as RawFd; 2];
        // SAFETY: `fds` has room for the two descriptors the call writes.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: both descriptors were just created and are owned by nobody else.
        Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
    }

    /// How much one read takes: at most a quarter of the window, so that after a drop (to half)
    /// a chunk always fits.
    fn chunk_size(max: u64) -> usize {
        usize::try_from((max / 4).clamp(1, 64 * 1024)).unwrap_or(64 * 1024)
    }

    /// Forks the relay copying `input` into `log` (empty, opened for writing) within `max` bytes,
    /// counting in `state`. Returns its pid; a thread of the host reaps it when it exits.
    pub fn spawn(input: &OwnedFd, log: &File, state: &File, max: u64) -> io::Result<libc::pid_t> {
        let chunk = chunk_size(max);
        // Allocated before the fork: the child must not call the allocator.
        let mut buf = vec![0u8; chunk];
        let mut copy = vec![0u8; 64 * 1024];
        let fds = Fds {
            input: input.as_raw_fd(),
            log: log.as_raw_fd(),
            state: state.as_raw_fd(),
        };
        // SAFETY: the child only runs `relay`, which makes async-signal-safe system calls on
        // memory that exists in it (the buffers above) and ends with `_exit`.
        let pid = unsafe { libc::fork() };
        if pid < 0 {
            return Err(io::Error::last_os_error());
        }
        if pid == 0 {
            // SAFETY: see above; never returns.
            unsafe { relay(fds, max, &mut buf, &mut copy) }
        }
        drop((buf, copy));
        // The pid is in the state file before `start` returns (the child writes it too, but
        // a `monitor_stop` right after the start must not find the file without it).
        let mut pid_digits = [0u8; STATE_LEN - 21];
        super::digits(&mut pid_digits, pid as u64);
        // SAFETY: writes our own buffer to a descriptor we hold.
        unsafe { write_all_at(fds.state, pid_digits.as_ptr(), pid_digits.len(), 21) };
        let _ = std::thread::Builder::new()
            .name("clarvis-relay-reaper".into())
            .spawn(move || {
                let mut status = 0;
                // SAFETY: waits for our own child; EINTR is retried.
                while unsafe { libc::waitpid(pid, &mut status, 0) } == -1
                    && io::Error::last_os_error().raw_os_error() == Some(libc::EINTR)
                {
                }
            });
        Ok(pid)
    }

    #[derive(Clone, Copy)]
    struct Fds {
        input: RawFd,
        log: RawFd,
        state: RawFd,
    }

    fn errno() -> i32 {
        // SAFETY: reads this thread's errno.
        unsafe { *libc::__errno_location() }
    }

    /// The child's whole life. Async-signal-safe calls only, no allocation, no panics.
    unsafe fn relay(fds: Fds, max: u64, buf: &mut [u8], copy: &mut [u8]) -> ! {
        libc::setsid();
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigprocmask(libc::SIG_SETMASK, &set, std::ptr::null_mut());
        // The host's handlers are meaningless here: every signal back to its default.
        for sig in 1..=libc::SIGRTMAX() {
            if sig != libc::SIGKILL && sig != libc::SIGSTOP {
                libc::signal(sig, libc::SIG_DFL);
            }
        }
        close_others(&[fds.input, fds.log, fds.state]);
        libc::prctl(libc::PR_SET_NAME, c"clarvis-relay".as_ptr(), 0, 0, 0);
        let me = libc::getpid() as u32;
        let mut size: u64 = 0;
        let mut dropped: u64 = 0;
        write_state(fds.state, dropped, b'r', me);
        loop {
            let n = libc::read(fds.input, buf.as_mut_ptr().cast(), buf.len());
            if n == 0 {
                break;
            }
            if n < 0 {
                if errno() == libc::EINTR {
                    continue;
                }
                break;
            }
            let n = n as usize;
            if size + n as u64 > max {
                let cut = drop_front(fds, size, max, copy);
                size -= cut;
                dropped += cut;
                write_state(fds.state, dropped, b'r', me);
                libc::flock(fds.log, libc::LOCK_UN);
            }
            if !write_all_at(fds.log, buf.as_ptr(), n, size) {
                // The log is gone or the disk is full: keep draining so the command is not blocked.
                continue;
            }
            size += n as u64;
        }
        write_state(fds.state, dropped, b'd', me);
        libc::_exit(0)
    }

    /// Drops the log's oldest bytes so that about `max / 2` remain; returns how many. Leaves the
    /// log locked exclusively (the caller updates the state file, then unlocks).
    unsafe fn drop_front(fds: Fds, size: u64, max: u64, copy: &mut [u8]) -> u64 {
        let mut cut = size.saturating_sub(max / 2);
        // Start the window on a line when one begins soon, else on a character.
        let peek = copy.len().min(4096).min((size - cut) as usize);
        let got = libc::pread(fds.log, copy.as_mut_ptr().cast(), peek, cut as libc::off_t);
        if got > 0 {
            let got = got as usize;
            let mut i = 0;
            while i < got && copy[i] != b'\n' {
                i += 1;
            }
            if i < got {
                cut += i as u64 + 1;
            } else {
                let mut j = 0;
                while j < got && j < 3 && copy[j] & 0xC0 == 0x80 {
                    j += 1;
                }
                cut += j as u64;
            }
        }
        libc::flock(fds.log, libc::LOCK_EX);
        let (mut src, mut dst) = (cut, 0u64);
        while src < size {
            let want = copy.len().min((size - src) as usize);
            let k = libc::pread(fds.log, copy.as_mut_ptr().cast(), want, src as libc::off_t);
            if k <= 0 {
                break;
            }
            if !write_all_at(fds.log, copy.as_ptr(), k as usize, dst) {
                break;
            }
            src += k as u64;
            dst += k as u64;
        }
        libc::ftruncate(fds.log, dst as libc::off_t);
        size - dst
    }

    unsafe fn write_all_at(fd: RawFd, mut p: *const u8, mut n: usize, mut at: u64) -> bool {
        while n > 0 {
            let w = libc::pwrite(fd, p.cast(), n, at as libc::off_t);
            if w < 0 {
                if errno() == libc::EINTR {
                    continue;
                }
                return false;
            }
            if w == 0 {
                return false;
            }
            let w = w as usize;
            p = p.add(w);
            n -= w;
            at += w as u64;
        }
        true
    }

    unsafe fn write_state(fd: RawFd, dropped: u64, state: u8, me: u32) {
        let bytes = encode(dropped, state, me);
        write_all_at(fd, bytes.as_ptr(), STATE_LEN, 0);
    }

    /// Closes every descriptor but `keep` (`close_range` between them; a loop where the kernel
    /// lacks it).
    unsafe fn close_others(keep: &[RawFd; 3]) {
        let mut k = *keep;
        k.sort_unstable();
        let mut from: u32 = 0;
        for &fd in &k {
            close_between(from, fd as u32);
            from = fd as u32 + 1;
        }
        close_between(from, u32::MAX);
    }

    unsafe fn close_between(from: u32, to_excl: u32) {
        if from >= to_excl {
            return;
        }
        if libc::syscall(libc::SYS_close_range, from, to_excl - 1, 0) == 0 {
            return;
        }
        let end = to_excl.min(65536);
        for fd in from..end {
            libc::close(fd as i32);
        }
    }
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
