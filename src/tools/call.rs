//! What a handler receives and returns: the [`Call`] (arguments, configuration, cancellation,
//! warnings) and its [`Output`] (text, or content parts, plus meta).

use crate::cancel::Cancel;
use crate::config::Config;
use crate::error::{ToolError, ToolResult};
use crate::runtime::Runtime;
use crate::warnings::Warnings;
use serde_json::{Map, Value};
use std::sync::Arc;

/// Everything a handler receives: validated arguments (defaults filled), the configuration
/// and the services of the tools object, the cancellation token and the warning collector.
#[derive(Debug, Clone)]
pub struct Call {
    /// Arguments after validation, with schema defaults filled in.
    pub args: Map<String, Value>,
    /// The frozen configuration: `runtime.config`, at hand because nearly every handler
    /// reads it.
    pub config: Arc<Config>,
    /// The tools object's services (checkpoints, the search index, …).
    pub runtime: Arc<Runtime>,
    /// Fires when the caller aborts.
    pub cancel: Cancel,
    /// Warnings for the warn sink.
    pub warnings: Warnings,
    /// Where a running command's output goes live (`callTool`'s `onOutput`), if anywhere.
    pub on_output: Option<crate::process::live::OutputSink>,
    /// The call's redaction (`redactSecrets`): a tool that shows a slice of a text hands the
    /// text to it ([`crate::redact::Scope::learn`]), so secrets are judged on their source.
    pub redaction: crate::redact::Scope,
}

/// One part of a result's content, as the original's `ContentPart`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    /// `{ type: "text", text }`.
    Text(String),
    /// `{ type: "image", data, mimeType }`; `data` is base64. Never bounded by dispatch.
    Image {
        /// The image bytes, base64-encoded.
        data: String,
        /// `image/png`, `image/jpeg`, …
        mime_type: String,
    },
}

/// What a handler returns on success: content parts, plus `meta` for clients (never shown
/// to the model), present only when the tool set it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Output {
    /// The parts, in order.
    pub content: Vec<Part>,
    /// Client-side data such as `diff`; `None` unless a tool set a key.
    pub meta: Option<Map<String, Value>>,
}

impl Output {
    /// One text part.
    pub fn text(s: impl Into<String>) -> Output {
        Output {
            content: vec![Part::Text(s.into())],
            meta: None,
        }
    }

    /// One image part.
    pub fn image(data: String, mime_type: &str) -> Output {
        Output {
            content: vec![Part::Image {
                data,
                mime_type: mime_type.to_string(),
            }],
            meta: None,
        }
    }

    /// Sets `meta[key] = value`.
    pub fn with_meta(mut self, key: &str, value: Value) -> Output {
        self.meta
            .get_or_insert_with(Map::new)
            .insert(key.to_string(), value);
        self
    }

    /// The text parts joined (an image part counts as ""), as `contentText` does.
    pub fn joined_text(&self) -> String {
        let mut out = String::new();
        for p in &self.content {
            if let Part::Text(t) = p {
                out.push_str(t);
            }
        }
        out
    }
}

impl From<String> for Output {
    fn from(s: String) -> Output {
        Output::text(s)
    }
}

impl From<&str> for Output {
    fn from(s: &str) -> Output {
        Output::text(s)
    }
}

impl Call {
    /// A call of `args` on `runtime`'s tools object, with fresh warnings, no live output and
    /// its own redaction scope (nothing learned yet).
    pub fn new(args: Map<String, Value>, runtime: Arc<Runtime>, cancel: Cancel) -> Call {
        Call {
            args,
            config: Arc::clone(&runtime.config),
            redaction: crate::redact::Scope::new(runtime.redactor.as_ref()),
            runtime,
            cancel,
            warnings: Warnings::default(),
            on_output: None,
        }
    }

    /// Checkpoint hook, before a mutation commits (under its path locks): records the prior
    /// state of `paths` for every live checkpoint. Free when no checkpoint is live.
    pub fn before_write(&self, paths: &[std::path::PathBuf]) {
        for line in self.runtime.checkpoints.before(&self.config, paths, None) {
            self.warnings.push(line);
        }
    }

    /// [`Call::before_write`] for a move from `from` to `to` (so `changes` can say where the
    /// destination came from).
    pub fn before_move(&self, from: &std::path::Path, to: &std::path::Path) {
        let paths = [from.to_path_buf(), to.to_path_buf()];
        for line in self
            .runtime
            .checkpoints
            .before(&self.config, &paths, Some((from, to)))
        {
            self.warnings.push(line);
        }
    }

