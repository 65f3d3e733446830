//! A few long-lived helper threads for short work beside or after a call: `read_files`'s
//! reads, the syntax warning of a write, mapping the next spare output buffer
//! (`output::string_for`), returning freed memory ([`release_freed_memory`]).
//!
//! Scoped threads cost a spawn per call, and their join waits for every helper: on a busy
//! machine a helper descheduled in the middle of one file held the whole call for a
//! scheduler slice (read_files of 64 files: 1.5–4 ms for ~1.2 ms of work). Work handed to
//! this pool is therefore written so the caller never waits for a helper: the caller works
//! too, and does itself whatever the helpers have not finished when it runs out (see
//! `read_files`); a helper that comes late finds nothing left. Tasks must not block.

use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

/// How many walker threads to use: the machine's parallelism, capped (beyond ~8 threads a
/// walk is bound by the filesystem, not the CPU). Asked once: `available_parallelism` reads
/// the cgroup's CPU quota from /proc and /sys on every call (~3 % of a `read_files` call).
pub fn threads() -> usize {
    static THREADS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *THREADS.get_or_init(|| {
        std::thread::available_parallelism()
            .map_or(2, |n| n.get())
            .clamp(1, 8)
    })
}

/// A unit of helper work.
pub type Task = Box<dyn FnOnce() + Send + 'static>;

/// At most this many helper threads (the caller is one more worker).
const MAX_HELPERS: usize = 3;

struct Pool {
    tx: Mutex<Sender<Task>>,
    helpers: usize,
}

fn pool() -> Option<&'static Pool> {
    static POOL: OnceLock<Option<Pool>> = OnceLock::new();
    POOL.get_or_init(|| {
        let helpers = threads().saturating_sub(1).min(MAX_HELPERS);
        if helpers == 0 {
            return None;
        }
        let (tx, rx) = channel::<Task>();
        let rx = Arc::new(Mutex::new(rx));
        let mut started = 0;
        for i in 0..helpers {
            let rx = Arc::clone(&rx);
            let spawned = std::thread::Builder::new()
                .name(format!("clarvis-helper-{i}"))
                .spawn(move || serve(&rx));
            if spawned.is_ok() {
                started += 1;
            }
        }
        (started > 0).then(|| Pool {
            tx: Mutex::new(tx),
            helpers: started,
        })
    })
    .as_ref()
}

/// Runs tasks until the process ends. A panicking task is contained: the thread lives on.
fn serve(rx: &Mutex<Receiver<Task>>) {
    loop {
        let task = rx.lock().unwrap_or_else(PoisonError::into_inner).recv();
        match task {
            Ok(task) => {
                let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(task));
            }
            Err(_) => return,
        }
    }
}

/// How many helper threads there are (0 on a single core).
pub fn helpers() -> usize {
    pool().map_or(0, |p| p.helpers)
}

/// Queues `task` for a helper; false (the task dropped) when there are none.
pub fn submit(task: Task) -> bool {
    let Some(pool) = pool() else {
        return false;
    };
    let tx = pool.tx.lock().unwrap_or_else(PoisonError::into_inner);
    tx.send(task).is_ok()
}

/// A result at least this long comes from a call large enough to be worth
/// [`release_freed_memory`] (a walk or a candidate list of many thousand files behind it):
/// trimming after every call made the next small one fault its memory in again (a
/// rare-literal grep on 33k files: 3.8 → 21 ms).
const LARGE_RESULT: usize = 1 << 20;

/// After a call whose result is `result_len` bytes long: when that is large, gives the
/// memory the call freed back to the system, on a helper (at most one queued). glibc keeps
/// what a thread frees in that thread's arena: after a few searches of a 234k-file tree
/// (scoped threads, candidate lists of 200k paths, multi-MB results) the host's RSS stayed
/// ~90 MB higher though nearly all of it was free (with two arenas it did not grow at all).
/// `malloc_trim` returns the free pages of every arena. Elsewhere (other C libraries, other
/// systems) this does nothing.
pub fn release_freed_memory(result_len: usize) {
    if result_len >= LARGE_RESULT {
        trim_soon();
    }
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn trim_soon() {
    use std::sync::atomic::{AtomicBool, Ordering};
    static QUEUED: AtomicBool = AtomicBool::new(false);
    if QUEUED.swap(true, Ordering::AcqRel) {
        return;
    }
    let queued = submit(Box::new(|| {
        QUEUED.store(false, Ordering::Release);
        // SAFETY: malloc_trim only returns free memory to the system.
        unsafe { libc::malloc_trim(0) };
    }));
    if !queued {
        QUEUED.store(false, Ordering::Release);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn trim_soon() {}
