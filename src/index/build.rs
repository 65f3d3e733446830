//! Building an index image: the walk grep uses, then every file's trigrams, in parallel.
//!
//! The walk is grep's own ([`walk_entries`] under a search [`Policy`] rooted at the
//! workspace root), so the index holds exactly the files a root-level grep would search.
//! Each file is read and prepared as grep prepares it ([`prepare`]); files grep would skip
//! (binary, over `maxFileBytes`, unreadable) are recorded without content so their later
//! changes are still noticed. Files are numbered in path order and processed in chunks:
//! threads extract a chunk's trigrams while this thread appends the previous chunk's to the
//! posting lists in id order, so lists stay ascending and memory holds only compressed lists
//! plus two chunks.

use super::fresh::REPO;
use super::grams::{Extractor, Postings};
use super::store::{self, Entry, Stamp, NO_CONTENT, RACY};
use crate::cancel::Cancel;
use crate::config::Config;
use crate::search::policy::Policy;
use crate::search::scan::prepare;
use crate::search::walk::{threads, walk_entries};
use crate::tools::Warnings;
use std::io::Read;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Files per extraction chunk.
const CHUNK: usize = 1024;

/// A file whose mtime is this close (ns) to the moment it was read may still change without
/// its metadata showing it (coarse timestamps): it stays a candidate until the next build.
const RACY_NS: i64 = 2_000_000_000;

/// The result of a build: the image bytes and what it holds.
pub struct Built {
    /// The serialised image.
    pub image: Vec<u8>,
    /// Files indexed.
    pub files: usize,
}

/// Path of `abs` relative to `root`, as stored (`/`-separated bytes).
pub fn rel_bytes(root: &Path, abs: &Path) -> Option<Vec<u8>> {
    let rel = abs.strip_prefix(root).ok()?;
    Some(rel.as_os_str().as_encoded_bytes().to_vec())
}

pub(crate) fn now_ns() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i64)
}

/// Walks `config.workspace_root` and builds the image. `None` when cancelled.
pub fn build(config: &Arc<Config>, cancel: &Cancel, build_ms: impl Fn() -> u64) -> Option<Built> {
    let root = config.workspace_root.clone();
    let policy = Arc::new(Policy::new(
        config.clone(),
        &root,
        true,
        Warnings::default(),
    ));
    let found: Mutex<(Vec<Entry>, Vec<Entry>)> = Mutex::default();
    walk_entries(&root, policy, cancel, true, || {
        let found = &found;
        let root = &root;
        let mut flush = Flush(found, Vec::new(), Vec::new());
        Box::new(move |entry: &ignore::DirEntry| {
            let (Some(path), Ok(meta)) = (rel_bytes(root, entry.path()), entry.metadata()) else {
                return;
            };
            let mut e = Entry {
                path,
                stamp: Stamp::of(&meta),
                flags: 0,
            };
            if meta.is_dir() {
                if entry.path().join(".git").symlink_metadata().is_ok() {
                    e.flags |= REPO;
                }
                // An entry added within the same timestamp tick would not move the mtime.
                if e.stamp.mtime > now_ns() - RACY_NS {
                    e.flags |= RACY;
                }
                flush.2.push(e);
            } else {
                flush.1.push(e);
            }
        }) as Box<dyn FnMut(&ignore::DirEntry) + Send>
    });
    if cancel.is_cancelled() {
        return None;
    }
    let (mut files, mut dirs) = found.into_inner().unwrap_or_default();
    files.sort_unstable_by(|a, b| a.path.cmp(&b.path));
    dirs.sort_unstable_by(|a, b| a.path.cmp(&b.path));
    let mut lists = Lists::default();
    let max = config.max_file_bytes;
    let mut extractors: Vec<Extractor> = (0..threads()).map(|_| Extractor::default()).collect();
    // The previous chunk's trigrams, merged on this thread while the next chunk is read.
    let mut pending: Vec<(usize, Vec<u32>)> = Vec::new();
    for (c, chunk) in files.chunks_mut(CHUNK).enumerate() {
        if cancel.is_cancelled() {
            return None;
        }
        let next = AtomicUsize::new(0);
        let results: Mutex<Vec<(usize, Vec<u32>)>> = Mutex::default();
        let slots: Vec<Mutex<&mut Entry>> = chunk.iter_mut().map(Mutex::new).collect();
        std::thread::scope(|s| {
            for ex in extractors.iter_mut() {
                let (next, results, slots, root) = (&next, &results, &slots, &root);
                s.spawn(move || {
                    let mine = extract_chunk(ex, slots, next, root, max, c * CHUNK);
                    if let Ok(mut r) = results.lock() {
                        r.extend(mine);
                    }
                });
            }
            merge(&mut lists, std::mem::take(&mut pending));
        });
        pending = results.into_inner().unwrap_or_default();
    }
    merge(&mut lists, pending);
    let grams = lists.sorted();
    let n = files.len();
    Some(Built {
        image: store::image(&files, &dirs, &grams, max, build_ms()),
        files: n,
    })
}

