//! Review mode in the search walk and the index's answers (SPEC §13): a walk under a base
//! yields the staged tree — the disk's files less every staged path, plus every staged file
//! the ignore policy lets through — so glob, grep, replace over a directory and the code
//! navigation tools list what direct mode would list after accept. The files' bytes come
//! through the same staging area (`BaseDir::open_file` reads a staged file's blob).

use super::policy::Policy;
use crate::config::Config;
use crate::workspace::overlay;
use std::path::{Path, PathBuf};

/// The staged paths below one walk's base, taken when the walk starts.
#[derive(Debug)]
pub struct Staged {
    /// Every staged path (written or deleted): the disk's entry there is not the tree's. The
    /// staging area's own lookup, so the disk walk's test of each file is one hash.
    shadowed: overlay::Snapshot,
    /// The staged writes.
    written: Vec<PathBuf>,
}

impl Staged {
    /// The staged paths below `base`; `None` when review is off or nothing is staged there
    /// (the walk is the disk's, at no cost).
    pub fn below(config: &Config, base: &Path) -> Option<Staged> {
        let below = overlay::of(config)?.below(base);
        if below.written.is_empty() && below.deleted.is_empty() {
            return None;
        }
        let written: Vec<PathBuf> = below.written.into_iter().map(|(p, _)| p).collect();
        Some(Staged {
            shadowed: below.staged,
            written,
        })
    }

    /// Whether the disk's file at `path` is not the staged tree's (it is staged: deleted, or
    /// yielded from the staging area instead).
    pub fn shadows(&self, path: &Path) -> bool {
        self.shadowed.holds(path)
    }

    /// The staged files a walk of `base` yields: each directory between `base` and the file
    /// and the file itself pass `policy` (as the walker's filter would have them), and
    /// `wanted` accepts the file.
    pub fn files<'a>(
        &'a self,
        base: &'a Path,
        policy: &'a Policy,
        wanted: impl Fn(&Path) -> bool + 'a,
    ) -> impl Iterator<Item = &'a Path> + 'a {
        self.written.iter().map(PathBuf::as_path).filter(move |p| {
            let dirs_pass = p
                .ancestors()
                .skip(1)
                .take_while(|a| *a != base)
                .all(|d| !policy.hides(d, true));
            dirs_pass && !policy.hides(p, false) && wanted(p)
        })
    }

    /// [`correct`] with the staging already looked up.
    pub fn correct<T>(
        &self,
        config: &std::sync::Arc<Config>,
        base: &Path,
        items: Vec<T>,
        path_of: impl Fn(&T) -> &Path,
        make: impl Fn(&Path) -> T,
        wanted: impl Fn(&Path) -> bool,
    ) -> Vec<T> {
        let policy = Policy::new(
            config.clone(),
            base,
            true,
            crate::warnings::Warnings::default(),
        );
        let mut out: Vec<T> = items
            .into_iter()
            .filter(|i| !self.shadows(path_of(i)))
            .collect();
        out.extend(self.files(base, &policy, wanted).map(make));
        out
    }
}

/// An index's answer for `base` made the staged tree's: staged paths out (the index knows
/// the disk's bytes), staged files the policy allows and `wanted` accepts in (`make` builds
/// an item from a path). The caller then searches each through the staging area.
pub fn correct<T>(
    config: &std::sync::Arc<Config>,
    base: &Path,
    items: Vec<T>,
    path_of: impl Fn(&T) -> &Path,
    make: impl Fn(&Path) -> T,
    wanted: impl Fn(&Path) -> bool,
) -> Vec<T> {
    match Staged::below(config, base) {
        Some(staged) => staged.correct(config, base, items, path_of, make, wanted),
        None => items,
    }
}
