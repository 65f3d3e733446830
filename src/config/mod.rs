//! Options → a frozen [`Config`] of plain values, and the `StartupError` messages of a bad
//! configuration.
//!
//! Configuration is resolved once, when the caller builds its tools, and is immutable after
//! that: every call reads the same `Arc<Config>`. Two entry points exist, as in the original
//! package: [`resolve_config`] for the options object of `createAgentTools`, and
//! [`build_config`] for a command line plus environment (`--workspace`, `READ_ONLY`, …).
//!
//! Architecture invariant: a `Config` is values only — numbers, flags, paths, the policy and
//! scope lists — cheap to clone, holding no service and knowing tools only by name. The
//! services built from it (checkpoints, the search index, the redactor, the host's tools)
//! belong to `crate::runtime`. This module imports nothing but `error` and `paths`; the two
//! option checks that need engines above it (the host's tool schemas, the redaction regexes)
//! are handed in through [`Checks`], at their place in the order of checks.

use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

mod cli;
mod policy;
mod resolve;
pub mod review;
pub mod sandbox;
#[cfg(test)]
mod tests;
mod values;

pub use cli::build_config;
pub use policy::{Compat, IndexMode, ToolPolicy, WriteScope};
pub use resolve::{resolve_config, Checks};
pub use review::{ReviewConfig, DEFAULT_REVIEW_BYTES};
pub use sandbox::SandboxPolicy;
pub use values::{js_string, probe_ripgrep, TEST_HOOKS_ENV};

/// V8's longest string, in UTF-16 units (`String::kMaxLength` on 64-bit builds): the bound
/// every result crossing to JavaScript must keep ([`MAX_OUTPUT_BYTES_CEILING`],
/// `dispatch::crossing`). A UTF-8 string of N bytes is at most N units, so N bytes within it
/// always convert.
pub const JS_MAX_STRING: usize = (1 << 29) - 24;

/// Default `maxOutputBytes`.
pub const DEFAULT_MAX_OUTPUT_BYTES: u64 = 131_072;
/// The largest `maxOutputBytes` honoured; a larger value acts as this one. A result reaches
/// JavaScript as one string, and V8 has none longer than
/// [`JS_MAX_STRING`] UTF-16 units: past that the conversion fails and the call
/// would end `internal` (a 1 GiB budget and a grep for `pub` over 234k files did). A text of
/// N UTF-8 bytes is at most N units, and 1 MiB is left for what a bounded result appends
/// (truncation markers, paging and scan footers).
pub const MAX_OUTPUT_BYTES_CEILING: u64 = JS_MAX_STRING as u64 - (1 << 20);
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

