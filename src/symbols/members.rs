//! A name defined only as a class member (a method or a property) is never meant by a bare
//! use of it in Python, TypeScript or JavaScript: there a member is reached through an object
//! (`self.open()`, `this.filter`, `x.keys`), and a bare `open(path)` is the builtin, a bare
//! `keys` a local. `find_references` leaves such bare uses out (and says how many), which the
//! language servers' answers showed to be most of its false hits on those names. Languages
//! where a method is called bare from inside its class (Java, C#, C++, Ruby, PHP's `$this`
//! aside) keep every use.

use super::model::Role;
use super::texts::Lines;
use super::{DefHit, RefHit};
use crate::syntax::defs::SymbolKind;
use crate::syntax::Grammar;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

fn bare_means_no_member(g: Grammar) -> bool {
    matches!(
        g,
        Grammar::Python | Grammar::TypeScript | Grammar::Tsx | Grammar::JavaScript
    )
}

/// Whether every definition in `defs` is a member of a class, in a language where a bare name
/// cannot mean one (false for no definitions).
pub fn only_members(defs: &[DefHit]) -> bool {
    !defs.is_empty()
        && defs.iter().all(|d| {
            bare_means_no_member(d.grammar)
                && matches!(d.def.kind, SymbolKind::Method | SymbolKind::Property)
                && !d.def.container.is_empty()
        })
}

/// Whether the use at 1-based `col` (UTF-16 units) of `lines[row]` is bare: the code before
/// it (on earlier lines when its own holds nothing before it) does not end with `.` (a member
/// access, a relative import's dots), `{` or `,` (a shorthand property, a destructured key or
/// an object literal's key, which do name the member; a plain argument after `,` is kept too,
/// to be safe) or `?`.
fn bare(lines: &[String], row: usize, col: u32) -> bool {
    let Some(line) = lines.get(row) else {
        return false;
    };
    let mut units = 0usize;
    let mut before = line.as_str();
    for (i, c) in line.char_indices() {
        if units + 1 >= col as usize {
            before = &line[..i];
            break;
        }
        units += c.len_utf16();
    }
    let last = std::iter::once(before)
        .chain(lines[..row].iter().rev().map(String::as_str))
        .find_map(|l| l.trim_end().chars().last());
    !matches!(last, Some('.' | '{' | ',' | '?'))
}

/// `refs` without the bare uses that cannot mean the member-only `defs`, and how many were
/// left out. A file that imports the name keeps all its uses (the import brings another
/// definition of it). `lines_of` gives a file's lines (a call's [`CallTexts`], so the
/// file is read once for this step and the next ones); it is asked once per file that has a
/// use to test.
///
/// [`CallTexts`]: super::texts::CallTexts
pub fn drop_bare_uses(
    refs: Vec<RefHit>,
    mut lines_of: impl FnMut(&Path) -> Option<Lines>,
) -> (Vec<RefHit>, usize) {
    let importing: HashSet<PathBuf> = refs
        .iter()
        .filter(|r| r.role == Role::Import)
        .map(|r| r.abs.clone())
        .collect();
    let mut texts: HashMap<PathBuf, Option<Lines>> = HashMap::new();
    let mut dropped = 0;
    let kept = refs
        .into_iter()
        .filter(|r| {
            if r.role == Role::Definition || r.role == Role::Member || importing.contains(&r.abs) {
                return true;
            }
            let lines = texts
                .entry(r.abs.clone())
                .or_insert_with(|| lines_of(&r.abs));
            let Some(lines) = lines.as_ref() else {
                return true;
            };
            let keep = !bare(lines, r.line as usize - 1, r.col);
            if !keep {
                dropped += 1;
            }
            keep
        })
        .collect();
    (kept, dropped)
}

#[cfg(test)]
mod tests {
    use super::bare;

    #[test]
    fn bare_is_what_no_object_precedes() {
        let line = "    return open(path) + self.open(x) + a?.open + { open } + f(a, open)";
        let lines = vec![line.to_string()];
        let col = |nth: usize| {
            let at = line.match_indices("open").nth(nth).unwrap().0;
            u32::try_from(at + 1).unwrap()
        };
        assert!(bare(&lines, 0, col(0)));
        for nth in 1..5 {
            assert!(!bare(&lines, 0, col(nth)), "{nth}");
        }
        // An object literal's key on a line of its own, a chained call on the next line.
        let split: Vec<String> = [
            "const x: Loader = {",
            "  open: 1,",
            "  open",
            "}",
            "a",
            "  .open()",
        ]
        .map(String::from)
        .to_vec();
        assert!(!bare(&split, 1, 3));
        assert!(!bare(&split, 2, 3));
        assert!(!bare(&split, 5, 4));
        assert!(bare(&["open(x)".to_string()], 0, 1));
    }
}
