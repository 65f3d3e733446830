//! Content deduplication during a build: files with the same prepared text have the same
//! trigrams, so only one of them (the representative) is extracted and posted.
//!
//! Replicated trees — vendored copies, generated files, a monorepo of copied packages — hold
//! the same bytes many times; extraction, pairs and sort are then paid once per distinct
//! text. A red team may craft files whose hashes collide to hide one's content behind the
//! other's postings, so a file is only ever a duplicate when its text is proven equal to
//! the representative's: byte for byte, or by BLAKE3 (a cryptographic hash: no known way to
//! build a collision), never by a fast hash alone. BLAKE3 costs ~0.5 ns a byte here (2.1 GB/s over the corpus's small files), but hashing
//! *every* file would slow a tree without duplicates by ~10 % of its build (115 ms of CPU on
//! the corpus, for 2 MB of duplicate bytes). So the first filter is a fast, randomly seeded
//! hash (foldhash, ~18 GB/s) with the length, and the rest only runs on a file whose fast key
//! was seen before:
//!
//! - first file with a key: extracted, nothing else;
//! - second: the first is re-read and compared byte for byte (its stamp must be the one it
//!   was indexed under, and settled — not racy — so the re-read holds what was extracted);
//!   equal → the first is the group's representative, this one a duplicate, and the text's
//!   BLAKE3 is recorded. Otherwise (changed, racy, a fast-hash collision) this file is hashed,
//!   extracted, and becomes the representative;
//! - later ones: hashed; equal to the representative's BLAKE3 → a duplicate (no extraction,
//!   no pairs), else extracted like any file.
//!
//! A group of `n` identical files costs one extraction, one extra read and `n - 1` hashes,
//! and no file's postings ever describe bytes other than those its representative held
//! when it was read.

use super::store::Stamp;
use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};
use std::sync::Mutex;

/// Shards of the claim map: threads rarely wait on one another.
const SHARDS: usize = 64;

enum Claim {
    /// One file with this key was extracted, unverified: its id, path and stamp, and
    /// whether its stamp can vouch for its content (not racy).
    Seen(u32, Vec<u8>, Stamp, bool),
    /// The representative of this key: its id and the BLAKE3 of its text.
    Rep(u32, [u8; 32]),
}

/// One shard of the claim map: (fast hash, length) → claim.
type Shard = HashMap<(u64, u64), Claim, Prehashed>;

/// The texts seen by a build, shared by its threads.
pub struct Claims {
    state: foldhash::quality::RandomState,
    shards: Vec<Mutex<Shard>>,
}

impl Default for Claims {
    fn default() -> Self {
        Claims {
            state: foldhash::quality::RandomState::default(),
            shards: (0..SHARDS).map(|_| Mutex::default()).collect(),
        }
    }
}

/// The map's keys are already hashes (foldhash, randomly seeded): used as they are.
#[derive(Default, Clone, Copy)]
struct Prehashed;

impl BuildHasher for Prehashed {
    type Hasher = Passthrough;
    fn build_hasher(&self) -> Passthrough {
        Passthrough(0)
    }
}

struct Passthrough(u64);

impl Hasher for Passthrough {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 ^= v;
    }
}

/// A file being claimed: its id, path, stamp and prepared text.
pub struct Text<'a> {
    /// Its id.
    pub id: u32,
    /// Its path relative to the root.
    pub rel: &'a [u8],
    /// Its stamp (from the descriptor it was read through).
    pub stamp: Stamp,
    /// Whether that stamp can vouch for the content later (mtime not racy).
    pub settled: bool,
    /// The prepared text.
    pub text: &'a [u8],
}

impl Claims {
    /// `file` was read: `Some(rep)` when it is a verified duplicate of file `rep` (then it
    /// must not be extracted), `None` when it must be extracted (and posted under its own
    /// id: it may become the representative of later files).
    ///
    /// `same(rel, stamp, text)` says whether the file at `rel` still has `stamp` and the
    /// prepared text `text` (it re-reads it): the second file of a key verifies the first
    /// that way, byte for byte, so the first becomes the representative without a second
    /// extraction. The stamp check is what makes the re-read describe the first read (the
    /// freshness rules' own assumption: an unchanged, settled stamp means unchanged content).
    pub fn claim(
        &self,
        file: &Text,
        same: impl FnOnce(&[u8], Stamp, &[u8]) -> bool,
    ) -> Option<u32> {
        let mut h = self.state.build_hasher();
        h.write(file.text);
        self.claim_keyed(file, (h.finish(), file.text.len() as u64), same)
    }

