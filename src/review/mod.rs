//! Review mode for the host (SPEC §13): what is pending, and accepting or rejecting it.
//!
//! The staging itself happens at the writers (`crate::atomic::staging`) into the scope's
//! [`Overlay`]; this engine reads that area for `tools.pending()`, applies chosen changes
//! through the same confined, journaled commit as `apply_patch` (`tools.accept`), and drops
//! them (`tools.reject`).

use crate::config::Config;
use crate::error::{Code, ToolError, ToolResult};
use crate::redact::Scope;
use crate::workspace::overlay::{Base, Entry, Overlay, Staged};
use crate::workspace::{self};
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};

mod accept;
pub mod commands;
pub use accept::{accept, settle};

/// The `paths` argument of a review call: `None` (all) when absent.
pub fn paths_arg(args: &serde_json::Map<String, Value>) -> Option<Vec<String>> {
    args.get("paths").and_then(Value::as_array).map(|a| {
        a.iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect()
    })
}

/// What kind of change a pending path is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A new file.
    Created,
    /// A file with new content.
    Modified,
    /// A removed file.
    Deleted,
    /// A file moved here from `from` (perhaps edited too).
    Moved,
}

impl Kind {
    /// The API's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Created => "created",
            Kind::Modified => "modified",
            Kind::Deleted => "deleted",
            Kind::Moved => "moved",
        }
    }
}

/// One pending change: the path (workspace-relative, `/`-separated), its kind, and for a
/// move its source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// The path.
    pub path: String,
    /// Its kind.
    pub kind: Kind,
    /// A move's source.
    pub from: Option<String>,
}

/// The sources a move's destination takes along: `from` is deleted and not shown on its own.
fn move_source<'a>(entries: &'a BTreeMap<String, Entry>, e: &'a Entry) -> Option<&'a str> {
    let from = e.from.as_deref()?;
    let moved = matches!(e.base, Base::Absent)
        && matches!(e.staged, Staged::Write { .. })
        && entries
            .get(from)
            .is_some_and(|f| f.staged == Staged::Delete);
    moved.then_some(from)
}

/// The pending changes of `entries`, by path.
pub fn changes(entries: &BTreeMap<String, Entry>) -> Vec<Change> {
    let sources: BTreeSet<&str> = entries
        .values()
        .filter_map(|e| move_source(entries, e))
        .collect();
    entries
        .iter()
        .filter(|(rel, _)| !sources.contains(rel.as_str()))
        .map(|(rel, e)| {
            let from = move_source(entries, e).map(str::to_string);
            let kind = match (&e.staged, &e.base, &from) {
                (Staged::Write { .. }, _, Some(_)) => Kind::Moved,
                (Staged::Write { .. }, Base::Absent, None) => Kind::Created,
                (Staged::Write { .. }, Base::File { .. }, None) => Kind::Modified,
                (Staged::Delete, _, _) => Kind::Deleted,
                (Staged::Dir, _, _) => Kind::Created,
            };
            Change {
                path: rel.clone(),
                kind,
                from,
            }
        })
        .collect()
}

/// The keys `wanted` (workspace-relative or absolute, as tools take paths) select, with the
/// other half of each move; every key must be pending (`not_found` otherwise). `None`: all.
pub fn select(
    config: &Config,
    overlay: &Overlay,
    entries: &BTreeMap<String, Entry>,
    wanted: Option<&[String]>,
) -> ToolResult<BTreeSet<String>> {
    let Some(wanted) = wanted else {
        return Ok(entries.keys().cloned().collect());
    };
    let mut out = BTreeSet::new();
    for raw in wanted {
        // Lexical: a name of the staging area, never followed on disk (a directory swapped
        // for a link outside must reach the conflict check, not fail to resolve here).
        let abs = workspace::lexical(config, raw);
        let rel = overlay
            .rel(&abs)
            .filter(|r| entries.contains_key(r))
            .ok_or_else(|| {
                ToolError::new(Code::NotFound, format!("No staged change at {raw}"))
                    .with("path", raw.as_str())
            })?;
        out.insert(rel);
    }
    // A move travels whole: its destination and its source.
    for (rel, e) in entries {
        if let Some(from) = move_source(entries, e) {
            if out.contains(rel) || out.contains(from) {
                out.insert(rel.clone());
                out.insert(from.to_string());
            }
        }
    }
    Ok(out)
}

/// A side of a diff: the bytes as text (BOM stripped, line endings normalised), `None` when
/// they are not UTF-8 text.
fn text_of(bytes: &[u8]) -> Option<String> {
    if crate::text::is_binary(bytes) {
        return None;
    }
    let body = match crate::text::detect_bom(bytes) {
        crate::text::Encoding::Utf8 => bytes,
        crate::text::Encoding::Utf8Bom => &bytes[3..],
        _ => return None,
    };
    let s = std::str::from_utf8(body).ok()?;
    Some(crate::text::normalize_eol(s).into_owned())
}

/// `tools.pending()`: `[{ path, kind, from?, diff?, directory? }]`, the diff in `meta.diff`'s
/// format when both sides are text, masked by `redaction` as the model's diffs are;
/// `directory: true` for a directory `mkdir` staged (kind `created`, no diff).
pub fn pending_json(overlay: &Overlay, redaction: &Scope) -> Value {
    commands::adopt_orphans(overlay);
    overlay.refresh();
    let entries = overlay.entries();
    let list = changes(&entries)
        .into_iter()
        .map(|c| {
            let mut o = json!({ "path": c.path, "kind": c.kind.as_str() });
            let before_at = c.from.as_deref().unwrap_or(&c.path);
            let before = match c.kind {
                Kind::Created => Some(String::new()),
                _ => std::fs::read(overlay.abs(before_at))
                    .ok()
                    .and_then(|b| text_of(&b)),
            };
            let after = match &entries[&c.path].staged {
                Staged::Write { blob, .. } => std::fs::read(overlay.blob_path(blob))
                    .ok()
                    .and_then(|b| text_of(&b)),
                Staged::Delete => Some(String::new()),
                Staged::Dir => {
                    o["directory"] = Value::Bool(true);
                    None
                }
            };
            if let Some(from) = &c.from {
                o["from"] = Value::from(from.as_str());
            }
            if let (Some(before), Some(after)) = (before, after) {
                redaction.learn(&before);
                redaction.learn(&after);
                if let Some(d) = crate::textdiff::file_patch(&c.path, &before, &after) {
                    o["diff"] = Value::from(d);
                }
            }
            o
        })
        .collect();
    let mut v = Value::Array(list);
    redaction.value(&mut v);
    v
}

/// `tools.reject(paths?)`: drops the chosen changes; `{ rejected: [path] }`.
pub fn reject(config: &Config, overlay: &Overlay, paths: Option<&[String]>) -> ToolResult<Value> {
    overlay.refresh();
    let entries = overlay.entries();
    let chosen = select(config, overlay, &entries, paths)?;
    let shown: Vec<String> = changes(&entries)
        .into_iter()
        .filter(|c| chosen.contains(&c.path))
        .map(|c| c.path)
        .collect();
    let keys: Vec<String> = chosen.into_iter().collect();
    overlay
        .forget(&keys)
        .map_err(|e| ToolError::fs(&e, ".clarvis/review"))?;
    Ok(json!({ "rejected": shown }))
}

#[cfg(all(test, unix))]
mod tests;
