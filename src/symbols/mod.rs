//! Code navigation without a language server: definitions and references from the
//! compiled-in tree-sitter grammars, for `find_symbol`, `find_references`, `repo_map` and the
//! edits by symbol.
//!
//! - [`extract`]: one walk of a parse tree gives a file's [`model::FileSyms`] — its
//!   definitions (what `syntax::defs` says defines a symbol, the same table `outline` uses,
//!   refined by [`recognize`]) and every identifier used as code with its [`model::Role`]
//!   (the per-grammar tables of [`lang`]).
//! - [`memo`]: those facts by content, process-wide.
//! - [`query`]: checked names (qualified or not), kinds, match modes.
//! - [`ondemand`]: the answer without an index: candidate files by a literal test of their
//!   bytes, parsed on every core.
//! - [`members`], [`certainty`] (its module-path arithmetic in [`modpath`]): which uses of a
//!   name `find_references` leaves out or lists apart as uncertain; [`texts`]: one call's
//!   file texts, each read once for those steps and the page.
//! - [`rank`]: `repo_map`'s PageRank over the file graph of definitions and uses;
//!   [`repomap`]: that ranking kept per index image, adjusted by the delta, rendered.
//! - [`region`], [`splice`], [`indent`]: the edits by symbol — a definition's extent with
//!   its doc comment and attributes, the text after replacing it or inserting beside it,
//!   re-indented to the file.
//!
//! Architecture invariant: an engine. It knows the syntax engine, grep's walk and text rules
//! and the workspace's confinement; never a tool or the runtime.

pub mod certainty;
pub mod compiled;
pub mod decl;
pub mod extract;
pub mod indent;
pub mod lang;
pub mod members;
pub mod memo;
pub mod model;
pub mod modpath;
pub mod ondemand;
pub mod query;
pub mod rank;
pub mod receiver;
pub mod recognize;
pub mod region;
pub mod repomap;
pub mod splice;
pub mod stored;
pub mod texts;

use crate::cancel::Cancel;
use crate::config::Config;
use crate::syntax::defs::SymbolKind;
use crate::syntax::Grammar;
use crate::text::js_cmp;
use crate::warnings::Warnings;
use model::{Def, Role};
use ondemand::{Needle, Parsed, Scanned, Scope};
use query::{Mode, Name, Rank};
use std::path::PathBuf;
use std::sync::Arc;
use stored::SymbolIndex;

/// Which of the files holding the needle a caller needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Want {
    /// Every one (references, the closest names, whether a name is used at all).
    Holding,
    /// Those defining a name that matches the needle under this mode, and those with
    /// syntax errors (find_symbol's hits and its note): the index's other records are
    /// passed over without being decoded. Files read and parsed are all kept.
    Defining(Mode),
    /// Those using or defining exactly the needle as an identifier, and those with syntax
    /// errors (find_references).
    Using,
}

/// The files of `scope` that hold `needle`, parsed: from the symbol index (the trigram
/// index's candidates, their symbols from the table where it vouches for them) when it can
/// answer, else grep's walk (which then counts toward starting the index under
/// `searchIndex`'s rules, as a grep's scan does).
pub fn candidates(
    config: &Arc<Config>,
    symbols: &SymbolIndex,
    cancel: &Cancel,
    warnings: &Warnings,
    scope: &Scope,
    needle: &Needle,
) -> Scanned {
    wanted(
        config,
        symbols,
        cancel,
        warnings,
        scope,
        needle,
        Want::Holding,
    )
}

/// [`candidates`], of which only those `want` asks for are sure to be there.
pub fn wanted(
    config: &Arc<Config>,
    symbols: &SymbolIndex,
    cancel: &Cancel,
    warnings: &Warnings,
    scope: &Scope,
    needle: &Needle,
    want: Want,
) -> Scanned {
    if !scope.is_file {
        let answered = if needle.text.is_empty() {
            symbols.answer(config, cancel, scope, needle, None, want)
        } else {
            let pattern = regex_syntax::escape(&needle.text);
            crate::index::plan::plan(&pattern, needle.fold, false)
                .and_then(|q| symbols.answer(config, cancel, scope, needle, Some(&q), want))
        };
        if let Some(found) = answered {
            return found;
        }
    }
    let found = ondemand::scan(config, cancel, warnings, scope, needle);
    if !scope.is_file {
        symbols.search().after_scan(config, found.walked);
    }
    found
}

