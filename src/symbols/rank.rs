//! `repo_map`'s ranking, as Aider ranks its repository map: a graph with an edge from each
//! file that uses a name to each file that defines it, PageRank over it, and each file's rank
//! shared among the definitions it points at — so a definition ranks by how much of the
//! code, weighted by that code's own importance, relies on it.
//!
//! Edge weights follow Aider's: a long structured name (`parse_config`, `loadConfig`, eight
//! characters or more) counts ten times, a private `_name` a tenth, and a name defined in
//! more than five files a tenth (`new`, `get`, `run` say little about which one is meant);
//! then the square root of the number of uses, so one chatty file cannot dominate. A use
//! cannot tell which of a name's definitions it means, so its weight is shared: a name
//! defined in N files gives each an edge of 1/N of it (else `get`, `len`, `new`, defined by
//! many types and called everywhere, would gain N times the weight of a name defined once
//! and lead the map). A file's uses of its own definitions are no edge: they say nothing
//! about the rest of the code.

use super::model::FileSyms;
use super::model::Role;
use super::ondemand::Parsed;
use crate::syntax::defs::SymbolKind;
use std::collections::HashMap;

/// One definition with its score.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ranked {
    /// Index of its file in the slice given to [`rank`].
    pub file: usize,
    /// Index of the definition in that file's `defs`.
    pub def: usize,
    /// Its share of the rank of the files that use its name (0 when none does).
    pub score: f64,
}

/// What [`rank`] gives: every file's PageRank and every reportable definition, best first.
pub struct Ranking {
    /// Per file (the order given).
    pub files: Vec<f64>,
    /// The definitions, by score, then their file's rank, then path and line.
    pub defs: Vec<Ranked>,
}

/// Whether a name is distinctive enough to weigh more (Aider's "long, structured" names).
fn structured(name: &str) -> bool {
    let has_lower = name.bytes().any(|b| b.is_ascii_lowercase());
    let has_upper = name.bytes().any(|b| b.is_ascii_uppercase());
    name.len() >= 8 && (name.contains('_') || (has_lower && has_upper))
}

/// The weight of the edge from a file using `name` `uses` times to one of its `definers`.
fn weight(name: &str, definers: usize, uses: usize) -> f64 {
    let mut w = 1.0;
    if structured(name) {
        w *= 10.0;
    }
    if name.starts_with('_') {
        w *= 0.1;
    }
    if definers > 5 {
        w *= 0.1;
    }
    // Counts are far below 2^52: exact as f64. The weight is shared among the definers.
    w * (uses as f64).sqrt() / definers.max(1) as f64
}

/// The graph by name: each group is a name with the files that use it (`users`: file and
/// the weight of its edge to each definer) and the files that define it. An edge goes from
/// each user to each definer but itself; grouped, an iteration costs users + definers per
/// name instead of their product (a field `v` defined by 4,000 types and used in each of their
/// files would be 16 M edges).
struct Groups {
    users: Vec<Vec<(usize, f64)>>,
    definers: Vec<Vec<usize>>,
    /// Per file, the total weight of its outgoing edges.
    out_w: Vec<f64>,
}

impl Groups {
    /// The part of file `f`'s rank that flows along its edge of weight `w`.
    fn part(&self, rank: &[f64], f: usize, w: f64) -> f64 {
        rank[f] * w / self.out_w[f]
    }

    /// What flows from group `g`'s users to each of its definers.
    fn total(&self, rank: &[f64], g: usize) -> f64 {
        self.users[g]
            .iter()
            .map(|&(f, w)| self.part(rank, f, w))
            .sum()
    }

    /// What flows along each group's edges from `rank`: calls `to(t, amount)` per definer.
    fn flow(&self, rank: &[f64], mut to: impl FnMut(usize, usize, f64)) {
        for (g, users) in self.users.iter().enumerate() {
            let defs = &self.definers[g];
            let part = |f: usize, w: f64| self.part(rank, f, w);
            let total = self.total(rank, g);
            for &t in defs {
                to(g, t, total);
            }
            // A file's uses of its own definitions are no edge.
            for &(f, w) in users {
                if defs.binary_search(&f).is_ok() {
                    to(g, f, -part(f, w));
                }
            }
        }
    }
}

