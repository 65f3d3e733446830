//! Freshness: what changed on disk since the image was built, checked before every query.
//!
//! Without file-system notifications the only proof that a file still holds what was
//! indexed is its metadata, so every indexed file and directory is `lstat`ed (in parallel;
//! no file is read). A file whose size, mtime, ctime or inode differs is searched whatever
//! the index says; one that is gone (or is no longer a regular file) is dropped. A directory
//! whose metadata differs gained or lost entries: it is listed, and entries the image does
//! not know are searched (new files) or walked under grep's policy (new directories). A
//! directory that is no longer a directory (deleted, or swapped for a symlink) hides every
//! indexed path under it, as the walk would.
//!
//! Ignore rules are part of the image (it holds only what the policy yielded). A changed,
//! new or deleted `.gitignore`, or a `.git` appearing or vanishing in a directory, changes
//! the policy itself: the delta says so and the caller scans and rebuilds instead.

use super::store::{Stamp, Store, RACY};
use super::watch::{Event, Watch};
use crate::config::Config;
use crate::pool::threads;
use crate::search::policy::{is_reserved_name, Policy};
use crate::search::walk::walk_entries;
use crate::warnings::Warnings;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Directory flag: the directory held `.git` when indexed (a repository root).
pub const REPO: u32 = 4;

/// What changed since the image was built.
#[derive(Debug, Default)]
pub struct Delta {
    /// Relative paths to search whatever the index says: changed, new and racy files.
    pub extra: BTreeSet<Vec<u8>>,
    /// Per file id: the image's entry no longer stands (changed or gone).
    pub stale: Vec<bool>,
    /// Indexed directories that are no longer directories.
    pub gone: Vec<Vec<u8>>,
    /// The ignore policy may have changed: the image cannot be trusted.
    pub policy_changed: bool,
    /// Directories the image does not know, still to be walked ([`new_dir`]).
    pub new_dirs: Vec<Vec<u8>>,
}

impl Delta {
    /// Whether `path` lies under a directory that is gone.
    pub fn hidden(&self, path: &[u8]) -> bool {
        self.gone.iter().any(|g| {
            g.is_empty() || (path.len() > g.len() && path.starts_with(g) && path[g.len()] == b'/')
        })
    }

    /// Whether directory `dir` itself is gone or lies under a gone directory.
    pub fn hidden_dir(&self, dir: &[u8]) -> bool {
        self.gone.iter().any(|g| g == dir) || self.hidden(dir)
    }

    /// How many paths the image no longer describes (to decide on a rebuild).
    pub fn drift(&self) -> usize {
        self.extra.len() + self.gone.len()
    }
}

/// Runs `f(i)` for `i` in `0..n` on the walker's thread count.
fn par_for(n: usize, f: impl Fn(usize) + Sync) {
    let next = AtomicUsize::new(0);
    let workers = threads().min(n.div_ceil(512)).max(1);
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let start = next.fetch_add(256, Ordering::Relaxed);
                if start >= n {
                    break;
                }
                (start..(start + 256).min(n)).for_each(&f);
            });
        }
    });
}

fn abs(root: &Path, rel: &[u8]) -> PathBuf {
    if rel.is_empty() {
        root.to_path_buf()
    } else {
        root.join(super::os_str(rel))
    }
}

/// The metadata of indexed path `rel`: never through a final symlink, except for the root
/// itself (`rel` empty), which may be reached through one — a workspace opened by a
/// symlink's name (macOS's `/tmp`, a linked checkout) is the directory it names, as
/// everywhere else in the library; taken as the link, it looked like a directory swapped
/// for a symlink and hid every file.
pub(crate) fn stat(root: &Path, rel: &[u8]) -> std::io::Result<std::fs::Metadata> {
    if rel.is_empty() {
        std::fs::metadata(root)
    } else {
        std::fs::symlink_metadata(abs(root, rel))
    }
}

pub(crate) fn is_gitignore(rel: &[u8]) -> bool {
    rel == b".gitignore" || rel.ends_with(b"/.gitignore")
}

