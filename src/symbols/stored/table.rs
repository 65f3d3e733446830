//! The symbol table: every indexed file's [`FileSyms`](crate::symbols::model::FileSyms),
//! built from the trigram image's files and tied to that image by its checksum, so the
//! image's file ids, stamps and delta say which records still describe the disk.
//!
//! Layout (`.clarvis/index/symbols.idx`, little-endian): `MAGIC`, the grep image's BLAKE3
//! sum (32 bytes), the file count `n`, the build's milliseconds, then `n` 16-byte slots
//! (`offset << 2 | tag`, length), the records ([`super::codec`]), and a BLAKE3 hash of
//! everything before it. A duplicate file shares its representative's record. Written like
//! the grep image (temp file, fsync, rename); an image that fails its hash or belongs to
//! another grep image is rebuilt, never used.

use super::codec;
use crate::cancel::Cancel;
use crate::config::Config;
use crate::index::store::{Bytes, Stamp, Store, NO_CONTENT, RACY};
use crate::pool::threads;
use crate::search::at::BaseDir;
use crate::search::scan::prepare;
use crate::symbols::extract::extract;
use crate::symbols::ondemand::Skip;
use crate::syntax::defs::has_symbols;
use crate::syntax::parse::{self, TOOL_BUDGET};
use crate::syntax::{grammar_for, ParseFailure};
use crate::workspace::Guard;
use std::io::{self, Read};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Version 2: C/C++ symbols come from the masked parse (`syntax::cmask`); a version-1 table
/// holds symbols the engine no longer gives, so it is rebuilt.
const MAGIC: &[u8; 8] = b"CLVSYM\0\x02";
const HEADER: usize = 8 + 32 + 8 + 8;
const SLOT: usize = 16;
const SUM: usize = 32;
/// The file name beside `grep.idx`.
pub const FILE: &str = "symbols.idx";

const TAG_NONE: u64 = 0;
const TAG_SYMS: u64 = 1;
const TAG_UNSUPPORTED: u64 = 2;
const TAG_TOO_LARGE: u64 = 3;

/// What the table knows about one file.
#[derive(Debug, Clone, Copy)]
pub enum Record<'a> {
    /// Its symbols, encoded.
    Syms(&'a [u8]),
    /// It was not parsed, for this reason.
    Skipped(Skip),
    /// Nothing (it changed while the table was built, was racy, or timed out): parse it.
    Unknown,
}

/// A verified symbol table.
pub struct Table {
    bytes: Bytes,
    files: usize,
    /// How long the build took (0 for a table loaded from disk and then unchanged).
    pub build_ms: u64,
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    b.get(at..at + 8)
        .and_then(|s| s.try_into().ok())
        .map_or(0, u64::from_le_bytes)
}

fn corrupt() -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, "symbol table is corrupt")
}

impl Table {
    /// Opens and verifies `path` (mapped) as the table of `store`.
    pub fn open(path: &Path, store: &Store) -> io::Result<Table> {
        Table::verify(Bytes::map(path)?, store, true)
    }

    /// A table this process just built (its checksum is not recomputed).
    pub fn built(bytes: Vec<u8>, store: &Store) -> io::Result<Table> {
        Table::verify(Bytes::Owned(bytes), store, false)
    }

    fn verify(bytes: Bytes, store: &Store, sum: bool) -> io::Result<Table> {
        let b = bytes.as_slice();
        if b.len() < HEADER + SUM || &b[..8] != MAGIC || &b[8..40] != store.sum() {
            return Err(corrupt());
        }
        let body = b.len() - SUM;
        if sum && blake3::hash(&b[..body]).as_bytes() != &b[body..] {
            return Err(corrupt());
        }
        let files = usize::try_from(u64_at(b, 40)).map_err(|_| corrupt())?;
        let blob = files
            .checked_mul(SLOT)
            .and_then(|s| s.checked_add(HEADER))
            .filter(|&end| end <= body && files == store.files())
            .ok_or_else(corrupt)?;
        for i in 0..files {
            let (word, len) = (
                u64_at(b, HEADER + i * SLOT),
                u64_at(b, HEADER + i * SLOT + 8),
            );
            let end = (word >> 2)
                .checked_add(len)
                .and_then(|e| e.checked_add(blob as u64));
            if end.is_none_or(|e| e > body as u64) {
                return Err(corrupt());
            }
        }
        Ok(Table {
            build_ms: u64_at(b, 48),
            bytes,
            files,
        })
    }

