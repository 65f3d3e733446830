//! Options → a frozen [`Config`], and the `StartupError` messages of a bad configuration.
//!
//! Configuration is resolved once, when the caller builds its tools, and is immutable after
//! that: every call reads the same `Arc<Config>`. Two entry points exist, as in the original
//! package: [`resolve_config`] for the options object of `createAgentTools`, and
//! [`build_config`] for a command line plus environment (`--workspace`, `READ_ONLY`, …).

use serde_json::{Map, Value};
use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

/// Default `maxOutputBytes`.
pub const DEFAULT_MAX_OUTPUT_BYTES: u64 = 131_072;
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

/// Which generation of the original's surface a configuration reproduces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Compat {
    /// `compat: "0.1"`: the nine 0.1 tools in 0.1 order, strict schemas
    /// (`additionalProperties: false`, no coercion), results `{ isError, text }`.
    V01,
    /// The default: the original's newest release (0.5) — its registry order, scalar
    /// coercion, unknown keys ignored, `0` meaning "the default" for the named limits, and
    /// results made of content parts.
    #[default]
    Latest,
}

impl Compat {
    /// Parses the `compat` option (`"0.1"`; `"0.5"` or `"latest"` for the default).
    pub fn parse(v: &Value) -> Result<Compat, StartupError> {
        match v {
            Value::Null => Ok(Compat::Latest),
            Value::String(s) if s == "0.1" => Ok(Compat::V01),
            Value::String(s) if s == "0.5" || s == "latest" => Ok(Compat::Latest),
            other => Err(StartupError(format!(
                "compat must be \"0.1\" or \"0.5\", got: {}",
                js_string(other)
            ))),
        }
    }
}

/// `toolPolicy`: which tools the surface keeps. An empty `allow` keeps all; `deny` wins.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolPolicy {
    /// Only these (when not empty).
    pub allow: Vec<String>,
    /// Never these.
    pub deny: Vec<String>,
}

impl ToolPolicy {
    /// Whether `name` stays on the surface.
    pub fn keeps(&self, name: &str) -> bool {
        (self.allow.is_empty() || self.allow.iter().any(|a| a == name))
            && !self.deny.iter().any(|d| d == name)
    }

    /// Parses the option; names must be tools of the registry (else `StartupError`).
    fn parse(v: Option<&Value>, known: &[&str]) -> Result<ToolPolicy, StartupError> {
        let Some(v) = v.filter(|v| !v.is_null()) else {
            return Ok(ToolPolicy::default());
        };
        let Value::Object(o) = v else {
            return Err(StartupError(format!(
                "toolPolicy must be an object with allow and/or deny lists, got: {}",
                js_string(v)
            )));
        };
        let list = |key: &str| -> Result<Vec<String>, StartupError> {
            match o.get(key) {
                None | Some(Value::Null) => Ok(Vec::new()),
                Some(Value::Array(a)) => a
                    .iter()
                    .map(|n| match n.as_str() {
                        Some(name) if known.contains(&name) => Ok(name.to_string()),
                        _ => Err(StartupError(format!(
                            "toolPolicy.{key} names an unknown tool: {} (tools: {})",
                            js_string(n),
                            known.join(", ")
                        ))),
                    })
                    .collect(),
                Some(other) => Err(StartupError(format!(
                    "toolPolicy.{key} must be an array of tool names, got: {}",
                    js_string(other)
                ))),
            }
        };
        Ok(ToolPolicy {
            allow: list("allow")?,
            deny: list("deny")?,
        })
    }
}

/// One `writeScope` directory: the workspace-relative name the host gave (normalised) and
/// its real location, fixed when the configuration is resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteScope {
    /// The directory as shown in errors (`src`, `.` for the whole workspace).
    pub name: String,
    /// Its real location (longest existing prefix realpath'd, the rest appended).
    pub real: PathBuf,
}

