//! The symbol index: every indexed file's definitions and references, kept beside the
//! trigram postings in `.clarvis/index/` and tied to the grep image they were built from.
//!
//! - [`codec`]: a file's symbols as bytes.
//! - [`table`]: the table image (one record per file of the grep image), its build and its
//!   verification.
//!
//! Lifecycle: the trigram index tells this service of every image it installs
//! ([`SearchIndex::on_install`]); a background thread then loads `symbols.idx` when it
//! belongs to that image, else builds the table (copying the records of the previous table
//! whose files kept their stamps), installs it and writes it. So the symbols are built under
//! `searchIndex`'s rules and never before the postings. Freshness is the trigram index's:
//! every answer goes through its freshness step ([`SearchIndex::fresh_candidates`]), and a
//! record is used only for a file the image still vouches for — changed and new files are
//! read and parsed as without the index. Until the table of the current image is installed,
//! the tools answer as without it.

mod answer;
pub mod codec;
pub mod table;

use crate::cancel::Cancel;
use crate::config::Config;
use crate::index::store::Store;
use crate::index::SearchIndex;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};
use table::Table;

#[derive(Default)]
struct State {
    /// The installed table (of the image whose sum it records).
    table: Option<Arc<Table>>,
    /// The grep image the table in progress is for (a newer install cancels it).
    building: Option<(Vec<u8>, Cancel)>,
    /// Tables being written to disk.
    writing: usize,
}

struct Shared {
    config: Arc<Config>,
    state: Mutex<State>,
}

/// One tools object's symbol index, attached to its search index.
pub struct SymbolIndex {
    index: Arc<SearchIndex>,
    shared: Arc<Shared>,
    /// `repo_map`'s rankings of this index's images.
    pub map: crate::symbols::repomap::Cache,
}

impl std::fmt::Debug for SymbolIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SymbolIndex").finish_non_exhaustive()
    }
}

impl Drop for SymbolIndex {
    fn drop(&mut self) {
        if let Ok(s) = self.shared.state.lock() {
            if let Some((_, c)) = &s.building {
                c.cancel();
            }
        }
    }
}

impl SymbolIndex {
    /// The symbol index of `index`'s images, for `config`'s workspace.
    pub fn new(index: Arc<SearchIndex>, config: Arc<Config>) -> SymbolIndex {
        let shared = Arc::new(Shared {
            config,
            state: Mutex::default(),
        });
        let weak = Arc::downgrade(&shared);
        index.on_install(Arc::new(
            move |store: &Arc<Store>, old: Option<&Arc<Store>>| start(&weak, store, old),
        ));
        SymbolIndex {
            index,
            shared,
            map: Default::default(),
        }
    }

    /// The search index the symbols belong to.
    pub fn search(&self) -> &Arc<SearchIndex> {
        &self.index
    }

    /// The installed table when it describes `store`.
    pub fn table_for(&self, store: &Store) -> Option<Arc<Table>> {
        let s = self.shared.state.lock().ok()?;
        s.table
            .as_ref()
            .filter(|t| t.image_sum() == store.sum())
            .cloned()
    }

    /// `{ state: "off" | "building" | "ready", files, bytes, buildMs }` of the table of
    /// the current image ("ready" only when the table describes it).
    pub fn status(&self) -> Value {
        let s = self.shared.state.lock();
        let (table, building) = s
            .as_ref()
            .map_or((None, false), |s| (s.table.clone(), s.building.is_some()));
        let state = match (&table, building) {
            (_, true) => "building",
            (Some(_), false) => "ready",
            _ => "off",
        };
        let (files, bytes, ms) =
            table.map_or((0, 0, 0), |t| (t.files(), t.bytes().len(), t.build_ms));
        json!({"state": state, "files": files, "bytes": bytes, "buildMs": ms})
    }

    /// Waits until the search index and the symbol table are idle (no build, no write).
    /// `false` on timeout.
    pub fn wait_idle(&self, timeout: Duration) -> bool {
        let t0 = Instant::now();
        loop {
            let left = timeout.saturating_sub(t0.elapsed());
            if !self.index.wait_idle(left) {
                return false;
            }
            let busy = self
                .shared
                .state
                .lock()
                .is_ok_and(|s| s.building.is_some() || s.writing > 0);
            if !busy && self.index.wait_idle(Duration::ZERO) {
                return true;
            }
            if t0.elapsed() > timeout {
                return false;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

/// Starts the table of `store` on its own thread (cancelling a table in progress for an
/// older image).
fn start(weak: &Weak<Shared>, store: &Arc<Store>, old: Option<&Arc<Store>>) {
    let Some(shared) = weak.upgrade() else { return };
    let cancel = Cancel::new();
    {
        let Ok(mut s) = shared.state.lock() else {
            return;
        };
        if s.table
            .as_ref()
            .is_some_and(|t| t.image_sum() == store.sum())
        {
            return;
        }
        if let Some((_, old)) = s.building.take() {
            old.cancel();
        }
        s.building = Some((store.sum().to_vec(), cancel.clone()));
    }
    let (weak, store, old) = (weak.clone(), store.clone(), old.cloned());
    let spawned = std::thread::Builder::new()
        .name("clarvis-symbols".into())
        .spawn(move || produce(&weak, &store, old.as_deref(), &cancel));
    if spawned.is_err() {
        if let Ok(mut s) = shared.state.lock() {
            s.building = None;
        }
    }
}

/// Loads or builds the table of `store`, installs it, and writes it to disk.
fn produce(weak: &Weak<Shared>, store: &Arc<Store>, old: Option<&Store>, cancel: &Cancel) {
    let Some(shared) = weak.upgrade() else { return };
    let config = shared.config.clone();
    let previous = shared.state.lock().ok().and_then(|s| s.table.clone());
    drop(shared);
    let dir = config.workspace_root.join(".clarvis").join("index");
    let path = dir.join(table::FILE);
    let mut fresh = None;
    let table = match Table::open(&path, store) {
        Ok(t) => Some(t),
        Err(_) => {
            let t0 = Instant::now();
            // The previous table's ids are those of the image it described: its records are
            // reused (by path and stamp) only against that image.
            let prev = old
                .zip(previous.as_deref())
                .filter(|(s, t)| t.image_sum() == s.sum());
            table::build(&config, store, prev, cancel, || {
                t0.elapsed().as_millis() as u64
            })
            .and_then(|bytes| {
                fresh = Some(());
                Table::built(bytes, store).ok()
            })
        }
    };
    let Some(shared) = weak.upgrade() else { return };
    let table = table.map(Arc::new);
    let write = {
        let Ok(mut s) = shared.state.lock() else {
            return;
        };
        let ours = s
            .building
            .as_ref()
            .is_some_and(|(sum, _)| sum.as_slice() == store.sum());
        if !ours || cancel.is_cancelled() {
            return;
        }
        s.building = None;
        let Some(t) = table else { return };
        s.table = Some(t.clone());
        let write = fresh.is_some() && !config.read_only;
        s.writing += usize::from(write);
        write.then_some(t)
    };
    drop(shared);
    if let Some(t) = write {
        let mapped = crate::index::image::persist_as(&dir, table::FILE, t.bytes())
            .and_then(|p| Table::open(&p, store));
        if let Some(shared) = weak.upgrade() {
            if let Ok(mut s) = shared.state.lock() {
                s.writing -= 1;
                // The mapped copy replaces the one in memory when it is the same table.
                if let (Ok(m), Some(cur)) = (mapped, s.table.as_ref()) {
                    if m.sum() == cur.sum() {
                        s.table = Some(Arc::new(m));
                    }
                }
            }
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests;
