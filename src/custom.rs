//! Host-defined tools (`customTools`): what the core knows of them.
//!
//! A custom tool's handler is a JavaScript function, so it runs on the JavaScript side
//! (`index.js`), never called from Rust: no thread-safe function, nothing blocking a tokio
//! worker or waiting on the event loop. Everything else is the core's, exactly as for a
//! built-in tool: the surface (`readOnly`, `toolPolicy`, listing order after the built-ins),
//! `listTools` (description, schema, annotations), validation with defaults and coercion
//! ([`crate::schema`]), and the result's bounding and error envelope
//! ([`crate::dispatch::finish_custom`]). The definitions are checked once, when the
//! configuration is resolved: a bad one is a `StartupError`, never a failing call later.

use crate::config::{js_string, StartupError};
use serde_json::{json, Map, Value};

/// One `customTools` entry, without its handler.
#[derive(Debug, Clone, PartialEq)]
pub struct CustomTool {
    /// The tool's name (`^[A-Za-z0-9_-]{1,64}$`, the provider APIs' rule).
    pub name: String,
    /// What the model reads.
    pub description: String,
    /// The JSON Schema of the arguments, as the host gave it (checked by [`check_schema`]).
    pub input_schema: Value,
    /// MCP annotations: the four hints, derived from `readOnly` unless given, plus any other
    /// keys the host set (`title`).
    pub annotations: Map<String, Value>,
    /// Whether the tool only reads (kept under `readOnly: true`).
    pub read_only: bool,
}

/// The schema keywords the validator enforces.
const VALIDATING: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "enum",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "minItems",
    "maxItems",
    "items",
];

/// Keywords that only describe (accepted, not enforced).
const DESCRIBING: &[&str] = &[
    "description",
    "title",
    "default",
    "examples",
    "$schema",
    "$id",
    "$comment",
    "format",
    "deprecated",
    "readOnly",
    "writeOnly",
];

const TYPES: &[&str] = &[
    "string", "number", "integer", "boolean", "object", "array", "null",
];

/// Parses the `customTools` option. `builtins` are the registry's names (a custom tool may
/// not take one). Absent or null → none.
pub fn parse(v: Option<&Value>, builtins: &[&str]) -> Result<Vec<CustomTool>, StartupError> {
    let Some(v) = v.filter(|v| !v.is_null()) else {
        return Ok(Vec::new());
    };
    let Value::Array(entries) = v else {
        return Err(StartupError(format!(
            "customTools must be an array of tool definitions, got: {}",
            js_string(v)
        )));
    };
    let mut out: Vec<CustomTool> = Vec::with_capacity(entries.len());
    for (i, entry) in entries.iter().enumerate() {
        let at = format!("customTools[{i}]");
        let tool = parse_one(entry, &at)?;
        if builtins.contains(&tool.name.as_str()) {
            return Err(StartupError(format!(
                "{at}.name collides with a built-in tool: {}",
                tool.name
            )));
        }
        // Names that differ only in case are one tool to a model (and to providers that
        // fold case), so `Bash` would shadow or impersonate `bash`: refused like a collision.
        if let Some(b) = builtins.iter().find(|b| b.eq_ignore_ascii_case(&tool.name)) {
            return Err(StartupError(format!(
                "{at}.name collides with a built-in tool: {} differs from {b} only in case",
                tool.name
            )));
        }
        if out.iter().any(|t| t.name == tool.name) {
            return Err(StartupError(format!(
                "{at}.name is used twice: {}",
                tool.name
            )));
        }
        if let Some((j, t)) = out
            .iter()
            .enumerate()
            .find(|(_, t)| t.name.eq_ignore_ascii_case(&tool.name))
        {
            return Err(StartupError(format!(
                "{at}.name is used twice: {} differs from customTools[{j}].name {} only in case",
                tool.name, t.name
            )));
        }
        out.push(tool);
    }
    Ok(out)
}