/// The delta of a new image whose build watched every directory as its walk reached it
/// (`build::build` with a watch); what changes after that is in the watch's queue, for
/// [`apply`]. The walk lists a directory *before* it reaches it (the `ignore` crate reads a
/// directory's entries, then visits it), so an entry created between the listing and the
/// watch is in neither; the directory's stamp, taken right after the watch, then carries a
/// modification time within [`RACY`]'s 2 s, so the racy directories are listed again here,
/// as [`revalidate`] lists changed ones. A file deleted in that gap could not be read (no
/// stamp): it is looked at again. Racy files are stale from the start, as in [`revalidate`].
pub fn unchanged(store: &Store, config: &Arc<Config>) -> Delta {
    let root = &config.workspace_root;
    let mut d = Delta {
        stale: vec![false; store.files()],
        ..Delta::default()
    };
    for id in 0..store.files() {
        let rec = store.file(id);
        let unread = rec.stamp == Stamp::default();
        if rec.flags & RACY == 0 && !unread {
            continue;
        }
        d.stale[id] = true;
        if rec.flags & RACY != 0 || stat(root, rec.path).is_ok_and(|m| m.is_file()) {
            d.extra.insert(rec.path.to_vec());
        }
    }
    let racy: Vec<usize> = (0..store.dirs())
        .filter(|&i| store.dir(i).flags & RACY != 0)
        .collect();
    if !racy.is_empty() {
        let policy = Policy::new(config.clone(), root, true, Warnings::default());
        for i in racy {
            list_changed(store, config, &policy, i, &mut d);
        }
    }
    d
}

/// Compares the disk with `store` (built from `config.workspace_root`).
pub fn revalidate(store: &Store, config: &Arc<Config>) -> Delta {
    let root = &config.workspace_root;
    let n = store.files();
    let stale: Vec<AtomicBool> = (0..n).map(|_| AtomicBool::new(false)).collect();
    let extra: Mutex<BTreeSet<Vec<u8>>> = Mutex::default();
    let policy_changed = AtomicBool::new(false);
    par_for(n, |id| {
        let rec = store.file(id);
        let now = stat(root, rec.path);
        let same = matches!(&now, Ok(m) if Stamp::of(m) == rec.stamp);
        if same && rec.flags & RACY == 0 {
            return;
        }
        stale[id].store(true, Ordering::Relaxed);
        if !same && is_gitignore(rec.path) {
            policy_changed.store(true, Ordering::Relaxed);
        }
        if matches!(&now, Ok(m) if m.is_file()) {
            if let Ok(mut e) = extra.lock() {
                e.insert(rec.path.to_vec());
            }
        }
    });
    let changed_dirs: Mutex<Vec<usize>> = Mutex::default();
    let gone: Mutex<Vec<Vec<u8>>> = Mutex::default();
    par_for(store.dirs(), |i| {
        let rec = store.dir(i);
        match stat(root, rec.path) {
            Ok(m) if m.is_dir() => {
                if Stamp::of(&m) != rec.stamp || rec.flags & RACY != 0 {
                    if let Ok(mut c) = changed_dirs.lock() {
                        c.push(i);
                    }
                }
            }
            _ => {
                if let Ok(mut g) = gone.lock() {
                    g.push(rec.path.to_vec());
                }
            }
        }
    });
    let mut delta = Delta {
        extra: extra.into_inner().unwrap_or_default(),
        stale: stale.into_iter().map(AtomicBool::into_inner).collect(),
        gone: gone.into_inner().unwrap_or_default(),
        policy_changed: policy_changed.into_inner(),
        new_dirs: Vec::new(),
    };
    let changed = changed_dirs.into_inner().unwrap_or_default();
    if !changed.is_empty() && !delta.policy_changed {
        let policy = Policy::new(config.clone(), root, true, Warnings::default());
        for i in changed {
            list_changed(store, config, &policy, i, &mut delta);
        }
    }
    delta
}

