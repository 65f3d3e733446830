//! Review mode's staging area as the read and write paths see it (SPEC §13).
//!
//! A staging area ([`Overlay`]) maps workspace-relative paths to what a tool staged there: new
//! bytes (kept in a blob file under `<root>/.clarvis/review/<scope>/blobs/`) or a deletion,
//! with what the disk held when the path was first staged (its [`Base`]: the conflict check of
//! `accept`). It is the one piece of review mode the lower layers know: the confined read path
//! ([`super::open_confined`]) and the writers of `crate::atomic` consult it through [`of`], so
//! every tool that reads or writes through them sees or stages without a line of its own.
//!
//! Ownership: the tools object's runtime holds the `Arc` (opened by `dispatch::open`); this
//! module keeps a process-wide table of weak references keyed by (root, scope), because two
//! tools objects of one process on the same scope must share one state, as they share the
//! path locks. [`of`] is a field test when `config.review` is `None`.

use crate::config::Config;
use crate::error::{ToolError, ToolResult};
use std::collections::{BTreeMap, HashMap};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, Weak};

mod read;
mod store;
mod sync;
mod tree;
pub use read::{is_staged, is_staged_dir, lstat, open_view, stat};
pub use sync::WriterLock;
pub use tree::{dir_view, Below, Child, DirView};

/// What the disk held at a path when it was first staged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Base {
    /// Nothing (or not a regular file).
    Absent,
    /// A regular file: its content hash (BLAKE3, hex), length and permission bits.
    File {
        /// BLAKE3 of the bytes, hex.
        hash: String,
        /// Length in bytes.
        len: u64,
        /// Permission bits.
        mode: u32,
    },
}

/// One change to stage: `(path, Some(bytes) | None for a deletion, moved from)`.
pub type Change<'a> = (&'a Path, Option<&'a [u8]>, Option<&'a Path>);

/// What one staged change puts at its path.
#[derive(Clone, Copy)]
enum Put<'a> {
    Bytes(&'a [u8]),
    Delete,
    Dir,
}

/// What is staged at a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Staged {
    /// New bytes, in blob `blob` of the staging area.
    Write {
        /// The blob's file name under `blobs/`.
        blob: String,
        /// The bytes' length.
        len: u64,
        /// BLAKE3 of the bytes, hex (a change staged back to its base is no change).
        hash: String,
    },
    /// The path is deleted.
    Delete,
    /// A directory (`mkdir`), made with its parents when accepted.
    Dir,
}

/// One staged path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// What is staged.
    pub staged: Staged,
    /// What the disk held when the path was first staged.
    pub base: Base,
    /// For a file staged by a move: the workspace-relative source.
    pub from: Option<String>,
}

/// A path as a reader sees it through the overlay.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum View {
    /// Staged bytes: read them from this blob file.
    File(PathBuf),
    /// Staged deletion: the path does not exist.
    Deleted,
}

#[derive(Debug, Default)]
struct State {
    entries: BTreeMap<String, Entry>,
    next_blob: u64,
    /// The manifest as last loaded or saved by this process.
    stamp: Option<sync::Stamp>,
}

/// One scope's staging area.
#[derive(Debug)]
pub struct Overlay {
    root: PathBuf,
    dir: PathBuf,
    budget: u64,
    state: Mutex<State>,
    generation: std::sync::atomic::AtomicU64,
}

/// Root → scope → staging area: looked up by borrowed keys (every read asks, so no allocation).
type Table = Mutex<HashMap<PathBuf, HashMap<String, Weak<Overlay>>>>;

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(Table::default)
}

/// The staging area of `config`'s scope while a tools object holds it open; `None` when
/// review is off.
pub fn of(config: &Config) -> Option<Arc<Overlay>> {
    let review = config.review.as_ref()?;
    let table = table().lock().ok()?;
    table
        .get(&config.workspace_root)?
        .get(&review.scope)
        .and_then(Weak::upgrade)
}

