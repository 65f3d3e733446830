//! The staged tree as walks see it (SPEC §13): which names a directory gains or loses, and
//! which staged files lie under a walk's base. Every walk consults these rather than the
//! entries (the parallel search walk in `crate::search::staged`, the directory listings of
//! `list_dir`, `tree` and `outline` through [`dir_view`]), so a file that exists only in the
//! staging area is listed and a staged deletion is not, as in direct mode after accept.

use super::{Overlay, Snapshot, Staged, State};
use crate::config::Config;
use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

/// What the staged tree holds at one name of a directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Child {
    /// A staged file of this many bytes.
    File(u64),
    /// A directory that holds staged files (on disk or not).
    Dir,
    /// A staged deletion: the name is gone.
    Deleted,
}

/// What the staging area changes in one directory's listing ([`dir_view`]).
#[derive(Debug, Default)]
pub struct DirView {
    children: BTreeMap<OsString, Child>,
}

impl DirView {
    /// What is staged at `name` (`None`: the disk's entry stands).
    pub fn get(&self, name: &OsStr) -> Option<Child> {
        self.children.get(name).copied()
    }

    /// The names the staged tree adds to a listing whose disk entries `listed` recognises:
    /// staged files and directories of staged files the disk does not hold.
    pub fn added<'a>(
        &'a self,
        listed: impl Fn(&OsStr) -> bool + 'a,
    ) -> impl Iterator<Item = (&'a OsStr, Child)> + 'a {
        self.children
            .iter()
            .filter(move |(n, c)| **c != Child::Deleted && !listed(n))
            .map(|(n, c)| (n.as_os_str(), *c))
    }
}

/// The staged changes of directory `dir`; `None` when review is off or nothing is staged
/// below `dir` (the listing is the disk's).
pub fn dir_view(config: &Config, dir: &Path) -> Option<DirView> {
    let view = super::of(config)?.dir_view(dir);
    (!view.children.is_empty()).then_some(view)
}

/// Staged files and deletions below a walk's base.
#[derive(Debug)]
pub struct Below {
    /// Staged writes: absolute path and length.
    pub written: Vec<(PathBuf, u64)>,
    /// Staged deletions (absolute).
    pub deleted: Vec<PathBuf>,
    /// Every staged file of the same state (what the walk skips on disk).
    pub staged: Snapshot,
}

impl Overlay {
    /// The key prefix of the entries below `dir` (`""` for the root), `None` outside it.
    fn prefix(&self, dir: &Path) -> Option<String> {
        if dir == self.root {
            return Some(String::new());
        }
        self.rel(dir).map(|r| format!("{r}/"))
    }

    /// What is staged below `dir`, keys in order.
    fn each_below(&self, dir: &Path, f: impl FnMut(&str, &Staged)) {
        if let Ok(state) = self.state.lock() {
            self.each_below_in(&state, dir, f);
        }
    }

    /// [`Self::each_below`] in a state the caller holds.
    fn each_below_in(&self, state: &State, dir: &Path, mut f: impl FnMut(&str, &Staged)) {
        let Some(prefix) = self.prefix(dir) else {
            return;
        };
        for (rel, entry) in state.entries.range(prefix.clone()..) {
            let Some(rest) = rel.strip_prefix(&prefix) else {
                break;
            };
            f(rest, &entry.staged);
        }
    }

    /// The staged changes of `dir`'s own entries (see [`DirView`]).
    pub fn dir_view(&self, dir: &Path) -> DirView {
        let mut children = BTreeMap::new();
        self.each_below(dir, |rest, staged| {
            let (name, child) = match (rest.split_once('/'), staged) {
                (Some((first, _)), Staged::Write { .. } | Staged::Dir) => (first, Child::Dir),
                // A deletion deeper down leaves its directory as it is.
                (Some(_), Staged::Delete) => return,
                (None, Staged::Write { len, .. }) => (rest, Child::File(*len)),
                (None, Staged::Delete) => (rest, Child::Deleted),
                (None, Staged::Dir) => (rest, Child::Dir),
            };
            let slot = children.entry(OsString::from(name)).or_insert(child);
            if child == Child::Dir {
                *slot = Child::Dir;
            }
        });
        DirView { children }
    }

    /// The staged writes and deletions below `dir`, and a snapshot of the same state.
    pub fn below(&self, dir: &Path) -> Below {
        let Ok(state) = self.state.lock() else {
            return Below {
                written: Vec::new(),
                deleted: Vec::new(),
                staged: Snapshot::new(&self.root, Default::default()),
            };
        };
        let mut out = Below {
            written: Vec::new(),
            deleted: Vec::new(),
            staged: Snapshot::new(&self.root, state.views.clone()),
        };
        self.each_below_in(&state, dir, |rest, staged| {
            let abs = super::join_key(dir, rest);
            match staged {
                Staged::Write { len, .. } => out.written.push((abs, *len)),
                Staged::Delete => out.deleted.push(abs),
                // The walks list files; a directory shows in the listings (`dir_view`).
                Staged::Dir => {}
            }
        });
        out
    }

    /// Whether `abs` is a directory of the staged tree: a staged directory, or one a staged
    /// file or directory lies below.
    pub fn holds_dir(&self, abs: &Path) -> bool {
        let at = self.rel(abs).and_then(|rel| {
            let state = self.state.lock().ok()?;
            Some(state.entries.get(&rel)?.staged == Staged::Dir)
        });
        let mut found = at == Some(true);
        self.each_below(abs, |_, staged| {
            found |= matches!(staged, Staged::Write { .. } | Staged::Dir);
        });
        found
    }

    /// The staging area's own directory (its metadata stands for a directory that exists
    /// only in the staged tree).
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}
