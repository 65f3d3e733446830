//! The napi layer: converts JavaScript values to core types and back, nothing more.
//!
//! Arguments cross as one JSON string (made by `JSON.stringify` in `index.js`) and results
//! as one small object, so a call costs two string copies at the boundary regardless of
//! how many values it holds. The JS wrapper (`index.js`) owns everything JavaScript-shaped:
//! `StartupError`, the frozen config object, `AbortSignal` wiring and the warn sink.

use crate::cancel::Cancel;
use crate::config;
use crate::dispatch;
use crate::runtime::Runtime;
use crate::tools;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use std::collections::HashMap;
use std::sync::Arc;

mod library;
mod review;
mod text;

use text::Text;

/// A tools object's runtime (its resolved configuration and services), held by JS for the
/// lifetime of an `AgentTools`.
#[napi]
pub struct NativeTools {
    runtime: Arc<Runtime>,
    /// Warn-sink lines from opening the workspace (commit recovery), until taken.
    startup_warnings: std::sync::Mutex<Vec<String>>,
}

impl NativeTools {
    /// Wraps an opened runtime, first rolling back commits a crash interrupted in its
    /// workspace (`atomic::journal::recover`, which never fails), then dropping from review
    /// mode's staging area the changes an accept applied before it was killed.
    fn open(runtime: Runtime) -> NativeTools {
        let warnings = crate::atomic::journal::recover(&runtime.config);
        if let Some(staging) = &runtime.staging {
            crate::review::settle(staging);
        }
        crate::checkpoint::sweep(&runtime.config);
        NativeTools {
            runtime: Arc::new(runtime),
            startup_warnings: std::sync::Mutex::new(warnings),
        }
    }
}

/// The result of one call, plus the lines to send to the warn sink.
#[napi(object)]
pub struct NativeOutcome {
    /// Whether `text` is an error envelope.
    pub is_error: bool,
    /// The text parts joined.
    pub text: String,
    /// The content parts as JSON (`[{type, text}|{type, data, mimeType}]`), absent when the
    /// content is exactly one text part equal to `text` (the JS side builds it then).
    pub parts_json: Option<String>,
    /// `meta` as JSON, absent unless a tool set it.
    pub meta_json: Option<String>,
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
    pub fn resolve(
        options_json: String,
        ripgrep: Option<bool>,
        tree_sitter: Option<bool>,
    ) -> Result<NativeTools> {
        let options: serde_json::Value = serde_json::from_str(&options_json)
            .map_err(|e| Error::new(Status::InvalidArg, e.to_string()))?;
        let probes = config::Probes {
            ripgrep,
            tree_sitter,
        };
        let runtime = dispatch::open(&options, probes).map_err(startup)?;
        Ok(NativeTools::open(runtime))
    }

    /// Builds a configuration from a command line and an environment.
    #[napi(factory)]
    pub fn build(
        argv: Vec<String>,
        env: HashMap<String, String>,
        ripgrep: Option<bool>,
        tree_sitter: Option<bool>,
    ) -> Result<NativeTools> {
        let probes = config::Probes {
            ripgrep,
            tree_sitter,
        };
        let runtime = dispatch::open_cli(&argv, &env, probes).map_err(startup)?;
        Ok(NativeTools::open(runtime))
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
        self.runtime.config.to_json().to_string()
    }

    /// Whether this configuration reproduces 0.1 (`compat: "0.1"`): results are then
    /// exactly `{ isError, text }`.
    #[napi]
    pub fn is_compat01(&self) -> bool {
        self.runtime.config.compat == config::Compat::V01
    }

    /// Dispatch steps 1–2 for a host's guard or tool: `{"ok":true,"args":{…}}` with the
    /// validated, default-filled arguments (plus `"custom":true` for a host's tool, whose
    /// handler the JS side runs), or `{"ok":false,"text":<envelope>}`.
    #[napi]
    pub fn validate(
        &self,
        name: String,
        args_json: Option<String>,
        args_error: Option<String>,
    ) -> String {
        let args = call_args(args_json, args_error);
        match dispatch::validate(&name, args, &self.runtime) {
            Ok((dispatch::Target::Builtin(_), args)) => {
                serde_json::json!({ "ok": true, "args": args }).to_string()
            }
            Ok((dispatch::Target::Custom(_), args)) => {
                serde_json::json!({ "ok": true, "args": args, "custom": true }).to_string()
            }
            Err(e) => serde_json::json!({
                "ok": false,
                "text": dispatch::error_envelope(&e, &self.runtime)
            })
            .to_string(),
        }
    }

