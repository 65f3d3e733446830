//! Checkpoints: take back what the agent did through this tools object.
//!
//! A [`Store`] belongs to one tools object (one resolved [`crate::config::Config`]); two
//! tools objects on one workspace keep separate sets. [`Store::checkpoint`] costs nothing
//! but an id until a file changes. From then on every mutation made through the tools calls
//! [`Store::before`] under its path locks, before its commit: for each live checkpoint that
//! has not yet seen a path, the path's prior state — existence, kind, mode and content — is
//! recorded under `<root>/.clarvis/checkpoints/<instance>/objects/`: as a hard link to the
//! file's old inode (free: our writers replace files by rename, so nothing writes that inode
//! again), or as a copy named by its BLAKE3 hash (stored once) where a link cannot work. After the commit the mutation calls
//! [`Store::after`], which remembers the metadata (size, mtime, inode) the tools left behind,
//! so a later restore can tell a file changed *outside* the tools (a conflict) from one only
//! the agent touched.
//!
//! Non-goals: changes made by other processes are not recorded (they are detected, at
//! restore, as conflicts), and checkpoints do not outlive the process that made them (their
//! directory is swept by the next instance once its owner is gone).
//!
//! The store is bounded by `checkpointBytes`: when the stored contents pass it, the oldest
//! checkpoints are dropped first, and each drop is reported to the warn sink.

pub mod api;
mod bash;
mod restore;
mod snap;

pub use bash::Before as BashBefore;
pub use restore::{Change, ChangeKind, Conflict, RestoreReport};
pub use snap::Snap;

use crate::config::Config;
use crate::error::{Code, ToolError, ToolResult};
use crate::workspace::Guard;
use snap::{snapshot, Keep, Meta, Objects};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};

/// The id of the implicit checkpoint taken before each mutating call when the `undo` tool
/// is on; not listed by [`Store::list`].
pub const LAST_CALL: &str = "cp_last_call";

/// The directory, under the workspace's `.clarvis/`, that holds every instance's store.
pub const CHECKPOINT_DIR: &str = ".clarvis/checkpoints";

/// One checkpoint: the prior state of every path mutated since it was taken.
#[derive(Debug, Clone)]
struct Checkpoint {
    id: String,
    label: Option<String>,
    created_ms: u64,
    /// Path → its state when the first mutation after the checkpoint touched it.
    prior: BTreeMap<PathBuf, Snap>,
    /// Destination → source, for files that a `move` brought to a path new to the checkpoint.
    moved_from: HashMap<PathBuf, PathBuf>,
}

#[derive(Debug, Default)]
struct State {
    next: u64,
    checkpoints: Vec<Checkpoint>,
    /// Path → the metadata this tools object left after its last write there.
    ours: HashMap<PathBuf, Meta>,
    /// Stored content bytes, by hash.
    blobs: HashMap<String, u64>,
    /// Files whose content `bash_before` stored, by the metadata it had: an unchanged file
    /// is not read again for the next command.
    seen: HashMap<PathBuf, (Meta, Snap)>,
    bytes: u64,
}

/// The checkpoints of one tools object.
pub struct Store {
    dir: PathBuf,
    budget: u64,
    live: AtomicBool,
    state: Mutex<State>,
    /// The objects directory, opened (through verified handles) at the first content kept.
    objects: OnceLock<Objects>,
}

/// Two configurations are equal only when they share one store.
impl PartialEq for Store {
    fn eq(&self, other: &Store) -> bool {
        std::ptr::eq(self, other)
    }
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("dir", &self.dir).finish()
    }
}

/// A checkpoint as listed by [`Store::list`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    /// Its id (`cp_<n>`).
    pub id: String,
    /// The caller's label.
    pub label: Option<String>,
    /// When it was taken (epoch ms).
    pub created_ms: u64,
    /// How many paths changed through the tools since.
    pub paths: usize,
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// `not_found` for an id this store does not hold.
pub fn unknown(id: &str) -> ToolError {
    ToolError::new(Code::NotFound, format!("No such checkpoint: {id}")).with("id", id)
}