    fn raw(&self) -> &[u8] {
        self.bytes.as_slice()
    }

    /// The whole table, as written to disk.
    pub fn bytes(&self) -> &[u8] {
        self.raw()
    }

    /// The table's own BLAKE3 sum.
    pub fn sum(&self) -> &[u8] {
        self.bytes.sum()
    }

    /// The grep image this table describes.
    pub fn image_sum(&self) -> &[u8] {
        &self.raw()[8..40]
    }

    /// Number of file slots (the grep image's files).
    pub fn files(&self) -> usize {
        self.files
    }

    /// What the table holds for file `id` of its image.
    pub fn record(&self, id: usize) -> Record<'_> {
        if id >= self.files {
            return Record::Unknown;
        }
        let b = self.raw();
        let word = u64_at(b, HEADER + id * SLOT);
        let len = u64_at(b, HEADER + id * SLOT + 8) as usize;
        let at = HEADER + self.files * SLOT + (word >> 2) as usize;
        match word & 3 {
            TAG_SYMS => Record::Syms(&b[at..at + len]),
            TAG_UNSUPPORTED => Record::Skipped(Skip::Unsupported),
            TAG_TOO_LARGE => Record::Skipped(Skip::TooLarge),
            _ => Record::Unknown,
        }
    }
}

/// What every file's read needs.
#[derive(Clone, Copy)]
struct Cx<'a> {
    config: &'a Config,
    base: &'a BaseDir,
    guard: Option<&'a Guard>,
    cancel: &'a Cancel,
}

/// One representative's result during a build.
type Slot = (u64, Vec<u8>);

/// Reads and parses `rel` for the table: its record, or `TAG_NONE` when its metadata is no
/// longer what the image recorded (it changed since: the delta has it, and it is parsed on
/// demand) or it is racy.
fn one(cx: &Cx, rel: &[u8], stamp: Stamp, flags: u32, buf: &mut Vec<u8>) -> Slot {
    let Cx {
        config,
        base,
        guard,
        cancel,
    } = *cx;
    let rel_s = String::from_utf8_lossy(rel);
    let Some(grammar) = grammar_for(&rel_s).filter(|g| has_symbols(*g)) else {
        return (TAG_UNSUPPORTED, Vec::new());
    };
    if flags & RACY != 0 {
        return (TAG_NONE, Vec::new());
    }
    let abs = config.workspace_root.join(crate::index::os_str(rel));
    buf.clear();
    let read = base.open_file(&abs).and_then(|opened| {
        if !opened.beneath && guard.is_some_and(|g| !g.allows(&opened.file, &abs)) {
            return Ok(false);
        }
        // The descriptor's stamp must be the image's: then these are the bytes it indexed.
        let meta = opened.file.metadata()?;
        if !meta.is_file() || Stamp::of(&meta) != stamp || meta.len() > config.max_file_bytes {
            return Ok(false);
        }
        opened.file.take(config.max_file_bytes).read_to_end(buf)?;
        Ok(buf.len() as u64 == stamp.size)
    });
    if !read.unwrap_or(false) || !prepare(buf) {
        return (TAG_NONE, Vec::new());
    }
    match parse::parse_masked(grammar, buf, TOOL_BUDGET, Some(cancel)) {
        Ok(parsed) => {
            let syms = extract(&parsed);
            // Freed here, not by `parse::release`: nobody waits for this thread, and a tree
            // freed on another thread costs both threads (mimalloc hands the blocks back).
            drop(parsed);
            let mut out = Vec::new();
            codec::encode(&syms, &mut out);
            (TAG_SYMS, out)
        }
        Err(ParseFailure::TooLarge) => (TAG_TOO_LARGE, Vec::new()),
        Err(_) => (TAG_NONE, Vec::new()),
    }
}