/// PageRank with damping 0.85 over `groups`; a file without outgoing edges spreads its rank
/// evenly. Iterates until the change is below 1e-9 or 100 rounds.
fn pagerank(n: usize, groups: &Groups) -> Vec<f64> {
    if n == 0 {
        return Vec::new();
    }
    let nf = n as f64;
    let mut rank = vec![1.0 / nf; n];
    for _ in 0..100 {
        let dangling: f64 = (0..n)
            .filter(|&i| groups.out_w[i] == 0.0)
            .map(|i| rank[i])
            .sum();
        let base = (0.15 + 0.85 * dangling) / nf;
        let mut next = vec![base; n];
        groups.flow(&rank, |_, t, v| next[t] += 0.85 * v);
        let delta: f64 = next.iter().zip(&rank).map(|(a, b)| (a - b).abs()).sum();
        rank = next;
        if delta < 1e-9 {
            break;
        }
    }
    rank
}

/// Whether a definition of `kind` is listed when nothing references it: values and fields
/// are noise in a map unless the code uses them.
fn listed_unreferenced(kind: SymbolKind) -> bool {
    !matches!(
        kind,
        SymbolKind::Variable | SymbolKind::Property | SymbolKind::Constant
    )
}

/// One file of the graph: what it defines and what it uses, by name id (ids index a name
/// table the caller keeps, so a graph can be kept and re-ranked without its files' texts).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Node {
    /// Each definition's name and kind, in the file's definition order.
    pub defs: Vec<(u32, SymbolKind)>,
    /// Each name used other than by defining it, with its number of uses, in the order the
    /// file first uses it.
    pub uses: Vec<(u32, u32)>,
}

impl Node {
    /// The node of `syms`, its names given ids by `intern`.
    pub fn of<'a>(syms: &'a FileSyms, mut intern: impl FnMut(&'a str) -> u32) -> Node {
        let mut counts = vec![0u32; syms.names.len()];
        for r in syms.refs.iter().filter(|r| r.role != Role::Definition) {
            if let Some(u) = counts.get_mut(r.name as usize) {
                *u += 1;
            }
        }
        Node {
            defs: syms
                .defs
                .iter()
                .map(|d| (intern(&d.name), d.kind))
                .collect(),
            uses: counts
                .iter()
                .enumerate()
                .filter(|(_, &c)| c > 0)
                .map(|(id, &c)| (intern(&syms.names[id]), c))
                .collect(),
        }
    }
}

/// Ranks the definitions of `files` (see the module doc).
pub fn rank(files: &[Parsed]) -> Ranking {
    let mut names: Vec<&str> = Vec::new();
    let mut ids: HashMap<&str, u32> = HashMap::new();
    let nodes: Vec<Node> = files
        .iter()
        .map(|f| {
            Node::of(&f.syms, |n| {
                *ids.entry(n).or_insert_with(|| {
                    names.push(n);
                    names.len() as u32 - 1
                })
            })
        })
        .collect();
    let refs: Vec<&Node> = nodes.iter().collect();
    rank_nodes(&refs, &|id| names[id as usize])
}

