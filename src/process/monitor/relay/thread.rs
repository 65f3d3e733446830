//! The relay as a thread of the host (every platform; used on Windows, whose terminal
//! monitors have no forked relay): the same rolling window and state file as the forked one
//! (`child`), written with std's positional I/O and [`crate::process::monitor::lock`]. A
//! Windows pseudo console lives only as long as the process that made it, so a thread loses
//! nothing there that a separate process would keep.
//!
//! While it runs its state file is registered here, so [`is_running`] tells `monitor_stop` and
//! the settling wait of a poll that this process's relay is still writing (the pid in the
//! state file is the host's own).

use super::{encode, STATE_LEN};
use crate::process::monitor::lock;
use std::collections::HashSet;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The state files of this process's relay threads that have not finished.
static RUNNING: Mutex<Option<HashSet<PathBuf>>> = Mutex::new(None);

fn running() -> std::sync::MutexGuard<'static, Option<HashSet<PathBuf>>> {
    RUNNING.lock().unwrap_or_else(|p| p.into_inner())
}

/// Whether a relay thread of this process still writes the log whose state file is `state`.
pub fn is_running(state: &Path) -> bool {
    running().as_ref().is_some_and(|s| s.contains(state))
}

/// Starts a thread copying `input` into `log` (empty) within `max` bytes, counting in `state`
/// (at `state_path`), until `input` reads end of file or fails; then `on_end` runs.
pub fn spawn(
    input: impl Read + Send + 'static,
    log: File,
    state: File,
    state_path: PathBuf,
    max: u64,
    on_end: impl FnOnce() + Send + 'static,
) -> io::Result<()> {
    running()
        .get_or_insert_with(HashSet::new)
        .insert(state_path.clone());
    write_state(&state, 0, b'r');
    let started = std::thread::Builder::new()
        .name("clarvis-relay".into())
        .spawn(move || {
            copy(input, &log, &state, max);
            if let Some(s) = running().as_mut() {
                s.remove(&state_path);
            }
            on_end();
        });
    started.map(drop)
}

/// The relay's loop: append what `input` gives to `log`, dropping the oldest half when the
/// window would pass `max`; say `d` in the state file at the end.
fn copy(mut input: impl Read, log: &File, state: &File, max: u64) {
    let mut buf = vec![0u8; super::chunk_size(max)];
    let mut copy = vec![0u8; 64 * 1024];
    let (mut size, mut dropped) = (0u64, 0u64);
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            // A broken pipe is how Windows says end of file; anything else ends the copy too.
            Err(_) => break,
        };
        if size + n as u64 > max {
            let _held = lock::exclusive(log);
            let cut = drop_front(log, size, max, &mut copy);
            size -= cut;
            dropped += cut;
            write_state(state, dropped, b'r');
        }
        // A log that cannot be written (gone, disk full): keep draining the program.
        if write_all_at(log, &buf[..n], size).is_ok() {
            size += n as u64;
        }
    }
    write_state(state, dropped, b'd');
}

/// Drops the log's oldest bytes so that about `max / 2` remain (from a line start within
/// 4 KiB of the cut, else a character start), as the forked relay does; returns how many.
fn drop_front(log: &File, size: u64, max: u64, copy: &mut [u8]) -> u64 {
    let mut cut = size.saturating_sub(max / 2);
    let peek = copy.len().min(4096).min((size - cut) as usize);
    if let Ok(got) = read_at(log, &mut copy[..peek], cut) {
        let head = &copy[..got];
        match head.iter().position(|&b| b == b'\n') {
            Some(i) => cut += i as u64 + 1,
            None => {
                cut += head
                    .iter()
                    .take(3)
                    .take_while(|&&b| b & 0xC0 == 0x80)
                    .count() as u64
            }
        }
    }
    let (mut src, mut dst) = (cut, 0u64);
    while src < size {
        let want = copy.len().min((size - src) as usize);
        let k = match read_at(log, &mut copy[..want], src) {
            Ok(0) | Err(_) => break,
            Ok(k) => k,
        };
        if write_all_at(log, &copy[..k], dst).is_err() {
            break;
        }
        src += k as u64;
        dst += k as u64;
    }
    let _ = log.set_len(dst);
    size - dst
}