    /// A guard path fact: `raw` made absolute against `base` (the workspace root when empty;
    /// with `shell`, `~` and `~/` expand to `$HOME`), and whether its real location is inside
    /// the workspace (computed even when confinement is off). JSON `{resolved, within}`.
    #[napi]
    pub fn path_fact(&self, raw: String, base: String, shell: bool) -> String {
        let (resolved, within) =
            crate::workspace::path_fact(&self.runtime.config, &raw, &base, shell);
        serde_json::json!({ "resolved": resolved, "within": within }).to_string()
    }

    /// `listTools()` for this configuration's surface, as JSON.
    #[napi]
    pub fn list_tools_json(&self) -> String {
        tools::list_tools_json(&self.runtime).to_string()
    }

    /// Runs one call. `args_json` is `JSON.stringify(args)`; `args_error` says why the
    /// arguments could not be stringified (a function, a cycle…). Resolves to the text
    /// alone for the common result — a success that is one text part, without meta or
    /// warnings — so that case crosses as one string and no object; otherwise to the whole
    /// outcome.
    #[napi(ts_return_type = "Promise<string | NativeOutcome>")]
    pub fn dispatch<'env>(
        &self,
        env: &'env Env,
        name: String,
        args_json: Option<String>,
        args_error: Option<String>,
        cancel: Option<&CancelToken>,
    ) -> Result<PromiseRaw<'env, Either<Text, NativeOutcome>>> {
        let runtime = Arc::clone(&self.runtime);
        let cancel = cancel.map(|c| c.inner.clone()).unwrap_or_default();
        let args = call_args(args_json, args_error);
        if dispatch::runs_inline(&name, &runtime.config) {
            let task = InlineCall {
                call: Some((name, args, runtime, cancel)),
            };
            return Ok(env.spawn(task)?.promise_object());
        }
        env.spawn_future(async move {
            Ok(crossing(
                dispatch::dispatch(&name, args, runtime, cancel).await,
            ))
        })
    }

    /// Steps 4–5 for a host's tool whose handler the JS side ran: `result_json` is
    /// `{"ok":{content,meta?}}`, `{"error":{code,message,fields?}}` or `{"internal":detail}`
    /// (see `dispatch::finish_custom`).
    #[napi]
    pub fn finish_custom(&self, name: String, result_json: String) -> Either<Text, NativeOutcome> {
        let result: serde_json::Value = serde_json::from_str(&result_json)
            .unwrap_or_else(|e| serde_json::json!({ "internal": e.to_string() }));
        crossing(dispatch::custom_outcome(&name, &result, &self.runtime))
    }
}

/// The host's live-output callback: `(stream, text)`, and `("end", "")` once after the
/// call's last chunk (the JS side resolves the call only after that, so no chunk arrives
/// after the result).
type LiveOutput = napi::threadsafe_function::ThreadsafeFunction<
    FnArgs<(String, String)>,
    Unknown<'static>,
    FnArgs<(String, String)>,
    Status,
    false,
>;

#[napi]
impl NativeTools {
    /// [`NativeTools::dispatch`] with live output: `on_output(stream, text)` is queued to the
    /// JS thread, never waited for, while a command runs.
    #[napi(ts_return_type = "Promise<string | NativeOutcome>")]
    pub fn dispatch_live<'env>(
        &self,
        env: &'env Env,
        name: String,
        args_json: Option<String>,
        args_error: Option<String>,
        cancel: Option<&CancelToken>,
        #[napi(ts_arg_type = "(stream: string, text: string) => void")] on_output: LiveOutput,
    ) -> Result<PromiseRaw<'env, Either<Text, NativeOutcome>>> {
        use napi::threadsafe_function::ThreadsafeFunctionCallMode::NonBlocking;
        let runtime = Arc::clone(&self.runtime);
        let cancel = cancel.map(|c| c.inner.clone()).unwrap_or_default();
        let args = call_args(args_json, args_error);
        let tsfn = std::sync::Arc::new(on_output);
        let feed = tsfn.clone();
        let sink = crate::process::live::OutputSink::new(move |stream, text| {
            // Non-blocking into an unbounded queue: what is queued is bounded by the capture.
            feed.call(
                FnArgs::from((stream.as_str().to_string(), text)),
                NonBlocking,
            );
        });
        env.spawn_future(async move {
            let out = dispatch::dispatch_live(&name, args, runtime, cancel, Some(sink)).await;
            tsfn.call(
                FnArgs::from(("end".to_string(), String::new())),
                NonBlocking,
            );
            Ok(crossing(out))
        })
    }
}

