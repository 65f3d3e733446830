//! Options → a frozen [`Config`], and the `StartupError` messages of a bad configuration.
//!
//! Configuration is resolved once, when the caller builds its tools, and is immutable after
//! that: every call reads the same `Arc<Config>`. Two entry points exist, as in the original
//! package: [`resolve_config`] for the options object of `createAgentTools`, and
//! [`build_config`] for a command line plus environment (`--workspace`, `READ_ONLY`, …).

use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

mod cli;
mod policy;
#[cfg(test)]
mod tests;
mod values;

pub use cli::{build_config, build_config_with};
pub use policy::{Compat, ToolPolicy, WriteScope};
pub use values::{absolutize, js_string, normalize, probe_ripgrep, TEST_HOOKS_ENV};
use values::{bool_option, hooks_option, integer_option, search_index_option};

/// Default `maxOutputBytes`.
pub const DEFAULT_MAX_OUTPUT_BYTES: u64 = 131_072;
/// The largest `maxOutputBytes` honoured; a larger value acts as this one. A result reaches
/// JavaScript as one string, and V8 has none longer than
/// [`crate::output::JS_MAX_STRING`] UTF-16 units: past that the conversion fails and the call
/// would end `internal` (a 1 GiB budget and a grep for `pub` over 234k files did). A text of
/// N UTF-8 bytes is at most N units, and 1 MiB is left for what a bounded result appends
/// (truncation markers, paging and scan footers).
pub const MAX_OUTPUT_BYTES_CEILING: u64 = crate::output::JS_MAX_STRING as u64 - (1 << 20);
/// The largest `maxImageBytes` honoured: its base64 text (4 bytes for every 3) stays within
/// [`MAX_OUTPUT_BYTES_CEILING`].
pub const MAX_IMAGE_BYTES_CEILING: u64 = MAX_OUTPUT_BYTES_CEILING / 4 * 3;
// The base64 of the largest image fits the text ceiling.
const _: () = assert!(MAX_IMAGE_BYTES_CEILING.div_ceil(3) * 4 <= MAX_OUTPUT_BYTES_CEILING);
/// Default `maxFileBytes`.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 20_000_000;
/// Default `bashTimeoutMs`.
pub const DEFAULT_BASH_TIMEOUT_MS: u64 = 120_000;
/// Default `maxImageBytes`.
pub const DEFAULT_MAX_IMAGE_BYTES: u64 = 5_000_000;
/// Default `monitorReadyTimeoutMs`.
pub const DEFAULT_MONITOR_READY_TIMEOUT_MS: u64 = 30_000;
/// Default `maxMonitors`.
pub const DEFAULT_MAX_MONITORS: u64 = 32;
/// Default `monitorLogMaxBytes`: the rolling window a monitor's log keeps (16 MiB).
pub const DEFAULT_MONITOR_LOG_MAX_BYTES: u64 = 16 * 1024 * 1024;
/// Smallest `monitorLogMaxBytes` (64 KiB).
pub const MIN_MONITOR_LOG_MAX_BYTES: u64 = 64 * 1024;
/// Default `bashTimeoutMaxMs`.
pub const DEFAULT_BASH_TIMEOUT_MAX_MS: u64 = 600_000;

/// A configuration that cannot be used; the message is shown to the developer as is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct StartupError(pub String);

/// Fault injection for the test suites. Set only through the undocumented `__testHooks`
/// option, and honoured only when the environment variable [`TEST_HOOKS_ENV`] is `1`, so a
/// production process cannot switch off its journal or inject a panic by accident.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TestHooks {
    /// Panic inside the handler of this tool, to prove panics become `internal`.
    pub panic_in: Option<String>,
    /// Fail a multi-file commit after this many file operations, to prove rollback.
    pub fail_commit_after: Option<u64>,
    /// Sleep this many milliseconds between the file operations of a commit, so a crash
    /// test can kill the process mid-commit.
    pub commit_pause_ms: Option<u64>,
    /// Commit without a journal, to measure what a crash does without one.
    pub no_journal: bool,
}

/// What the caller probed before resolving (`probeRipgrep`, `probeTreeSitter`); `None`
/// means "probe here" (ripgrep) or "available" (tree-sitter, which is compiled in).
#[derive(Debug, Clone, Copy, Default)]
pub struct Probes {
    /// Result of `probeRipgrep`.
    pub ripgrep: Option<bool>,
    /// Result of `probeTreeSitter`.
    pub tree_sitter: Option<bool>,
}

/// The realpath of the workspace root, taken once (the first time it resolves) and kept:
/// a root swapped for a symlink afterwards cannot widen what counts as inside, and the
/// confinement check of every call saves a `realpath` of the root. Keyed by the root it was
/// taken for, so a configuration whose `workspace_root` is changed (tests do) never sees a
/// stale one.
#[derive(Debug, Clone, Default)]
pub struct RealRoot(std::sync::Arc<std::sync::OnceLock<(PathBuf, PathBuf)>>);

