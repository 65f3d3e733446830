//! Building an index image: the walk grep uses, then every file's trigrams, in parallel.
//!
//! The walk is grep's own ([`walk_entries`] under a search [`Policy`] rooted at the
//! workspace root), so the index holds exactly the files a root-level grep would search.
//! Each file is read and prepared as grep prepares it ([`prepare`]); files grep would skip
//! (binary, over `maxFileBytes`, unreadable) are recorded without content so their later
//! changes are still noticed. Files are numbered in path order and cut into contiguous id
//! ranges; each thread takes the next range, reads its files with one reused buffer and
//! turns their trigrams into the range's posting lists ([`Lists::from_pairs`]); a file whose
//! text another file already holds (verified: `dedup`) is not extracted and records that
//! file instead. The ranges' lists are concatenated in id order when the image is written
//! ([`Merged`]).

use super::dedup::{Claims, Text};
use super::fresh::REPO;
use super::grams::{Extractor, PAIR_ID_BITS};
use super::image;
use super::lists::{Lists, Merged};
use super::store::{Entry, Stamp, NO_CONTENT, RACY};
use super::watch::Watch;
use crate::cancel::Cancel;
use crate::config::Config;
use crate::pool::threads;
use crate::search::policy::Policy;
use crate::search::scan::prepare;
use crate::search::walk::walk_entries;
use crate::warnings::Warnings;
use std::io::Read;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Most files per id range: a pair numbers its file within the range in [`PAIR_ID_BITS`]
/// bits. Also bounds the pairs a thread holds (a few MB per thousand files).
const RANGE: usize = 1 << PAIR_ID_BITS;

/// Most pairs a thread keeps allocated between ranges (16 MiB each for the pairs and the
/// sort's scratch): a range of two thousand source files needs about 1.6 M.
const KEEP_PAIRS: usize = 4 << 20;

/// A file whose mtime is this close (ns) to the moment it was read may still change without
/// its metadata showing it (coarse timestamps): it stays a candidate until the next build.
const RACY_NS: i64 = 2_000_000_000;

/// The result of a build: the image bytes and what it holds.
pub struct Built {
    /// The serialised image.
    pub image: Vec<u8>,
    /// Files indexed.
    pub files: usize,
    /// The watch given to [`build`], now on every directory of the image, each added before
    /// any of the directory's files was read and before its stamp was taken; `None` when
    /// none was given or one could not be added.
    pub watch: Option<Watch>,
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
///
/// With a `watch`, every directory the walk yields is watched as the walk reaches it, then
/// stamped; its files are read after the walk. Whatever changes after the watch is in its
/// queue. The walk lists a directory just before reaching it: an entry created in between
/// leaves the directory's stamp racy, and `fresh::unchanged` lists racy directories again
/// (`live::installed` takes the baseline from both).
pub fn build(
    config: &Arc<Config>,
    cancel: &Cancel,
    build_ms: impl Fn() -> u64,
    watch: Option<Watch>,
) -> Option<Built> {
    let root = config.workspace_root.clone();
    let policy = Arc::new(Policy::new(
        config.clone(),
        &root,
        true,
        Warnings::default(),
    ));
    let found: Mutex<Found> = Mutex::default();
    let unwatched = AtomicBool::new(false);
    walk_entries(&root, policy, cancel, true, || {
        let (found, watch, unwatched) = (&found, &watch, &unwatched);
        let root = &root;
        let mut flush = Flush(found, Found::default());
        Box::new(move |entry: &ignore::DirEntry| {
            let Some(path) = rel_bytes(root, entry.path()) else {
                return;
            };
            let mut e = Entry::new(path);
            if entry.file_type().is_some_and(|t| t.is_dir()) {
                if let Some(w) = watch {
                    match w.add_shared(root, &e.path) {
                        Some(wd) => flush.1.watches.push((wd, e.path.clone())),
                        None => unwatched.store(true, Ordering::Relaxed),
                    }
                }
                // A file's stamp comes from the descriptor it is read through; a directory's
                // from here.
                // The root's own, through a symlink if it was named by one (`fresh::stat`).
                let meta = match entry.depth() {
                    0 => std::fs::metadata(entry.path()),
                    _ => entry.metadata().map_err(std::io::Error::other),
                };
                let Ok(meta) = meta else { return };
                e.stamp = Stamp::of(&meta);
                if entry.path().join(".git").symlink_metadata().is_ok() {
                    e.flags |= REPO;
                }
                // An entry added within the same timestamp tick would not move the mtime.
                if e.stamp.mtime > now_ns() - RACY_NS {
                    e.flags |= RACY;
                }
                flush.1.dirs.push(e);
            } else {
                flush.1.files.push(e);
            }
        }) as Box<dyn FnMut(&ignore::DirEntry) + Send>
    });
    if cancel.is_cancelled() {
        return None;
    }
    let Found {
        mut files,
        mut dirs,
        watches,
    } = found.into_inner().unwrap_or_default();
    let watch = watch.filter(|_| !unwatched.into_inner()).map(|mut w| {
        for (wd, rel) in watches {
            w.record(wd, rel);
        }
        w
    });
    files.sort_unstable_by(|a, b| a.path.cmp(&b.path));
    dirs.sort_unstable_by(|a, b| a.path.cmp(&b.path));
    let max = config.max_file_bytes;
    // At least eight ranges per thread, so a slow thread (the machine is shared) holds up
    // the end by one small range at most.
    let per = files.len().div_ceil(threads() * 8).clamp(64, RANGE);
    let ranges: Vec<Mutex<&mut [Entry]>> = files.chunks_mut(per).map(Mutex::new).collect();
    let parts: Vec<Mutex<Lists>> = ranges.iter().map(|_| Mutex::default()).collect();
    let next = AtomicUsize::new(0);
    let claims = Claims::default();
    std::thread::scope(|s| {
        for _ in 0..threads() {
            let (ranges, parts, next, root, claims) = (&ranges, &parts, &next, &root, &claims);
            s.spawn(move || {
                let mut work = Work::default();
                loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    let (Some(range), Some(part)) = (ranges.get(k), parts.get(k)) else {
                        break;
                    };
                    if cancel.is_cancelled() {
                        break;
                    }
                    let (Ok(mut range), Ok(mut part)) = (range.lock(), part.lock()) else {
                        break;
                    };
                    *part = work.range(&mut range, (k * per) as u32, root, max, claims);
                }
            });
        }
    });
    if cancel.is_cancelled() {
        return None;
    }
    drop(ranges);
    let parts = parts
        .into_iter()
        .map(|p| p.into_inner().unwrap_or_default())
        .collect();
    let n = files.len();
    Some(Built {
        image: image::image(&files, &dirs, &Merged::new(parts), max, build_ms()),
        files: n,
        watch,
    })
}