impl Store {
    /// A store for the workspace `root` with a budget of `budget` bytes. Nothing touches
    /// the disk until the first recorded mutation.
    pub fn new(root: &Path, budget: u64) -> Store {
        let instance = format!("{}-{}", std::process::id(), crate::atomic::unique_id());
        Store {
            dir: root.join(CHECKPOINT_DIR).join(instance),
            budget,
            live: AtomicBool::new(false),
            state: Mutex::new(State::default()),
            objects: OnceLock::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The objects directory, opened (and made inside the root) on first use.
    fn objects(&self, config: &Config) -> std::io::Result<&Objects> {
        if let Some(o) = self.objects.get() {
            return Ok(o);
        }
        // Two first users may both open it: one handle is kept, the other dropped.
        let _ = self.objects.set(Objects::open(config, &self.dir)?);
        self.objects
            .get()
            .ok_or_else(|| std::io::Error::other("the checkpoint store did not open"))
    }

    /// Takes a checkpoint and returns its id. Refused when the budget is zero.
    pub fn checkpoint(&self, label: Option<String>) -> ToolResult<String> {
        if self.budget == 0 {
            return Err(ToolError::invalid(
                "Checkpoints are off: checkpointBytes is 0 (raise it to keep prior file contents).",
            ));
        }
        let mut st = self.lock();
        st.next += 1;
        let id = format!("cp_{}", st.next);
        st.checkpoints.push(Checkpoint {
            id: id.clone(),
            label,
            created_ms: now_ms(),
            prior: BTreeMap::new(),
            moved_from: HashMap::new(),
        });
        self.live.store(true, Ordering::Release);
        Ok(id)
    }

    /// Replaces the implicit [`LAST_CALL`] checkpoint: called before each mutating call when
    /// the `undo` tool is on, so `undo` takes back exactly the last one. Nothing happens when
    /// the budget is zero.
    pub fn begin_call(&self) {
        if self.budget == 0 {
            return;
        }
        let mut st = self.lock();
        if let Some(i) = st.checkpoints.iter().position(|c| c.id == LAST_CALL) {
            st.checkpoints.remove(i);
            self.collect(&mut st);
        }
        st.checkpoints.push(Checkpoint {
            id: LAST_CALL.to_string(),
            label: None,
            created_ms: now_ms(),
            prior: BTreeMap::new(),
            moved_from: HashMap::new(),
        });
        self.live.store(true, Ordering::Release);
    }

    /// Every live checkpoint, oldest first.
    pub fn list(&self) -> Vec<Listed> {
        self.lock()
            .checkpoints
            .iter()
            .filter(|c| c.id != LAST_CALL)
            .map(|c| Listed {
                id: c.id.clone(),
                label: c.label.clone(),
                created_ms: c.created_ms,
                paths: c.prior.len(),
            })
            .collect()
    }

    /// The paths checkpoint `id` would put back (every path it recorded, and the sources
    /// of moves), in path order; empty for an unknown id. [`LAST_CALL`] included: what a
    /// guard is shown for `undo` and `checkpoint_restore`.
    pub fn paths(&self, id: &str) -> Vec<PathBuf> {
        let st = self.lock();
        let Some(c) = st.checkpoints.iter().find(|c| c.id == id) else {
            return Vec::new();
        };
        let mut out: Vec<PathBuf> = c.prior.keys().cloned().collect();
        for from in c.moved_from.values() {
            if !out.contains(from) {
                out.push(from.clone());
            }
        }
        out
    }

    /// Drops checkpoint `id` and frees the contents only it referenced.
    pub fn drop_checkpoint(&self, id: &str) -> ToolResult<()> {
        let mut st = self.lock();
        let Some(i) = st.checkpoints.iter().position(|c| c.id == id) else {
            return Err(unknown(id));
        };
        st.checkpoints.remove(i);
        self.collect(&mut st);
        Ok(())
    }

    /// Records the prior state of `paths` (absolute) for every live checkpoint that has not
    /// seen them yet. Call under the paths' locks, before the commit. Returns warn-sink lines
    /// for checkpoints the budget forced out. `moved` names a move's (source, destination).
    /// Contents are read confined like any tool's reads (`config`'s root): a path that leads
    /// out of the workspace is recorded as unreadable, never copied in.
    pub fn before(
        &self,
        config: &Config,
        paths: &[PathBuf],
        moved: Option<(&Path, &Path)>,
    ) -> Vec<String> {
        if !self.live.load(Ordering::Acquire) {
            return Vec::new();
        }
        let guard = Guard::new(config);
        let objects = || self.objects(config);
        let mut st = self.lock();
        let mut snaps: HashMap<PathBuf, Snap> = HashMap::new();
        for path in paths {
            if !st.checkpoints.iter().any(|c| !c.prior.contains_key(path)) {
                continue;
            }
            // A move carries the source's inode to the destination, where it may be written
            // in place later: copy it. Every other mutation replaces the file by a rename,
            // so a hard link to the old inode keeps its content for free.
            let keep = if moved.is_some_and(|(from, _)| from == path.as_path()) {
                Keep::Copy(&objects)
            } else {
                Keep::Link(&objects)
            };
            let snap = match snapshot(path, &guard, keep) {
                Ok((snap, stored)) => {
                    if let (Snap::File { hash, .. }, Some(size)) = (&snap, stored) {
                        if st.blobs.insert(hash.clone(), size).is_none() {
                            st.bytes += size;
                        }
                    }
                    snap
                }
                // A prior state that cannot be read is recorded as such: restore reports it
                // as unrecoverable instead of guessing.
                Err(e) => Snap::Unreadable(e.to_string()),
            };
            snaps.insert(path.clone(), snap);
        }
        for c in st.checkpoints.iter_mut() {
            for (path, snap) in &snaps {
                c.prior.entry(path.clone()).or_insert_with(|| snap.clone());
            }
            if let Some((from, to)) = moved {
                if matches!(c.prior.get(to), Some(Snap::Absent)) {
                    c.moved_from
                        .entry(to.to_path_buf())
                        .or_insert_with(|| from.to_path_buf());
                }
            }
        }
        self.enforce_budget(&mut st)
    }

    /// Records what this tools object left at `paths` after a successful commit.
    pub fn after(&self, paths: &[PathBuf]) {
        if !self.live.load(Ordering::Acquire) {
            return;
        }
        let mut st = self.lock();
        for p in paths {
            match Meta::of(p) {
                Some(m) => st.ours.insert(p.clone(), m),
                None => st.ours.remove(p),
            };
        }
    }

    fn enforce_budget(&self, st: &mut State) -> Vec<String> {
        let mut lines = Vec::new();
        if st.bytes > self.budget && !st.seen.is_empty() {
            // The bash pre-copy cache goes first: it only saves re-reading files.
            st.seen.clear();
            self.collect(st);
        }
        while st.bytes > self.budget && !st.checkpoints.is_empty() {
            let gone = st.checkpoints.remove(0);
            lines.push(format!(
                "checkpoint {} dropped: stored contents passed checkpointBytes ({} bytes)",
                gone.id, self.budget
            ));
            self.collect(st);
        }
        if st.checkpoints.is_empty() {
            self.live.store(false, Ordering::Release);
        }
        lines
    }

    /// Removes stored contents no live checkpoint references.
    fn collect(&self, st: &mut State) {
        let used: std::collections::HashSet<String> = st
            .checkpoints
            .iter()
            .flat_map(|c| c.prior.values())
            .chain(st.seen.values().map(|(_, s)| s))
            .filter_map(|s| match s {
                Snap::File { hash, .. } => Some(hash.clone()),
                _ => None,
            })
            .collect();
        let unused: Vec<String> = st
            .blobs
            .keys()
            .filter(|h| !used.contains(*h))
            .cloned()
            .collect();
        for h in unused {
            if let Some(size) = st.blobs.remove(&h) {
                st.bytes = st.bytes.saturating_sub(size);
            }
            if let Some(objects) = self.objects.get() {
                let _ = std::fs::remove_file(objects.at(&h));
            }
        }
        if st.checkpoints.is_empty() {
            self.live.store(false, Ordering::Release);
            st.ours.clear();
            if !st.seen.is_empty() {
                st.seen.clear();
                self.collect(st);
            }
        }
    }
}

impl Drop for Store {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Removes the checkpoint stores of instances whose process is gone. Never fails. The
/// stores' directory is opened confined (a `.clarvis` swapped for a symlink to the outside
/// is left alone) and every removal goes through its handle.
pub fn sweep(config: &Config) {
    let dir = config.workspace_root.join(CHECKPOINT_DIR);
    let Ok(handle) = crate::workspace::open_dir_confined(config, &dir, CHECKPOINT_DIR) else {
        return;
    };
    let via = crate::workspace::io_path(&handle, &dir);
    let Ok(entries) = std::fs::read_dir(&via) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.split('-').next())
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if pid != std::process::id() && !crate::atomic::pid_alive(pid) {
            let _ = std::fs::remove_dir_all(via.join(&name));
        }
    }
}

// Unix only: these tests build symlinks, FIFOs and permission bits.
#[cfg(all(test, unix))]
mod tests;

#[cfg(all(test, unix))]
#[path = "restore_tests.rs"]
mod restore_tests;
