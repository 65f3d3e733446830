//! An installed image with its delta, and how the delta is kept current: inotify events when
//! the watch is trustworthy, a full metadata revalidation otherwise (see `fresh`, `watch`).

use super::{fresh, store, watch};
use crate::config::Config;
use std::sync::Arc;

/// An installed image and what is known about the disk since it was built.
pub struct Live {
    /// The verified image.
    pub store: Arc<store::Store>,
    /// The changes since the build, kept current by the watch (or recomputed per query
    /// when there is none).
    pub delta: fresh::Delta,
    /// inotify on every indexed directory; `None` when unavailable or no longer trusted.
    pub watch: Option<watch::Watch>,
    /// A `.gitignore` changed while the image was being built: its policy is never trusted
    /// (kept apart from the delta, which a revalidation recomputes from scratch).
    pub policy_suspect: bool,
}

/// Brings `live.delta` up to date: the watch's events, or (without a trustworthy watch) a
/// full revalidation. `true` when the watch was lost and a rebuild should start (a new
/// image comes with new watches).
pub fn refresh(config: &Arc<Config>, live: &mut Live) -> bool {
    let store = &live.store;
    if let Some(w) = live.watch.as_mut() {
        match w.drain() {
            Some(events) if events.is_empty() => return false,
            Some(events) if fresh::apply(store, config, &mut live.delta, w, &events) => {
                return false;
            }
            _ => {}
        }
        live.watch = None;
        live.delta = fresh::revalidate(store, config);
        finish(store, config, &mut live.delta, None);
        return true;
    }
    live.delta = fresh::revalidate(store, config);
    finish(store, config, &mut live.delta, None);
    false
}

/// Walks the new directories a revalidation found (watching them when `watch` is given).
fn finish(
    store: &store::Store,
    config: &Arc<Config>,
    d: &mut fresh::Delta,
    mut watch: Option<&mut watch::Watch>,
) -> bool {
    let mut ok = true;
    for rel in std::mem::take(&mut d.new_dirs) {
        ok &= fresh::new_dir(store, config, d, watch.as_deref_mut(), &rel);
    }
    ok
}

/// Installs watches on every directory of `store`, then takes the baseline: what changed
/// between the build's reads and the watches (a full revalidation). Events from then on
/// keep the delta current. Without inotify (or past its limits) the delta is recomputed
/// before every query instead.
///
/// `built_since` is when the build that made `store` started (`None` for an image loaded
/// from disk): a `.gitignore` modified after that may have been rewritten between the walk
/// reading its rules and the build stamping the file, so the image's policy is not trusted.
pub fn watched(
    config: &Arc<Config>,
    store: Arc<store::Store>,
    use_watch: bool,
    built_since: Option<i64>,
) -> Live {
    let mut watch = use_watch.then(watch::Watch::new).flatten();
    if let Some(w) = watch.as_mut() {
        if !(0..store.dirs()).all(|i| w.add(&config.workspace_root, store.dir(i).path)) {
            watch = None;
        }
    }
    let mut delta = fresh::revalidate(&store, config);
    if !finish(&store, config, &mut delta, watch.as_mut()) {
        watch = None;
    }
    let policy_suspect = suspect(&store, built_since);
    Live {
        store,
        delta,
        watch,
        policy_suspect,
    }
}

/// Installs a new image whose build watched every directory as its walk reached it
/// (`build::build` with a watch): the baseline is the image itself with its racy entries
/// looked at again ([`fresh::unchanged`]) plus the events queued since, with no
/// revalidation of every entry — on the corpus that pass was 80 of the 180 ms between the
/// build and readiness, and it grows with the tree. When the build has no such watch (none
/// asked, one could not be added) or its queue overflowed, as [`watched`].
pub fn installed(
    config: &Arc<Config>,
    store: Arc<store::Store>,
    watch: Option<watch::Watch>,
    use_watch: bool,
    built_since: i64,
) -> Live {
    let Some(mut w) = watch else {
        return watched(config, store, use_watch, Some(built_since));
    };
    let mut delta = fresh::unchanged(&store, config);
    let trusted = match w.drain() {
        Some(events) => fresh::apply(&store, config, &mut delta, &mut w, &events),
        None => false,
    };
    // The directories the racy ones hold that the image does not know, walked and watched.
    if !trusted || !finish(&store, config, &mut delta, Some(&mut w)) {
        return watched(config, store, use_watch, Some(built_since));
    }
    let policy_suspect = suspect(&store, Some(built_since));
    Live {
        store,
        delta,
        watch: Some(w),
        policy_suspect,
    }
}

