//! The command-line entry point: flags plus environment, as the original's CLI read them.

use super::*;
use std::collections::HashMap;

pub(super) fn parse_bool_env(name: &str, raw: &str) -> Result<bool, StartupError> {
    match raw.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" | "" => Ok(false),
        _ => Err(StartupError(format!(
            "{name} must be one of 1/true/yes/on or 0/false/no/off, got: {raw}"
        ))),
    }
}

pub(super) fn parse_int_env(
    env: &HashMap<String, String>,
    name: &str,
    min: u64,
) -> Result<Option<u64>, StartupError> {
    let Some(raw) = env.get(name) else {
        return Ok(None);
    };
    if raw.is_empty() {
        return Ok(None);
    }
    if !raw.bytes().all(|b| b.is_ascii_digit()) {
        return Err(StartupError(format!(
            "{name} must be a positive integer, got: {raw}"
        )));
    }
    match raw.parse::<u64>() {
        Ok(n) if n >= min => Ok(Some(n)),
        _ => Err(StartupError(format!(
            "{name} must be an integer >= {min}, got: {raw}"
        ))),
    }
}

/// Builds a [`Config`] from a command line and an environment, the way the original
/// package's CLI did: `--workspace <p>` / `--workspace=<p>` / `WORKSPACE_ROOT` (the flag
/// wins), `--read-only` / `READ_ONLY`, `--allow-outside-workspace` /
/// `ALLOW_OUTSIDE_WORKSPACE`, and the four integer limits from the environment. Beyond the
/// original's flags, `--compat <v>` / `--compat=<v>` / `AGENT_TOOLS_COMPAT` select the
/// compatibility mode, `--refuse-stale-writes` / `STALE_WRITES=refuse|allow` the
/// `staleWrites` option (the flag wins), and `MAX_SHELL_SESSIONS` / `SHELL_SESSION_IDLE_MS`
/// the shell-session limits. `probes` and `checks` are as for [`resolve_config`].
pub fn build_config(
    argv: &[String],
    env: &HashMap<String, String>,
    probes: Probes,
    checks: &mut dyn Checks,
) -> Result<Config, StartupError> {
    let mut compat: Option<String> = None;
    let mut workspace: Option<String> = None;
    let mut read_only_flag = false;
    let mut allow_outside_flag = false;
    let mut checkpoints_flag = false;
    let mut stale_flag = false;
    let mut sandbox_flag = false;
    let mut allow_write: Vec<String> = Vec::new();
    let mut allow_domain: Vec<String> = Vec::new();
    let mut i = 0;
    while i < argv.len() {
        let a = argv[i].as_str();
        if a == "--workspace" {
            match argv.get(i + 1) {
                Some(next) if !next.starts_with("--") && !next.is_empty() => {
                    workspace = Some(next.clone());
                    i += 1;
                }
                _ => return Err(StartupError("--workspace requires a path argument".into())),
            }
        } else if let Some(v) = a.strip_prefix("--workspace=") {
            if v.is_empty() {
                return Err(StartupError("--workspace requires a path argument".into()));
            }
            workspace = Some(v.to_string());
        } else if a == "--compat" {
            compat = argv.get(i + 1).cloned();
            i += 1;
        } else if let Some(v) = a.strip_prefix("--compat=") {
            compat = Some(v.to_string());
        } else if a == "--read-only" {
            read_only_flag = true;
        } else if a == "--allow-outside-workspace" {
            allow_outside_flag = true;
        } else if a == "--checkpoints" {
            checkpoints_flag = true;
        } else if a == "--refuse-stale-writes" {
            stale_flag = true;
        } else if a == "--sandbox" {
            sandbox_flag = true;
        } else if let Some((flag, list)) = [
            ("--allow-write", &mut allow_write),
            ("--allow-domain", &mut allow_domain),
        ]
        .into_iter()
        .find(|(flag, _)| a == *flag || a.starts_with(&format!("{flag}=")))
        {
            let value = match a.strip_prefix(&format!("{flag}=")) {
                Some(v) => Some(v.to_string()),
                None => {
                    i += 1;
                    argv.get(i).cloned()
                }
            };
            match value {
                Some(v) if !v.is_empty() && !v.starts_with("--") => list.push(v),
                _ => return Err(StartupError(format!("{flag} requires an argument"))),
            }
        }
        i += 1;
    }
    let workspace =
        workspace.or_else(|| env.get("WORKSPACE_ROOT").filter(|s| !s.is_empty()).cloned());
    let Some(workspace) = workspace else {
        return Err(StartupError(
            "No workspace root: pass --workspace <path> or set WORKSPACE_ROOT.".into(),
        ));
    };
    let read_only = match env.get("READ_ONLY") {
        Some(raw) => parse_bool_env("READ_ONLY", raw)?,
        None => false,
    } || read_only_flag;
    let allow_outside = match env.get("ALLOW_OUTSIDE_WORKSPACE") {
        Some(raw) => parse_bool_env("ALLOW_OUTSIDE_WORKSPACE", raw)?,
        None => false,
    } || allow_outside_flag;
    let max_output = parse_int_env(env, "MAX_OUTPUT_BYTES", 1024)?;
    let max_file = parse_int_env(env, "MAX_FILE_BYTES", 1024)?;
    let max_image = parse_int_env(env, "MAX_IMAGE_BYTES", 1024)?;
    let ready_timeout = parse_int_env(env, "MONITOR_READY_TIMEOUT_MS", 1)?;
    let max_monitors = parse_int_env(env, "MAX_MONITORS", 1)?;
    let log_max = parse_int_env(env, "MONITOR_LOG_MAX_BYTES", MIN_MONITOR_LOG_MAX_BYTES)?;
    let max_sessions = parse_int_env(env, "MAX_SHELL_SESSIONS", 1)?;
    let session_idle = parse_int_env(env, "SHELL_SESSION_IDLE_MS", 1)?;
    let timeout = parse_int_env(env, "BASH_TIMEOUT_MS", 1)?;
    let timeout_max = parse_int_env(env, "BASH_TIMEOUT_MAX_MS", 1)?;
    let t = timeout.unwrap_or(DEFAULT_BASH_TIMEOUT_MS);
    let tm = timeout_max.unwrap_or(DEFAULT_BASH_TIMEOUT_MAX_MS);
    if tm < t {
        return Err(StartupError(format!(
            "BASH_TIMEOUT_MAX_MS ({tm}) must be >= BASH_TIMEOUT_MS ({t})."
        )));
    }
    let sandbox = sandbox_option(env, sandbox_flag, allow_write, allow_domain)?;
    let review = super::review::from_cli(argv, env)?;
    let options = serde_json::json!({
        "workspaceRoot": workspace,
        "readOnly": read_only,
        "confineToWorkspace": !allow_outside,
        "maxOutputBytes": max_output.unwrap_or(DEFAULT_MAX_OUTPUT_BYTES),
        "maxFileBytes": max_file.unwrap_or(DEFAULT_MAX_FILE_BYTES),
        "maxImageBytes": max_image.unwrap_or(DEFAULT_MAX_IMAGE_BYTES),
        "monitorReadyTimeoutMs": ready_timeout.unwrap_or(DEFAULT_MONITOR_READY_TIMEOUT_MS),
        "maxMonitors": max_monitors.unwrap_or(DEFAULT_MAX_MONITORS),
        "monitorLogMaxBytes": log_max,
        "bashTimeoutMs": t,
        "bashTimeoutMaxMs": tm,
        "checkpointTools": checkpoints_flag,
        "maxShellSessions": max_sessions,
        "shellSessionIdleMs": session_idle,
        "staleWrites": if stale_flag { Some("refuse".to_string()) } else { env.get("STALE_WRITES").filter(|s| !s.is_empty()).cloned() },
        "sandbox": sandbox,
        "review": review,
        "compat": compat.or_else(|| env.get("AGENT_TOOLS_COMPAT").filter(|s| !s.is_empty()).cloned()),
    });
    resolve_config(&options, probes, checks)
}