/// The posting lists under construction, found by a direct table indexed by trigram (64 MiB
/// of `u32` slots, mostly untouched pages): a hash map's hashing was 30 % of a build.
struct Lists {
    slot: Vec<u32>,
    lists: Vec<(u32, Postings)>,
}

impl Default for Lists {
    fn default() -> Self {
        Lists {
            slot: vec![u32::MAX; 1 << 24],
            lists: Vec::new(),
        }
    }
}

impl Lists {
    fn push(&mut self, gram: u32, id: u32) {
        let slot = &mut self.slot[(gram & 0x00FF_FFFF) as usize];
        if *slot == u32::MAX {
            *slot = self.lists.len() as u32;
            self.lists.push((gram, Postings::default()));
        }
        self.lists[*slot as usize].1.push(id);
    }

    fn sorted(mut self) -> Vec<(u32, Postings)> {
        self.lists.sort_unstable_by_key(|g| g.0);
        self.lists
    }
}

/// Appends a chunk's trigrams to the lists in file-id order.
fn merge(lists: &mut Lists, mut results: Vec<(usize, Vec<u32>)>) {
    results.sort_unstable_by_key(|r| r.0);
    for (id, grams) in results {
        for g in grams {
            lists.push(g, id as u32);
        }
    }
}

/// One extractor thread's share of a chunk: files taken from `slots` by `next`, their
/// entries completed (stamp, flags), their trigrams returned with their ids.
fn extract_chunk(
    ex: &mut Extractor,
    slots: &[Mutex<&mut Entry>],
    next: &AtomicUsize,
    root: &Path,
    max: u64,
    first_id: usize,
) -> Vec<(usize, Vec<u32>)> {
    let (mut buf, mut grams, mut mine) = (Vec::new(), Vec::new(), Vec::new());
    loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        let Some(slot) = slots.get(i) else { break };
        let Ok(mut e) = slot.lock() else { continue };
        let abs = root.join(super::os_str(&e.path));
        match load(&abs, max, &mut buf) {
            Some((stamp, true)) => {
                e.stamp = stamp;
                if stamp.mtime > now_ns() - RACY_NS {
                    e.flags |= RACY;
                }
                ex.extract(&buf, &mut grams);
                mine.push((first_id + i, std::mem::take(&mut grams)));
            }
            Some((stamp, false)) => {
                e.stamp = stamp;
                e.flags |= NO_CONTENT;
            }
            None => e.flags |= NO_CONTENT,
        }
        if buf.capacity() > 4 << 20 {
            buf = Vec::new();
        }
    }
    mine
}

/// Moves a walker thread's entries into the shared lists when the thread's visitor is
/// dropped (the walker drops each visitor when its thread ends).
struct Flush<'a>(&'a Mutex<(Vec<Entry>, Vec<Entry>)>, Vec<Entry>, Vec<Entry>);

impl Drop for Flush<'_> {
    fn drop(&mut self) {
        if let Ok(mut f) = self.0.lock() {
            f.0.append(&mut self.1);
            f.1.append(&mut self.2);
        }
    }
}

/// Reads and prepares one file as grep does: `Some((stamp, true))` with the prepared text
/// in `buf`, `Some((stamp, false))` for a file grep skips (binary, too large), `None` when
/// it cannot be opened.
fn load(abs: &Path, max: u64, buf: &mut Vec<u8>) -> Option<(Stamp, bool)> {
    buf.clear();
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW);
    }
    let file = options.open(abs).ok()?;
    let meta = file.metadata().ok()?;
    let stamp = Stamp::of(&meta);
    if !meta.is_file() || meta.len() > max {
        return Some((stamp, false));
    }
    let ok = file.take(max.saturating_add(1)).read_to_end(buf).is_ok()
        && buf.len() as u64 <= max
        && prepare(buf);
    Some((stamp, ok))
}
