//! What an [`Outcome`] becomes on its way to JavaScript: its strings, each short enough for
//! V8 to hold.
//!
//! V8 has no string longer than 2^29 − 24 UTF-16 units (`String::kMaxLength` on 64-bit
//! builds); converting a longer one fails, and the call would end `internal` with what it did
//! unsaid. `maxOutputBytes` is capped below that (`config::MAX_OUTPUT_BYTES_CEILING`), so a
//! bounded plain text fits. What can still outgrow it: JSON made of bounded text (`bash`'s
//! result escapes a control byte as six: 100 MB of them is a 600 MB string), a `meta` (the
//! diff of a `replace` across a whole monorepo), several large parts together. A `meta` too
//! long is dropped with a warning, since the result text still says what was done; a text
//! too long becomes an `output_limit` error.

use super::Outcome;
use crate::error::{Code, ToolError};
use crate::tools::Part;

/// An outcome as it crosses to JavaScript.
#[derive(Debug)]
pub struct Crossing {
    /// Whether `text` is an error envelope.
    pub is_error: bool,
    /// The text parts joined, or the error envelope.
    pub text: String,
    /// The content parts as JSON, absent when they are exactly one text part equal to `text`.
    pub parts_json: Option<String>,
    /// `meta` as JSON, absent unless a tool set it (or it was dropped).
    pub meta_json: Option<String>,
    /// Warn-sink lines, each ending in a newline.
    pub warnings: Vec<String>,
}

/// The content parts as JSON: `[{type, text}|{type, data, mimeType}]`.
fn parts_json(parts: &[Part]) -> String {
    let v: Vec<serde_json::Value> = parts
        .iter()
        .map(|p| match p {
            Part::Text(t) => serde_json::json!({"type": "text", "text": t}),
            Part::Image { data, mime_type } => {
                serde_json::json!({"type": "image", "data": data, "mimeType": mime_type})
            }
        })
        .collect();
    serde_json::Value::Array(v).to_string()
}

/// Serialises `out` for JavaScript with no string over `limit` bytes
/// ([`crate::config::JS_MAX_STRING`] outside tests).
pub fn crossing(mut out: Outcome, limit: usize) -> Crossing {
    let mut meta_json = out.meta.map(|m| serde_json::Value::Object(m).to_string());
    if let Some(n) = meta_json.as_ref().map(String::len).filter(|&n| n > limit) {
        meta_json = None;
        out.warnings.push(format!(
            "clarvis-agent-tools: warning: the result's meta ({n} bytes of JSON) is longer than the longest JavaScript string and was dropped\n"
        ));
    }
    let mut parts = out.parts.as_deref().map(parts_json);
    let longest = out.text.len().max(parts.as_ref().map_or(0, String::len));
    if longest > limit {
        let err = ToolError::new(
            Code::OutputLimit,
            format!(
                "The result is {longest} bytes, longer than the longest string JavaScript can hold ({limit} UTF-16 units): ask for less at a time"
            ),
        )
        .with("size", longest)
        .with("limit", limit);
        out.is_error = true;
        out.text = err.envelope();
        parts = None;
        meta_json = None;
    }
    Crossing {
        is_error: out.is_error,
        text: out.text,
        parts_json: parts,
        meta_json,
        warnings: out.warnings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Map, Value};

    fn outcome(text: &str, parts: Option<Vec<Part>>, meta: Option<Value>) -> Outcome {
        Outcome {
            is_error: false,
            text: text.into(),
            parts,
            meta: meta.and_then(|m| m.as_object().cloned()),
            warnings: Vec::new(),
        }
    }

    #[test]
    fn what_fits_crosses_unchanged() {
        let parts = vec![Part::Text("ab".into()), Part::Text("cd".into())];
        let c = crossing(
            outcome("abcd", Some(parts), Some(json!({"diff": "x"}))),
            100,
        );
        assert!(!c.is_error && c.warnings.is_empty());
        assert_eq!(c.text, "abcd");
        assert_eq!(
            c.parts_json.as_deref(),
            Some(r#"[{"type":"text","text":"ab"},{"type":"text","text":"cd"}]"#)
        );
        assert_eq!(c.meta_json.as_deref(), Some(r#"{"diff":"x"}"#));
    }

    #[test]
    fn a_meta_too_long_is_dropped_with_a_warning() {
        let long = "d".repeat(200);
        let c = crossing(
            outcome("Replaced 3 occurrences", None, Some(json!({"diff": long}))),
            100,
        );
        assert!(!c.is_error);
        assert_eq!(c.text, "Replaced 3 occurrences");
        assert_eq!(c.meta_json, None);
        assert_eq!(
            c.warnings,
            ["clarvis-agent-tools: warning: the result's meta (211 bytes of JSON) is longer than the longest JavaScript string and was dropped\n"]
        );
    }

    #[test]
    fn a_text_too_long_is_an_output_limit_error() {
        // Each part fits; together they do not (the parts' JSON, 173 bytes, is the longest).
        let half = "p".repeat(60);
        let parts = vec![Part::Text(half.clone()), Part::Text(half.clone())];
        let c = crossing(
            outcome(
                &half.repeat(2),
                Some(parts),
                Some(Value::Object(Map::new())),
            ),
            100,
        );
        assert!(c.is_error);
        assert_eq!(c.parts_json, None);
        assert_eq!(c.meta_json, None);
        let v: Value = serde_json::from_str(&c.text).unwrap();
        assert_eq!(v["error"], "output_limit");
        assert_eq!(v["size"], 173);
        assert_eq!(v["limit"], 100);
        assert_eq!(
            v["message"],
            "The result is 173 bytes, longer than the longest string JavaScript can hold (100 UTF-16 units): ask for less at a time"
        );
    }
}
