//! A per-thread backtracking budget — the one change this vendored copy makes (VENDORED.md).
//!
//! ECMAScript regexes backtrack, and a pattern like `(a+)+$` takes exponential time on a long
//! run of `a`s; upstream has no way to stop a match. [`run`] gives the matches made inside it
//! a number of backtracking steps and a stop predicate (asked every 4,096 steps). Once either
//! ends the search, every attempt fails at once — the search reports no (further) match — and
//! [`run`] returns `false` in place of its "completed" flag, so the caller can report the
//! pattern as too complex (or the call as cancelled) instead of a wrong answer.

use core::cell::Cell;

std::thread_local! {
    static LEFT: Cell<u64> = const { Cell::new(u64::MAX) };
    static OVER: Cell<bool> = const { Cell::new(false) };
    static STOP: Cell<Option<*const (dyn Fn() -> bool + 'static)>> = const { Cell::new(None) };
}

/// How often (in steps) the stop predicate is asked.
const STOP_EVERY: u64 = 4096;

/// Runs `f` with `steps` backtracking steps for the matches it makes on this thread, asking
/// `stop` every 4,096 steps. Returns `f`'s value and whether the budget held (`false`: a
/// search inside `f` was cut short, so its results are incomplete). Nested calls are not
/// supported (the inner one replaces the budget until it returns).
pub fn run<T>(steps: u64, stop: &dyn Fn() -> bool, f: impl FnOnce() -> T) -> (T, bool) {
    // SAFETY: the pointer is only dereferenced while `stop` is borrowed by this frame: it is
    // cleared below before `run` returns, and on unwind by the guard.
    let stop_ptr: *const (dyn Fn() -> bool + '_) = stop;
    let stop_ptr: *const (dyn Fn() -> bool + 'static) = unsafe { core::mem::transmute(stop_ptr) };
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            LEFT.with(|l| l.set(u64::MAX));
            STOP.with(|s| s.set(None));
        }
    }
    let _reset = Reset;
    LEFT.with(|l| l.set(steps));
    OVER.with(|o| o.set(false));
    STOP.with(|s| s.set(Some(stop_ptr)));
    let out = f();
    let held = !OVER.with(|o| o.get());
    (out, held)
}

/// Whether the current budget is spent (every attempt must fail at once).
#[inline]
pub(crate) fn spent() -> bool {
    OVER.with(|o| o.get())
}

/// Takes one step; `false` once the budget is spent or the stop predicate said so.
#[inline]
pub(crate) fn step() -> bool {
    LEFT.with(|l| {
        let left = l.get();
        if left == u64::MAX {
            return true; // No budget set: upstream behaviour.
        }
        if left == 0 {
            OVER.with(|o| o.set(true));
            return false;
        }
        l.set(left - 1);
        if left % STOP_EVERY == 0 {
            if let Some(stop) = STOP.with(|s| s.get()) {
                // SAFETY: set by `run`, which is still on the stack (see there).
                if unsafe { (*stop)() } {
                    l.set(0);
                    OVER.with(|o| o.set(true));
                    return false;
                }
            }
        }
        true
    })
}