/// Ranks the definitions of `nodes`, files in display order (ties in score and file rank go
/// to the earlier file); `name` gives a name id's text.
pub fn rank_nodes<'n>(nodes: &[&Node], name: &dyn Fn(u32) -> &'n str) -> Ranking {
    // Name ids are dense: tables by id, not hash maps (a map of 250k files has ~1M names).
    let ids = nodes
        .iter()
        .flat_map(|f| f.defs.iter().map(|d| d.0).chain(f.uses.iter().map(|u| u.0)))
        .max()
        .map_or(0, |m| m as usize + 1);
    let mut definers: Vec<Vec<usize>> = vec![Vec::new(); ids];
    for (i, f) in nodes.iter().enumerate() {
        for &(d, _) in &f.defs {
            let v = &mut definers[d as usize];
            if v.last() != Some(&i) {
                v.push(i);
            }
        }
    }
    const NONE: usize = usize::MAX;
    let mut index: Vec<usize> = vec![NONE; ids];
    let mut groups = Groups {
        users: Vec::new(),
        definers: Vec::new(),
        out_w: vec![0.0; nodes.len()],
    };
    for (i, f) in nodes.iter().enumerate() {
        for &(id, count) in &f.uses {
            let to = &definers[id as usize];
            if to.is_empty() {
                continue;
            }
            let others = to.len() - usize::from(to.binary_search(&i).is_ok());
            if others == 0 {
                continue;
            }
            let w = weight(name(id), to.len(), count as usize);
            if index[id as usize] == NONE {
                index[id as usize] = groups.users.len();
                groups.users.push(Vec::new());
                groups.definers.push(to.clone());
            }
            let g = index[id as usize];
            groups.users[g].push((i, w));
            groups.out_w[i] += w * others as f64;
        }
    }
    let ranks = pagerank(nodes.len(), &groups);
    // A definer's share of its name's group: what flows in, less its own uses' part (the
    // sum `flow` gives, in the same order, so the scores are those of the edges' flow).
    let total: Vec<f64> = (0..groups.users.len())
        .map(|g| groups.total(&ranks, g))
        .collect();
    let mut defs = Vec::new();
    for (i, f) in nodes.iter().enumerate() {
        for (j, &(d, kind)) in f.defs.iter().enumerate() {
            let score = match index[d as usize] {
                NONE => 0.0,
                g => {
                    let users = &groups.users[g];
                    // Users are in file order.
                    match users.binary_search_by(|&(u, _)| u.cmp(&i)) {
                        Ok(k) => total[g] + -groups.part(&ranks, users[k].0, users[k].1),
                        Err(_) => total[g],
                    }
                }
            };
            if score > 0.0 || listed_unreferenced(kind) {
                defs.push(Ranked {
                    file: i,
                    def: j,
                    score,
                });
            }
        }
    }
    defs.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| ranks[b.file].total_cmp(&ranks[a.file]))
            .then_with(|| a.file.cmp(&b.file))
            .then_with(|| a.def.cmp(&b.def))
    });
    Ranking { files: ranks, defs }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pagerank_flows_to_what_is_used_and_sums_to_one() {
        // 0 and 1 use 2; 2 uses 3 a little.
        // One group per edge.
        let edges = [(0, 2, 1.0), (1, 2, 1.0), (2, 3, 0.5)];
        let mut groups = Groups {
            users: edges.iter().map(|&(f, _, w)| vec![(f, w)]).collect(),
            definers: edges.iter().map(|&(_, t, _)| vec![t]).collect(),
            out_w: vec![0.0; 4],
        };
        for &(f, _, w) in &edges {
            groups.out_w[f] += w;
        }
        let r = pagerank(4, &groups);
        let sum: f64 = r.iter().sum();
        assert!((sum - 1.0).abs() < 1e-6, "{sum}");
        assert!(r[2] > r[0] && r[2] > r[1] && r[3] > r[0], "{r:?}");
        let none = Groups {
            users: Vec::new(),
            definers: Vec::new(),
            out_w: Vec::new(),
        };
        assert!(pagerank(0, &none).is_empty());
    }

    fn file(display: &str, src: &str) -> Parsed {
        let g = crate::syntax::Grammar::Rust;
        let parsed =
            crate::syntax::parse::parse(g, src.as_bytes(), std::time::Duration::from_secs(5), None)
                .unwrap();
        Parsed {
            abs: display.into(),
            display: display.to_string(),
            grammar: g,
            syms: std::sync::Arc::new(super::super::extract::extract(&parsed)),
        }
    }

    #[test]
    fn a_name_defined_in_many_files_shares_its_weight_among_them() {
        // `get` is defined by four types and called four times; `helper` is defined once
        // and called once. A call of `get` means one of the four: each gets a quarter of it,
        // so the one `helper` outranks every `get`.
        let mut files: Vec<Parsed> = (0..4)
            .map(|i| {
                file(
                    &format!("s{i}.rs"),
                    &format!(
                        "struct S{i};
impl S{i} {{ fn get(&self) -> u8 {{ {i} }} }}
"
                    ),
                )
            })
            .collect();
        files.push(file(
            "util.rs",
            "pub fn helper() {}
",
        ));
        files.push(file(
            "main.rs",
            "fn main() { a.get(); b.get(); c.get(); d.get(); helper(); }
",
        ));
        let ranked = rank(&files);
        let top = &ranked.defs[0];
        let d = &files[top.file].syms.defs[top.def];
        assert_eq!(
            (files[top.file].display.as_str(), d.name.as_str()),
            ("util.rs", "helper")
        );
        let get = |i: usize| {
            ranked
                .defs
                .iter()
                .find(|r| r.file == i && files[i].syms.defs[r.def].name == "get")
                .unwrap()
                .score
        };
        // The four `get`s share alike, and together weigh what one name used as often would.
        assert!((get(0) - get(3)).abs() < 1e-12);
        assert!(top.score > get(0) * 1.5, "{} vs {}", top.score, get(0));
    }

    #[test]
    fn weights_favour_distinctive_names() {
        assert!(weight("get", 4, 4) * 4.0 - weight("get", 1, 4) < 1e-12);
        assert!(weight("parse_config", 1, 1) > weight("load", 1, 1));
        assert!(weight("_helper", 1, 1) < weight("helper", 1, 1));
        assert!(weight("run", 6, 1) < weight("run", 1, 1));
        assert!(weight("load", 1, 4) > weight("load", 1, 1));
        assert!(structured("loadConfig") && !structured("loadconfig") && !structured("load_x"));
    }
}
