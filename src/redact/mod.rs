//! Secret redaction (`redactSecrets`): credentials in every text that goes back to the model
//! are replaced by `[REDACTED:<kind>]`.
//!
//! A secret is judged where it comes from, not in the slice a tool shows. Three parts:
//! - [`rules`]: single-line formats (tokens by their shape, assignments by their key, judged
//!   by [`keys`]) and
//!   [`blocks`]: private-key blocks line by line, also when a view cuts them (an END line
//!   below, or the shape of the body).
//! - [`Scope`]: one call's redaction. The tools hand it the texts their results are cut from
//!   (a file around the lines read_file shows, a file grep shows rows of, the sides of a
//!   diff); the secrets found there become needles, masked wherever the result shows them —
//!   a key body line without its BEGIN, a value without its key. Every text that leaves the
//!   call (each part, every string of `meta`, the error envelope; a JSON result string by
//!   string) goes through [`Scope::text`], the one choke point.
//! - [`Live`]: a running command's output, masked per stream with the state carried across
//!   chunks (a line is held back until it is complete, a base64 run until it is judged).
//!
//! The host's own patterns are JavaScript regexes ([`JsRegex`]) applied to what is shown,
//! as `[REDACTED:custom]`. A mutating call whose arguments carry a placeholder is refused
//! ([`refuse_placeholders`]).

mod blocks;
mod grams;
mod keys;
mod placeholder;
mod rules;
mod scope;
mod stream;

pub use placeholder::refuse_placeholders;
pub use scope::Scope;
pub use stream::Live;

use crate::config::{js_string, StartupError};
use crate::jsregex::JsRegex;
use serde_json::Value;
use std::fmt;

/// What replaces a text on which a host pattern ran out of backtracking budget.
pub const WITHHELD: &str = "[REDACTED:custom] (a redactSecrets pattern could not be decided on this output within its backtracking budget, so all of it is withheld)";

/// A secret in a text: bytes `start..end` become `[REDACTED:<kind>]`. `anchor` is where the
/// match that found it starts (an assignment's key), on the same line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    /// First byte masked.
    pub start: usize,
    /// Byte after the last one masked.
    pub end: usize,
    /// Start of the match (`<= start`).
    pub anchor: usize,
    /// `password`, `private_key`, …
    pub kind: &'static str,
}

/// A host pattern could not be decided within its budget: the text is withheld.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Undecided;

/// A configured redactor: the built-in formats plus the host's patterns.
pub struct Redactor {
    rules: rules::Rules,
    host: Vec<(String, String, JsRegex)>,
}

impl fmt::Debug for Redactor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Redactor")
            .field("host", &self.host.iter().map(|h| &h.0).collect::<Vec<_>>())
            .finish()
    }
}

impl PartialEq for Redactor {
    fn eq(&self, other: &Self) -> bool {
        let key = |r: &Redactor| {
            r.host
                .iter()
                .map(|(s, f, _)| (s.clone(), f.clone()))
                .collect::<Vec<_>>()
        };
        key(self) == key(other)
    }
}

