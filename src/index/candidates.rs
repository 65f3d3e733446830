//! The candidates of an indexed grep: the files a match can be in, from the posting lists
//! (expanded to each posted file's duplicates) and the delta.

use super::{os_str, plan, store, under, SearchIndex};
use crate::config::Config;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The files under a base an indexed query must look at, split by what vouches for them.
pub struct Fresh {
    /// The image the ids belong to.
    pub store: Arc<store::Store>,
    /// Files the image vouches for (unchanged since the build, content indexed), ascending.
    pub ids: Vec<usize>,
    /// Files the image cannot vouch for (changed or new since the build), absolute, sorted.
    pub extra: Vec<PathBuf>,
}

impl SearchIndex {
    /// The files under `base` a match of `query` can be in, absolute; `None` when the index
    /// cannot answer and the caller must scan. Revalidates the image against the disk first.
    pub fn candidates(
        self: &Arc<Self>,
        config: &Arc<Config>,
        base: &Path,
        query: &plan::Query,
    ) -> Option<Vec<PathBuf>> {
        // `"on"` starts its build in `after_scan`, once this grep's scan is done: started
        // here, the build and the scan would share the cores, which slows the call (and
        // the build) and makes the index ready hardly any sooner.
        let fresh = self.fresh_candidates(config, base, Some(query))?;
        let root = &config.workspace_root;
        let mut out: Vec<PathBuf> = fresh
            .ids
            .iter()
            .map(|&id| root.join(os_str(fresh.store.file(id).path)))
            .chain(fresh.extra)
            .collect();
        out.sort_unstable();
        out.dedup();
        Some(out)
    }

    /// The candidates of `query` under `base` (every file with content when `query` is
    /// `None`), split into the image's ids it vouches for and the changed or new files;
    /// `None` when the index cannot answer. The same freshness step as every indexed query.
    pub fn fresh_candidates(
        self: &Arc<Self>,
        config: &Arc<Config>,
        base: &Path,
        query: Option<&plan::Query>,
    ) -> Option<Fresh> {
        let root = &config.workspace_root;
        self.answer(config, base, |store, delta, base_rel| {
            let posted: Vec<usize> = match query {
                Some(q) => q
                    .eval(&mut |g| store.postings_shared(g))?
                    .into_iter()
                    .flat_map(|id| store.group(id as usize))
                    .collect(),
                None => store.files_under(base_rel).collect(),
            };
            // A posted id stands for its whole group: the duplicates held the same text when
            // read. Each member is then judged by its own entry, so a changed representative
            // (stale, searched through `extra`) never takes candidacy from its duplicates,
            // which still hold what the postings describe.
            let mut ids: Vec<usize> = posted
                .into_iter()
                .filter(|&id| {
                    let rec = store.file(id);
                    !delta.stale.get(id).copied().unwrap_or(true)
                        && rec.flags & store::NO_CONTENT == 0
                        && under(base_rel, rec.path)
                        && !delta.hidden(rec.path)
                })
                .collect();
            ids.sort_unstable();
            ids.dedup();
            let extra = delta
                .extra
                .iter()
                .filter(|rel| under(base_rel, rel) && !delta.hidden(rel))
                .map(|rel| root.join(os_str(rel)))
                .collect();
            Some(Fresh {
                store: Arc::clone(store),
                ids,
                extra,
            })
        })
        .flatten()
        .map(|fresh| staged_tree(config, base, fresh))
    }
}

/// Review mode: the index knows the disk, so every staged path leaves the answer (the image
/// cannot vouch for it) and the staged tree's files join the changed ones, read through the
/// staging area like them.
fn staged_tree(config: &Arc<Config>, base: &Path, mut fresh: Fresh) -> Fresh {
    let Some(staged) = crate::search::staged::Staged::below(config, base) else {
        return fresh;
    };
    let root = &config.workspace_root;
    let store = Arc::clone(&fresh.store);
    fresh
        .ids
        .retain(|&id| !staged.shadows(&root.join(os_str(store.file(id).path))));
    let extra = std::mem::take(&mut fresh.extra);
    fresh.extra = staged.correct(config, base, extra, |p| p, Path::to_path_buf, |_| true);
    fresh.extra.sort_unstable();
    fresh.extra.dedup();
    fresh
}
