//! The indexed file list answers `glob`: the files a walk of a base directory under grep's
//! policy would yield, without walking.
//!
//! The image holds every file of the root walk with the metadata it had; the delta says which
//! of them changed since (and which files are new). A file the delta does not name still has
//! the recorded modification time — any change to it would have been seen (an inotify event,
//! or a metadata difference on revalidation) — so only the changed and new ones are stat'ed.

use super::{os_str, under, SearchIndex};
use crate::config::Config;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A file the index lists.
#[derive(Debug)]
pub struct Listed {
    /// Its absolute path.
    pub abs: PathBuf,
    /// Its modification time in ns since the epoch, when the index vouches for it; `None`
    /// for a file changed or created since the build (the caller stats it, and drops it
    /// unless it is a regular file).
    pub mtime: Option<i64>,
}

impl SearchIndex {
    /// The files under `base` whose path relative to `base` (`/`-separated, lossy UTF-8, as
    /// glob sees it) satisfies `wanted`; `None` when the index cannot answer (not ready,
    /// `base` not covered by the root walk, the ignore policy changed) and the caller must
    /// walk. Never starts a build. Unordered.
    pub fn files(
        self: &Arc<Self>,
        config: &Arc<Config>,
        base: &Path,
        wanted: impl Fn(&str) -> bool,
    ) -> Option<Vec<Listed>> {
        let root = &config.workspace_root;
        self.answer(config, base, |store, delta, base_rel| {
            let below = |rel: &[u8]| -> Option<PathBuf> {
                if !under(base_rel, rel) || delta.hidden(rel) {
                    return None;
                }
                let from_base = if base_rel.is_empty() {
                    rel
                } else {
                    &rel[base_rel.len() + 1..]
                };
                wanted(&String::from_utf8_lossy(from_base)).then(|| root.join(os_str(rel)))
            };
            let mut out = Vec::new();
            for id in 0..store.files() {
                if delta.stale.get(id).copied().unwrap_or(true) {
                    continue;
                }
                let rec = store.file(id);
                if let Some(abs) = below(rec.path) {
                    out.push(Listed {
                        abs,
                        mtime: Some(rec.stamp.mtime),
                    });
                }
            }
            // Changed and new files: `extra` holds those that are files the policy allows.
            for rel in &delta.extra {
                if let Some(abs) = below(rel) {
                    out.push(Listed { abs, mtime: None });
                }
            }
            out
        })
        // Review mode: staged paths are the staged tree's (stat'ed by the caller, `mtime: None`).
        .map(|out| {
            let wanted = |p: &Path| {
                p.strip_prefix(base)
                    .is_ok_and(|r| wanted(&r.to_string_lossy().replace('\\', "/")))
            };
            crate::search::staged::correct(
                config,
                base,
                out,
                |l| &l.abs,
                |p| Listed {
                    abs: p.to_path_buf(),
                    mtime: None,
                },
                wanted,
            )
        })
    }
}