impl RealRoot {
    /// The realpath of `root`, from the cache when it was taken for `root`; `None` while it
    /// does not resolve (callers fail closed).
    pub fn get(&self, root: &Path) -> Option<std::borrow::Cow<'_, Path>> {
        use std::borrow::Cow;
        if let Some((of, real)) = self.0.get() {
            if of == root {
                return Some(Cow::Borrowed(real));
            }
            return std::fs::canonicalize(root).ok().map(Cow::Owned);
        }
        let real = std::fs::canonicalize(root).ok()?;
        let (of, cached) = self.0.get_or_init(|| (root.to_path_buf(), real.clone()));
        Some(if of == root {
            Cow::Borrowed(cached)
        } else {
            Cow::Owned(real)
        })
    }
}

impl PartialEq for RealRoot {
    /// A cache, not part of what a configuration means.
    fn eq(&self, _: &RealRoot) -> bool {
        true
    }
}

/// The resolved, immutable configuration every tool call reads.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// Absolute, lexically normalised workspace root (not realpath'd).
    pub workspace_root: PathBuf,
    /// The root's realpath, resolved once ([`RealRoot`]).
    pub real_root: RealRoot,
    /// Budget for a call's output text.
    pub max_output_bytes: u64,
    /// Largest file the text tools read.
    pub max_file_bytes: u64,
    /// Largest image `read_image` returns.
    pub max_image_bytes: u64,
    /// How long `monitor_start` waits for `ready_when` by default.
    pub monitor_ready_timeout_ms: u64,
    /// The most live monitors at once.
    pub max_monitors: u64,
    /// Default `bash` timeout.
    pub bash_timeout_ms: u64,
    /// Ceiling a `bash` call's `timeout_ms` is clamped to.
    pub bash_timeout_max_ms: u64,
    /// Whether an `rg` binary was found; reported only (grep always runs in-process).
    pub ripgrep_available: bool,
    /// Only the four read tools are exposed.
    pub read_only: bool,
    /// Paths must stay inside the workspace root.
    pub confine_to_workspace: bool,
    /// Which generation of the surface this configuration reproduces.
    pub compat: Compat,
    /// Whether the syntax tools (outline, check_syntax) and syntax warnings are on.
    pub tree_sitter_available: bool,
    /// `toolPolicy`: the allow/deny lists applied to the surface.
    pub tool_policy: ToolPolicy,
    /// `writeScope`: the directories mutating tools may change (empty: anywhere).
    pub write_scope: Vec<WriteScope>,
    /// `customTools`: the host's tools (their handlers stay in JavaScript).
    pub custom_tools: Vec<crate::custom::CustomTool>,
    /// `redactSecrets`: masks credentials in what goes back to the model (`None`: off).
    pub redact: Option<std::sync::Arc<crate::redact::Redactor>>,
    /// The checkpoints of this tools object (`checkpointBytes` is its budget).
    pub checkpoints: std::sync::Arc<crate::checkpoint::Store>,
    /// `checkpointBash`: `bash` commands are checkpointed too.
    pub checkpoint_bash: bool,
    /// `killGraceMs`: how long a killed command gets between SIGTERM and SIGKILL. `None`
    /// keeps the original's behaviour (immediate SIGKILL for `bash`, 400 ms for monitors).
    pub kill_grace_ms: Option<u64>,
    /// `monitorLogMaxBytes` when given: the most a monitor's log holds (see
    /// [`Config::monitor_log_max_bytes`]).
    pub monitor_log_max: Option<u64>,
    /// `searchIndex` / `searchIndexThreshold`, and the index itself (see `crate::index`).
    pub search_index: std::sync::Arc<crate::index::SearchIndex>,
    /// Fault injection (tests only).
    pub hooks: TestHooks,
}

impl Config {
    /// The most bytes a monitor's log keeps: `monitorLogMaxBytes`, 16 MiB by default.
    pub fn monitor_log_max_bytes(&self) -> u64 {
        self.monitor_log_max
            .unwrap_or(DEFAULT_MONITOR_LOG_MAX_BYTES)
    }

