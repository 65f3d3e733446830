//! The index file: one image, written atomically, checked on open, read through a mapping.
//!
//! Written by [`super::image`]. Layout (little-endian): a 64-byte header; the file table and the directory table
//! (48-byte records, sorted by relative path bytes, so a path is found by bisection); the
//! trigram table (16-byte records `gram, count, offset`, sorted by gram); the path bytes;
//! the posting lists; and a BLAKE3 hash of everything before it. The image is written to a
//! temp file, fsynced and renamed over `.clarvis/index/grep.idx`, so a reader sees the old
//! image or the new one; a torn or corrupt file (a crash of another writer, a disk error,
//! a hand edit) fails the hash and is rebuilt, never used.
//!
//! Mapped with `memmap2` rather than read: the tables of a 250k-file tree are tens of MB
//! that a query touches a few pages of, and the page cache shares them across processes.

pub use super::entry::{Entry, Stamp, NONE, NO_CONTENT, RACY};
use super::grams;
use std::collections::HashMap;
use std::io;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

/// Version 3: trigrams of 7-bit classes (`grams::class`). Version 2 added the duplicate
/// group to file records (`rep`, `next`). An image of an older version fails this check and
/// is rebuilt, never misread.
pub(super) const MAGIC: &[u8; 8] = b"CLVIDX\0\x03";
pub(super) const HEADER: usize = 64;
pub(super) const REC: usize = 56;
pub(super) const GRAM: usize = 16;
pub(super) const SUM: usize = 32;

/// An image's bytes: mapped from its file, or held in memory (just built, or `readOnly`).
/// Also the symbol table's (`symbols::stored::table`), written and opened the same way.
pub enum Bytes {
    /// Mapped from the image file.
    Map(memmap2::Mmap),
    /// In memory.
    Owned(Vec<u8>),
}

impl Bytes {
    /// Maps the image file at `path`.
    pub fn map(path: &Path) -> io::Result<Bytes> {
        let file = std::fs::File::open(path)?;
        // SAFETY: an image file is only ever replaced by rename, never written in place, so
        // the mapped inode's bytes do not change under us (a truncation by a foreign process
        // is outside what any mapping can defend against, as for every mmap user).
        let map = unsafe { memmap2::Mmap::map(&file)? };
        Ok(Bytes::Map(map))
    }

    /// The trailing BLAKE3 sum every file of the index ends with (its last [`SUM`] bytes).
    pub fn sum(&self) -> &[u8] {
        let b = self.as_slice();
        &b[b.len() - SUM..]
    }

    /// The bytes.
    pub fn as_slice(&self) -> &[u8] {
        match self {
            Bytes::Map(m) => m,
            Bytes::Owned(v) => v,
        }
    }
}

/// A verified index image.
pub struct Store {
    bytes: Bytes,
    files: usize,
    dirs: usize,
    grams: usize,
    post_off: usize,
    /// The `maxFileBytes` the image was built under.
    pub max_file_bytes: u64,
    /// How long the build took.
    pub build_ms: u64,
    /// The long posting lists already decoded (see [`Store::postings_shared`]).
    decoded: Mutex<Decoded>,
}

/// Decoded posting lists of the commonest trigrams, kept with the image they came from.
#[derive(Default)]
struct Decoded {
    lists: HashMap<u32, Arc<[u32]>>,
    /// Ids held, for the bound.
    held: usize,
}

/// A posting list this long (ids) is kept decoded: it is a common trigram that most
/// queries meet again, and its decoding is most of an indexed query's cost.
const KEEP_DECODED: usize = 512;
/// At most this many decoded ids are kept (16 MiB); past it the cache starts over.
const MAX_DECODED: usize = 4 << 20;

/// A view of one record.
#[derive(Debug, Clone, Copy)]
pub struct Rec<'a> {
    /// Relative path bytes.
    pub path: &'a [u8],
    /// Flags ([`NO_CONTENT`], [`RACY`]).
    pub flags: u32,
    /// Metadata when indexed.
    pub stamp: Stamp,
    /// Files: the id whose postings describe this file's content (its own id unless it is a
    /// duplicate). Directories: [`NONE`].
    pub rep: u32,
    /// Files: the next file of the same group ([`NONE`] at the end of the chain).
    pub next: u32,
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    b.get(at..at + 8)
        .and_then(|s| s.try_into().ok())
        .map_or(0, u64::from_le_bytes)
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    b.get(at..at + 4)
        .and_then(|s| s.try_into().ok())
        .map_or(0, u32::from_le_bytes)
}