/// The staging directory of `scope` under `root`.
pub fn scope_dir(root: &Path, scope: &str) -> PathBuf {
    root.join(".clarvis").join("review").join(scope)
}

impl Overlay {
    /// Opens `config`'s scope: the live one of this process, or the one persisted under
    /// `.clarvis/review/<scope>/` (created when missing). `None` when review is off.
    pub fn open(config: &Config) -> io::Result<Option<Arc<Overlay>>> {
        let Some(review) = config.review.as_ref() else {
            return Ok(None);
        };
        if let Some(live) = of(config) {
            return Ok(Some(live));
        }
        // Made without the table's lock: the confined opens consult the table themselves.
        let dir = scope_dir(&config.workspace_root, &review.scope);
        store::make_dirs(config, &dir)?;
        let mut table = table().lock().map_err(|_| io::Error::other("poisoned"))?;
        // Another tools object may have opened the scope meanwhile: share its state.
        let scopes = table.entry(config.workspace_root.clone()).or_default();
        if let Some(live) = scopes.get(&review.scope).and_then(Weak::upgrade) {
            return Ok(Some(live));
        }
        let state = store::load(&dir);
        let overlay = Arc::new(Overlay {
            root: config.workspace_root.clone(),
            dir,
            budget: review.bytes,
            state: Mutex::new(state),
            generation: Default::default(),
        });
        scopes.retain(|_, w| w.strong_count() > 0);
        scopes.insert(review.scope.clone(), Arc::downgrade(&overlay));
        Ok(Some(overlay))
    }

    /// The workspace-relative key of `abs` (`/`-separated), `None` outside the root.
    pub fn rel(&self, abs: &Path) -> Option<String> {
        let rel = abs.strip_prefix(&self.root).ok()?;
        let s = rel.to_string_lossy().replace('\\', "/");
        (!s.is_empty()).then_some(s)
    }

    /// The absolute path of a key.
    pub fn abs(&self, rel: &str) -> PathBuf {
        join_key(&self.root, rel)
    }

    /// The blob file of a staged write.
    pub fn blob_path(&self, blob: &str) -> PathBuf {
        self.dir.join("blobs").join(blob)
    }

    /// What a reader finds at `abs`: `None` when nothing is staged there (read the disk).
    pub fn view(&self, abs: &Path) -> Option<View> {
        let rel = self.rel(abs)?;
        let state = self.state.lock().ok()?;
        match &state.entries.get(&rel)?.staged {
            Staged::Write { blob, .. } => Some(View::File(self.blob_path(blob))),
            Staged::Delete => Some(View::Deleted),
            // A directory is answered by `stat`/`lstat` (`holds_dir`), not opened.
            Staged::Dir => None,
        }
    }

    /// How many changes were staged so far (dispatch tells a call that staged something).
    pub fn generation(&self) -> u64 {
        self.generation.load(std::sync::atomic::Ordering::Acquire)
    }

    /// Whether anything is staged.
    pub fn is_empty(&self) -> bool {
        self.state
            .lock()
            .map(|s| s.entries.is_empty())
            .unwrap_or(true)
    }

    /// A copy of every entry, by key.
    pub fn entries(&self) -> BTreeMap<String, Entry> {
        self.state
            .lock()
            .map(|s| s.entries.clone())
            .unwrap_or_default()
    }

    /// Stages `bytes` at `abs` (`input` names it in errors). Fails `invalid_input` when the
    /// scope would hold more than `reviewBytes`; then nothing is staged.
    pub fn stage_write(&self, abs: &Path, bytes: &[u8], input: &str) -> ToolResult<()> {
        self.stage(&[(abs, Some(bytes), None)], input)
    }

    /// Stages the deletion of `abs`.
    pub fn stage_delete(&self, abs: &Path, input: &str) -> ToolResult<()> {
        self.stage(&[(abs, None, None)], input)
    }

