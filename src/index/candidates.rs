//! The candidates of an indexed grep: the files a match can be in, from the posting lists
//! (expanded to each posted file's duplicates) and the delta.

use super::{os_str, plan, store, under, SearchIndex};
use crate::config::Config;
use std::path::{Path, PathBuf};
use std::sync::Arc;

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
        let root = &config.workspace_root;
        self.answer(config, base, |store, delta, base_rel| {
            let ids = query.eval(&mut |g| store.postings(g))?;
            let mut out = Vec::new();
            // A posted id stands for its whole group: the duplicates held the same text when
            // read. Each member is then judged by its own entry, so a changed representative
            // (stale, searched through `extra`) never takes candidacy from its duplicates,
            // which still hold what the postings describe.
            for id in ids.into_iter().flat_map(|id| store.group(id as usize)) {
                let rec = store.file(id);
                if delta.stale.get(id).copied().unwrap_or(true)
                    || rec.flags & store::NO_CONTENT != 0
                    || !under(base_rel, rec.path)
                    || delta.hidden(rec.path)
                {
                    continue;
                }
                out.push(root.join(os_str(rec.path)));
            }
            for rel in &delta.extra {
                if under(base_rel, rel) && !delta.hidden(rel) {
                    out.push(root.join(os_str(rel)));
                }
            }
            out.sort_unstable();
            out.dedup();
            Some(out)
        })
        .flatten()
        // Review mode: the index knows the disk; the staged tree's files are searched instead.
        .map(|out| {
            crate::search::staged::correct(config, base, out, |p| p, Path::to_path_buf, |_| true)
        })
    }
}
