//! `tree`: a directory's layout as a box-drawing tree, directories first, to a depth.

use super::title;
use super::{object_schema, read_annotations, Call, Handler, Output, ToolDef};
use crate::error::{Code, ToolError, ToolResult};
use crate::schema::{bool_arg, int_arg, str_arg};
use crate::search::policy::Policy;
use crate::text::js_cmp;
use crate::workspace;
use crate::workspace::listing::{Kind, Listing, Scratch};
use crate::workspace::overlay::Child;
use serde_json::{json, Map, Value};
use std::borrow::Cow;
use std::ffi::{OsStr, OsString};
use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

const DESCRIPTION: &str = "Show a directory's layout as a tree: directories first (`name/`), then files with their size in bytes (`name<TAB>size`); symlinks are shown as `name@` and never followed. `depth` levels are shown (default 4, at most 20). Files ignored by git (.gitignore, .git/info/exclude, global excludes) and the .git directory are hidden unless respect_gitignore is false. Use it to get oriented in an unfamiliar project or a large directory; use list_dir for one directory's entries, glob to find files by pattern, grep to find text. Errors: not_found (no such directory), not_a_file (the path is a file: use file_stat or read_file), path_escape (stay inside the workspace), io_error (a directory could not be read).";

/// Depth when `depth` is 0 or omitted.
pub const DEFAULT_DEPTH: u64 = 4;
/// Larger depths are clamped to this.
pub const MAX_DEPTH: u64 = 20;

/// The `tree` tool definition.
pub fn def() -> ToolDef {
    ToolDef {
        name: "tree",
        description: DESCRIPTION,
        schema,
        bounded: false,
        annotations: read_annotations(),
        handler: Handler::Blocking(run),
        aborted: ToolError::aborted,
        syntax: false,
        unstaged: false,
    }
}

fn schema() -> Value {
    object_schema(
        json!({
            "path": { "type": "string", "default": ".", "description": "The directory to show (default: the workspace root)." },
            "depth": { "type": "integer", "minimum": 0, "description": "How many levels to show: 1 shows only the directory's own entries. 0 or omitted means 4; values over 20 are treated as 20." },
            "respect_gitignore": { "type": "boolean", "default": true, "description": "Hide git-ignored files and .git (default true)." }
        }),
        &[],
    )
}

/// A directory to list: its entries' lines go under `prefix`, `levels` levels deep.
struct Job {
    id: usize,
    open: Open,
    /// The directory's workspace path (for the ignore rules and error messages).
    path: PathBuf,
    prefix: String,
    levels: u64,
}

/// How a job's directory is reached.
enum Open {
    /// The root, already open.
    Root(Listing),
    /// An entry of a listed directory, opened when the job runs (so only directories whose
    /// children wait in the queue hold a descriptor).
    Child(Arc<Listing>, OsString),
    /// Review mode: a directory only staged files make (its entries are theirs).
    Staged,
}

/// What a job produced.
enum Done {
    /// The directory's lines, and after which byte of them each descended subdirectory's
    /// own job (by id) goes.
    Listed {
        text: String,
        children: Vec<(usize, usize)>,
    },
    /// Gone or no longer a directory since it was listed (a symlink now, say): it stays
    /// listed as it was, and is not descended.
    Vanished,
    /// Not run: the call was cancelled.
    Skipped,
    /// The call fails with this, unless an earlier part of the output failed first.
    Failed(ToolError),
}

/// The jobs waiting, and how many are waiting or running.
struct Queue {
    jobs: Vec<Job>,
    pending: usize,
}

/// A walk on a few threads: each directory is a job that lists and renders its entries and
/// queues its subdirectories; the rendered pieces are stitched in tree order at the end, so
/// the output is what a sequential depth-first walk prints. Most of a walk is `lstat` of
/// every file for its size (fd, which prints no sizes, does not stat), so a second thread
/// nearly halves it.
struct Walk<'a> {
    call: &'a Call,
    policy: Policy,
    queue: Mutex<Queue>,
    ready: Condvar,
    next_id: AtomicUsize,
}

