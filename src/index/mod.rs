//! The search index behind `grep`: a trigram index of the workspace that narrows which files
//! a query must search, never what it finds.
//!
//! - [`grams`]: trigram extraction and the posting-list codec.
//! - [`lists`]: posting lists built in bulk from (trigram, file) pairs.
//! - [`plan`]: the trigram condition a regex's matches satisfy (from the `regex-syntax` HIR).
//! - [`store`]: the on-disk image (`.clarvis/index/grep.idx`), checksummed and mapped;
//!   [`image`] writes it.
//! - [`build`]: building an image from grep's own walk; `dedup`: one extraction per
//!   distinct text.
//! - [`fresh`]: what changed since the build: the metadata revalidation, watch events.
//! - [`watch`]: inotify on the indexed directories (Linux).
//! - `live`: an installed image, its delta and how the delta is kept current.
//! - `candidates`: the files a query must search; `files`: the indexed file list, which
//!   answers `glob`.
//!
//! Exactness: the index only proposes candidate files; grep searches each with its usual
//! engine and renders as usual, so results (lines, order, footers) are the scan's. A file
//! the image cannot vouch for — changed, new, racily timestamped — is always a candidate.
//!
//! Lifecycle (`searchIndex`): `"off"` never indexes; `"on"` starts a build (or loads a valid
//! image from disk) in a background thread when the first grep's scan is done; `"auto"` does
//! so once a scan has walked at least `searchIndexThreshold` files. Until the image is ready,
//! and whenever it cannot answer (a pattern without required trigrams, PCRE-only syntax, a
//! search path the root walk does not cover, an ignore file that changed), grep scans.
//! Building never blocks a call. When the disk has drifted far from the image, or the ignore
//! policy changed, a rebuild starts in the background.

pub mod build;
mod candidates;
mod dedup;
mod entry;
pub mod files;
pub mod fresh;
pub mod grams;
pub mod image;
pub mod lists;
mod live;
pub mod plan;
pub mod store;
pub mod watch;

use crate::cancel::Cancel;
use crate::config::{Config, IndexMode as Mode};
use crate::search::policy::Policy;
use crate::warnings::Warnings;
use live::{installed, refresh, watched, Live};
use serde_json::{json, Value};
use std::ffi::OsStr;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub use candidates::Fresh;

/// Told of every image installed (built or loaded), with the image it replaces: what is kept
/// beside the trigram postings (the symbol table) is derived from them by its owner, which
/// this module does not know.
pub type OnInstall = Arc<dyn Fn(&Arc<store::Store>, Option<&Arc<store::Store>>) + Send + Sync>;

#[derive(Default)]
struct State {
    live: Option<Live>,
    /// A build (or load) thread is running.
    building: bool,
    /// Built images still being written to disk (each installed from memory meanwhile; a
    /// rebuild's write may overlap the previous one's).
    writing: usize,
    /// The image can answer (false after an ignore-policy change until a rebuild lands).
    trusted: bool,
    /// Milliseconds since the epoch when the image was installed.
    updated_at: Option<u64>,
}

/// One tools object's index.
pub struct SearchIndex {
    mode: Mode,
    threshold: u64,
    state: Mutex<State>,
    cancel: Cancel,
    use_watch: bool,
    on_install: Mutex<Option<OnInstall>>,
}

impl std::fmt::Debug for SearchIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SearchIndex")
            .field("mode", &self.mode)
            .field("threshold", &self.threshold)
            .finish_non_exhaustive()
    }
}

/// Two configurations are equal when their index options are (the live state is not part
/// of a configuration).
impl PartialEq for SearchIndex {
    fn eq(&self, other: &Self) -> bool {
        self.mode == other.mode && self.threshold == other.threshold
    }
}

impl Drop for SearchIndex {
    fn drop(&mut self) {
        // A build still running for a dropped tools object stops at its next chunk.
        self.cancel.cancel();
    }
}

fn epoch_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// Whether `path` is `base` or lies under it (relative paths; `base` empty = the root).
fn under(base: &[u8], path: &[u8]) -> bool {
    base.is_empty()
        || (path.len() > base.len() && path.starts_with(base) && path[base.len()] == b'/')
}

impl SearchIndex {
    /// An index with these options; nothing happens until a grep asks.
    pub fn new(mode: Mode, threshold: u64) -> SearchIndex {
        // Unix only for now: stored paths are `/`-separated bytes and stamps are inode-based.
        let mode = if cfg!(unix) { mode } else { Mode::Off };
        SearchIndex {
            mode,
            threshold,
            state: Mutex::default(),
            cancel: Cancel::new(),
            use_watch: true,
            on_install: Mutex::new(None),
        }
    }

