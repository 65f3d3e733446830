//! `find_symbol`: where a name is defined, from the parsed sources (issue 29).
//!
//! Composition: the arguments are checked ([`crate::symbols::query`]), the candidate files
//! come from the symbol engine ([`crate::symbols::candidates`]: the index when it can answer,
//! else a literal scan) and the matching definitions are ranked and paged like grep's rows.

use super::navigate::{notes, scope_properties, Page, Where};
use super::{object_schema, read_annotations, Call, Handler, Output, ToolDef};
use crate::error::{ToolError, ToolResult};
use crate::schema::str_arg;
use crate::symbols::ondemand::{Edge, Needle, Parsed, Scope};
use crate::symbols::query::{self, Mode, Name};
use crate::symbols::{self, closest, DefHit, Want};
use crate::syntax::defs::SymbolKind;
use serde_json::{json, Value};
use std::path::Path;

const DESCRIPTION: &str = "Find where a symbol is defined, by name, across the workspace — from the parsed sources, not text search, so comments and strings never match: functions, methods, classes, structs, enums, interfaces, traits, type aliases, modules/namespaces, constants, module-level variables and macros, in TypeScript/TSX, JavaScript, Python, Go, Rust, Java, C#, C/C++, Ruby, PHP, Bash and PowerShell. `name` is the identifier, optionally qualified by its class, namespace or file (`Config.load`, `config::load`, `Config#load`). One line per definition: `path:line:col  kind  qualified.name  — signature line`, best first (the exact name before other matches, definitions before declarations such as signatures and prototypes, marked `decl`); then read_file at that line, or edit it by name with replace_symbol / insert_symbol. `match`: `exact` (default, case-sensitive), `prefix` or `substring` (case-insensitive: to discover names you are unsure of). Narrow with `kind` (function, method, class, struct, enum, interface, trait, type, module, constant, variable, macro, property), `path` (a directory or one file) and `glob` (`*.ts`; with `/`, relative to `path`). Paging as grep: `head_limit`, `offset`. Use find_references for the places a name is used and repo_map for the shape of a repository you do not know; use grep for text, comments, strings, configuration files and languages without symbol support (the result names the files holding the name that it could not parse). No definition is a successful answer: it says whether the name is used at all and suggests the closest names. Errors: invalid_input (an empty name, a name that is not an identifier — pass the bare name, without parentheses, arguments or wildcards; an unknown kind — the message lists the kinds; a bad glob), not_found (path), is_binary / too_large (a `path` naming such a file), path_escape.";

/// The `find_symbol` tool definition.
pub fn def() -> ToolDef {
    ToolDef {
        name: "find_symbol",
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
                "name": {"type": "string", "description": "The symbol's name, optionally qualified: `parseConfig`, `Config.load`, `config::load`."},
                "kind": {"type": "string", "description": "Only definitions of this kind: function, method, class, struct, enum, interface, trait, type, module, constant, variable, macro or property."},
                "match": {"type": "string", "enum": ["exact", "prefix", "substring"], "default": "exact", "description": "exact: the same name (case-sensitive); prefix / substring: names starting with / containing it, case ignored."}
            }),
            Some("definitions"),
        ),
        &["name"],
    )
}

/// A `path` naming one file must be a readable text file: the text tools' errors.
pub(crate) fn check_file(call: &Call, at: &Where) -> ToolResult<()> {
    if at.is_file {
        let input = str_arg(&call.args, "path").unwrap_or("");
        crate::text::load(&call.config, &at.base, input)?;
    }
    Ok(())
}

/// What a call asked for, checked.
struct Asked {
    /// The name as given (trimmed), for messages.
    raw: String,
    name: Name,
    mode: Mode,
    kind: Option<SymbolKind>,
}

