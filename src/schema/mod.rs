//! Argument validation with the wording and order of ajv (`allErrors`, `useDefaults`).
//!
//! Tools' input schemas use a small JSON Schema subset: `type` (a name or a list of names), `properties`, `required`,
//! `additionalProperties: false`, `enum`, `minLength`, `minimum`, `maximum`, `minItems`, `maxItems`,
//! `items` and `default` (plus `maxLength` and `pattern`, which only hosts' `customTools` use).
//! This module validates a copy of the arguments against it, fills in
//! defaults on that copy, and reports every failure as ajv would (`data/edits/0/old_string
//! must be string`), in the order ajv evaluates keywords, so messages match the original
//! package byte for byte. The `jsonschema` crate checks in tests that the schemas are valid
//! JSON Schema and that this validator agrees with it.

use serde_json::{Map, Value};

mod coerce;
#[cfg(test)]
mod tests;

use coerce::coerce_to;
pub use coerce::relax;

/// One failure: where (`data`, `data/path`) and what (`must be string`), plus the structured
/// facts of a validation issue (`path`, `expected`, `received`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// `data` followed by the JSON pointer of the offending value (ajv's `instancePath`).
    pub at: String,
    /// ajv's message.
    pub what: String,
    /// The JSON pointer of the value to fix: `at` without `data`, and for a missing or
    /// unexpected property the property itself (`/edits/0/old_string`).
    pub path: String,
    /// What the schema wants, in a few words (`string`, `>= 1`, `at least 1 characters`).
    pub expected: String,
    /// What arrived, in a few words (`number`, `0`, `undefined`, `0 characters`).
    pub received: String,
}

/// The structured `issues` array of an `invalid_input` caused by the schema:
/// `[{path, expected, received, message}]`, one per failure, in the message's order.
pub fn issues(failures: &[Failure]) -> Value {
    Value::Array(
        failures
            .iter()
            .map(|f| {
                serde_json::json!({
                    "path": f.path,
                    "expected": f.expected,
                    "received": f.received,
                    "message": f.what,
                })
            })
            .collect(),
    )
}

/// A value's JSON type as an issue's `received` names it (`integer` for whole numbers).
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) if is_integer(v) => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// A value shown in an issue: short JSON, cut at 60 characters.
fn shown(v: &Value) -> String {
    let s = v.to_string();
    match s.char_indices().nth(60) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s,
    }
}

/// Validates `data` against `schema`, filling defaults into `data`. Returns every failure.
pub fn validate(schema: &Value, data: &mut Value) -> Vec<Failure> {
    validate_with(schema, data, false)
}

