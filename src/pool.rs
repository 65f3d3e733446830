//! A few long-lived helper threads for a call's short parallel work (`read_files`).
//!
//! Scoped threads cost a spawn per call, and their join waits for every helper: on a busy
//! machine a helper descheduled in the middle of one file held the whole call for a
//! scheduler slice (read_files of 64 files: 1.5–4 ms for ~1.2 ms of work). Work handed to
//! this pool is therefore written so the caller never waits for a helper: the caller works
//! too, and does itself whatever the helpers have not finished when it runs out (see
//! `read_files`); a helper that comes late finds nothing left. Tasks must not block.

use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

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
        let helpers = crate::search::walk::threads()
            .saturating_sub(1)
            .min(MAX_HELPERS);
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