fn corrupt() -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, "index image is corrupt")
}

impl Store {
    /// Opens and verifies the image at `path` (mapped).
    pub fn open(path: &Path) -> io::Result<Store> {
        Store::verify(Bytes::map(path)?, true)
    }

    /// Verifies an image held in memory.
    pub fn from_vec(bytes: Vec<u8>) -> io::Result<Store> {
        Store::verify(Bytes::Owned(bytes), true)
    }

    /// An image this process just serialised (`image::image`): its layout is checked as
    /// any image's, but its checksum, computed from these very bytes, is not recomputed.
    pub fn built(bytes: Vec<u8>) -> io::Result<Store> {
        Store::verify(Bytes::Owned(bytes), false)
    }

    fn verify(bytes: Bytes, sum: bool) -> io::Result<Store> {
        let b = bytes.as_slice();
        if b.len() < HEADER + SUM || &b[..8] != MAGIC {
            return Err(corrupt());
        }
        let body = b.len() - SUM;
        if sum && blake3::hash(&b[..body]).as_bytes() != &b[body..] {
            return Err(corrupt());
        }
        let n = |i: usize| usize::try_from(u64_at(b, 8 + 8 * i)).unwrap_or(usize::MAX);
        let (files, dirs, grams, tables, post_off) = (n(0), n(1), n(2), n(3), n(4));
        let (max_file_bytes, build_ms) = (u64_at(b, 48), u64_at(b, 56));
        let want = files
            .checked_add(dirs)
            .and_then(|r| r.checked_mul(REC))
            .and_then(|r| grams.checked_mul(GRAM).and_then(|g| g.checked_add(r)))
            .and_then(|r| r.checked_add(HEADER));
        if want != Some(tables) || post_off < tables || post_off > body {
            return Err(corrupt());
        }
        let store = Store {
            bytes,
            files,
            dirs,
            grams,
            post_off,
            max_file_bytes,
            build_ms,
            decoded: Mutex::default(),
        };
        // Every record's path must lie in the path area: checked once, so lookups need not.
        for i in 0..files + dirs {
            let at = HEADER + i * REC;
            let (off, len) = (
                u64_at(store.raw(), at),
                u64::from(u32_at(store.raw(), at + 8)),
            );
            if off < tables as u64 || off + len > post_off as u64 {
                return Err(corrupt());
            }
        }
        // Every group must be a chain from its representative through ascending ids, so that
        // walking one ends.
        for i in 0..files {
            let r = store.rec(i);
            let (rep, next) = (r.rep as usize, r.next as usize);
            let rep_ok = rep < files && store.rec(rep).rep as usize == rep;
            let next_ok = r.next == NONE
                || (next < files
                    && next != rep
                    && (next > i || rep == i)
                    && store.rec(next).rep == r.rep);
            if !rep_ok || !next_ok {
                return Err(corrupt());
            }
        }
        Ok(store)
    }

    fn raw(&self) -> &[u8] {
        self.bytes.as_slice()
    }

    /// The whole image, as written to disk.
    pub fn bytes(&self) -> &[u8] {
        self.raw()
    }

    /// The image's BLAKE3 sum (its last bytes): two verified images with the same sum are
    /// the same image.
    pub fn sum(&self) -> &[u8] {
        self.bytes.sum()
    }

    /// Number of files.
    pub fn files(&self) -> usize {
        self.files
    }

    /// Number of directories.
    pub fn dirs(&self) -> usize {
        self.dirs
    }

    /// Size of the image in bytes.
    pub fn len(&self) -> usize {
        self.raw().len()
    }

    /// Whether the image is empty (never: a verified image has a header).
    pub fn is_empty(&self) -> bool {
        self.raw().is_empty()
    }