    /// [`Claims::claim`] under the fast `key` of the text.
    fn claim_keyed(
        &self,
        file: &Text,
        key: (u64, u64),
        same: impl FnOnce(&[u8], Stamp, &[u8]) -> bool,
    ) -> Option<u32> {
        // Bits the shard maps do not use: their buckets take the low bits, their tags the top 7.
        let shard = &self.shards[((key.0 >> 40) as usize) % SHARDS];
        let first = {
            let mut map = shard.lock().ok()?;
            match map.get(&key) {
                None => {
                    let seen = Claim::Seen(file.id, file.rel.to_vec(), file.stamp, file.settled);
                    map.insert(key, seen);
                    return None;
                }
                Some(Claim::Seen(id, rel, stamp, settled)) => {
                    Some((*id, rel.clone(), *stamp, *settled))
                }
                Some(Claim::Rep(rep, want)) => {
                    let (rep, want) = (*rep, *want);
                    drop(map);
                    // Hashed outside the lock: BLAKE3 of a large file takes a while.
                    return (*blake3::hash(file.text).as_bytes() == want).then_some(rep);
                }
            }
        };
        let sum = *blake3::hash(file.text).as_bytes();
        // The first file, re-read, verified byte for byte: it represents this one.
        let verified = first.and_then(|(id, rel, stamp, settled)| {
            (settled && same(&rel, stamp, file.text)).then_some(id)
        });
        let mut map = shard.lock().ok()?;
        match map.get(&key) {
            // Another thread's file became the representative meanwhile.
            Some(Claim::Rep(rep, want)) => (sum == *want).then_some(*rep),
            _ => match verified {
                Some(first) => {
                    map.insert(key, Claim::Rep(first, sum));
                    Some(first)
                }
                None => {
                    map.insert(key, Claim::Rep(file.id, sum));
                    None
                }
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// Claims `text` as file `id` (at path `f<id>`), with the first file's re-read saying
    /// whether it still holds `text` (`first_same`).
    fn claim(c: &Claims, id: u32, text: &[u8], first_same: bool) -> Option<u32> {
        let rel = format!("f{id}");
        let file = Text {
            id,
            rel: rel.as_bytes(),
            stamp: Stamp::default(),
            settled: true,
            text,
        };
        c.claim(&file, |_, _, t| first_same && t == text)
    }

    #[test]
    fn the_first_copy_verified_represents_the_later_ones() {
        let c = Claims::default();
        assert_eq!(claim(&c, 0, b"same text", true), None);
        assert_eq!(claim(&c, 5, b"same text", true), Some(0));
        assert_eq!(claim(&c, 2, b"same text", true), Some(0));
        assert_eq!(claim(&c, 1, b"other text", true), None);
        assert_eq!(claim(&c, 3, b"Same text", true), None);
        assert_eq!(claim(&c, 4, b"", true), None);
        assert_eq!(claim(&c, 6, b"", true), Some(4));
    }

    #[test]
    fn a_first_copy_that_changed_or_is_racy_represents_nothing() {
        let c = Claims::default();
        assert_eq!(claim(&c, 0, b"text", false), None);
        // The re-read failed: the second copy is extracted and represents the later ones.
        assert_eq!(claim(&c, 1, b"text", false), None);
        assert_eq!(claim(&c, 2, b"text", false), Some(1));
        // A first copy whose stamp cannot vouch for its content is never re-read.
        let c = Claims::default();
        let racy = Text {
            id: 0,
            rel: b"r",
            stamp: Stamp::default(),
            settled: false,
            text: b"t",
        };
        assert_eq!(c.claim(&racy, |_, _, _| true), None);
        let second = Text { id: 1, ..racy };
        assert_eq!(
            c.claim(&second, |_, _, _| panic!("re-read a racy file")),
            None
        );
    }

    #[test]
    fn a_fast_hash_collision_is_not_a_duplicate() {
        // Every text on one fast key (what a crafted collision achieves): the byte
        // comparison and BLAKE3 decide.
        let c = Claims::default();
        let key = (7, 3);
        let file = |id: u32, text: &'static [u8]| Text {
            id,
            rel: b"x",
            stamp: Stamp::default(),
            settled: true,
            text,
        };
        let first: &[u8] = b"abc";
        let reread = |_: &[u8], _, t: &[u8]| t == first;
        assert_eq!(c.claim_keyed(&file(0, b"abc"), key, reread), None);
        assert_eq!(c.claim_keyed(&file(1, b"abd"), key, reread), None);
        assert_eq!(c.claim_keyed(&file(2, b"abc"), key, reread), None);
        assert_eq!(c.claim_keyed(&file(3, b"abd"), key, reread), Some(1));
        assert_eq!(c.claim_keyed(&file(4, b"xyz"), key, reread), None);
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
        // Settled stamps (a racy first copy is not re-read: then the second represents).
        let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        for rel in [
            "a/x.rs",
            "b/deep/x.rs",
            "c/y.rs",
            "d.rs",
            "e/z.rs",
            "f.rs",
            "g.rs",
        ] {
            let f = std::fs::File::options()
                .write(true)
                .open(dir.path().join(rel));
            f.unwrap().set_modified(old).unwrap();
        }
        let config = Arc::new(crate::config::Config::with_root(dir.path()));
        let built = build::build(&config, &crate::cancel::Cancel::new(), || 0, None).unwrap();
        let store = Store::from_vec(built.image).unwrap();
        assert_eq!(store.files(), 7);
        let posted = store.postings(grams::pack(b's', b'h', b'a'));
        // The representative only: the other five have no postings.
        assert_eq!(posted.len(), 1, "{posted:?}");
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
        assert_eq!(dups, 5);
        let other = store.find_file(b"g.rs").unwrap();
        assert_eq!(
            store.postings(grams::pack(b'o', b't', b'h')),
            [other as u32]
        );
        assert_eq!(store.group(other).collect::<Vec<_>>(), [other]);
    }
}