/// One extraction thread's reused memory.
#[derive(Default)]
struct Work {
    ex: Extractor,
    buf: Vec<u8>,
    pairs: Vec<u32>,
    scratch: Vec<u32>,
    /// A duplicate's first copy, re-read to verify it.
    first: Vec<u8>,
}

impl Work {
    /// Reads the files of one id range (ids from `first_id`), completes their entries
    /// (stamp, flags) and returns the range's posting lists.
    fn range(
        &mut self,
        entries: &mut [Entry],
        first_id: u32,
        root: &Path,
        max: u64,
        claims: &Claims,
    ) -> Lists {
        self.pairs.clear();
        for (i, e) in entries.iter_mut().enumerate() {
            let abs = root.join(super::os_str(&e.path));
            match load(&abs, max, &mut self.buf) {
                Some((stamp, true)) => {
                    e.stamp = stamp;
                    if stamp.mtime > now_ns() - RACY_NS {
                        e.flags |= RACY;
                    }
                    let id = first_id + i as u32;
                    let file = Text {
                        id,
                        rel: &e.path,
                        stamp,
                        settled: e.flags & RACY == 0,
                        text: &self.buf,
                    };
                    let first = &mut self.first;
                    let same = |rel: &[u8], was: Stamp, text: &[u8]| {
                        let abs = root.join(super::os_str(rel));
                        let ok = matches!(load(&abs, max, first), Some((now, true)) if now == was);
                        let same = ok && first.as_slice() == text;
                        if first.capacity() > 4 << 20 {
                            *first = Vec::new();
                        }
                        same
                    };
                    if let Some(rep) = claims.claim(&file, same) {
                        e.rep = rep;
                    } else {
                        self.ex.extract(&self.buf, i as u32, &mut self.pairs);
                    }
                }
                Some((stamp, false)) => {
                    e.stamp = stamp;
                    e.flags |= NO_CONTENT;
                }
                None => e.flags |= NO_CONTENT,
            }
            if self.buf.capacity() > 4 << 20 {
                self.buf = Vec::new();
            }
        }
        let lists = Lists::from_pairs(&mut self.pairs, &mut self.scratch, first_id);
        // The vectors are reused from range to range (fresh ones cost a page fault per 4 KiB
        // each time), unless a range of huge files grew them: that must not pin its memory
        // for the rest of the build.
        if self.pairs.capacity() > KEEP_PAIRS {
            self.pairs = Vec::new();
            self.scratch = Vec::new();
        }
        lists
    }
}

/// What the walk found: files, directories, and the watches its threads added (the system
/// call needs no lock; what each descriptor watches is recorded after the walk, before any
/// event is read).
#[derive(Default)]
struct Found {
    files: Vec<Entry>,
    dirs: Vec<Entry>,
    watches: Vec<(i32, Vec<u8>)>,
}

/// Moves a walker thread's findings into the shared ones when the thread's visitor is
/// dropped (the walker drops each visitor when its thread ends).
struct Flush<'a>(&'a Mutex<Found>, Found);

impl Drop for Flush<'_> {
    fn drop(&mut self) {
        if let Ok(mut f) = self.0.lock() {
            f.files.append(&mut self.1.files);
            f.dirs.append(&mut self.1.dirs);
            f.watches.append(&mut self.1.watches);
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
    // One `read` for the whole file: the size is known, and reading through `take(len)` ends
    // at `len` bytes without the second `read` that would return 0 (33k system calls on the
    // corpus). A file that grew after the `fstat` is indexed up to its old size under the
    // old stamp, so the revalidation sees it changed and searches it. A file whose size says
    // 0 (a pseudo-file, or one just emptied) is read to its end, as grep reads it.
    let len = meta.len();
    let limit = if len == 0 { max.saturating_add(1) } else { len };
    buf.reserve(len as usize + 1);
    let ok = file.take(limit).read_to_end(buf).is_ok() && buf.len() as u64 <= max && prepare(buf);
    Some((stamp, ok))
}
