//! The relay process itself: the pipe, the fork and the child's loop (every Unix; the
//! Linux-only calls — `pipe2`, `close_range`, naming the process — have portable fallbacks).
//! Its input is the pipe the command writes to, or a terminal monitor's master, which reads
//! `EIO` (Linux) or end of file once the terminal's last slave is closed.

use super::{encode, STATE_LEN};
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};

/// A pipe, both ends close-on-exec: `(read, write)`. (std makes it with `pipe2(O_CLOEXEC)`
/// where the kernel has it, so no concurrent spawn inherits the write end, which would keep
/// the relay from ever seeing end of file; elsewhere `pipe` + `FD_CLOEXEC`.)
pub fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let (read, write) = io::pipe()?;
    Ok((OwnedFd::from(read), OwnedFd::from(write)))
}

/// Forks the relay copying `input` into `log` (empty, opened for writing) within `max` bytes,
/// counting in `state`. Returns its pid; a thread of the host reaps it when it exits.
pub fn spawn(input: &OwnedFd, log: &File, state: &File, max: u64) -> io::Result<libc::pid_t> {
    let chunk = super::chunk_size(max);
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
            {}
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
    // Reads this thread's errno portably; no allocation (an OS error is a packed integer).
    io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

/// The child's whole life. Async-signal-safe calls only, no allocation, no panics.
unsafe fn relay(fds: Fds, max: u64, buf: &mut [u8], copy: &mut [u8]) -> ! {
    libc::setsid();
    let mut set: libc::sigset_t = std::mem::zeroed();
    libc::sigemptyset(&mut set);
    libc::sigprocmask(libc::SIG_SETMASK, &set, std::ptr::null_mut());
    // The host's handlers are meaningless here: every signal back to its default.
    #[cfg(target_os = "linux")]
    let last = libc::SIGRTMAX();
    #[cfg(not(target_os = "linux"))]
    let last = 31;
    for sig in 1..=last {
        if sig != libc::SIGKILL && sig != libc::SIGSTOP {
            libc::signal(sig, libc::SIG_DFL);
        }
    }
    close_others(&[fds.input, fds.log, fds.state]);
    // The name people see in `ps`. Linux: `is_relay` knows it by the state file it holds,
    // from the fork on. Elsewhere a fork cannot rename itself without an exec, and `is_relay`
    // recognises it as a live session leader.
    #[cfg(target_os = "linux")]
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
            match errno() {
                libc::EINTR => continue,
                // A terminal's master is one open file description shared with the host,
                // which makes it non-blocking for the length of each input write: wait for
                // the next output and read again.
                libc::EAGAIN => {
                    wait_readable(fds.input);
                    continue;
                }
                // End of the terminal (`EIO`: its every slave is closed) or a read error.
                _ => break,
            }
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

/// Waits until `fd` has something to read (or is closed), without regard to `O_NONBLOCK`:
/// `poll` where it works on terminals. A sleep would add its length to every answer that
/// arrives while the host writes a keystroke (its echo comes back within that window).
unsafe fn wait_readable(fd: RawFd) {
    // macOS's `poll` does not take devices: a short sleep there.
    #[cfg(not(target_os = "macos"))]
    {
        let mut p = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        libc::poll(&mut p, 1, -1);
    }
    #[cfg(target_os = "macos")]
    {
        let _ = fd;
        let pause = libc::timespec {
            tv_sec: 0,
            tv_nsec: 200_000,
        };
        libc::nanosleep(&pause, std::ptr::null_mut());
    }
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
    #[cfg(target_os = "linux")]
    if libc::syscall(libc::SYS_close_range, from, to_excl - 1, 0) == 0 {
        return;
    }
    let end = to_excl.min(65536);
    for fd in from..end {
        libc::close(fd as i32);
    }
}
