//! The five-step pipeline every call runs: look up → validate → run → bound → serialize.
//!
//! The outcome is always `{ is_error, content, text, meta }`; nothing a tool does (an
//! error, a panic, an abort) escapes as anything else. Internal failures are reported to the
//! warn sink through [`Outcome::warnings`].

use crate::cancel::Cancel;
use crate::config::{Compat, Config};
use crate::custom::CustomTool;
use crate::error::{Code, ToolError};
use crate::output;
use crate::process::live::{OutputSink, Stream};
use crate::redact::Scope;
use crate::runtime::Runtime;
use crate::schema;
use crate::tools::{self, Call, Handler, Output, Part};
use crate::warnings::Warnings;
use serde_json::{Map, Value};
use std::sync::Arc;

mod crossing;
mod custom;
mod open;
mod staged;

pub use crossing::{crossing, Crossing};
pub use custom::{custom_outcome, finish_custom};
pub use open::{open, open_cli};
use staged::tell_staged;
pub use staged::STAGED_CLAUSE;

/// What a call resolves to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// Whether `text` is an error envelope.
    pub is_error: bool,
    /// The text parts joined: plain text on success, the JSON envelope on failure.
    pub text: String,
    /// The content parts, or `None` for the common case of exactly one text part equal to
    /// `text` (so a large result is never held twice). See [`Outcome::content`].
    pub parts: Option<Vec<Part>>,
    /// Client-side data a tool set (`diff`, …); never shown to the model.
    pub meta: Option<Map<String, Value>>,
    /// Lines for the warn sink (each ends with `\n`).
    pub warnings: Vec<String>,
}

impl Outcome {
    fn error(err: &ToolError, warnings: Vec<String>) -> Outcome {
        Outcome {
            is_error: true,
            text: err.envelope(),
            parts: None,
            meta: err.meta.as_deref().filter(|m| !m.is_empty()).cloned(),
            warnings,
        }
    }

    /// A success: each text part redacted (with `redactSecrets`: `scope` knows the sources
    /// the call showed slices of), then bounded to `max` bytes unless the tool bounds itself.
    /// Redacting first means a cut never leaves half a secret.
    fn success(
        out: Output,
        bounded: bool,
        runtime: &Runtime,
        warnings: Vec<String>,
        scope: &Scope,
    ) -> Outcome {
        let max = runtime.config.max_output_bytes;
        let bound = |t: String| {
            let t = scope.text(t);
            if bounded {
                t
            } else {
                output::bound(t, max)
            }
        };
        let mut meta = out.meta.filter(|m| !m.is_empty());
        if let Some(m) = meta.as_mut().filter(|_| scope.is_on()) {
            m.values_mut().for_each(|v| scope.value(v));
        }
        let mut content = out.content;
        if content.len() == 1 {
            if let Some(Part::Text(t)) = content.pop_if(|p| matches!(p, Part::Text(_))) {
                return Outcome {
                    is_error: false,
                    text: bound(t),
                    parts: None,
                    meta,
                    warnings,
                };
            }
        }
        let content: Vec<Part> = content
            .into_iter()
            .map(|p| match p {
                Part::Text(t) => Part::Text(bound(t)),
                image => image,
            })
            .collect();
        let text = content
            .iter()
            .filter_map(|p| match p {
                Part::Text(t) => Some(t.as_str()),
                Part::Image { .. } => None,
            })
            .collect();
        Outcome {
            is_error: false,
            text,
            parts: Some(content),
            meta,
            warnings,
        }
    }

    /// The content parts: `[Text(text)]` unless the tool returned other parts.
    pub fn content(&self) -> Vec<Part> {
        match &self.parts {
            Some(p) => p.clone(),
            None => vec![Part::Text(self.text.clone())],
        }
    }
}

/// The arguments of a call as they arrived from the caller.
#[derive(Debug, Clone)]
pub enum Args {
    /// A JSON value (an absent argument object is `{}`).
    Json(Value),
    /// The caller's value could not be represented as JSON (a function, a cycle…).
    NotJson(String),
}