/// Lists changed directory `i`, adding the files the image does not know.
fn list_changed(store: &Store, config: &Arc<Config>, policy: &Policy, i: usize, d: &mut Delta) {
    let rec = store.dir(i);
    let root = &config.workspace_root;
    if abs(root, rec.path).join(".git").symlink_metadata().is_ok() != (rec.flags & REPO != 0) {
        d.policy_changed = true;
        return;
    }
    let known = |rel: &[u8], dir: bool| match dir {
        true => store.find_dir(rel).is_some(),
        false => store.find_file(rel).is_some(),
    };
    for (rel, dir) in unknown_entries(root, policy, rec.path, known) {
        if dir {
            d.new_dirs.push(rel);
        } else if is_gitignore(&rel) {
            d.policy_changed = true;
            return;
        } else {
            d.extra.insert(rel);
        }
    }
}

/// The entries of directory `dir` (relative) that are not `known(rel, is_dir)` and that
/// the policy lets through, as `(relative path, is a directory)`: regular files and
/// directories only, named in UTF-8 and not reserved, as the walk yields them.
fn unknown_entries(
    root: &Path,
    policy: &Policy,
    dir: &[u8],
    known: impl Fn(&[u8], bool) -> bool,
) -> Vec<(Vec<u8>, bool)> {
    let Ok(entries) = std::fs::read_dir(abs(root, dir)) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        if name.to_str().is_none() || is_reserved_name(name.as_encoded_bytes()) {
            continue;
        }
        let mut rel = dir.to_vec();
        if !rel.is_empty() {
            rel.push(b'/');
        }
        rel.extend_from_slice(name.as_encoded_bytes());
        let Ok(ft) = entry.file_type() else { continue };
        let is_dir = ft.is_dir();
        if (ft.is_file() || is_dir) && !known(&rel, is_dir) && !policy.hides(&entry.path(), is_dir)
        {
            out.push((rel, is_dir));
        }
    }
    out
}

/// Walks the directory `rel` (new, or re-created) under the policy: every file it holds is
/// searched whatever the image says. With a `watch`, `rel` is watched before it is listed
/// and each directory under it as the walk reaches it; since the walk lists a directory
/// before reaching it, each is then listed once more, so nothing created meanwhile is missed.
/// `false` when a watch failed.
pub fn new_dir(
    store: &Store,
    config: &Arc<Config>,
    d: &mut Delta,
    watch: Option<&mut Watch>,
    rel: &[u8],
) -> bool {
    let root = &config.workspace_root;
    d.gone.retain(|g| !(g == rel || under(rel, g)));
    // What the image held under `rel` no longer stands (the directory was created, or
    // re-created after it went away): the walk below finds what is there now. Without this
    // a file of the old directory would come back as unchanged — harmless to grep, which
    // opens every candidate, but glob would list it.
    // (A file the image held at `rel` itself was replaced by this directory.)
    let replaced = store.find_file(rel);
    for id in store.files_under(rel).chain(replaced) {
        if let Some(s) = d.stale.get_mut(id) {
            *s = true;
        }
    }
    let path = abs(root, rel);
    let policy = Arc::new(Policy::new(
        config.clone(),
        &path,
        true,
        Warnings::default(),
    ));
    let mut watch = watch;
    // Watched before it is listed: what is created in it from now on is in the queue.
    let watched = watch.as_deref_mut().is_none_or(|w| w.add(root, rel));
    let watch = Mutex::new(watch);
    let found: Mutex<Vec<Vec<u8>>> = Mutex::default();
    let walked: Mutex<Vec<Vec<u8>>> = Mutex::default();
    let ok = AtomicBool::new(true);
    walk_entries(&path, policy, &crate::cancel::Cancel::new(), true, || {
        let (found, walked, watch, ok) = (&found, &walked, &watch, &ok);
        Box::new(move |e: &ignore::DirEntry| {
            let Ok(r) = e.path().strip_prefix(root) else {
                return;
            };
            let r = r.as_os_str().as_encoded_bytes().to_vec();
            if e.file_type().is_some_and(|t| t.is_dir()) {
                if let Ok(mut w) = watch.lock() {
                    if let Some(w) = w.as_mut() {
                        if !w.add(root, &r) {
                            ok.store(false, Ordering::Relaxed);
                        }
                    }
                }
                if let Ok(mut d) = walked.lock() {
                    d.push(r);
                }
            } else if let Ok(mut f) = found.lock() {
                f.push(r);
            }
        })
    });
    let mut watch = watch.into_inner().ok().flatten();
    let mut found = found.into_inner().unwrap_or_default();
    // The walk lists a directory before it visits (and so watches) it: an entry created in
    // between is in neither. Each walked directory, watched now, is listed once more.
    let walked = walked.into_inner().unwrap_or_default();
    let (files, dirs): (BTreeSet<Vec<u8>>, BTreeSet<&[u8]>) = (
        found.iter().cloned().collect(),
        walked.iter().map(Vec::as_slice).collect(),
    );
    let known = |r: &[u8], dir: bool| match dir {
        true => dirs.contains(r),
        false => files.contains(r),
    };
    let root_policy = Policy::new(config.clone(), root, true, Warnings::default());
    let mut missed = Vec::new();
    for dir in walked.iter().filter(|w| w.as_slice() != rel) {
        for (r, is_dir) in unknown_entries(root, &root_policy, dir, known) {
            if is_dir {
                missed.push(r);
            } else {
                d.policy_changed |= is_gitignore(&r);
                found.push(r);
            }
        }
    }
    for f in found {
        if let Some(id) = store.find_file(&f) {
            d.stale[id] = true;
        }
        d.extra.insert(f);
    }
    let mut ok = ok.into_inner() && watched;
    for m in missed {
        ok &= new_dir(store, config, d, watch.as_deref_mut(), &m);
    }
    ok
}

