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
use std::collections::{BTreeMap, HashMap};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, Weak};

mod lookup;
mod read;
mod stage;
mod store;
mod sync;
mod tree;
pub use lookup::Snapshot;
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
    /// `entries` as the read path looks them up, rebuilt whenever they are replaced.
    views: Arc<lookup::Views>,
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
        self.key(abs).map(std::borrow::Cow::into_owned)
    }

    /// [`Self::rel`] borrowed from `abs` when it can be (every read asks, so no allocation
    /// on Unix, and a clean path is sliced, not walked by components).
    fn key<'a>(&self, abs: &'a Path) -> Option<std::borrow::Cow<'a, str>> {
        lookup::key_of(&self.root, abs)
    }

    /// The workspace root the staging area belongs to.
    pub fn root(&self) -> &Path {
        &self.root
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
        let state = self.state.lock().ok()?;
        if state.views.is_empty() {
            return None;
        }
        // A directory is not in the views: `stat`/`lstat` answer it (`holds_dir`).
        state.views.get(&self.root, abs).cloned()
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

    /// The bytes at `abs` as readers see them: staged, or on disk.
    pub fn current_bytes(&self, abs: &Path) -> io::Result<Vec<u8>> {
        match self.view(abs) {
            Some(View::File(blob)) => std::fs::read(blob),
            Some(View::Deleted) => Err(crate::error::os_error(libc::ENOENT)),
            None => std::fs::read(abs),
        }
    }
}

impl State {
    /// Replaces the entries (and the lookup the read path uses) with `entries`.
    fn set_entries(&mut self, dir: &Path, entries: BTreeMap<String, Entry>) {
        self.views = lookup::views_of(dir, &entries);
        self.entries = entries;
    }
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
