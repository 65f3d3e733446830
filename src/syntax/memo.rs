//! What `outline` and `check_syntax` report about a source text is a function of its grammar
//! and its decoded text alone, so it is kept, process-wide, under a BLAKE3 hash of both: a file
//! checked or outlined again with the same content costs a read and a hash (about 0.1 ms for
//! a 287 KB file) instead of a parse (about 45 ms). Unlike the tree cache (eight trees, tens
//! of megabytes), an entry here is the report's data — a few hundred bytes for a clean file —
//! so every file of a large repository fits, and a repository checked twice is parsed once.
//!
//! Content-addressed, never path-addressed: a file changed behind our back hashes to another
//! key, so an entry can never describe other bytes (a 256-bit BLAKE3 collision is not a
//! practical event). Failures (timeouts, aborts) are not kept: they depend on the moment.

use super::issues::{self, Issues};
use super::lang::Grammar;
use super::outline::{self, Symbol};
use super::parse::Parsed;
use super::Purpose;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The memo holds at most about this many bytes of reports (two generations of half each).
pub const MAX_BYTES: usize = 16 << 20;

/// A text's identity: BLAKE3 of the purpose, the grammar and the bytes.
pub type Key = [u8; 32];

/// The report data of one text.
#[derive(Debug)]
pub struct Facts {
    /// The grammar it was parsed with.
    pub grammar: Grammar,
    /// Line count as the original counts it (`\n` + 1).
    pub lines: usize,
    /// The tree has an ERROR or MISSING node anywhere.
    pub has_error: bool,
    /// Up to [`issues::MAX_ISSUES`] issues (an outline collects them only when `has_error`).
    pub issues: Issues,
    /// The outline's symbols, all of them (empty for `check_syntax`).
    pub symbols: Vec<Symbol>,
}

impl Facts {
    /// What `purpose` reports about `parsed`.
    pub fn of(parsed: &Parsed, purpose: Purpose) -> Facts {
        let has_error = parsed.tree.root_node().has_error();
        let (issues, symbols) = match purpose {
            Purpose::Check => (issues::collect(parsed, issues::MAX_ISSUES), Vec::new()),
            Purpose::Outline => (
                if has_error {
                    issues::collect(parsed, issues::MAX_ISSUES)
                } else {
                    Issues::default()
                },
                outline::symbols(parsed),
            ),
        };
        Facts {
            grammar: parsed.grammar,
            lines: memchr::memchr_iter(b'\n', parsed.text.as_bytes()).count() + 1,
            has_error,
            issues,
            symbols,
        }
    }
}

/// The key of `text` (decoded, as every parse sees it) parsed with `grammar` for `purpose`.
/// Keyed by the decoded text rather than the file's bytes, so a warning (which has the
/// editors' decoded text) and a check of the file on disk share an entry.
pub fn key(purpose: Purpose, grammar: Grammar, text: &str) -> Key {
    let bytes = text.as_bytes();
    let mut h = blake3::Hasher::new();
    h.update(&[purpose as u8]);
    h.update(grammar.name().as_bytes());
    h.update(&[0]);
    h.update(bytes);
    *h.finalize().as_bytes()
}

/// What a memo entry weighs, roughly, in heap bytes.
pub trait Weighed {
    /// The weight counted against the memo's bound.
    fn weight(&self) -> usize;
}

impl Weighed for Facts {
    fn weight(&self) -> usize {
        let issues: usize = self.issues.list.iter().map(|i| 64 + i.near.len()).sum();
        let symbols: usize = self.symbols.iter().map(|s| 64 + s.header.len()).sum();
        128 + issues + symbols
    }
}

/// A bounded content-addressed map in two generations: lookups promote from `old` to `new`;
/// when `new` outgrows half the bound it becomes `old` and the previous `old` is dropped.
/// Recently used entries survive, memory stays under the bound, and nothing is scanned on
/// eviction. The symbol engine keeps its per-file facts in one too.
pub struct Generations<V> {
    new: HashMap<Key, Arc<V>>,
    new_bytes: usize,
    old: HashMap<Key, Arc<V>>,
    max: usize,
}

/// A generation retired to make room: dropped by the caller outside its lock.
pub type Retired<V> = Option<HashMap<Key, Arc<V>>>;

impl<V: Weighed> Generations<V> {
    /// An empty memo holding at most about `max` bytes.
    pub fn new(max: usize) -> Self {
        Generations {
            new: HashMap::new(),
            new_bytes: 0,
            old: HashMap::new(),
            max,
        }
    }

    /// The entry of `key`, promoted to the new generation; and the generation retired to
    /// make room, if any.
    pub fn get(&mut self, key: &Key) -> (Option<Arc<V>>, Retired<V>) {
        if let Some(f) = self.new.get(key) {
            return (Some(Arc::clone(f)), None);
        }
        match self.old.remove(key) {
            Some(f) => {
                let retired = self.insert(*key, Arc::clone(&f));
                (Some(f), retired)
            }
            None => (None, None),
        }
    }

    /// Inserts into the new generation; returns the generation retired to make room, if any.
    pub fn insert(&mut self, key: Key, value: Arc<V>) -> Retired<V> {
        let weight = value.weight();
        if weight > self.max / 2 {
            return None;
        }
        let mut retired = None;
        if self.new_bytes + weight > self.max / 2 {
            retired = Some(std::mem::replace(
                &mut self.old,
                std::mem::take(&mut self.new),
            ));
            self.new_bytes = 0;
        }
        if self.new.insert(key, value).is_none() {
            self.new_bytes += weight;
        }
        retired
    }

