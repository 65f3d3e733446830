//! Collecting grep results under the scan budget, in parallel but deterministically.
//!
//! The contract's budget is sequential: files in sorted path order, the emitted rows' text
//! bytes summed, the scan stopping after the first whole file that takes the sum past
//! `maxOutputBytes`. We search in parallel (in walk order) and reach exactly that result:
//! every matching file goes into a map sorted by path; whenever the total passes the cap the
//! map is cut right after the first file whose running sum passes it, and that file's path
//! becomes a bound — files sorting after it are not searched at all (the bound only ever
//! moves earlier, so nothing skipped could have been kept).
//!
//! Memory stays bounded: the map holds at most the budget plus one file's rows, and one
//! file's stored rows (content mode) are capped at the budget too — past it the file keeps
//! counting units and bytes but stores nothing, and the renderer searches it again if the
//! page needs those rows (see `render`).

use super::scan::{Row, RowSink};
use crate::text::js_cmp;
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};
use std::sync::Mutex;

/// Per-row bookkeeping bytes counted against a file's storage cap.
const ROW_OVERHEAD: usize = std::mem::size_of::<StoredRow>();

/// A row kept in memory: line span, kind and its text's range in `RowStore::text`.
#[derive(Debug, Clone, Copy)]
pub struct StoredRow {
    line: u64,
    end_line: u64,
    unit: bool,
    start: usize,
    end: usize,
}

/// A file's rows, stored up to a byte cap.
#[derive(Debug, Default)]
pub struct RowStore {
    text: Vec<u8>,
    rows: Vec<StoredRow>,
    /// Every row of the file is stored.
    pub complete: bool,
}

impl RowStore {
    /// Replays the stored rows into `sink`, stopping when it asks to.
    pub fn replay(&self, sink: &mut dyn RowSink) {
        for r in &self.rows {
            let row = Row {
                line: r.line,
                end_line: r.end_line,
                unit: r.unit,
                text: &self.text[r.start..r.end],
            };
            if !sink.row(row) {
                return;
            }
        }
    }
}

/// One file with at least one unit.
#[derive(Debug)]
pub struct FileHit {
    /// Display path (the sort key).
    pub path: String,
    /// Absolute path, to search the file again.
    pub abs: PathBuf,
    /// Units (matching lines, or multiline units).
    pub units: u64,
    /// The budget bytes: text of every emitted row.
    pub bytes: u64,
    /// Rows, in content mode.
    pub rows: Option<RowStore>,
}

/// Counts one file's rows and stores them (when asked) up to a cap.
pub struct FileSink<'c> {
    /// Units seen.
    pub units: u64,
    /// Text bytes of all rows seen.
    pub bytes: u64,
    /// Where rows are kept (content mode).
    pub store: Option<RowStore>,
    cap: usize,
    cancel: &'c crate::cancel::Cancel,
}

impl<'c> FileSink<'c> {
    /// A sink storing rows (when `store`) up to `cap` bytes including bookkeeping.
    pub fn new(store: bool, cap: usize, cancel: &'c crate::cancel::Cancel) -> Self {
        let store = store.then(|| RowStore {
            complete: true,
            ..RowStore::default()
        });
        FileSink {
            units: 0,
            bytes: 0,
            store,
            cap,
            cancel,
        }
    }
}

impl RowSink for FileSink<'_> {
    fn row(&mut self, row: Row<'_>) -> bool {
        self.units += u64::from(row.unit);
        self.bytes += row.text.len() as u64;
        if let Some(store) = &mut self.store {
            let used = store.text.len() + store.rows.len() * ROW_OVERHEAD;
            if store.complete && used + row.text.len() + ROW_OVERHEAD <= self.cap {
                let start = store.text.len();
                store.text.extend_from_slice(row.text);
                let end = store.text.len();
                store.rows.push(StoredRow {
                    line: row.line,
                    end_line: row.end_line,
                    unit: row.unit,
                    start,
                    end,
                });
            } else {
                store.complete = false;
            }
        }
        // A file with millions of matching lines still notices an abort.
        !(self.units.is_multiple_of(4096) && self.cancel.is_cancelled())
    }
}

/// A display path ordered as JavaScript orders strings.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Key(String);

impl Ord for Key {
    fn cmp(&self, other: &Self) -> Ordering {
        js_cmp(&self.0, &other.0)
    }
}

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

