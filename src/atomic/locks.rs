//! The in-process path locks: writers of one path serialise, multi-path operations lock in
//! sorted order (no deadlock).

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock};

struct LockTable {
    held: Mutex<HashSet<PathBuf>>,
    freed: Condvar,
}

fn table() -> &'static LockTable {
    static TABLE: OnceLock<LockTable> = OnceLock::new();
    TABLE.get_or_init(|| LockTable {
        held: Mutex::new(HashSet::new()),
        freed: Condvar::new(),
    })
}

fn lock_table(t: &LockTable) -> MutexGuard<'_, HashSet<PathBuf>> {
    // A panic while holding the table's mutex cannot leave the set inconsistent (every
    // critical section is a single insert/remove), so a poisoned lock is still usable.
    t.held.lock().unwrap_or_else(|p| p.into_inner())
}

/// The key a path is locked under: its real location (the longest existing prefix
/// canonicalised), so `a/../f`, `./f` and a symlinked directory all name one lock. On
/// Windows, where `A.txt` and `a.txt` are one file, the key is lower-cased too.
pub fn lock_key(path: &Path) -> PathBuf {
    let key = crate::paths::realpath_prefix(path).unwrap_or_else(|_| path.to_path_buf());
    if cfg!(windows) {
        return PathBuf::from(key.to_string_lossy().to_lowercase());
    }
    key
}

/// Holds the locks of one or more paths; dropping it releases them.
#[must_use = "the locks are released when the guard is dropped"]
#[derive(Debug)]
pub struct PathGuard {
    keys: Vec<PathBuf>,
}

impl Drop for PathGuard {
    fn drop(&mut self) {
        let t = table();
        let mut held = lock_table(t);
        for k in &self.keys {
            held.remove(k);
        }
        drop(held);
        t.freed.notify_all();
    }
}

/// Locks every path in `paths` (blocking), one at a time in sorted order of their keys so
/// two multi-path operations can never deadlock. Duplicates are locked once. Call it from
/// blocking code only (tool handlers run on the blocking pool).
pub fn lock_paths(paths: &[PathBuf]) -> PathGuard {
    let mut keys: Vec<PathBuf> = paths.iter().map(|p| lock_key(p)).collect();
    keys.sort();
    keys.dedup();
    let t = table();
    let mut guard = PathGuard {
        keys: Vec::with_capacity(keys.len()),
    };
    for key in keys {
        let mut held = lock_table(t);
        while held.contains(&key) {
            held = t.freed.wait(held).unwrap_or_else(|p| p.into_inner());
        }
        held.insert(key.clone());
        drop(held);
        guard.keys.push(key);
    }
    guard
}
