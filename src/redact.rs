//! Secret redaction (`redactSecrets`): masks credentials in every text going back to the model.
//!
//! Well-known credential formats are found by one multi-pattern regex (`regex-automata`'s meta
//! engine, already a dependency through globset/grep: one pass over the text whatever the
//! number of formats, literal prefilters, no backtracking) and replaced by
//! `[REDACTED:<kind>]`. The host's own patterns are JavaScript regexes ([`JsRegex`]) applied
//! after, as `[REDACTED:custom]`. Redaction happens at dispatch's edge, so every tool — and
//! every host tool — is covered, errors included.
//!
//! A model that saw a placeholder may write it back (an `edit_file` whose `new_string` carries
//! `[REDACTED:github_token]`), which would overwrite the secret with its mask. So a mutating
//! call whose arguments contain a placeholder is refused ([`refuse_placeholders`]).

use crate::config::{js_string, StartupError};
use crate::error::ToolError;
use crate::jsregex::JsRegex;
use regex_automata::meta::Regex;
use regex_automata::util::captures::Captures;
use serde_json::{Map, Value};
use std::fmt;

/// What replaces a text on which a host pattern ran out of backtracking budget.
pub const WITHHELD: &str = "[REDACTED:custom] (a redactSecrets pattern could not be decided on this output within its backtracking budget, so all of it is withheld)";

/// Where a `.env`-style assignment may start: a line start (or a JSON-escaped `\n`, as in
/// bash's JSON result), after read_file's `     3\t` or grep's `path:3:` prefix or a diff's
/// `+`/`-` marker (`meta.diff`).
const LINE: &str = r#"(?:(?m:^)|\\n)(?:[ \t]*\d+\t|[^\n:=]*:\d+:)?[+-]?[ \t]*(?:export[ \t]+)?"#;
/// An assignment's value: quoted, JSON-escaped quoted, or a bare word (not `$VAR`).
const VALUE: &str = r#"(?P<v>"[^"\n]*"|'[^'\n]*'|\\"[^"\n]*?\\"|[^\s"'#$\\][^\s#\\]*)"#;

/// The built-in formats, in priority order (at one position the first wins).
fn formats() -> Vec<(&'static str, String)> {
    let b = r"(?-u:\b)";
    vec![
        (
            "private_key",
            r"-----BEGIN[ A-Z0-9]*PRIVATE KEY-----(?:(?s:.)*?-----END[ A-Z0-9]*PRIVATE KEY-----|[A-Za-z0-9+/=\s\\]*)".into(),
        ),
        (
            "aws_access_key",
            format!("{b}(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|APKA)[0-9A-Z]{{16}}{b}"),
        ),
        (
            "aws_secret_key",
            r#"(?i:aws_?secret_?(?:access_?)?key)["']?\s*[=:]\s*["']?(?P<v>[A-Za-z0-9/+=]{40})"#.into(),
        ),
        (
            "github_token",
            format!("{b}(?:gh[pousr]_[A-Za-z0-9]{{36,255}}|github_pat_[A-Za-z0-9_]{{22,255}}){b}"),
        ),
        ("npm_token", format!("{b}npm_[A-Za-z0-9]{{36}}{b}")),
        ("anthropic_key", format!("{b}sk-ant-[A-Za-z0-9_-]{{20,}}")),
        (
            "openai_key",
            format!("{b}sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{{32,}}"),
        ),
        ("google_api_key", format!("{b}AIza[0-9A-Za-z_-]{{35}}")),
        ("slack_token", format!("{b}xox[abposr]-[A-Za-z0-9-]{{10,}}")),
        ("stripe_key", format!("{b}[rs]k_live_[A-Za-z0-9]{{24,}}")),
        (
            "password",
            format!("{LINE}(?i:[A-Za-z0-9_.-]*(?:password|passwd|pwd|pass)[A-Za-z0-9_.-]*)={VALUE}"),
        ),
        (
            "secret",
            format!("{LINE}(?i:[A-Za-z0-9_.-]*(?:token|secret|api_?key|access_?key|private_?key|auth_?key|credentials?)[A-Za-z0-9_.-]*)={VALUE}"),
        ),
    ]
}

/// A configured redactor: the built-in formats plus the host's patterns.
pub struct Redactor {
    kinds: Vec<&'static str>,
    builtin: Regex,
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
        let formats = formats();
        let builtin = Regex::new_many(&formats.iter().map(|(_, p)| p.as_str()).collect::<Vec<_>>())
            .map_err(|e| format!("built-in redaction patterns: {e}"))?;
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
            kinds: formats.iter().map(|(k, _)| *k).collect(),
            builtin,
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

    /// `text` with every secret replaced by `[REDACTED:<kind>]`. Unchanged text is returned
    /// as is (no copy).
    pub fn redact(&self, text: String) -> String {
        let mut out = self.redact_builtin(text);
        for (_, _, re) in &self.host {
            match re.replace_all(&out, "[REDACTED:custom]") {
                Ok((masked, n)) if n > 0 => out = masked,
                Ok(_) => {}
                // Undecidable within the budget: withhold the text rather than risk a leak.
                Err(_) => return WITHHELD.to_string(),
            }
        }
        out
    }

    /// Every string inside `v` redacted in place (a result's `meta`, e.g. `meta.diff`, quotes
    /// file text as much as the result does).
    pub fn redact_value(&self, v: &mut Value) {
        match v {
            Value::String(s) => *s = self.redact(std::mem::take(s)),
            Value::Array(a) => a.iter_mut().for_each(|x| self.redact_value(x)),
            Value::Object(o) => o.values_mut().for_each(|x| self.redact_value(x)),
            _ => {}
        }
    }

