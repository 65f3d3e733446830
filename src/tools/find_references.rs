//! `find_references`: every place an identifier is used as code, from the parsed sources,
//! grouped by file (issue 29).

use super::find_symbol::check_file;
use super::navigate::{notes, scope_properties, Page, Where};
use super::{object_schema, read_annotations, Call, Handler, Output, ToolDef};
use crate::error::{ToolError, ToolResult};
use crate::schema::str_arg;
use crate::symbols::model::Role;
use crate::symbols::ondemand::{read_text, Needle, Parsed, Scope};
use crate::symbols::query::{self, Mode, Name};
use crate::symbols::texts::CallTexts;
use crate::symbols::{self, DefHit, RefHit};
use serde_json::{json, Value};
use std::path::Path;

const DESCRIPTION: &str = "List every place an identifier is used as code — calls, imports and exports, type references, reads, writes (assignments, bindings, parameters), member accesses, and its definitions (marked `definition`) — from the parsed sources, never inside a comment or a string literal (grep finds text there). Grouped by file: the path, then one line per use `line:col  role  the source line`. `name` is the identifier, optionally qualified (`Config.load`): references are matched by the name itself, so the result says when the name has several definitions the syntax cannot tell apart (narrow with `path` or `glob`, or check the line). `kinds` keeps only some roles: definition, call, import, type, write, member, read. Paging as grep: `head_limit`, `offset`. Same languages as find_symbol; the result names the files holding the name it could not parse. Use it before renaming or changing a function's signature, to see who calls it; use find_symbol to jump to a definition. Errors: invalid_input (an empty name, a name that is not an identifier — the bare name, no parentheses or wildcards; an unknown role in `kinds` — the message lists them; a bad glob), not_found (path), is_binary / too_large (a `path` naming such a file), path_escape.";

/// The `find_references` tool definition.
pub fn def() -> ToolDef {
    ToolDef {
        name: "find_references",
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
                "name": {"type": "string", "description": "The identifier, optionally qualified (`parseConfig`, `Config.load`)."},
                "kinds": {"type": "array", "items": {"type": "string"}, "description": "Only these roles: definition, call, import, type, write, member, read. Omit for all."}
            }),
            Some("references"),
        ),
        &["name"],
    )
}

fn roles(call: &Call) -> ToolResult<Option<Vec<Role>>> {
    let Some(Value::Array(list)) = call.args.get("kinds") else {
        return Ok(None);
    };
    if list.is_empty() {
        return Ok(None);
    }
    let mut out = Vec::new();
    for v in list {
        let s = v.as_str().unwrap_or("");
        match Role::parse(s) {
            Some(r) => out.push(r),
            None => {
                let all: Vec<&str> = Role::ALL.iter().map(|r| r.as_str()).collect();
                return Err(ToolError::invalid(format!(
                    "Unknown reference kind: {s}. Kinds: {}.",
                    all.join(", ")
                ))
                .with("field", "kinds"));
            }
        }
    }
    Ok(Some(out))
}

fn run(call: &Call) -> ToolResult<Output> {
    let name = query::parse_name(str_arg(&call.args, "name").unwrap_or(""), "name")?;
    let roles = roles(call)?;
    let at = Where::from_call(call)?;
    check_file(call, &at)?;
    let needle = Needle::whole(&name.name);
    let filter = |p: &Path| at.wants(p);
    let scope = Scope {
        base: &at.base,
        is_file: at.is_file,
        filter: &filter,
    };
    // The index decodes only the records that use or define the name (or have errors).
    let found = symbols::wanted(
        &call.config,
        &call.runtime.symbols,
        &call.cancel,
        &call.warnings,
        &scope,
        &needle,
        symbols::Want::Using,
    );
    if call.cancel.is_cancelled() {
        return Err(ToolError::aborted());
    }
    let refs = symbols::references(&found.files, &name.name, roles.as_deref());
    let defs = symbols::definitions(
        &found.files,
        &Name {
            qualifier: Vec::new(),
            name: name.name.clone(),
        },
        Mode::Exact,
        None,
    );
    let mut texts = CallTexts::new(|abs: &Path| read_text(&call.config, abs));
    let page = Page::from_call(call);
    let sorted = sort_uses(&name.name, refs, &defs, &found.files, &mut texts, &page);
    let (refs, uncertain) = (sorted.certain, sorted.uncertain);
    let mut note_members = String::new();
    if sorted.dropped > 0 {
        let dropped = sorted.dropped;
        note_members = format!(
            "[note: `{}` is defined only as a class member here; {dropped} bare use{} of the name (not through an object: a builtin, a local, a parameter) left out]",
            name.name,
            if dropped == 1 { "" } else { "s" }
        );
    }
    let errors: Vec<&str> = found
        .files
        .iter()
        .filter(|f| f.syms.has_error)
        .map(|f| f.display.as_str())
        .collect();
    let mut note = ambiguity(&name, &defs);
    if !note_members.is_empty() {
        if !note.is_empty() {
            note.push('\n');
        }
        note.push_str(&note_members);
    }
    let more = notes(&name.name, &found.skipped, &errors);
    if !more.is_empty() {
        if !note.is_empty() {
            note.push('\n');
        }
        note.push_str(&more);
    }
    if refs.is_empty() && uncertain.is_empty() {
        let mut out = format!("(no uses of `{}` as code found)", name.name);
        if !note.is_empty() {
            out.push('\n');
            out.push_str(&note);
        }
        return Ok(Output::text(out));
    }
    Ok(Output::text(render(
        &page, &mut texts, &name.name, &refs, &uncertain, &note,
    )))
}

