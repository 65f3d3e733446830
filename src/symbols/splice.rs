//! The edits by symbol on a decoded (LF) text: which definition a name means in one file,
//! and the text after replacing it or inserting beside it, re-indented to the file.
//!
//! A replacement starts where the new source's first token says: at the outermost
//! [`Lead`](super::region::Lead) whose first token is the new source's (a new doc comment
//! replaces the old one, a new `export function` the old `export function`), else at the
//! defining node itself — so what the new source leaves out above the definition (its doc
//! comment, decorators, `export`) is kept, and the result says so. It ends where the
//! definition ends. Whole lines are replaced when the definition has its lines to itself.

use super::indent;
use super::model::{separator, Def, FileSyms};
use super::query::{self, Mode, Name};
use super::region::{region, starts_line, token_at, Region, COMMENT};
use crate::error::{Code, ToolError, ToolResult};
use crate::syntax::{Grammar, Parsed};

/// The definition a name picked in one file, and its extent.
#[derive(Debug, Clone)]
pub struct Target {
    /// The definition.
    pub def: Def,
    /// Its extent in the text.
    pub region: Region,
    /// Its qualified name, in the language's notation.
    pub qualified: String,
}

/// `path:line kind qualified — signature` of a candidate, for messages.
fn describe(display: &str, d: &Def, g: Grammar) -> String {
    let decl = if d.decl { " decl" } else { "" };
    format!(
        "{display}:{} {}{decl} {} — {}",
        d.line,
        d.kind.as_str(),
        d.qualified(separator(g)),
        d.sig
    )
}

/// The one definition `name` means in `parsed` (whose symbols are `syms`, shown as
/// `display`): `no_match` naming the closest definitions, or `ambiguous_match` listing each.
/// Declarations (prototypes, signatures) give way to the one definition with a body, unless
/// they stand right above it (overloads: the whole group is the definition, which only
/// edit_file can address).
pub fn locate(parsed: &Parsed, syms: &FileSyms, name: &Name, display: &str) -> ToolResult<Target> {
    let g = parsed.grammar;
    let text = parsed.text.as_str();
    let mut found: Vec<(&Def, Region)> = syms
        .defs
        .iter()
        .filter(|d| query::rank(Mode::Exact, &name.name, &d.name).is_some())
        .filter(|d| query::qualifies(&name.qualifier, d, display))
        .filter_map(|d| region(&parsed.tree, text, d.span).map(|r| (d, r)))
        .collect();
    let shown = || {
        let mut s = name.qualifier.join(separator(g));
        if !s.is_empty() {
            s.push_str(separator(g));
        }
        s.push_str(&name.name);
        s
    };
    if found.is_empty() {
        let near = super::closest(syms.defs.iter().map(|d| (display, d)), &name.name, 8);
        let mut msg = format!("No definition of `{}` in {display}.", shown());
        if !near.is_empty() {
            msg.push_str(&format!(" Closest definitions: {}.", near.join(", ")));
        }
        if syms.has_error {
            msg.push_str(" The file has syntax errors: what follows an error may be missing (check_syntax shows them).");
        }
        msg.push_str(" find_symbol searches other files.");
        return Err(ToolError::new(Code::NoMatch, msg).with("closest", near));
    }
    if found.len() > 1 && found.iter().filter(|(d, _)| !d.decl).count() == 1 {
        let body = found.iter().position(|(d, _)| !d.decl).unwrap_or(0);
        let start = found[body].1.start();
        let adjacent = found.iter().any(|(d, r)| {
            d.decl
                && r.end <= start
                && text[r.end..start]
                    .trim_matches([' ', '\t', '\n', ';'])
                    .is_empty()
        });
        if !adjacent {
            found = vec![found.swap_remove(body)];
        }
    }
    if found.len() > 1 {
        let list: Vec<String> = found.iter().map(|(d, _)| describe(display, d, g)).collect();
        let locations: Vec<String> = found
            .iter()
            .map(|(d, _)| format!("{display}:{}", d.line))
            .collect();
        return Err(ToolError::new(
            Code::AmbiguousMatch,
            format!(
                "`{}` matches {} definitions in {display}:\n{}\nQualify the name with its class, module or namespace to pick one (`Outer.name`); definitions no qualifier tells apart (overloads, redefinitions) are edited with edit_file.",
                shown(),
                found.len(),
                list.join("\n")
            ),
        )
        .with("matches", locations));
    }
    let (def, region) = found.swap_remove(0);
    if let Some(at) = super::region::uncertain(&parsed.tree, text, def.span, &region) {
        return Err(ToolError::invalid(format!(
            "The extent of {} `{}` in {display} is uncertain: a syntax error at line {} (check_syntax shows it; often a macro the grammar does not know) lies at its edges (its text runs from line {} to line {}; the error is not nested in its parameters or body), so an edit by symbol could overwrite its neighbours. Edit those lines with edit_file.",
            def.kind.as_str(),
            def.qualified(separator(g)),
            line_of(text, at),
            line_of(text, region.start()),
            line_of(text, region.outer_end()),
        ))
        .with("line", line_of(text, at)));
    }
    Ok(Target {
        qualified: def.qualified(separator(g)),
        def: def.clone(),
        region,
    })
}

