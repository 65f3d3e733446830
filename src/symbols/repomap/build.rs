//! Where a call's [`Map`] comes from: the cached ranking of the symbol table's image (built
//! from its records on first use, or loaded from disk), adjusted by the index's delta; or,
//! without an index, a scan of the workspace ranked on the spot.

use super::{adjust, map_of, persist, Cache, DeltaKey, Image, Map, MapFile, Names};
use crate::cancel::Cancel;
use crate::config::Config;
use crate::index::os_str;
use crate::index::store::Store;
use crate::pool::threads;
use crate::symbols::ondemand::{parse_paths, Needle, Scope, Skip};
use crate::symbols::rank::{rank_nodes, Node, Ranking};
use crate::symbols::stored::codec;
use crate::symbols::stored::table::{Record, Table};
use crate::symbols::stored::SymbolIndex;
use crate::syntax::grammar_for;
use crate::warnings::Warnings;
use crate::workspace;
use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError};

/// Every file holds the empty needle: the map reads every source file it parses.
fn everything() -> Needle {
    Needle::anywhere("", false)
}

/// The ranking of the whole workspace as it is when the call starts. `None` when cancelled.
pub fn answer(
    config: &Arc<Config>,
    symbols: &SymbolIndex,
    cancel: &Cancel,
    warnings: &Warnings,
) -> Option<Arc<Map>> {
    let root = &config.workspace_root;
    if let Some(fresh) = symbols.search().fresh_candidates(config, root, None) {
        if let Some(table) = symbols.table_for(&fresh.store) {
            return from_image(config, &symbols.map, &table, fresh, cancel);
        }
    }
    let all = |_: &Path| true;
    let scope = Scope {
        base: root,
        is_file: false,
        filter: &all,
    };
    let found =
        crate::symbols::candidates(config, symbols, cancel, warnings, &scope, &everything());
    (!cancel.is_cancelled()).then(|| Arc::new(map_of(&found.files, &found.skipped)))
}

/// The image's ranking, adjusted by `fresh`'s delta when it has one.
fn from_image(
    config: &Arc<Config>,
    cache: &Cache,
    table: &Table,
    fresh: crate::index::Fresh,
    cancel: &Cancel,
) -> Option<Arc<Map>> {
    let image = image(config, cache, table, &fresh.store, cancel)?;
    let store = &fresh.store;
    let n = store.files();
    let mut alive = vec![false; n];
    for &id in &fresh.ids {
        alive[id] = true;
    }
    let gone = |ids: &[u32]| -> Vec<u32> {
        (0..ids.len() as u32)
            .filter(|&i| {
                !alive
                    .get(ids[i as usize] as usize)
                    .copied()
                    .unwrap_or(false)
            })
            .collect()
    };
    let (removed, removed_skipped) = (gone(&image.ids), gone(&image.skipped_ids));
    let mut known = vec![false; n];
    for &id in image.ids.iter().chain(&image.skipped_ids) {
        if let Some(k) = known.get_mut(id as usize) {
            *k = true;
        }
    }
    let root = &config.workspace_root;
    // Changed and new files, and files the table holds no record of, are parsed.
    let mut parse: Vec<PathBuf> = fresh.extra;
    parse.extend(
        fresh
            .ids
            .iter()
            .filter(|&&id| !known[id])
            .map(|&id| root.join(os_str(store.file(id).path))),
    );
    if parse.is_empty() && removed.is_empty() && removed_skipped.is_empty() {
        return Some(image.map.clone());
    }
    parse.sort_unstable();
    let found = parse_paths(config, cancel, root, &parse, &everything());
    if cancel.is_cancelled() {
        return None;
    }
    let mut extra = Names::default();
    let base = image.names.len() as u32;
    let parsed = found
        .files
        .iter()
        .map(|f| {
            let node = Node::of(&f.syms, |name| {
                image
                    .names
                    .get(name)
                    .unwrap_or_else(|| base + extra.intern(name))
            });
            (node, Arc::new(MapFile::of(&f.display, f.grammar, &f.syms)))
        })
        .collect();
    let key = DeltaKey {
        removed,
        removed_skipped,
        parsed,
        extra: extra.list,
        skipped: found
            .skipped
            .iter()
            .map(|(d, why)| (Arc::from(d.as_str()), *why))
            .collect(),
    };
    let mut kept = cache
        .adjusted
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    if let Some((sum, k, map)) = kept.as_ref() {
        if *sum == image.table && *k == key {
            return Some(map.clone());
        }
    }
    let map = Arc::new(adjust(&image, &key));
    *kept = Some((image.table.clone(), key, map.clone()));
    Some(map)
}