    fn redact_builtin(&self, text: String) -> String {
        let mut caps = self.builtin.create_captures();
        let mut out: Option<String> = None;
        let mut last = 0;
        let mut at = 0;
        while at <= text.len() {
            self.builtin
                .search_captures(&regex_automata::Input::new(&text).range(at..), &mut caps);
            let Some(m) = caps.get_match() else { break };
            let kind = self.kinds[m.pattern().as_usize()];
            let span = value_span(&caps).unwrap_or(m.range());
            let buf = out.get_or_insert_with(|| String::with_capacity(text.len()));
            buf.push_str(&text[last..span.start]);
            buf.push_str("[REDACTED:");
            buf.push_str(kind);
            buf.push(']');
            last = span.end;
            at = if m.end() > m.start() {
                m.end()
            } else {
                // An empty match cannot happen with these formats; step on to be safe.
                next_char(&text, m.end())
            };
        }
        match out {
            None => text,
            Some(mut buf) => {
                buf.push_str(&text[last..]);
                buf
            }
        }
    }
}

fn value_span(caps: &Captures) -> Option<std::ops::Range<usize>> {
    caps.get_group_by_name("v").map(|s| s.range())
}

fn next_char(text: &str, i: usize) -> usize {
    text[i..].chars().next().map_or(i + 1, |c| i + c.len_utf8())
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

    fn r() -> Redactor {
        Redactor::new(vec![("internal-[0-9]+".into(), "i".into())]).unwrap()
    }

    #[test]
    fn well_known_formats_are_masked() {
        let cases = [
            (
                "key AKIAIOSFODNN7EXAMPLE here",
                "key [REDACTED:aws_access_key] here",
            ),
            (
                "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                "aws_secret_access_key = [REDACTED:aws_secret_key]",
            ),
            (
                "t=ghp_0123456789abcdefghijABCDEFGHIJ012345",
                "t=[REDACTED:github_token]",
            ),
            (
                "npm_abcdefghijABCDEFGHIJ0123456789abcdef",
                "[REDACTED:npm_token]",
            ),
            (
                "k sk-ant-api03-abcdefghijklmnopqrstuvwxyz",
                "k [REDACTED:anthropic_key]",
            ),
            (
                "k sk-proj-abcdefghijklmnopqrstuvwxyz0123456789",
                "k [REDACTED:openai_key]",
            ),
            (
                "AIzaSyA-0123456789abcdefghijklmnopqrstu",
                "[REDACTED:google_api_key]",
            ),
            (
                "PASSWORD=hunter2\nUSER=bob\n",
                "PASSWORD=[REDACTED:password]\nUSER=bob\n",
            ),
            (
                "export API_TOKEN=\"a b c\"\n",
                "export API_TOKEN=[REDACTED:secret]\n",
            ),
            (
                "     3\tDB_PASS=s3cret\n",
                "     3\tDB_PASS=[REDACTED:password]\n",
            ),
            (".env:2:token=abc123\n", ".env:2:token=[REDACTED:secret]\n"),
            (
                "@@ -1 +1 @@\n-PASS=a\n+PASS=b\n",
                "@@ -1 +1 @@\n-PASS=[REDACTED:password]\n+PASS=[REDACTED:password]\n",
            ),
            (
                r#"{"stdout":"A=1\nSECRET_KEY=xyz\n"}"#,
                r#"{"stdout":"A=1\nSECRET_KEY=[REDACTED:secret]\n"}"#,
            ),
            (
                "x\n-----BEGIN RSA PRIVATE KEY-----\nMIIB\nabc\n-----END RSA PRIVATE KEY-----\ny",
                "x\n[REDACTED:private_key]\ny",
            ),
            ("ref INTERNAL-42 ok", "ref [REDACTED:custom] ok"),
        ];
        for (input, want) in cases {
            assert_eq!(r().redact(input.to_string()), want, "{input}");
        }
    }

    #[test]
    fn ordinary_code_is_left_alone() {
        for s in [
            "password = input('pw')",
            "const token = req.headers.token",
            "PASSWORD=$DB_PASSWORD",
            "sk-short",
            "AKIA_not_a_key",
            "ghp_short",
            "résumé password: é",
        ] {
            assert_eq!(r().redact(s.to_string()), s);
        }
    }

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

    #[test]
    fn option_parsing() {
        assert!(parse(None).unwrap().is_none());
        assert!(parse(Some(&Value::Bool(false))).unwrap().is_none());
        assert!(parse(Some(&Value::Bool(true))).unwrap().is_some());
        let e = parse(Some(&serde_json::json!({"patterns": ["x*"]})))
            .unwrap_err()
            .0;
        assert_eq!(e, "redactSecrets.patterns: /x*/ matches the empty string");
        let e = parse(Some(&serde_json::json!({"patterns": ["("]})))
            .unwrap_err()
            .0;
        assert!(
            e.starts_with("redactSecrets.patterns: /(/ is not a valid regex"),
            "{e}"
        );
        assert_eq!(
            parse(Some(&serde_json::json!("yes"))).unwrap_err().0,
            "redactSecrets must be true, false or { patterns }, got: yes"
        );
        assert_eq!(
            parse(Some(&serde_json::json!({"patterns": [1]})))
                .unwrap_err()
                .0,
            "redactSecrets.patterns entries must be non-empty strings or RegExps, got: 1"
        );
    }
}