    /// Checkpoint hook, after a mutation committed: what the tools left at `paths`. With
    /// `staleWrites: "refuse"`, what is there now is also this tools object's own last write
    /// of each path (a later overwrite of it is not stale).
    pub fn after_write(&self, paths: &[std::path::PathBuf]) {
        self.runtime.checkpoints.after(paths);
        if self.config.refuse_stale_writes {
            for p in paths {
                self.runtime.seen.wrote(p);
            }
        }
    }

    /// With `staleWrites: "refuse"`: a read showed lines `from..=to` of the `total` lines of
    /// `abs`, whose bytes are `bytes` (see [`crate::stale`]). Free otherwise.
    pub fn shown(&self, abs: &std::path::Path, bytes: &[u8], from: u64, to: u64, total: u64) {
        if self.config.refuse_stale_writes {
            self.shown_hash(abs, crate::stale::hash(bytes), from, to, total);
        }
    }

    /// [`Call::shown`] with the bytes' hash already taken.
    pub fn shown_hash(
        &self,
        abs: &std::path::Path,
        hash: crate::stale::Hash,
        from: u64,
        to: u64,
        total: u64,
    ) {
        if self.config.refuse_stale_writes {
            self.runtime.seen.read(abs, hash, from, to, total);
        }
    }

    /// With `staleWrites: "refuse"`: refuses to overwrite or delete the whole of `abs` (shown
    /// to the model as `shown`, given as `input`) unless its bytes are what this tools object
    /// last showed the model whole. `stale_write`, with `path` in the envelope and
    /// `meta.staleWrite` = `{ path, reason }` for the host.
    pub fn refuse_stale(&self, abs: &std::path::Path, shown: &str, input: &str) -> ToolResult<()> {
        if !self.config.refuse_stale_writes {
            return Ok(());
        }
        let Err(why) = self.runtime.seen.check(abs) else {
            return Ok(());
        };
        let message = match why {
            crate::stale::Stale::NotRead => format!(
                "{shown} has not been read in full yet: read it with read_file (every line) before replacing or deleting it, or change part of it with edit_file."
            ),
            crate::stale::Stale::Changed => format!(
                "{shown} has changed since you last read it (someone else edited it): read it again with read_file before replacing or deleting it, so those changes are not lost."
            ),
        };
        Err(stale_error(why, message, shown, input))
    }

    /// With `staleWrites: "refuse"`: refuses to replace lines `lines` of `abs` (the
    /// definition `what`, by `replace_symbol`) unless the model was shown those lines as they
    /// are now. The same `stale_write` as [`Call::refuse_stale`].
    pub fn refuse_stale_lines(
        &self,
        abs: &std::path::Path,
        shown: &str,
        input: &str,
        lines: (u64, u64),
        what: &str,
    ) -> ToolResult<()> {
        if !self.config.refuse_stale_writes {
            return Ok(());
        }
        let Err(why) = self.runtime.seen.check_lines(abs, lines.0, lines.1) else {
            return Ok(());
        };
        let (a, b) = lines;
        let message = match why {
            crate::stale::Stale::NotRead => format!(
                "{what} ({shown}:{a}-{b}) has not been read yet: read those lines with read_file before replacing the definition, so nothing in it you have not seen is lost."
            ),
            crate::stale::Stale::Changed => format!(
                "{shown} has changed since you last read it (someone else edited it): read {what} (lines {a}-{b}) again with read_file before replacing it, so those changes are not lost."
            ),
        };
        Err(stale_error(why, message, shown, input))
    }

    /// Before a `bash` command, with `checkpointBash` and a live checkpoint: the workspace's
    /// files and their stored contents (see `checkpoint::bash`). Off the async workers.
    pub async fn bash_checkpoint_before(&self) -> Option<crate::checkpoint::BashBefore> {
        if !self.config.checkpoint_bash {
            return None;
        }
        let runtime = Arc::clone(&self.runtime);
        tokio::task::spawn_blocking(move || runtime.checkpoints.bash_before(&runtime.config))
            .await
            .ok()
            .flatten()
    }

    /// After a `bash` command: records what it created, deleted or changed.
    pub async fn bash_checkpoint_after(&self, before: Option<crate::checkpoint::BashBefore>) {
        let Some(before) = before else { return };
        let runtime = Arc::clone(&self.runtime);
        let lines = tokio::task::spawn_blocking(move || {
            runtime.checkpoints.bash_after(&runtime.config, before)
        })
        .await
        .unwrap_or_default();
        for line in lines {
            self.warnings.push(line);
        }
    }
}

/// The `stale_write` error: `path` in the envelope, `meta.staleWrite` = `{ path, reason }`.
fn stale_error(why: crate::stale::Stale, message: String, shown: &str, input: &str) -> ToolError {
    ToolError::new(crate::error::Code::StaleWrite, message)
        .with("path", input)
        .with_meta(
            "staleWrite",
            serde_json::json!({ "path": shown, "reason": why.as_str() }),
        )
}
