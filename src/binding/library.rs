//! The host-facing library calls of a tools object beside `callTool`: checkpoints, the
//! search index's status, `outlineOf` / `checkSyntax`. Each result crosses as JSON — the value,
//! or `{"error": envelope}` for the JS side to throw as a `ToolError`.

use super::NativeTools;
use napi_derive::napi;

/// Runs a library call on the blocking pool (it reads files); a panic there becomes an
/// `internal` envelope.
pub(super) async fn blocking<F>(f: F) -> String
where
    F: FnOnce() -> crate::error::ToolResult<serde_json::Value> + Send + 'static,
{
    tokio::task::spawn_blocking(move || envelope_or(f()))
        .await
        .unwrap_or_else(|e| {
            envelope_or(Err(crate::error::ToolError::new(
                crate::error::Code::Internal,
                e.to_string(),
            )))
        })
}

/// A library call's result crossing as JSON: the value, or `{"error": envelope}` for the JS
/// side to throw as a `ToolError`.
fn envelope_or(r: crate::error::ToolResult<serde_json::Value>) -> String {
    match r {
        Ok(v) => v.to_string(),
        Err(e) => serde_json::json!({ "error": e.envelope() }).to_string(),
    }
}

#[napi]
impl NativeTools {
    /// Takes a checkpoint; returns `{"id"}` or `{"error"}` as JSON.
    #[napi]
    pub fn checkpoint(&self, label: Option<String>) -> String {
        envelope_or(
            self.runtime
                .checkpoints
                .checkpoint(label)
                .map(|id| serde_json::json!({ "id": id })),
        )
    }

    /// `describeCall(name, args)`: the call's title for a UI (`args` as JSON; not JSON or
    /// not an object reads as no arguments).
    #[napi]
    pub fn describe_call(&self, name: String, args_json: String) -> String {
        let args = serde_json::from_str(&args_json).unwrap_or(serde_json::Value::Null);
        crate::tools::title::describe_call(&self.runtime, &name, &args)
    }

    /// A custom tool's own title (from its JS `title(args)`), made safe like the built-ins':
    /// redacted, on one line, at most 80 characters.
    #[napi]
    pub fn finish_title(&self, raw: String) -> String {
        crate::tools::title::finish(&raw, self.runtime.redactor.as_ref())
    }

    /// What a guard is told about monitor `id` (`monitor_write`), as JSON (`null` when there
    /// is no such monitor).
    #[napi]
    pub fn monitor_json(&self, id: String) -> String {
        crate::process::monitor::facts(&self.runtime.config.workspace_root, &id)
            .unwrap_or_default()
            .to_string()
    }

    /// `endShellSessions()`: ends every `bash` session of this tools object — a running
    /// command with it — and resolves with how many there were, once their processes are gone.
    #[napi(ts_return_type = "Promise<number>")]
    pub fn end_shell_sessions<'env>(
        &self,
        env: &'env napi::Env,
    ) -> napi::Result<napi::bindgen_prelude::PromiseRaw<'env, u32>> {
        let runtime = std::sync::Arc::clone(&self.runtime);
        env.spawn_future(async move {
            #[cfg(unix)]
            let n = runtime.sessions.end_all().await;
            #[cfg(not(unix))]
            let n = {
                let _ = runtime;
                0
            };
            Ok(u32::try_from(n).unwrap_or(u32::MAX))
        })
    }

    /// The working directory of `bash` session `name` (absolute), or `null` when no such
    /// session is live: the base of a session call's paths in the guard context.
    #[napi]
    pub fn session_cwd(&self, name: String) -> Option<String> {
        #[cfg(unix)]
        return self
            .runtime
            .sessions
            .cwd(&name)
            .map(|p| p.to_string_lossy().into_owned());
        #[cfg(not(unix))]
        {
            let _ = name;
            None
        }
    }

    /// The search index's state as JSON (`searchIndexStatus()`).
    #[napi]
    pub fn search_index_status(&self) -> String {
        let mut status = self.runtime.index.status();
        status["symbols"] = self.runtime.symbols.status();
        status.to_string()
    }

    /// What this tools object's sandbox enforces, as JSON (`sandboxStatus()`); `null` when
    /// the sandbox is off.
    #[napi]
    pub fn sandbox_status(&self) -> String {
        match &self.runtime.sandbox {
            Some(s) => s.status().to_json().to_string(),
            None => "null".into(),
        }
    }

    /// The live checkpoints as JSON.
    #[napi]
    pub fn checkpoints_json(&self) -> String {
        crate::checkpoint::api::list_json(&self.runtime.checkpoints).to_string()
    }

    /// The paths checkpoint `id` would restore (display form), as a JSON array: the guard's
    /// path facts for `undo` (`id` = the last call's) and `checkpoint_restore`.
    #[napi]
    pub fn checkpoint_paths_json(&self, id: Option<String>) -> String {
        let id = id.as_deref().unwrap_or(crate::checkpoint::LAST_CALL);
        let paths: Vec<String> = self
            .runtime
            .checkpoints
            .paths(id)
            .iter()
            .map(|p| crate::workspace::display(&self.runtime.config, p))
            .collect();
        serde_json::Value::from(paths).to_string()
    }

    /// Drops a checkpoint; `{"dropped": true}` or `{"error"}` as JSON.
    #[napi]
    pub fn drop_checkpoint(&self, id: String) -> String {
        envelope_or(
            self.runtime
                .checkpoints
                .drop_checkpoint(&id)
                .map(|()| serde_json::json!({ "dropped": true })),
        )
    }

    /// What changed since a checkpoint, as JSON (on the blocking pool: it reads files).
    #[napi]
    pub async fn changes(&self, id: String) -> String {
        let rt = std::sync::Arc::clone(&self.runtime);
        // The host's own call: shown to the host, not masked (the MCP server and the adapters
        // hand the model the `checkpoint_changes` tool, which dispatch masks).
        blocking(move || {
            crate::checkpoint::api::changes_json(&rt.checkpoints, &rt.config, &id, &|_| {})
        })
        .await
    }

    /// `outlineOf(path)`: the structured outline of one file as JSON, or `{"error"}`.
    #[napi]
    pub async fn outline_of(&self, path: String) -> String {
        self.syntax_call(path, crate::syntax::Purpose::Outline)
            .await
    }

    /// `checkSyntax(path)`: check_syntax's result object as JSON, or `{"error"}`.
    #[napi]
    pub async fn check_syntax(&self, path: String) -> String {
        self.syntax_call(path, crate::syntax::Purpose::Check).await
    }

    /// Restores a checkpoint, as JSON (on the blocking pool).
    #[napi]
    pub async fn restore(&self, id: String, paths: Option<Vec<String>>, force: bool) -> String {
        let rt = std::sync::Arc::clone(&self.runtime);
        blocking(move || {
            crate::checkpoint::api::host_restore_json(
                &rt.checkpoints,
                &rt.config,
                &id,
                paths.as_deref(),
                force,
            )
        })
        .await
    }
}

impl NativeTools {
    async fn syntax_call(&self, path: String, purpose: crate::syntax::Purpose) -> String {
        let config = std::sync::Arc::clone(&self.runtime.config);
        blocking(move || crate::syntax::library_call(&config, &path, purpose)).await
    }
}

#[napi]
impl NativeTools {
    /// `text` as it may go to the model (with `redactSecrets`, masked; else unchanged): for
    /// the texts the JS layer makes itself (a guard's denial, a thrown error's envelope).
    #[napi]
    pub fn redact_text(&self, text: String) -> String {
        crate::dispatch::redact_text(text, &self.runtime)
    }
}
