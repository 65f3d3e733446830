//! The query planner: which literals a match of a regex must contain, as a boolean query
//! over trigrams (Russ Cox's "Regular Expression Matching with a Trigram Index", on the
//! `regex-syntax` HIR).
//!
//! Every node of the HIR gets an `Info`: when the node can only match a small set of
//! strings, that set (`exact`); otherwise a condition every match satisfies (`must`).
//! Sets are ASCII-folded like the index (so `(?i)error` is the single string `error`, and
//! only non-ASCII case variants such as U+212A for `k` add alternatives). Concatenation
//! multiplies sets while they stay small and otherwise ANDs the parts; alternation ORs
//! them; an optional or repeated-zero-times part requires nothing.
//!
//! The result is only a *necessary* condition: the index narrows the files, and every
//! candidate is searched with the real engine. A pattern the Rust parser rejects (PCRE-only
//! syntax) or whose condition is [`Query::All`] is not planned: the caller scans.

use super::grams;
use regex_syntax::hir::{Class, Hir, HirKind};
use std::collections::BTreeSet;
use std::sync::Arc;

/// Most strings an exact set may hold before the planner falls back to a condition.
const MAX_EXACT: usize = 64;
/// Most characters a class may hold and still count as a set of alternatives.
const MAX_CLASS: u32 = 8;

/// A condition on a file's trigrams.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Query {
    /// Every file may match.
    All,
    /// The file holds every trigram of this (folded) literal, at least three bytes long.
    Lit(Vec<u8>),
    /// Every part holds.
    And(Vec<Query>),
    /// Some part holds.
    Or(Vec<Query>),
}

impl Query {
    fn lit(s: &[u8]) -> Query {
        if s.len() < 3 {
            Query::All
        } else {
            Query::Lit(s.to_vec())
        }
    }

    fn and(parts: Vec<Query>) -> Query {
        let mut kept: Vec<Query> = Vec::new();
        for p in parts {
            match p {
                Query::All => {}
                Query::And(inner) => kept.extend(inner),
                p => kept.push(p),
            }
        }
        match kept.len() {
            0 => Query::All,
            1 => kept.pop().unwrap_or(Query::All),
            _ => Query::And(kept),
        }
    }

    fn or(parts: Vec<Query>) -> Query {
        let mut kept: Vec<Query> = Vec::new();
        for p in parts {
            match p {
                Query::All => return Query::All,
                Query::Or(inner) => kept.extend(inner),
                p => kept.push(p),
            }
        }
        match kept.len() {
            0 => Query::All,
            1 => kept.pop().unwrap_or(Query::All),
            _ => Query::Or(kept),
        }
    }

    /// Evaluates the condition: the ascending ids of the files that may match, or `None`
    /// for "every file". `postings` gives a trigram's files (empty when no file has it).
    pub fn eval(&self, postings: &mut dyn FnMut(u32) -> Arc<[u32]>) -> Option<Vec<u32>> {
        match self {
            Query::All => None,
            Query::Lit(s) => {
                let mut lists: Vec<Arc<[u32]>> = grams::of_literal(s)
                    .into_iter()
                    .map(&mut *postings)
                    .collect();
                lists.sort_by_key(|l| l.len());
                let mut it = lists.into_iter();
                let mut acc = it.next()?.to_vec();
                for l in it {
                    if acc.is_empty() {
                        break;
                    }
                    acc = intersect(&acc, &l);
                }
                Some(acc)
            }
            Query::And(parts) => {
                let mut acc: Option<Vec<u32>> = None;
                for p in parts {
                    if let Some(ids) = p.eval(postings) {
                        acc = Some(match acc {
                            Some(a) => intersect(&a, &ids),
                            None => ids,
                        });
                        if acc.as_ref().is_some_and(Vec::is_empty) {
                            break;
                        }
                    }
                }
                acc
            }
            Query::Or(parts) => {
                let mut acc: Vec<u32> = Vec::new();
                for p in parts {
                    acc = union(&acc, &p.eval(postings)?);
                }
                Some(acc)
            }
        }
    }
}