impl WriteScope {
    /// Parses the `writeScope` option against the workspace root. Absent or null → no
    /// scope (every write allowed). Overlapping entries are fine: the scope is their union.
    /// A `StartupError` for anything else than a non-empty array of non-empty relative
    /// paths whose real locations lie inside the root and are directories when they exist.
    pub fn parse(v: &Value, root: &Path) -> Result<Vec<WriteScope>, StartupError> {
        if v.is_null() {
            return Ok(Vec::new());
        }
        let Value::Array(entries) = v else {
            return Err(StartupError(format!(
                "writeScope must be an array of workspace-relative directories, got: {}",
                js_string(v)
            )));
        };
        if entries.is_empty() {
            return Err(StartupError(
                "writeScope must name at least one directory (use readOnly: true to forbid every write)."
                    .into(),
            ));
        }
        let real_root = std::fs::canonicalize(root)
            .map_err(|e| StartupError(format!("Workspace root does not resolve: {e}")))?;
        entries
            .iter()
            .map(|entry| {
                let raw = match entry {
                    Value::String(s) if !s.is_empty() && !s.contains('\0') => s,
                    other => {
                        return Err(StartupError(format!(
                            "writeScope entries must be non-empty strings, got: {}",
                            js_string(other)
                        )))
                    }
                };
                if Path::new(raw).is_absolute() {
                    return Err(StartupError(format!(
                        "writeScope entries must be workspace-relative directories, got: {raw}"
                    )));
                }
                let rel = normalize(Path::new(raw));
                let escapes = || {
                    StartupError(format!(
                        "writeScope entry escapes the workspace root: {raw}"
                    ))
                };
                if rel.starts_with("..") {
                    return Err(escapes());
                }
                let real =
                    crate::workspace::realpath_prefix(&root.join(&rel)).map_err(|_| escapes())?;
                if !(real == real_root || real.starts_with(&real_root)) {
                    return Err(escapes());
                }
                if std::fs::metadata(&real).is_ok_and(|m| !m.is_dir()) {
                    return Err(StartupError(format!(
                        "writeScope entry is not a directory: {raw}"
                    )));
                }
                Ok(WriteScope {
                    name: rel.to_string_lossy().into_owned(),
                    real,
                })
            })
            .collect()
    }
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

/// Whether an `rg` binary answers `rg --version`.
pub fn probe_ripgrep() -> bool {
    std::process::Command::new("rg")
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
}

/// Lexical normalisation: `.` dropped, `..` pops a component (never above the root: `/..`
/// is `/`, as in `path.resolve`); a relative path keeps its leading `..`s (`../../x`).
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                // `PathBuf::pop` would eat a leading `..` and cannot rise above `/`.
                let ends_in_parent =
                    matches!(out.components().next_back(), Some(Component::ParentDir));
                if ends_in_parent || (!out.pop() && !out.has_root()) {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

/// `path.resolve(p)`: absolute against the process cwd, then normalised.
pub fn absolutize(p: &str) -> PathBuf {
    let path = Path::new(p);
    if path.is_absolute() {
        normalize(path)
    } else {
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
        normalize(&cwd.join(path))
    }
}

/// Renders a JSON value the way JavaScript's `String(value)` would, for error messages.
pub fn js_string(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => js_number(n),
        Value::String(s) => s.clone(),
        Value::Array(a) => a
            .iter()
            .map(|x| {
                if x.is_null() {
                    String::new()
                } else {
                    js_string(x)
                }
            })
            .collect::<Vec<_>>()
            .join(","),
        Value::Object(_) => "[object Object]".into(),
    }
}

fn js_number(n: &serde_json::Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    if let Some(u) = n.as_u64() {
        return u.to_string();
    }
    let f = n.as_f64().unwrap_or(f64::NAN);
    if f.fract() == 0.0 && f.abs() < 1e21 {
        format!("{f:.0}")
    } else {
        f.to_string()
    }
}

fn integer_option(
    opts: &Map<String, Value>,
    name: &str,
    default: u64,
    min: u64,
) -> Result<u64, StartupError> {
    let v = match opts.get(name) {
        None | Some(Value::Null) => return Ok(default),
        Some(v) => v,
    };
    let as_int = v.as_u64().or_else(|| {
        v.as_f64()
            .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f <= 9.007_199_254_740_991e15)
            .map(|f| f as u64)
    });
    match as_int {
        Some(n) if n >= min => Ok(n),
        _ => Err(StartupError(format!(
            "{name} must be an integer >= {min}, got: {}",
            js_string(v)
        ))),
    }
}

fn bool_option(opts: &Map<String, Value>, name: &str, default: bool) -> bool {
    match opts.get(name) {
        None | Some(Value::Null) => default,
        Some(Value::Bool(b)) => *b,
        // JavaScript truthiness for the odd non-boolean value.
        Some(Value::Number(n)) => n.as_f64().map(|f| f != 0.0).unwrap_or(false),
        Some(Value::String(s)) => !s.is_empty(),
        Some(_) => true,
    }
}

/// The environment variable that must be `1` for `__testHooks` to take effect.
pub const TEST_HOOKS_ENV: &str = "CLARVIS_AGENT_TOOLS_TEST_HOOKS";

fn hooks_option(opts: &Map<String, Value>) -> TestHooks {
    let Some(Value::Object(h)) = opts.get("__testHooks") else {
        return TestHooks::default();
    };
    if std::env::var(TEST_HOOKS_ENV).as_deref() != Ok("1") {
        return TestHooks::default();
    }
    TestHooks {
        panic_in: h.get("panicIn").and_then(Value::as_str).map(str::to_string),
        fail_commit_after: h.get("failCommitAfter").and_then(Value::as_u64),
        commit_pause_ms: h.get("commitPauseMs").and_then(Value::as_u64),
        no_journal: h.get("noJournal").and_then(Value::as_bool).unwrap_or(false),
    }
}