    /// Without inotify: every indexed answer is preceded by the full metadata revalidation
    /// (what happens anyway where inotify is unavailable or overflows). For tests and for
    /// file systems whose notifications cannot be trusted.
    pub fn without_watch(mut self) -> SearchIndex {
        self.use_watch = false;
        self
    }

    /// Calls `f` with every image installed from now on (and the current one, if any), on
    /// the thread that installed it. `f` must not call back into this index synchronously.
    pub fn on_install(&self, f: OnInstall) {
        let current = self
            .state
            .lock()
            .ok()
            .and_then(|s| s.live.as_ref().map(|l| l.store.clone()));
        if let Ok(mut slot) = self.on_install.lock() {
            *slot = Some(f.clone());
        }
        if let Some(store) = current {
            f(&store, None);
        }
    }

    /// The `searchIndex` option.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// `searchIndexStatus()`: `{ state, files, bytes, buildMs, updatedAt }`.
    pub fn status(&self) -> Value {
        let Ok(s) = self.state.lock() else {
            return json!({"state": "off", "files": 0, "bytes": 0, "buildMs": 0, "updatedAt": null});
        };
        let state = match (&s.live, s.trusted, s.building) {
            (Some(_), true, _) => "ready",
            (_, _, true) => "building",
            _ => "off",
        };
        let (files, bytes, build_ms) = s.live.as_ref().map_or((0, 0, 0), |l| {
            (l.store.files(), l.store.len(), l.store.build_ms)
        });
        json!({
            "state": state,
            "files": files,
            "bytes": bytes,
            "buildMs": build_ms,
            "updatedAt": s.updated_at,
        })
    }

    /// After a scan of `walked` files (the first grep's, in the common case): `"on"` starts
    /// building, `"auto"` once the tree is large.
    pub fn after_scan(self: &Arc<Self>, config: &Arc<Config>, walked: u64) {
        if self.mode == Mode::On || (self.mode == Mode::Auto && walked >= self.threshold) {
            self.ensure_started(config);
        }
    }

    /// Starts the first build unless one ran or runs.
    fn ensure_started(self: &Arc<Self>, config: &Arc<Config>) {
        let first = self
            .state
            .lock()
            .is_ok_and(|s| s.live.is_none() && !s.building);
        if first {
            self.start(config, true);
        }
    }

    /// Starts a build thread unless one is running. `load` first tries the image on disk.
    fn start(self: &Arc<Self>, config: &Arc<Config>, load: bool) {
        {
            let Ok(mut s) = self.state.lock() else { return };
            if s.building {
                return;
            }
            s.building = true;
        }
        // The thread must not keep the tools object alive: it holds a weak reference (and
        // the configuration, which is values only).
        let weak = Arc::downgrade(self);
        let config = Arc::clone(config);
        let cancel = self.cancel.clone();
        let use_watch = self.use_watch;
        let spawned = std::thread::Builder::new()
            .name("clarvis-index".into())
            .spawn(move || {
                let (live, writer) = produce(&config, &cancel, load, use_watch);
                if let Some(index) = weak.upgrade() {
                    index.install(live, writer.is_some());
                }
                if let Some(w) = writer {
                    let mapped = w.join().ok().and_then(Result::ok);
                    if let Some(index) = weak.upgrade() {
                        index.written(mapped);
                    }
                }
            });
        if spawned.is_err() {
            self.install(None, false);
        }
    }

    fn install(&self, live: Option<Live>, writing: bool) {
        let store = live.as_ref().map(|l| l.store.clone());
        let mut old = None;
        if let Ok(mut s) = self.state.lock() {
            s.building = false;
            s.writing += usize::from(writing);
            if let Some(live) = live {
                old = s.live.replace(live).map(|l| l.store);
                s.trusted = true;
                s.updated_at = Some(epoch_ms());
            }
        }
        let hook = self.on_install.lock().ok().and_then(|h| h.clone());
        if let (Some(store), Some(hook)) = (store, hook) {
            hook(&store, old.as_ref());
        }
    }

    /// The image written to disk and mapped (`None` when the write failed): it replaces the
    /// installed in-memory copy, so the image is not held in anonymous memory, when its
    /// checksum says it is the same image (not one another process renamed over ours, nor
    /// one of a newer build already installed).
    fn written(&self, mapped: Option<store::Store>) {
        if let Ok(mut s) = self.state.lock() {
            s.writing = s.writing.saturating_sub(1);
            if let (Some(live), Some(mapped)) = (s.live.as_mut(), mapped) {
                if mapped.sum() == live.store.sum() {
                    live.store = Arc::new(mapped);
                }
            }
        }
    }