/// A name's uses sorted out: the certain and uncertain ones, and how many bare uses of a
/// member-only name were left out.
struct Sorted {
    certain: Vec<RefHit>,
    uncertain: Vec<RefHit>,
    dropped: usize,
}

/// The smallest row [`render`] prints: `  1:1  call  ` (an uncertain row, `p:1:1  call  `,
/// is as long), so a page of `maxOutputBytes` holds a bounded number of rows.
const MIN_ROW: usize = 13;

/// `refs` (in path order) sorted out a file at a time, so each file is read once for every
/// step and only while it is judged (see `symbols::texts`): the bare uses of a name defined
/// only as a class member in Python or TypeScript/JavaScript left out (they mean something
/// else: a builtin, a local; `symbols::members`), then, in Python and JavaScript, the uses
/// the syntax cannot tie to the definition (a member access on a receiver of unknown or
/// another type) set apart (`symbols::certainty`). Of each file judged, `texts` keeps the
/// lines of the uses `page` may show.
fn sort_uses(
    name: &str,
    refs: Vec<RefHit>,
    defs: &[DefHit],
    files: &[Parsed],
    texts: &mut CallTexts<impl FnMut(&Path) -> Option<String>>,
    page: &Page,
) -> Sorted {
    let only_members = symbols::members::only_members(defs);
    let judge = symbols::certainty::Judge::new(name, defs, files);
    let shown = page.reach(MIN_ROW);
    // The certain uses come first, so an uncertain one's place is the number of certain
    // uses (at least those found so far, at most every use) plus its own.
    let most = refs.len();
    let mut out = Sorted {
        certain: Vec::new(),
        uncertain: Vec::new(),
        dropped: 0,
    };
    let mut refs = refs.into_iter().peekable();
    while let Some(first) = refs.next() {
        let abs = first.abs.clone();
        let mut file = vec![first];
        while let Some(r) = refs.next_if(|r| r.abs == abs) {
            file.push(r);
        }
        if only_members {
            let (kept, dropped) = symbols::members::drop_bare_uses(file, |p| texts.lines(p));
            out.dropped += dropped;
            file = kept;
        }
        let (certain, uncertain) = match &judge {
            Some(judge) => judge.split(file, |p| texts.lines(p)),
            None => (file, Vec::new()),
        };
        let (c0, u0) = (out.certain.len(), out.uncertain.len());
        out.certain.extend(certain);
        out.uncertain.extend(uncertain);
        let least = out.certain.len();
        let keep_certain = (c0..least).filter(|i| shown.contains(i));
        let keep_uncertain =
            (u0..out.uncertain.len()).filter(|j| least + j < shown.end && most + j >= shown.start);
        let lines = keep_certain
            .map(|i| out.certain[i].line)
            .chain(keep_uncertain.map(|j| out.uncertain[j].line));
        texts.release(&abs, lines.collect::<Vec<_>>());
    }
    out
}