    fn rec(&self, i: usize) -> Rec<'_> {
        let b = self.raw();
        let at = HEADER + i * REC;
        let off = u64_at(b, at) as usize;
        let len = u32_at(b, at + 8) as usize;
        Rec {
            path: &b[off..off + len],
            flags: u32_at(b, at + 12),
            stamp: Stamp {
                size: u64_at(b, at + 16),
                mtime: u64_at(b, at + 24) as i64,
                ctime: u64_at(b, at + 32) as i64,
                ino: u64_at(b, at + 40),
            },
            rep: u32_at(b, at + 48),
            next: u32_at(b, at + 52),
        }
    }

    /// File `rep` and the duplicates its postings describe (the ids a posted id stands for).
    pub fn group(&self, rep: usize) -> impl Iterator<Item = usize> + '_ {
        let first = (rep < self.files).then_some(rep);
        std::iter::successors(first, move |&i| {
            let next = self.rec(i).next;
            (next != NONE).then_some(next as usize)
        })
    }

    /// File `id`.
    pub fn file(&self, id: usize) -> Rec<'_> {
        self.rec(id)
    }

    /// Directory `i`.
    pub fn dir(&self, i: usize) -> Rec<'_> {
        self.rec(self.files + i)
    }

    /// The id of the file at `path`, by bisection.
    pub fn find_file(&self, path: &[u8]) -> Option<usize> {
        self.find(0, self.files, path)
    }

    /// The index of the directory at `path`, by bisection.
    pub fn find_dir(&self, path: &[u8]) -> Option<usize> {
        self.find(self.files, self.files + self.dirs, path)
            .map(|i| i - self.files)
    }

    /// The ids of the files under directory `dir` (relative, `""` = the root): paths are
    /// sorted bytewise, so they are the contiguous run starting with `dir/`.
    pub fn files_under(&self, dir: &[u8]) -> std::ops::Range<usize> {
        if dir.is_empty() {
            return 0..self.files;
        }
        let (mut from, mut to) = (dir.to_vec(), dir.to_vec());
        from.push(b'/');
        to.push(b'/' + 1);
        self.lower_bound(&from)..self.lower_bound(&to)
    }

    /// The first file id whose path is not below `key`.
    fn lower_bound(&self, key: &[u8]) -> usize {
        let (mut lo, mut hi) = (0, self.files);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.rec(mid).path < key {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    fn find(&self, mut lo: usize, mut hi: usize, path: &[u8]) -> Option<usize> {
        while lo < hi {
            let mid = (lo + hi) / 2;
            match self.rec(mid).path.cmp(path) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(mid),
            }
        }
        None
    }

    /// [`Store::postings`], shared: a long list is decoded once per image and kept (an
    /// indexed query's trigrams are mostly common ones: `sha`, `red`, `per` of
    /// `sharedHelper17` are in nearly every file of a repository that uses such names, and
    /// decoding them was most of a warm `find_symbol`'s time).
    pub fn postings_shared(&self, gram: u32) -> Arc<[u32]> {
        let lock = || self.decoded.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(l) = lock().lists.get(&gram) {
            return Arc::clone(l);
        }
        let list: Arc<[u32]> = self.postings(gram).into();
        if list.len() >= KEEP_DECODED {
            let mut d = lock();
            if d.held + list.len() > MAX_DECODED {
                *d = Decoded::default();
            }
            d.held += list.len();
            d.lists.insert(gram, Arc::clone(&list));
        }
        list
    }

    /// The files holding trigram `gram` (ascending ids; empty when none does).
    pub fn postings(&self, gram: u32) -> Vec<u32> {
        let b = self.raw();
        let base = HEADER + (self.files + self.dirs) * REC;
        let (mut lo, mut hi) = (0, self.grams);
        while lo < hi {
            let mid = (lo + hi) / 2;
            let at = base + mid * GRAM;
            match u32_at(b, at).cmp(&gram) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => {
                    let count = u32_at(b, at + 4) as usize;
                    let off = (u64_at(b, at + 8) as usize).max(self.post_off);
                    let mut out = Vec::new();
                    grams::decode(b.get(off..b.len() - SUM).unwrap_or(&[]), count, &mut out);
                    out.retain(|&id| (id as usize) < self.files);
                    return out;
                }
            }
        }
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::grams::PAIR_ID_BITS;
    use crate::index::image::{image, persist};
    use crate::index::lists::{Lists, Merged};

    fn entry(p: &str, size: u64) -> Entry {
        Entry {
            path: p.as_bytes().to_vec(),
            stamp: Stamp {
                size,
                mtime: -5,
                ctime: 7,
                ino: 9,
            },
            flags: 0,
            rep: NONE,
        }
    }

    fn sample() -> Vec<u8> {
        let files = [entry("a.rs", 1), entry("b/c.rs", 2)];
        let dirs = [entry("b", 0)];
        let mut pairs = vec![
            5 << PAIR_ID_BITS,
            (5 << PAIR_ID_BITS) | 1,
            (9 << PAIR_ID_BITS) | 1,
        ];
        let lists = Lists::from_pairs(&mut pairs, &mut Vec::new(), 0);
        image(&files, &dirs, &Merged::new(vec![lists]), 1000, 3)
    }

    #[test]
    fn a_late_write_does_not_bring_a_deleted_workspace_back() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("workspace");
        assert!(persist(&root.join(".clarvis/index"), &sample()).is_err());
        assert!(!root.exists());
        std::fs::create_dir(&root).unwrap();
        assert!(persist(&root.join(".clarvis/index"), &sample()).is_ok());
    }

    #[test]
    fn round_trip_through_disk() {
        let dir = tempfile::tempdir().unwrap();
        let path = persist(&dir.path().join("index"), &sample()).unwrap();
        assert_eq!(
            std::fs::read(dir.path().join(".gitignore")).unwrap(),
            b"*\n"
        );
        let s = Store::open(&path).unwrap();
        assert_eq!((s.files(), s.dirs()), (2, 1));
        assert_eq!((s.max_file_bytes, s.build_ms), (1000, 3));
        assert_eq!(s.file(1).path, b"b/c.rs");
        assert_eq!(s.file(1).stamp.size, 2);
        assert_eq!(s.file(0).stamp.mtime, -5);
        assert_eq!(s.dir(0).path, b"b");
        assert_eq!(s.find_file(b"b/c.rs"), Some(1));
        assert_eq!(s.find_file(b"b"), None);
        assert_eq!(s.find_dir(b"b"), Some(0));
        assert_eq!(s.find_dir(b"a.rs"), None);
        assert_eq!(s.files_under(b"b"), 1..2);
        assert_eq!(s.files_under(b""), 0..2);
        assert!(s.files_under(b"a").is_empty() && s.files_under(b"b/c").is_empty());
        assert_eq!(s.postings(5), [0, 1]);
        assert_eq!(s.postings(9), [1]);
        assert!(s.postings(6).is_empty());
    }

    #[test]
    fn any_torn_or_flipped_byte_is_refused() {
        let good = sample();
        for cut in [0, 8, 63, good.len() / 2, good.len() - 1] {
            assert!(Store::from_vec(good[..cut].to_vec()).is_err(), "cut {cut}");
        }
        for at in (0..good.len()).step_by(7) {
            let mut bad = good.clone();
            bad[at] ^= 0x40;
            assert!(Store::from_vec(bad).is_err(), "flip {at}");
        }
        assert!(Store::from_vec(good).is_ok());
    }

    #[test]
    fn groups_chain_from_the_representative() {
        let mut files: Vec<Entry> = ["a", "b", "c", "d", "e"]
            .iter()
            .map(|p| entry(p, 1))
            .collect();
        // d represents a and c; b is alone; e is represented by b.
        files[0].rep = 3;
        files[2].rep = 3;
        files[4].rep = 1;
        let mut pairs = vec![(7 << PAIR_ID_BITS) | 1, (7 << PAIR_ID_BITS) | 3];
        let lists = Merged::new(vec![Lists::from_pairs(&mut pairs, &mut Vec::new(), 0)]);
        let s = Store::from_vec(image(&files, &[], &lists, 1000, 0)).unwrap();
        assert_eq!(s.group(3).collect::<Vec<_>>(), [3, 0, 2]);
        assert_eq!(s.group(1).collect::<Vec<_>>(), [1, 4]);
        assert_eq!((s.file(0).rep, s.file(3).rep, s.file(4).rep), (3, 3, 1));
        assert_eq!(s.group(9).count(), 0);
        // A representative that is itself a duplicate would make a chain that misses files.
        files[1].rep = 3;
        assert!(Store::from_vec(image(&files, &[], &lists, 1000, 0)).is_err());
    }

    #[test]
    fn a_version_1_image_is_refused_even_with_a_valid_sum() {
        // Version 1 records were 48 bytes without groups: read as the current version they
        // would be misread, so the magic says which; the caller rebuilds.
        let mut old = sample();
        old[..8].copy_from_slice(b"CLVIDX\0\x01");
        let body = old.len() - SUM;
        let sum = *blake3::hash(&old[..body]).as_bytes();
        old[body..].copy_from_slice(&sum);
        assert!(Store::from_vec(old).is_err());
    }
}