/// Whether `path` lies strictly under directory `dir` (relative paths; `dir` empty = root).
fn under(dir: &[u8], path: &[u8]) -> bool {
    dir.is_empty() || (path.len() > dir.len() && path.starts_with(dir) && path[dir.len()] == b'/')
}

/// Applies watch events to `d`. `false` when the watches can no longer be trusted (a new
/// directory could not be watched): the caller falls back to [`revalidate`].
pub fn apply(
    store: &Store,
    config: &Arc<Config>,
    d: &mut Delta,
    watch: &mut Watch,
    events: &[Event],
) -> bool {
    let root = &config.workspace_root;
    let policy = Policy::new(config.clone(), root, true, Warnings::default());
    let mut seen: BTreeSet<Vec<u8>> = BTreeSet::new();
    let mut created: BTreeSet<Vec<u8>> = BTreeSet::new();
    for ev in events {
        let mut rel = ev.dir.clone();
        if !ev.name.is_empty() {
            if !rel.is_empty() {
                rel.push(b'/');
            }
            rel.extend_from_slice(&ev.name);
        }
        if ev.created {
            created.insert(rel.clone());
        }
        seen.insert(rel);
    }
    for rel in seen {
        let name = rel.rsplit(|&b| b == b'/').next().unwrap_or(&rel);
        if name == b".git" || name == b".gitignore" {
            d.policy_changed = true;
            return true;
        }
        let path = abs(root, &rel);
        let meta = stat(root, &rel);
        let utf8 = std::str::from_utf8(&rel).is_ok();
        match meta {
            Ok(m) if m.is_file() => {
                if let Some(id) = store.find_file(&rel) {
                    d.stale[id] = true;
                }
                if utf8 && !policy.hides(&path, false) {
                    d.extra.insert(rel);
                } else {
                    d.extra.remove(&rel);
                }
            }
            Ok(m) if m.is_dir() => {
                let known = store.find_dir(&rel).is_some() && !d.hidden_dir(&rel);
                if (created.contains(&rel) || !known)
                    && utf8
                    && !policy.hides(&path, true)
                    && !new_dir(store, config, d, Some(watch), &rel)
                {
                    return false;
                }
            }
            _ => {
                if let Some(id) = store.find_file(&rel) {
                    d.stale[id] = true;
                }
                d.extra.remove(&rel);
                if !d.gone.contains(&rel) {
                    d.gone.push(rel);
                }
            }
        }
    }
    true
}
