//! `bash`: runs `sh -c <command>` and returns `{exit_code, stdout, stderr, signal,
//! timed_out}` as JSON.
//!
//! This file owns the tool's interface — arguments, `cwd` checks, the timeout clamp, and the
//! mapping of an [`Ending`] to the contract's success JSON or error envelope. Running the
//! process, capturing and spilling output, and killing the group live in
//! [`crate::process`].

use super::title;
use super::Output;
use super::{object_schema, Annotations, BoxFuture, Call, Handler, ToolDef};
use crate::config::Compat;
use crate::error::{io_detail, Code, ToolError, ToolResult};
use crate::process::{self, Ending, Request};
use crate::schema::{int_arg, str_arg};
use crate::workspace;
use serde_json::{json, Map, Value};
use std::time::Duration;

const DESCRIPTION: &str = "Run a shell command with `sh -c` and get back JSON {exit_code, stdout, stderr, signal, timed_out}. Use it for builds, tests, git, package managers and other programs. Do not use it to read, list, search or edit files: read_file, list_dir, glob, grep, edit_file, multi_edit and apply_patch are faster, exact and safe. The command runs in the workspace root unless `cwd` says otherwise. stdin is closed and there is no terminal, so use non-interactive flags (`-y`, `--no-pager`, `CI=1`). The call returns when the shell exits: start a long-running process (a server, a watcher) in the background with its output redirected, e.g. `npm start > /tmp/server.log 2>&1 &`. A non-zero exit_code is a normal result, not an error; when a signal killed the shell, exit_code is 128 + its number and `signal` names it. stdout and stderr share an output budget: a stream over its share shows its beginning and its end around a `[... output truncated: ... full output written to .clarvis/bash-….log ...]` line; read_file or grep that file instead of re-running the command. Errors: timeout (partial stdout/stderr included; pass a larger timeout_ms, which is capped by the configured maximum, or run the work in the background), output_limit (a stream passed the capture ceiling and the command was killed: redirect its output to a file, then grep or read that file), aborted (the run was cancelled), not_found / not_a_file / path_escape (bad cwd: give a directory inside the workspace), io_error (the shell could not be started).";

/// The `bash` tool definition.
pub fn def() -> ToolDef {
    ToolDef {
        name: "bash",
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
        aborted,
        syntax: false,
        unstaged: false,
    }
}

fn schema() -> Value {
    object_schema(
        json!({
            "command": {
                "type": "string",
                "description": "The shell command, run with `sh -c`."
            },
            "cwd": {
                "type": "string",
                "description": "Working directory; defaults to the workspace root."
            },
            "timeout_ms": {
                "type": "integer",
                "minimum": 1,
                "description": "Maximum run time in milliseconds (default 120000, capped by the configured maximum, 600000 by default). On timeout the whole process group is killed."
            }
        }),
        &["command"],
    )
}

const ABORTED: &str = "Command aborted (run cancelled)";

/// The error for a call aborted before (or while) it runs: no output yet.
fn aborted() -> ToolError {
    ToolError::new(Code::Aborted, ABORTED)
        .with("stdout", "")
        .with("stderr", "")
}

/// The `session` property of the latest schema (0.1's strict schema does not have it).
pub fn add_session(schema: &mut Value) {
    if let Some(Value::Object(p)) = schema.pointer_mut("/properties") {
        p.insert(
            "session".into(),
            json!({
                "type": "string",
                "minLength": 1,
                "maxLength": 64,
                "description": "Run the command in a named persistent shell instead of a fresh `sh -c`: the working directory, variables, shell options, functions and aliases carry over to the next call with the same session name. stdout, stderr and exit_code are still exactly this command's. Without it every call starts fresh in the workspace root. A timeout or abort ends the command and what it started; the error's `session` field says whether the shell was kept or restarted (restarted: working directory and exported variables restored, functions, aliases, options and plain variables lost). `exit` ends the session; the next call with that name starts a new one. With `cwd`, the session first changes to that directory (and stays there). Background processes started in a session end with it; use monitor_start for servers that must outlive it."
            }),
        );
    }
}

fn run(call: Call) -> BoxFuture {
    Box::pin(async move { execute(&call).await })
}

/// A session call's name, and what became of the session.
struct SessionNote {
    name: String,
    state: &'static str,
    cwd: Option<String>,
}

