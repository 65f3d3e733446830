//! `monitor_start`: start a long-running command in the background (a dev server, a watcher,
//! a long test run) and optionally wait until its output says it is ready.

use super::title;
use super::{object_schema, Annotations, BoxFuture, Call, Handler, Output, ToolDef};
use crate::error::{Code, ToolError, ToolResult};
use crate::jsregex::JsRegex;
use crate::process::monitor::{self, spawn::Stdin};
use crate::schema::{bool_arg, int_arg, str_arg};
use crate::terminal::{Size, DEFAULT_SIZE};
use crate::workspace;
use serde_json::{json, Map, Value};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const DESCRIPTION: &str = "Start a long-running command in the background — a dev server, a file watcher, a long build or test run — and get an id to follow it with monitor_poll and end it with monitor_stop. Runs `sh -c <command>` in `cwd` (default: the workspace root) with stdout and stderr going to one log. Do not background it yourself (no trailing `&`, no nohup): the monitor already runs in the background, and the id would track the wrong process. With `ready_when` (a JavaScript regex) the call waits until the output matches, the process exits, or ready_timeout_ms passes, and returns the output so far. Returns JSON {id, running, ready (null without ready_when), output, next_offset}. For a command that finishes on its own in a few minutes, bash is simpler. For an interactive program — a REPL (python3, node, psql), a prompt to answer, a debugger, a full-screen program (top, vim, less) — pass `tty: true` (or `{cols, rows}`, default 120×40): it runs on a terminal, talk to it with monitor_write, read its screen with monitor_screen; monitor_poll then shows its output without escape sequences. `stdin: true` instead keeps a plain pipe to its stdin for monitor_write (no terminal). Errors: invalid_input (bad ready_when regex), too_many_monitors (stop some with monitor_stop, see monitor_list), not_found / not_a_file / path_escape (bad cwd), io_error.";

/// How often `ready_when` is tested.
const READY_POLL: Duration = Duration::from_millis(75);

/// Serialises "count live monitors, then start one" so concurrent starts cannot pass the cap.
static STARTING: Mutex<()> = Mutex::new(());

/// The `monitor_start` tool definition.
pub fn def() -> ToolDef {
    ToolDef {
        name: "monitor_start",
        description: DESCRIPTION,
        schema,
        bounded: true,
        annotations: Annotations {
            read_only: false,
            destructive: true,
            idempotent: false,
            open_world: true,
        },
        handler: Handler::Async(run),
        aborted: ToolError::aborted,
        syntax: false,
        unstaged: false,
    }
}

fn schema() -> Value {
    object_schema(
        json!({
            "command": { "type": "string", "description": "The command, run with sh -c. Do not end it with `&`." },
            "cwd": { "type": "string", "description": "Working directory (default: the workspace root)." },
            "ready_when": { "type": "string", "description": "JavaScript regex; wait until the output matches it (e.g. `listening on|ready in`)." },
            "ready_timeout_ms": { "type": "integer", "minimum": 0, "description": "How long to wait for ready_when (0 or omitted: the configured default, 30 s)." },
            "tty": {
                "type": ["boolean", "object"],
                "description": "Run on a terminal (TERM=xterm-256color): true for 120 columns × 40 rows, or {cols, rows}. Needed for prompts, REPLs and full-screen programs; use monitor_write and monitor_screen with it.",
                "properties": {
                    "cols": { "type": "integer", "minimum": crate::terminal::MIN_SIDE, "maximum": crate::terminal::MAX_COLS, "description": "Columns (default 120)." },
                    "rows": { "type": "integer", "minimum": crate::terminal::MIN_SIDE, "maximum": crate::terminal::MAX_ROWS, "description": "Rows (default 40)." }
                },
                "additionalProperties": false
            },
            "stdin": { "type": "boolean", "description": "Keep a pipe to the command's stdin so monitor_write can send it input (without tty; default: stdin is empty)." }
        }),
        &["command"],
    )
}

/// The terminal `tty` asks for (validated by the schema: a boolean, or an object of
/// in-range integers): `None` without one.
pub fn terminal_size(tty: Option<&Value>) -> Option<Size> {
    let side = |o: &serde_json::Map<String, Value>, k: &str, default: u16| {
        o.get(k)
            .and_then(Value::as_u64)
            .and_then(|n| u16::try_from(n).ok())
            .unwrap_or(default)
    };
    match tty? {
        Value::Bool(true) => Some(DEFAULT_SIZE),
        Value::Object(o) => Some(Size {
            cols: side(o, "cols", DEFAULT_SIZE.cols),
            rows: side(o, "rows", DEFAULT_SIZE.rows),
        }),
        _ => None,
    }
}

fn run(call: Call) -> BoxFuture {
    Box::pin(async move { execute(&call).await })
}

fn started(root: &std::path::Path, id: &str) -> ToolResult<monitor::Sidecar> {
    monitor::load(root, id).ok_or_else(|| {
        ToolError::new(
            Code::IoError,
            format!("Failed to spawn monitor: state for {id} was lost"),
        )
    })
}

