//! Call titles (`tools.describeCall(name, args)`): a short human line for progress lists and
//! approval prompts — `Read src/a.ts (lines 1–200)`, `Run npm test`, `Patch 3 files`.
//!
//! Each tool says what its calls are in its own file (its `pub fn title`, listed by the
//! registry beside its `def`), from the arguments as given: missing or mistyped values fall
//! back to plain words, never an error. This module
//! holds the pieces titles share and [`describe`], which makes any title safe to show: every
//! string argument is redacted before the tool composes from it (a line-anchored secret such
//! as `DB_PASSWORD=…` at the start of a command is still at a line start there), the result
//! is redacted again, put on one line and cut to [`MAX_CHARS`] characters. Titles go to the
//! host's UI, so they are redacted whether or not `redactSecrets` is on (with the built-in
//! kinds, plus the host's patterns when it is).

use super::ToolDef;
use crate::redact::{Redactor, Scope};
use serde_json::{Map, Value};
use std::sync::{Arc, OnceLock};

/// The longest title, in characters.
pub const MAX_CHARS: usize = 80;

/// The longest path or quoted text inside a title, in characters (room for the words around).
const PIECE_CHARS: usize = 48;

/// A non-empty string argument.
pub fn text<'a>(args: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    args.get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
}

/// A path argument, shortened for a title; `default` when absent.
pub fn path(args: &Map<String, Value>, key: &str, default: &str) -> String {
    short_path(text(args, key).unwrap_or(default))
}

/// The string entries of an array argument.
pub fn strings<'a>(args: &'a Map<String, Value>, key: &str) -> Vec<&'a str> {
    args.get(key)
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// An integer argument.
pub fn int(args: &Map<String, Value>, key: &str) -> Option<i64> {
    crate::schema::int_arg(args, key)
}

/// `p` within [`PIECE_CHARS`]: its last components after `…/` when longer.
pub fn short_path(p: &str) -> String {
    let p = one_line(p);
    if p.chars().count() <= PIECE_CHARS {
        return p;
    }
    let mut tail = String::new();
    for part in p.rsplit('/') {
        let next = if tail.is_empty() {
            part.to_string()
        } else {
            format!("{part}/{tail}")
        };
        if next.chars().count() + 2 > PIECE_CHARS {
            break;
        }
        tail = next;
    }
    if tail.is_empty() {
        return cut(&p, PIECE_CHARS);
    }
    format!("…/{tail}")
}

/// `s` in double quotes, its first line, within [`PIECE_CHARS`].
pub fn quoted(s: &str) -> String {
    format!("\"{}\"", cut(&first_line(s), PIECE_CHARS - 2))
}

/// The first line of `s`, with `…` when more lines follow.
pub fn first_line(s: &str) -> String {
    let trimmed = s.trim();
    match trimmed.split_once('\n') {
        Some((first, _)) => format!("{} …", first.trim_end()),
        None => trimmed.to_string(),
    }
}

/// ` in <path> (<glob>)`, ` in <path>`, ` in <glob>` or nothing: the scope of a search.
pub fn scope(args: &Map<String, Value>) -> String {
    match (text(args, "path"), text(args, "glob")) {
        (Some(p), Some(g)) => format!(" in {} ({})", short_path(p), short_path(g)),
        (Some(p), None) => format!(" in {}", short_path(p)),
        (None, Some(g)) => format!(" in {}", short_path(g)),
        (None, None) => String::new(),
    }
}

/// `<kind> <id>` for an identifier argument, `a <kind>` without one (`checkpoint cp-1`).
pub fn named(args: &Map<String, Value>, key: &str, kind: &str) -> String {
    match text(args, key) {
        Some(id) => format!("{kind} {}", cut(&one_line(id), PIECE_CHARS)),
        None => format!("a {kind}"),
    }
}

/// `n thing` / `n things`.
pub fn count(n: usize, thing: &str) -> String {
    if n == 1 {
        format!("1 {thing}")
    } else {
        format!("{n} {thing}s")
    }
}

/// `s` with every run of whitespace (line breaks included) as one space, trimmed.
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `s` within `max` characters, ending in `…` when cut.
fn cut(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.truncate(out.trim_end().len());
    out.push('…');
    out
}

/// The redactor titles use when the tools object has none: the built-in kinds.
fn default_redactor() -> Option<&'static Arc<Redactor>> {
    static DEFAULT: OnceLock<Option<Arc<Redactor>>> = OnceLock::new();
    DEFAULT
        .get_or_init(|| Redactor::new(Vec::new()).ok().map(Arc::new))
        .as_ref()
}

/// The masking titles get: the tools object's redactor, else the built-in kinds.
fn masking(redactor: Option<&Arc<Redactor>>) -> Scope {
    match redactor {
        Some(r) => Scope::new(Some(r)),
        None => Scope::new(default_redactor()),
    }
}

/// A raw title made safe to show: redacted, on one line, at most [`MAX_CHARS`] characters.
pub fn finish(raw: &str, redactor: Option<&Arc<Redactor>>) -> String {
    let masked = masking(redactor).text(raw.to_string());
    cut(&one_line(&masked), MAX_CHARS)
}

/// The title of a call of `def` with `args` (as given, not validated).
pub fn describe(def: &ToolDef, args: &Value, redactor: Option<&Arc<Redactor>>) -> String {
    let mut args = args.as_object().cloned().unwrap_or_default();
    let scope = masking(redactor);
    args.values_mut().for_each(|v| scope.value(v));
    finish(&super::title_of(def)(&args), redactor)
}