/// What the result says about the name's definitions: none in the searched files, or
/// several that references cannot be told apart between.
fn ambiguity(name: &Name, defs: &[DefHit]) -> String {
    let n = &name.name;
    let qualified: Vec<&DefHit> = defs
        .iter()
        .filter(|d| query::qualifies(&name.qualifier, &d.def, &d.display))
        .collect();
    match defs.len() {
        0 => format!("[note: no definition of `{n}` in the searched files: it may come from a dependency or the standard library]"),
        1 if name.qualifier.is_empty() || qualified.len() == 1 => String::new(),
        _ => {
            let list: Vec<String> = defs
                .iter()
                .take(8)
                .map(|d| format!("{}:{} {} {}", d.display, d.def.line, d.def.kind.as_str(), d.def.qualified(crate::symbols::model::separator(d.grammar))))
                .collect();
            let more = if defs.len() > 8 { format!(", and {} more", defs.len() - 8) } else { String::new() };
            let which = if name.qualifier.is_empty() {
                String::new()
            } else {
                format!(" ({} of them qualified as asked)", qualified.len())
            };
            format!(
                "[note: `{n}` has {} definition{}{which}: {}{more}. References are matched by name and the syntax cannot tell which definition each one means — narrow with path or glob, or read the lines]",
                defs.len(),
                if defs.len() == 1 { "" } else { "s" },
                list.join(", ")
            )
        }
    }
}

/// The page: a path line for each file, then `  line:col  role  text` per certain reference;
/// after them the uncertain ones under their own heading, one `path:line:col  role  text`
/// each (no indented line: nothing reading the certain listing takes them for certain).
/// Paging counts both lists, certain first.
fn render(
    page: &Page,
    texts: &mut CallTexts<impl FnMut(&Path) -> Option<String>>,
    name: &str,
    refs: &[RefHit],
    uncertain: &[RefHit],
    note: &str,
) -> String {
    let total = refs.len() + uncertain.len();
    page.render(
        total,
        |i, first| {
            let (r, certain) = match refs.get(i) {
                Some(r) => (r, true),
                None => (&uncertain[i - refs.len()], false),
            };
            let line = texts.line(&r.abs, r.line);
            let rest = format!("{}  {}", r.role.as_str(), window(&line, r.col));
            if !certain {
                let row = format!("{}:{}:{}  {rest}", r.display, r.line, r.col);
                return if i == refs.len() || first {
                    format!("{}\n{row}", uncertain_heading(name, uncertain.len()))
                } else {
                    row
                };
            }
            let row = format!("  {}:{}  {rest}", r.line, r.col);
            if first || i > 0 && refs[i - 1].abs != r.abs {
                format!("{}\n{row}", r.display)
            } else {
                row
            }
        },
        note,
    )
}

/// The heading of the uncertain uses.
fn uncertain_heading(name: &str, n: usize) -> String {
    format!(
        "[uncertain: {n} use{s} of `{name}` the syntax cannot tie to its definition — a member access on a receiver whose type it cannot tell, or a module path; {they} may mean another symbol of the same name:]",
        s = if n == 1 { "" } else { "s" },
        they = if n == 1 { "it" } else { "they" },
    )
}

/// `line` trimmed, or for a long line (minified code) about 160 characters around `col`.
fn window(line: &str, col: u32) -> String {
    const MAX: usize = 200;
    let trimmed = line.trim();
    if trimmed.chars().count() <= MAX {
        return trimmed.to_string();
    }
    // Characters before the column (UTF-16 columns; near enough for a window).
    let at = line
        .char_indices()
        .nth((col as usize).saturating_sub(1))
        .map_or(line.len(), |(i, _)| i);
    let start = line[..at]
        .char_indices()
        .rev()
        .nth(60)
        .map_or(0, |(i, _)| i);
    let rest = &line[start..];
    let end = rest.char_indices().nth(160).map_or(rest.len(), |(i, _)| i);
    let pre = if start > 0 { "…" } else { "" };
    let post = if end < rest.len() { "…" } else { "" };
    format!("{pre}{}{post}", rest[..end].trim())
}

/// The call's title (`describeCall`): `Find references to "parseConfig" in src`.
pub fn title(args: &serde_json::Map<String, Value>) -> String {
    let name = super::title::text(args, "name").map_or("a symbol".into(), super::title::quoted);
    format!("Find references to {name}{}", super::title::scope(args))
}

#[cfg(test)]
#[path = "find_references_tests.rs"]
mod tests;