/// Builds the table of `store`, parsing every representative file with a symbol grammar on
/// every core; a file `previous` (another image's table) holds with the same path and stamp
/// is copied, not parsed. `None` when cancelled.
pub fn build(
    config: &Config,
    store: &Store,
    previous: Option<(&Store, &Table)>,
    cancel: &Cancel,
    build_ms: impl Fn() -> u64,
) -> Option<Vec<u8>> {
    let n = store.files();
    let reps: Vec<usize> = (0..n)
        .filter(|&i| {
            let r = store.file(i);
            r.rep as usize == i && r.flags & NO_CONTENT == 0
        })
        .collect();
    let g = Guard::new(config);
    let base = BaseDir::open(&config.workspace_root).confine(&g);
    let guard = g.is_on().then_some(&g);
    let cx = Cx {
        config,
        base: &base,
        guard,
        cancel,
    };
    let next = AtomicUsize::new(0);
    let done: Mutex<Vec<(usize, Slot)>> = Mutex::new(Vec::with_capacity(reps.len()));
    std::thread::scope(|s| {
        for _ in 0..threads().min(reps.len()).max(1) {
            let (next, done, reps, cx) = (&next, &done, &reps, &cx);
            s.spawn(move || {
                let mut buf = Vec::new();
                let mut mine = Vec::new();
                while let Some(&id) = reps.get(next.fetch_add(1, Ordering::Relaxed)) {
                    if cancel.is_cancelled() {
                        break;
                    }
                    let rec = store.file(id);
                    let reused = previous.and_then(|(ps, pt)| {
                        let pid = ps.find_file(rec.path)?;
                        (ps.file(pid).stamp == rec.stamp && rec.flags & RACY == 0)
                            .then(|| match pt.record(pid) {
                                Record::Syms(b) => Some((TAG_SYMS, b.to_vec())),
                                Record::Skipped(Skip::TooLarge) => {
                                    Some((TAG_TOO_LARGE, Vec::new()))
                                }
                                _ => None,
                            })
                            .flatten()
                    });
                    let slot =
                        reused.unwrap_or_else(|| one(cx, rec.path, rec.stamp, rec.flags, &mut buf));
                    mine.push((id, slot));
                }
                if let Ok(mut d) = done.lock() {
                    d.append(&mut mine);
                }
            });
        }
    });
    if cancel.is_cancelled() {
        return None;
    }
    let mut done = done.into_inner().ok()?;
    done.sort_unstable_by_key(|(id, _)| *id);
    let blob_len: usize = done.iter().map(|(_, (_, b))| b.len()).sum();
    let mut slots = vec![(TAG_NONE, 0u64); n];
    let mut image = Vec::with_capacity(HEADER + n * SLOT + blob_len + SUM);
    image.extend_from_slice(MAGIC);
    image.extend_from_slice(store.sum());
    image.extend_from_slice(&(n as u64).to_le_bytes());
    image.extend_from_slice(&build_ms().to_le_bytes());
    let mut blob = Vec::with_capacity(blob_len);
    for (id, (tag, bytes)) in &done {
        slots[*id] = ((blob.len() as u64) << 2 | tag, bytes.len() as u64);
        blob.extend_from_slice(bytes);
    }
    for i in 0..n {
        let rep = store.file(i).rep as usize;
        let (word, len) = slots[rep.min(n - 1)];
        let (word, len) = if rep < n { (word, len) } else { (TAG_NONE, 0) };
        image.extend_from_slice(&word.to_le_bytes());
        image.extend_from_slice(&len.to_le_bytes());
    }
    image.extend_from_slice(&blob);
    let sum = blake3::hash(&image);
    image.extend_from_slice(sum.as_bytes());
    Some(image)
}
