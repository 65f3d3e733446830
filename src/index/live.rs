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
    // 10 ms of slack for file systems whose clock and timestamps disagree slightly.
    let policy_suspect = built_since.is_some_and(|t0| {
        (0..store.files()).any(|i| {
            let rec = store.file(i);
            fresh::is_gitignore(rec.path) && rec.stamp.mtime >= t0 - 10_000_000
        })
    });
    Live {
        store,
        delta,
        watch,
        policy_suspect,
    }
}