fn run(call: &Call) -> ToolResult<Output> {
    let raw = str_arg(&call.args, "name").unwrap_or("");
    let asked = Asked {
        raw: raw.trim().to_string(),
        name: query::parse_name(raw, "name")?,
        mode: Mode::parse(str_arg(&call.args, "match"))?,
        kind: str_arg(&call.args, "kind")
            .filter(|k| !k.trim().is_empty())
            .map(query::parse_kind)
            .transpose()?,
    };
    let at = Where::from_call(call)?;
    check_file(call, &at)?;
    let filter = |p: &Path| at.wants(p);
    let scope = Scope {
        base: &at.base,
        is_file: at.is_file,
        filter: &filter,
    };
    let lookup = |text: &str, edge: Edge, want: Want| {
        let needle = Needle {
            text: text.to_string(),
            fold: edge != Edge::Whole,
            edge,
        };
        let rt = &call.runtime;
        symbols::wanted(
            &call.config,
            &rt.symbols,
            &call.cancel,
            &call.warnings,
            &scope,
            &needle,
            want,
        )
    };
    let edge = match asked.mode {
        Mode::Exact => Edge::Whole,
        Mode::Prefix => Edge::Start,
        Mode::Substring => Edge::Any,
    };
    // Only the files defining the name (and those with errors, for the note) are needed
    // for the hits: the index decodes no other record.
    let mut found = lookup(&asked.name.name, edge, Want::Defining(asked.mode));
    if call.cancel.is_cancelled() {
        return Err(ToolError::aborted());
    }
    let mut hits = symbols::definitions(&found.files, &asked.name, asked.mode, asked.kind);
    if hits.is_empty() && found.passed_over > 0 {
        // The answer without a definition says where the name is used: every file.
        found = lookup(&asked.name.name, edge, Want::Holding);
        if call.cancel.is_cancelled() {
            return Err(ToolError::aborted());
        }
        hits = symbols::definitions(&found.files, &asked.name, asked.mode, asked.kind);
    }
    let errors: Vec<&str> = found
        .files
        .iter()
        .filter(|f| f.syms.has_error)
        .map(|f| f.display.as_str())
        .collect();
    let notes = notes(&asked.name.name, &found.skipped, &errors);
    if hits.is_empty() {
        // The closest names live in files the scan for the name passed over: look for
        // either half of it (case ignored), so a typo on one side still finds them.
        let mut near_files = Vec::new();
        for part in halves(&asked.name.name) {
            near_files.extend(lookup(&part, Edge::Any, Want::Holding).files);
        }
        near_files.sort_by(|a, b| crate::text::js_cmp(&a.display, &b.display));
        near_files.dedup_by(|a, b| a.abs == b.abs);
        let mut text = none_found(call, &asked, &found.files, &near_files);
        if !notes.is_empty() {
            text.push('\n');
            text.push_str(&notes);
        }
        return Ok(Output::text(text));
    }
    let page = Page::from_call(call);
    Ok(Output::text(page.render(
        hits.len(),
        |i, _| hits[i].line(),
        &notes,
    )))
}

/// The first and the last half of `name` (at least three characters each, or the whole
/// name when it is shorter): a name within a typo or two of it shares one of them.
fn halves(name: &str) -> Vec<String> {
    let chars: Vec<char> = name.chars().collect();
    let half = chars.len().div_ceil(2).max(3).min(chars.len());
    let head: String = chars[..half].iter().collect();
    let tail: String = chars[chars.len() - half..].iter().collect();
    if head == tail {
        vec![head]
    } else {
        vec![head, tail]
    }
}

/// The answer when nothing matched: whether the name is used at all, its definitions under
/// other qualifiers, the closest names, and what to try next.
fn none_found(call: &Call, asked: &Asked, files: &[Parsed], near_files: &[Parsed]) -> String {
    let name = asked.name.name.as_str();
    let kind_s = asked
        .kind
        .map(|k| format!(" {}", k.as_str()))
        .unwrap_or_default();
    let under = str_arg(&call.args, "path")
        .filter(|p| !p.is_empty())
        .map(|p| format!(" under {p}"))
        .unwrap_or_default();
    let mut out = format!("(no{kind_s} definition of `{}` found{under})", asked.raw);
    let using = files
        .iter()
        .filter(|f| f.syms.name_id(name).is_some())
        .count();
    if using > 0 {
        out.push_str(&format!(
            "\n`{name}` is used as code in {using} file{} (find_references lists the uses): it may be defined outside the workspace (a dependency, the standard library) or by code the parser cannot see (generated, or made by a macro).",
            if using == 1 { "" } else { "s" }
        ));
    }
    if !asked.name.qualifier.is_empty() {
        let bare = Name {
            qualifier: Vec::new(),
            name: name.to_string(),
        };
        let other = symbols::definitions(files, &bare, asked.mode, asked.kind);
        if !other.is_empty() {
            let list: Vec<String> = other.iter().take(8).map(DefHit::line).collect();
            let more = if other.len() > 8 {
                format!(" ({} definitions; the first 8)", other.len())
            } else {
                String::new()
            };
            out.push_str(&format!(
                "\n`{name}` is defined, but not as `{}`{more}:\n{}",
                asked.raw,
                list.join("\n")
            ));
        }
    }
    let near = closest(
        near_files
            .iter()
            .flat_map(|f| f.syms.defs.iter().map(move |d| (f.display.as_str(), d))),
        name,
        8,
    );
    if !near.is_empty() {
        out.push_str(&format!("\nClosest definitions: {}.", near.join(", ")));
    }
    if asked.mode == Mode::Exact {
        out.push_str(
            "\nFor names that start with or contain it, pass match: \"prefix\" or \"substring\".",
        );
    }
    out
}

/// The call's title (`describeCall`): `Find symbol "Config.load" in src`.
pub fn title(args: &serde_json::Map<String, Value>) -> String {
    let name = super::title::text(args, "name").map_or("a symbol".into(), super::title::quoted);
    format!("Find symbol {name}{}", super::title::scope(args))
}