/// `searchIndex` (`"auto"` | `"on"` | `"off"`, default `"auto"`) and
/// `searchIndexThreshold` (an integer >= 1, default 20,000).
fn search_index_option(
    opts: &Map<String, Value>,
) -> Result<crate::index::SearchIndex, StartupError> {
    use crate::index::{Mode, SearchIndex, DEFAULT_THRESHOLD};
    let mode = match opts.get("searchIndex") {
        None | Some(Value::Null) => Mode::Auto,
        Some(v) => v.as_str().and_then(Mode::parse).ok_or_else(|| {
            StartupError(format!(
                "searchIndex must be \"auto\", \"on\" or \"off\", got: {}",
                js_string(v)
            ))
        })?,
    };
    let threshold = integer_option(opts, "searchIndexThreshold", DEFAULT_THRESHOLD, 1)?;
    Ok(SearchIndex::new(mode, threshold))
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
    let max_output_bytes = integer_option(opts, "maxOutputBytes", DEFAULT_MAX_OUTPUT_BYTES, 1024)?;
    let max_file_bytes = integer_option(opts, "maxFileBytes", DEFAULT_MAX_FILE_BYTES, 1024)?;
    let max_image_bytes = integer_option(opts, "maxImageBytes", DEFAULT_MAX_IMAGE_BYTES, 1024)?;
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

fn parse_bool_env(name: &str, raw: &str) -> Result<bool, StartupError> {
    match raw.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" | "" => Ok(false),
        _ => Err(StartupError(format!(
            "{name} must be one of 1/true/yes/on or 0/false/no/off, got: {raw}"
        ))),
    }
}