/// One listed entry of the directory a job renders; its name is `names[start..end]`.
struct Ent {
    start: usize,
    end: usize,
    kind: Kind,
    size: u64,
    /// The name as the directory holds it, when it is not valid UTF-8 (the shown name is
    /// then its lossy form).
    raw: Option<OsString>,
    /// Review mode: a directory only the staged tree holds.
    staged_only: bool,
}

impl Walk<'_> {
    fn lock(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs jobs until none is waiting or running; returns what each produced.
    fn work(&self) -> Vec<(usize, Done)> {
        let mut done = Vec::new();
        let mut scratch = Scratch::default();
        while self.step(&mut done, &mut scratch) {}
        done
    }

    /// Runs one job; false when the walk is over.
    fn step(&self, done: &mut Vec<(usize, Done)>, scratch: &mut Scratch) -> bool {
        let job = {
            let mut q = self.lock();
            loop {
                if let Some(job) = q.jobs.pop() {
                    break job;
                }
                if q.pending == 0 {
                    return false;
                }
                q = self.ready.wait(q).unwrap_or_else(PoisonError::into_inner);
            }
        };
        let id = job.id;
        // Settled on drop, so a panicking job (an internal error, reported by dispatch)
        // still lets the other threads finish instead of waiting for it forever.
        let mut finish = Finish {
            walk: self,
            children: Vec::new(),
        };
        let result = if self.call.cancel.is_cancelled() {
            Done::Skipped
        } else {
            let (result, children) = self.run(job, scratch);
            finish.children = children;
            result
        };
        done.push((id, result));
        true
    }

    /// Lists and renders one directory; returns its subdirectories' jobs.
    fn run(&self, job: Job, scratch: &mut Scratch) -> (Done, Vec<Job>) {
        let shown = || workspace::display(&self.call.config, &job.path);
        let dir = match job.open {
            Open::Root(dir) => Some(dir),
            Open::Child(parent, name) => match parent.subdir(&name, &job.path) {
                Ok(dir) => Some(dir),
                Err(err) if vanished(&err) => return (Done::Vanished, Vec::new()),
                Err(err) => return (Done::Failed(ToolError::fs(&err, &shown())), Vec::new()),
            },
            Open::Staged => None,
        };
        // Review mode: the staged tree's changes to this directory.
        let view = workspace::overlay::dir_view(&self.call.config, &job.path);
        let mut seen = std::collections::HashSet::new();
        let rules = self.policy.rules(&job.path);
        let mut names = String::new();
        let mut ents = Vec::new();
        // Each entry's path for the ignore rules, in one reused buffer: `PathBuf::push`/`pop`
        // parse components (~5 % of a walk's CPU with `Path::file_name`).
        let mut path = job.path.as_os_str().as_encoded_bytes().to_vec();
        path.push(std::path::MAIN_SEPARATOR as u8);
        let base = path.len();
        let mut add = |name: &OsStr, kind: Kind, size: Option<u64>, staged_only: bool| {
            path.truncate(base);
            path.extend_from_slice(name.as_encoded_bytes());
            // SAFETY: a directory's encoded path, an ASCII separator and an entry's encoded
            // name, joined at those ASCII boundaries: valid encoded bytes of an `OsStr`.
            let entry = Path::new(unsafe { std::ffi::OsStr::from_encoded_bytes_unchecked(&path) });
            if rules.hides(entry, name, kind == Kind::Dir) {
                return;
            }
            let start = names.len();
            let lossy = name.to_string_lossy();
            names.push_str(&lossy);
            let raw = matches!(lossy, Cow::Owned(_)).then(|| name.to_os_string());
            ents.push(Ent {
                start,
                end: names.len(),
                kind,
                size: size.unwrap_or(0),
                raw,
                staged_only,
            });
        };
        if let Some(dir) = &dir {
            let listed = dir.each(scratch, |e| {
                let (name, kind) = (e.name(), e.kind());
                let staged = view.as_ref().and_then(|v| v.get(name));
                if staged.is_some() {
                    seen.insert(name.to_os_string());
                }
                match staged {
                    Some(Child::Deleted) => {}
                    Some(Child::File(len)) => add(name, Kind::Other, Some(len), false),
                    _ => add(name, kind, (kind == Kind::Other).then(|| e.size()), false),
                }
            });
            if let Err(err) = listed {
                return (Done::Failed(ToolError::fs(&err, &shown())), Vec::new());
            }
        }
        for (name, child) in view.iter().flat_map(|v| v.added(|n| seen.contains(n))) {
            match child {
                Child::File(len) => add(name, Kind::Other, Some(len), false),
                _ => add(name, Kind::Dir, None, true),
            }
        }
        ents.sort_by(|a, b| {
            (b.kind == Kind::Dir)
                .cmp(&(a.kind == Kind::Dir))
                .then_with(|| js_cmp(&names[a.start..a.end], &names[b.start..b.end]))
        });
        let dir = dir.map(Arc::new);
        let mut text = String::with_capacity(ents.len() * (job.prefix.len() + 24) + names.len());
        let mut children = Vec::new();
        let mut jobs = Vec::new();
        let n = ents.len();
        for (i, e) in ents.into_iter().enumerate() {
            let last = i + 1 == n;
            let name = &names[e.start..e.end];
            text.push('\n');
            text.push_str(&job.prefix);
            text.push_str(if last {
                "\u{2514}\u{2500}\u{2500} "
            } else {
                "\u{251c}\u{2500}\u{2500} "
            });
            text.push_str(name);
            match e.kind {
                Kind::Symlink => text.push('@'),
                Kind::Dir => text.push('/'),
                Kind::Other => {
                    let _ = write!(text, "\t{}", e.size);
                }
            }
            if e.kind == Kind::Dir && job.levels > 1 {
                let raw = e.raw.unwrap_or_else(|| OsString::from(name));
                let id = self.next_id.fetch_add(1, Ordering::Relaxed);
                children.push((text.len(), id));
                jobs.push(Job {
                    id,
                    path: job.path.join(&raw),
                    open: match &dir {
                        Some(dir) if !e.staged_only => Open::Child(Arc::clone(dir), raw),
                        _ => Open::Staged,
                    },
                    prefix: format!(
                        "{}{}",
                        job.prefix,
                        if last { "    " } else { "\u{2502}   " }
                    ),
                    levels: job.levels - 1,
                });
            }
        }
        (Done::Listed { text, children }, jobs)
    }
}

