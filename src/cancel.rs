//! Cancellation: one token per call, fired by the caller's `AbortSignal`.
//!
//! Blocking tools poll [`Cancel::is_cancelled`] between units of work (a file walked, a
//! file searched, before a commit); async tools await [`Cancel::cancelled`] beside the work.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use tokio::sync::Notify;

#[derive(Debug, Default)]
struct Inner {
    fired: AtomicBool,
    notify: Notify,
}

/// A cheap, cloneable cancellation flag shared between the caller and a running call.
#[derive(Debug, Clone, Default)]
pub struct Cancel {
    inner: Arc<Inner>,
}

impl Cancel {
    /// A token that has not fired.
    pub fn new() -> Cancel {
        Cancel::default()
    }

    /// Fires the token. Idempotent.
    pub fn cancel(&self) {
        if !self.inner.fired.swap(true, Ordering::SeqCst) {
            self.inner.notify.notify_waiters();
        }
    }

    /// Whether the token has fired.
    pub fn is_cancelled(&self) -> bool {
        self.inner.fired.load(Ordering::SeqCst)
    }

    /// Resolves once the token fires (immediately if it already has).
    pub async fn cancelled(&self) {
        loop {
            let notified = self.inner.notify.notified();
            tokio::pin!(notified);
            // Register before re-checking the flag, so a `cancel` in between is not missed.
            notified.as_mut().enable();
            if self.is_cancelled() {
                return;
            }
            notified.await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn cancelled_resolves_after_cancel() {
        let c = Cancel::new();
        let c2 = c.clone();
        let waiter = tokio::spawn(async move { c2.cancelled().await });
        tokio::task::yield_now().await;
        c.cancel();
        waiter.await.unwrap();
        assert!(c.is_cancelled());
        c.cancelled().await;
    }
}
