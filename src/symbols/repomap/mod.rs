//! `repo_map`'s ranking, kept per symbol-table image so that a warm call only filters and
//! renders (issue 29).
//!
//! - [`Map`]: a ranking ready to render — every mapped file's lines, its PageRank, the
//!   definitions best first — over the whole workspace; `path` and `glob` select from it.
//! - [`Cache`]: the ranking of the installed symbol table's image, built once from its
//!   records (no read, no parse) and persisted beside `symbols.idx` ([`persist`]), and the
//!   ranking of the image adjusted by the current delta, kept until the delta changes.
//! - [`render`]: the map of a scope in a byte budget.
//!
//! Freshness: every call takes the trigram index's fresh candidates first. Files the image
//! no longer vouches for leave the image's graph, changed and new files are read and parsed
//! (through the memo), and the ranking is recomputed over the resulting graph — the same
//! computation as without an index, so the answer is the one a scan would give. The graph of
//! the image is kept in memory, so that recomputation costs the PageRank, not the decoding.

mod build;
pub mod persist;
pub mod render;

use super::model::{separator, FileSyms};
use super::ondemand::{Parsed, Skip};
use super::rank::{rank_nodes, Node, Ranked, Ranking};
use crate::syntax::Grammar;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

pub use build::answer;

/// One mapped file: its display path and the map line of each of its definitions.
#[derive(Debug, Clone, PartialEq)]
pub struct MapFile {
    /// The display path.
    pub display: Box<str>,
    /// Every definition's line (`{indent}{line}: {signature}\n`), in definition order.
    pub text: String,
    /// Where each definition's line ends in `text`.
    pub ends: Vec<u32>,
}

impl MapFile {
    /// The map lines of `syms` (a file in `grammar`): indented by nesting, the signature
    /// line, or the kind and qualified name when that line does not show the name (a
    /// macro-made definition, a long signature cut short).
    pub fn of(display: &str, grammar: Grammar, syms: &FileSyms) -> MapFile {
        use std::fmt::Write;
        let mut text = String::new();
        let mut ends = Vec::with_capacity(syms.defs.len());
        for def in &syms.defs {
            for _ in 0..=def.container.len().min(4) {
                text.push_str("  ");
            }
            let _ = write!(text, "{}: ", def.line);
            if def.sig.contains(def.name.as_str()) {
                text.push_str(&def.sig);
            } else {
                let _ = write!(
                    text,
                    "{} {}",
                    def.kind.as_str(),
                    def.qualified(separator(grammar))
                );
            }
            text.push('\n');
            ends.push(u32::try_from(text.len()).unwrap_or(u32::MAX));
        }
        MapFile {
            display: display.into(),
            text,
            ends,
        }
    }

    /// Definition `j`'s line, with its newline.
    pub fn line(&self, j: usize) -> &str {
        let from = if j == 0 { 0 } else { self.ends[j - 1] as usize };
        &self.text[from..self.ends[j] as usize]
    }
}

/// A ranking ready to render, over files in display order.
#[derive(Debug, Clone, Default)]
pub struct Map {
    /// The mapped (parsed) files.
    pub files: Vec<Arc<MapFile>>,
    /// Each file's PageRank.
    pub ranks: Vec<f64>,
    /// The listed definitions, best first.
    pub defs: Vec<Ranked>,
    /// Files not mapped: display path and why (another language, too large, timed out).
    pub skipped: Vec<(Arc<str>, Skip)>,
}

/// Names by id, for a graph's nodes.
#[derive(Debug, Default)]
pub struct Names {
    list: Vec<Arc<str>>,
    /// foldhash: SipHash was half of building a 250k-file ranking.
    ids: HashMap<Arc<str>, u32, foldhash::fast::RandomState>,
}

impl Names {
    /// The id of `name`, given one if new.
    pub fn intern(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = u32::try_from(self.list.len()).unwrap_or(u32::MAX);
        let name: Arc<str> = name.into();
        self.list.push(name.clone());
        self.ids.insert(name, id);
        id
    }

    /// The id of `name`, when it has one.
    pub fn get(&self, name: &str) -> Option<u32> {
        self.ids.get(name).copied()
    }

    /// The text of `id`.
    pub fn text(&self, id: u32) -> &str {
        &self.list[id as usize]
    }

    /// How many names there are.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
}