#[derive(Default)]
struct State {
    hits: BTreeMap<Key, FileHit>,
    total: u64,
    bound: Option<Key>,
}

/// The shared, budgeted result of a parallel search.
pub struct Collector {
    max: u64,
    state: Mutex<State>,
    has_bound: AtomicBool,
}

impl Collector {
    /// A collector for a budget of `max` bytes.
    pub fn new(max: u64) -> Self {
        Collector {
            max,
            state: Mutex::new(State::default()),
            has_bound: AtomicBool::new(false),
        }
    }

    /// Whether the budget has been passed at least once (a cheap check before
    /// [`Collector::beyond_bound`]).
    pub fn has_bound(&self) -> bool {
        self.has_bound.load(AtomicOrdering::Relaxed)
    }

    /// Whether a file at `path` lies past the bound and need not be searched.
    pub fn beyond_bound(&self, path: &str) -> bool {
        if !self.has_bound() {
            return false;
        }
        let Ok(state) = self.state.lock() else {
            return false;
        };
        state
            .bound
            .as_ref()
            .is_some_and(|b| js_cmp(path, &b.0) == Ordering::Greater)
    }

    /// Adds a file with at least one unit, cutting the sorted map when the budget is passed.
    pub fn add(&self, hit: FileHit) {
        let Ok(mut state) = self.state.lock() else {
            return;
        };
        let key = Key(hit.path.clone());
        if state.bound.as_ref().is_some_and(|b| key > *b) {
            return;
        }
        state.total += hit.bytes;
        state.hits.insert(key, hit);
        if state.total > self.max {
            let mut sum = 0u64;
            let mut cut: Option<Key> = None;
            for (k, h) in &state.hits {
                sum += h.bytes;
                if sum > self.max {
                    cut = Some(k.clone());
                    break;
                }
            }
            if let Some(cut) = cut {
                let mut tail = state.hits.split_off(&cut);
                // `split_off` moved the crossing file itself into the tail: put it back.
                if let Some(h) = tail.remove(&cut) {
                    state.hits.insert(cut.clone(), h);
                }
                state.total = sum;
                state.bound = Some(cut);
                self.has_bound.store(true, AtomicOrdering::Relaxed);
            }
        }
    }

    /// The kept files in path order, and whether the scan was cut (incomplete).
    pub fn finish(self) -> (Vec<FileHit>, bool) {
        let state = self.state.into_inner().unwrap_or_default();
        let incomplete = state.bound.is_some();
        (state.hits.into_values().collect(), incomplete)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(path: &str, bytes: u64) -> FileHit {
        FileHit {
            path: path.into(),
            abs: PathBuf::from(path),
            units: 1,
            bytes,
            rows: None,
        }
    }

    #[test]
    fn budget_keeps_the_sorted_prefix_whatever_the_arrival_order() {
        let orders: [&[(&str, u64)]; 3] = [
            &[("a", 400), ("b", 400), ("c", 400), ("d", 400)],
            &[("d", 400), ("c", 400), ("b", 400), ("a", 400)],
            &[("c", 400), ("a", 400), ("d", 400), ("b", 400)],
        ];
        for order in orders {
            let c = Collector::new(1000);
            for (p, b) in order {
                if !c.beyond_bound(p) {
                    c.add(hit(p, *b));
                }
            }
            let (hits, incomplete) = c.finish();
            let names: Vec<_> = hits.iter().map(|h| h.path.as_str()).collect();
            assert_eq!(names, ["a", "b", "c"]);
            assert!(incomplete);
        }
    }

    #[test]
    fn at_the_cap_is_complete() {
        let c = Collector::new(1000);
        c.add(hit("a", 500));
        c.add(hit("b", 500));
        let (hits, incomplete) = c.finish();
        assert_eq!(hits.len(), 2);
        assert!(!incomplete);
    }

    #[test]
    fn store_is_capped_but_counts_continue() {
        let cancel = crate::cancel::Cancel::new();
        let mut s = FileSink::new(true, 100, &cancel);
        for i in 0..20 {
            s.row(Row {
                line: i + 1,
                end_line: i + 1,
                unit: true,
                text: b"0123456789",
            });
        }
        assert_eq!((s.units, s.bytes), (20, 200));
        let store = s.store.unwrap();
        assert!(!store.complete);
        assert!(store.rows.len() < 20);
    }
}
