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
}

impl ReviewConfig {
    /// The public config shape: `{ scope, commands }` (`reviewBytes` is its own key).
    pub fn to_json(&self) -> Value {
        serde_json::json!({ "scope": self.scope, "commands": self.commands.as_str() })
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
        }
        Some(v) => {
            return Err(StartupError(format!(
                "review must be true, false or {{ scope?, commands? }}, got: {}",
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
    }))
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
        for bad in [
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