/// A finished job's bookkeeping: its subdirectories queued, itself no longer pending.
struct Finish<'w, 'a> {
    walk: &'w Walk<'a>,
    children: Vec<Job>,
}

impl Drop for Finish<'_, '_> {
    fn drop(&mut self) {
        let mut q = self.walk.lock();
        q.pending = q.pending + self.children.len() - 1;
        // Reversed: the stack pops the first subdirectory first, depth-first like the output.
        q.jobs.extend(self.children.drain(..).rev());
        drop(q);
        self.walk.ready.notify_all();
    }
}

/// Appends job `id`'s pieces, and its subdirectories' in place, to `out`: the first failure
/// in output order is the call's error, as in a sequential walk.
fn stitch(done: &mut [Option<Done>], id: usize, out: &mut String) -> ToolResult<()> {
    match done.get_mut(id).and_then(Option::take) {
        Some(Done::Listed { text, children }) => {
            let mut at = 0;
            for (end, child) in children {
                out.push_str(&text[at..end]);
                at = end;
                stitch(done, child, out)?;
            }
            out.push_str(&text[at..]);
            Ok(())
        }
        Some(Done::Vanished) => Ok(()),
        Some(Done::Failed(err)) => Err(err),
        Some(Done::Skipped) | None => Err(ToolError::aborted()),
    }
}

/// An entry that changed between the listing and the descent.
fn vanished(err: &io::Error) -> bool {
    matches!(
        crate::error::errno(err),
        Some(libc::ENOENT | libc::ENOTDIR | libc::ELOOP)
    )
}