    /// Stages a move: `to` gets `bytes` (or what `from` holds now, staged or on disk) and
    /// remembers `from`; `from` is deleted.
    pub fn stage_move(
        &self,
        from: &Path,
        to: &Path,
        bytes: Option<&[u8]>,
        input: &str,
    ) -> ToolResult<()> {
        let current;
        let bytes = match bytes {
            Some(b) => b,
            None => {
                current = self
                    .current_bytes(from)
                    .map_err(|e| ToolError::fs(&e, input))?;
                &current
            }
        };
        self.stage(&[(to, Some(bytes), Some(from)), (from, None, None)], input)
    }

    /// Stages the directory `abs` (`mkdir`; its missing parents come with it when accepted).
    pub fn stage_dir(&self, abs: &Path, input: &str) -> ToolResult<()> {
        self.put(&[(abs, Put::Dir, None)], input)
    }

    /// Stages several changes as one: `(path, Some(bytes) | None for a deletion, moved from)`.
    /// All are persisted together, or none.
    pub fn stage(&self, changes: &[Change<'_>], input: &str) -> ToolResult<()> {
        let puts: Vec<(&Path, Put<'_>, Option<&Path>)> = changes
            .iter()
            .map(|(abs, bytes, from)| (*abs, bytes.map_or(Put::Delete, Put::Bytes), *from))
            .collect();
        self.put(&puts, input)
    }

    fn put(&self, changes: &[(&Path, Put<'_>, Option<&Path>)], input: &str) -> ToolResult<()> {
        let fail = |e: io::Error| ToolError::fs(&e, input);
        let _writer = self.writer_lock().map_err(fail)?;
        let mut state = self
            .state
            .lock()
            .map_err(|_| fail(io::Error::other("staging area poisoned")))?;
        self.sync(&mut state);
        let mut next = state.entries.clone();
        let mut blob_no = state.next_blob;
        let mut written = Vec::new();
        for (abs, put, from) in changes {
            let Some(rel) = self.rel(abs) else {
                return Err(crate::workspace::escape_error(input));
            };
            let base = match next.get(&rel) {
                Some(e) => e.base.clone(),
                None => store::base_of(abs).map_err(fail)?,
            };
            // A move of a file that was itself moved here keeps the first source.
            let from = match from.and_then(|f| self.rel(f)) {
                Some(f) => match next.get(&f) {
                    Some(Entry {
                        base: Base::Absent,
                        from: Some(first),
                        ..
                    }) => Some(first.clone()),
                    _ => Some(f),
                },
                None => next.get(&rel).and_then(|e| e.from.clone()),
            };
            let staged = match put {
                Put::Bytes(b) => {
                    let blob = blob_no.to_string();
                    blob_no += 1;
                    store::write_blob(&self.blob_path(&blob), b).map_err(fail)?;
                    written.push(self.blob_path(&blob));
                    Staged::Write {
                        blob,
                        len: b.len() as u64,
                        hash: blake3::hash(b).to_hex().to_string(),
                    }
                }
                Put::Delete => Staged::Delete,
                Put::Dir => Staged::Dir,
            };
            let entry = Entry { staged, base, from };
            if entry.is_noop() {
                next.remove(&rel);
            } else {
                next.insert(rel, entry);
            }
        }
        let total: u64 = next.values().map(Entry::staged_len).sum();
        let result = if total > self.budget {
            Err(ToolError::invalid(format!(
                "Review staging is full: {input} would bring the staged changes to {total} bytes (reviewBytes {}). Ask the host to accept or reject pending changes.",
                self.budget
            ))
            .with("path", input))
        } else {
            store::save(&self.dir, &next, blob_no).map_err(fail)
        };
        state.stamp = sync::stamp(&self.dir);
        if let Err(e) = result {
            for p in written {
                let _ = std::fs::remove_file(p);
            }
            return Err(e);
        }
        let dropped = blobs_gone(&state.entries, &next);
        state.entries = next;
        state.next_blob = blob_no;
        self.generation
            .fetch_add(1, std::sync::atomic::Ordering::AcqRel);
        drop(state);
        self.remove_blobs(&dropped);
        Ok(())
    }

    /// Drops the entries `rels` from the staging area (rejected) and persists.
    pub fn forget(&self, rels: &[String]) -> io::Result<()> {
        let writer = self.writer_lock()?;
        self.forget_locked(&writer, rels)
    }

    /// [`Self::forget`] under the writer lock the caller holds (`accept` holds it from its
    /// conflict check to here, so another process's accept cannot interleave).
    pub fn forget_locked(&self, _writer: &WriterLock, rels: &[String]) -> io::Result<()> {
        let mut state = self
            .state
            .lock()
            .map_err(|_| io::Error::other("staging area poisoned"))?;
        self.sync(&mut state);
        let mut next = state.entries.clone();
        for r in rels {
            next.remove(r);
        }
        let saved = store::save(&self.dir, &next, state.next_blob);
        state.stamp = sync::stamp(&self.dir);
        saved?;
        let dropped = blobs_gone(&state.entries, &next);
        state.entries = next;
        drop(state);
        self.remove_blobs(&dropped);
        Ok(())
    }

    /// The scope's writer lock, across processes (see `sync`). Held by `stage`, `forget` and
    /// `accept`; taking it twice in one thread waits forever.
    pub fn writer_lock(&self) -> io::Result<WriterLock> {
        sync::lock(&self.dir)
    }

    /// Takes in what another process staged, accepted or rejected in this scope since this
    /// one last looked: one `stat` of the manifest when nothing changed. Called once per
    /// call (dispatch, and the host's review calls), never per read.
    pub fn refresh(&self) {
        if let Ok(mut state) = self.state.lock() {
            self.sync(&mut state);
        }
    }

    fn sync(&self, state: &mut State) {
        let now = sync::stamp(&self.dir);
        if now != state.stamp {
            *state = store::load(&self.dir);
        }
    }

    /// The bytes at `abs` as readers see them: staged, or on disk.
    pub fn current_bytes(&self, abs: &Path) -> io::Result<Vec<u8>> {
        match self.view(abs) {
            Some(View::File(blob)) => std::fs::read(blob),
            Some(View::Deleted) => Err(crate::error::os_error(libc::ENOENT)),
            None => std::fs::read(abs),
        }
    }

    fn remove_blobs(&self, blobs: &[String]) {
        for b in blobs {
            let _ = std::fs::remove_file(self.blob_path(b));
        }
    }
}

impl Entry {
    /// Bytes this entry holds in the staging area.
    pub fn staged_len(&self) -> u64 {
        match &self.staged {
            Staged::Write { len, .. } => *len,
            Staged::Delete | Staged::Dir => 0,
        }
    }

    /// Whether the entry changes nothing: a deletion of what never existed, or the base's
    /// own bytes written back (and not the end of a move).
    fn is_noop(&self) -> bool {
        match (&self.staged, &self.base) {
            (Staged::Delete, Base::Absent) => true,
            (Staged::Write { hash, .. }, Base::File { hash: h, .. }) => {
                hash == h && self.from.is_none()
            }
            _ => false,
        }
    }
}

/// The blobs `old` references and `new` does not.
fn blobs_gone(old: &BTreeMap<String, Entry>, new: &BTreeMap<String, Entry>) -> Vec<String> {
    let kept: std::collections::HashSet<&str> = new
        .values()
        .filter_map(|e| match &e.staged {
            Staged::Write { blob, .. } => Some(blob.as_str()),
            Staged::Delete | Staged::Dir => None,
        })
        .collect();
    old.values()
        .filter_map(|e| match &e.staged {
            Staged::Write { blob, .. } if !kept.contains(blob.as_str()) => Some(blob.clone()),
            _ => None,
        })
        .collect()
}

#[cfg(all(test, unix))]
mod tests;

/// `base` joined with a `/`-separated key, one component at a time: on Windows the result
/// has the native separator throughout, as every path a walk of the disk yields does (a
/// display path made from it is then the same as the disk's).
pub fn join_key(base: &Path, key: &str) -> PathBuf {
    let mut p = base.to_path_buf();
    p.extend(key.split('/').filter(|c| !c.is_empty()));
    p
}