/// Default `searchIndexThreshold`: the file count from which `"auto"` builds an index.
pub const DEFAULT_SEARCH_INDEX_THRESHOLD: u64 = 20_000;
/// Default `maxShellSessions`: live `bash` sessions per tools object.
pub const DEFAULT_MAX_SHELL_SESSIONS: u64 = 8;
/// Default `shellSessionIdleMs`: 30 minutes.
pub const DEFAULT_SHELL_SESSION_IDLE_MS: u64 = 30 * 60 * 1000;
/// Default `checkpointBytes`: 256 MiB of stored prior contents.
pub const DEFAULT_CHECKPOINT_BYTES: u64 = 256 * 1024 * 1024;

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
    /// `redactSecrets`: `Some` when on, with the host's patterns as `[{source, flags}]`
    /// (the redactor itself is a service of `crate::runtime`).
    pub redact_secrets: Option<Vec<Value>>,
    /// `checkpointBytes`: the budget of this tools object's checkpoints.
    pub checkpoint_bytes: u64,
    /// `checkpointBash`: `bash` commands are checkpointed too.
    pub checkpoint_bash: bool,
    /// `checkpointTools`: the checkpoint calls are tools of the surface
    /// ([`crate::tools::CHECKPOINT_TOOLS`]).
    pub checkpoint_tools: bool,
    /// `killGraceMs`: how long a killed command gets between SIGTERM and SIGKILL. `None`
    /// keeps the original's behaviour (immediate SIGKILL for `bash`, 400 ms for monitors).
    pub kill_grace_ms: Option<u64>,
    /// `monitorLogMaxBytes` when given: the most a monitor's log holds (see
    /// [`Config::monitor_log_max_bytes`]).
    pub monitor_log_max: Option<u64>,
    /// `searchIndex`.
    pub search_index: IndexMode,
    /// `searchIndexThreshold`: the file count from which `"auto"` builds.
    pub search_index_threshold: u64,
    /// `staleWrites: "refuse"`: a whole-file overwrite needs the file's bytes to be what this
    /// tools object last showed the model (`crate::stale`). `false` (`"allow"`, the default)
    /// keeps the original's behaviour.
    pub refuse_stale_writes: bool,
    /// `sandbox`: the policy `bash` and monitors run under (`None`: off, the default).
    pub sandbox: Option<SandboxPolicy>,
    /// `maxShellSessions`: the most `bash` sessions live at once.
    pub max_shell_sessions: u64,
    /// `shellSessionIdleMs`: how long a `bash` session may sit unused before it ends.
    pub shell_session_idle_ms: u64,
    /// `review`: mutating file tools stage their changes for the host (`None`: off, the
    /// default, and always under `compat: "0.1"`). The staging area is a runtime service.
    pub review: Option<ReviewConfig>,
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
            redact_secrets: None,
            checkpoint_bytes: DEFAULT_CHECKPOINT_BYTES,
            checkpoint_bash: false,
            checkpoint_tools: false,
            kill_grace_ms: None,
            monitor_log_max: None,
            search_index: IndexMode::Auto,
            search_index_threshold: DEFAULT_SEARCH_INDEX_THRESHOLD,
            refuse_stale_writes: false,
            sandbox: None,
            max_shell_sessions: DEFAULT_MAX_SHELL_SESSIONS,
            shell_session_idle_ms: DEFAULT_SHELL_SESSION_IDLE_MS,
            review: None,
            hooks: TestHooks::default(),
        }
    }

    /// The public `ServerConfig` shape, field order as in the original package: 0.1's fields,
    /// then (latest surface) the newer fields, then every other setting that is not at its
    /// default — so a copy of the config (`{ ...tools.config }` handed to `dispatch`) resolves
    /// to the same surface and behaviour. A `compat: "0.1"` configuration that uses only 0.1's
    /// options is exactly 0.1's eight fields (the JS layer recognises a copy of it); with any
    /// newer option set, it also says `compat: "0.1"`.
    pub fn to_json(&self) -> Value {
        let mut o = Map::new();
        o.insert(
            "workspaceRoot".into(),
            Value::from(self.workspace_root.to_string_lossy()),
        );
        o.insert("maxOutputBytes".into(), Value::from(self.max_output_bytes));
        o.insert("maxFileBytes".into(), Value::from(self.max_file_bytes));
        o.insert("bashTimeoutMs".into(), Value::from(self.bash_timeout_ms));
        o.insert(
            "bashTimeoutMaxMs".into(),
            Value::from(self.bash_timeout_max_ms),
        );
        o.insert(
            "ripgrepAvailable".into(),
            Value::Bool(self.ripgrep_available),
        );
        o.insert("readOnly".into(), Value::Bool(self.read_only));
        o.insert(
            "confineToWorkspace".into(),
            Value::Bool(self.confine_to_workspace),
        );
        let latest = self.compat == Compat::Latest;
        // The newer fields: always on the latest surface, under 0.1 only when not default.
        let mut extra = Map::new();
        let mut newer = |key: &str, value: Value, default: Value| {
            if latest || value != default {
                extra.insert(key.into(), value);
            }
        };
        newer(
            "maxImageBytes",
            Value::from(self.max_image_bytes),
            Value::from(DEFAULT_MAX_IMAGE_BYTES),
        );
        newer(
            "monitorReadyTimeoutMs",
            Value::from(self.monitor_ready_timeout_ms),
            Value::from(DEFAULT_MONITOR_READY_TIMEOUT_MS),
        );
        newer(
            "maxMonitors",
            Value::from(self.max_monitors),
            Value::from(DEFAULT_MAX_MONITORS),
        );
        newer(
            "treeSitterAvailable",
            Value::Bool(self.tree_sitter_available),
            Value::Bool(true),
        );
        newer(
            "checkpointBytes",
            Value::from(self.checkpoint_bytes),
            Value::from(DEFAULT_CHECKPOINT_BYTES),
        );
        newer(
            "checkpointBash",
            Value::Bool(self.checkpoint_bash),
            Value::Bool(false),
        );
        if let Some(ms) = self.kill_grace_ms {
            extra.insert("killGraceMs".into(), Value::from(ms));
        }
        if let Some(patterns) = &self.redact_secrets {
            extra.insert(
                "redactSecrets".into(),
                if patterns.is_empty() {
                    Value::Bool(true)
                } else {
                    serde_json::json!({ "patterns": patterns.clone() })
                },
            );
        }
        if !self.write_scope.is_empty() {
            let names: Vec<&str> = self.write_scope.iter().map(|s| s.name.as_str()).collect();
            extra.insert("writeScope".into(), Value::from(names));
        }
        if let Some(n) = self.monitor_log_max {
            extra.insert("monitorLogMaxBytes".into(), Value::from(n));
        }
        let policy = &self.tool_policy;
        if !policy.allow.is_empty() || !policy.deny.is_empty() {
            let mut p = Map::new();
            if !policy.allow.is_empty() {
                p.insert("allow".into(), Value::from(policy.allow.clone()));
            }
            if !policy.deny.is_empty() {
                p.insert("deny".into(), Value::from(policy.deny.clone()));
            }
            extra.insert("toolPolicy".into(), Value::Object(p));
        }
        if self.checkpoint_tools {
            extra.insert("checkpointTools".into(), Value::Bool(true));
        }
        if let Some(s) = &self.sandbox {
            extra.insert("sandbox".into(), s.to_json());
        }
        if self.search_index != IndexMode::Auto {
            extra.insert(
                "searchIndex".into(),
                Value::from(self.search_index.as_str()),
            );
        }
        if self.search_index_threshold != DEFAULT_SEARCH_INDEX_THRESHOLD {
            extra.insert(
                "searchIndexThreshold".into(),
                Value::from(self.search_index_threshold),
            );
        }
        if self.refuse_stale_writes {
            extra.insert("staleWrites".into(), Value::from("refuse"));
        }
        if self.max_shell_sessions != DEFAULT_MAX_SHELL_SESSIONS {
            extra.insert(
                "maxShellSessions".into(),
                Value::from(self.max_shell_sessions),
            );
        }
        if self.shell_session_idle_ms != DEFAULT_SHELL_SESSION_IDLE_MS {
            extra.insert(
                "shellSessionIdleMs".into(),
                Value::from(self.shell_session_idle_ms),
            );
        }
        if let Some(r) = &self.review {
            extra.insert("review".into(), r.to_json());
            if r.bytes != DEFAULT_REVIEW_BYTES {
                extra.insert("reviewBytes".into(), Value::from(r.bytes));
            }
        }
        if !latest && !extra.is_empty() {
            o.insert("compat".into(), Value::from("0.1"));
        }
        o.extend(extra);
        Value::Object(o)
    }
}
