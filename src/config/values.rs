//! Reading option values the way the original package's JavaScript did (`String(v)`,
//! truthiness, integer limits with floors), and path normalisation like `path.resolve`.

use super::{IndexMode, StartupError, TestHooks, DEFAULT_SEARCH_INDEX_THRESHOLD};
use serde_json::{Map, Value};

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

pub(super) fn integer_option(
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

pub(super) fn bool_option(opts: &Map<String, Value>, name: &str, default: bool) -> bool {
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

/// Whether the test hooks' environment variable is set to `1`.
pub(super) fn hooks_enabled() -> bool {
    std::env::var(TEST_HOOKS_ENV).as_deref() == Ok("1")
}

pub(super) fn hooks_option(opts: &Map<String, Value>) -> TestHooks {
    let Some(Value::Object(h)) = opts.get("__testHooks") else {
        return TestHooks::default();
    };
    if !hooks_enabled() {
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
pub(super) fn search_index_option(
    opts: &Map<String, Value>,
) -> Result<(IndexMode, u64), StartupError> {
    let mode = match opts.get("searchIndex") {
        None | Some(Value::Null) => IndexMode::Auto,
        Some(v) => v.as_str().and_then(IndexMode::parse).ok_or_else(|| {
            StartupError(format!(
                "searchIndex must be \"auto\", \"on\" or \"off\", got: {}",
                js_string(v)
            ))
        })?,
    };
    let threshold = integer_option(
        opts,
        "searchIndexThreshold",
        DEFAULT_SEARCH_INDEX_THRESHOLD,
        1,
    )?;
    Ok((mode, threshold))
}

/// `staleWrites` (`"refuse"` | `"allow"`, default `"allow"`): whether a whole-file overwrite
/// of a file the model has not seen as it is now is refused.
pub(super) fn stale_writes_option(opts: &Map<String, Value>) -> Result<bool, StartupError> {
    match opts.get("staleWrites") {
        None | Some(Value::Null) => Ok(false),
        Some(Value::String(s)) if s == "allow" => Ok(false),
        Some(Value::String(s)) if s == "refuse" => Ok(true),
        Some(v) => Err(StartupError(format!(
            "staleWrites must be \"refuse\" or \"allow\", got: {}",
            js_string(v)
        ))),
    }
}
