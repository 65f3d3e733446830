//! The ignore policy shared by `glob` and `grep`: which entries a walk yields.
//!
//! Contract (CONTRACT §5 grep): hidden files are searched; any entry named `.git` or
//! `.clarvis`, or starting with `.clarvis-tmp-`, is skipped; the git ignore stack is honoured
//! — every `.gitignore` from the entry's directory up to the *ignore root* (the nearest
//! ancestor of the search base holding `.git`, else the workspace root), then that
//! repository's `.git/info/exclude`, then the global excludes file
//! (`$XDG_CONFIG_HOME/git/ignore` or `~/.config/git/ignore`) — whether or not the tree is a
//! git repository. `.ignore`, `.rgignore` and `core.excludesFile` are never read. Symlinks
//! are never yielded (nor followed). An unreadable ignore file is reported once as
//! `warning: cannot read <path>`.
//!
//! Why not the `ignore` crate's own stack: with `require_git(false)` it reads every parent
//! `.gitignore` up to `/`, and it cannot stop at the workspace root. So the walker runs with
//! its standard filters off and this module decides each entry in `filter_entry`: one
//! compiled matcher per directory, cached and shared by every walker thread, linked to its
//! parent's. The walker filters a directory's children one after another on the thread that
//! read it, so each thread remembers the last directory it looked up: a lookup is then a
//! byte comparison, not a hash of the path under a shared lock (that was ~10 % of a `glob`).

use crate::config::Config;
use crate::warnings::Warnings;
use crate::workspace;
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::{DirEntry, Match};
use std::cell::RefCell;
use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

/// Distinguishes policies in the per-thread cache (a thread may serve several walks).
static NEXT_ID: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// The last directory this thread looked up: (policy id, directory, its node).
    static LAST_DIR: RefCell<Option<(u64, PathBuf, Arc<Node>)>> = const { RefCell::new(None) };
}

/// The matchers of one directory: its `.gitignore`, and for a repository root its
/// `.git/info/exclude`; linked to the parent directory's node up to the ignore root.
#[derive(Default)]
struct Node {
    gitignore: Option<Gitignore>,
    exclude: Option<Gitignore>,
    parent: Option<Arc<Node>>,
}

/// Decides which walked entries are yielded. Build once per call with [`Policy::new`].
pub struct Policy {
    id: u64,
    respect_ignores: bool,
    config: Arc<Config>,
    warnings: Warnings,
    global: Option<Gitignore>,
    nodes: RwLock<HashMap<PathBuf, Arc<Node>>>,
}

/// Whether a file name is one the policy always skips (`.git`, `.clarvis`, `.clarvis-tmp-*`).
pub fn is_reserved_name(name: &[u8]) -> bool {
    name == b".git" || name == b".clarvis" || name.starts_with(b".clarvis-tmp-")
}

impl Policy {
    /// The policy for a walk rooted at `base` (an existing directory, lexical absolute path).
    /// With `respect_ignores` false nothing is skipped except symlinks.
    pub fn new(
        config: Arc<Config>,
        base: &Path,
        respect_ignores: bool,
        warnings: Warnings,
    ) -> Policy {
        let mut policy = Policy {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            respect_ignores,
            config,
            warnings,
            global: None,
            nodes: RwLock::new(HashMap::new()),
        };
        if respect_ignores {
            policy.seed(base);
        }
        policy
    }

    /// Builds the nodes from the ignore root down to `base`, and the global matcher.
    fn seed(&mut self, base: &Path) {
        let repo = base
            .ancestors()
            .find(|dir| dir.join(".git").symlink_metadata().is_ok());
        let root: PathBuf = match repo {
            Some(dir) => dir.to_path_buf(),
            None if base.starts_with(&self.config.workspace_root) => {
                self.config.workspace_root.clone()
            }
            None => base.to_path_buf(),
        };
        let mut chain: Vec<&Path> = base
            .ancestors()
            .take_while(|d| d.starts_with(&root))
            .collect();
        chain.reverse();
        let mut parent: Option<Arc<Node>> = None;
        let mut map = HashMap::new();
        for dir in chain {
            let node = Arc::new(self.build_node(dir, parent.take()));
            map.insert(dir.to_path_buf(), node.clone());
            parent = Some(node);
        }
        self.nodes = RwLock::new(map);
        self.global = global_excludes_path().and_then(|file| self.load(&root, &file));
    }