/// A call's arguments: `JSON.stringify(args)`, or why they could not be stringified.
fn call_args(args_json: Option<String>, args_error: Option<String>) -> dispatch::Args {
    match args_error {
        Some(why) => dispatch::Args::NotJson(why),
        None => dispatch::parse_args(args_json.as_deref()),
    }
}

/// The value a call resolves to in JavaScript: the text alone for a plain success (one
/// text part, no meta, no warnings), the whole outcome otherwise — with no string longer
/// than V8 can hold ([`dispatch::crossing`]).
fn crossing(out: dispatch::Outcome) -> Either<Text, NativeOutcome> {
    if !out.is_error
        && out.parts.is_none()
        && out.meta.is_none()
        && out.warnings.is_empty()
        && out.text.len() <= crate::config::JS_MAX_STRING
    {
        return Either::A(Text::new(out.text));
    }
    let c = dispatch::crossing(out, crate::config::JS_MAX_STRING);
    Either::B(NativeOutcome {
        is_error: c.is_error,
        parts_json: c.parts_json,
        meta_json: c.meta_json,
        text: c.text,
        warnings: c.warnings,
    })
}

/// A call of a short blocking tool ([`dispatch::runs_inline`]) queued on libuv's thread
/// pool: the whole pipeline runs on that thread and the result goes straight back to the
/// main thread — one hop each way instead of main → runtime task → blocking pool → runtime
/// task → main, whose context switches were a fifth of a 2,000-line read_file's cost.
pub struct InlineCall {
    call: Option<(String, dispatch::Args, Arc<Runtime>, Cancel)>,
}

impl Task for InlineCall {
    type Output = Either<Text, NativeOutcome>;
    type JsValue = Either<Text, NativeOutcome>;

    fn compute(&mut self) -> Result<Self::Output> {
        let (name, args, runtime, cancel) = self
            .call
            .take()
            .ok_or_else(|| Error::new(Status::GenericFailure, "call already run"))?;
        Ok(crossing(dispatch::dispatch_inline(
            &name, args, runtime, cancel,
        )))
    }

    fn resolve(&mut self, _env: Env, output: Self::Output) -> Result<Self::JsValue> {
        Ok(output)
    }
}

/// `listTools()` of the latest full surface (every tool, tree-sitter on), for the exported
/// `tools` registry, which exists before any workspace is opened.
#[napi]
pub fn all_tools_json() -> String {
    tools::list_tools_json(&Runtime::new(config::Config::with_root("/"))).to_string()
}

/// Every tool's metadata for the JS registry objects, in registry order: `name`,
/// `mutating`, `bounded`, `syntax`, whether 0.1 had it (`v01`), and whether a call of it
/// stages nothing in review mode (`unstaged`, the guard's `staged` fact).
#[napi]
pub fn tool_defs_json() -> String {
    let defs: Vec<serde_json::Value> = tools::all()
        .iter()
        .map(|t| {
            serde_json::json!({
                "name": t.name,
                "mutating": t.mutating(),
                "bounded": t.bounded,
                "syntax": t.syntax,
                "v01": tools::V01_TOOLS.contains(&t.name),
                "unstaged": t.unstaged,
            })
        })
        .collect();
    serde_json::Value::Array(defs).to_string()
}

/// The file names `apply_patch` would touch for `patch`, as its parser reads them (both
/// names of every block: old and new), as a JSON array; `null` when the patch does not
/// parse (the call then changes nothing). The guard's path facts for `apply_patch`.
#[napi]
pub fn patch_paths_json(patch: String) -> String {
    match crate::patch::parse_patch(&patch) {
        Ok(blocks) => {
            let mut names: Vec<String> = Vec::new();
            for b in &blocks {
                for n in [&b.old_path, &b.new_path].into_iter().flatten() {
                    if !names.contains(n) {
                        names.push(n.clone());
                    }
                }
            }
            serde_json::Value::from(names).to_string()
        }
        Err(_) => "null".into(),
    }
}

/// Deletes the files of every monitor of `<root>` that is not running. Never fails.
#[napi]
pub async fn sweep_monitors(root: String) {
    let _ = tokio::task::spawn_blocking(move || {
        crate::process::monitor::sweep(std::path::Path::new(&root))
    })
    .await;
}

/// Removes bash spill files older than 24 hours from `<root>/.clarvis/`. Never fails.
#[napi]
pub async fn sweep_spill_dir(root: String) {
    crate::process::spill::sweep_spill_dir(std::path::Path::new(&root)).await;
}

/// What this machine's kernel can enforce for the default sandbox policy, as JSON
/// (`probeSandbox()`).
#[napi]
pub fn probe_sandbox() -> String {
    crate::sandbox::probe().to_json().to_string()
}