/// The `sandbox` option of the command line: `CLARVIS_SANDBOX` (a boolean word, or the
/// option's JSON object), `--sandbox`, and `--allow-write <dir>` / `--allow-domain <name>`
/// (each repeatable; either one turns the sandbox on and adds to the JSON object's lists).
fn sandbox_option(
    env: &HashMap<String, String>,
    flag: bool,
    allow_write: Vec<String>,
    allow_domain: Vec<String>,
) -> Result<Value, StartupError> {
    let mut v = match env.get("CLARVIS_SANDBOX").map(|s| s.trim()) {
        None | Some("") => Value::Bool(false),
        Some(raw) if raw.starts_with('{') => serde_json::from_str(raw)
            .map_err(|e| StartupError(format!("CLARVIS_SANDBOX is not valid JSON: {e}")))?,
        Some(raw) => Value::Bool(parse_bool_env("CLARVIS_SANDBOX", raw)?),
    };
    if !(flag || !allow_write.is_empty() || !allow_domain.is_empty()) {
        return Ok(v);
    }
    if !v.is_object() {
        v = serde_json::json!({});
    }
    let o = v.as_object_mut().expect("an object");
    if !allow_write.is_empty() {
        let fs = o
            .entry("filesystem")
            .or_insert_with(|| serde_json::json!({}));
        if let Some(fs) = fs.as_object_mut() {
            let list = fs
                .entry("allowWrite")
                .or_insert_with(|| Value::Array(Vec::new()));
            if let Some(a) = list.as_array_mut() {
                a.extend(allow_write.into_iter().map(Value::from));
            }
        }
    }
    if !allow_domain.is_empty() {
        let net = o.entry("network").or_insert(Value::Null);
        if !net.is_object() {
            *net = serde_json::json!({ "allowedDomains": [] });
        }
        if let Some(a) = net.as_object_mut().and_then(|n| {
            n.entry("allowedDomains")
                .or_insert_with(|| Value::Array(Vec::new()))
                .as_array_mut()
        }) {
            a.extend(allow_domain.into_iter().map(Value::from));
        }
    }
    Ok(v)
}