    /// Waits until no build runs and no image is being written (tests and benchmarks).
    /// `false` on timeout.
    pub fn wait_idle(&self, timeout: Duration) -> bool {
        let t0 = Instant::now();
        while self.state.lock().is_ok_and(|s| s.building || s.writing > 0) {
            if t0.elapsed() > timeout {
                return false;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        true
    }

    /// Runs `f` on the image and its delta, brought up to date with the disk, with `base`
    /// relative to the root; `None` when the index cannot answer for `base` (not ready, not
    /// trusted, the path not covered by the root walk). Starts a rebuild when the image has
    /// drifted, or its policy changed (then `None`: scan meanwhile).
    pub(crate) fn answer<T>(
        self: &Arc<Self>,
        config: &Arc<Config>,
        base: &Path,
        f: impl FnOnce(&Arc<store::Store>, &fresh::Delta, &[u8]) -> T,
    ) -> Option<T> {
        // Checked before `covered` (which stats the path's components): in the default
        // "auto" mode most calls find no index, and every glob asks.
        if self.mode == Mode::Off
            || !self
                .state
                .lock()
                .is_ok_and(|s| s.trusted && s.live.is_some())
        {
            return None;
        }
        let base_rel = covered(config, base)?;
        let mut s = self.state.lock().ok()?;
        if !s.trusted {
            return None;
        }
        let live = s.live.as_mut()?;
        let store = live.store.clone();
        let mut rebuild = refresh(config, live);
        if live.delta.policy_changed || live.policy_suspect {
            s.trusted = false;
            drop(s);
            self.start(config, false);
            return None;
        }
        rebuild |= live.delta.drift() > (store.files() / 10).max(1000);
        let out = f(&store, &live.delta, &base_rel);
        drop(s);
        if rebuild {
            self.start(config, false);
        }
        Some(out)
    }
}

/// What a build thread produced: the image to install (`None` when cancelled), and the
/// thread writing it to disk, which gives the mapped file.
type Produced = (
    Option<Live>,
    Option<std::thread::JoinHandle<std::io::Result<store::Store>>>,
);

/// Loads the image from disk when asked and valid, else builds one, with what its install
/// needs (watches, the baseline: [`installed`], [`watched`]).
///
/// A built image is installed from memory at once and written to disk (unless the
/// configuration is read-only) on another thread: the write and its fsync (70–330 ms for
/// the corpus's 34 MB on a shared machine) used to delay readiness. When the write is done,
/// the mapped file replaces the in-memory copy (`SearchIndex::written`).
fn produce(config: &Arc<Config>, cancel: &Cancel, load: bool, use_watch: bool) -> Produced {
    let since = build::now_ns();
    let dir = config.workspace_root.join(".clarvis").join("index");
    if load {
        if let Ok(s) = store::Store::open(&dir.join("grep.idx")) {
            if s.max_file_bytes == config.max_file_bytes {
                return (Some(watched(config, Arc::new(s), use_watch, None)), None);
            }
        }
    }
    let t0 = Instant::now();
    let watch = use_watch.then(watch::Watch::new).flatten();
    let Some(built) = build::build(config, cancel, || t0.elapsed().as_millis() as u64, watch)
    else {
        return (None, None);
    };
    let Ok(store) = store::Store::built(built.image) else {
        return (None, None);
    };
    let store = Arc::new(store);
    let writer = (!config.read_only)
        .then(|| {
            let (store, dir) = (store.clone(), dir.clone());
            std::thread::Builder::new()
                .name("clarvis-index-write".into())
                .spawn(move || {
                    image::persist(&dir, store.bytes()).and_then(|path| store::Store::open(&path))
                })
                .ok()
        })
        .flatten();
    (
        Some(installed(config, store, built.watch, use_watch, since)),
        writer,
    )
}

/// `base` relative to the root when the root walk covers it exactly as a walk from `base`
/// would: every directory from the root down to it is a real directory the policy yields.
fn covered(config: &Arc<Config>, base: &Path) -> Option<Vec<u8>> {
    let rel = base.strip_prefix(&config.workspace_root).ok()?;
    if rel.as_os_str().is_empty() {
        return Some(Vec::new());
    }
    let policy = Policy::new(
        config.clone(),
        &config.workspace_root,
        true,
        Warnings::default(),
    );
    let mut dir = config.workspace_root.clone();
    for part in rel.components() {
        // The walk skips names that are not UTF-8 (and everything under them).
        part.as_os_str().to_str()?;
        dir.push(part);
        let meta = std::fs::symlink_metadata(&dir).ok()?;
        if !meta.is_dir() || policy.hides(&dir, true) {
            return None;
        }
    }
    Some(rel.as_os_str().as_encoded_bytes().to_vec())
}

/// A stored relative path (`/`-separated bytes of UTF-8 names) as an `OsStr`.
pub(crate) fn os_str(rel: &[u8]) -> &OsStr {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        OsStr::from_bytes(rel)
    }
    #[cfg(not(unix))]
    {
        // Names that are not UTF-8 are never stored, and the index is off here anyway.
        OsStr::new(std::str::from_utf8(rel).unwrap_or(""))
    }
}