/// The ids in both ascending lists. When one is much shorter (a rare trigram's few files
/// against a common one's thousands), each of its ids is looked up by galloping through
/// the other instead of walking all of it.
fn intersect(a: &[u32], b: &[u32]) -> Vec<u32> {
    let (small, large) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if small.len().saturating_mul(16) < large.len() {
        let mut out = Vec::with_capacity(small.len());
        let mut rest = large;
        for &id in small {
            // Gallop to a window that must hold `id`, then bisect it.
            let mut step = 1;
            while step < rest.len() && rest[step] < id {
                step *= 2;
            }
            let window = &rest[..rest.len().min(step + 1)];
            match window.binary_search(&id) {
                Ok(i) => {
                    out.push(id);
                    rest = &rest[i + 1..];
                }
                Err(i) => rest = &rest[i..],
            }
            if rest.is_empty() {
                break;
            }
        }
        return out;
    }
    let (mut i, mut j, mut out) = (0, 0, Vec::new());
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out
}

fn union(a: &[u32], b: &[u32]) -> Vec<u32> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    out.extend_from_slice(a);
    out.extend_from_slice(b);
    out.sort_unstable();
    out.dedup();
    out
}

type Set = BTreeSet<Vec<u8>>;

/// What the planner knows about one HIR node.
struct Info {
    exact: Option<Set>,
    must: Query,
}

impl Info {
    fn exact(set: Set) -> Info {
        Info {
            exact: Some(set),
            must: Query::All,
        }
    }

    fn empty() -> Info {
        Info::exact(Set::from([Vec::new()]))
    }

    fn any() -> Info {
        Info {
            exact: None,
            must: Query::All,
        }
    }

    fn query(self) -> Query {
        match self.exact {
            Some(set) => Query::or(set.iter().map(|s| Query::lit(s)).collect()),
            None => self.must,
        }
    }
}

/// Plans `pattern` under grep's flags. `None` when the index cannot help: the Rust parser
/// rejects the pattern, or no trigram is required.
pub fn plan(pattern: &str, ignore_case: bool, multiline: bool) -> Option<Query> {
    let hir = regex_syntax::ParserBuilder::new()
        .case_insensitive(ignore_case)
        .multi_line(true)
        .dot_matches_new_line(multiline)
        .utf8(false)
        .build()
        .parse(pattern)
        .ok()?;
    match info(&hir).query() {
        Query::All => None,
        q => Some(q),
    }
}

fn fold(bytes: &[u8]) -> Vec<u8> {
    bytes.iter().map(|&b| grams::fold(b)).collect()
}

fn info(hir: &Hir) -> Info {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => Info::empty(),
        HirKind::Literal(lit) => Info::exact(Set::from([fold(&lit.0)])),
        HirKind::Class(class) => class_info(class),
        HirKind::Capture(cap) => info(&cap.sub),
        HirKind::Repetition(rep) => {
            let sub = info(&rep.sub);
            if rep.min == 0 {
                match (rep.max, sub.exact) {
                    (Some(1), Some(mut set)) if set.len() < MAX_EXACT => {
                        set.insert(Vec::new());
                        Info::exact(set)
                    }
                    _ => Info::any(),
                }
            } else if rep.min == 1 && rep.max == Some(1) {
                sub
            } else {
                Info {
                    exact: None,
                    must: sub.query(),
                }
            }
        }
        HirKind::Concat(parts) => concat(parts),
        HirKind::Alternation(parts) => {
            let infos: Vec<Info> = parts.iter().map(info).collect();
            if infos.iter().all(|i| i.exact.is_some()) {
                let set: Set = infos
                    .iter()
                    .flat_map(|i| i.exact.iter().flatten())
                    .cloned()
                    .collect();
                if set.len() <= MAX_EXACT {
                    return Info::exact(set);
                }
            }
            Info {
                exact: None,
                must: Query::or(infos.into_iter().map(Info::query).collect()),
            }
        }
    }
}

fn class_info(class: &Class) -> Info {
    let mut set = Set::new();
    match class {
        Class::Unicode(c) => {
            let n: u32 = c
                .iter()
                .map(|r| u32::from(r.end()) - u32::from(r.start()) + 1)
                .sum();
            if n > MAX_CLASS {
                return Info::any();
            }
            for r in c.iter() {
                for ch in r.start()..=r.end() {
                    let mut buf = [0u8; 4];
                    set.insert(fold(ch.encode_utf8(&mut buf).as_bytes()));
                }
            }
        }
        Class::Bytes(c) => {
            let n: u32 = c.iter().map(|r| u32::from(r.end() - r.start()) + 1).sum();
            if n > MAX_CLASS {
                return Info::any();
            }
            for r in c.iter() {
                for b in r.start()..=r.end() {
                    set.insert(vec![grams::fold(b)]);
                }
            }
        }
    }
    Info::exact(set)
}

