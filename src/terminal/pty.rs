//! A pseudo-terminal pair (every Unix): the master the host writes input to and the relay
//! reads output from, and the slave the command gets as its stdin, stdout, stderr and
//! controlling terminal.
//!
//! Both ends are opened close-on-exec: a `bash` or another monitor spawned by a second thread
//! at the same moment must not inherit them (a stray copy of the slave would keep the relay
//! from ever seeing the terminal close; a copy of the master would keep the terminal alive).

use super::Size;
use rustix::fs::OFlags;
use rustix::pty::OpenptFlags;
use rustix::termios::Winsize;
use std::io;
use std::os::fd::{AsFd, OwnedFd};

/// An open pseudo-terminal.
#[derive(Debug)]
pub struct Pty {
    /// The controlling side (input goes in, output comes out).
    pub master: OwnedFd,
    /// The program's side.
    pub slave: OwnedFd,
    /// The slave's device path (`/dev/pts/N`), for finding who holds it.
    pub path: String,
}

/// Opens a pseudo-terminal of `size`.
pub fn open(size: Size) -> io::Result<Pty> {
    let master = open_master()?;
    rustix::pty::grantpt(&master)?;
    rustix::pty::unlockpt(&master)?;
    let name = rustix::pty::ptsname(&master, Vec::new())?;
    let path = name.to_string_lossy().into_owned();
    let slave = open_slave(&master, &name)?;
    resize(&master, size)?;
    Ok(Pty {
        master,
        slave,
        path,
    })
}

/// The master, close-on-exec from the start on Linux. macOS's `posix_openpt` takes no
/// `O_CLOEXEC`: the flag is set right after, so a process another thread forks in between
/// keeps the master across its exec (the relay closes every descriptor it does not use).
#[cfg(target_os = "linux")]
fn open_master() -> io::Result<OwnedFd> {
    Ok(rustix::pty::openpt(
        OpenptFlags::RDWR | OpenptFlags::NOCTTY | OpenptFlags::CLOEXEC,
    )?)
}

#[cfg(not(target_os = "linux"))]
fn open_master() -> io::Result<OwnedFd> {
    let master = rustix::pty::openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY)?;
    rustix::io::fcntl_setfd(&master, rustix::io::FdFlags::CLOEXEC)?;
    Ok(master)
}

/// Linux: `TIOCGPTPEER` opens the slave from the master itself (no lookup of the path, which
/// another process could race); the path is the fallback on kernels before 4.13.
#[cfg(target_os = "linux")]
fn open_slave(master: &OwnedFd, name: &std::ffi::CStr) -> io::Result<OwnedFd> {
    let flags = OpenptFlags::RDWR | OpenptFlags::NOCTTY | OpenptFlags::CLOEXEC;
    match rustix::pty::ioctl_tiocgptpeer(master, flags) {
        Ok(fd) => Ok(fd),
        Err(_) => open_path(name),
    }
}

#[cfg(not(target_os = "linux"))]
fn open_slave(_master: &OwnedFd, name: &std::ffi::CStr) -> io::Result<OwnedFd> {
    open_path(name)
}

fn open_path(name: &std::ffi::CStr) -> io::Result<OwnedFd> {
    let flags = OFlags::RDWR | OFlags::NOCTTY | OFlags::CLOEXEC;
    Ok(rustix::fs::open(name, flags, rustix::fs::Mode::empty())?)
}

/// Makes the terminal on the command's stdin its controlling terminal, so Ctrl-C, Ctrl-Z and
/// job control reach the program as on a real terminal. Register it after the `setsid` of
/// [`crate::process::group::new_session`]: only a session leader without a terminal may take one.
pub fn make_controlling(cmd: &mut std::process::Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: `ioctl` is async-signal-safe and touches no parent memory.
    unsafe {
        cmd.pre_exec(|| {
            #[allow(clippy::useless_conversion)]
            if libc::ioctl(0, libc::TIOCSCTTY.into(), 0) == -1 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// Sets the terminal's size (the kernel sends SIGWINCH to its foreground process group).
pub fn resize(fd: impl AsFd, size: Size) -> io::Result<()> {
    let ws = Winsize {
        ws_row: size.rows,
        ws_col: size.cols,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    Ok(rustix::termios::tcsetwinsize(fd, ws)?)
}

/// The terminal's end-of-file character (`VEOF`, Ctrl-D unless the program changed it).
pub fn eof_char(fd: impl AsFd) -> u8 {
    rustix::termios::tcgetattr(fd)
        .map(|t| t.special_codes[rustix::termios::SpecialCodeIndex::VEOF])
        .ok()
        .filter(|&c| c != 0)
        .unwrap_or(0x04)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_terminal_has_the_size_asked_for_and_both_ends_close_on_exec() {
        let pty = open(Size {
            cols: 132,
            rows: 43,
        })
        .unwrap();
        let ws = rustix::termios::tcgetwinsize(&pty.slave).unwrap();
        assert_eq!((ws.ws_col, ws.ws_row), (132, 43));
        for fd in [&pty.master, &pty.slave] {
            let flags = rustix::io::fcntl_getfd(fd).unwrap();
            assert!(flags.contains(rustix::io::FdFlags::CLOEXEC));
        }
        assert!(pty.path.starts_with("/dev/"), "{}", pty.path);
        resize(&pty.master, Size { cols: 80, rows: 24 }).unwrap();
        let ws = rustix::termios::tcgetwinsize(&pty.slave).unwrap();
        assert_eq!((ws.ws_col, ws.ws_row), (80, 24));
        assert_eq!(eof_char(&pty.master), 0x04);
    }
}
