//! The napi layer: converts JavaScript values to core types and back, nothing more.
//!
//! Arguments cross as one JSON string (made by `JSON.stringify` in `index.js`) and results
//! as one small object, so a call costs two string copies at the boundary regardless of
//! how many values it holds. The JS wrapper (`index.js`) owns everything JavaScript-shaped:
//! `StartupError`, the frozen config object, `AbortSignal` wiring and the warn sink.

use crate::cancel::Cancel;
use crate::config::{self, Config};
use crate::dispatch;
use crate::tools;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use std::collections::HashMap;
use std::sync::Arc;

/// A resolved configuration, held by JS for the lifetime of an `AgentTools`.
#[napi]
pub struct NativeTools {
    config: Arc<Config>,
    /// Warn-sink lines from opening the workspace (commit recovery), until taken.
    startup_warnings: std::sync::Mutex<Vec<String>>,
}

impl NativeTools {
    /// Wraps a resolved config, first rolling back commits a crash interrupted in its
    /// workspace (`patch::journal::recover`, which never fails).
    fn open(config: Config) -> NativeTools {
        let warnings = crate::patch::journal::recover(&config.workspace_root);
        NativeTools {
            config: Arc::new(config),
            startup_warnings: std::sync::Mutex::new(warnings),
        }
    }
}

/// The result of one call, plus the lines to send to the warn sink.
#[napi(object)]
pub struct NativeOutcome {
    /// Whether `text` is an error envelope.
    pub is_error: bool,
    /// The result text.
    pub text: String,
    /// Warn-sink lines, each ending in a newline.
    pub warnings: Vec<String>,
}

/// A cancellation token the JS wrapper fires from an `AbortSignal`.
#[napi]
pub struct CancelToken {
    inner: Cancel,
}

#[napi]
impl CancelToken {
    /// A token that has not fired.
    #[napi(constructor)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        CancelToken {
            inner: Cancel::new(),
        }
    }

    /// Fires the token.
    #[napi]
    pub fn cancel(&self) {
        self.inner.cancel();
    }
}

fn startup(e: config::StartupError) -> Error {
    Error::new(Status::InvalidArg, e.0)
}

#[napi]
impl NativeTools {
    /// Resolves `createAgentTools` options (as JSON, without functions). `ripgrep` is the
    /// caller's probe result, or undefined to probe `rg --version`.
    #[napi(factory)]
    pub fn resolve(options_json: String, ripgrep: Option<bool>) -> Result<NativeTools> {
        let options: serde_json::Value = serde_json::from_str(&options_json)
            .map_err(|e| Error::new(Status::InvalidArg, e.to_string()))?;
        let config = config::resolve_config(&options, ripgrep).map_err(startup)?;
        Ok(NativeTools::open(config))
    }

    /// Builds a configuration from a command line and an environment.
    #[napi(factory)]
    pub fn build(
        argv: Vec<String>,
        env: HashMap<String, String>,
        ripgrep: Option<bool>,
    ) -> Result<NativeTools> {
        let config = config::build_config(&argv, &env, ripgrep).map_err(startup)?;
        Ok(NativeTools::open(config))
    }

    /// The warn-sink lines produced while opening the workspace (each ending in a newline);
    /// returns them once.
    #[napi]
    pub fn take_warnings(&self) -> Vec<String> {
        std::mem::take(
            &mut *self
                .startup_warnings
                .lock()
                .unwrap_or_else(|p| p.into_inner()),
        )
    }

    /// The public `ServerConfig` as JSON.
    #[napi]
    pub fn config_json(&self) -> String {
        self.config.to_json().to_string()
    }

    /// Runs one call. `args_json` is `JSON.stringify(args)`; `args_error` says why the
    /// arguments could not be stringified (a function, a cycle…).
    #[napi(ts_return_type = "Promise<NativeOutcome>")]
    pub fn dispatch<'env>(
        &self,
        env: &'env Env,
        name: String,
        args_json: Option<String>,
        args_error: Option<String>,
        cancel: Option<&CancelToken>,
    ) -> Result<PromiseRaw<'env, NativeOutcome>> {
        let config = self.config.clone();
        let cancel = cancel.map(|c| c.inner.clone()).unwrap_or_default();
        let args = match args_error {
            Some(why) => dispatch::Args::NotJson(why),
            None => dispatch::parse_args(args_json.as_deref()),
        };
        env.spawn_future(async move {
            let out = dispatch::dispatch(&name, args, config, cancel).await;
            Ok(NativeOutcome {
                is_error: out.is_error,
                text: out.text,
                warnings: out.warnings,
            })
        })
    }
}

/// `listTools()` for a surface, as JSON.
#[napi]
pub fn list_tools_json(read_only: bool) -> String {
    tools::list_tools_json(read_only).to_string()
}

/// Every tool's metadata (`name`, `description`, `inputSchema`, `annotations`, `bounded`,
/// `mutating`), as JSON, for the JS registry objects.
#[napi]
pub fn tool_defs_json() -> String {
    let defs: Vec<serde_json::Value> = tools::all()
        .iter()
        .map(|t| {
            serde_json::json!({
                "name": t.name,
                "mutating": t.mutating(),
                "bounded": t.bounded,
            })
        })
        .collect();
    serde_json::Value::Array(defs).to_string()
}

/// Removes bash spill files older than 24 hours from `<root>/.clarvis/`. Never fails.
#[napi]
pub async fn sweep_spill_dir(root: String) {
    crate::process::spill::sweep_spill_dir(std::path::Path::new(&root)).await;
}
