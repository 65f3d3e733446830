//! Placeholders written back: a model that saw `[REDACTED:<kind>]` may put it in an edit,
//! which would overwrite the secret with its mask. A mutating call whose arguments carry one
//! is refused before the guard and the handler.

use crate::error::ToolError;
use serde_json::{Map, Value};

/// The first redaction placeholder in any string of `args` (keys included), with its JSON
/// pointer, or `None`.
fn find_placeholder(v: &Value, at: &str) -> Option<(String, String)> {
    match v {
        Value::String(s) => placeholder_in(s).map(|p| (at.to_string(), p)),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .find_map(|(i, x)| find_placeholder(x, &format!("{at}/{i}"))),
        Value::Object(o) => o.iter().find_map(|(k, x)| {
            let here = format!("{at}/{}", k.replace('~', "~0").replace('/', "~1"));
            placeholder_in(k)
                .map(|p| (here.clone(), p))
                .or_else(|| find_placeholder(x, &here))
        }),
        _ => None,
    }
}

/// `[REDACTED:<kind>]` as it occurs in `s`, if it does.
fn placeholder_in(s: &str) -> Option<String> {
    let mut rest = s;
    while let Some(i) = rest.find("[REDACTED:") {
        let tail = &rest[i + "[REDACTED:".len()..];
        let kind_len = tail
            .bytes()
            .take_while(|b| b.is_ascii_lowercase() || *b == b'_')
            .count();
        if kind_len > 0 && tail.as_bytes().get(kind_len) == Some(&b']') {
            return Some(format!("[REDACTED:{}]", &tail[..kind_len]));
        }
        rest = &rest[i + 1..];
    }
    None
}

/// The refusal of a mutating call whose arguments carry a placeholder: `invalid_input`
/// naming it and where it is (field `path` is the argument's JSON pointer).
pub fn refuse_placeholders(args: &Map<String, Value>) -> Result<(), ToolError> {
    let Some((at, placeholder)) = find_placeholder(&Value::Object(args.clone()), "") else {
        return Ok(());
    };
    Err(ToolError::invalid(format!(
        "The arguments contain the redaction placeholder {placeholder} (at {at}): a secret was hidden from you there, and writing the placeholder back would destroy it. Leave that text out of the change (edit around it), or ask the user to make this change."
    ))
    .with("placeholder", placeholder)
    .with("at", at))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_in_arguments_are_found() {
        let args = serde_json::json!({"path": "a", "edits": [{"new_string": "k=[REDACTED:github_token]"}]});
        let e = refuse_placeholders(args.as_object().unwrap()).unwrap_err();
        assert_eq!(e.fields["placeholder"], "[REDACTED:github_token]");
        assert_eq!(e.fields["at"], "/edits/0/new_string");
        assert!(e.message.starts_with("The arguments contain the redaction placeholder [REDACTED:github_token] (at /edits/0/new_string)"));
        let ok = serde_json::json!({"content": "[REDACTED] and [REDACTED:] and [REDACTED:X]"});
        assert!(refuse_placeholders(ok.as_object().unwrap()).is_ok());
    }
}