/// A finished splice.
#[derive(Debug, Clone)]
pub struct Spliced {
    /// The whole new text.
    pub text: String,
    /// 1-based first and last line of the new source in it.
    pub lines: (usize, usize),
    /// Lines above the definition that were kept because the new source did not include them.
    pub kept: usize,
    /// Modifiers on the definition's first line kept because the new source starts past
    /// them (`pub`, `public static`), as they read.
    pub kept_modifiers: Option<String>,
    /// How the new source's indentation was changed, when it was.
    pub reindented: Option<String>,
}

fn line_of(text: &str, at: usize) -> usize {
    text[..at].matches('\n').count() + 1
}

fn line_start(text: &str, at: usize) -> usize {
    text[..at].rfind('\n').map_or(0, |i| i + 1)
}

/// The end of `at`'s line, past its `\n` (or the text's end).
fn line_end(text: &str, at: usize) -> usize {
    text[at..].find('\n').map_or(text.len(), |i| at + i + 1)
}

fn indent_of(line: &str) -> &str {
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

/// `source` without its leading and trailing blank lines (a trailing `\n` dropped too).
fn trimmed_lines(source: &str) -> Vec<&str> {
    let lines: Vec<&str> = source
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let first = lines.iter().position(|l| !l.trim().is_empty());
    let last = lines.iter().rposition(|l| !l.trim().is_empty());
    match (first, last) {
        (Some(a), Some(b)) => lines[a..=b].to_vec(),
        _ => Vec::new(),
    }
}

/// Replaces `target`'s definition in `parsed.text` with `source`. A definition that shares
/// its declaration with others (`const a = 1, b = 2;`) is replaced by a declarator only: a
/// source that starts otherwise (`const b = 3;`) would nest a statement in the declaration,
/// so it is refused (`invalid_input`) rather than written.
pub fn replace(parsed: &Parsed, target: &Target, source: &str) -> ToolResult<Spliced> {
    let text = parsed.text.as_str();
    let region = &target.region;
    let lines = trimmed_lines(source);
    let token = first_token(parsed.grammar, &lines.join("\n"));
    let lead = region
        .leads
        .iter()
        .find(|l| !token.is_empty() && l.token == token);
    let start = lead.map_or(region.core, |l| l.at);
    if let Some(stmt) = &region.shared {
        let own = token_at(&parsed.tree, text, region.core);
        if token != own {
            let statement = text[stmt.core..stmt.end].trim();
            let statement: String = statement.chars().take(120).collect();
            return Err(ToolError::invalid(format!(
                "`{}` is one of several declarations in one statement (line {}: `{statement}`): replace_symbol replaces its declarator only, so new_source must start with `{own}` (for example `{own} = …`), not with `{token}`. To rewrite the whole statement use edit_file.",
                target.qualified,
                line_of(text, stmt.core),
            ))
            .with("field", "new_source"));
        }
    }
    let kept = text[region.start()..start].matches('\n').count();
    // Only what stays on the new source's first line (attributes above it are `kept`).
    let modifiers = text[region.core.max(line_start(text, start)).min(start)..start].trim();
    let kept_modifiers =
        (start > region.core && !modifiers.is_empty()).then(|| modifiers.to_string());
    let end = lead.and_then(|l| l.end).unwrap_or(region.end);
    let whole = starts_line(text, start) && text[end..line_end(text, end)].trim().is_empty();
    let old_first = line_start(text, start);
    let old_indent = indent_of(&text[old_first..]).to_string();
    let old_block: Vec<&str> = text[old_first..end].split('\n').collect();
    let shaped = indent::fit(&lines, &old_indent, &old_block, text);
    let (from, to, body) = if whole {
        let mut body = shaped.lines.join("\n");
        let to = line_end(text, end);
        // A last line without a terminator stays without one.
        if text[..to].ends_with('\n') {
            body.push('\n');
        }
        (above(text, old_first, &shaped.lines), to, body)
    } else {
        // The definition shares a line: the new source goes in its place, its first line
        // where the old one started.
        let mut body = shaped.lines.join("\n");
        let lead = body.len() - body.trim_start().len();
        body.drain(..lead);
        (start, end, body)
    };
    let mut out = String::with_capacity(text.len() + body.len());
    out.push_str(&text[..from]);
    out.push_str(&body);
    out.push_str(&text[to..]);
    let first = line_of(text, from);
    let count = body.trim_end_matches('\n').matches('\n').count();
    Ok(Spliced {
        text: out,
        lines: (first, first + count),
        kept,
        kept_modifiers,
        reindented: shaped.changed,
    })
}

/// Where a whole-line replacement starting at `from` really starts: higher by the lines right
/// above it that the new source begins with (compared trimmed, at most three, none blank).
/// Such lines belong to the definition although the parse left them out — a return type on
/// its own line behind a macro the grammar does not know (`PCRE2_EXP_DEFN pcre2_match_data *
/// PCRE2_CALL_CONVENTION`) — and replacing below them would write them twice.
fn above(text: &str, from: usize, new: &[String]) -> usize {
    let before: Vec<&str> = text[..from].split('\n').collect();
    // `before` ends with the empty piece after the last `\n`.
    let lines = &before[..before.len().saturating_sub(1)];
    let max = 3.min(lines.len()).min(new.len().saturating_sub(1));
    let same = (1..=max).rev().find(|&k| {
        let tail = &lines[lines.len() - k..];
        tail.iter()
            .zip(new)
            .all(|(old, new)| !old.trim().is_empty() && old.trim() == new.trim())
    });
    match same {
        Some(k) => {
            let kept: usize = lines[lines.len() - k..].iter().map(|l| l.len() + 1).sum();
            from - kept
        }
        None => from,
    }
}

/// Whether a source's new definition goes before or after the anchor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Position {
    /// Above the anchor's doc comment and attributes.
    Before,
    /// Below the anchor's last line.
    After,
}

