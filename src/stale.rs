//! What this tools object last showed the model of each file, by content hash
//! (`staleWrites: "refuse"`).
//!
//! A whole-file overwrite (`write_file` over an existing file, an `apply_patch` that deletes a
//! file or removes every line of it) is allowed only when the file's bytes on disk are the
//! bytes the model last saw whole: through reads that showed every line of them (one
//! `read_file`, pages of `read_file` over the same bytes, a `read_files` section that was not
//! cut), or through this tools object's own last write of the file. The comparison is of
//! BLAKE3 hashes of the bytes, never of timestamps: a file touched but unchanged still
//! matches, a file changed within the same second does not.
//!
//! Memory is bounded: at most [`CAPACITY`] paths are remembered (a hash, the line ranges a
//! paged read has shown, a recency tick each), the least recently used forgotten first. A
//! forgotten path is one the model has to read again before overwriting it.
//!
//! Non-goal: locking. The check and the write are not atomic with respect to other programs
//! (an editor saving in the microseconds between them wins the race, as it would against
//! any editor); what this prevents is overwriting a change the model never saw.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The most paths remembered at once.
pub const CAPACITY: usize = 4096;

/// A content hash.
pub type Hash = [u8; 32];

/// The hash of `bytes`.
pub fn hash(bytes: &[u8]) -> Hash {
    *blake3::hash(bytes).as_bytes()
}

/// What was shown of one file.
#[derive(Debug, Clone)]
struct Entry {
    hash: Hash,
    /// Line ranges shown (1-based, inclusive, merged and sorted), for paged reads.
    shown: Vec<(u64, u64)>,
    /// Every line of these bytes was shown (or they are our own write).
    whole: bool,
    /// Recency, for the LRU.
    tick: u64,
}

/// Why a whole-file overwrite is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stale {
    /// The model was never shown all of the file (or it was forgotten).
    NotRead,
    /// The file changed since the model last saw it whole.
    Changed,
}

impl Stale {
    /// The wire name, for `meta`: `not_read` or `changed`.
    pub fn as_str(self) -> &'static str {
        match self {
            Stale::NotRead => "not_read",
            Stale::Changed => "changed",
        }
    }
}

/// The hashes of one tools object, keyed by the file's real path.
#[derive(Debug, Default)]
pub struct Seen {
    inner: Mutex<Table>,
}

#[derive(Debug, Default)]
struct Table {
    entries: HashMap<PathBuf, Entry>,
    tick: u64,
}

impl Table {
    fn touch(&mut self) -> u64 {
        self.tick += 1;
        self.tick
    }

    /// Makes room for one more entry: drops the oldest eighth when full, so the cost of the
    /// scan is spread over `CAPACITY / 8` insertions.
    fn make_room(&mut self) {
        if self.entries.len() < CAPACITY {
            return;
        }
        let mut ticks: Vec<u64> = self.entries.values().map(|e| e.tick).collect();
        let cut = CAPACITY / 8;
        ticks.select_nth_unstable(cut);
        let limit = ticks[cut];
        self.entries.retain(|_, e| e.tick > limit);
    }

    fn put(&mut self, key: PathBuf, entry: Entry) {
        if !self.entries.contains_key(&key) {
            self.make_room();
        }
        self.entries.insert(key, entry);
    }
}

