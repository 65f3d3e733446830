//! What `replace_symbol` and `insert_symbol` share: the writer path of edit_file (the
//! path's lock, confinement and write scope, decoding with the file's line endings and BOM,
//! the checkpoint hooks, the atomic write, the syntax warning, `meta.diff`) around one
//! splice of the symbol engine ([`crate::symbols::splice`]) on the file as it is under the
//! lock — so a definition that moved since the model saw the file is still the one edited.

use super::edit_file::{open, save, with_diff};
use super::{change_annotations, Call, Handler, Output, ToolDef};
use crate::error::{ToolError, ToolResult};
use crate::schema::str_arg;
use crate::symbols::query::parse_name;
use crate::symbols::splice::{locate, Spliced, Target};
use crate::syntax::defs::has_symbols;
use crate::syntax::parse::{parse_text_masked, release, TOOL_BUDGET};
use crate::syntax::{failure_error, grammar_for, Parsed, Written};
use crate::workspace;

/// The definition of an edit-by-symbol tool: a writer (not idempotent), a syntax tool.
pub fn tool_def(
    name: &'static str,
    description: &'static str,
    schema: fn() -> serde_json::Value,
    run: fn(&Call) -> ToolResult<Output>,
) -> ToolDef {
    ToolDef {
        name,
        description,
        schema,
        bounded: false,
        annotations: change_annotations(),
        handler: Handler::Blocking(run),
        aborted: ToolError::aborted,
        syntax: true,
        unstaged: false,
    }
}

/// A splice of one definition, given the file parsed and the definition found.
pub type Splice<'a> = &'a dyn Fn(&Parsed, &Target) -> ToolResult<Spliced>;

/// A checked string argument that must hold source code (not only whitespace).
pub fn source_arg<'a>(call: &'a Call, key: &str) -> ToolResult<&'a str> {
    let s = str_arg(&call.args, key).unwrap_or_default();
    if s.trim().is_empty() {
        return Err(ToolError::invalid(format!(
            "{key} must hold the source of a definition; it is empty. To delete lines use edit_file."
        ))
        .with("field", key));
    }
    Ok(s)
}

/// What one edit by symbol did, for its message.
pub struct Done {
    /// The display path.
    pub shown: String,
    /// The definition the name picked.
    pub target: Target,
    /// The splice.
    pub spliced: Spliced,
    /// The text was already so: nothing written.
    pub unchanged: bool,
}

/// Opens `path` under its lock, finds `symbol` in it, checks freshness when `stale_lines`
/// (replacing a definition), splices, and writes atomically. `message` words the result.
pub fn run(
    call: &Call,
    stale_lines: bool,
    splice: Splice,
    message: impl FnOnce(&Done) -> String,
) -> ToolResult<Output> {
    let input = str_arg(&call.args, "path").unwrap_or_default();
    let opened = open(call, input)?;
    let shown = workspace::display(&call.config, &opened.abs);
    let name = parse_name(str_arg(&call.args, "symbol").unwrap_or_default(), "symbol")?;
    let grammar = grammar_for(&shown)
        .or_else(|| grammar_for(&opened.abs.to_string_lossy()))
        .filter(|g| has_symbols(*g))
        .ok_or_else(|| {
            ToolError::invalid(format!(
                "{shown}: no symbol support for this language (symbols are read from TypeScript/TSX, JavaScript, Python, Go, Rust, Java, C#, C/C++, Ruby, PHP, Bash and PowerShell sources). Edit it with edit_file."
            ))
            .with("path", input)
        })?;
    let text = &opened.file.text;
    if text.len() > crate::syntax::MAX_PARSE_BYTES {
        return Err(failure_error(crate::syntax::ParseFailure::TooLarge, &shown));
    }
    let parsed = parse_text_masked(grammar, text.clone(), TOOL_BUDGET, Some(&call.cancel))
        .map_err(|f| failure_error(f, &shown))?;
    let syms = crate::symbols::extract::extract(&parsed);
    let found = locate(&parsed, &syms, &name, &shown).and_then(|target| {
        let spliced = splice(&parsed, &target)?;
        Ok((target, spliced))
    });
    release(parsed.tree);
    let (target, spliced) = found?;
    if stale_lines {
        let lines = (
            u64::try_from(line_of(text, target.region.start())).unwrap_or(u64::MAX),
            u64::try_from(line_of(text, target.region.outer_end())).unwrap_or(u64::MAX),
        );
        let what = format!("{} `{}`", target.def.kind.as_str(), target.qualified);
        call.refuse_stale_lines(&opened.abs, &shown, input, lines, &what)?;
    }
    let unchanged = spliced.text == *text;
    let mut warning = String::new();
    if !unchanged {
        let (saved, w) = crate::syntax::write_warning_during(
            &call.config,
            &shown,
            Written::Text(&spliced.text),
            || save(call, &opened.abs, input, &opened.file, &spliced.text),
        );
        saved?;
        warning = w;
    }
    let done = Done {
        shown,
        target,
        spliced,
        unchanged,
    };
    let mut msg = message(&done);
    msg.push_str(&warning);
    let out = Output::text(msg);
    Ok(with_diff(call, out, &done.shown, text, &done.spliced.text))
}

fn line_of(text: &str, at: usize) -> usize {
    text[..at.min(text.len())].matches('\n').count() + 1
}

/// ` (new_source was re-indented: …)` / ` Kept …` notes shared by both tools' messages.
pub fn notes(done: &Done, what: &str) -> String {
    let mut s = String::new();
    if done.spliced.kept > 0 {
        let n = done.spliced.kept;
        s.push_str(&format!(
            " Kept the {} above it ({}) that {what} does not include.",
            if n == 1 {
                "line".to_string()
            } else {
                format!("{n} lines")
            },
            "doc comment, attributes, decorators or export"
        ));
    }
    if let Some(m) = &done.spliced.kept_modifiers {
        s.push_str(&format!(
            " Kept `{m}` from the definition, which {what} does not include (to change it, include the modifiers you want or use edit_file)."
        ));
    }
    if let Some(r) = &done.spliced.reindented {
        s.push_str(&format!(" Re-indented {what} to the file: {r}."));
    }
    s
}
