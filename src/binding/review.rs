//! The host's review calls (`tools.pending()`, `accept`, `reject`; SPEC §13), as JSON: the
//! value, or `{"error": envelope}` for the JS side to throw as a `ToolError`.

use super::library::blocking;
use super::NativeTools;
use napi_derive::napi;
use std::sync::Arc;

#[napi]
impl NativeTools {
    /// `[{ path, kind, from?, diff? }]`: the pending changes, diffs redacted as the model's.
    #[napi]
    pub async fn review_pending(&self) -> String {
        let rt = Arc::clone(&self.runtime);
        blocking(move || {
            let scope = crate::redact::Scope::new(rt.redactor.as_ref());
            Ok(crate::review::pending_json(rt.review_staging()?, &scope))
        })
        .await
    }

    /// Applies the chosen pending changes: `{ accepted, conflicts }`.
    #[napi]
    pub async fn review_accept(&self, paths: Option<Vec<String>>, force: bool) -> String {
        let rt = Arc::clone(&self.runtime);
        blocking(move || {
            crate::review::accept(
                &rt.config,
                rt.review_staging()?,
                &rt.checkpoints,
                paths.as_deref(),
                force,
            )
        })
        .await
    }

    /// Drops the chosen pending changes: `{ rejected }`.
    #[napi]
    pub async fn review_reject(&self, paths: Option<Vec<String>>) -> String {
        let rt = Arc::clone(&self.runtime);
        blocking(move || crate::review::reject(&rt.config, rt.review_staging()?, paths.as_deref()))
            .await
    }

    /// Whether a stateless `bash` call is captured into the staging area (review mode on, its
    /// commands not `"direct"`, the sandbox able to capture): the guard context's `staged`.
    #[napi]
    pub fn review_captures_commands(&self) -> bool {
        let rt = &self.runtime;
        rt.staging.is_some()
            && rt
                .config
                .review
                .as_ref()
                .is_some_and(|r| r.commands != crate::config::review::Commands::Direct)
            && crate::review::commands::unavailable(rt.sandbox.as_deref()).is_none()
    }
}
