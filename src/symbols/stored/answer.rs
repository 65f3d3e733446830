//! Candidates answered from the symbol table: the files the trigram index vouches for take
//! their symbols from their records (no read, no parse); changed and new files, and files
//! the table has no record of, are read and parsed as without the index.

use super::table::{Record, Table};
use super::{codec, SymbolIndex};
use crate::cancel::Cancel;
use crate::config::Config;
use crate::index::{os_str, Fresh};
use crate::pool::threads;
use crate::symbols::model::FileSyms;
use crate::symbols::ondemand::{parse_paths, Needle, Parsed, Scanned, Scope};
use crate::symbols::{query, Want};
use crate::syntax::grammar_for;
use crate::workspace;
use std::path::PathBuf;
use std::sync::Arc;

/// Whether a parsed file can hold `needle` as code: one of its identifiers contains it (so
/// a file whose trigrams matched but not the name is left out, as a scan leaves it out).
fn holds(syms: &FileSyms, needle: &Needle) -> bool {
    let n = needle.text.as_bytes();
    if n.is_empty() {
        return true;
    }
    let names = syms
        .names
        .iter()
        .map(|s| &**s)
        .chain(syms.defs.iter().map(|d| d.name.as_str()));
    names.into_iter().any(|name| {
        let h = name.as_bytes();
        if needle.fold {
            h.windows(n.len()).any(|w| w.eq_ignore_ascii_case(n))
        } else {
            memchr::memmem::find(h, n).is_some()
        }
    })
}

impl SymbolIndex {
    /// The files of `scope` holding `needle`, parsed, when the trigram index can answer for
    /// the scope (`None`: the caller scans). `query` is the needle's trigram condition (every
    /// file under the scope when `None`).
    pub fn answer(
        &self,
        config: &Arc<Config>,
        cancel: &Cancel,
        scope: &Scope,
        needle: &Needle,
        query: Option<&crate::index::plan::Query>,
        want: Want,
    ) -> Option<Scanned> {
        let fresh = self.index.fresh_candidates(config, scope.base, query)?;
        let table = self.table_for(&fresh.store);
        Some(from_fresh(
            config,
            cancel,
            scope,
            needle,
            fresh,
            table.as_deref(),
            want,
        ))
    }
}

fn from_fresh(
    config: &Arc<Config>,
    cancel: &Cancel,
    scope: &Scope,
    needle: &Needle,
    fresh: Fresh,
    table: Option<&Table>,
    want: Want,
) -> Scanned {
    let needed = |record: &[u8]| match want {
        Want::Holding => true,
        Want::Defining(mode) => codec::errors_or_names(record, false, |name| {
            query::rank(mode, &needle.text, name).is_some()
        })
        .unwrap_or(true),
        Want::Using => {
            codec::errors_or_names(record, true, |name| name == needle.text).unwrap_or(true)
        }
    };
    let root = &config.workspace_root;
    let mut parse: Vec<PathBuf> = fresh
        .extra
        .into_iter()
        .filter(|p| (scope.filter)(p))
        .collect();
    let mut from_table: Vec<(PathBuf, &[u8])> = Vec::new();
    let mut passed_over = 0;
    for &id in &fresh.ids {
        // The record is asked first: a file it passes over needs no path either.
        let record = match table.map(|t| t.record(id)) {
            Some(Record::Syms(b)) if !needed(b) => {
                passed_over += 1;
                continue;
            }
            Some(Record::Syms(b)) => Some(b),
            _ => None,
        };
        let abs = root.join(os_str(fresh.store.file(id).path));
        if !(scope.filter)(&abs) {
            continue;
        }
        match record {
            Some(b) => from_table.push((abs, b)),
            None => parse.push(abs),
        }
    }
    // Decoded on every core when there are many (a repo map decodes every file); a few are
    // decoded here (a thread costs more than they do).
    let decode = |part: &[(PathBuf, &[u8])]| -> Vec<Result<Parsed, PathBuf>> {
        let mut out = Vec::new();
        for (abs, bytes) in part {
            let display = workspace::display(config, abs);
            match (grammar_for(&display), codec::decode(bytes)) {
                (Some(grammar), Some(syms)) if holds(&syms, needle) => out.push(Ok(Parsed {
                    abs: abs.clone(),
                    display,
                    grammar,
                    syms: Arc::new(syms),
                })),
                (Some(_), Some(_)) => {}
                _ => out.push(Err(abs.clone())),
            }
        }
        out
    };
    let results: Vec<Result<Parsed, PathBuf>> = if from_table.len() <= 256 {
        decode(&from_table)
    } else {
        let chunk = from_table.len().div_ceil(threads());
        let decode = &decode;
        std::thread::scope(|s| {
            let handles: Vec<_> = from_table
                .chunks(chunk)
                .map(|part| s.spawn(move || decode(part)))
                .collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().unwrap_or_default())
                .collect()
        })
    };
    let decoded: Vec<Parsed> = results
        .into_iter()
        .filter_map(|r| r.map_err(|abs| parse.push(abs)).ok())
        .collect();
    parse.sort_unstable();
    let mut found = parse_paths(config, cancel, scope.base, &parse, needle);
    found.files.extend(decoded);
    found.passed_over = passed_over;
    found
        .files
        .sort_by(|a, b| crate::text::js_cmp(&a.display, &b.display));
    found
}
