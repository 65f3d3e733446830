//! Validation messages, order, coercion and defaults, against ajv's wording.

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

#[test]
fn coercion_follows_ajv() {
    let schema = json!({"type": "object", "properties": {
        "n": {"type": "integer", "minimum": 0},
        "s": {"type": "string"},
        "b": {"type": "boolean"},
        "f": {"type": "number", "minimum": 1}
    }});
    let mut v = json!({"n": "100", "s": 5, "b": "true", "f": " 2.5 "});
    assert!(validate_with(&schema, &mut v, true).is_empty());
    assert_eq!(v, json!({"n": 100, "s": "5", "b": true, "f": 2.5}));
    let mut v = json!({"n": null, "s": null, "b": 0, "f": "0x10"});
    assert!(validate_with(&schema, &mut v, true).is_empty());
    assert_eq!(v, json!({"n": 0, "s": "", "b": false, "f": 16}));
    let mut bad = json!({"n": "2.5", "s": [1], "b": "yes", "f": "x"});
    assert_eq!(
        message(&validate_with(&schema, &mut bad, true)),
        "data/n must be integer; data/s must be string; data/b must be boolean; data/f must be number"
    );
    // Without coercion nothing changes and the group reports as before.
    let mut v = json!({"n": "1"});
    assert_eq!(
        message(&validate(&schema, &mut v)),
        "data/n must be integer"
    );
    assert_eq!(v, json!({"n": "1"}));
}

#[test]
fn issues_are_structured_with_pointer_paths() {
    let mut v = json!({"path": 1, "x": 1, "limit": 0, "mode": "c",
        "edits": [{"old_string": ""}, {}]});
    let f = validate(&schema(), &mut v);
    assert_eq!(
        issues(&f),
        json!([
            {"path": "/x", "expected": "no property other than: path, offset, limit, mode, edits",
             "received": "unknown property 'x'", "message": "must NOT have additional properties"},
            {"path": "/path", "expected": "string", "received": "integer", "message": "must be string"},
            {"path": "/limit", "expected": ">= 1", "received": "0", "message": "must be >= 1"},
            {"path": "/mode", "expected": "one of [\"a\",\"b\"]", "received": "\"c\"",
             "message": "must be equal to one of the allowed values"},
            {"path": "/edits/0/old_string", "expected": "at least 1 characters",
             "received": "0 characters", "message": "must NOT have fewer than 1 characters"},
            {"path": "/edits/1/old_string", "expected": "string", "received": "undefined",
             "message": "must have required property 'old_string'"},
        ])
    );
    let mut v = json!([]);
    let f = validate(&schema(), &mut v);
    assert_eq!(
        issues(&f),
        json!([{"path": "", "expected": "object", "received": "array", "message": "must be object"}])
    );
}

#[test]
fn pattern_is_a_javascript_regex() {
    let schema = json!({"type": "object", "properties": {"id": {"type": "string", "pattern": "^[a-z]+\\d$"}}});
    let mut ok = json!({"id": "ab1"});
    assert!(validate(&schema, &mut ok).is_empty());
    let mut bad = json!({"id": "AB"});
    let f = validate(&schema, &mut bad);
    assert_eq!(message(&f), "data/id must match pattern \"^[a-z]+\\d$\"");
    assert_eq!(f[0].expected, "a match of /^[a-z]+\\d$/");
}

#[test]
fn relax_opens_objects_and_lowers_the_named_minimums() {
    let strict = json!({"type": "object", "additionalProperties": false,
        "properties": {"limit": {"type": "integer", "minimum": 1},
            "edits": {"type": "array", "items": {"type": "object", "additionalProperties": false,
                "properties": {"old_string": {"type": "string", "minLength": 1}}}}}});
    let r = relax("read_file", strict.clone());
    assert_eq!(r.pointer("/additionalProperties"), None);
    assert_eq!(r.pointer("/properties/limit/minimum"), Some(&json!(0)));
    assert_eq!(
        r.pointer("/properties/edits/items/additionalProperties"),
        None
    );
    let m = relax("multi_edit", strict.clone());
    assert_eq!(m.pointer("/properties/limit/minimum"), Some(&json!(1)));
    assert_eq!(
        m.pointer("/properties/edits/items/properties/old_string/minLength"),
        None
    );
}

#[test]
fn a_list_of_types_takes_any_of_them_and_says_so_otherwise() {
    let s = json!({"type": "object", "properties": {
        "tty": {"type": ["boolean", "object"], "properties": {"cols": {"type": "integer", "minimum": 2}}}
    }});
    for ok in [
        json!({"tty": true}),
        json!({"tty": {"cols": 80}}),
        json!({}),
    ] {
        let mut v = ok.clone();
        assert!(validate(&s, &mut v).is_empty(), "{ok}");
    }
    let mut v = json!({"tty": "yes"});
    assert_eq!(
        message(&validate(&s, &mut v)),
        "data/tty must be boolean,object"
    );
    let mut v = json!({"tty": {"cols": 1}});
    assert_eq!(message(&validate(&s, &mut v)), "data/tty/cols must be >= 2");
    // Coercion takes the first type that accepts the value.
    let mut v = json!({"tty": "true"});
    assert!(validate_with(&s, &mut v, true).is_empty());
    assert_eq!(v, json!({"tty": true}));
}