    /// Compiles the node of `dir`. A directory holding `.git` starts a new repository: its
    /// parent chain is cut (git does not apply an outer repository's rules inside it).
    fn build_node(&self, dir: &Path, parent: Option<Arc<Node>>) -> Node {
        let gitignore = self.load(dir, &dir.join(".gitignore"));
        match dir.join(".git").symlink_metadata() {
            Ok(meta) => {
                let exclude = git_dir(dir, meta.is_dir())
                    .and_then(|git| self.load(dir, &git.join("info").join("exclude")));
                Node {
                    gitignore,
                    exclude,
                    parent: None,
                }
            }
            Err(_) => Node {
                gitignore,
                exclude: None,
                parent,
            },
        }
    }

    /// Reads and compiles one ignore file whose patterns are relative to `root`. A missing
    /// file is no rules; an unreadable one is no rules plus a warning.
    fn load(&self, root: &Path, file: &Path) -> Option<Gitignore> {
        let bytes = match std::fs::read(file) {
            Ok(bytes) => bytes,
            Err(err) => {
                if !matches!(
                    err.kind(),
                    io::ErrorKind::NotFound
                        | io::ErrorKind::NotADirectory
                        | io::ErrorKind::IsADirectory
                ) {
                    let shown = workspace::display(&self.config, file);
                    self.warnings.push(format!("warning: cannot read {shown}"));
                }
                return None;
            }
        };
        let text = String::from_utf8_lossy(&bytes);
        let mut builder = GitignoreBuilder::new(root);
        for line in text.lines() {
            // Git skips a pattern it cannot parse; so do we.
            let _ = builder.add_line(Some(file.to_path_buf()), line);
        }
        builder.build().ok().filter(|gi| !gi.is_empty())
    }

    /// The configuration the walk serves (review mode's staging area is found through it).
    pub fn config(&self) -> &Arc<Config> {
        &self.config
    }

    /// Whether the walk yields (and, for a directory, descends into) `entry`.
    pub fn allows(&self, entry: &DirEntry) -> bool {
        if entry.depth() == 0 {
            return true;
        }
        let Some(file_type) = entry.file_type() else {
            return false;
        };
        if file_type.is_symlink() {
            return false;
        }
        // A name that is not UTF-8 could only be shown with U+FFFD, and that shown path would
        // not open again: skip it (and what is under it), as the original did.
        if entry.file_name().to_str().is_none() {
            return false;
        }
        if !self.respect_ignores {
            return true;
        }
        if is_reserved_name(entry.file_name().as_encoded_bytes()) {
            return false;
        }
        let path = entry.path();
        let is_dir = file_type.is_dir();
        LAST_DIR.with_borrow_mut(|last| {
            if let Some((id, dir, node)) = last.as_ref() {
                if *id == self.id && is_child(dir, path, entry.file_name().len()) {
                    return !self.ignored(node, path, is_dir);
                }
            }
            let Some(dir) = path.parent() else {
                return true;
            };
            let node = self.node(dir);
            let allowed = !self.ignored(&node, path, is_dir);
            *last = Some((self.id, dir.to_path_buf(), node));
            allowed
        })
    }

    /// Whether the policy hides `path` (an entry of a directory under the base; not a symlink
    /// check — callers that show symlinks decide about them): the reserved names, then the
    /// ignore stack. Always false with `respect_ignores` off. For walks that are not the
    /// parallel walker's (`tree`).
    pub fn hides(&self, path: &Path, is_dir: bool) -> bool {
        if !self.respect_ignores {
            return false;
        }
        if path
            .file_name()
            .is_some_and(|n| is_reserved_name(n.as_encoded_bytes()))
        {
            return true;
        }
        let Some(dir) = path.parent() else {
            return false;
        };
        let node = self.node(dir);
        self.ignored(&node, path, is_dir)
    }