async fn execute(call: &Call) -> ToolResult<Output> {
    let config = &call.config;
    let root = config.workspace_root.clone();
    let command = str_arg(&call.args, "command")
        .unwrap_or_default()
        .to_string();
    let cwd_in = str_arg(&call.args, "cwd").unwrap_or("");
    let shown = if cwd_in.is_empty() { "." } else { cwd_in };
    let cwd = workspace::resolve(config, cwd_in)?;
    let meta = std::fs::metadata(&cwd).map_err(|e| ToolError::fs(&e, shown))?;
    if !meta.is_dir() {
        return Err(
            ToolError::new(Code::NotAFile, format!("Not a directory: {shown}")).with("path", shown),
        );
    }
    drop(workspace::open_dir_confined(config, &cwd, shown)?);
    // Its output (the head returned here, pages of the log later) is judged on the files the
    // command names.
    super::sources::learn_command(call, &command, cwd_in);
    let ready_src = str_arg(&call.args, "ready_when");
    let ready = match ready_src {
        Some(p) => Some(JsRegex::new(p, "").map_err(|e| {
            ToolError::invalid(format!("Invalid ready_when regex: {e}")).with("ready_when", p)
        })?),
        None => None,
    };
    let stdin = match terminal_size(call.args.get("tty")) {
        Some(size) => Stdin::Terminal(size),
        None if bool_arg(&call.args, "stdin") == Some(true) => Stdin::Pipe,
        None => Stdin::Null,
    };
    // Off Unix a monitor has no relay process to hold a pipe to its stdin (a terminal works
    // on Windows, through ConPTY): say so before anything is started.
    #[cfg(not(unix))]
    if stdin == Stdin::Pipe {
        return Err(ToolError::invalid(format!(
            "stdin monitors are not supported on {} (a pipe to a monitor's stdin needs the Unix log relay); use tty: true, which works here",
            std::env::consts::OS
        ))
        .with("platform", std::env::consts::OS));
    }
    if call.cancel.is_cancelled() {
        return Err(ToolError::aborted());
    }
    let sidecar = {
        let _one_at_a_time = STARTING.lock().unwrap_or_else(|p| p.into_inner());
        let live = monitor::list(&root)
            .iter()
            .filter(|s| monitor::running(&root, s))
            .count() as u64;
        if live >= config.max_monitors {
            return Err(ToolError::new(
                Code::TooManyMonitors,
                format!(
                    "Too many live monitors ({live}/{}); stop some with monitor_stop first",
                    config.max_monitors
                ),
            )
            .with("limit", config.max_monitors));
        }
        // Review mode (not `commands: "direct"`): it runs over the staged tree and what it
        // wrote is staged when it ends (dispatch refused it where that cannot be done).
        let staging = super::bash::capturing(call);
        let layers = staging
            .as_deref()
            .map(crate::review::commands::layers)
            .unwrap_or_default();
        let capture = staging.as_ref().map(|overlay| monitor::captured::Capture {
            request: crate::sandbox::capture::Request {
                dir: overlay.dir(),
                staged: &layers,
                record: true,
            },
            stage: crate::review::commands::stager(Arc::clone(overlay), &command),
        });
        let started = monitor::start(
            &root,
            &cwd,
            &command,
            monitor::Options {
                ready_when: ready_src,
                log_max: config.monitor_log_max_bytes(),
                sandbox: call.runtime.sandbox.as_deref(),
                stdin,
                capture,
            },
        )
        .map_err(|e| {
            ToolError::new(
                Code::IoError,
                format!("Failed to spawn monitor: {}", crate::error::io_detail(&e)),
            )
        })?;
        let terminals = &call.runtime.terminals;
        // Only monitors still on disk keep an entry (others were stopped or swept elsewhere).
        terminals.retain(|id| monitor::load(&root, id).is_some());
        if let Some(input) = started.input {
            terminals.attach(&started.sidecar.id, input);
        }
        started.sidecar
    };
    let id = sidecar.id.clone();
    let Some(ready) = ready else {
        return Ok(Output::text(
            json!({"id": id, "running": true, "ready": null, "output": "", "next_offset": 0})
                .to_string(),
        ));
    };
    let wait_ms = match int_arg(&call.args, "ready_timeout_ms") {
        None | Some(0) => config.monitor_ready_timeout_ms,
        Some(ms) => u64::try_from(ms).unwrap_or(1),
    }
    .min((1 << 31) - 1);
    let deadline = Instant::now() + Duration::from_millis(wait_ms);
    loop {
        let s = started(&root, &id)?;
        let running_before = monitor::running(&root, &s);
        if !running_before {
            // Its last output may still be in the relay's pipe.
            monitor::settle(&root, &s);
        }
        let (head, next) = monitor::ready_head(&root, &s, config.max_output_bytes);
        // A ready_when cut short by its backtracking budget counts as not (yet) matched.
        let cancelled = || call.cancel.is_cancelled();
        let matched = ready.is_match_until(&head, &cancelled) == Ok(true);
        let (ready_now, running, stop) = if matched {
            (true, running_before && monitor::running(&root, &s), true)
        } else if !running_before {
            (false, false, true)
        } else if Instant::now() >= deadline || call.cancel.is_cancelled() {
            (false, true, true)
        } else {
            (false, true, false)
        };
        if stop {
            call.runtime.terminals.delivered(&id, next);
            return Ok(Output::text(
                json!({"id": id, "running": running, "ready": ready_now, "output": head, "next_offset": next})
                    .to_string(),
            ));
        }
        tokio::select! {
            _ = tokio::time::sleep(READY_POLL) => {}
            _ = call.cancel.cancelled() => {}
        }
    }
}

/// The call's title (`describeCall`): what a progress list or an approval prompt shows.
pub fn title(args: &Map<String, Value>) -> String {
    let command = title::text(args, "command").map_or("a command".into(), title::first_line);
    format!("Start in the background: {command}")
}
