//! `repo_map`: the shape of a repository in a byte budget — its files and the definitions
//! the rest of the code relies on most (issue 29).
//!
//! Composition: every source file under `path` is parsed through the symbol engine (the
//! memo makes a second call cost reads and hashes), [`crate::symbols::rank`] ranks the
//! definitions, and the longest best-first prefix that fits `max_bytes` is shown, grouped by
//! file (found by binary search over the count, as Aider fits its map to a token budget).

use super::navigate::{scope_properties, Where};
use super::{object_schema, read_annotations, Call, Handler, Output, ToolDef};
use crate::error::{ToolError, ToolResult};
use crate::schema::int_arg;
use crate::symbols;
use crate::symbols::model::separator;
use crate::symbols::ondemand::{Needle, Parsed, Scope, Skip};
use crate::symbols::rank::{rank, Ranked};
use serde_json::{json, Value};
use std::path::Path;

const DESCRIPTION: &str = "The shape of a repository in a byte budget: its source files and the definitions the rest of the code relies on most — ranked by how much the code references them (PageRank over the graph from each file that uses a name to the file that defines it, as Aider's repo map) — each with its line number and signature line, methods indented under their class. The first call to make in a repository you do not know; then find_symbol / read_file for what you need. `path` narrows it to a directory (or one file), `glob` to some files (`*.py`, `src/**/*.ts`). `max_bytes` is the budget (default a quarter of the output limit): the map shows the best-ranked definitions that fit, grouped by file (files in rank order, definitions in line order), and says how many it left out. Same languages as find_symbol (files in other languages are counted, not mapped). Errors: invalid_input (a bad glob), not_found (path), path_escape.";

/// The `repo_map` tool definition.
pub fn def() -> ToolDef {
    ToolDef {
        name: "repo_map",
        description: DESCRIPTION,
        schema,
        bounded: true,
        annotations: read_annotations(),
        handler: Handler::Blocking(run),
        aborted: ToolError::aborted,
        syntax: true,
    }
}

fn schema() -> Value {
    object_schema(
        scope_properties(
            json!({
                "max_bytes": {"type": "integer", "minimum": 0, "description": "The map's budget in bytes; default (and 0): a quarter of maxOutputBytes; never more than maxOutputBytes."}
            }),
            None,
        ),
        &[],
    )
}

fn run(call: &Call) -> ToolResult<Output> {
    let at = Where::from_call(call)?;
    let limit = usize::try_from(call.config.max_output_bytes).unwrap_or(usize::MAX);
    let budget = int_arg(&call.args, "max_bytes")
        .filter(|&v| v > 0)
        .map_or(limit / 4, |v| usize::try_from(v).unwrap_or(usize::MAX))
        .min(limit);
    let filter = |p: &Path| at.wants(p);
    let scope = Scope {
        base: &at.base,
        is_file: at.is_file,
        filter: &filter,
    };
    // Every file holds the empty needle: all of them are read and parsed.
    let needle = Needle {
        text: String::new(),
        fold: false,
    };
    let rt = &call.runtime;
    let found = symbols::candidates(
        &call.config,
        &rt.symbols,
        &call.cancel,
        &call.warnings,
        &scope,
        &needle,
    );
    if call.cancel.is_cancelled() {
        return Err(ToolError::aborted());
    }
    let ranking = rank(&found.files);
    let other = found
        .skipped
        .iter()
        .filter(|(_, why)| *why == Skip::Unsupported)
        .count();
    let unparsed: Vec<&str> = found
        .skipped
        .iter()
        .filter(|(_, why)| *why != Skip::Unsupported)
        .map(|(p, _)| p.as_str())
        .collect();
    let total = ranking.defs.len();
    let footer = |shown: usize, files: usize| {
        let mut s = format!(
            "[repo map: {shown} of {total} definitions, {files} of {} source files",
            found.files.len()
        );
        if other > 0 {
            s.push_str(&format!(" ({other} in other languages not mapped)"));
        }
        if !unparsed.is_empty() {
            s.push_str(&format!(
                "; not parsed (too large or too slow): {}",
                unparsed.join(", ")
            ));
        }
        if shown < total {
            s.push_str("; more with a larger max_bytes or a narrower path");
        }
        s.push(']');
        s
    };
    // The largest count whose map fits: the rendered size grows with the count.
    // Every definition takes at least 6 bytes (`  1: x` and a newline): no more can fit.
    let (mut lo, mut hi) = (0, total.min(budget / 6 + 1));
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if render(&found.files, &ranking.files, &ranking.defs[..mid], &footer).len() <= budget {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    let mut text = render(&found.files, &ranking.files, &ranking.defs[..lo], &footer);
    if text.len() > budget {
        // Even the footer alone is over a tiny budget: cut on a character boundary.
        let mut cut = budget;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
    }
    Ok(Output::text(text))
}

/// The map of `chosen`: files in the order of their best chosen definition, each file's
/// definitions in line order, then the footer.
fn render(
    files: &[Parsed],
    file_rank: &[f64],
    chosen: &[Ranked],
    footer: &dyn Fn(usize, usize) -> String,
) -> String {
    // Each file's chosen definitions and its best score (`chosen` is best first), by index:
    // the map is rendered once per step of the binary search over thousands of definitions.
    let mut slot: std::collections::HashMap<usize, usize> = std::collections::HashMap::new();
    let mut by_file: Vec<(usize, Vec<usize>, f64)> = Vec::new();
    for r in chosen {
        let i = *slot.entry(r.file).or_insert_with(|| {
            by_file.push((r.file, Vec::new(), r.score));
            by_file.len() - 1
        });
        by_file[i].1.push(r.def);
    }
    // Files that only hold unreferenced definitions follow, by their own rank.
    by_file.sort_by(|a, b| {
        b.2.total_cmp(&a.2)
            .then_with(|| file_rank[b.0].total_cmp(&file_rank[a.0]))
    });
    let mut out = String::new();
    for (f, mut defs, _) in by_file.iter().cloned() {
        let file = &files[f];
        defs.sort_unstable();
        out.push_str(&file.display);
        out.push('\n');
        for d in defs {
            let def = &file.syms.defs[d];
            let indent = "  ".repeat(def.container.len().min(4) + 1);
            let sig = if def.sig.contains(def.name.as_str()) {
                def.sig.clone()
            } else {
                // A definition whose line does not show its name (a macro-made one, a long
                // signature cut short): name it.
                format!(
                    "{} {}",
                    def.kind.as_str(),
                    def.qualified(separator(file.grammar))
                )
            };
            out.push_str(&format!("{indent}{}: {sig}\n", def.line));
        }
    }
    out.push_str(&footer(chosen.len(), by_file.len()));
    out
}

/// The call's title (`describeCall`): `Map the repository`, `Map src`.
pub fn title(args: &serde_json::Map<String, Value>) -> String {
    match super::title::text(args, "path") {
        Some(p) => format!("Map {}", super::title::short_path(p)),
        None => "Map the repository".into(),
    }
}
