//! The placeholders exist only while the sandbox is in use. A protected path that does not
//! exist yet is covered by an empty placeholder created on the host (a mount needs a path to
//! sit on, and no other object can carry it: the namespace shows the writable root's own
//! directory, whose entries are the host's), which the user, their editor and `git` would see.
//! So they are made when a command needs the namespaces and removed by this janitor as soon
//! as no sandboxed process is left: none being spawned, none alive in the sandbox's user
//! namespace (a command's detached descendants and monitors included). The next command
//! makes them again and gets a fresh mount namespace (its anchors changed).
//!
//! Removing a placeholder while a sandboxed process lives would be a hole: the host's unlink
//! of a path that is a mount point in another mount namespace detaches that mount there, and
//! the process could then create the protected path. Hence the exact test: under the lock
//! that every command takes to get the namespaces, no spawn in flight (the token each
//! `confine` holds until its `Command` is dropped, after the exec) and no process whose
//! `/proc/<pid>/ns/user` is the sandbox's (a scan in pid order sees every process that was
//! alive throughout it, and every one created during it has a higher pid — unless the pid
//! counter wrapped meanwhile, which is checked).

use super::Built;
use std::collections::BTreeMap;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// How long after the last command started the janitor first looks: back-to-back commands
/// share one set of placeholders and one mount namespace.
const GRACE: Duration = Duration::from_millis(100);
/// The longest wait between two looks while sandboxed processes live (each look is a scan of
/// `/proc`).
const MAX_WAIT: Duration = Duration::from_secs(1);

/// The namespaces in use and what the janitor needs; one lock.
#[derive(Debug)]
pub struct Current {
    /// The namespaces, rebuilt when their plan is stale (the janitor removed the
    /// placeholders, or the host changed a path a mount rests on).
    pub built: Option<Arc<Built>>,
    /// Cloned into every spawn being prepared, dropped with its `Command` (after the exec).
    pub in_flight: Arc<()>,
    /// Whether `built`'s placeholders are held ([`hold`]) — until the janitor releases them.
    pub held: bool,
    /// The holds of captured commands' plans (`super::capture`): such a command has a mount
    /// namespace of its own, in the sandbox's user namespace, whose mounts rest on the same
    /// placeholders; they are let go with `built`'s, by the same exact test.
    pub captured: Vec<PathBuf>,
    last_use: Instant,
    janitor: bool,
}

impl Default for Current {
    fn default() -> Current {
        Current {
            built: None,
            in_flight: Arc::new(()),
            held: false,
            captured: Vec::new(),
            last_use: Instant::now(),
            janitor: false,
        }
    }
}

/// The shared state.
pub type Shared = Arc<Mutex<Current>>;

/// Locks `shared` (a poisoned lock still holds consistent data: every change is one store).
pub fn lock(shared: &Shared) -> MutexGuard<'_, Current> {
    shared.lock().unwrap_or_else(|p| p.into_inner())
}

/// Records a use of the namespaces and makes sure the janitor watches their placeholders.
pub fn used(shared: &Shared, cur: &mut Current) {
    cur.last_use = Instant::now();
    watch(shared, cur);
}

/// Starts the janitor unless it runs or there is nothing to remove.
pub fn watch(shared: &Shared, cur: &mut Current) {
    let has_placeholders = cur.held
        && cur
            .built
            .as_ref()
            .is_some_and(|b| !b.plan.placeholders.is_empty());
    let anything = has_placeholders || !cur.captured.is_empty();
    if cur.janitor || !anything {
        return;
    }
    let shared = Arc::clone(shared);
    cur.janitor = std::thread::Builder::new()
        .name("clarvis-sandbox-janitor".into())
        .spawn(move || run(&shared))
        .is_ok();
}