/// Walks from the open root `dir` (shown as `root`) and returns the whole text.
fn walk(
    call: &Call,
    policy: Policy,
    dir: Open,
    abs: &Path,
    root: &str,
    depth: u64,
) -> ToolResult<String> {
    let walk = Walk {
        call,
        policy,
        queue: Mutex::new(Queue {
            jobs: vec![Job {
                id: 0,
                open: dir,
                path: abs.to_path_buf(),
                prefix: String::new(),
                levels: depth,
            }],
            pending: 1,
        }),
        ready: Condvar::new(),
        next_id: AtomicUsize::new(1),
    };
    let mut done = Vec::new();
    let mut scratch = Scratch::default();
    // The root alone first: a tree of one directory never starts a thread.
    walk.step(&mut done, &mut scratch);
    let threads = crate::pool::threads();
    if threads > 1 && walk.lock().jobs.len() > 1 {
        std::thread::scope(|s| {
            let helpers: Vec<_> = (1..threads).map(|_| s.spawn(|| walk.work())).collect();
            while walk.step(&mut done, &mut scratch) {}
            for h in helpers {
                match h.join() {
                    Ok(more) => done.extend(more),
                    Err(panic) => std::panic::resume_unwind(panic),
                }
            }
        });
    } else {
        while walk.step(&mut done, &mut scratch) {}
    }
    let mut slots: Vec<Option<Done>> = Vec::new();
    slots.resize_with(walk.next_id.load(Ordering::Relaxed), || None);
    let mut len = 0;
    for (id, d) in done {
        if let Done::Listed { text, .. } = &d {
            len += text.len();
        }
        slots[id] = Some(d);
    }
    let mut out = crate::output::string_for(root.len() + len + 13);
    out.push_str(root);
    stitch(&mut slots, 0, &mut out)?;
    if out.len() == root.len() {
        out.push_str("\n(no entries)");
    }
    Ok(out)
}

fn run(call: &Call) -> ToolResult<Output> {
    let input = str_arg(&call.args, "path").unwrap_or(".");
    let input = if input.is_empty() { "." } else { input };
    let abs = workspace::resolve(&call.config, input)?;
    let meta =
        workspace::overlay::stat(&call.config, &abs).map_err(|e| ToolError::fs(&e, input))?;
    if !meta.is_dir() {
        return Err(
            ToolError::new(Code::NotAFile, format!("Not a directory: {input}")).with("path", input),
        );
    }
    // Confine the directory itself by descriptor, as list_dir does; the walk descends from
    // this handle with `openat(O_NOFOLLOW)`, never by path.
    // Review mode: a directory only staged files make has no handle; its entries are theirs.
    let handle = match workspace::open_dir_confined(&call.config, &abs, input) {
        Err(e)
            if e.code == Code::NotFound
                && workspace::overlay::is_staged_dir(&call.config, &abs) =>
        {
            None
        }
        handle => Some(handle?),
    };
    let depth = match int_arg(&call.args, "depth") {
        None | Some(0) => DEFAULT_DEPTH,
        Some(d) => u64::try_from(d).unwrap_or(DEFAULT_DEPTH).min(MAX_DEPTH),
    };
    let respect = bool_arg(&call.args, "respect_gitignore").unwrap_or(true);
    let policy = Policy::new(
        Arc::clone(&call.config),
        &abs,
        respect,
        call.warnings.clone(),
    );
    let root = workspace::display(&call.config, &abs);
    let dir = match handle {
        Some(h) => Open::Root(Listing::of(&h, &abs).map_err(|e| ToolError::fs(&e, &root))?),
        None => Open::Staged,
    };
    Ok(Output::text(walk(call, policy, dir, &abs, &root, depth)?))
}

#[cfg(all(test, unix))]
#[path = "tree_tests.rs"]
mod tests;

/// The call's title (`describeCall`): what a progress list or an approval prompt shows.
pub fn title(args: &Map<String, Value>) -> String {
    let path = title::path(args, "path", "the workspace root");
    match title::int(args, "depth") {
        Some(d) if d > 0 => format!("Show the tree of {path} ({d} levels)"),
        _ => format!("Show the tree of {path}"),
    }
}
