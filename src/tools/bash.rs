//! `bash`: runs `sh -c <command>` and returns `{exit_code, stdout, stderr, signal,
//! timed_out}` as JSON.
//!
//! This file owns the tool's interface — arguments, `cwd` checks, the timeout clamp, and the
//! mapping of an [`Ending`] to the contract's success JSON or error envelope. Running the
//! process, capturing and spilling output, and killing the group live in
//! [`crate::process`].

use super::title;
use super::{object_schema, Annotations, BoxFuture, Call, Handler, ToolDef};
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

fn run(call: Call) -> BoxFuture {
    Box::pin(async move { execute(&call).await.map(Into::into) })
}

async fn execute(call: &Call) -> ToolResult<String> {
    let config = &call.config;
    let command = str_arg(&call.args, "command").unwrap_or("");
    let cwd_input = str_arg(&call.args, "cwd").unwrap_or("");
    let shown = if cwd_input.is_empty() { "." } else { cwd_input };
    let cwd = workspace::resolve(config, cwd_input)?;
    // Enter the opened, verified directory (through /proc/self/fd on Linux), not the path:
    // the path may be swapped for a symlink to the outside before the shell starts.
    let cwd_dir = workspace::open_dir_confined(config, &cwd, shown)?;
    let cwd = workspace::io_path(&cwd_dir, &cwd);
    if command.contains('\0') {
        // The OS would refuse it too, but say plainly what is wrong.
        return Err(spawn_failed("the command contains a NUL byte"));
    }
    let timeout_ms = timeout_ms(
        int_arg(&call.args, "timeout_ms"),
        config.bash_timeout_ms,
        config.bash_timeout_max_ms,
    );
    let request = Request {
        command,
        cwd: &cwd,
        timeout: Duration::from_millis(timeout_ms),
        root: &config.workspace_root,
        max_output_bytes: config.max_output_bytes,
        kill_grace: Duration::from_millis(config.kill_grace_ms.unwrap_or(0)),
        on_output: call.on_output.clone(),
        sandbox: call.runtime.sandbox.as_deref(),
    };
    // What it prints is judged on the files it names (a slice of a key, a value without
    // its key).
    super::sources::learn_command(call, command, cwd_input);
    let recorded = call.bash_checkpoint_before().await;
    let outcome = process::run(request, &call.cancel, |p| workspace::display(config, p))
        .await
        .map_err(|e| match e.raw_os_error() {
            // Failures reported by the OS (fork, chdir, exec) happen once the spawn is
            // under way, as Node reports them asynchronously.
            Some(_) => ToolError::new(
                Code::IoError,
                format!("Failed to run command: {}", io_detail(&e)),
            ),
            None => spawn_failed(&e.to_string()),
        })?;
    call.bash_checkpoint_after(recorded).await;
    let (stdout, mut stderr) = (outcome.stdout, outcome.stderr);
    if let (Some(s), Ending::Exited { code, .. }) = (&call.runtime.sandbox, &outcome.ending) {
        if *code != 0 {
            // One line at the end, so the model sees why and changes approach.
            let printed = format!("{stdout}\n{stderr}");
            s.end_with_note(&mut stderr, &printed);
        }
    }
    // Which signal ended a killed command; only with `killGraceMs` set (without it the
    // errors keep the original's exact fields, and the signal is always SIGKILL).
    let killed_by = outcome.killed_by.filter(|_| config.kill_grace_ms.is_some());
    let with_signal = |e: ToolError| match killed_by {
        Some(sig) => e.with("signal", sig),
        None => e,
    };
    match outcome.ending {
        Ending::Exited { code, signal } => Ok(json!({
            "exit_code": code,
            "stdout": stdout,
            "stderr": stderr,
            "signal": signal,
            "timed_out": false,
        })
        .to_string()),
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
