//! The staged paths as the read path looks them up (SPEC §13, "Speed"): every file a walk
//! opens asks whether it is staged, so the answer is one hash of the path's bytes, made
//! once per state of the entries (whenever they are replaced), never per read.
//!
//! A key is the path below the root, `/`-separated. On Unix a clean absolute path (what a
//! walk yields, or a resolved tool path: no empty or `.` component) gives its key by slicing
//! its bytes; anything else takes the component-wise way ([`key_of`]), so both spell one
//! path alike.

use super::{Entry, Staged, View};
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Arc;

/// Staged key → what a reader finds there (staged directories are answered by `holds_dir`).
#[derive(Debug, Default)]
pub(super) struct Views {
    map: HashMap<Box<[u8]>, View, foldhash::fast::FixedState>,
    /// A key holds U+FFFD, which a name that is not UTF-8 becomes when a path is made a key:
    /// then a path's bytes alone cannot say it is not that key (see [`Views::get`]). Only
    /// Unix slices paths; elsewhere every lookup takes the component-wise way.
    #[cfg_attr(not(unix), allow(dead_code))]
    lossy: bool,
}

impl Views {
    /// Whether nothing is staged (directories aside).
    pub(super) fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// What is staged at `abs` under `root`.
    pub(super) fn get(&self, root: &Path, abs: &Path) -> Option<&View> {
        if self.map.is_empty() {
            return None;
        }
        // A clean path's bytes are its key, UTF-8 or not: keys are UTF-8, so a name that is
        // not cannot match one unless a key was made from such a name (`lossy`).
        #[cfg(unix)]
        if !self.lossy {
            if let Some(key) = clean_key(root, abs) {
                return self.map.get(key);
            }
        }
        self.map.get(key_of(root, abs)?.as_bytes())
    }
}

/// [`Views`] of `entries`, blobs under `dir/blobs`.
pub(super) fn views_of(dir: &Path, entries: &BTreeMap<String, Entry>) -> Arc<Views> {
    let map = entries
        .iter()
        .filter_map(|(rel, e)| {
            let view = match &e.staged {
                Staged::Write { blob, .. } => View::File(dir.join("blobs").join(blob)),
                Staged::Delete => View::Deleted,
                Staged::Dir => return None,
            };
            Some((rel.as_bytes().into(), view))
        })
        .collect();
    let lossy = entries.keys().any(|k| k.contains('\u{FFFD}'));
    Arc::new(Views { map, lossy })
}

/// The key of `abs` under `root`, borrowed from `abs` when it can be; `None` outside `root`
/// or at `root` itself.
pub(super) fn key_of<'a>(root: &Path, abs: &'a Path) -> Option<Cow<'a, str>> {
    #[cfg(unix)]
    if let Some(key) = clean_key(root, abs).and_then(|k| std::str::from_utf8(k).ok()) {
        return Some(Cow::Borrowed(key));
    }
    let rel = abs.strip_prefix(root).ok()?;
    let s = rel.to_string_lossy();
    // Only Windows separates by a backslash; on Unix it is a character of a name.
    let s = if cfg!(windows) && s.contains('\\') {
        Cow::Owned(s.replace('\\', "/"))
    } else {
        s
    };
    (!s.is_empty()).then_some(s)
}

/// The key of a clean `abs` (`root`, `/`, then components none of which is empty or `.`) as
/// a slice of its bytes: what `strip_prefix` would give, without walking components.
#[cfg(unix)]
fn clean_key<'a>(root: &Path, abs: &'a Path) -> Option<&'a [u8]> {
    use std::os::unix::ffi::OsStrExt;
    let root = root.as_os_str().as_bytes();
    let rest = abs
        .as_os_str()
        .as_bytes()
        .strip_prefix(root)?
        .strip_prefix(b"/")?;
    if root.ends_with(b"/")
        || rest
            .split(|b| *b == b'/')
            .any(|c| c.is_empty() || c == b".")
    {
        return None;
    }
    Some(rest)
}

/// The staged paths as they were when a walk started: what it skips on disk.
#[derive(Debug, Clone)]
pub struct Snapshot {
    root: std::path::PathBuf,
    views: Arc<Views>,
}

impl Snapshot {
    pub(super) fn new(root: &Path, views: Arc<Views>) -> Snapshot {
        Snapshot {
            root: root.to_path_buf(),
            views,
        }
    }

    /// Whether a file is staged (written or deleted) at `abs`.
    pub fn holds(&self, abs: &Path) -> bool {
        self.views.get(&self.root, abs).is_some()
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn the_sliced_key_is_the_component_walk_s() {
        let root = Path::new("/w/root");
        let walked = |abs: &str| {
            let rel = Path::new(abs).strip_prefix(root).ok()?;
            Some(rel.to_string_lossy().into_owned()).filter(|s| !s.is_empty())
        };
        for abs in [
            "/w/root/a/b.rs",
            "/w/root/a/.hidden",
            "/w/root/.git/x",
            "/w/root//a/./b.rs",
            "/w/root/a/b.rs/",
            "/w/root/./a",
            "/w/root",
            "/w/root/",
            "/w/rootless/a",
            "/w/other/a",
        ] {
            assert_eq!(
                key_of(root, Path::new(abs)).map(Cow::into_owned),
                walked(abs),
                "{abs}"
            );
        }
        assert_eq!(
            clean_key(root, Path::new("/w/root/a/b.rs")),
            Some(&b"a/b.rs"[..])
        );
        for unclean in [
            "/w/root/a//b.rs",
            "/w/root/./a",
            "/w/root/a/",
            "/w/rootless/a",
        ] {
            assert_eq!(clean_key(root, Path::new(unclean)), None, "{unclean}");
        }
    }

    #[test]
    fn a_path_that_is_not_utf8_finds_the_key_made_from_it_and_no_other() {
        use crate::workspace::overlay::{Base, Entry, Staged};
        use std::os::unix::ffi::OsStrExt;
        let root = Path::new("/w/root");
        let entry = Entry {
            staged: Staged::Delete,
            base: Base::Absent,
            from: None,
        };
        let odd = Path::new(std::ffi::OsStr::from_bytes(b"/w/root/a/\xff.rs"));
        let key = key_of(root, odd).unwrap().into_owned();
        let lossy = views_of(root, &BTreeMap::from([(key, entry.clone())]));
        assert!(lossy.get(root, odd).is_some());
        let plain = views_of(root, &BTreeMap::from([("a/b.rs".to_string(), entry)]));
        assert!(plain.get(root, odd).is_none());
        assert!(plain.get(root, Path::new("/w/root/a/b.rs")).is_some());
        assert!(plain.get(root, Path::new("/w/root/a/c.rs")).is_none());
    }
}