/// `describeCall(name, args)` on a tools object: a built-in's title (whether or not it is on
/// this surface: a host may describe a call it is about to refuse), else `name` itself made
/// safe (a custom tool's `title` runs in JavaScript and comes back through [`finish`]).
pub fn describe_call(runtime: &crate::runtime::Runtime, name: &str, args: &Value) -> String {
    let redactor = runtime.redactor.as_ref();
    match super::all().iter().find(|d| d.name == name) {
        Some(def) => describe(def, args, redactor),
        None => finish(name, redactor),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Arguments for `def` made from its schema: every property, strings `src/x.ts`-like,
    /// arrays of two entries, numbers and booleans set, so each title shows what it reads.
    fn sample(def: &ToolDef) -> Value {
        let schema = (def.schema)();
        let mut args = Map::new();
        for (k, p) in schema["properties"].as_object().into_iter().flatten() {
            let v = match p["type"].as_str() {
                Some("string") if k.contains("command") => json!("npm test"),
                Some("string") if k.contains("patch") => json!(
                    "--- a/a.ts\n+++ b/a.ts\n@@ -1 +1 @@\n-x\n+y\n--- a/b.ts\n+++ b/b.ts\n@@ -1 +1 @@\n-x\n+y\n"
                ),
                Some("string") => json!(format!("src/{k}.ts")),
                Some("integer") | Some("number") => json!(3),
                Some("boolean") => json!(true),
                Some("array") => json!(["src/a.ts", "src/b.ts"]),
                _ => continue,
            };
            args.insert(k.clone(), v);
        }
        Value::Object(args)
    }

    /// Every registered tool has a title of its own: not empty, not just its name, within
    /// the bound, and different from every other tool's for the same kind of arguments (a
    /// copied title is caught). A tool added without one fails here.
    #[test]
    fn every_tool_has_its_own_title() {
        let mut seen: Vec<(String, &str)> = Vec::new();
        for def in super::super::all() {
            let t = describe(def, &sample(def), None);
            assert!(!t.is_empty(), "{} has an empty title", def.name);
            assert!(t.chars().count() <= MAX_CHARS, "{}: {t}", def.name);
            assert_ne!(t, def.name, "{} has no title of its own", def.name);
            assert!(
                t.starts_with(|c: char| c.is_uppercase()),
                "{}: {t}",
                def.name
            );
            if let Some((_, other)) = seen.iter().find(|(s, _)| *s == t) {
                panic!("{} and {other} share the title {t:?}", def.name);
            }
            seen.push((t, def.name));
            // Nothing given at all: still a title, never a panic.
            assert!(!describe(def, &json!({}), None).is_empty(), "{}", def.name);
            assert!(
                !describe(def, &json!(null), None).is_empty(),
                "{}",
                def.name
            );
        }
    }

    fn title(name: &str, args: Value) -> String {
        let def = super::super::all().iter().find(|d| d.name == name).unwrap();
        describe(def, &args, None)
    }

    #[test]
    fn titles_read_like_the_examples() {
        assert_eq!(
            title(
                "read_file",
                json!({"path": "src/a.ts", "offset": 1, "limit": 200})
            ),
            "Read src/a.ts (lines 1–200)"
        );
        assert_eq!(
            title("read_file", json!({"path": "src/a.ts"})),
            "Read src/a.ts"
        );
        assert_eq!(
            title("read_file", json!({"path": "a", "offset": -50})),
            "Read a (last 50 lines)"
        );
        assert_eq!(
            title("edit_file", json!({"path": "src/a.ts"})),
            "Edit src/a.ts"
        );
        let three = "*** Begin Patch\n*** Add File: a\n+x\n*** Delete File: b\n*** Update File: c\n@@\n-x\n+y\n*** End Patch";
        assert_eq!(
            title("apply_patch", json!({"patch": three})),
            "Patch 3 files"
        );
        assert_eq!(
            title("bash", json!({"command": "npm test"})),
            "Run npm test"
        );
        assert_eq!(
            title("grep", json!({"pattern": "TODO", "path": "src/"})),
            "Search \"TODO\" in src/"
        );
    }

    #[test]
    fn titles_are_short_one_line_and_hold_no_secret() {
        let long = format!("echo {}\nrm -rf build", "x".repeat(200));
        let t = title("bash", json!({ "command": long }));
        assert!(
            t.chars().count() <= MAX_CHARS && t.ends_with('…') && !t.contains('\n'),
            "{t}"
        );
        let t = title("bash", json!({"command": "DB_PASSWORD=hunter2 npm test"}));
        assert!(!t.contains("hunter2"), "{t}");
        let key = format!("sk-ant-api03-{}", "A".repeat(40));
        let t = title(
            "bash",
            json!({ "command": format!("curl -H 'x-api-key: {key}' api") }),
        );
        assert!(
            !t.contains(&key) && t.contains("[REDACTED:anthropic_key]"),
            "{t}"
        );
        let deep = format!("{}/file.rs", "very/deep/directory".repeat(8));
        let t = title("read_file", json!({ "path": deep }));
        assert!(t.starts_with("Read …/") && t.ends_with("/file.rs"), "{t}");
    }
}
