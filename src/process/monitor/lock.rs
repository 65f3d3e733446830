//! The log's lock: the relay moves the rolling window under an exclusive lock, readers take a
//! shared one for the length of a read, so a read never sees half a move.
//!
//! Unix: `flock` on the log (advisory: the relay's appends are never held up by a reader).
//! Windows: `LockFileEx` locks are mandatory for the bytes they cover, so a lock of the whole
//! file would make the relay's appends fail while a poll reads; the lock is taken on one byte
//! far past any log's end instead, which no read or write touches — an advisory lock by
//! convention, as `flock` is.

use std::fs::File;

/// A held lock on a log; released when dropped.
pub struct Held<'a>(&'a File);

/// Takes the shared lock (a reader). Failing to lock only means reading without it.
pub fn shared(f: &File) -> Held<'_> {
    take(f, false);
    Held(f)
}

/// Takes the exclusive lock (the relay, while it moves the window).
pub fn exclusive(f: &File) -> Held<'_> {
    take(f, true);
    Held(f)
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        release(self.0);
    }
}

#[cfg(unix)]
fn take(f: &File, exclusive: bool) {
    use std::os::fd::AsRawFd;
    let op = if exclusive {
        libc::LOCK_EX
    } else {
        libc::LOCK_SH
    };
    // SAFETY: plain syscall on an open descriptor; failing just means no lock.
    unsafe {
        libc::flock(f.as_raw_fd(), op);
    }
}

#[cfg(unix)]
fn release(f: &File) {
    use std::os::fd::AsRawFd;
    // SAFETY: as above.
    unsafe {
        libc::flock(f.as_raw_fd(), libc::LOCK_UN);
    }
}

/// The byte locked on Windows: the last one a file offset can address, never part of a log.
#[cfg(windows)]
fn sentinel() -> windows_sys::Win32::System::IO::OVERLAPPED {
    // SAFETY: OVERLAPPED is a plain C struct; all-zero is its documented initial value.
    let mut o: windows_sys::Win32::System::IO::OVERLAPPED = unsafe { std::mem::zeroed() };
    o.Anonymous.Anonymous.Offset = u32::MAX - 1;
    o.Anonymous.Anonymous.OffsetHigh = u32::MAX;
    o
}

#[cfg(windows)]
fn take(f: &File, exclusive: bool) {
    use std::os::windows::io::AsRawHandle;
    use windows_sys::Win32::Storage::FileSystem::{LockFileEx, LOCKFILE_EXCLUSIVE_LOCK};
    let flags = if exclusive {
        LOCKFILE_EXCLUSIVE_LOCK
    } else {
        0
    };
    let mut o = sentinel();
    // SAFETY: a synchronous lock on an open handle; `o` lives for the call.
    unsafe {
        LockFileEx(f.as_raw_handle(), flags, 0, 1, 0, &mut o);
    }
}

#[cfg(windows)]
fn release(f: &File) {
    use std::os::windows::io::AsRawHandle;
    use windows_sys::Win32::Storage::FileSystem::UnlockFileEx;
    let mut o = sentinel();
    // SAFETY: as above; unlocking a byte not locked just fails.
    unsafe {
        UnlockFileEx(f.as_raw_handle(), 0, 1, 0, &mut o);
    }
}

#[cfg(not(any(unix, windows)))]
fn take(_f: &File, _exclusive: bool) {}

#[cfg(not(any(unix, windows)))]
fn release(_f: &File) {}
