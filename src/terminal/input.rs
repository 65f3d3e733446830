//! Writing to a monitor's input — its terminal's master, or the pipe to its stdin — without
//! ever waiting on the program: a program that does not read fills the kernel's buffer, and
//! the write then stops at the caller's deadline and says how much went in.
//!
//! The master is shared with the log relay, which reads it (one open file description: a
//! pseudo-terminal's master cannot be opened twice), so the host cannot leave the descriptor
//! non-blocking — the relay's reads would fail. Each write sets `O_NONBLOCK` for its own system
//! call only and clears it after; a read of the relay that lands in that window gets `EAGAIN`,
//! which it retries (see `process::monitor::relay`). A pipe's write end is the host's alone.

use std::io;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// What a monitor's input is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The master of its pseudo-terminal.
    Terminal,
    /// The write end of a pipe to its stdin.
    Pipe,
}

/// How a write ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Written {
    /// Bytes the kernel took.
    pub bytes: usize,
    /// The program's side is closed (it exited, or closed its stdin): nothing more goes in.
    pub gone: bool,
}

/// The host's end of a monitor's input.
#[derive(Debug)]
pub struct Writer {
    kind: Kind,
    end: Mutex<Option<End>>,
}

/// The descriptor written to.
#[cfg(unix)]
pub type End = std::os::fd::OwnedFd;

/// Windows: the write end of the pseudo console's input pipe (`PIPE_NOWAIT`, so a write
/// takes what fits and returns), and the console, for resizes.
#[cfg(windows)]
#[derive(Debug)]
pub struct End {
    /// The input pipe's write end.
    pub pipe: std::fs::File,
    /// The console.
    pub console: std::sync::Arc<super::conpty::Console>,
}

/// Elsewhere no monitor takes input: uninhabited.
#[cfg(not(any(unix, windows)))]
pub type End = std::convert::Infallible;

impl Writer {
    /// A writer over `end`.
    pub fn new(kind: Kind, end: End) -> Writer {
        Writer {
            kind,
            end: Mutex::new(Some(end)),
        }
    }

    /// Whether it writes to a terminal.
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// Whether the input was closed (`close` on a pipe).
    pub fn is_closed(&self) -> bool {
        self.lock().is_none()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<End>> {
        self.end.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Writes `bytes`, waiting for room in the kernel's buffer until `deadline` or until
    /// `stop` says so (the call was cancelled); writes are serialised per monitor.
    pub fn write(
        &self,
        bytes: &[u8],
        deadline: Instant,
        stop: &dyn Fn() -> bool,
    ) -> io::Result<Written> {
        let end = self.lock();
        let Some(end) = end.as_ref() else {
            return Ok(Written {
                bytes: 0,
                gone: true,
            });
        };
        let mut done = 0;
        while done < bytes.len() {
            match write_some(end, &bytes[done..]) {
                Ok(n) => done += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    if Instant::now() >= deadline || stop() {
                        break;
                    }
                    // The program has not read what is there yet: look again shortly.
                    std::thread::sleep(Duration::from_millis(1));
                }
                Err(e) if gone(&e) => {
                    return Ok(Written {
                        bytes: done,
                        gone: true,
                    })
                }
                Err(e) => return Err(e),
            }
        }
        Ok(Written {
            bytes: done,
            gone: false,
        })
    }

    /// Closes a pipe's write end (the program reads end of file). A terminal stays open:
    /// end of file there is a character (see [`Writer::eof_char`]).
    pub fn close_pipe(&self) {
        self.lock().take();
    }

    /// The terminal's end-of-file character (Ctrl-D unless the program changed it).
    pub fn eof_char(&self) -> u8 {
        #[cfg(unix)]
        if let Some(end) = self.lock().as_ref() {
            return super::pty::eof_char(end);
        }
        0x04
    }

    /// Resizes the terminal.
    pub fn resize(&self, size: super::Size) -> io::Result<()> {
        let end = self.lock();
        let Some(end) = end.as_ref() else {
            return Err(io::Error::from(io::ErrorKind::BrokenPipe));
        };
        #[cfg(unix)]
        return super::pty::resize(end, size);
        #[cfg(windows)]
        return end.console.resize(size);
        #[cfg(not(any(unix, windows)))]
        {
            let _ = size;
            match *end {}
        }
    }
}

/// The errors that mean the reading side is gone: `EIO` from a terminal whose every slave is
/// closed, `EPIPE` from a pipe without reader.
fn gone(e: &io::Error) -> bool {
    #[cfg(unix)]
    if e.raw_os_error() == Some(libc::EIO) {
        return true;
    }
    e.kind() == io::ErrorKind::BrokenPipe
}

/// One non-blocking `write`.
#[cfg(unix)]
fn write_some(fd: &std::os::fd::OwnedFd, bytes: &[u8]) -> io::Result<usize> {
    use rustix::fs::{fcntl_getfl, fcntl_setfl, OFlags};
    let flags = fcntl_getfl(fd)?;
    fcntl_setfl(fd, flags | OFlags::NONBLOCK)?;
    let r = rustix::io::write(fd, bytes);
    // Back to blocking at once: the relay reads the same open file description.
    let _ = fcntl_setfl(fd, flags);
    Ok(r?)
}

/// One write that does not wait: the pipe is `PIPE_NOWAIT`, so a full pipe takes nothing
/// (`Ok(0)`, reported as `WouldBlock`). Windows' "pipe is being closed" is the reader gone.
#[cfg(windows)]
fn write_some(end: &End, bytes: &[u8]) -> io::Result<usize> {
    use std::io::Write;
    const ERROR_NO_DATA: i32 = 232;
    match (&end.pipe).write(bytes) {
        Ok(0) => Err(io::ErrorKind::WouldBlock.into()),
        Err(e) if e.raw_os_error() == Some(ERROR_NO_DATA) => Err(io::ErrorKind::BrokenPipe.into()),
        r => r,
    }
}

#[cfg(not(any(unix, windows)))]
fn write_some(end: &End, _bytes: &[u8]) -> io::Result<usize> {
    match *end {}
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_full_pipe_stops_the_write_at_the_deadline_and_says_how_much_went_in() {
        let (read, write) = std::io::pipe().unwrap();
        let w = Writer::new(Kind::Pipe, std::os::fd::OwnedFd::from(write));
        let big = vec![b'x'; 4 << 20];
        let got = w
            .write(&big, Instant::now() + Duration::from_millis(20), &|| false)
            .unwrap();
        assert!(!got.gone);
        assert!(got.bytes > 0 && got.bytes < big.len(), "{}", got.bytes);
        drop(read);
        let after = w.write(b"y", Instant::now(), &|| false).unwrap();
        assert_eq!(
            after,
            Written {
                bytes: 0,
                gone: true
            }
        );
        w.close_pipe();
        assert!(w.is_closed());
        assert!(w.write(b"z", Instant::now(), &|| false).unwrap().gone);
    }

    #[test]
    fn a_write_that_would_block_ends_when_stop_says_so() {
        let (_read, write) = std::io::pipe().unwrap();
        let w = Writer::new(Kind::Pipe, std::os::fd::OwnedFd::from(write));
        let big = vec![b'x'; 4 << 20];
        let far = Instant::now() + Duration::from_secs(3600);
        let got = w.write(&big, far, &|| true).unwrap();
        assert!(got.bytes < big.len());
    }
}