/// One matching definition.
#[derive(Debug, Clone)]
pub struct DefHit {
    /// Display path of its file.
    pub display: String,
    /// Absolute path of its file.
    pub abs: PathBuf,
    /// The file's grammar.
    pub grammar: Grammar,
    /// The definition.
    pub def: Def,
    /// How well its name matched.
    pub rank: Rank,
}

impl DefHit {
    /// `path:line:col  kind  qualified.name  — signature`.
    pub fn line(&self) -> String {
        let kind = self.def.kind.as_str();
        let decl = if self.def.decl { " decl" } else { "" };
        format!(
            "{}:{}:{}  {kind}{decl}  {}  — {}",
            self.display,
            self.def.line,
            self.def.col,
            self.def.qualified(model::separator(self.grammar)),
            self.def.sig
        )
    }
}

/// The definitions in `files` that `name` (under `mode`, of `kind` when given) names, best
/// first: exact before folded before prefix before substring, definitions before
/// declarations, then by path and line.
pub fn definitions(
    files: &[Parsed],
    name: &Name,
    mode: Mode,
    kind: Option<SymbolKind>,
) -> Vec<DefHit> {
    let mut hits = Vec::new();
    for f in files {
        for d in &f.syms.defs {
            if kind.is_some_and(|k| k != d.kind) {
                continue;
            }
            let Some(rank) = query::rank(mode, &name.name, &d.name) else {
                continue;
            };
            if !query::qualifies(&name.qualifier, d, &f.display) {
                continue;
            }
            hits.push(DefHit {
                display: f.display.clone(),
                abs: f.abs.clone(),
                grammar: f.grammar,
                def: d.clone(),
                rank,
            });
        }
    }
    sort_hits(&mut hits);
    hits
}

/// One use of a name.
#[derive(Debug, Clone)]
pub struct RefHit {
    /// Display path of its file.
    pub display: String,
    /// Absolute path of its file.
    pub abs: PathBuf,
    /// 1-based line.
    pub line: u32,
    /// 1-based UTF-16 column.
    pub col: u32,
    /// How it is used.
    pub role: Role,
}

/// Every use of `name` as code in `files` (of the `roles` given, or all), in path, line and
/// column order.
pub fn references(files: &[Parsed], name: &str, roles: Option<&[Role]>) -> Vec<RefHit> {
    let mut out = Vec::new();
    for f in files {
        let Some(id) = f.syms.name_id(name) else {
            continue;
        };
        for r in f.syms.refs.iter().filter(|r| r.name == id) {
            if roles.is_some_and(|want| !want.contains(&r.role)) {
                continue;
            }
            out.push(RefHit {
                display: f.display.clone(),
                abs: f.abs.clone(),
                line: r.line,
                col: r.col,
                role: r.role,
            });
        }
    }
    out.sort_by(|a, b| {
        js_cmp(&a.display, &b.display).then_with(|| (a.line, a.col).cmp(&(b.line, b.col)))
    });
    out
}

/// Orders hits best first (see [`definitions`]).
pub fn sort_hits(hits: &mut [DefHit]) {
    hits.sort_by(|a, b| {
        (a.rank, a.def.decl)
            .cmp(&(b.rank, b.def.decl))
            .then_with(|| js_cmp(&a.display, &b.display))
            .then_with(|| (a.def.line, a.def.col).cmp(&(b.def.line, b.def.col)))
    });
}

/// The names defined among `defs` closest to `wanted`, at most `max`, each with where it is
/// defined: the same name but for case first, then names containing it, then by edit
/// distance (up to half the longer name).
pub fn closest<'a>(
    defs: impl Iterator<Item = (&'a str, &'a Def)>,
    wanted: &str,
    max: usize,
) -> Vec<String> {
    let want = wanted.to_lowercase();
    let mut scored: Vec<(usize, String, String)> = defs
        .filter_map(|(display, d)| {
            let have = d.name.to_lowercase();
            let score = if have == want {
                0
            } else if have.contains(&want) || want.contains(&have) && have.len() >= 3 {
                1
            } else {
                let dist = distance(&want, &have);
                if dist > (have.len().max(want.len()) / 2).max(2) {
                    return None;
                }
                1 + dist
            };
            Some((
                score,
                d.name.clone(),
                format!("{} ({display}:{})", d.name, d.line),
            ))
        })
        .collect();
    scored.sort();
    scored.dedup_by(|a, b| a.1 == b.1);
    scored.into_iter().take(max).map(|(_, _, s)| s).collect()
}

/// Levenshtein distance over chars (names are short).
pub fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = if ca == *cb {
                prev
            } else {
                1 + prev.min(cur).min(row[j])
            };
            prev = cur;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod splice_tests;

#[cfg(test)]
mod accuracy_tests;
