//! The parallel walk `glob`, `grep`, `replace` and the code-navigation tools use: ripgrep's
//! `ignore` walker with its own filters off, every decision delegated to [`Policy`],
//! symlinks never followed.
//!
//! [`walk`] and [`walk_wanted`] walk the tree the tools' readers see: in review mode the
//! staged tree ([`super::staged`]: staged paths leave the disk walk, staged files the policy
//! allows are visited after it, by path). [`walk_entries`] walks the disk itself (the search
//! index and the checkpoints of `bash` record the disk).
//!
//! The walker calls the visitor from several threads in no particular order; callers that
//! need a deterministic result sort afterwards. A fired [`Cancel`] stops the walk at the next
//! entry; callers check the token after [`walk`] returns and report `aborted`.

use super::policy::Policy;
use super::staged::Staged;
use crate::cancel::Cancel;
use crate::pool::threads;
use ignore::{DirEntry, WalkBuilder, WalkState};
use std::path::Path;
use std::sync::Arc;

/// A cheap test of the files a caller wants (a name glob), run before the ignore policy.
pub type Wanted = Arc<dyn Fn(&Path) -> bool + Send + Sync>;

/// [`Wanted`] as the disk walker's filter asks it.
type WantedEntry = Arc<dyn Fn(&DirEntry) -> bool + Send + Sync>;

/// A visitor of walked files, by path.
pub type Visit<'s> = Box<dyn FnMut(&Path) + Send + 's>;

/// Walks `base` in parallel, calling a visitor made by `make_visitor` (one per thread) with
/// every regular file the policy allows. Directories, symlinks and walk errors (an
/// unreadable directory) are skipped silently.
pub fn walk<'s, F>(base: &Path, policy: Arc<Policy>, cancel: &Cancel, make_visitor: F)
where
    F: FnMut() -> Visit<'s>,
{
    walk_wanted(base, policy, cancel, None, make_visitor)
}

/// [`walk`], visiting only the files `wanted` accepts. `wanted` sees every entry that is
/// not a directory *before* the policy does, as ripgrep applies its `-g`/`-t` filters
/// before the gitignore stack: a file the caller does not want then costs one glob match
/// instead of a match against every `.gitignore` up to the ignore root. (Only the order
/// changes: a visited file passes both tests either way; directories are never tested. A
/// directory holding no wanted file and no subdirectory then never has its `.gitignore`
/// read, so an unreadable one there is not warned about: its rules could not matter.)
pub fn walk_wanted<'s, F>(
    base: &Path,
    policy: Arc<Policy>,
    cancel: &Cancel,
    wanted: Option<Wanted>,
    mut make_visitor: F,
) where
    F: FnMut() -> Visit<'s>,
{
    let staged = Staged::below(policy.config(), base).map(Arc::new);
    let on_disk = wanted
        .clone()
        .map(|w| Arc::new(move |e: &DirEntry| w(e.path())) as WantedEntry);
    walk_inner(
        base,
        policy.clone(),
        cancel,
        on_disk,
        staged.clone(),
        false,
        || {
            let mut visit = make_visitor();
            Box::new(move |e: &DirEntry| visit(e.path()))
        },
    );
    let Some(staged) = staged else {
        return;
    };
    let wanted = |p: &Path| wanted.as_ref().is_none_or(|w| w(p));
    let files: Vec<&Path> = staged.files(base, &policy, wanted).collect();
    // As many threads as the disk walk had, each with its own visitor: the staged files are
    // searched as fast as the disk's (one thread alone made a grep with 100 files staged
    // ~5% slower than the same grep of the same tree on disk).
    let n = threads().clamp(1, files.len().max(1));
    let chunk = files.len().div_ceil(n).max(1);
    let visitors: Vec<Visit<'s>> = files.chunks(chunk).map(|_| make_visitor()).collect();
    std::thread::scope(|scope| {
        for (part, mut visit) in files.chunks(chunk).zip(visitors) {
            scope.spawn(move || {
                for path in part {
                    if cancel.is_cancelled() {
                        return;
                    }
                    visit(path);
                }
            });
        }
    });
}

/// Walks the disk under `base` (never the staged tree), also visiting every directory the
/// policy allows (the base itself included) when `dirs` is set: the search index records
/// directories to notice new entries.
pub fn walk_entries<'s, F>(
    base: &Path,
    policy: Arc<Policy>,
    cancel: &Cancel,
    dirs: bool,
    make_visitor: F,
) where
    F: FnMut() -> Box<dyn FnMut(&DirEntry) + Send + 's>,
{
    walk_inner(base, policy, cancel, None, None, dirs, make_visitor);
}

fn walk_inner<'s, F>(
    base: &Path,
    policy: Arc<Policy>,
    cancel: &Cancel,
    wanted: Option<WantedEntry>,
    staged: Option<Arc<Staged>>,
    dirs: bool,
    mut make_visitor: F,
) where
    F: FnMut() -> Box<dyn FnMut(&DirEntry) + Send + 's>,
{
    let mut builder = WalkBuilder::new(base);
    let filter_cancel = cancel.clone();
    builder
        .standard_filters(false)
        .follow_links(false)
        .threads(threads())
        .filter_entry(move |entry| {
            if filter_cancel.is_cancelled() {
                return false;
            }
            let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
            if entry.depth() > 0 && !is_dir {
                if wanted.as_ref().is_some_and(|w| !w(entry)) {
                    return false;
                }
                // Staged: deleted, or visited from the staging area after the walk.
                if staged.as_ref().is_some_and(|s| s.shadows(entry.path())) {
                    return false;
                }
            }
            policy.allows(entry)
        });
    builder.build_parallel().run(|| {
        let mut visit = make_visitor();
        let cancel = cancel.clone();
        Box::new(move |result| {
            if cancel.is_cancelled() {
                return WalkState::Quit;
            }
            if let Ok(entry) = result {
                if entry
                    .file_type()
                    .is_some_and(|t| t.is_file() || (dirs && t.is_dir()))
                {
                    visit(&entry);
                }
            }
            WalkState::Continue
        })
    });
}
