//! `review` and `reviewBytes`: staged changes a host accepts (SPEC §13).

use super::values::{integer_option, js_string};
use super::{Compat, StartupError};
use serde_json::{Map, Value};

/// Default `reviewBytes`: 256 MiB of staged content per scope.
pub const DEFAULT_REVIEW_BYTES: u64 = 256 * 1024 * 1024;

/// The scope a bare `review: true` stages into.
pub const DEFAULT_SCOPE: &str = "default";

/// What `bash` and monitors do in review mode (`review.commands`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Commands {
    /// Refused with a clear error (the default): their writes could not be reviewed.
    Refuse,
    /// They run on the real workspace; the host said so, and the guard context says it too.
    Direct,
}

impl Commands {
    /// The option's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Commands::Refuse => "refuse",
            Commands::Direct => "direct",
        }
    }
}

/// `review` when on: the values of one staging area (the area itself is a runtime service).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReviewConfig {
    /// The staging area's name: `<root>/.clarvis/review/<scope>/`.
    pub scope: String,
    /// What commands do.
    pub commands: Commands,
    /// `reviewBytes`: the most staged bytes this scope holds.
    pub bytes: u64,
    /// `review.tools`: the host's review calls are tools of the surface
    /// ([`crate::tools::REVIEW_TOOLS`]), for a host that speaks MCP only.
    pub tools: bool,
}

impl ReviewConfig {
    /// The public config shape: `{ scope, commands, tools? }` (`reviewBytes` is its own key;
    /// `tools` only when on).
    pub fn to_json(&self) -> Value {
        let mut v = serde_json::json!({ "scope": self.scope, "commands": self.commands.as_str() });
        if self.tools {
            v["tools"] = Value::Bool(true);
        }
        v
    }
}

impl super::Config {
    /// This configuration writing the workspace itself: the host's own writes (`accept`,
    /// `tools.restore`) are decisions already made, so they never stage.
    pub fn without_review(&self) -> super::Config {
        super::Config {
            review: None,
            ..self.clone()
        }
    }
}

