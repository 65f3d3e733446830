//! `repo_map`: the shape of a repository in a byte budget — its files and the definitions
//! the rest of the code relies on most (issue 29).
//!
//! Composition: [`crate::symbols::repomap`] gives the workspace's ranking as the files are
//! when the call starts (kept per index image, adjusted by the index's delta; without an
//! index, every source file parsed through the memo and ranked), and its renderer shows the
//! longest best-first prefix of the definitions under `path`/`glob` that fits `max_bytes`,
//! grouped by file (found by binary search over the count, as Aider fits its map to a token
//! budget).

use super::navigate::{scope_properties, Where};
use super::{object_schema, read_annotations, Call, Handler, Output, ToolDef};
use crate::error::{ToolError, ToolResult};
use crate::schema::int_arg;
use crate::symbols::repomap::{self, render::render};
use crate::workspace;
use serde_json::{json, Value};

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
        unstaged: false,
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
    let rt = &call.runtime;
    let Some(map) = repomap::answer(&call.config, &rt.symbols, &call.cancel, &call.warnings) else {
        return Err(ToolError::aborted());
    };
    if call.cancel.is_cancelled() {
        return Err(ToolError::aborted());
    }
    let root = &call.config.workspace_root;
    let base = workspace::display(&call.config, &at.base);
    // The ranking is the workspace's; `path` and `glob` choose what it shows.
    let wanted = |display: &str| {
        let under = at.base == *root
            || if at.is_file {
                display == base
            } else {
                display
                    .strip_prefix(base.as_str())
                    .is_some_and(|rest| rest.starts_with(std::path::MAIN_SEPARATOR))
            };
        under && at.wants(&root.join(display))
    };
    let everything = at.base == *root && !at.has_glob();
    let wanted: Option<&dyn Fn(&str) -> bool> = (!everything).then_some(&wanted);
    Ok(Output::text(render(&map, wanted, budget)))
}

/// The call's title (`describeCall`): `Map the repository`, `Map src`.
pub fn title(args: &serde_json::Map<String, Value>) -> String {
    match super::title::text(args, "path") {
        Some(p) => format!("Map {}", super::title::short_path(p)),
        None => "Map the repository".into(),
    }
}
