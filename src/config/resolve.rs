//! [`resolve_config`]: the options of `createAgentTools` checked in the original's order and
//! turned into a [`Config`].

use super::values::{
    bool_option, hooks_enabled, hooks_option, integer_option, search_index_option,
    stale_writes_option,
};
use super::*;
use crate::paths::absolutize;

/// The option checks a [`Config`] cannot make itself because they need engines above it.
/// [`resolve_config`] calls them at their place in the original's order of checks, so a
/// configuration with several faults reports the same first fault whoever resolves it.
pub trait Checks {
    /// Checks `customTools` (its value as given) and returns every tool name a
    /// `toolPolicy` may mention: the built-in tools and the host's.
    fn tool_names(&mut self, custom_tools: Option<&Value>) -> Result<Vec<String>, StartupError>;
    /// Checks `redactSecrets` (its value as given); `Some(patterns)` when redaction is on,
    /// with the host's patterns as the public config shows them (`[{source, flags}]`).
    fn redaction(&mut self, option: Option<&Value>) -> Result<Option<Vec<Value>>, StartupError>;
}

/// Resolves `createAgentTools` options into a [`Config`]: `probes` are what the caller
/// probed (`probeRipgrep`, `probeTreeSitter`), `checks` the checks that need engines above
/// this module. The checks run in the original's order; the first fault is the error.
pub fn resolve_config(
    options: &Value,
    probes: Probes,
    checks: &mut dyn Checks,
) -> Result<Config, StartupError> {
    let ripgrep = probes.ripgrep;
    let empty = Map::new();
    let opts = options.as_object().unwrap_or(&empty);
    let root_raw = match opts.get("workspaceRoot") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if s.is_empty() => None,
        Some(v) => Some(v),
    };
    let Some(root_raw) = root_raw else {
        return Err(StartupError(
            "No workspace root: options.workspaceRoot is required.".into(),
        ));
    };
    let Value::String(root_str) = root_raw else {
        return Err(StartupError(format!(
            "workspaceRoot must be a string, got: {}",
            js_string(root_raw)
        )));
    };
    let compat = Compat::parse(opts.get("compat").unwrap_or(&Value::Null))?;
    // A policy may name the host's tools too.
    let known = checks.tool_names(opts.get("customTools"))?;
    let known: Vec<&str> = known.iter().map(String::as_str).collect();
    let tool_policy = ToolPolicy::parse(opts.get("toolPolicy"), &known)?;
    let checkpoint_bytes = integer_option(opts, "checkpointBytes", DEFAULT_CHECKPOINT_BYTES, 0)?;
    let max_output_bytes = integer_option(opts, "maxOutputBytes", DEFAULT_MAX_OUTPUT_BYTES, 1024)?
        .min(MAX_OUTPUT_BYTES_CEILING);
    let max_file_bytes = integer_option(opts, "maxFileBytes", DEFAULT_MAX_FILE_BYTES, 1024)?;
    let max_image_bytes = integer_option(opts, "maxImageBytes", DEFAULT_MAX_IMAGE_BYTES, 1024)?
        .min(MAX_IMAGE_BYTES_CEILING);
    let monitor_ready_timeout_ms = integer_option(
        opts,
        "monitorReadyTimeoutMs",
        DEFAULT_MONITOR_READY_TIMEOUT_MS,
        1,
    )?;
    let max_monitors = integer_option(opts, "maxMonitors", DEFAULT_MAX_MONITORS, 1)?;
    let bash_timeout_ms = integer_option(opts, "bashTimeoutMs", DEFAULT_BASH_TIMEOUT_MS, 1)?;
    let bash_timeout_max_ms =
        integer_option(opts, "bashTimeoutMaxMs", DEFAULT_BASH_TIMEOUT_MAX_MS, 1)?;
    if bash_timeout_max_ms < bash_timeout_ms {
        return Err(StartupError(format!(
            "bashTimeoutMaxMs ({bash_timeout_max_ms}) must be >= bashTimeoutMs ({bash_timeout_ms})."
        )));
    }
    let kill_grace_ms = match opts.get("killGraceMs") {
        None | Some(Value::Null) => None,
        Some(_) => Some(integer_option(opts, "killGraceMs", 0, 0)?),
    };
    let monitor_log_max = match opts.get("monitorLogMaxBytes") {
        None | Some(Value::Null) => None,
        Some(_) => Some(integer_option(
            opts,
            "monitorLogMaxBytes",
            DEFAULT_MONITOR_LOG_MAX_BYTES,
            MIN_MONITOR_LOG_MAX_BYTES,
        )?),
    };
    let root = absolutize(root_str);
    match std::fs::metadata(&root) {
        Err(_) => {
            return Err(StartupError(format!(
                "Workspace root does not exist: {}",
                root.display()
            )))
        }
        Ok(m) if !m.is_dir() => {
            return Err(StartupError(format!(
                "Workspace root is not a directory: {}",
                root.display()
            )))
        }
        Ok(_) => {}
    }
    let write_scope = WriteScope::parse(opts.get("writeScope").unwrap_or(&Value::Null), &root)?;
    let redact_secrets = checks.redaction(opts.get("redactSecrets"))?;
    let (search_index, search_index_threshold) = search_index_option(opts)?;
    let refuse_stale_writes = stale_writes_option(opts)?;
    let max_shell_sessions =
        integer_option(opts, "maxShellSessions", DEFAULT_MAX_SHELL_SESSIONS, 1)?;
    let shell_session_idle_ms =
        integer_option(opts, "shellSessionIdleMs", DEFAULT_SHELL_SESSION_IDLE_MS, 1)?;
    let hooks = hooks_option(opts);
    let review = super::review::parse(opts, compat)?;
    let sandbox = sandbox::parse(opts.get("sandbox"), &root)?.map(|mut s| {
        s.force = sandbox::force(opts.get("sandbox"), hooks_enabled());
        s
    });
    Ok(Config {
        workspace_root: root.clone(),
        real_root: RealRoot::default(),
        max_output_bytes,
        max_file_bytes,
        max_image_bytes,
        monitor_ready_timeout_ms,
        max_monitors,
        bash_timeout_ms,
        bash_timeout_max_ms,
        ripgrep_available: ripgrep.unwrap_or_else(probe_ripgrep),
        read_only: bool_option(opts, "readOnly", false),
        confine_to_workspace: bool_option(opts, "confineToWorkspace", true),
        compat,
        tree_sitter_available: probes.tree_sitter.unwrap_or(true),
        tool_policy,
        write_scope,
        redact_secrets,
        checkpoint_bytes,
        checkpoint_bash: bool_option(opts, "checkpointBash", false),
        checkpoint_tools: bool_option(opts, "checkpointTools", false),
        kill_grace_ms,
        monitor_log_max,
        search_index,
        search_index_threshold,
        refuse_stale_writes,
        sandbox,
        max_shell_sessions,
        shell_session_idle_ms,
        review,
        hooks,
    })
}