fn parse_one(entry: &Value, at: &str) -> Result<CustomTool, StartupError> {
    let err = |m: String| StartupError(m);
    let Value::Object(o) = entry else {
        return Err(err(format!(
            "{at} must be an object {{ name, description, inputSchema, handler }}, got: {}",
            js_string(entry)
        )));
    };
    let name = match o.get("name") {
        Some(Value::String(s)) if valid_name(s) => s.clone(),
        other => {
            return Err(err(format!(
                "{at}.name must match ^[A-Za-z0-9_-]{{1,64}}$, got: {}",
                other.map_or("undefined".into(), js_string)
            )))
        }
    };
    let description = match o.get("description") {
        Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
        _ => {
            return Err(err(format!(
                "{at}.description must be a non-empty string (the model reads it)"
            )))
        }
    };
    let input_schema = o.get("inputSchema").cloned().unwrap_or(Value::Null);
    check_schema(&input_schema, &format!("{at}.inputSchema"), true).map_err(err)?;
    let given = match o.get("annotations") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(a)) => a.clone(),
        Some(other) => {
            return Err(err(format!(
                "{at}.annotations must be an object, got: {}",
                js_string(other)
            )))
        }
    };
    for hint in [
        "readOnlyHint",
        "destructiveHint",
        "idempotentHint",
        "openWorldHint",
    ] {
        if given.get(hint).is_some_and(|v| !v.is_boolean()) {
            return Err(err(format!("{at}.annotations.{hint} must be a boolean")));
        }
    }
    let hinted = given.get("readOnlyHint").and_then(Value::as_bool);
    let read_only = match o.get("readOnly") {
        None | Some(Value::Null) => hinted.unwrap_or(false),
        Some(Value::Bool(b)) => {
            if hinted.is_some_and(|h| h != *b) {
                return Err(err(format!(
                    "{at}.readOnly and {at}.annotations.readOnlyHint disagree"
                )));
            }
            *b
        }
        Some(other) => {
            return Err(err(format!(
                "{at}.readOnly must be a boolean, got: {}",
                js_string(other)
            )))
        }
    };
    let hint =
        |key: &str, default: bool| given.get(key).and_then(Value::as_bool).unwrap_or(default);
    let mut annotations = Map::new();
    annotations.insert("readOnlyHint".into(), Value::Bool(read_only));
    annotations.insert(
        "destructiveHint".into(),
        Value::Bool(hint("destructiveHint", !read_only)),
    );
    annotations.insert(
        "idempotentHint".into(),
        Value::Bool(hint("idempotentHint", read_only)),
    );
    annotations.insert(
        "openWorldHint".into(),
        Value::Bool(hint("openWorldHint", false)),
    );
    for (k, v) in given {
        annotations.entry(k).or_insert(v);
    }
    Ok(CustomTool {
        name,
        description,
        input_schema,
        annotations,
        read_only,
    })
}