fn write_state(state: &File, dropped: u64, how: u8) {
    let bytes: [u8; STATE_LEN] = encode(dropped, how, std::process::id());
    let _ = write_all_at(state, &bytes, 0);
}

#[cfg(unix)]
fn read_at(f: &File, buf: &mut [u8], at: u64) -> io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(f, buf, at)
}

#[cfg(unix)]
fn write_all_at(f: &File, buf: &[u8], at: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::write_all_at(f, buf, at)
}

#[cfg(windows)]
fn read_at(f: &File, buf: &mut [u8], at: u64) -> io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(f, buf, at)
}

#[cfg(windows)]
fn write_all_at(f: &File, mut buf: &[u8], mut at: u64) -> io::Result<()> {
    while !buf.is_empty() {
        match std::os::windows::fs::FileExt::seek_write(f, buf, at) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => {
                buf = &buf[n..];
                at += n as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::{create_state, read_state};
    use super::*;
    use crate::process::monitor::{bytes_from, end_offset, ensure_dir, file};

    /// A monitor's log and state file under a temp root, fed by a reader of `chunks`.
    fn relay(chunks: Vec<Vec<u8>>, max: u64) -> (tempfile::TempDir, String) {
        let root = tempfile::tempdir().unwrap();
        ensure_dir(root.path()).unwrap();
        let id = "mon_0000abcd".to_string();
        let log = File::options()
            .read(true)
            .write(true)
            .create_new(true)
            .open(file(root.path(), &id, "log"))
            .unwrap();
        let state_path = file(root.path(), &id, "state");
        let state = create_state(&state_path).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let input = Chunks(chunks.into_iter());
        spawn(input, log, state, state_path.clone(), max, move || {
            tx.send(()).unwrap()
        })
        .unwrap();
        rx.recv().unwrap();
        assert!(!is_running(&state_path));
        (root, id)
    }

    struct Chunks(std::vec::IntoIter<Vec<u8>>);

    impl Read for Chunks {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            match self.0.next() {
                Some(c) => {
                    buf[..c.len()].copy_from_slice(&c);
                    Ok(c.len())
                }
                None => Err(io::ErrorKind::BrokenPipe.into()),
            }
        }
    }

    #[test]
    fn everything_arrives_and_the_state_says_done_with_this_process_as_the_relay() {
        let (root, id) = relay(vec![b"hello ".to_vec(), b"world\n".to_vec()], 1 << 20);
        let log = std::fs::read(file(root.path(), &id, "log")).unwrap();
        assert_eq!(log, b"hello world\n");
        let s = read_state(&file(root.path(), &id, "state"));
        assert_eq!((s.dropped, s.done), (0, true));
        assert_eq!(s.relay, Some(std::process::id()));
    }

    #[test]
    fn the_window_stays_within_the_bound_and_offsets_stay_those_of_the_whole_output() {
        // 100 lines of 1,000 bytes through a 16 KiB window, in chunks of a quarter of it.
        let line = |i: usize| format!("{i:04}:{}\n", "x".repeat(994)).into_bytes();
        let chunks: Vec<Vec<u8>> = (0..100).map(line).collect();
        let total: u64 = chunks.iter().map(|c| c.len() as u64).sum();
        let (root, id) = relay(chunks, 16 * 1024);
        let log = std::fs::read(file(root.path(), &id, "log")).unwrap();
        assert!(log.len() as u64 <= 16 * 1024, "{}", log.len());
        let s = read_state(&file(root.path(), &id, "state"));
        assert_eq!(s.dropped + log.len() as u64, total);
        assert_eq!(end_offset(root.path(), &id), total);
        // The window starts on a line, and ends with the last one.
        assert!(log.starts_with(b"00") && log.ends_with(&line(99)));
        // A read from offset 0, long dropped, starts where the window does.
        let (bytes, start) = bytes_from(root.path(), &id, 0, 5);
        assert_eq!((bytes.as_slice(), start), (&log[..5], s.dropped));
    }
}