/// [`validate`], optionally coercing scalars first as ajv's `coerceTypes: true` does (the
/// original's 0.5 validation): a value of the wrong scalar type is converted in place when
/// ajv would convert it (`"100"` → 100, `"true"` → true, 5 → `"5"`, null → `""`/0/false),
/// and reported as `must be <type>` otherwise. Arrays are never coerced.
pub fn validate_with(schema: &Value, data: &mut Value, coerce: bool) -> Vec<Failure> {
    let mut out = Vec::new();
    check(schema, data, "data", coerce, &mut out);
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
const STRING_KEYS: &[&str] = &["minLength", "maxLength", "pattern"];
const ARRAY_KEYS: &[&str] = &["maxItems", "minItems", "items"];
const OBJECT_KEYS: &[&str] = &["required", "additionalProperties", "properties"];

fn has_any(schema: &Map<String, Value>, keys: &[&str]) -> bool {
    keys.iter().any(|k| schema.contains_key(*k))
}

fn check(schema: &Value, data: &mut Value, at: &str, coerce: bool, out: &mut Vec<Failure>) {
    let Some(s) = schema.as_object() else { return };
    let ty = s.get("type").and_then(Value::as_str);
    if let Some(Value::Array(types)) = s.get("type") {
        check_types(types, data, at, coerce, out);
    }
    let pointer = at.strip_prefix("data").unwrap_or(at).to_string();
    let fail = |out: &mut Vec<Failure>, what: String, expected: String, received: String| {
        out.push(Failure {
            at: at.to_string(),
            what,
            path: pointer.clone(),
            expected,
            received,
        })
    };

    // With coercion ajv converts (or reports) the type up front, before every keyword group.
    if let (true, Some(t)) = (coerce, ty) {
        if !type_matches(t, data) {
            if let Some(v) = coerce_to(t, data) {
                *data = v;
            }
        }
    }
    // ajv reports a type mismatch up front unless the type's own keyword group will report
    // it (number/string/array/object with keywords of that group present); with coercion
    // it always reports up front.
    let group_reports = !coerce
        && match ty {
            Some("number") => has_any(s, NUMBER_KEYS),
            Some("string") => has_any(s, STRING_KEYS),
            Some("array") => has_any(s, ARRAY_KEYS),
            Some("object") => has_any(s, OBJECT_KEYS),
            _ => false,
        };
    if let Some(t) = ty {
        if !group_reports && !type_matches(t, data) {
            fail(out, format!("must be {t}"), t.into(), kind(data).into());
        }
    }
    if let Some(Value::Array(allowed)) = s.get("enum") {
        if !allowed.iter().any(|a| a == data) {
            let expected = format!("one of {}", shown(&Value::Array(allowed.clone())));
            fail(
                out,
                "must be equal to one of the allowed values".into(),
                expected,
                shown(data),
            );
        }
    }

    // number group
    if has_any(s, NUMBER_KEYS) {
        if let Some(x) = data.as_f64() {
            if let Some(min) = s.get("minimum").and_then(Value::as_f64) {
                if x < min {
                    let m = fmt_num(min);
                    fail(
                        out,
                        format!("must be >= {m}"),
                        format!(">= {m}"),
                        shown(data),
                    );
                }
            }
            if let Some(max) = s.get("maximum").and_then(Value::as_f64) {
                if x > max {
                    let m = fmt_num(max);
                    fail(
                        out,
                        format!("must be <= {m}"),
                        format!("<= {m}"),
                        shown(data),
                    );
                }
            }
        } else if group_reports && ty == Some("number") {
            fail(
                out,
                "must be number".into(),
                "number".into(),
                kind(data).into(),
            );
        }
    }
    // string group
    if has_any(s, STRING_KEYS) {
        if let Some(text) = data.as_str() {
            // ajv counts code points (ucs2length), not UTF-16 units.
            let len = text.chars().count() as u64;
            if let Some(min) = s.get("minLength").and_then(Value::as_u64) {
                if len < min {
                    fail(
                        out,
                        format!("must NOT have fewer than {min} characters"),
                        format!("at least {min} characters"),
                        format!("{len} characters"),
                    );
                }
            }
            if let Some(max) = s.get("maxLength").and_then(Value::as_u64) {
                if len > max {
                    fail(
                        out,
                        format!("must NOT have more than {max} characters"),
                        format!("at most {max} characters"),
                        format!("{len} characters"),
                    );
                }
            }
            // Only host schemas (customTools) use `pattern`; ajv compiles it with the `u` flag.
            if let Some(p) = s.get("pattern").and_then(Value::as_str) {
                // A value the pattern cannot decide within its budget does not match.
                let matched =
                    crate::jsregex::JsRegex::new(p, "u").map(|re| re.is_match(text) == Ok(true));
                if matched == Ok(false) {
                    let shown_text = shown(data);
                    fail(
                        out,
                        format!("must match pattern \"{p}\""),
                        format!("a match of /{p}/"),
                        shown_text,
                    );
                }
            }
        } else if group_reports && ty == Some("string") {
            fail(
                out,
                "must be string".into(),
                "string".into(),
                kind(data).into(),
            );
        }
    }
    // array group
    if has_any(s, ARRAY_KEYS) {
        if let Some(items) = data.as_array_mut() {
            if let Some(max) = s.get("maxItems").and_then(Value::as_u64) {
                let n = items.len();
                if (n as u64) > max {
                    fail(
                        out,
                        format!("must NOT have more than {max} items"),
                        format!("at most {max} items"),
                        format!("{n} items"),
                    );
                }
            }
            if let Some(min) = s.get("minItems").and_then(Value::as_u64) {
                let n = items.len();
                if (n as u64) < min {
                    fail(
                        out,
                        format!("must NOT have fewer than {min} items"),
                        format!("at least {min} items"),
                        format!("{n} items"),
                    );
                }
            }
            if let Some(item_schema) = s.get("items") {
                for (i, item) in items.iter_mut().enumerate() {
                    check(item_schema, item, &format!("{at}/{i}"), coerce, out);
                }
            }
        } else if group_reports && ty == Some("array") {
            fail(
                out,
                "must be array".into(),
                "array".into(),
                kind(data).into(),
            );
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
                        let expected = props
                            .and_then(|p| p.get(r))
                            .and_then(|p| p.get("type"))
                            .and_then(Value::as_str)
                            .unwrap_or("a value");
                        out.push(Failure {
                            at: at.to_string(),
                            what: format!("must have required property '{r}'"),
                            path: format!("{pointer}/{}", pointer_escape(r)),
                            expected: expected.into(),
                            received: "undefined".into(),
                        });
                    }
                }
            }
            if s.get("additionalProperties") == Some(&Value::Bool(false)) {
                for k in obj.keys() {
                    if !props.is_some_and(|p| p.contains_key(k)) {
                        let known: Vec<&str> = props
                            .map(|p| p.keys().map(String::as_str).collect())
                            .unwrap_or_default();
                        out.push(Failure {
                            at: at.to_string(),
                            what: "must NOT have additional properties".into(),
                            path: format!("{pointer}/{}", pointer_escape(k)),
                            expected: format!("no property other than: {}", known.join(", ")),
                            received: format!("unknown property '{k}'"),
                        });
                    }
                }
            }
            if let Some(props) = props {
                for (k, ps) in props {
                    if let Some(v) = obj.get_mut(k) {
                        check(ps, v, &format!("{at}/{}", pointer_escape(k)), coerce, out);
                    }
                }
            }
        } else if group_reports && ty == Some("object") {
            fail(
                out,
                "must be object".into(),
                "object".into(),
                kind(data).into(),
            );
        }
    }
}

/// `type` as a list (`["boolean", "object"]`): ajv checks it up front, coercing (when on) to
/// the first listed type that takes the value, and says `must be boolean,object`.
fn check_types(types: &[Value], data: &mut Value, at: &str, coerce: bool, out: &mut Vec<Failure>) {
    let names: Vec<&str> = types.iter().filter_map(Value::as_str).collect();
    if names.iter().any(|t| type_matches(t, data)) {
        return;
    }
    if coerce {
        if let Some(v) = names.iter().find_map(|t| coerce_to(t, data)) {
            *data = v;
            return;
        }
    }
    let list = names.join(",");
    out.push(Failure {
        at: at.to_string(),
        what: format!("must be {list}"),
        path: at.strip_prefix("data").unwrap_or(at).to_string(),
        expected: list,
        received: kind(data).into(),
    });
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
