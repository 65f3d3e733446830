//! Argument validation with the wording and order of ajv (`allErrors`, `useDefaults`).
//!
//! Tools' input schemas use a small JSON Schema subset: `type`, `properties`, `required`,
//! `additionalProperties: false`, `enum`, `minLength`, `minimum`, `maximum`, `minItems`,
//! `items` and `default`. This module validates a copy of the arguments against it, fills in
//! defaults on that copy, and reports every failure as ajv would (`data/edits/0/old_string
//! must be string`), in the order ajv evaluates keywords, so messages match the original
//! package byte for byte. The `jsonschema` crate checks in tests that the schemas are valid
//! JSON Schema and that this validator agrees with it.

use serde_json::{Map, Value};

/// One failure: where (`data`, `data/path`) and what (`must be string`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// `data` followed by the JSON pointer of the offending value.
    pub at: String,
    /// ajv's message.
    pub what: String,
}

/// Validates `data` against `schema`, filling defaults into `data`. Returns every failure.
pub fn validate(schema: &Value, data: &mut Value) -> Vec<Failure> {
    let mut out = Vec::new();
    check(schema, data, "data", &mut out);
    out
}

/// The `invalid_input` message for a list of failures, joined by `"; "`.
pub fn message(failures: &[Failure]) -> String {
    if failures.is_empty() {
        return "invalid arguments".into();
    }
    failures
        .iter()
        .map(|f| format!("{} {}", f.at, f.what))
        .collect::<Vec<_>>()
        .join("; ")
}

/// Whether a JSON number is an integer as JavaScript sees it (`Number.isInteger`).
pub fn is_integer(v: &Value) -> bool {
    match v {
        Value::Number(n) => {
            n.is_i64()
                || n.is_u64()
                || n.as_f64()
                    .is_some_and(|f| f.is_finite() && f.fract() == 0.0)
        }
        _ => false,
    }
}

fn type_matches(ty: &str, v: &Value) -> bool {
    match ty {
        "string" => v.is_string(),
        "integer" => is_integer(v),
        "number" => v.is_number(),
        "boolean" => v.is_boolean(),
        "object" => v.is_object(),
        "array" => v.is_array(),
        "null" => v.is_null(),
        _ => true,
    }
}

const NUMBER_KEYS: &[&str] = &["minimum", "maximum"];
const STRING_KEYS: &[&str] = &["minLength", "maxLength"];
const ARRAY_KEYS: &[&str] = &["minItems", "items"];
const OBJECT_KEYS: &[&str] = &["required", "additionalProperties", "properties"];

fn has_any(schema: &Map<String, Value>, keys: &[&str]) -> bool {
    keys.iter().any(|k| schema.contains_key(*k))
}

fn check(schema: &Value, data: &mut Value, at: &str, out: &mut Vec<Failure>) {
    let Some(s) = schema.as_object() else { return };
    let ty = s.get("type").and_then(Value::as_str);
    let fail = |out: &mut Vec<Failure>, what: String| {
        out.push(Failure {
            at: at.to_string(),
            what,
        })
    };

    // ajv reports a type mismatch up front unless the type's own keyword group will report
    // it (number/string/array/object with keywords of that group present).
    let group_reports = match ty {
        Some("number") => has_any(s, NUMBER_KEYS),
        Some("string") => has_any(s, STRING_KEYS),
        Some("array") => has_any(s, ARRAY_KEYS),
        Some("object") => has_any(s, OBJECT_KEYS),
        _ => false,
    };
    if let Some(t) = ty {
        if !group_reports && !type_matches(t, data) {
            fail(out, format!("must be {t}"));
        }
    }
    if let Some(Value::Array(allowed)) = s.get("enum") {
        if !allowed.iter().any(|a| a == data) {
            fail(out, "must be equal to one of the allowed values".into());
        }
    }

    // number group
    if has_any(s, NUMBER_KEYS) {
        if let Some(x) = data.as_f64() {
            if let Some(min) = s.get("minimum").and_then(Value::as_f64) {
                if x < min {
                    fail(out, format!("must be >= {}", fmt_num(min)));
                }
            }
            if let Some(max) = s.get("maximum").and_then(Value::as_f64) {
                if x > max {
                    fail(out, format!("must be <= {}", fmt_num(max)));
                }
            }
        } else if ty == Some("number") {
            fail(out, "must be number".into());
        }
    }
    // string group
    if has_any(s, STRING_KEYS) {
        if let Some(text) = data.as_str() {
            // ajv counts code points (ucs2length), not UTF-16 units.
            let len = text.chars().count() as u64;
            if let Some(min) = s.get("minLength").and_then(Value::as_u64) {
                if len < min {
                    fail(out, format!("must NOT have fewer than {min} characters"));
                }
            }
            if let Some(max) = s.get("maxLength").and_then(Value::as_u64) {
                if len > max {
                    fail(out, format!("must NOT have more than {max} characters"));
                }
            }
        } else if ty == Some("string") {
            fail(out, "must be string".into());
        }
    }
    // array group
    if has_any(s, ARRAY_KEYS) {
        if let Some(items) = data.as_array_mut() {
            if let Some(min) = s.get("minItems").and_then(Value::as_u64) {
                if (items.len() as u64) < min {
                    fail(out, format!("must NOT have fewer than {min} items"));
                }
            }
            if let Some(item_schema) = s.get("items") {
                for (i, item) in items.iter_mut().enumerate() {
                    check(item_schema, item, &format!("{at}/{i}"), out);
                }
            }
        } else if ty == Some("array") {
            fail(out, "must be array".into());
        }
    }
    // object group
    if has_any(s, OBJECT_KEYS) {
        if let Some(obj) = data.as_object_mut() {
            let props = s.get("properties").and_then(Value::as_object);
            if let Some(props) = props {
                for (k, ps) in props {
                    if let (false, Some(d)) = (obj.contains_key(k), ps.get("default")) {
                        obj.insert(k.clone(), d.clone());
                    }
                }
            }
            if let Some(Value::Array(req)) = s.get("required") {
                for r in req.iter().filter_map(Value::as_str) {
                    if !obj.contains_key(r) {
                        fail(out, format!("must have required property '{r}'"));
                    }
                }
            }
            if s.get("additionalProperties") == Some(&Value::Bool(false)) {
                for k in obj.keys() {
                    if !props.is_some_and(|p| p.contains_key(k)) {
                        fail(out, "must NOT have additional properties".into());
                    }
                }
            }
            if let Some(props) = props {
                for (k, ps) in props {
                    if let Some(v) = obj.get_mut(k) {
                        check(ps, v, &format!("{at}/{}", pointer_escape(k)), out);
                    }
                }
            }
        } else if ty == Some("object") {
            fail(out, "must be object".into());
        }
    }
}