    /// A configuration with every default, for `root` (which is not checked). Meant for tests.
    pub fn with_root(root: impl Into<PathBuf>) -> Config {
        let root: PathBuf = root.into();
        Config {
            workspace_root: root.clone(),
            real_root: RealRoot::default(),
            max_output_bytes: DEFAULT_MAX_OUTPUT_BYTES,
            max_file_bytes: DEFAULT_MAX_FILE_BYTES,
            max_image_bytes: DEFAULT_MAX_IMAGE_BYTES,
            monitor_ready_timeout_ms: DEFAULT_MONITOR_READY_TIMEOUT_MS,
            max_monitors: DEFAULT_MAX_MONITORS,
            bash_timeout_ms: DEFAULT_BASH_TIMEOUT_MS,
            bash_timeout_max_ms: DEFAULT_BASH_TIMEOUT_MAX_MS,
            ripgrep_available: false,
            read_only: false,
            confine_to_workspace: true,
            compat: Compat::Latest,
            tree_sitter_available: true,
            tool_policy: ToolPolicy::default(),
            write_scope: Vec::new(),
            custom_tools: Vec::new(),
            redact: None,
            checkpoints: std::sync::Arc::new(crate::checkpoint::Store::new(
                &root,
                crate::checkpoint::DEFAULT_CHECKPOINT_BYTES,
            )),
            checkpoint_bash: false,
            kill_grace_ms: None,
            monitor_log_max: None,
            search_index: std::sync::Arc::new(crate::index::SearchIndex::new(
                crate::index::Mode::Auto,
                crate::index::DEFAULT_THRESHOLD,
            )),
            hooks: TestHooks::default(),
        }
    }

    /// The public `ServerConfig` shape, field order as in the original package: exactly
    /// 0.1's fields under `compat: "0.1"`, the newer fields after them otherwise.
    pub fn to_json(&self) -> Value {
        let mut v = serde_json::json!({
            "workspaceRoot": self.workspace_root.to_string_lossy(),
            "maxOutputBytes": self.max_output_bytes,
            "maxFileBytes": self.max_file_bytes,
            "bashTimeoutMs": self.bash_timeout_ms,
            "bashTimeoutMaxMs": self.bash_timeout_max_ms,
            "ripgrepAvailable": self.ripgrep_available,
            "readOnly": self.read_only,
            "confineToWorkspace": self.confine_to_workspace,
        });
        if self.compat == Compat::Latest {
            if let Some(o) = v.as_object_mut() {
                o.insert("maxImageBytes".into(), Value::from(self.max_image_bytes));
                o.insert(
                    "monitorReadyTimeoutMs".into(),
                    Value::from(self.monitor_ready_timeout_ms),
                );
                o.insert("maxMonitors".into(), Value::from(self.max_monitors));
                o.insert(
                    "treeSitterAvailable".into(),
                    Value::Bool(self.tree_sitter_available),
                );
                o.insert(
                    "checkpointBytes".into(),
                    Value::from(self.checkpoints.budget()),
                );
                o.insert("checkpointBash".into(), Value::Bool(self.checkpoint_bash));
                if let Some(ms) = self.kill_grace_ms {
                    o.insert("killGraceMs".into(), Value::from(ms));
                }
                if let Some(r) = &self.redact {
                    let patterns = r.host_patterns();
                    o.insert(
                        "redactSecrets".into(),
                        if patterns.is_empty() {
                            Value::Bool(true)
                        } else {
                            serde_json::json!({ "patterns": patterns })
                        },
                    );
                }
                if !self.write_scope.is_empty() {
                    let names: Vec<&str> =
                        self.write_scope.iter().map(|s| s.name.as_str()).collect();
                    o.insert("writeScope".into(), Value::from(names));
                }
                if let Some(n) = self.monitor_log_max {
                    o.insert("monitorLogMaxBytes".into(), Value::from(n));
                }
            }
        }
        v
    }
}

/// Resolves `createAgentTools` options into a [`Config`]. `ripgrep` is the result of the
/// caller's `probeRipgrep`, or `None` to probe `rg --version` here.
pub fn resolve_config(options: &Value, ripgrep: Option<bool>) -> Result<Config, StartupError> {
    resolve_config_with(
        options,
        Probes {
            ripgrep,
            tree_sitter: None,
        },
    )
}

/// [`resolve_config`] with every probe result the caller has.
pub fn resolve_config_with(options: &Value, probes: Probes) -> Result<Config, StartupError> {
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
    let builtins: Vec<&str> = crate::tools::all().iter().map(|t| t.name).collect();
    let custom_tools = crate::custom::parse(opts.get("customTools"), &builtins)?;
    // A policy may name the host's tools too.
    let mut known = builtins;
    known.extend(custom_tools.iter().map(|t| t.name.as_str()));
    let tool_policy = ToolPolicy::parse(opts.get("toolPolicy"), &known)?;
    let checkpoint_bytes = integer_option(
        opts,
        "checkpointBytes",
        crate::checkpoint::DEFAULT_CHECKPOINT_BYTES,
        0,
    )?;
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
        custom_tools,
        redact: crate::redact::parse(opts.get("redactSecrets"))?.map(std::sync::Arc::new),
        checkpoints: std::sync::Arc::new(crate::checkpoint::Store::new(&root, checkpoint_bytes)),
        checkpoint_bash: bool_option(opts, "checkpointBash", false),
        kill_grace_ms,
        monitor_log_max,
        search_index: std::sync::Arc::new(search_index_option(opts)?),
        hooks: hooks_option(opts),
    })
}
