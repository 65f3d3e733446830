//! The write side of the staging area (SPEC §13): staging a change, forgetting accepted or
//! rejected ones, and keeping this process's entries in step with the manifest other
//! processes of the scope write (`super::sync`).

use super::{store, sync, Base, Change, Entry, Overlay, Staged, State, WriterLock};
use crate::error::{ToolError, ToolResult};
use std::collections::BTreeMap;
use std::io;
use std::path::Path;

/// From this many blobs on, [`Overlay::remove_blobs`] removes them on a thread of its own.
const DEFER_REMOVAL_AT: usize = 8;

/// What one staged change puts at its path.
#[derive(Clone, Copy)]
enum Put<'a> {
    Bytes(&'a [u8]),
    Delete,
    Dir,
}

impl Overlay {
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
        self.stage_with_dirs(changes, &[], input)
    }

    /// [`Overlay::stage`] and the directories `dirs` (as [`Overlay::stage_dir`]) in one batch:
    /// what a captured command changed.
    pub fn stage_with_dirs(
        &self,
        changes: &[Change<'_>],
        dirs: &[&Path],
        input: &str,
    ) -> ToolResult<()> {
        let puts: Vec<(&Path, Put<'_>, Option<&Path>)> = changes
            .iter()
            .map(|(abs, bytes, from)| (*abs, bytes.map_or(Put::Delete, Put::Bytes), *from))
            .chain(dirs.iter().map(|abs| (*abs, Put::Dir, None)))
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
        state.set_entries(&self.dir, next);
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
        state.set_entries(&self.dir, next);
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

    /// Removes blobs the manifest no longer names. Many at once (an accept, a reject) are
    /// removed off the caller's path: they are garbage whoever removes them and whenever,
    /// since blob numbers are never reused, and [`Self::sweep`] takes what an exit left.
    fn remove_blobs(&self, blobs: &[String]) {
        let paths: Vec<std::path::PathBuf> = blobs.iter().map(|b| self.blob_path(b)).collect();
        let remove = |paths: Vec<std::path::PathBuf>| {
            for p in paths {
                let _ = std::fs::remove_file(p);
            }
        };
        if paths.len() < DEFER_REMOVAL_AT {
            return remove(paths);
        }
        let deferred = paths.clone();
        if std::thread::Builder::new()
            .name("clarvis-review-blobs".into())
            .spawn(move || remove(deferred))
            .is_err()
        {
            remove(paths);
        }
    }

    /// Removes every blob the manifest does not name: those of a removal an exit cut short,
    /// and those a process killed between writing a blob and saving the manifest left. Under
    /// the writer lock, so no other writer is between the two.
    pub fn sweep(&self) -> io::Result<()> {
        let _writer = self.writer_lock()?;
        let mut state = self
            .state
            .lock()
            .map_err(|_| io::Error::other("staging area poisoned"))?;
        self.sync(&mut state);
        let named: std::collections::HashSet<&str> = state
            .entries
            .values()
            .filter_map(|e| match &e.staged {
                Staged::Write { blob, .. } => Some(blob.as_str()),
                Staged::Delete | Staged::Dir => None,
            })
            .collect();
        for entry in std::fs::read_dir(self.dir.join("blobs"))?.flatten() {
            let name = entry.file_name();
            if !name.to_str().is_some_and(|n| named.contains(n)) {
                let _ = std::fs::remove_file(entry.path());
            }
        }
        Ok(())
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
