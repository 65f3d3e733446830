//! The 0.5 relaxations: schemas without `additionalProperties: false`, `0` meaning the
//! default for the limits 0.5 relaxed, and ajv's `coerceTypes` scalar coercion.

use serde_json::Value;

/// The tool properties whose `minimum` 0.5 lowered from 1 to 0 (0 meaning "the default").
const ZERO_MEANS_DEFAULT: &[(&str, &str)] = &[
    ("read_file", "limit"),
    ("grep", "head_limit"),
    ("bash", "timeout_ms"),
];

/// A tool schema in its latest form, derived from the strict 0.1 form: no
/// `additionalProperties: false` anywhere (unknown keys are ignored), `minimum: 0` for the
/// limits 0.5 relaxed, and no `minLength` on `multi_edit`'s `edits[].old_string` (the
/// handler refuses an empty one instead).
pub fn relax(tool: &str, mut schema: Value) -> Value {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(o) => {
                if o.get("additionalProperties") == Some(&Value::Bool(false)) {
                    o.remove("additionalProperties");
                }
                o.values_mut().for_each(strip);
            }
            Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut schema);
    for (t, prop) in ZERO_MEANS_DEFAULT {
        if *t == tool {
            if let Some(p) = schema.pointer_mut(&format!("/properties/{prop}")) {
                if let Some(o) = p.as_object_mut() {
                    o.insert("minimum".into(), Value::from(0));
                }
            }
        }
    }
    if tool == "multi_edit" {
        if let Some(Value::Object(o)) =
            schema.pointer_mut("/properties/edits/items/properties/old_string")
        {
            o.remove("minLength");
        }
    }
    schema
}

/// JavaScript's `ToNumber` for a string, as `data == +data` uses it: blanks trimmed, `""`
/// is 0, decimal, `0x`/`0o`/`0b` and `Infinity` forms. `None` for NaN or a non-finite value
/// (JSON cannot hold it).
fn js_to_number(s: &str) -> Option<f64> {
    let t = s.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
    if t.is_empty() {
        return Some(0.0);
    }
    let radix = |digits: &str, r: u32| -> Option<f64> {
        if digits.is_empty() {
            return None;
        }
        digits.chars().try_fold(0f64, |acc, c| {
            c.to_digit(r).map(|d| acc * f64::from(r) + f64::from(d))
        })
    };
    let lower = t.to_ascii_lowercase();
    if let Some(h) = lower.strip_prefix("0x") {
        return radix(h, 16);
    }
    if let Some(o) = lower.strip_prefix("0o") {
        return radix(o, 8);
    }
    if let Some(b) = lower.strip_prefix("0b") {
        return radix(b, 2);
    }
    let body = t.trim_start_matches(['+', '-']);
    if t.len() - body.len() > 1 {
        return None;
    }
    let ok = !body.is_empty()
        && body
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'))
        && body
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit() || c == '.');
    if !ok {
        return None;
    }
    t.parse::<f64>().ok().filter(|f| f.is_finite())
}

fn number_value(f: f64) -> Value {
    if f.fract() == 0.0 && f.abs() < 9.007_199_254_740_992e15 {
        Value::from(f as i64)
    } else {
        serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)
    }
}

/// ajv's scalar coercion of `data` to `ty`; `None` when ajv would not coerce it.
pub(super) fn coerce_to(ty: &str, data: &Value) -> Option<Value> {
    match (ty, data) {
        ("string", Value::Number(n)) => Some(Value::String(crate::config::js_string(
            &Value::Number(n.clone()),
        ))),
        ("string", Value::Bool(b)) => Some(Value::String(b.to_string())),
        ("string", Value::Null) => Some(Value::String(String::new())),
        ("number" | "integer", Value::Bool(b)) => Some(Value::from(u8::from(*b))),
        ("number" | "integer", Value::Null) => Some(Value::from(0)),
        ("number" | "integer", Value::String(s)) if !s.is_empty() => {
            let f = js_to_number(s)?;
            if ty == "integer" && f.fract() != 0.0 {
                return None;
            }
            Some(number_value(f))
        }
        ("boolean", Value::String(s)) if s == "true" => Some(Value::Bool(true)),
        ("boolean", Value::String(s)) if s == "false" => Some(Value::Bool(false)),
        ("boolean", Value::Number(n)) if n.as_f64() == Some(1.0) => Some(Value::Bool(true)),
        ("boolean", Value::Number(n)) if n.as_f64() == Some(0.0) => Some(Value::Bool(false)),
        ("boolean", Value::Null) => Some(Value::Bool(false)),
        ("null", Value::String(s)) if s.is_empty() => Some(Value::Null),
        ("null", Value::Number(n)) if n.as_f64() == Some(0.0) => Some(Value::Null),
        ("null", Value::Bool(false)) => Some(Value::Null),
        _ => None,
    }
}
