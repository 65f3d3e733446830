//! The relay process itself: the pipe, the fork and the child's loop (every Unix; the
//! Linux-only calls — `pipe2`, `close_range`, naming the process — have portable fallbacks).
//! Its input is the pipe the command writes to, or a terminal monitor's master, which reads
//! `EIO` (Linux) or end of file once the terminal's last slave is closed.

use super::{encode, STATE_LEN};
use std::ffi::{CStr, CString};
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// A pipe, both ends close-on-exec: `(read, write)`. (std makes it with `pipe2(O_CLOEXEC)`
/// where the kernel has it, so no concurrent spawn inherits the write end, which would keep
/// the relay from ever seeing end of file; elsewhere `pipe` + `FD_CLOEXEC`.)
pub fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let (read, write) = io::pipe()?;
    Ok((OwnedFd::from(read), OwnedFd::from(write)))
}

/// Where a sandboxed monitor's EXIT trap leaves its code, and where the relay moves it.
///
/// A sandboxed shell cannot write under `.clarvis/` (a protected path), so its trap writes
/// the code into the sandbox's private temporary directory; the relay — which outlives the
/// host — moves it to the monitor's exit file once the shell has exited (Linux: when its
/// pidfd says so; elsewhere when the output ends). With the host alive its reaper writes the
/// same code too; whichever comes first wins (`O_EXCL`), and both write the shell's status.
#[derive(Debug)]
pub struct ExitCopy {
    /// The file the trap writes, as the host names it.
    pub from: CString,
    /// The monitor's exit file.
    pub to: CString,
    /// A pidfd of the monitor's shell (Linux), readable once it has exited.
    pub pidfd: Option<OwnedFd>,
}

impl ExitCopy {
    /// `from` → `to` for the shell `pid` (its pidfd opened here, where the kernel has them).
    pub fn new(from: &Path, to: &Path, pid: u32) -> io::Result<ExitCopy> {
        let c = |p: &Path| {
            CString::new(p.as_os_str().as_bytes())
                .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL in a path"))
        };
        Ok(ExitCopy {
            from: c(from)?,
            to: c(to)?,
            pidfd: pidfd_open(pid),
        })
    }
}

/// A pidfd of `pid` (Linux 5.3 and later), close-on-exec; `None` where there is none.
fn pidfd_open(pid: u32) -> Option<OwnedFd> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::FromRawFd;
        // SAFETY: a plain syscall; the descriptor it returns is ours.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid as libc::pid_t, 0u32) };
        (fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = pid;
        None
    }
}

/// Forks the relay copying `input` into `log` (empty, opened for writing) within `max` bytes,
/// counting in `state`, and moving a sandboxed shell's exit code (`exit`). Returns its pid; a
/// thread of the host reaps it when it exits.
pub fn spawn(
    input: &OwnedFd,
    log: &File,
    state: &File,
    max: u64,
    exit: Option<&ExitCopy>,
) -> io::Result<libc::pid_t> {
    let chunk = super::chunk_size(max);
    // Allocated before the fork: the child must not call the allocator.
    let mut buf = vec![0u8; chunk];
    let mut copy = vec![0u8; 64 * 1024];
    let fds = Fds {
        input: input.as_raw_fd(),
        log: log.as_raw_fd(),
        state: state.as_raw_fd(),
        pidfd: exit
            .and_then(|e| e.pidfd.as_ref())
            .map_or(-1, |f| f.as_raw_fd()),
    };
    let exit = exit.map(|e| (e.from.as_c_str(), e.to.as_c_str()));
    // SAFETY: the child only runs `relay`, which makes async-signal-safe system calls on
    // memory that exists in it (the buffers above) and ends with `_exit`.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(io::Error::last_os_error());
    }
    if pid == 0 {
        // SAFETY: see above; never returns.
        unsafe { relay(fds, exit, max, &mut buf, &mut copy) }
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
    /// The shell's pidfd (-1: none).
    pidfd: RawFd,
}