impl Redactor {
    /// The built-in formats plus `host` patterns (`(source, flags)` of JavaScript regexes).
    pub fn new(host: Vec<(String, String)>) -> Result<Redactor, String> {
        let host = host
            .into_iter()
            .map(|(source, flags)| {
                let flags: String = flags.chars().filter(|c| !matches!(c, 'g' | 'y')).collect();
                let re = JsRegex::new(&source, &flags).map_err(|e| {
                    format!("redactSecrets.patterns: /{source}/{flags} is not a valid regex: {e}")
                })?;
                if re.is_match("") == Ok(true) {
                    return Err(format!(
                        "redactSecrets.patterns: /{source}/{flags} matches the empty string"
                    ));
                }
                Ok((source, flags, re))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Redactor {
            rules: rules::Rules::new()?,
            host,
        })
    }

    /// The host patterns as `[{source, flags}]`, for the public config.
    pub fn host_patterns(&self) -> Vec<Value> {
        self.host
            .iter()
            .map(|(s, f, _)| serde_json::json!({ "source": s, "flags": f }))
            .collect()
    }

    /// The secrets of `text`: as shown to the model (`view`: cut key blocks recognised too)
    /// or as a source a view is cut from.
    pub fn find(&self, text: &str, view: bool, out: &mut Vec<Span>) -> Result<(), Undecided> {
        self.rules.find(text, out);
        blocks::Blocks::new(view, blocks::State::Outside).scan(text, out);
        self.find_host(text, out)
    }

    /// The host patterns' matches in `text`.
    pub(super) fn find_host(&self, text: &str, out: &mut Vec<Span>) -> Result<(), Undecided> {
        for (_, _, re) in &self.host {
            for r in re.find_all(text).map_err(|_| Undecided)? {
                out.push(Span {
                    start: r.start,
                    end: r.end,
                    anchor: r.start,
                    kind: "custom",
                });
            }
        }
        Ok(())
    }

    /// `text` as shown, with every secret it holds masked (no source known). Unchanged text
    /// is returned as is (no copy).
    pub fn redact(&self, text: String) -> String {
        scope::mask_text(self, None, text)
    }
}

/// `text` with `spans` (in any order, possibly overlapping) replaced by their placeholders.
/// Overlapping spans are masked as one, named by the first.
pub fn apply(text: String, spans: &mut [Span]) -> String {
    if spans.is_empty() {
        return text;
    }
    // Stable: at one place the span found first (a token's own format) names it.
    spans.sort_by_key(|s| (s.start, std::cmp::Reverse(s.end)));
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    let mut i = 0;
    while i < spans.len() {
        let s = spans[i];
        let mut end = s.end;
        i += 1;
        while i < spans.len() && spans[i].start < end {
            end = end.max(spans[i].end);
            i += 1;
        }
        if s.start < last {
            continue;
        }
        out.push_str(&text[last..s.start]);
        out.push_str("[REDACTED:");
        out.push_str(s.kind);
        out.push(']');
        last = end;
    }
    out.push_str(&text[last..]);
    out
}

/// Parses `redactSecrets`: absent, null or false → off; true → the built-in formats;
/// `{ patterns?: [string | {source, flags}] }` (the JS layer turns a RegExp into
/// `{source, flags}`; a string is a regex source) → plus those.
pub fn parse(v: Option<&Value>) -> Result<Option<Redactor>, StartupError> {
    let host = match v {
        None | Some(Value::Null) | Some(Value::Bool(false)) => return Ok(None),
        Some(Value::Bool(true)) => Vec::new(),
        Some(Value::Object(o)) => match o.get("patterns") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(ps)) => ps
                .iter()
                .map(|p| match p {
                    Value::String(s) if !s.is_empty() => Ok((s.clone(), String::new())),
                    Value::Object(r) => match (r.get("source"), r.get("flags")) {
                        (Some(Value::String(s)), f) => Ok((
                            s.clone(),
                            f.and_then(Value::as_str).unwrap_or("").to_string(),
                        )),
                        _ => Err(bad_pattern(p)),
                    },
                    _ => Err(bad_pattern(p)),
                })
                .collect::<Result<Vec<_>, _>>()?,
            Some(other) => {
                return Err(StartupError(format!(
                    "redactSecrets.patterns must be an array of strings or RegExps, got: {}",
                    js_string(other)
                )))
            }
        },
        Some(other) => {
            return Err(StartupError(format!(
                "redactSecrets must be true, false or {{ patterns }}, got: {}",
                js_string(other)
            )))
        }
    };
    Redactor::new(host).map(Some).map_err(StartupError)
}

fn bad_pattern(p: &Value) -> StartupError {
    StartupError(format!(
        "redactSecrets.patterns entries must be non-empty strings or RegExps, got: {}",
        js_string(p)
    ))
}

#[cfg(test)]
mod tests;
