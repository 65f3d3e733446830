//! Moving one output pipe of a command into its [`Capture`] (and the live feed) while the
//! command runs, and what is left in the pipe when the reading must stop.
//!
//! The caller fires `stop` a short drain after the shell has exited. By then everything the
//! shell wrote is in the pipe's buffer — a write to a pipe returns once it is buffered — but
//! the runtime may not have noticed it yet: on a loaded machine the task can be scheduled
//! later than the drain lasts. So `stop` never ends the reading outright: first the buffer
//! is read as it is at that moment, straight from the descriptor ([`Buffered`]). What the
//! shell wrote is therefore never lost to scheduling; only what a background child writes
//! after the drain is.

use super::capture::Capture;
use super::live::Feed;
use crate::cancel::Cancel;
use tokio::io::{AsyncRead, AsyncReadExt};

/// A stream whose buffered bytes can be taken at once, without waiting for the runtime to
/// report it readable: a pipe, read with `read(2)` on its non-blocking descriptor.
pub trait Buffered {
    /// Reads what is buffered now: `Some(n)` with `n > 0`, or `None` when nothing is, at end
    /// of file, on an error, or when the stream cannot be read without blocking.
    fn read_buffered(&mut self, buf: &mut [u8]) -> Option<usize>;

    /// The most the stream can hold buffered: an upper bound on what a writer that is gone
    /// left behind, so that reading it ends even while another writer keeps writing.
    fn capacity(&self) -> usize;
}

#[cfg(unix)]
impl<T: std::os::fd::AsRawFd> Buffered for T {
    fn read_buffered(&mut self, buf: &mut [u8]) -> Option<usize> {
        let fd = self.as_raw_fd();
        // SAFETY: plain syscalls on a descriptor `self` owns; `buf` is valid for its length.
        unsafe {
            // A blocking descriptor could wait for a writer that never writes: skip it.
            let flags = libc::fcntl(fd, libc::F_GETFL);
            if flags == -1 || flags & libc::O_NONBLOCK == 0 {
                return None;
            }
            let n = libc::read(fd, buf.as_mut_ptr().cast(), buf.len());
            usize::try_from(n).ok().filter(|&n| n > 0)
        }
    }

    fn capacity(&self) -> usize {
        #[cfg(any(target_os = "linux", target_os = "android"))]
        {
            // SAFETY: plain syscall on a descriptor `self` owns.
            let size = unsafe { libc::fcntl(self.as_raw_fd(), libc::F_GETPIPE_SZ) };
            if let Ok(size) = usize::try_from(size) {
                return size;
            }
        }
        // Linux's default `pipe-max-size`; other Unixes' pipes hold less.
        1 << 20
    }
}

#[cfg(not(unix))]
impl<T> Buffered for T {
    fn read_buffered(&mut self, _: &mut [u8]) -> Option<usize> {
        None
    }

    fn capacity(&self) -> usize {
        0
    }
}

/// Reads `reader` into `capture` until end of file, a read error, `stop` firing (then what
/// the pipe holds at that moment is read too), or the ceiling (then `limit` is fired),
/// handing what it keeps to `feed` as it arrives. Returns the capture.
pub async fn pump<R>(
    mut reader: R,
    mut capture: Capture,
    limit: Cancel,
    stop: Cancel,
    mut feed: Option<Feed>,
) -> Capture
where
    R: AsyncRead + Buffered + Unpin,
{
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = tokio::select! {
            biased;
            _ = stop.cancelled() => {
                take_buffered(&mut reader, &mut capture, &limit, &mut feed, &mut buf);
                break;
            }
            // `read` on a pipe is cancel-safe: losing the race to `stop` loses no bytes.
            r = reader.read(&mut buf) => match r {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            },
        };
        if !keep(&mut capture, &limit, &mut feed, &buf[..n]) {
            // Keep the pipe open, discarding, until the kill is done (end of file or `stop`):
            // closing it would end the writer with SIGPIPE and let the shell exit first,
            // re-parenting its background processes out of the tree the kill walks.
            loop {
                tokio::select! {
                    biased;
                    _ = stop.cancelled() => break,
                    r = reader.read(&mut buf) => if matches!(r, Ok(0) | Err(_)) { break },
                }
            }
            break;
        }
    }
    if let Some(f) = feed {
        f.finish();
    }
    capture
}

/// Adds a chunk to the capture and what it kept to the feed; past the ceiling fires `limit`
/// and returns `false`.
fn keep(capture: &mut Capture, limit: &Cancel, feed: &mut Option<Feed>, chunk: &[u8]) -> bool {
    let before = capture.total();
    let kept = capture.push(chunk);
    if let Some(f) = feed.as_mut() {
        // Only what the capture kept: the host's copy is bounded like the result.
        let room = usize::try_from(capture.total() - before).unwrap_or(chunk.len());
        f.push(&chunk[..room.min(chunk.len())]);
    }
    if !kept {
        limit.cancel();
    }
    kept
}

/// Reads what `reader` holds buffered now, at most its capacity, into the capture.
fn take_buffered(
    reader: &mut impl Buffered,
    capture: &mut Capture,
    limit: &Cancel,
    feed: &mut Option<Feed>,
    buf: &mut [u8],
) {
    let mut left = reader.capacity();
    while left > 0 {
        let want = left.min(buf.len());
        let Some(n) = reader.read_buffered(&mut buf[..want]) else {
            break;
        };
        left -= n;
        if !keep(capture, limit, feed, &buf[..n]) {
            break;
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::process::spill;
    use std::process::Stdio;

    /// A child that wrote and exited: its bytes sit in the pipe, unread.
    async fn exited_writer(command: &str) -> tokio::process::ChildStdout {
        let mut child = tokio::process::Command::new("/bin/sh")
            .args(["-c", command])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let out = child.stdout.take().unwrap();
        assert!(child.wait().await.unwrap().success());
        out
    }

    /// Pumps `out` into a capture keeping `keep` bytes under `ceiling`, with `stop` already
    /// fired when the pump first runs (its task was scheduled after the drain ended). Returns
    /// the capture and the `limit` signal.
    async fn pump_late(
        out: tokio::process::ChildStdout,
        keep: u64,
        ceiling: u64,
    ) -> (Capture, Cancel) {
        let root = tempfile::tempdir().unwrap();
        let (limit, stop) = (Cancel::new(), Cancel::new());
        stop.cancel();
        let path = spill::spill_path(root.path(), "t", "stdout");
        let c = pump(
            out,
            Capture::new(keep, ceiling, path),
            limit.clone(),
            stop,
            None,
        )
        .await;
        (c, limit)
    }

    /// What the exited writer left in the pipe is still captured, whole.
    #[tokio::test]
    async fn stop_still_takes_what_the_pipe_holds() {
        let out = exited_writer("printf 'line one\\n'; printf 'trapped\\n'").await;
        let (c, limit) = pump_late(out, 1024, 1 << 20).await;
        assert!(!limit.is_cancelled());
        let shown = c.finish(1024).render(1024, |p| p.display().to_string());
        assert_eq!(shown, "line one\ntrapped\n");
    }

    /// What is left is read up to the ceiling and no further, and the limit fires.
    #[tokio::test]
    async fn what_the_pipe_holds_is_bounded_by_the_ceiling() {
        let out = exited_writer("head -c 5000 /dev/zero").await;
        let (c, limit) = pump_late(out, 1024, 3000).await;
        assert_eq!((c.total(), c.over_ceiling()), (3000, true));
        assert!(limit.is_cancelled());
    }
}