fn parse_int_env(
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
/// `ALLOW_OUTSIDE_WORKSPACE`, and the four integer limits from the environment.
pub fn build_config(
    argv: &[String],
    env: &HashMap<String, String>,
    ripgrep: Option<bool>,
) -> Result<Config, StartupError> {
    build_config_with(
        argv,
        env,
        Probes {
            ripgrep,
            tree_sitter: None,
        },
    )
}

/// [`build_config`] with every probe result the caller has. Beyond the original's flags,
/// `--compat <v>` / `--compat=<v>` / `AGENT_TOOLS_COMPAT` select the compatibility mode.
pub fn build_config_with(
    argv: &[String],
    env: &HashMap<String, String>,
    probes: Probes,
) -> Result<Config, StartupError> {
    let mut compat: Option<String> = None;
    let mut workspace: Option<String> = None;
    let mut read_only_flag = false;
    let mut allow_outside_flag = false;
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
    let timeout = parse_int_env(env, "BASH_TIMEOUT_MS", 1)?;
    let timeout_max = parse_int_env(env, "BASH_TIMEOUT_MAX_MS", 1)?;
    let t = timeout.unwrap_or(DEFAULT_BASH_TIMEOUT_MS);
    let tm = timeout_max.unwrap_or(DEFAULT_BASH_TIMEOUT_MAX_MS);
    if tm < t {
        return Err(StartupError(format!(
            "BASH_TIMEOUT_MAX_MS ({tm}) must be >= BASH_TIMEOUT_MS ({t})."
        )));
    }
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
        "compat": compat.or_else(|| env.get("AGENT_TOOLS_COMPAT").filter(|s| !s.is_empty()).cloned()),
    });
    resolve_config_with(&options, probes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn env(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn argv(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn defaults_and_normalised_root() {
        let dir = tempfile::tempdir().unwrap();
        let raw = format!("{}/x/..", dir.path().display());
        let c = resolve_config(&json!({ "workspaceRoot": raw }), Some(false)).unwrap();
        assert_eq!(c.workspace_root, dir.path());
        assert_eq!(c.max_output_bytes, 131_072);
        assert_eq!(c.max_file_bytes, 20_000_000);
        assert!(!c.read_only && c.confine_to_workspace);
    }

    #[test]
    fn startup_messages() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_str().unwrap();
        let err = |v: Value| resolve_config(&v, Some(false)).unwrap_err().0;
        assert_eq!(
            err(json!({})),
            "No workspace root: options.workspaceRoot is required."
        );
        assert_eq!(
            err(json!({"workspaceRoot": root, "maxOutputBytes": 100})),
            "maxOutputBytes must be an integer >= 1024, got: 100"
        );
        assert_eq!(
            err(json!({"workspaceRoot": root, "maxFileBytes": 2048.5})),
            "maxFileBytes must be an integer >= 1024, got: 2048.5"
        );
        assert_eq!(
            err(json!({"workspaceRoot": root, "bashTimeoutMs": 10, "bashTimeoutMaxMs": 5})),
            "bashTimeoutMaxMs (5) must be >= bashTimeoutMs (10)."
        );
        let missing = format!("{root}/nope");
        assert_eq!(
            err(json!({ "workspaceRoot": missing })),
            format!("Workspace root does not exist: {missing}")
        );
        std::fs::write(dir.path().join("f"), "").unwrap();
        assert_eq!(
            err(json!({ "workspaceRoot": format!("{root}/f") })),
            format!("Workspace root is not a directory: {root}/f")
        );
    }

    #[cfg(unix)]
    #[test]
    fn write_scope_startup_errors() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_str().unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("f"), "").unwrap();
        std::os::unix::fs::symlink("/tmp", dir.path().join("out")).unwrap();
        let err = |scope: Value| {
            resolve_config(
                &json!({"workspaceRoot": root, "writeScope": scope}),
                Some(false),
            )
            .unwrap_err()
            .0
        };
        assert_eq!(
            err(json!("src")),
            "writeScope must be an array of workspace-relative directories, got: src"
        );
        assert_eq!(
            err(json!([])),
            "writeScope must name at least one directory (use readOnly: true to forbid every write)."
        );
        assert_eq!(
            err(json!([""])),
            "writeScope entries must be non-empty strings, got: "
        );
        assert_eq!(
            err(json!(["/etc"])),
            "writeScope entries must be workspace-relative directories, got: /etc"
        );
        assert_eq!(
            err(json!(["src/../../x"])),
            "writeScope entry escapes the workspace root: src/../../x"
        );
        assert_eq!(
            err(json!(["out/x"])),
            "writeScope entry escapes the workspace root: out/x"
        );
        assert_eq!(err(json!(["f"])), "writeScope entry is not a directory: f");
        let c = resolve_config(
            &json!({"workspaceRoot": root, "writeScope": ["src", "src/a", "./new/"]}),
            Some(false),
        )
        .unwrap();
        let names: Vec<&str> = c.write_scope.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["src", "src/a", "new"]);
        assert_eq!(c.to_json()["writeScope"], json!(["src", "src/a", "new"]));
    }

    #[test]
    fn build_config_reads_flags_and_env() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_str().unwrap();
        let c = build_config(
            &argv(&["--workspace", root, "--read-only"]),
            &env(&[
                ("ALLOW_OUTSIDE_WORKSPACE", " Yes "),
                ("MAX_OUTPUT_BYTES", "2048"),
            ]),
            Some(true),
        )
        .unwrap();
        assert!(c.read_only && !c.confine_to_workspace && c.ripgrep_available);
        assert_eq!(c.max_output_bytes, 2048);
        let c = build_config(
            &argv(&[&format!("--workspace={root}")]),
            &env(&[("READ_ONLY", "")]),
            Some(false),
        )
        .unwrap();
        assert!(!c.read_only);
        let e = |a: &[&str], v: &[(&str, &str)]| {
            build_config(&argv(a), &env(v), Some(false)).unwrap_err().0
        };
        assert_eq!(
            e(&["--workspace"], &[]),
            "--workspace requires a path argument"
        );
        assert_eq!(
            e(&["--workspace", "--read-only"], &[]),
            "--workspace requires a path argument"
        );
        assert_eq!(
            e(&["--workspace="], &[]),
            "--workspace requires a path argument"
        );
        assert_eq!(
            e(&[], &[]),
            "No workspace root: pass --workspace <path> or set WORKSPACE_ROOT."
        );
        assert_eq!(
            e(&[], &[("WORKSPACE_ROOT", root), ("READ_ONLY", "maybe")]),
            "READ_ONLY must be one of 1/true/yes/on or 0/false/no/off, got: maybe"
        );
        for raw in [" 100 ", "12.5", "-5"] {
            assert_eq!(
                e(&[], &[("WORKSPACE_ROOT", root), ("MAX_FILE_BYTES", raw)]),
                format!("MAX_FILE_BYTES must be a positive integer, got: {raw}")
            );
        }
        assert_eq!(
            e(&[], &[("WORKSPACE_ROOT", root), ("BASH_TIMEOUT_MS", "0")]),
            "BASH_TIMEOUT_MS must be an integer >= 1, got: 0"
        );
        assert_eq!(
            e(
                &[],
                &[
                    ("WORKSPACE_ROOT", root),
                    ("BASH_TIMEOUT_MS", "20"),
                    ("BASH_TIMEOUT_MAX_MS", "10")
                ]
            ),
            "BASH_TIMEOUT_MAX_MS (10) must be >= BASH_TIMEOUT_MS (20)."
        );
    }
}
