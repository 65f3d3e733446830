//! What the code-navigation tools (`find_symbol`, `find_references`, `repo_map`) share: the
//! `path`/`glob` scope, paging like grep's, and the notes about files that were skipped or
//! did not parse cleanly.

use super::glob::{compile, relative};
use super::Call;
use crate::error::{ToolError, ToolResult};
use crate::schema::{int_arg, str_arg};
use crate::symbols::ondemand::Skip;
use crate::workspace;
use globset::GlobMatcher;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// `props` with the `path` and `glob` properties every navigation tool takes and, when the
/// tool pages (`paged`: what it lists, plural), grep's `head_limit` and `offset`.
pub fn scope_properties(mut props: Value, paged: Option<&str>) -> Value {
    let Value::Object(map) = &mut props else {
        return props;
    };
    map.insert("path".into(), json!({"type": "string", "description": "A directory (searched recursively, honouring .gitignore) or one file; defaults to the workspace root."}));
    map.insert("glob".into(), json!({"type": "string", "description": "Only files matching this glob: without `/` it matches file names at any depth (`*.py`), with `/` the path relative to `path` (`src/**/*.ts`)."}));
    if let Some(what) = paged {
        map.insert("head_limit".into(), json!({"type": "integer", "minimum": 1, "description": format!("At most this many {what}. Omit for all (the output is still bounded).")}));
        map.insert("offset".into(), json!({"type": "integer", "minimum": 0, "default": 0, "description": format!("How many {what} to skip (for paging).")}));
    }
    props
}

/// The resolved `path` and `glob` of a call.
pub struct Where {
    /// The absolute base (the workspace root when `path` is absent).
    pub base: PathBuf,
    /// `base` is a file.
    pub is_file: bool,
    glob: Option<(GlobMatcher, bool)>,
}

impl Where {
    /// From the call's `path` and `glob` (grep's semantics: a glob without `/` matches file
    /// names at any depth, with `/` the path relative to `path`).
    pub fn from_call(call: &Call) -> ToolResult<Where> {
        let input = str_arg(&call.args, "path").unwrap_or("");
        let base = workspace::resolve(&call.config, input)?;
        let meta = workspace::overlay::stat(&call.config, &base)
            .map_err(|e| ToolError::fs(&e, &base.to_string_lossy()))?;
        let glob = match str_arg(&call.args, "glob").filter(|g| !g.is_empty()) {
            Some(g) => {
                let anchored = g.strip_prefix("./").unwrap_or(g).contains('/');
                Some((compile(g.strip_prefix('/').unwrap_or(g), "glob")?, anchored))
            }
            None => None,
        };
        Ok(Where {
            base,
            is_file: !meta.is_dir(),
            glob,
        })
    }

    /// Whether the call has a glob.
    pub fn has_glob(&self) -> bool {
        self.glob.is_some()
    }

    /// Whether `abs` passes the glob (always, for a single file or without one).
    pub fn wants(&self, abs: &Path) -> bool {
        match &self.glob {
            _ if self.is_file => true,
            None => true,
            Some((g, true)) => relative(&self.base, abs).is_some_and(|rel| g.is_match(&*rel)),
            Some((g, false)) => abs.file_name().is_some_and(|n| g.is_match(n)),
        }
    }
}

/// Paging like grep's: `offset` results skipped, at most `head_limit` shown, the text kept
/// under `maxOutputBytes`, and `[... showing A..B of N; call again with offset=B for more ...]`
/// when results remain.
pub struct Page {
    offset: usize,
    head_limit: Option<usize>,
    max: usize,
}

impl Page {
    /// From the call's `offset` and `head_limit` (0 or absent: no limit).
    pub fn from_call(call: &Call) -> Page {
        let n = |k: &str| {
            int_arg(&call.args, k).map(|v| usize::try_from(v.max(0)).unwrap_or(usize::MAX))
        };
        Page {
            offset: n("offset").unwrap_or(0),
            head_limit: n("head_limit").filter(|&v| v > 0),
            max: usize::try_from(call.config.max_output_bytes).unwrap_or(usize::MAX),
        }
    }

    /// The results [`Page::render`] can ask for when no chunk is shorter than `min_chunk`
    /// bytes: from `offset`, at most `head_limit` of them, and no more than the byte budget
    /// holds plus the one that is asked for and does not fit. A caller preparing what the
    /// chunks need (the lines of the results) needs nothing outside it.
    pub fn reach(&self, min_chunk: usize) -> std::ops::Range<usize> {
        let fit = (self.max / min_chunk.max(1)).saturating_add(2);
        let n = self.head_limit.map_or(fit, |h| h.min(fit));
        self.offset..self.offset.saturating_add(n)
    }

    /// Renders results `offset..` of `total`, each as `chunk(i, first)` (`first`: the first
    /// on the page), then `notes`, within the byte budget.
    pub fn render(
        &self,
        total: usize,
        mut chunk: impl FnMut(usize, bool) -> String,
        notes: &str,
    ) -> String {
        let notes = crate::syntax::issues::cut(notes, 2000);
        // Room for the footer and the notes.
        let budget = self.max.saturating_sub(notes.len() + 120);
        let end = self
            .head_limit
            .map_or(total, |h| self.offset.saturating_add(h).min(total));
        let mut out = String::new();
        let mut shown_to = self.offset.min(total);
        for i in self.offset..end {
            let c = chunk(i, i == self.offset);
            let sep = usize::from(!out.is_empty());
            if out.len() + sep + c.len() > budget && i > self.offset {
                break;
            }
            if sep == 1 {
                out.push('\n');
            }
            out.push_str(&c);
            shown_to = i + 1;
        }
        if out.len() > budget {
            // One result alone is longer than the budget: cut it on a character boundary.
            let mut cut = budget;
            while !out.is_char_boundary(cut) {
                cut -= 1;
            }
            out.truncate(cut);
        }
        if shown_to < total {
            out.push_str(&format!(
                "\n[... showing {}..{shown_to} of {total}; call again with offset={shown_to} for more ...]",
                self.offset
            ));
        }
        if !notes.is_empty() {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(&notes);
        }
        out
    }
}

/// The notes about candidate files that were not parsed and files that have syntax errors.
pub fn notes(needle: &str, skipped: &[(String, Skip)], errors: &[&str]) -> String {
    let mut out = String::new();
    if !skipped.is_empty() {
        let mut by: Vec<(Skip, Vec<&str>)> = Vec::new();
        for (path, why) in skipped {
            match by.iter_mut().find(|(w, _)| w == why) {
                Some((_, v)) => v.push(path),
                None => by.push((*why, vec![path])),
            }
        }
        let parts: Vec<String> = by
            .iter()
            .map(|(why, paths)| format!("{} ({})", list(paths, 5), why.reason()))
            .collect();
        out.push_str(&format!(
            "[{} file{} holding `{needle}` not parsed: {}; grep searches them]",
            skipped.len(),
            if skipped.len() == 1 { "" } else { "s" },
            parts.join("; ")
        ));
    }
    if !errors.is_empty() {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&format!(
            "[note: syntax errors in {}: what follows an error there may be missing (check_syntax shows them)]",
            list(errors, 5)
        ));
    }
    out
}

fn list(paths: &[&str], max: usize) -> String {
    let mut s = paths
        .iter()
        .take(max)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    if paths.len() > max {
        s.push_str(&format!(" and {} more", paths.len() - max));
    }
    s
}