async fn execute(call: &Call) -> ToolResult<Output> {
    let config = &call.config;
    let command = str_arg(&call.args, "command").unwrap_or("");
    let cwd_input = str_arg(&call.args, "cwd").unwrap_or("");
    let session = str_arg(&call.args, "session").filter(|_| config.compat == Compat::Latest);
    let shown = if cwd_input.is_empty() { "." } else { cwd_input };
    let resolved = workspace::resolve(config, cwd_input)?;
    // Enter the opened, verified directory (through /proc/self/fd on Linux), not the path:
    // the path may be swapped for a symlink to the outside before the shell starts.
    let cwd_dir = workspace::open_dir_confined(config, &resolved, shown)?;
    let cwd = workspace::io_path(&cwd_dir, &resolved);
    if command.contains('\0') {
        // The OS would refuse it too, but say plainly what is wrong.
        return Err(spawn_failed("the command contains a NUL byte"));
    }
    let timeout_ms = timeout_ms(
        int_arg(&call.args, "timeout_ms"),
        config.bash_timeout_ms,
        config.bash_timeout_max_ms,
    );
    // Review mode (not `commands: "direct"`): a stateless call runs over the staged tree and
    // its writes are staged (dispatch refused the call where that cannot be done).
    let staging = capturing(call).filter(|_| session.is_none());
    let layers = staging
        .as_deref()
        .map(crate::review::commands::layers)
        .unwrap_or_default();
    let request = Request {
        command,
        cwd: &cwd,
        timeout: Duration::from_millis(timeout_ms),
        root: &config.workspace_root,
        max_output_bytes: config.max_output_bytes,
        kill_grace: Duration::from_millis(config.kill_grace_ms.unwrap_or(0)),
        on_output: call.on_output.clone(),
        sandbox: call.runtime.sandbox.as_deref(),
        capture: staging
            .as_deref()
            .map(|o| crate::sandbox::capture::Request {
                dir: o.dir(),
                staged: &layers,
                record: false,
            }),
    };
    // What it prints is judged on the files it names (a slice of a key, a value without
    // its key), from the directory it runs in.
    let session_cwd = session
        .filter(|_| cwd_input.is_empty())
        .and_then(|name| session_dir(call, name));
    let base = session_cwd.as_deref().unwrap_or(cwd_input);
    super::sources::learn_command(call, command, base);
    let recorded = call.bash_checkpoint_before().await;
    let display = |p: &std::path::Path| workspace::display(config, p);
    let (outcome, note) = match session {
        None => (
            process::run(request, &call.cancel, display)
                .await
                .map_err(|e| run_failed(&e))?,
            None,
        ),
        Some(name) => {
            let cd = (!cwd_input.is_empty()).then_some(resolved.as_path());
            let (outcome, note) = in_session(call, name, request, cd).await?;
            (outcome, Some(note))
        }
    };
    call.bash_checkpoint_after(recorded).await;
    let (stdout, mut stderr) = (outcome.stdout, outcome.stderr);
    if let (Some(s), Ending::Exited { code, .. }) = (&call.runtime.sandbox, &outcome.ending) {
        if *code != 0 {
            // One line at the end, so the model sees why and changes approach.
            let printed = format!("{stdout}\n{stderr}");
            s.end_with_note(&mut stderr, &printed);
        }
    }
    // What a captured command wrote is staged whatever ended it, as a direct run leaves it
    // on disk; one line at the end of stderr says so (stdout stays the command's own).
    if let (Some(o), Some(c)) = (&staging, &outcome.captured) {
        if let Some(line) = crate::review::commands::stage(o, c, command)? {
            if !stderr.is_empty() && !stderr.ends_with('\n') {
                stderr.push('\n');
            }
            stderr.push_str(&line);
        }
    }
    // Which signal ended a killed command; only with `killGraceMs` set (without it the
    // errors keep the original's exact fields, and the signal is always SIGKILL).
    let killed_by = outcome.killed_by.filter(|_| config.kill_grace_ms.is_some());
    let with_signal = |e: ToolError| match killed_by {
        Some(sig) => e.with("signal", sig),
        None => e,
    };
    let with_signal = |e: ToolError| match &note {
        Some(n) => with_session(with_signal(e), n),
        None => with_signal(e),
    };
    match outcome.ending {
        Ending::Exited { code, signal } => {
            let text = json!({
                "exit_code": code,
                "stdout": stdout,
                "stderr": stderr,
                "signal": signal,
                "timed_out": false,
            })
            .to_string();
            Ok(match &note {
                // The text keeps the stateless shape; the host learns of the session in meta.
                Some(n) => Output::text(text).with_meta("session", session_meta(n)),
                None => text.into(),
            })
        }
        Ending::Aborted => Err(with_signal(
            ToolError::new(Code::Aborted, ABORTED)
                .with("stdout", stdout)
                .with("stderr", stderr),
        )),
        Ending::TimedOut => Err(with_signal(
            ToolError::new(Code::Timeout, format!("Command exceeded {timeout_ms}ms"))
                .with("timeout_ms", timeout_ms)
                .with("stdout", stdout)
                .with("stderr", stderr),
        )),
        Ending::OutputLimit => {
            let cap = process::capture_ceiling(config.max_output_bytes);
            Err(with_signal(
                ToolError::new(
                    Code::OutputLimit,
                    format!(
                        "Command output exceeded {cap} bytes on a single stream and was killed"
                    ),
                )
                .with("max_capture_bytes", cap)
                .with("stdout", stdout)
                .with("stderr", stderr),
            ))
        }
        Ending::Failed(e) => Err(ToolError::new(
            Code::IoError,
            format!("Failed to run command: {}", io_detail(&e)),
        )),
    }
}

