//! Running blocking I/O side by side: a multi-file commit writes and fsyncs its temp files,
//! fsyncs its directories and removes its backups on a few scoped threads, so it waits for
//! the disk a few times rather than once per file.

use super::fsync_dir;
use std::io;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

/// How many threads [`parallel_map`] uses at most. fsync is bound by the device, not the
/// CPU: with several in flight a journaling filesystem (ext4, xfs) folds them into a few
/// journal commits instead of paying one commit per file, which is where a multi-file
/// commit's time goes. Node's libuv pool (4 threads) gets the same effect.
pub const IO_THREADS: usize = 8;

/// Runs `f` on every item, on up to [`IO_THREADS`] threads (the caller's included), and
/// returns the results in item order. For blocking I/O such as writing and fsyncing many
/// files; one item runs inline. A panic in `f` propagates to the caller.
pub fn parallel_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = items.len().min(IO_THREADS);
    if threads <= 1 {
        return items.iter().map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items.get(i) else {
                return done;
            };
            done.push((i, f(item)));
        }
    };
    let mut all: Vec<(usize, R)> = std::thread::scope(|s| {
        let helpers: Vec<_> = (1..threads).map(|_| s.spawn(work)).collect();
        let mut all = work();
        for h in helpers {
            match h.join() {
                Ok(done) => all.extend(done),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        all
    });
    all.sort_unstable_by_key(|(i, _)| *i);
    all.into_iter().map(|(_, r)| r).collect()
}

/// fsyncs every directory of `dirs` at once ([`parallel_map`]); the first error (in order)
/// wins. Callers pass each directory once.
pub fn fsync_dirs(dirs: &[PathBuf]) -> io::Result<()> {
    parallel_map(dirs, |d| fsync_dir(d)).into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;
    use std::sync::{Mutex, MutexGuard};
    use std::time::Duration;

    #[test]
    fn parallel_map_runs_every_item_once_and_keeps_their_order() {
        let items: Vec<u32> = (0..100).collect();
        let seen = Mutex::new(HashSet::new());
        let out = parallel_map(&items, |&i| {
            assert!(locked(&seen).insert(i), "item {i} ran twice");
            std::thread::sleep(Duration::from_micros(200));
            i * 2
        });
        assert_eq!(out, (0..100).map(|i| i * 2).collect::<Vec<_>>());
        assert_eq!(seen.into_inner().unwrap().len(), 100);
        assert_eq!(parallel_map(&[7u8], |&x| x), vec![7]);
        assert!(parallel_map(&[] as &[u8], |&x| x).is_empty());
        // fsync_dirs reports the first failure, in order.
        let dir = tempfile::tempdir().unwrap();
        let dirs = vec![dir.path().to_path_buf(), dir.path().join("nope")];
        assert_eq!(
            fsync_dirs(&dirs).unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
        assert!(fsync_dirs(&dirs[..1]).is_ok());
    }

    fn locked<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
        m.lock().unwrap()
    }
}