/// The tool a call names: one of ours, or one of the host's (`customTools`), whose handler
/// runs in JavaScript.
#[derive(Clone, Copy)]
pub enum Target<'c> {
    /// A tool of the registry.
    Builtin(&'static tools::ToolDef),
    /// A host's tool.
    Custom(&'c CustomTool),
}

/// Steps 1 and 2 of the pipeline: the tool in the active surface (`not_found` otherwise) and
/// a validated copy of the arguments with defaults filled (and, in the latest mode, scalars
/// coerced). What a host's guard sees.
pub fn validate<'r>(
    name: &str,
    args: Args,
    runtime: &'r Runtime,
) -> Result<(Target<'r>, Map<String, Value>), ToolError> {
    let config = &*runtime.config;
    let target = match tools::get_tool(name, config) {
        Some(def) => Target::Builtin(def),
        None => match tools::get_custom(name, runtime) {
            Some(custom) => Target::Custom(custom),
            None => {
                return Err(ToolError::new(
                    Code::NotFound,
                    format!("Unknown tool: {name}"),
                ))
            }
        },
    };
    let mut value = match args {
        Args::Json(v) => v,
        Args::NotJson(why) => return Err(ToolError::invalid(why)),
    };
    let schema = match target {
        Target::Builtin(def) => tools::schema_of(def, config.compat),
        Target::Custom(custom) => &custom.input_schema,
    };
    let failures = schema::validate_with(schema, &mut value, config.compat == Compat::Latest);
    if !failures.is_empty() {
        let err = ToolError::invalid(schema::message(&failures));
        // 0.1's envelope is exactly `{error, message}`; the structured issues are a 0.5+ field.
        return Err(match config.compat {
            Compat::V01 => err,
            Compat::Latest => err.with("issues", schema::issues(&failures)),
        });
    }
    match value {
        Value::Object(args) => {
            // A mutation must not write a redaction placeholder back over the secret it hides.
            let mutating = match target {
                Target::Builtin(def) => def.mutating(),
                Target::Custom(custom) => !custom.read_only,
            };
            if runtime.redactor.is_some() && mutating {
                crate::redact::refuse_placeholders(&args)?;
            }
            Ok((target, args))
        }
        _ => Err(ToolError::invalid("data must be object")),
    }
}

/// Runs one tool call through the pipeline.
pub async fn dispatch(name: &str, args: Args, runtime: Arc<Runtime>, cancel: Cancel) -> Outcome {
    dispatch_live(name, args, runtime, cancel, None).await
}

/// [`dispatch`], handing a running command's output to `on_output` as it arrives.
pub async fn dispatch_live(
    name: &str,
    args: Args,
    runtime: Arc<Runtime>,
    cancel: Cancel,
    on_output: Option<OutputSink>,
) -> Outcome {
    let scope = Scope::new(runtime.redactor.as_ref());
    // Live chunks reach the host (and, through the adapters, the model) too: masked per
    // stream, a line held until it is complete and the key-block state carried across chunks
    // (`redact::Live`), with what the call learned of its sources; what is still held goes
    // out, masked, before the result.
    let live = (scope.is_on() && on_output.is_some())
        .then(|| Arc::new(crate::redact::Live::new(scope.clone())));
    let feed = match (&live, on_output.clone()) {
        (Some(live), Some(sink)) => {
            let live = Arc::clone(live);
            Some(OutputSink::new(move |stream, text| {
                let out = live.push(stream_index(stream), &text);
                if !out.is_empty() {
                    sink.send(stream, out);
                }
            }))
        }
        (_, sink) => sink,
    };
    let out = run(name, args, runtime, cancel, feed, &scope).await;
    if let (Some(live), Some(sink)) = (&live, &on_output) {
        for stream in [Stream::Stdout, Stream::Stderr] {
            let rest = live.finish(stream_index(stream));
            if !rest.is_empty() {
                sink.send(stream, rest);
            }
        }
    }
    redact_error(out, &scope)
}