/// The key of a path: its real location when it resolves (a file read through a symlink
/// and written through its target is one file), else the path as given.
fn key(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Adds `[from, to]` to sorted, merged `ranges`.
fn merge(ranges: &mut Vec<(u64, u64)>, from: u64, to: u64) {
    ranges.push((from, to));
    ranges.sort_unstable();
    let mut out: Vec<(u64, u64)> = Vec::with_capacity(ranges.len());
    for &(a, b) in ranges.iter() {
        match out.last_mut() {
            Some(last) if a <= last.1.saturating_add(1) => last.1 = last.1.max(b),
            _ => out.push((a, b)),
        }
    }
    *ranges = out;
}

impl Seen {
    fn table(&self) -> std::sync::MutexGuard<'_, Table> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A read of `path`, whose bytes hash to `hash`, showed lines `from..=to` of its `total`
    /// (an empty file: `total` 0, and it counts as shown whole).
    pub fn read(&self, path: &Path, hash: Hash, from: u64, to: u64, total: u64) {
        let key = key(path);
        let mut t = self.table();
        let tick = t.touch();
        let mut entry = match t.entries.get(&key) {
            Some(e) if e.hash == hash => e.clone(),
            _ => Entry {
                hash,
                shown: Vec::new(),
                whole: false,
                tick,
            },
        };
        entry.tick = tick;
        if total == 0 {
            entry.whole = true;
        } else if from >= 1 && from <= to {
            merge(&mut entry.shown, from, to.min(total));
            entry.whole |= entry.shown.first() == Some(&(1, total));
        }
        t.put(key, entry);
    }

    /// This tools object wrote `path`: what is there now is what it knows. A path that no
    /// longer exists is forgotten.
    pub fn wrote(&self, path: &Path) {
        let key = key(path);
        match std::fs::read(&key) {
            Ok(bytes) => {
                let hash = hash(&bytes);
                let mut t = self.table();
                let tick = t.touch();
                t.put(
                    key,
                    Entry {
                        hash,
                        shown: Vec::new(),
                        whole: true,
                        tick,
                    },
                );
            }
            Err(_) => {
                self.table().entries.remove(&key);
            }
        }
    }

    /// Whether overwriting `path` whole is allowed: `Ok` when it does not exist (nothing to
    /// clobber) or holds the bytes last shown whole; else why not.
    pub fn check(&self, path: &Path) -> Result<(), Stale> {
        let key = key(path);
        let bytes = match std::fs::read(&key) {
            Ok(b) => b,
            // Missing: a create. Unreadable or a directory: the write reports it.
            Err(_) => return Ok(()),
        };
        let now = hash(&bytes);
        let mut t = self.table();
        let tick = t.touch();
        match t.entries.get_mut(&key) {
            Some(e) if e.whole && e.hash == now => {
                e.tick = tick;
                Ok(())
            }
            Some(e) if e.whole => Err(Stale::Changed),
            Some(e) if e.hash != now => Err(Stale::Changed),
            _ => Err(Stale::NotRead),
        }
    }

    /// Whether replacing lines `from..=to` of `path` (a definition, by `replace_symbol`) is
    /// allowed: `Ok` when its bytes are the ones a read showed and that read covered those
    /// lines (or the whole file, or they are this tools object's own last write).
    pub fn check_lines(&self, path: &Path, from: u64, to: u64) -> Result<(), Stale> {
        let key = key(path);
        let Ok(bytes) = std::fs::read(&key) else {
            return Ok(());
        };
        let now = hash(&bytes);
        let mut t = self.table();
        let tick = t.touch();
        match t.entries.get_mut(&key) {
            Some(e) if e.hash != now => Err(Stale::Changed),
            Some(e) if e.whole || e.shown.iter().any(|&(a, b)| a <= from && to <= b) => {
                e.tick = tick;
                Ok(())
            }
            _ => Err(Stale::NotRead),
        }
    }

    /// How many paths are remembered.
    pub fn len(&self) -> usize {
        self.table().entries.len()
    }

    /// Whether no path is remembered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_whole_read_allows_until_the_bytes_change() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.txt");
        let seen = Seen::default();
        std::fs::write(&p, "one\ntwo\n").unwrap();
        assert_eq!(seen.check(&p), Err(Stale::NotRead));
        seen.read(&p, hash(b"one\ntwo\n"), 1, 2, 2);
        assert_eq!(seen.check(&p), Ok(()));
        // Same bytes written again (a touch, a save without changes): still allowed.
        std::fs::write(&p, "one\ntwo\n").unwrap();
        assert_eq!(seen.check(&p), Ok(()));
        std::fs::write(&p, "one\nTWO\n").unwrap();
        assert_eq!(seen.check(&p), Err(Stale::Changed));
        // A missing file is a create.
        assert_eq!(seen.check(&dir.path().join("new.txt")), Ok(()));
    }

    #[test]
    fn pages_add_up_and_a_partial_read_is_not_enough() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.txt");
        std::fs::write(&p, "1\n2\n3\n4\n").unwrap();
        let h = hash(b"1\n2\n3\n4\n");
        let seen = Seen::default();
        seen.read(&p, h, 1, 2, 4);
        assert_eq!(seen.check(&p), Err(Stale::NotRead));
        seen.read(&p, h, 4, 4, 4);
        assert_eq!(seen.check(&p), Err(Stale::NotRead));
        seen.read(&p, h, 3, 3, 4);
        assert_eq!(seen.check(&p), Ok(()));
        // Pages of other bytes start over.
        seen.read(&p, hash(b"x"), 1, 1, 4);
        assert_eq!(seen.check(&p), Err(Stale::Changed));
    }

    #[test]
    fn a_range_is_fresh_when_those_lines_were_shown_at_these_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.txt");
        std::fs::write(&p, "1\n2\n3\n4\n").unwrap();
        let seen = Seen::default();
        assert_eq!(seen.check_lines(&p, 2, 3), Err(Stale::NotRead));
        seen.read(&p, hash(b"1\n2\n3\n4\n"), 2, 3, 4);
        assert_eq!(seen.check_lines(&p, 2, 3), Ok(()));
        assert_eq!(seen.check_lines(&p, 2, 4), Err(Stale::NotRead));
        std::fs::write(&p, "1\n2\n3\n5\n").unwrap();
        assert_eq!(seen.check_lines(&p, 2, 3), Err(Stale::Changed));
        seen.wrote(&p);
        assert_eq!(seen.check_lines(&p, 1, 4), Ok(()));
    }

    #[test]
    fn own_writes_count_and_deletes_forget() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.txt");
        std::fs::write(&p, "mine").unwrap();
        let seen = Seen::default();
        seen.wrote(&p);
        assert_eq!(seen.check(&p), Ok(()));
        std::fs::remove_file(&p).unwrap();
        seen.wrote(&p);
        assert!(seen.is_empty());
    }

    #[test]
    fn memory_is_bounded_and_the_least_recent_go_first() {
        let dir = tempfile::tempdir().unwrap();
        let seen = Seen::default();
        let first = dir.path().join("first");
        std::fs::write(&first, "x").unwrap();
        seen.read(&first, hash(b"x"), 1, 1, 1);
        let other = |i: usize| dir.path().join(format!("missing-{i}"));
        for i in 0..CAPACITY - 1 {
            seen.read(&other(i), hash(b"y"), 1, 1, 1);
        }
        assert_eq!(seen.len(), CAPACITY);
        // Used again: the most recent, so the eviction the next path causes keeps it.
        assert_eq!(seen.check(&first), Ok(()));
        seen.read(&other(CAPACITY), hash(b"y"), 1, 1, 1);
        let known = |p: &Path| seen.table().entries.contains_key(p);
        assert!(seen.len() < CAPACITY);
        assert!(known(&key(&first)) && !known(&other(0)) && known(&other(CAPACITY - 2)));
        for i in 0..CAPACITY * 2 {
            seen.read(&other(CAPACITY + 1 + i), hash(b"y"), 1, 1, 1);
        }
        assert!(seen.len() <= CAPACITY);
        assert_eq!(seen.check(&first), Err(Stale::NotRead));
    }

    #[test]
    fn ranges_merge() {
        let mut r = Vec::new();
        merge(&mut r, 5, 6);
        merge(&mut r, 1, 2);
        merge(&mut r, 3, 4);
        assert_eq!(r, vec![(1, 6)]);
        merge(&mut r, 9, 9);
        assert_eq!(r, vec![(1, 6), (9, 9)]);
    }
}