fn valid_name(s: &str) -> bool {
    (1..=64).contains(&s.len())
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Checks that `schema` uses only what the validator enforces (or keywords that only
/// describe), with well-formed values; the top level must be `type: "object"`. `at` names
/// the place in errors (`customTools[0].inputSchema/properties/x`).
pub fn check_schema(schema: &Value, at: &str, top: bool) -> Result<(), String> {
    let Value::Object(o) = schema else {
        return Err(format!("{at} must be a JSON Schema object"));
    };
    if top && o.get("type") != Some(&json!("object")) {
        return Err(format!("{at} must have type \"object\""));
    }
    for (k, v) in o {
        let bad = |what: &str| Err(format!("{at}/{k} must be {what}"));
        match k.as_str() {
            "type" => {
                if !v.as_str().is_some_and(|t| TYPES.contains(&t)) {
                    return bad(&format!("one of {}", TYPES.join(", ")));
                }
            }
            "properties" => {
                let Some(props) = v.as_object() else {
                    return bad("an object of schemas");
                };
                for (name, p) in props {
                    let name = name.replace('~', "~0").replace('/', "~1");
                    check_schema(p, &format!("{at}/properties/{name}"), false)?;
                }
            }
            "required" => {
                if !v.as_array().is_some_and(|a| a.iter().all(Value::is_string)) {
                    return bad("an array of property names");
                }
            }
            "additionalProperties" => {
                if !v.is_boolean() {
                    return bad("a boolean");
                }
            }
            "enum" => {
                if v.as_array().is_none_or(|a| a.is_empty()) {
                    return bad("a non-empty array");
                }
            }
            "minLength" | "maxLength" | "minItems" | "maxItems" => {
                if v.as_u64().is_none() {
                    return bad("a non-negative integer");
                }
            }
            "minimum" | "maximum" => {
                if !v.is_number() {
                    return bad("a number");
                }
            }
            "pattern" => {
                let Some(p) = v.as_str() else {
                    return bad("a string");
                };
                if let Err(e) = crate::jsregex::JsRegex::new(p, "u") {
                    return Err(format!("{at}/pattern is not a valid regex: {e}"));
                }
            }
            "items" => check_schema(v, &format!("{at}/items"), false)?,
            k if DESCRIBING.contains(&k) => {}
            other => {
                return Err(format!(
                    "{at} uses the unsupported keyword '{other}' (supported: {}; and {})",
                    VALIDATING.join(", "),
                    DESCRIBING.join(", ")
                ))
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(v: Value) -> Result<CustomTool, String> {
        parse(Some(&json!([v])), &["read_file"])
            .map(|mut t| t.remove(0))
            .map_err(|e| e.0)
    }

    fn schema() -> Value {
        json!({"type": "object", "properties": {"q": {"type": "string", "minLength": 1}}, "required": ["q"]})
    }

    #[test]
    fn annotations_follow_read_only_unless_given() {
        let t = one(json!({"name": "lookup", "description": "d", "inputSchema": schema(), "readOnly": true})).unwrap();
        assert!(t.read_only);
        assert_eq!(
            Value::Object(t.annotations),
            json!({"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false})
        );
        let t = one(
            json!({"name": "deploy", "description": "d", "inputSchema": schema(),
            "annotations": {"openWorldHint": true, "destructiveHint": false, "title": "Deploy"}}),
        )
        .unwrap();
        assert!(!t.read_only);
        assert_eq!(
            Value::Object(t.annotations),
            json!({"readOnlyHint": false, "destructiveHint": false, "idempotentHint": false, "openWorldHint": true, "title": "Deploy"})
        );
        let t = one(json!({"name": "x", "description": "d", "inputSchema": schema(), "annotations": {"readOnlyHint": true}})).unwrap();
        assert!(t.read_only);
    }

    #[test]
    fn bad_definitions_are_startup_errors() {
        let e = |v: Value| one(v).unwrap_err();
        assert_eq!(
            e(json!({"name": "read_file", "description": "d", "inputSchema": schema()})),
            "customTools[0].name collides with a built-in tool: read_file"
        );
        assert_eq!(
            e(json!({"name": "a b", "description": "d", "inputSchema": schema()})),
            "customTools[0].name must match ^[A-Za-z0-9_-]{1,64}$, got: a b"
        );
        assert_eq!(
            e(json!({"name": "a", "inputSchema": schema()})),
            "customTools[0].description must be a non-empty string (the model reads it)"
        );
        assert_eq!(
            e(json!({"name": "a", "description": "d"})),
            "customTools[0].inputSchema must be a JSON Schema object"
        );
        assert_eq!(
            e(json!({"name": "a", "description": "d", "inputSchema": {"type": "string"}})),
            "customTools[0].inputSchema must have type \"object\""
        );
        assert!(e(json!({"name": "a", "description": "d",
            "inputSchema": {"type": "object", "properties": {"x": {"oneOf": []}}}}))
        .starts_with(
            "customTools[0].inputSchema/properties/x uses the unsupported keyword 'oneOf'"
        ));
        assert_eq!(
            e(json!({"name": "a", "description": "d",
                "inputSchema": {"type": "object", "properties": {"x": {"type": "strin"}}}})),
            "customTools[0].inputSchema/properties/x/type must be one of string, number, integer, boolean, object, array, null"
        );
        assert!(e(json!({"name": "a", "description": "d",
            "inputSchema": {"type": "object", "properties": {"x": {"type": "string", "pattern": "("}}}}))
        .starts_with("customTools[0].inputSchema/properties/x/pattern is not a valid regex"));
        assert_eq!(
            e(
                json!({"name": "a", "description": "d", "inputSchema": schema(), "readOnly": false,
                "annotations": {"readOnlyHint": true}})
            ),
            "customTools[0].readOnly and customTools[0].annotations.readOnlyHint disagree"
        );
        let twice = json!([{"name": "a", "description": "d", "inputSchema": schema()},
            {"name": "a", "description": "d", "inputSchema": schema()}]);
        assert_eq!(
            parse(Some(&twice), &[]).unwrap_err().0,
            "customTools[1].name is used twice: a"
        );
        let cased = json!([{"name": "deploy", "description": "d", "inputSchema": schema()},
            {"name": "Deploy", "description": "d", "inputSchema": schema()}]);
        assert_eq!(
            parse(Some(&cased), &[]).unwrap_err().0,
            "customTools[1].name is used twice: Deploy differs from customTools[0].name deploy only in case"
        );
        let shadow = json!([{"name": "Bash", "description": "d", "inputSchema": schema()}]);
        assert_eq!(
            parse(Some(&shadow), &["read_file", "bash"]).unwrap_err().0,
            "customTools[0].name collides with a built-in tool: Bash differs from bash only in case"
        );
        assert_eq!(
            parse(Some(&json!({})), &[]).unwrap_err().0,
            "customTools must be an array of tool definitions, got: [object Object]"
        );
    }
}