/// The index of a stream in [`crate::redact::Live`].
fn stream_index(stream: Stream) -> usize {
    match stream {
        Stream::Stdout => 0,
        Stream::Stderr => 1,
    }
}

/// With `redactSecrets`, an error envelope is redacted too (messages and hints can quote
/// file text or arguments), string by string, and so is its `meta`. Successes were redacted
/// part by part before bounding.
fn redact_error(mut out: Outcome, scope: &Scope) -> Outcome {
    if out.is_error && scope.is_on() {
        out.text = scope.text(std::mem::take(&mut out.text));
        if let Some(m) = out.meta.as_mut() {
            m.values_mut().for_each(|v| scope.value(v));
        }
    }
    out
}

/// The envelope of a failed validation, for the JS guard path (redacted like any error).
pub fn error_envelope(err: &ToolError, runtime: &Runtime) -> String {
    Scope::new(runtime.redactor.as_ref()).text(err.envelope())
}

/// A text the JS layer made itself on a call's way (a guard's denial, a thrown error's
/// envelope), as it may go to the model: masked like every other text with `redactSecrets`.
pub fn redact_text(text: String, runtime: &Runtime) -> String {
    Scope::new(runtime.redactor.as_ref()).text(text)
}

async fn run(
    name: &str,
    args: Args,
    runtime: Arc<Runtime>,
    cancel: Cancel,
    on_output: Option<OutputSink>,
    scope: &Scope,
) -> Outcome {
    let (def, call) = match prepare(name, args, runtime, cancel, on_output, scope) {
        Prepared::Run(def, call) => (def, call),
        Prepared::Done(out) => return out,
    };
    // 3. Run the handler, on its own task so a panic is caught here.
    let warnings = call.warnings.clone();
    let runtime = Arc::clone(&call.runtime);
    let config = Arc::clone(&call.config);
    let joined = match def.handler {
        Handler::Blocking(f) => tokio::task::spawn_blocking(move || run_blocking(def, f, &call))
            .await
            .map_err(|join| join_failure(join, name)),
        Handler::Async(f) => {
            let panic_hook = config.hooks.panic_in.as_deref() == Some(def.name);
            tokio::spawn(async move {
                if panic_hook {
                    panic!(
                        "test hook: deliberate panic in {}",
                        call.config.hooks.panic_in.as_deref().unwrap_or("")
                    );
                }
                f(call).await
            })
            .await
            .map_err(|join| join_failure(join, name))
        }
    };
    finish(def, joined, &warnings, &runtime, scope)
}

/// Whether [`dispatch_inline`] may run this call: a tool whose handler is short blocking
/// work, so a caller already on a worker thread (the napi layer queues it on libuv's pool)
/// can run the whole pipeline there, saving the two thread hops of [`dispatch`] (runtime
/// task, then blocking pool). Only `read_file`: at most `maxFileBytes` read and formatted,
/// the size of work Node's own `fs.readFile` puts on that pool; `read_files`: up to 64 such
/// reads, shared with the pool's helpers, whose wake-ups and hand-backs were a third of an
/// 800 KB batch's time when it went through the runtime. And `monitor_poll`: one read
/// of at most `maxOutputBytes` from a log (it waits only for a relay that is finishing, a
/// few ms, up to 300 ms at worst). Searches, trees, writes and process tools keep their own
/// pools.
pub fn runs_inline(name: &str, config: &Config) -> bool {
    matches!(
        tools::get_tool(name, config),
        Some(def) if matches!(def.name, "read_file" | "read_files" | "monitor_poll")
            && matches!(def.handler, Handler::Blocking(_))
    )
}

/// The pipeline of [`dispatch`] on the calling thread, for a tool [`runs_inline`] accepts.
/// Same outcome as `dispatch`, panics included; an async tool answers an internal error.
pub fn dispatch_inline(name: &str, args: Args, runtime: Arc<Runtime>, cancel: Cancel) -> Outcome {
    let scope = Scope::new(runtime.redactor.as_ref());
    let out = run_inline(name, args, runtime, cancel, &scope);
    redact_error(out, &scope)
}