/// The ranking of parsed files (without an index, or beside it for its delta): the same
/// computation as [`rank`](super::rank::rank), kept as a [`Map`].
pub fn map_of(files: &[Parsed], skipped: &[(String, Skip)]) -> Map {
    let mut names = Names::default();
    let nodes: Vec<Node> = files
        .iter()
        .map(|f| Node::of(&f.syms, |n| names.intern(n)))
        .collect();
    let refs: Vec<&Node> = nodes.iter().collect();
    let Ranking { files: ranks, defs } = rank_nodes(&refs, &|id| names.text(id));
    Map {
        files: files
            .iter()
            .map(|f| Arc::new(MapFile::of(&f.display, f.grammar, &f.syms)))
            .collect(),
        ranks,
        defs,
        skipped: skipped
            .iter()
            .map(|(d, why)| (Arc::from(d.as_str()), *why))
            .collect(),
    }
}

/// The ranking of one symbol-table image: its files' graph, kept to re-rank with a delta.
#[derive(Debug)]
pub struct Image {
    /// The symbol table's own sum (which names the grep image it describes).
    pub table: Vec<u8>,
    /// The ranking of the image's files.
    pub map: Arc<Map>,
    /// Per mapped file (as `map.files`): its graph node.
    pub nodes: Vec<Node>,
    /// The nodes' names.
    pub names: Names,
    /// Per mapped file: its id in the grep image.
    pub ids: Vec<u32>,
    /// Per skipped file (as `map.skipped`): its id in the grep image.
    pub skipped_ids: Vec<u32>,
}

/// What made an adjusted ranking: the image's files that left it and the files parsed
/// instead. Equal keys give equal rankings.
#[derive(Debug, PartialEq)]
struct DeltaKey {
    removed: Vec<u32>,
    removed_skipped: Vec<u32>,
    /// The parsed files' nodes (their names given ids after the image's, in `extra`) and
    /// lines, in display order.
    parsed: Vec<(Node, Arc<MapFile>)>,
    extra: Vec<Arc<str>>,
    skipped: Vec<(Arc<str>, Skip)>,
}

/// An adjusted ranking with what made it: the table's sum and the delta.
type Adjusted = (Vec<u8>, DeltaKey, Arc<Map>);

/// One tools object's repo-map rankings.
#[derive(Debug, Default)]
pub struct Cache {
    image: Mutex<Option<Arc<Image>>>,
    adjusted: Mutex<Option<Adjusted>>,
    /// Held while an image's ranking is built, so concurrent calls build it once.
    building: Mutex<()>,
}

impl Cache {
    fn image_for(&self, table: &[u8]) -> Option<Arc<Image>> {
        let s = self.image.lock().unwrap_or_else(PoisonError::into_inner);
        s.as_ref().filter(|i| i.table == table).cloned()
    }

    fn keep(&self, image: Arc<Image>) {
        *self.image.lock().unwrap_or_else(PoisonError::into_inner) = Some(image);
        // An adjusted ranking of another image can no longer match.
        self.adjusted
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
    }
}

/// The image's ranking adjusted by a delta: the image's files but `key.removed`, and the
/// parsed files, ranked together in display order (exactly as a scan of the same files).
fn adjust(image: &Image, key: &DeltaKey) -> Map {
    let map = &image.map;
    let mut gone = vec![false; map.files.len()];
    for &i in &key.removed {
        gone[i as usize] = true;
    }
    // Both lists are in display order: merge them.
    let mut nodes: Vec<&Node> = Vec::with_capacity(map.files.len() + key.parsed.len());
    let mut files: Vec<Arc<MapFile>> = Vec::with_capacity(nodes.capacity());
    let (mut i, mut j) = (0, 0);
    while i < map.files.len() || j < key.parsed.len() {
        if i < map.files.len() && gone[i] {
            i += 1;
            continue;
        }
        let take_image = match (map.files.get(i), key.parsed.get(j)) {
            (Some(a), Some((_, b))) => crate::text::js_cmp(&a.display, &b.display).is_lt(),
            (Some(_), None) => true,
            _ => false,
        };
        if take_image {
            nodes.push(&image.nodes[i]);
            files.push(map.files[i].clone());
            i += 1;
        } else {
            nodes.push(&key.parsed[j].0);
            files.push(key.parsed[j].1.clone());
            j += 1;
        }
    }
    // Names the image does not know have ids after its own.
    let base = image.names.len();
    let name = |id: u32| match (id as usize).checked_sub(base) {
        Some(k) => &*key.extra[k],
        None => image.names.text(id),
    };
    let Ranking { files: ranks, defs } = rank_nodes(&nodes, &name);
    let mut removed_skipped = vec![false; map.skipped.len()];
    for &i in &key.removed_skipped {
        removed_skipped[i as usize] = true;
    }
    let skipped = map
        .skipped
        .iter()
        .zip(&removed_skipped)
        .filter(|(_, gone)| !**gone)
        .map(|(s, _)| s.clone())
        .chain(key.skipped.iter().cloned())
        .collect();
    Map {
        files,
        ranks,
        defs,
        skipped,
    }
}

#[cfg(test)]
mod tests;
