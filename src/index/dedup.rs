//! Content deduplication during a build: files with the same prepared text have the same
//! trigrams, so only one of them (the representative) is extracted and posted.
//!
//! Replicated trees — vendored copies, generated files, a monorepo of copied packages — hold
//! the same bytes many times; extraction, pairs and sort are then paid once per distinct
//! text. A red team may craft files whose hashes collide to hide one's content behind the
//! other's postings, so a file is only ever a duplicate when its text's BLAKE3 (a
//! cryptographic hash: no known way to build a collision) equals the representative's.
//! BLAKE3 costs ~0.5 ns a byte here (2.1 GB/s over the corpus's small files), a third of
//! the extraction it saves, but hashing *every* file would slow a tree without duplicates
//! by ~10 % of its build. So the first filter is a fast keyed hash (foldhash, ~18 GB/s) with
//! the length; BLAKE3 runs only on a file whose fast key was seen before:
//!
//! - first file with a key: extracted, nothing else (it is not verified, so it is nobody's
//!   representative);
//! - second: hashed with BLAKE3 and extracted — the group's representative;
//! - later ones: hashed; equal to the representative's BLAKE3 → a duplicate (no extraction,
//!   no pairs), else (a fast-hash collision) extracted like any file.
//!
//! A group of `n` identical files is extracted twice instead of `n` times, and no file's
//! postings ever describe bytes other than those its representative held when read.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};
use std::sync::Mutex;

/// Shards of the claim map: threads rarely wait on one another.
const SHARDS: usize = 64;

enum Claim {
    /// One file with this key was extracted, unverified.
    Seen,
    /// The representative of this key: its id and the BLAKE3 of its text.
    Rep(u32, [u8; 32]),
}

/// The texts seen by a build, shared by its threads.
pub struct Claims {
    state: foldhash::quality::RandomState,
    shards: Vec<Mutex<HashMap<(u64, u64), Claim>>>,
}

impl Default for Claims {
    fn default() -> Self {
        Claims {
            state: foldhash::quality::RandomState::default(),
            shards: (0..SHARDS).map(|_| Mutex::default()).collect(),
        }
    }
}

impl Claims {
    /// File `id` has the prepared `text`: `Some(rep)` when it is a verified duplicate of file
    /// `rep` (then it must not be extracted), `None` when it must be extracted (and posted
    /// under its own id: it may become the representative of later files).
    pub fn claim(&self, id: u32, text: &[u8]) -> Option<u32> {
        let mut h = self.state.build_hasher();
        h.write(text);
        self.claim_keyed(id, text, (h.finish(), text.len() as u64))
    }

    /// [`Claims::claim`] under the fast `key` of `text`.
    fn claim_keyed(&self, id: u32, text: &[u8], key: (u64, u64)) -> Option<u32> {
        let shard = &self.shards[(key.0 as usize) % SHARDS];
        let known = {
            let mut map = shard.lock().ok()?;
            match map.get(&key) {
                None => {
                    map.insert(key, Claim::Seen);
                    return None;
                }
                Some(Claim::Seen) => None,
                Some(Claim::Rep(rep, sum)) => Some((*rep, *sum)),
            }
        };
        // Hashed outside the lock: BLAKE3 of a large file takes a while.
        let sum = *blake3::hash(text).as_bytes();
        match known {
            Some((rep, want)) => (sum == want).then_some(rep),
            None => {
                let mut map = shard.lock().ok()?;
                match map.get(&key) {
                    // Another thread's file became the representative meanwhile.
                    Some(Claim::Rep(rep, want)) => (sum == *want).then_some(*rep),
                    _ => {
                        map.insert(key, Claim::Rep(id, sum));
                        None
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn the_second_copy_represents_the_later_ones() {
        let c = Claims::default();
        assert_eq!(c.claim(0, b"same text"), None);
        assert_eq!(c.claim(5, b"same text"), None);
        assert_eq!(c.claim(2, b"same text"), Some(5));
        assert_eq!(c.claim(9, b"same text"), Some(5));
        assert_eq!(c.claim(1, b"other text"), None);
        assert_eq!(c.claim(3, b"Same text"), None);
        assert_eq!(c.claim(4, b""), None);
        assert_eq!(c.claim(6, b""), None);
        assert_eq!(c.claim(7, b""), Some(6));
    }

    #[test]
    fn a_fast_hash_collision_is_not_a_duplicate() {
        // Every text on one fast key (what a crafted collision achieves): BLAKE3 decides.
        let c = Claims::default();
        let key = (7, 3);
        assert_eq!(c.claim_keyed(0, b"abc", key), None);
        assert_eq!(c.claim_keyed(1, b"abd", key), None);
        assert_eq!(c.claim_keyed(2, b"abc", key), None);
        assert_eq!(c.claim_keyed(3, b"abd", key), Some(1));
        assert_eq!(c.claim_keyed(4, b"xyz", key), None);
    }

    #[test]
    fn a_build_posts_one_copy_and_expands_to_all() {
        use crate::index::{build, grams, store::Store};
        let dir = tempfile::tempdir().unwrap();
        let text = "fn shared_text() {}\n";
        for rel in ["a/x.rs", "b/deep/x.rs", "c/y.rs", "d.rs", "e/z.rs"] {
            let p = dir.path().join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        // The same text in UTF-16 prepares to the same bytes: a duplicate too.
        let utf16: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain(text.encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        std::fs::write(dir.path().join("f.rs"), utf16).unwrap();
        std::fs::write(dir.path().join("g.rs"), "fn other_text() {}\n").unwrap();
        let config = Arc::new(crate::config::Config::with_root(dir.path()));
        let built = build::build(&config, &crate::cancel::Cancel::new(), || 0).unwrap();
        let store = Store::from_vec(built.image).unwrap();
        assert_eq!(store.files(), 7);
        let posted = store.postings(grams::pack(b's', b'h', b'a'));
        // The first copy (unverified) and the representative: the other four have no postings.
        assert_eq!(posted.len(), 2, "{posted:?}");
        let mut all: Vec<&[u8]> = posted
            .iter()
            .flat_map(|&id| store.group(id as usize))
            .map(|id| store.file(id).path)
            .collect();
        all.sort_unstable();
        let want: [&[u8]; 6] = [
            b"a/x.rs",
            b"b/deep/x.rs",
            b"c/y.rs",
            b"d.rs",
            b"e/z.rs",
            b"f.rs",
        ];
        assert_eq!(all, want);
        let dups = (0..7).filter(|&i| store.file(i).rep as usize != i).count();
        assert_eq!(dups, 4);
        let other = store.find_file(b"g.rs").unwrap();
        assert_eq!(
            store.postings(grams::pack(b'o', b't', b'h')),
            [other as u32]
        );
        assert_eq!(store.group(other).collect::<Vec<_>>(), [other]);
    }
}