/// A concatenation: sets multiply while small; a part without a set, or a product that
/// grows too large, closes the current run (its condition joins the AND).
fn concat(parts: &[Hir]) -> Info {
    let mut conds: Vec<Query> = Vec::new();
    let mut current: Set = Set::from([Vec::new()]);
    let mut closed = false;
    for part in parts {
        let i = info(part);
        match i.exact {
            Some(set) if current.len() * set.len() <= MAX_EXACT => {
                current = current
                    .iter()
                    .flat_map(|a| set.iter().map(move |b| [a.as_slice(), b].concat()))
                    .collect();
            }
            Some(set) => {
                conds.push(Info::exact(std::mem::replace(&mut current, set)).query());
                closed = true;
            }
            None => {
                conds.push(
                    Info::exact(std::mem::replace(&mut current, Set::from([Vec::new()]))).query(),
                );
                conds.push(i.must);
                closed = true;
            }
        }
    }
    if !closed {
        return Info::exact(current);
    }
    conds.push(Info::exact(current).query());
    Info {
        exact: None,
        must: Query::and(conds),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(s: &str) -> Query {
        Query::Lit(s.as_bytes().to_vec())
    }

    #[test]
    fn literals_alternations_and_gaps() {
        assert_eq!(plan("fooBar", false, false), Some(lit("foobar")));
        assert_eq!(plan("(?i)fooBar", false, false), Some(lit("foobar")));
        assert_eq!(plan("FOOBAR", true, false), Some(lit("foobar")));
        assert_eq!(
            plan("(Type|Range)Error", false, false),
            Some(Query::Or(vec![lit("rangeerror"), lit("typeerror")]))
        );
        assert_eq!(
            plan(r"foo\d+bar", false, false),
            Some(Query::And(vec![lit("foo"), lit("bar")]))
        );
        assert_eq!(
            plan("colou?r", false, false),
            Some(Query::Or(vec![lit("color"), lit("colour")]))
        );
    }

    #[test]
    fn nothing_required_means_scan() {
        for p in [
            r"\w+",
            "a.b",
            "fo?",
            "(foo)*",
            "x|yzw",
            r"foo(?=bar)",
            "(a)\\1",
        ] {
            assert_eq!(plan(p, false, false), None, "{p}");
        }
        assert_eq!(plan("(foo)+", false, false), Some(lit("foo")));
    }

    #[test]
    fn non_ascii_case_variants_are_alternatives() {
        // `k` folds to K, k and U+212A KELVIN SIGN: the last is kept as its own bytes.
        let q = plan("kelvin", true, false).unwrap();
        let Query::Or(alts) = q else { panic!("{q:?}") };
        assert!(alts.contains(&lit("kelvin")));
        assert!(alts.contains(&Query::Lit("\u{212A}elvin".as_bytes().to_vec())));
    }

    /// The walking merge, the reference the galloping path must agree with.
    fn merged(a: &[u32], b: &[u32]) -> Vec<u32> {
        a.iter().copied().filter(|x| b.contains(x)).collect()
    }

    #[test]
    fn a_short_list_against_a_long_one_intersects_like_the_merge() {
        // A long list (every third id below 6,000) against short ones at its edges, past
        // its end, interleaved and duplicated in it: the galloping path must give exactly
        // the merge's ids.
        let long: Vec<u32> = (0..6000).filter(|x| x % 3 == 0).collect();
        let shorts: [&[u32]; 6] = [
            &[0, 1, 2, 3],
            &[5997, 5998, 5999, 6000, 9000],
            &[3, 4, 300, 301, 3000, 4500, 4501, 5999],
            &[],
            &[7, 8, 10, 11],
            &[2999, 3000, 3001, 3002, 3003],
        ];
        for short in shorts {
            let want = merged(short, &long);
            assert_eq!(intersect(short, &long), want, "{short:?}");
            assert_eq!(intersect(&long, short), want, "{short:?}");
        }
        let mut x = 12345u32;
        for _ in 0..200 {
            let mut short: Vec<u32> = (0..(x % 40))
                .map(|_| {
                    x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
                    (x >> 8) % 6100
                })
                .collect();
            short.sort_unstable();
            short.dedup();
            assert_eq!(intersect(&short, &long), merged(&short, &long), "{short:?}");
        }
    }
}