/// Whether `name` may name a scope: 1–64 of `[A-Za-z0-9_-]` (it becomes a directory name, so
/// nothing that could climb, hide or collide with case-insensitive spellings of dots).
pub fn valid_scope(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Reads `review` and `reviewBytes`. Under `compat: "0.1"` review stays off whatever is given:
/// that generation's behaviour is byte-identical to the original, which had no review.
pub(super) fn parse(
    opts: &Map<String, Value>,
    compat: Compat,
) -> Result<Option<ReviewConfig>, StartupError> {
    let bytes = integer_option(opts, "reviewBytes", DEFAULT_REVIEW_BYTES, 1)?;
    let mut scope = DEFAULT_SCOPE.to_string();
    let mut commands = Commands::Refuse;
    let mut tools = false;
    match opts.get("review") {
        None | Some(Value::Null) | Some(Value::Bool(false)) => return Ok(None),
        Some(Value::Bool(true)) => {}
        Some(Value::Object(o)) => {
            match o.get("scope") {
                None | Some(Value::Null) => {}
                Some(Value::String(s)) if valid_scope(s) => scope = s.clone(),
                Some(v) => {
                    return Err(StartupError(format!(
                        "review.scope must be 1 to 64 letters, digits, '_' or '-', got: {}",
                        js_string(v)
                    )))
                }
            }
            match o.get("commands") {
                None | Some(Value::Null) => {}
                Some(Value::String(s)) if s == "refuse" => {}
                Some(Value::String(s)) if s == "direct" => commands = Commands::Direct,
                Some(v) => {
                    return Err(StartupError(format!(
                        "review.commands must be \"refuse\" or \"direct\", got: {}",
                        js_string(v)
                    )))
                }
            }
            match o.get("tools") {
                None | Some(Value::Null) => {}
                Some(Value::Bool(b)) => tools = *b,
                Some(v) => {
                    return Err(StartupError(format!(
                        "review.tools must be a boolean, got: {}",
                        js_string(v)
                    )))
                }
            }
        }
        Some(v) => {
            return Err(StartupError(format!(
                "review must be true, false or {{ scope?, commands?, tools? }}, got: {}",
                js_string(v)
            )))
        }
    }
    if compat == Compat::V01 {
        return Ok(None);
    }
    Ok(Some(ReviewConfig {
        scope,
        commands,
        bytes,
        tools,
    }))
}

/// The `review` option of the command line (`clarvis-agent-tools mcp`): `CLARVIS_REVIEW` (a
/// boolean word, or the option's JSON object), then the flags, which win: `--review` (on),
/// `--review-scope <name>`, `--review-commands <refuse|direct>` and `--review-tools` (each
/// turns review on). `Value::Bool(false)` when neither asks for it.
pub(super) fn from_cli(
    argv: &[String],
    env: &std::collections::HashMap<String, String>,
) -> Result<Value, StartupError> {
    let mut v = match env.get("CLARVIS_REVIEW").map(|s| s.trim()) {
        None | Some("") => Value::Bool(false),
        Some(raw) if raw.starts_with('{') => serde_json::from_str(raw)
            .map_err(|e| StartupError(format!("CLARVIS_REVIEW is not valid JSON: {e}")))?,
        Some(raw) => Value::Bool(super::cli::parse_bool_env("CLARVIS_REVIEW", raw)?),
    };
    let mut on = false;
    let mut set = Map::new();
    let mut i = 0;
    while i < argv.len() {
        let a = argv[i].as_str();
        match a {
            "--review" => on = true,
            "--review-tools" => {
                set.insert("tools".into(), Value::Bool(true));
            }
            _ => {
                for (flag, key) in [
                    ("--review-scope", "scope"),
                    ("--review-commands", "commands"),
                ] {
                    let value = if a == flag {
                        i += 1;
                        argv.get(i).cloned()
                    } else if let Some(v) = a.strip_prefix(flag).and_then(|r| r.strip_prefix('=')) {
                        Some(v.to_string())
                    } else {
                        continue;
                    };
                    match value {
                        Some(v) if !v.is_empty() && !v.starts_with("--") => {
                            set.insert(key.into(), Value::String(v));
                        }
                        _ => return Err(StartupError(format!("{flag} requires an argument"))),
                    }
                }
            }
        }
        i += 1;
    }
    if !on && set.is_empty() {
        return Ok(v);
    }
    if !v.is_object() {
        v = Value::Object(Map::new());
    }
    if let Some(o) = v.as_object_mut() {
        o.extend(set);
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn of(v: Value, compat: Compat) -> Result<Option<ReviewConfig>, StartupError> {
        parse(v.as_object().unwrap(), compat)
    }

    #[test]
    fn shapes_and_refusals() {
        assert_eq!(of(json!({}), Compat::Latest).unwrap(), None);
        let on = of(json!({"review": true}), Compat::Latest)
            .unwrap()
            .unwrap();
        assert_eq!(
            (on.scope.as_str(), on.commands, on.bytes),
            ("default", Commands::Refuse, DEFAULT_REVIEW_BYTES)
        );
        let named = of(
            json!({"review": {"scope": "task-1", "commands": "direct"}, "reviewBytes": 4096}),
            Compat::Latest,
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            (named.scope.as_str(), named.commands, named.bytes),
            ("task-1", Commands::Direct, 4096)
        );
        let tools = of(json!({"review": {"tools": true}}), Compat::Latest)
            .unwrap()
            .unwrap();
        assert!(tools.tools);
        assert_eq!(
            tools.to_json(),
            json!({"scope": "default", "commands": "refuse", "tools": true})
        );
        assert_eq!(
            on.to_json(),
            json!({"scope": "default", "commands": "refuse"})
        );
        for bad in [
            json!({"review": {"tools": "yes"}}),
            json!({"review": {"scope": "../x"}}),
            json!({"review": {"scope": ""}}),
            json!({"review": {"commands": "yes"}}),
            json!({"review": 1}),
        ] {
            assert!(of(bad, Compat::Latest).is_err());
        }
        // 0.1 keeps review off.
        assert_eq!(of(json!({"review": true}), Compat::V01).unwrap(), None);
    }
}