/// Whether a `.gitignore` of `store` was modified after its build began (at `built_since`,
/// ns): the walk may have read its rules before the change, so the image's policy is not
/// trusted. 10 ms of slack for file systems whose clock and timestamps disagree slightly.
fn suspect(store: &store::Store, built_since: Option<i64>) -> bool {
    built_since.is_some_and(|t0| {
        (0..store.files()).any(|i| {
            let rec = store.file(i);
            fresh::is_gitignore(rec.path) && rec.stamp.mtime >= t0 - 10_000_000
        })
    })
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use crate::cancel::Cancel;
    use crate::index::build;
    use std::time::{Duration, SystemTime};

    fn write_old(path: &std::path::Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
        let old = SystemTime::now() - Duration::from_secs(3600);
        let f = std::fs::File::options().write(true).open(path).unwrap();
        f.set_modified(old).unwrap();
    }

    #[test]
    fn what_changes_between_the_reads_and_the_install_is_in_the_baseline() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write_old(&root.join("a/x.rs"), "fn old() {}\n");
        write_old(&root.join("b/y.rs"), "fn gone() {}\n");
        write_old(&root.join("b/keep.rs"), "fn keep() {}\n");
        let config = Arc::new(Config::with_root(root));
        let since = build::now_ns();
        let built = build::build(&config, &Cancel::new(), || 0, watch::Watch::new()).unwrap();
        assert!(built.watch.is_some());
        // The files were read; the install has not happened yet.
        std::fs::write(root.join("a/x.rs"), "fn changed() {}\n").unwrap();
        std::fs::write(root.join("a/new.rs"), "fn added() {}\n").unwrap();
        std::fs::create_dir_all(root.join("c/d")).unwrap();
        std::fs::write(root.join("c/d/deep.rs"), "fn deep() {}\n").unwrap();
        std::fs::remove_file(root.join("b/y.rs")).unwrap();
        let store = Arc::new(store::Store::from_vec(built.image).unwrap());
        let live = installed(&config, store.clone(), built.watch, true, since);
        assert!(live.watch.is_some() && !live.policy_suspect);
        let d = &live.delta;
        let id = |rel: &str| store.find_file(rel.as_bytes()).unwrap();
        assert!(d.stale[id("a/x.rs")] && d.stale[id("b/y.rs")] && !d.stale[id("b/keep.rs")]);
        let extra: Vec<&[u8]> = d.extra.iter().map(Vec::as_slice).collect();
        let want: [&[u8]; 3] = [b"a/new.rs", b"a/x.rs", b"c/d/deep.rs"];
        assert_eq!(extra, want);
        // A write made now is seen too: the watches stay.
        std::fs::write(root.join("b/keep.rs"), "fn kept() {}\n").unwrap();
        let mut live = live;
        assert!(!refresh(&config, &mut live));
        assert!(live.delta.stale[id("b/keep.rs")]);
    }

    #[test]
    fn an_entry_the_listing_missed_before_the_watch_is_found_in_a_racy_directory() {
        // The walk lists a directory before it watches it: an entry created in between is
        // neither listed nor evented. Simulated: the entries are created after the build and
        // their events dropped. The directory was just written, so it is racy and listed again.
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write_old(&root.join("old/a.rs"), "fn a() {}\n");
        std::fs::create_dir(root.join("new")).unwrap();
        std::fs::write(root.join("new/b.rs"), "fn b() {}\n").unwrap();
        let config = Arc::new(Config::with_root(root));
        let since = build::now_ns();
        let built = build::build(&config, &Cancel::new(), || 0, watch::Watch::new()).unwrap();
        std::fs::write(root.join("new/late.rs"), "fn late() {}\n").unwrap();
        std::fs::create_dir_all(root.join("new/sub")).unwrap();
        std::fs::write(root.join("new/sub/deep.rs"), "fn deep() {}\n").unwrap();
        let mut w = built.watch.unwrap();
        assert!(!w.drain().unwrap().is_empty());
        let store = Arc::new(store::Store::from_vec(built.image).unwrap());
        let live = installed(&config, store, Some(w), true, since);
        assert!(live.watch.is_some());
        for rel in ["new/late.rs", "new/sub/deep.rs"] {
            assert!(live.delta.extra.contains(rel.as_bytes()), "{rel}");
        }
        assert!(!live.delta.extra.contains(b"old/a.rs".as_slice()));
    }

    #[test]
    fn a_racy_file_is_stale_from_the_start() {
        let dir = tempfile::tempdir().unwrap();
        write_old(&dir.path().join("old.rs"), "fn old() {}\n");
        std::fs::write(dir.path().join("fresh.rs"), "fn fresh() {}\n").unwrap();
        let config = Arc::new(Config::with_root(dir.path()));
        let since = build::now_ns();
        let built = build::build(&config, &Cancel::new(), || 0, watch::Watch::new()).unwrap();
        let store = Arc::new(store::Store::from_vec(built.image).unwrap());
        let live = installed(&config, store.clone(), built.watch, true, since);
        let id = |rel: &str| store.find_file(rel.as_bytes()).unwrap();
        assert!(live.delta.stale[id("fresh.rs")] && !live.delta.stale[id("old.rs")]);
        assert!(live.delta.extra.contains(b"fresh.rs".as_slice()));
    }
}