fn pointer_escape(k: &str) -> String {
    k.replace('~', "~0").replace('/', "~1")
}

fn fmt_num(f: f64) -> String {
    if f.fract() == 0.0 && f.abs() < 1e15 {
        format!("{f:.0}")
    } else {
        f.to_string()
    }
}

/// Reads an integer argument, saturating at the `i64` range (JSON numbers like `1e300` are
/// integers to ajv).
pub fn int_arg(args: &Map<String, Value>, key: &str) -> Option<i64> {
    let v = args.get(key)?;
    if let Some(i) = v.as_i64() {
        return Some(i);
    }
    if v.as_u64().is_some() {
        return Some(i64::MAX);
    }
    v.as_f64()
        .map(|f| f.clamp(i64::MIN as f64, i64::MAX as f64) as i64)
}

/// Reads a string argument.
pub fn str_arg<'a>(args: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    args.get(key).and_then(Value::as_str)
}

/// Reads a boolean argument.
pub fn bool_arg(args: &Map<String, Value>, key: &str) -> Option<bool> {
    args.get(key).and_then(Value::as_bool)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "path": { "type": "string" },
                "offset": { "type": "integer", "default": 1 },
                "limit": { "type": "integer", "minimum": 1, "default": 2000 },
                "mode": { "type": "string", "enum": ["a", "b"] },
                "edits": {
                    "type": "array", "minItems": 1,
                    "items": {
                        "type": "object",
                        "properties": { "old_string": { "type": "string", "minLength": 1 } },
                        "required": ["old_string"],
                        "additionalProperties": false
                    }
                }
            },
            "required": ["path"],
            "additionalProperties": false
        })
    }

    fn msg(mut v: Value) -> String {
        message(&validate(&schema(), &mut v))
    }

    #[test]
    fn ajv_wording_and_order() {
        assert_eq!(msg(json!({})), "data must have required property 'path'");
        assert_eq!(
            msg(json!({"path": 1, "x": 1, "limit": 0.5})),
            "data must NOT have additional properties; data/path must be string; data/limit must be integer; data/limit must be >= 1"
        );
        assert_eq!(
            msg(json!({"path": "a", "mode": 3})),
            "data/mode must be string; data/mode must be equal to one of the allowed values"
        );
        assert_eq!(
            msg(json!({"path": "a", "edits": []})),
            "data/edits must NOT have fewer than 1 items"
        );
        assert_eq!(
            msg(json!({"path": "a", "edits": [{"old_string": ""}, {"y": 1}]})),
            "data/edits/0/old_string must NOT have fewer than 1 characters; data/edits/1 must have required property 'old_string'; data/edits/1 must NOT have additional properties"
        );
        assert_eq!(msg(json!([])), "data must be object");
        assert_eq!(
            msg(json!({"path": "a", "edits": "x"})),
            "data/edits must be array"
        );
    }

    #[test]
    fn defaults_fill_the_copy() {
        let mut v = json!({"path": "a"});
        assert!(validate(&schema(), &mut v).is_empty());
        assert_eq!(v, json!({"path": "a", "offset": 1, "limit": 2000}));
        let mut v = json!({"path": "a", "limit": 2e0});
        assert!(validate(&schema(), &mut v).is_empty());
    }
}