/// The blank lines to leave between the new definition and the anchor: as many as separate
/// the anchor from its sibling on that side (or, when it has none there, on the other), at
/// most two; one when it has no sibling.
fn gap(text: &str, start: usize, end_line_end: usize, indent: &str, position: Position) -> usize {
    let before: Vec<&str> = text[..start].split('\n').collect();
    let after: Vec<&str> = text[end_line_end..].split('\n').collect();
    let count = |lines: &mut dyn Iterator<Item = &&str>| -> Option<usize> {
        let mut blank = 0;
        for l in lines {
            if l.trim().is_empty() {
                blank += 1;
                continue;
            }
            // A sibling is at the anchor's indentation or deeper; a closing brace or the
            // container's header is not.
            let sibling =
                indent_of(l).len() >= indent.len() && !l.trim_start().starts_with(['}', ')', ']']);
            return sibling.then_some(blank);
        }
        None
    };
    // `before` ends with the (empty) start of the anchor's line.
    let up = count(&mut before.iter().rev().skip(1));
    let down = count(&mut after.iter());
    let g = match position {
        Position::Before => up.or(down),
        Position::After => down.or(up),
    };
    g.unwrap_or(1).min(2)
}

/// Inserts `source` before or after `target`'s definition in `parsed.text` (beside the whole
/// statement when the definition shares one with others: `const a = 1, b = 2;`).
pub fn insert(parsed: &Parsed, target: &Target, source: &str, position: Position) -> Spliced {
    let text = parsed.text.as_str();
    let region = target.region.shared.as_deref().unwrap_or(&target.region);
    let lines = trimmed_lines(source);
    let start = region.start();
    let end = region.outer_end();
    let old_first = line_start(text, start);
    let indent = indent_of(&text[old_first..]).to_string();
    let shaped = indent::fit(&lines, &indent, &[], text);
    let body = shaped.lines.join("\n");
    let whole = starts_line(text, start) && text[end..line_end(text, end)].trim().is_empty();
    let (at, insert) = if whole {
        let g = gap(text, start, line_end(text, end), &indent, position);
        let blank = "\n".repeat(g);
        match position {
            Position::Before => (old_first, format!("{body}\n{blank}")),
            Position::After => {
                let at = line_end(text, end);
                // A last line without `\n` gets one before the new definition.
                let nl = if text[..at].ends_with('\n') { "" } else { "\n" };
                (at, format!("{nl}{blank}{body}\n"))
            }
        }
    } else {
        let body = body.trim_start().to_string();
        match position {
            Position::Before => (start, format!("{body}\n{indent}")),
            Position::After => (end, format!("\n{indent}{body}")),
        }
    };
    let mut out = String::with_capacity(text.len() + insert.len());
    out.push_str(&text[..at]);
    out.push_str(&insert);
    out.push_str(&text[at..]);
    let lead = insert.len() - insert.trim_start_matches('\n').len();
    let first = line_of(&out, at + lead);
    let first = if whole { first } else { line_of(&out, at) };
    let count = lines.len().saturating_sub(1);
    Spliced {
        text: out,
        lines: (first, first + count),
        kept: 0,
        kept_modifiers: None,
        reindented: shaped.changed,
    }
}

/// The first token of `source` as `g` reads it ([`COMMENT`] for a comment); empty when it
/// does not parse at all.
pub fn first_token(g: Grammar, source: &str) -> String {
    let trimmed = source.trim_start();
    let Ok(p) = crate::syntax::parse::parse_text(
        g,
        trimmed.to_string(),
        None,
        crate::syntax::parse::TOOL_BUDGET,
        None,
    ) else {
        return String::new();
    };
    let t = token_at(&p.tree, &p.text, 0);
    crate::syntax::parse::release(p.tree);
    if t.is_empty() && trimmed.starts_with(['#', '/']) {
        return COMMENT.to_string();
    }
    t
}
