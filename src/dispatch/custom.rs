//! Steps 4–5 for the host's tools (`customTools`), whose handlers ran in JavaScript: the JS
//! layer's account of the handler's outcome becomes the call's [`Outcome`], bounded and
//! redacted like a built-in tool's.

use super::{redact_error, Outcome};
use crate::error::{Code, ToolError};
use crate::redact::Scope;
use crate::runtime::Runtime;
use crate::tools::{Output, Part};
use serde_json::Value;

/// Steps 4–5 for a host's tool whose handler ran in JavaScript. `result` is what the JS layer
/// made of the handler's outcome: `{"ok": {"content": [parts], "meta"?: {}}}`, `{"error":
/// {"code", "message", "fields"?}}` (a thrown `ToolError`, or the abort) or `{"internal":
/// <detail>}` (anything else thrown, or a result that is not a tool result). The success text
/// is bounded to `maxOutputBytes` like a built-in tool's; an error code outside the closed set
/// and `internal` itself become the `internal` envelope with the detail in the warnings.
pub fn finish_custom(name: &str, result: &Value) -> Result<Output, ToolError> {
    let internal =
        |detail: String| ToolError::new(Code::Internal, format!("custom tool {name}: {detail}"));
    if let Some(ok) = result.get("ok") {
        let parts = ok
            .get("content")
            .and_then(Value::as_array)
            .ok_or_else(|| internal("the result has no content array".into()))?;
        let content = parts
            .iter()
            .map(|p| match (p.get("type").and_then(Value::as_str), p) {
                (Some("text"), _) => p
                    .get("text")
                    .and_then(Value::as_str)
                    .map(|t| Part::Text(t.to_string())),
                (Some("image"), _) => match (
                    p.get("data").and_then(Value::as_str),
                    p.get("mimeType").and_then(Value::as_str),
                ) {
                    (Some(data), Some(mime)) => Some(Part::Image {
                        data: data.to_string(),
                        mime_type: mime.to_string(),
                    }),
                    _ => None,
                },
                _ => None,
            })
            .collect::<Option<Vec<Part>>>()
            .ok_or_else(|| {
                internal(
                    "a content part is not {type:'text',text} or {type:'image',data,mimeType}"
                        .into(),
                )
            })?;
        let meta = match ok.get("meta") {
            None | Some(Value::Null) => None,
            Some(Value::Object(m)) => Some(m.clone()),
            Some(_) => return Err(internal("meta is not an object".into())),
        };
        return Ok(Output { content, meta });
    }
    if let Some(e) = result.get("error") {
        let code = e.get("code").and_then(Value::as_str).unwrap_or("");
        let message = e.get("message").and_then(Value::as_str).unwrap_or("");
        return Err(match Code::parse(code) {
            Some(Code::Internal) => internal(format!("ToolError internal: {message}")),
            Some(code) => {
                let mut err = ToolError::new(code, message);
                if let Some(Value::Object(fields)) = e.get("fields") {
                    err.fields = fields.clone();
                }
                err
            }
            None => internal(format!(
                "ToolError with an unknown code {code:?}: {message}"
            )),
        });
    }
    let detail = result
        .get("internal")
        .and_then(Value::as_str)
        .unwrap_or("no result");
    Err(internal(detail.to_string()))
}

/// [`finish_custom`] as the call's [`Outcome`]: bounded like a built-in tool, internal
/// details moved to the warnings.
pub fn custom_outcome(name: &str, result: &Value, runtime: &Runtime) -> Outcome {
    let scope = Scope::new(runtime.redactor.as_ref());
    let out = match finish_custom(name, result) {
        Ok(out) => Outcome::success(out, false, runtime, vec![], &scope),
        Err(e) if e.code == Code::Internal => Outcome::error(
            &ToolError::new(Code::Internal, "internal error"),
            vec![format!(
                "clarvis-agent-tools: internal error: {}\n",
                e.message
            )],
        ),
        Err(e) => Outcome::error(&e, vec![]),
    };
    redact_error(out, &scope)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use serde_json::json;

    #[test]
    fn custom_results_are_bounded_and_errors_enveloped() {
        let mut config = Config::with_root("/");
        config.max_output_bytes = 1024;
        let config = Runtime::new(config);
        let big = "x".repeat(5000);
        let out = custom_outcome(
            "t",
            &json!({"ok": {"content": [{"type": "text", "text": big}], "meta": {"k": 1}}}),
            &config,
        );
        assert!(!out.is_error);
        assert!(out.text.len() < 1200);
        assert!(out.text.contains("[... output truncated: "));
        assert_eq!(out.meta, Some(json!({"k": 1}).as_object().unwrap().clone()));
        let e = custom_outcome(
            "t",
            &json!({"error": {"code": "not_found", "message": "no row", "fields": {"id": 7}}}),
            &config,
        );
        assert_eq!(
            (e.is_error, e.text.as_str()),
            (true, r#"{"error":"not_found","message":"no row","id":7}"#)
        );
        for bad in [
            json!({"error": {"code": "nope", "message": "m"}}),
            json!({"error": {"code": "internal", "message": "m"}}),
            json!({"internal": "TypeError: boom"}),
            json!({"ok": {"content": [{"type": "video"}]}}),
            json!({"ok": {}}),
        ] {
            let o = custom_outcome("t", &bad, &config);
            assert_eq!(o.text, r#"{"error":"internal","message":"internal error"}"#);
            assert_eq!(o.warnings.len(), 1);
            assert!(
                o.warnings[0].starts_with("clarvis-agent-tools: internal error: custom tool t: ")
            );
        }
    }
}