    #[cfg(test)]
    fn total(&self) -> usize {
        self.new
            .values()
            .chain(self.old.values())
            .map(|f| f.weight())
            .sum()
    }
}

static MEMO: Mutex<Option<Generations<Facts>>> = Mutex::new(None);

fn with<T>(f: impl FnOnce(&mut Generations<Facts>) -> T) -> T {
    let mut guard = MEMO
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    f(guard.get_or_insert_with(|| Generations::new(MAX_BYTES)))
}

/// The kept facts for `key`, if any.
pub fn get(key: &Key) -> Option<Arc<Facts>> {
    let (found, retired) = with(|m| m.get(key));
    // A retired generation is freed outside the lock.
    drop(retired);
    found
}

/// Keeps `facts` under `key`.
pub fn put(key: Key, facts: Arc<Facts>) {
    let retired = with(|m| m.insert(key, facts));
    drop(retired);
}

#[cfg(test)]
mod tests {
    use super::super::{check_json, load_facts, write_warning};
    use super::*;
    use crate::config::Config;
    use crate::syntax::issues::Issue;

    fn facts(weight_hint: usize) -> Arc<Facts> {
        Arc::new(Facts {
            grammar: Grammar::Rust,
            lines: 1,
            has_error: true,
            issues: Issues {
                list: vec![Issue {
                    kind: issues::Kind::Error,
                    line: 1,
                    column: 1,
                    near: "x".repeat(weight_hint),
                }],
                truncated: false,
            },
            symbols: Vec::new(),
        })
    }

    #[test]
    fn the_bound_holds_and_a_used_entry_survives_a_generation() {
        let mut m = Generations::new(MAX_BYTES);
        let hot = [0xAB; 32];
        m.insert(hot, facts(10));
        let mut kept_alive = 0;
        for i in 0u32..20_000 {
            let mut k = [0; 32];
            k[..4].copy_from_slice(&i.to_le_bytes());
            m.insert(k, facts(4_000));
            // Use `hot` now and then, as `get` does: promote it from the old generation.
            if m.old.contains_key(&hot) {
                assert!(m.get(&hot).0.is_some());
                kept_alive += 1;
            }
            let total = m.total();
            assert!(total <= MAX_BYTES, "memo holds {total} bytes");
        }
        assert!(kept_alive > 0, "the generations never turned over");
        assert!(m.new.contains_key(&hot) || m.old.contains_key(&hot));
        // An entry that alone outweighs a generation is not kept.
        let mut m = Generations::new(MAX_BYTES);
        m.insert(hot, facts(MAX_BYTES));
        assert!(m.new.is_empty());
    }

    #[test]
    fn the_same_bytes_are_parsed_once_and_changed_bytes_again() {
        let dir = tempfile::tempdir().unwrap();
        let config = Config::with_root(dir.path());
        let file = dir.path().join("memo_same.rs");
        // Unique content: the memo is process-wide and other tests run beside this one.
        std::fs::write(&file, "fn memo_same_bytes() {}\n").unwrap();
        let (_, a) = load_facts(&config, "memo_same.rs", Purpose::Check, None).unwrap();
        let (_, b) = load_facts(&config, "memo_same.rs", Purpose::Check, None).unwrap();
        assert!(Arc::ptr_eq(&a, &b), "the second check parsed again");
        assert_eq!(check_json("memo_same.rs", &b)["ok"], true);
        // The outline of the same bytes is other facts.
        let (_, o) = load_facts(&config, "memo_same.rs", Purpose::Outline, None).unwrap();
        assert_eq!(o.symbols.len(), 1);
        assert!(a.symbols.is_empty());

        std::fs::write(&file, "fn memo_same_bytes( {}\n").unwrap();
        let (_, c) = load_facts(&config, "memo_same.rs", Purpose::Check, None).unwrap();
        assert_eq!(check_json("memo_same.rs", &c)["ok"], false);
        // A copy elsewhere with the same bytes shares the entry; the display path is its own.
        std::fs::write(dir.path().join("copy.rs"), "fn memo_same_bytes( {}\n").unwrap();
        let (shown, d) = load_facts(&config, "copy.rs", Purpose::Check, None).unwrap();
        assert!(Arc::ptr_eq(&c, &d));
        assert_eq!(check_json(&shown, &d)["path"], "copy.rs");
    }

    #[test]
    fn a_remembered_check_gives_the_warning_a_parse_gives() {
        let dir = tempfile::tempdir().unwrap();
        let config = Config::with_root(dir.path());
        let bad = "def memo_warning(:\n    pass\n";
        let parsed = write_warning(&config, "w.py", crate::syntax::Written::Text(bad));
        assert!(
            parsed.contains("syntax error in w.py at line 1"),
            "{parsed}"
        );
        std::fs::write(dir.path().join("w.py"), bad).unwrap();
        load_facts(&config, "w.py", Purpose::Check, None).unwrap();
        assert!(get(&key(Purpose::Check, Grammar::Python, bad)).is_some());
        assert_eq!(
            write_warning(&config, "w.py", crate::syntax::Written::Text(bad)),
            parsed
        );
    }
}