/// The cached ranking of `table`'s image: in memory, else from disk, else built from the
/// table's records (and then written beside it).
fn image(
    config: &Arc<Config>,
    cache: &Cache,
    table: &Table,
    store: &Store,
    cancel: &Cancel,
) -> Option<Arc<Image>> {
    if let Some(i) = cache.image_for(table.sum()) {
        return Some(i);
    }
    let _one = cache
        .building
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    if let Some(i) = cache.image_for(table.sum()) {
        return Some(i);
    }
    let dir = config.workspace_root.join(".clarvis").join("index");
    let image = match persist::load(&dir.join(persist::FILE), table.sum()) {
        Some(i) => Arc::new(i),
        None => {
            let i = Arc::new(build(config, table, store, cancel)?);
            if !config.read_only {
                let (i, dir) = (i.clone(), dir.clone());
                let _ = std::thread::Builder::new()
                    .name("clarvis-repomap".into())
                    .spawn(move || persist::save(&dir, &i));
            }
            i
        }
    };
    cache.keep(image.clone());
    Some(image)
}

/// One worker's share of a build: files with their nodes (names by the worker's own ids).
#[derive(Default)]
struct Part {
    names: Names,
    files: Vec<(u32, Node, MapFile)>,
    skipped: Vec<(u32, Arc<str>, Skip)>,
}

/// The ranking of `table`'s image from its records, decoded on every core.
fn build(config: &Config, table: &Table, store: &Store, cancel: &Cancel) -> Option<Image> {
    let n = store.files();
    let root = &config.workspace_root;
    let one = |id: usize, part: &mut Part| {
        let display = || workspace::display(config, &root.join(os_str(store.file(id).path)));
        match table.record(id) {
            Record::Syms(bytes) => {
                let display = display();
                if let (Some(grammar), Some(syms)) = (grammar_for(&display), codec::decode(bytes)) {
                    let names = &mut part.names;
                    let node = Node::of(&syms, |name| names.intern(name));
                    let file = MapFile::of(&display, grammar, &syms);
                    part.files.push((id as u32, node, file));
                }
            }
            Record::Skipped(why) => part.skipped.push((id as u32, display().into(), why)),
            Record::Unknown => {}
        }
    };
    let chunk = n.div_ceil(threads()).max(1);
    let parts: Vec<Part> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..n)
            .step_by(chunk)
            .map(|from| {
                let one = &one;
                s.spawn(move || {
                    let mut part = Part::default();
                    for id in from..(from + chunk).min(n) {
                        if id % 1024 == 0 && cancel.is_cancelled() {
                            break;
                        }
                        one(id, &mut part);
                    }
                    part
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_default())
            .collect()
    });
    if cancel.is_cancelled() {
        return None;
    }
    let mut names = Names::default();
    let mut files: Vec<(u32, Node, MapFile)> = Vec::new();
    let mut skipped: Vec<(u32, Arc<str>, Skip)> = Vec::new();
    for mut part in parts {
        let to: Vec<u32> = part.names.list.iter().map(|s| names.intern(s)).collect();
        for (_, node, _) in &mut part.files {
            for (id, _) in &mut node.defs {
                *id = to[*id as usize];
            }
            for (id, _) in &mut node.uses {
                *id = to[*id as usize];
            }
        }
        files.append(&mut part.files);
        skipped.append(&mut part.skipped);
    }
    files.sort_by(|a, b| crate::text::js_cmp(&a.2.display, &b.2.display));
    let refs: Vec<&Node> = files.iter().map(|(_, node, _)| node).collect();
    let Ranking { files: ranks, defs } = rank_nodes(&refs, &|id| names.text(id));
    let mut ids = Vec::with_capacity(files.len());
    let mut nodes = Vec::with_capacity(files.len());
    let mut mapped = Vec::with_capacity(files.len());
    for (id, node, file) in files {
        ids.push(id);
        nodes.push(node);
        mapped.push(Arc::new(file));
    }
    Some(Image {
        table: table.sum().to_vec(),
        map: Arc::new(Map {
            files: mapped,
            ranks,
            defs,
            skipped: skipped
                .iter()
                .map(|(_, d, why)| (d.clone(), *why))
                .collect(),
        }),
        nodes,
        names,
        ids,
        skipped_ids: skipped.iter().map(|(id, _, _)| *id).collect(),
    })
}