/// The staging area a command of this call is captured into: review mode on, its commands
/// not `"direct"`.
pub fn capturing(call: &Call) -> Option<std::sync::Arc<crate::workspace::overlay::Overlay>> {
    let review = call.config.review.as_ref()?;
    if review.commands == crate::config::review::Commands::Direct {
        return None;
    }
    call.runtime.staging.clone()
}

/// Runs the command in session `name` (`cd`: the checked `cwd` to change to first).
#[cfg(unix)]
async fn in_session(
    call: &Call,
    name: &str,
    request: Request<'_>,
    cd: Option<&std::path::Path>,
) -> ToolResult<(process::Outcome, SessionNote)> {
    use crate::process::session::SessionError;
    let config = &call.config;
    let request = Request {
        cwd: &config.workspace_root,
        ..request
    };
    let ran = call
        .runtime
        .sessions
        .run(name, request, cd, &call.cancel, |p| {
            workspace::display(config, p)
        })
        .await
        .map_err(|e| match e {
            SessionError::Io(e) => run_failed(&e),
            SessionError::Limit(max) => ToolError::new(
                Code::IoError,
                format!(
                    "Too many shell sessions: all {max} (maxShellSessions) are running a command. Wait for one to finish, or run this command in one of them or without `session`"
                ),
            )
            .with("max_shell_sessions", max),
        })?;
    let note = SessionNote {
        name: name.to_string(),
        state: ran.state.as_str(),
        cwd: ran.cwd.map(|p| workspace::display(config, &p)),
    };
    Ok((ran.outcome, note))
}

#[cfg(not(unix))]
async fn in_session(
    _: &Call,
    _: &str,
    _: Request<'_>,
    _: Option<&std::path::Path>,
) -> ToolResult<(process::Outcome, SessionNote)> {
    Err(spawn_failed("shell sessions need a Unix shell"))
}

/// The session's working directory after its last call (absolute), while it is live.
fn session_dir(call: &Call, name: &str) -> Option<String> {
    #[cfg(unix)]
    return call
        .runtime
        .sessions
        .cwd(name)
        .map(|p| p.to_string_lossy().into_owned());
    #[cfg(not(unix))]
    {
        let _ = (call, name);
        None
    }
}

fn session_meta(n: &SessionNote) -> Value {
    json!({ "name": n.name, "state": n.state, "cwd": n.cwd })
}

/// An interrupted session call's error: the `session` field and a sentence on what became of
/// the shell.
fn with_session(mut e: ToolError, n: &SessionNote) -> ToolError {
    let said = match n.state {
        "kept" => format!(" (session \"{}\" kept: the shell lives on, as the command left it)", n.name),
        "restarted" => format!(" (session \"{}\" restarted: working directory and exported variables restored; functions, aliases, options and other variables lost)", n.name),
        "ended" => format!(" (session \"{}\" ended: the next call with this name starts a new one)", n.name),
        _ => String::new(),
    };
    e.message.push_str(&said);
    e.with("session", json!({ "name": n.name, "state": n.state }))
}

/// The error for a shell that could not be started (or handed the command).
fn run_failed(e: &std::io::Error) -> ToolError {
    match e.raw_os_error() {
        // Failures reported by the OS (fork, chdir, exec) happen once the spawn is
        // under way, as Node reports them asynchronously.
        Some(_) => ToolError::new(
            Code::IoError,
            format!("Failed to run command: {}", io_detail(e)),
        ),
        None => spawn_failed(&e.to_string()),
    }
}

fn spawn_failed(detail: &str) -> ToolError {
    ToolError::new(Code::IoError, format!("Failed to spawn command: {detail}"))
}

/// `min(requested ?? default, max)`: a request over the maximum is clamped, never refused.
fn timeout_ms(requested: Option<i64>, default: u64, max: u64) -> u64 {
    // 0 means "the default" (0.5; 0.1's schema refuses 0).
    let wanted = match requested {
        None | Some(0) => default,
        Some(t) => u64::try_from(t).unwrap_or(1).max(1),
    };
    wanted.min(max)
}

/// The call's title (`describeCall`): what a progress list or an approval prompt shows.
pub fn title(args: &Map<String, Value>) -> String {
    let command = title::text(args, "command").map_or("a command".into(), title::first_line);
    let mut t = format!("Run {command}");
    if let Some(cwd) = title::text(args, "cwd") {
        t.push_str(&format!(" in {}", title::short_path(cwd)));
    }
    if let Some(name) = title::text(args, "session") {
        t.push_str(&format!(" (session {name})"));
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeout_is_clamped_not_refused() {
        assert_eq!(timeout_ms(None, 120_000, 600_000), 120_000);
        assert_eq!(timeout_ms(Some(5), 120_000, 600_000), 5);
        assert_eq!(timeout_ms(Some(100_000), 100, 300), 300);
    }
}
