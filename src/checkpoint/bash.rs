//! Checkpointing what a `bash` command changes (option `checkpointBash`).
//!
//! A shell writes files behind our back, so the prior content of what it will change must be
//! kept before it runs. Before the command, the workspace is walked with the ignore policy
//! (tracked-or-unignored files, as grep sees them) and every file's metadata is taken; the
//! content of each file not already stored is stored while it fits the budget (a cache keyed
//! by metadata means an unchanged file is read once, not once per command). After the
//! command the walk is repeated: every file created, deleted or changed (by metadata) is
//! recorded for the live checkpoints — with its stored prior content, or, when it did not fit
//! the budget, as unrecoverable, which `restore` then reports. Files the ignore policy hides
//! (build outputs, `node_modules/`) are not tracked.

use super::snap::{snapshot, Keep, Meta};
use super::{Snap, State, Store};
use crate::cancel::Cancel;
use crate::config::Config;
use crate::search::policy::Policy;
use crate::search::walk::walk_entries;
use crate::warnings::Warnings;
use crate::workspace::Guard;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

/// The workspace's files before a command: their metadata and, when stored, their state.
#[derive(Debug, Default)]
pub struct Before {
    files: HashMap<PathBuf, (Meta, Snap)>,
}

/// Every file the ignore policy shows under the root, with its metadata.
fn listing(config: &Arc<Config>) -> HashMap<PathBuf, Meta> {
    let policy = Arc::new(Policy::new(
        config.clone(),
        &config.workspace_root,
        true,
        Warnings::default(),
    ));
    let found: Mutex<Vec<(PathBuf, Meta)>> = Mutex::new(Vec::new());
    // The disk's files: what a command changed there (never the staged tree).
    walk_entries(
        &config.workspace_root,
        policy,
        &Cancel::new(),
        false,
        || {
            let found = &found;
            Box::new(move |entry: &ignore::DirEntry| {
                if let Some(m) = Meta::of(entry.path()) {
                    if let Ok(mut v) = found.lock() {
                        v.push((entry.path().to_path_buf(), m));
                    }
                }
            })
        },
    );
    found.into_inner().unwrap_or_default().into_iter().collect()
}

impl Store {
    /// Before a command: `None` unless a checkpoint is live.
    pub fn bash_before(&self, config: &Arc<Config>) -> Option<Before> {
        if !self.live.load(Ordering::Acquire) {
            return None;
        }
        let files = listing(config);
        let guard = Guard::new(config);
        let mut st = self.lock();
        let mut out = Before::default();
        for (path, meta) in files {
            let snap = match st.seen.get(&path) {
                Some((m, snap)) if *m == meta => snap.clone(),
                _ => self.store_within_budget(config, &guard, &mut st, &path, &meta),
            };
            out.files.insert(path, (meta, snap));
        }
        Some(out)
    }

    fn store_within_budget(
        &self,
        config: &Config,
        guard: &Guard,
        st: &mut State,
        path: &Path,
        meta: &Meta,
    ) -> Snap {
        if st.bytes.saturating_add(meta.len()) > self.budget {
            return Snap::Unreadable(
                "its content did not fit checkpointBytes when the bash command started".into(),
            );
        }
        // A copy: the command may write these files in place.
        let objects = || self.objects(config);
        match snapshot(path, guard, Keep::Copy(&objects)) {
            Ok((snap, stored)) => {
                if let (Snap::File { hash, .. }, Some(size)) = (&snap, stored) {
                    if st.blobs.insert(hash.clone(), size).is_none() {
                        st.bytes += size;
                    }
                }
                st.seen.insert(path.to_path_buf(), (*meta, snap.clone()));
                snap
            }
            Err(e) => Snap::Unreadable(e.to_string()),
        }
    }

    /// After a command: records every file it created, deleted or changed. Returns warn-sink
    /// lines (checkpoints the budget dropped).
    pub fn bash_after(&self, config: &Arc<Config>, before: Before) -> Vec<String> {
        let now = listing(config);
        let mut changed: Vec<(PathBuf, Snap)> = Vec::new();
        let paths: HashSet<&PathBuf> = before.files.keys().chain(now.keys()).collect();
        for path in paths {
            match (before.files.get(path), now.get(path)) {
                (Some((m, _)), Some(n)) if m == n => {}
                (Some((_, snap)), _) => changed.push((path.clone(), snap.clone())),
                (None, _) => changed.push((path.clone(), Snap::Absent)),
            }
        }
        let mut st = self.lock();
        for c in st.checkpoints.iter_mut() {
            for (path, snap) in &changed {
                c.prior.entry(path.clone()).or_insert_with(|| snap.clone());
            }
        }
        for (path, _) in &changed {
            match now.get(path) {
                Some(m) => st.ours.insert(path.clone(), *m),
                None => st.ours.remove(path),
            };
        }
        self.enforce_budget(&mut st)
    }
}
