//! inotify watches on every indexed directory, drained (non-blocking) before each query.
//!
//! The kernel queues an event when the change's system call completes, so draining the
//! queue at the start of a query sees every change finished before it — no watcher thread
//! and no delay. An overflowed queue (`IN_Q_OVERFLOW`, e.g. a large `git checkout`) is
//! reported as `None`: the caller falls back to the full metadata revalidation.
//!
//! Linux only; elsewhere [`Watch::new`] is `None` and the revalidation runs per query.
//!
//! Raw inotify through `libc` (already a dependency) rather than the `notify` crate: we need
//! neither its thread nor its debouncing, only the queue, read synchronously, and the
//! overflow signal, which `notify` turns into a generic rescan hint.

#[cfg(target_os = "linux")]
use std::collections::HashMap;
#[cfg(target_os = "linux")]
use std::ffi::CString;
#[cfg(target_os = "linux")]
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
#[cfg(target_os = "linux")]
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

#[cfg(target_os = "linux")]
const MASK: u32 = libc::IN_CREATE
    | libc::IN_DELETE
    | libc::IN_MODIFY
    | libc::IN_CLOSE_WRITE
    | libc::IN_MOVED_FROM
    | libc::IN_MOVED_TO
    | libc::IN_ATTRIB
    | libc::IN_DELETE_SELF
    | libc::IN_MOVE_SELF
    | libc::IN_ONLYDIR
    | libc::IN_DONT_FOLLOW;

/// One change: the entry `name` of the watched directory `dir` (both relative to the
/// index root; `name` empty when the directory itself went away).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// The watched directory, relative.
    pub dir: Vec<u8>,
    /// The entry's name.
    pub name: Vec<u8>,
    /// The entry appeared (created, or moved in).
    pub created: bool,
}

/// Off Linux there are no watches: the index revalidates by metadata before every query.
#[cfg(not(target_os = "linux"))]
pub struct Watch;

#[cfg(not(target_os = "linux"))]
impl Watch {
    /// Always `None` off Linux.
    pub fn new() -> Option<Watch> {
        None
    }

    /// Never watches.
    pub fn add(&mut self, _root: &Path, _rel: &[u8]) -> bool {
        false
    }

    /// Never watches.
    pub fn add_shared(&self, _root: &Path, _rel: &[u8]) -> Option<i32> {
        None
    }

    /// Nothing to record.
    pub fn record(&mut self, _wd: i32, _rel: Vec<u8>) {}

    /// Never has events.
    pub fn drain(&mut self) -> Option<Vec<Event>> {
        None
    }
}

/// An inotify instance and what each watch descriptor watches.
#[cfg(target_os = "linux")]
pub struct Watch {
    fd: OwnedFd,
    dirs: HashMap<i32, Vec<u8>>,
}

#[cfg(target_os = "linux")]
impl Watch {
    /// A new instance; `None` when inotify is unavailable (limits, not Linux-like).
    pub fn new() -> Option<Watch> {
        // SAFETY: plain syscall; a valid descriptor is owned by nobody else.
        let fd = unsafe { libc::inotify_init1(libc::IN_NONBLOCK | libc::IN_CLOEXEC) };
        if fd < 0 {
            return None;
        }
        Some(Watch {
            // SAFETY: `fd` is a fresh descriptor we own.
            fd: unsafe { OwnedFd::from_raw_fd(fd) },
            dirs: HashMap::new(),
        })
    }

    /// Watches directory `rel` under `root`. `false` when the kernel refuses (the watch
    /// limit, a directory that vanished): the caller cannot rely on events for it.
    pub fn add(&mut self, root: &Path, rel: &[u8]) -> bool {
        self.add_shared(root, rel)
            .map(|wd| self.record(wd, rel.to_vec()))
            .is_some()
    }

    /// Adds the watch of directory `rel` from any thread, returning its descriptor, which
    /// must then be [`Watch::record`]ed before the next [`Watch::drain`] (events of an
    /// unknown descriptor are dropped). `None` when the kernel refuses.
    pub fn add_shared(&self, root: &Path, rel: &[u8]) -> Option<i32> {
        let abs = if rel.is_empty() {
            root.to_path_buf()
        } else {
            root.join(std::ffi::OsStr::from_bytes(rel))
        };
        let c = CString::new(abs.as_os_str().as_bytes()).ok()?;
        // The root may be reached through a symlink (see `fresh::stat`): its watch follows it.
        let mask = if rel.is_empty() {
            MASK & !libc::IN_DONT_FOLLOW
        } else {
            MASK
        };
        // SAFETY: valid descriptor and NUL-terminated path.
        let wd = unsafe { libc::inotify_add_watch(self.fd.as_raw_fd(), c.as_ptr(), mask) };
        (wd >= 0).then_some(wd)
    }

    /// Records what descriptor `wd` (from [`Watch::add_shared`]) watches.
    pub fn record(&mut self, wd: i32, rel: Vec<u8>) {
        self.dirs.insert(wd, rel);
    }

    /// Every queued event; `None` when the queue overflowed (events were lost).
    pub fn drain(&mut self) -> Option<Vec<Event>> {
        let mut out = Vec::new();
        let mut buf = vec![0u8; 64 * 1024];
        let header = std::mem::size_of::<libc::inotify_event>();
        loop {
            // SAFETY: `buf` is writable for its length.
            let n = unsafe { libc::read(self.fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
            if n <= 0 {
                // EAGAIN: the queue is empty (other errors: nothing more can be read).
                return Some(out);
            }
            let n = n as usize;
            let mut at = 0;
            while at + header <= n {
                // SAFETY: the kernel wrote whole events; read unaligned from the buffer.
                let ev: libc::inotify_event =
                    unsafe { std::ptr::read_unaligned(buf[at..].as_ptr().cast()) };
                let name_end = (at + header + ev.len as usize).min(n);
                let raw = &buf[at + header..name_end];
                let name = &raw[..raw.iter().position(|&b| b == 0).unwrap_or(raw.len())];
                at = name_end;
                if ev.mask & libc::IN_Q_OVERFLOW != 0 {
                    return None;
                }
                let Some(dir) = self.dirs.get(&ev.wd).cloned() else {
                    continue;
                };
                if ev.mask & libc::IN_IGNORED != 0 {
                    self.dirs.remove(&ev.wd);
                }
                out.push(Event {
                    dir,
                    name: name.to_vec(),
                    created: ev.mask & (libc::IN_CREATE | libc::IN_MOVED_TO) != 0,
                });
            }
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn events_name_the_changed_entry() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let mut w = Watch::new().unwrap();
        assert!(w.add(dir.path(), b""));
        assert!(w.add(dir.path(), b"sub"));
        assert_eq!(w.drain(), Some(vec![]));
        std::fs::write(dir.path().join("sub/a.txt"), "x").unwrap();
        std::fs::write(dir.path().join("b.txt"), "x").unwrap();
        let ev = w.drain().unwrap();
        assert!(ev.contains(&Event {
            dir: b"sub".to_vec(),
            name: b"a.txt".to_vec(),
            created: true,
        }));
        assert!(ev.contains(&Event {
            dir: Vec::new(),
            name: b"b.txt".to_vec(),
            created: false,
        }));
        assert!(!w.add(dir.path(), b"missing"));
    }
}