fn run_inline(
    name: &str,
    args: Args,
    runtime: Arc<Runtime>,
    cancel: Cancel,
    scope: &Scope,
) -> Outcome {
    let (def, call) = match prepare(name, args, runtime, cancel, None, scope) {
        Prepared::Run(def, call) => (def, call),
        Prepared::Done(out) => return out,
    };
    let Handler::Blocking(f) = def.handler else {
        let e = ToolError::new(Code::Internal, "internal error");
        let line = format!("clarvis-agent-tools: internal error: {name} is not a blocking tool\n");
        return Outcome::error(&e, vec![line]);
    };
    let joined =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run_blocking(def, f, &call)))
            .map_err(|payload| panic_detail(payload, name));
    finish(def, joined, &call.warnings, &call.runtime, scope)
}

/// What the steps before the handler leave.
enum Prepared {
    /// The tool and its call, ready for step 3.
    Run(&'static tools::ToolDef, Call),
    /// Already finished: an unknown tool, invalid arguments, a fired token.
    Done(Outcome),
}

/// Steps 1–2 and what precedes step 3.
fn prepare(
    name: &str,
    args: Args,
    runtime: Arc<Runtime>,
    cancel: Cancel,
    on_output: Option<OutputSink>,
    scope: &Scope,
) -> Prepared {
    // 1–2. Look up in the active surface; validate a copy, filling defaults.
    let (def, args) = match validate(name, args, &runtime) {
        Ok((Target::Builtin(def), args)) => (def, args),
        Ok((Target::Custom(_), _)) => {
            // The JS layer runs custom handlers itself; reaching here is a bug there.
            let line = format!(
                "clarvis-agent-tools: internal error: custom tool {name} was dispatched natively\n"
            );
            let e = ToolError::new(Code::Internal, "internal error");
            return Prepared::Done(Outcome::error(&e, vec![line]));
        }
        Err(e) => return Prepared::Done(Outcome::error(&e, vec![])),
    };
    if cancel.is_cancelled() {
        return Prepared::Done(Outcome::error(&(def.aborted)(), vec![]));
    }
    if let Err(e) = review_allows(def, &args, &runtime) {
        return Prepared::Done(Outcome::error(&e, vec![]));
    }
    // With the `undo` tool on, every mutating call starts a fresh "last call" checkpoint.
    // The checkpoint tools manage checkpoints themselves and change no file through a writer.
    let undo_on = runtime.config.tool_policy.allow.iter().any(|a| a == "undo");
    if def.mutating()
        && def.name != "undo"
        && !crate::tools::CHECKPOINT_TOOLS.contains(&def.name)
        && undo_on
    {
        runtime.checkpoints.begin_call();
    }
    // Review mode: what another process staged, accepted or rejected in this scope (a stat).
    if let Some(staging) = &runtime.staging {
        staging.refresh();
    }
    let mut call = Call::new(args, runtime, cancel);
    call.on_output = on_output;
    // The handler teaches the call's scope its sources; dispatch masks with what it learned.
    call.redaction = scope.clone();
    Prepared::Run(def, call)
}

/// Review mode: a tool that runs commands (it reaches beyond the file tools and changes
/// things: `bash`, `monitor_start`) could write what no one reviews. A stateless `bash` call
/// and a monitor run captured (their writes staged, SPEC §13 "Commands") where the sandbox
/// can capture; otherwise, and for a shell session (the shell outlives the call, so what it
/// writes later has no call to be staged by), they are refused unless the host chose
/// `review.commands: "direct"`. Stopping a monitor changes no file.
fn review_allows(
    def: &tools::ToolDef,
    args: &Map<String, Value>,
    runtime: &Runtime,
) -> crate::error::ToolResult<()> {
    let Some(review) = &runtime.config.review else {
        return Ok(());
    };
    let runs_commands = def.annotations.open_world && def.mutating() && def.name != "monitor_stop";
    if !runs_commands || review.commands == crate::config::review::Commands::Direct {
        return Ok(());
    }
    let session = def.name == "bash" && args.get("session").is_some_and(|v| !v.is_null());
    // Input to a monitor is review mode's only when the monitor is captured (its pending
    // marker lives as long as it does): one started outside review mode writes the disk.
    if def.name == "monitor_write" {
        let id = args.get("id").and_then(Value::as_str).unwrap_or_default();
        if crate::process::monitor::captured::captured(&runtime.config.workspace_root, id) {
            return Ok(());
        }
    }
    let why = if session {
        "a shell session outlives the call, so what it writes later could not be staged; run the command without `session`".to_string()
    } else {
        match crate::review::commands::unavailable(runtime.sandbox.as_deref()) {
            None if def.name == "monitor_write" => "that monitor was not started in review mode, so it writes the disk directly; start it again with monitor_start, which runs it captured".to_string(),
            None => return Ok(()),
            Some(why) => why,
        }
    };
    Err(ToolError::invalid(format!(
        "{} is not available in review mode: what a command writes cannot be staged for review here ({why}). Use the file tools (their changes are staged), or ask the host to set review.commands: \"direct\".",
        def.name
    )))
}

/// A blocking handler, with the test hook that makes it panic.
fn run_blocking(
    def: &tools::ToolDef,
    f: fn(&Call) -> crate::error::ToolResult<Output>,
    call: &Call,
) -> crate::error::ToolResult<Output> {
    if call.config.hooks.panic_in.as_deref() == Some(def.name) {
        panic!(
            "test hook: deliberate panic in {}",
            call.config.hooks.panic_in.as_deref().unwrap_or("")
        );
    }
    // A tool that stages nothing (the host's review tools change the staging area itself)
    // gets no staged clause.
    let Some(staging) = call
        .runtime
        .staging
        .as_ref()
        .filter(|_| def.mutating() && !def.unstaged)
    else {
        return f(call);
    };
    let before = staging.generation();
    let out = f(call)?;
    Ok(if staging.generation() != before {
        tell_staged(out)
    } else {
        out
    })
}

/// The warn-sink detail of a handler task that did not finish.
fn join_failure(join: tokio::task::JoinError, name: &str) -> String {
    if join.is_panic() {
        panic_detail(join.into_panic(), name)
    } else {
        format!("task for {name} was cancelled")
    }
}

fn panic_detail(payload: Box<dyn std::any::Any + Send>, name: &str) -> String {
    let msg = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic with a non-string payload".into());
    format!("panic in {name}: {msg}")
}

/// Steps 4–5: the handler's result (or why it did not finish) as the outcome.
fn finish(
    def: &tools::ToolDef,
    joined: Result<crate::error::ToolResult<Output>, String>,
    warnings: &Warnings,
    runtime: &Runtime,
    scope: &Scope,
) -> Outcome {
    let mut lines = warnings.take();
    match joined {
        // 4. Redact and bound, unless the tool bounds itself. 5. Serialize.
        Ok(Ok(out)) => Outcome::success(out, def.bounded, runtime, lines, scope),
        Ok(Err(e)) if e.code == Code::Internal => {
            lines.push(format!(
                "clarvis-agent-tools: internal error: {}\n",
                e.message
            ));
            Outcome::error(&ToolError::new(Code::Internal, "internal error"), lines)
        }
        Ok(Err(e)) => Outcome::error(&e, lines),
        Err(detail) => {
            lines.push(format!("clarvis-agent-tools: internal error: {detail}\n"));
            Outcome::error(&ToolError::new(Code::Internal, "internal error"), lines)
        }
    }
}

/// Parses the JSON text the JS layer sends (`undefined` arguments arrive as `None`).
pub fn parse_args(json: Option<&str>) -> Args {
    match json {
        None => Args::Json(Value::Object(Default::default())),
        Some(text) => match serde_json::from_str::<Value>(text) {
            Ok(v) => Args::Json(v),
            Err(e) => Args::NotJson(format!("Arguments are not valid JSON: {e}")),
        },
    }
}