fn run(shared: &Shared) {
    let mut wait = GRACE;
    loop {
        std::thread::sleep(wait);
        let mut cur = lock(shared);
        let idle = cur.last_use.elapsed();
        if idle < GRACE {
            wait = GRACE - idle;
            continue;
        }
        let Some(b) = cur.built.as_ref() else {
            cur.janitor = false;
            return;
        };
        if Arc::strong_count(&cur.in_flight) > 1 || namespace_in_use(&b.ns.user) {
            wait = (wait * 2).clamp(GRACE, MAX_WAIT);
            continue;
        }
        let_go(&mut cur);
        cur.janitor = false;
        return;
    }
}

/// Lets go of every placeholder `cur` holds: `built`'s and the captured commands'. Only once
/// no sandboxed process is left (or none was ever started).
pub fn let_go(cur: &mut Current) {
    if cur.held {
        if let Some(b) = cur.built.as_ref() {
            release(&b.plan.placeholders);
        }
    }
    cur.held = false;
    release(&std::mem::take(&mut cur.captured));
}

/// The placeholders the sandboxes of this process hold, and how many hold each: tools objects
/// on one workspace share them (to another plan a placeholder is an existing path it would
/// bind too), and only the last to let go removes one — else its removal would detach the
/// other's mount.
static HELD: Mutex<BTreeMap<PathBuf, usize>> = Mutex::new(BTreeMap::new());

fn held() -> MutexGuard<'static, BTreeMap<PathBuf, usize>> {
    HELD.lock().unwrap_or_else(|p| p.into_inner())
}

/// Takes `path` as a placeholder for a plan: one another sandbox holds is shared, a missing
/// path is created (an empty directory, or with `!dir` an empty file) and held; returns
/// `false` for anything else (the user's own path, to be bound as it is).
pub fn hold(path: &Path, dir: bool) -> io::Result<bool> {
    let mut held = held();
    if let Some(n) = held.get_mut(path) {
        *n += 1;
        return Ok(true);
    }
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            if dir {
                std::fs::create_dir(path)?;
            } else {
                std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(path)?;
            }
            held.insert(path.to_path_buf(), 1);
            Ok(true)
        }
        Err(e) => Err(e),
        Ok(_) => Ok(false),
    }
}

/// Whether `path` is a placeholder a sandbox of this process holds.
pub fn is_placeholder(path: &Path) -> bool {
    held().contains_key(path)
}

/// Lets go of the placeholders `paths` (deepest first); one nobody holds any more is removed
/// while it is still an empty placeholder — never something the user put there since.
pub fn release(paths: &[PathBuf]) {
    let mut held = held();
    for p in paths.iter().rev() {
        match held.get_mut(p) {
            Some(n) if *n > 1 => *n -= 1,
            Some(_) => {
                held.remove(p);
                match std::fs::symlink_metadata(p) {
                    Ok(m) if m.is_dir() => {
                        let _ = std::fs::remove_dir(p);
                    }
                    Ok(m) if m.is_file() && m.len() == 0 => {
                        let _ = std::fs::remove_file(p);
                    }
                    _ => {}
                }
            }
            None => {}
        }
    }
}

/// The pid the kernel handed out last in our pid namespace.
fn last_pid() -> Option<u64> {
    std::fs::read_to_string("/proc/sys/kernel/ns_last_pid")
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// Whether a process other than ours lives in the user namespace `ns` (a sandboxed command,
/// a descendant that outlived its call, a monitor). Errs on "yes" when it cannot tell.
pub fn namespace_in_use(ns: &OwnedFd) -> bool {
    let Ok(me) = std::fs::metadata(format!("/proc/self/fd/{}", ns.as_raw_fd())) else {
        return true;
    };
    let before = last_pid();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return true;
    };
    let found = dir
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|s| s.bytes().all(|b| b.is_ascii_digit()))
        })
        .any(|e| {
            std::fs::metadata(e.path().join("ns/user"))
                .is_ok_and(|m| m.ino() == me.ino() && m.dev() == me.dev())
        });
    // A pid counter that went back wrapped during the scan: a process forking from behind the
    // scan's position to ahead of it could have been missed. Unknown counters count as that.
    found || before.is_none() || last_pid() < before
}