fn errno() -> i32 {
    // Reads this thread's errno portably; no allocation (an OS error is a packed integer).
    io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

/// The child's whole life. Async-signal-safe calls only, no allocation, no panics.
unsafe fn relay(
    fds: Fds,
    exit: Option<(&CStr, &CStr)>,
    max: u64,
    buf: &mut [u8],
    copy: &mut [u8],
) -> ! {
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
    close_others([fds.input, fds.log, fds.state, fds.pidfd]);
    // The shell's exit, still to be moved (Linux: watched through its pidfd).
    let mut pidfd = fds.pidfd;
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
        if pidfd >= 0 && wait_output_or_exit(fds.input, pidfd) {
            if let Some((from, to)) = exit {
                move_exit(from, to);
            }
            libc::close(pidfd);
            pidfd = -1;
            continue;
        }
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
    // The output ended: the shell has exited, unless it closed its output first — then its
    // exit is waited for, so that its code is moved before the relay says it is done.
    if let Some((from, to)) = exit {
        if pidfd >= 0 {
            wait_readable(pidfd);
        }
        move_exit(from, to);
    }
    write_state(fds.state, dropped, b'd', me);
    libc::_exit(0)
}

/// Waits until `input` has something to read or `pidfd` says the shell exited; returns
/// whether it did (then the exit is handled before the output, which may still come).
unsafe fn wait_output_or_exit(input: RawFd, pidfd: RawFd) -> bool {
    let mut p = [
        libc::pollfd {
            fd: input,
            events: libc::POLLIN,
            revents: 0,
        },
        libc::pollfd {
            fd: pidfd,
            events: libc::POLLIN,
            revents: 0,
        },
    ];
    while libc::poll(p.as_mut_ptr(), 2, -1) < 0 && errno() == libc::EINTR {}
    p[1].revents != 0
}

/// Moves the exit code a sandboxed shell's trap wrote at `from` (in the sandbox's private
/// temporary directory, which the command controls) to the monitor's exit file `to`, unless
/// that exists already. Only a regular file is read (never through a link, never a FIFO that
/// would block), and only a decimal integer is written: nothing else of what the command put
/// there reaches the host's file.
unsafe fn move_exit(from: &CStr, to: &CStr) {
    let mut code = [0u8; 16];
    let fd = libc::open(
        from.as_ptr(),
        libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC,
    );
    if fd < 0 {
        return;
    }
    let mut st: libc::stat = std::mem::zeroed();
    let n = if libc::fstat(fd, &mut st) == 0 && st.st_mode & libc::S_IFMT == libc::S_IFREG {
        libc::read(fd, code.as_mut_ptr().cast(), code.len())
    } else {
        -1
    };
    libc::close(fd);
    libc::unlink(from.as_ptr());
    let Some(len) = usize::try_from(n)
        .ok()
        .and_then(|n| exit_code_len(&code[..n]))
    else {
        return;
    };
    code[len] = b'\n';
    let out = libc::open(
        to.as_ptr(),
        libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW | libc::O_CLOEXEC,
        0o644 as libc::c_uint,
    );
    if out >= 0 {
        write_all_at(out, code.as_ptr(), len + 1, 0);
        libc::close(out);
    }
}

/// The length of the integer `bytes` holds (`-`, 1 to 10 digits, then at most a line break),
/// or `None` when they hold anything else.
fn exit_code_len(bytes: &[u8]) -> Option<usize> {
    let body = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    let digits = body.strip_prefix(b"-").unwrap_or(body);
    (!digits.is_empty() && digits.len() <= 10 && digits.iter().all(u8::is_ascii_digit))
        .then_some(body.len())
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
/// lacks it). A negative entry keeps nothing.
unsafe fn close_others(mut keep: [RawFd; 4]) {
    keep.sort_unstable();
    let mut from: u32 = 0;
    for &fd in keep.iter().filter(|&&fd| fd >= 0) {
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