    /// The rules for the entries of `dir` (a directory under the base), looked up once for
    /// all of them: [`DirRules::hides`] is then [`Policy::hides`] without a lookup of the
    /// directory per entry. For walks that list a directory at a time (`tree`).
    pub fn rules(&self, dir: &Path) -> DirRules<'_> {
        DirRules {
            policy: self,
            node: self.respect_ignores.then(|| self.node(dir)),
        }
    }

    /// Whether the stack starting at `node` ignores `path`: the deepest `.gitignore` with an
    /// opinion wins, then the repository's exclude file, then the global file.
    fn ignored(&self, node: &Node, path: &Path, is_dir: bool) -> bool {
        let mut top = node;
        let mut current = Some(node);
        while let Some(n) = current {
            if let Some(gi) = &n.gitignore {
                match gi.matched(path, is_dir) {
                    Match::Ignore(_) => return true,
                    Match::Whitelist(_) => return false,
                    Match::None => {}
                }
            }
            top = n;
            current = n.parent.as_deref();
        }
        for gi in [&top.exclude, &self.global].into_iter().flatten() {
            match gi.matched(path, is_dir) {
                Match::Ignore(_) => return true,
                Match::Whitelist(_) => return false,
                Match::None => {}
            }
        }
        false
    }

    /// The node of `dir`, compiling it (and any missing ancestor) on first use. The walker
    /// visits a directory before its children, so normally only `dir` itself is missing.
    ///
    /// Compiling reads files, so it happens outside the lock: under the write lock it
    /// stalled every other walker thread's lookups (the walk ran nearly serially). Only the
    /// thread that read a directory filters its children, so two threads do not compile
    /// the same node; if they ever did, the first insertion wins and both are equivalent.
    fn node(&self, dir: &Path) -> Arc<Node> {
        let (missing, mut parent) = {
            let Ok(map) = self.nodes.read() else {
                return Arc::new(Node::default());
            };
            if let Some(node) = map.get(dir) {
                return node.clone();
            }
            // The missing directories up to the nearest compiled ancestor.
            let mut missing = Vec::new();
            let mut parent = None;
            for ancestor in dir.ancestors() {
                if let Some(node) = map.get(ancestor) {
                    parent = Some(node.clone());
                    break;
                }
                missing.push(ancestor);
            }
            (missing, parent)
        };
        if parent.is_none() {
            // Outside the seeded chain (cannot happen for a walk under the base): no rules.
            return Arc::new(Node::default());
        }
        let built: Vec<(&Path, Arc<Node>)> = missing
            .into_iter()
            .rev()
            .map(|d| {
                let node = Arc::new(self.build_node(d, parent.take()));
                parent = Some(node.clone());
                (d, node)
            })
            .collect();
        let Ok(mut map) = self.nodes.write() else {
            return parent.unwrap_or_default();
        };
        let mut last = None;
        for (d, node) in built {
            last = Some(map.entry(d.to_path_buf()).or_insert(node).clone());
        }
        last.unwrap_or_default()
    }
}

/// The ignore rules of one directory's entries ([`Policy::rules`]).
pub struct DirRules<'p> {
    policy: &'p Policy,
    /// `None` when ignores are not respected.
    node: Option<Arc<Node>>,
}

impl DirRules<'_> {
    /// [`Policy::hides`] for `path`, the entry `name` of this directory.
    pub fn hides(&self, path: &Path, name: &std::ffi::OsStr, is_dir: bool) -> bool {
        let Some(node) = &self.node else {
            return false;
        };
        if is_reserved_name(name.as_encoded_bytes()) {
            return true;
        }
        self.policy.ignored(node, path, is_dir)
    }
}

/// Whether `path` is `dir` joined with a final component of `name_len` bytes (how the
/// walker builds a child's path), without parsing components.
fn is_child(dir: &Path, path: &Path, name_len: usize) -> bool {
    let (dir, path) = (
        dir.as_os_str().as_encoded_bytes(),
        path.as_os_str().as_encoded_bytes(),
    );
    path.len() == dir.len() + 1 + name_len
        && path.starts_with(dir)
        && std::path::is_separator(char::from(path[dir.len()]))
}

/// The git directory of a repository root: `.git` itself, or for a worktree/submodule the
/// common directory its `.git` file points to.
fn git_dir(root: &Path, is_dir: bool) -> Option<PathBuf> {
    let dot_git = root.join(".git");
    if is_dir {
        return Some(dot_git);
    }
    let text = std::fs::read_to_string(&dot_git).ok()?;
    let target = text.lines().find_map(|l| l.strip_prefix("gitdir:"))?.trim();
    let git = root.join(target);
    match std::fs::read_to_string(git.join("commondir")) {
        Ok(common) => Some(git.join(common.trim())),
        Err(_) => Some(git),
    }
}

/// `$XDG_CONFIG_HOME/git/ignore` when that variable is set and non-empty, else
/// `~/.config/git/ignore` (`~`: [`crate::paths::home_dir`]).
fn global_excludes_path() -> Option<PathBuf> {
    match std::env::var_os("XDG_CONFIG_HOME") {
        Some(x) if !x.is_empty() => Some(PathBuf::from(x).join("git").join("ignore")),
        _ => crate::paths::home_dir()
            .map(|h| PathBuf::from(h).join(".config").join("git").join("ignore")),
    }
}
