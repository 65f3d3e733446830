//! An image's ranking on disk (`.clarvis/index/repomap.idx`), so a restarted host's first
//! `repo_map` costs a read instead of decoding every record and ranking again.
//!
//! Layout: `MAGIC`, the symbol table's sum (32 bytes), then LEB128 integers and
//! length-prefixed strings ([`codec`]'s): the names; per mapped file its grep-image id,
//! PageRank (f64 bits), display path, lines and line ends, and graph node; the ranked
//! definitions (file, definition, score bits); the skipped files (id, display path, reason);
//! and a BLAKE3 hash of everything before it. Written like the other images (temp file,
//! fsync, rename) after the ranking is built; a file that fails its hash, belongs to another
//! table or does not decode is ignored (and replaced by the next build).

use super::{Image, Map, MapFile, Names};
use crate::symbols::ondemand::Skip;
use crate::symbols::rank::{Node, Ranked};
use crate::symbols::stored::codec::{kind, put, put_str, Reader};
use std::path::Path;
use std::sync::Arc;

/// Version 2: as the symbol table's (C/C++ symbols from the masked parse).
const MAGIC: &[u8; 8] = b"CLVMAP\0\x02";
/// The file name beside `symbols.idx`.
pub const FILE: &str = "repomap.idx";
const SUM: usize = 32;

const SKIPS: [Skip; 3] = [Skip::Unsupported, Skip::TooLarge, Skip::Timeout];

/// The bytes of `image`.
pub fn encode(image: &Image) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&image.table);
    put(&mut out, image.names.len() as u64);
    for n in &image.names.list {
        put_str(&mut out, n);
    }
    let map = &image.map;
    put(&mut out, map.files.len() as u64);
    for (i, f) in map.files.iter().enumerate() {
        put(&mut out, u64::from(image.ids[i]));
        out.extend_from_slice(&map.ranks[i].to_bits().to_le_bytes());
        put_str(&mut out, &f.display);
        put_str(&mut out, &f.text);
        let mut at = 0;
        put(&mut out, f.ends.len() as u64);
        for &e in &f.ends {
            put(&mut out, u64::from(e - at));
            at = e;
        }
        let node = &image.nodes[i];
        put(&mut out, node.defs.len() as u64);
        for &(name, k) in &node.defs {
            put(&mut out, u64::from(name));
            out.push(k as u8);
        }
        put(&mut out, node.uses.len() as u64);
        for &(name, count) in &node.uses {
            put(&mut out, u64::from(name));
            put(&mut out, u64::from(count));
        }
    }
    put(&mut out, map.defs.len() as u64);
    for r in &map.defs {
        put(&mut out, r.file as u64);
        put(&mut out, r.def as u64);
        out.extend_from_slice(&r.score.to_bits().to_le_bytes());
    }
    put(&mut out, map.skipped.len() as u64);
    for (i, (display, why)) in map.skipped.iter().enumerate() {
        put(&mut out, u64::from(image.skipped_ids[i]));
        put_str(&mut out, display);
        out.push(SKIPS.iter().position(|s| s == why).unwrap_or(0) as u8);
    }
    let sum = blake3::hash(&out);
    out.extend_from_slice(sum.as_bytes());
    out
}

fn f64_of(r: &mut Reader) -> Option<f64> {
    let b: [u8; 8] = r.b.get(r.at..r.at + 8)?.try_into().ok()?;
    r.at += 8;
    Some(f64::from_bits(u64::from_le_bytes(b)))
}

/// The image `bytes` hold when they are the ranking of the symbol table whose sum is
/// `table`; `None` when not, or damaged.
pub fn decode(bytes: &[u8], table: &[u8]) -> Option<Image> {
    let body = bytes.len().checked_sub(SUM)?;
    let head = MAGIC.len() + table.len();
    if body < head || &bytes[..MAGIC.len()] != MAGIC || &bytes[MAGIC.len()..head] != table {
        return None;
    }
    if blake3::hash(&bytes[..body]).as_bytes() != &bytes[body..] {
        return None;
    }
    let mut r = Reader {
        b: &bytes[..body],
        at: head,
    };
    let mut names = Names::default();
    for _ in 0..r.len()? {
        names.intern(r.str()?);
    }
    let known = |id: u64| {
        u32::try_from(id)
            .ok()
            .filter(|&i| (i as usize) < names.len())
    };
    let n = r.len()?;
    let (mut ids, mut ranks, mut files, mut nodes) = (
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
    );
    for _ in 0..n {
        ids.push(r.u32()?);
        ranks.push(f64_of(&mut r)?);
        let display: Box<str> = r.str()?.into();
        let text = r.str()?.to_string();
        let count = r.len()?;
        let mut ends = Vec::with_capacity(count);
        let mut at = 0u32;
        for _ in 0..count {
            at = at.checked_add(r.u32()?)?;
            ends.push(at);
        }
        if at as usize > text.len() || ends.iter().any(|&e| !text.is_char_boundary(e as usize)) {
            return None;
        }
        let mut node = Node::default();
        for _ in 0..r.len()? {
            node.defs.push((known(r.int()?)?, kind(r.byte()?)?));
        }
        for _ in 0..r.len()? {
            node.uses.push((known(r.int()?)?, r.u32()?));
        }
        if node.defs.len() != ends.len() {
            return None;
        }
        files.push(Arc::new(MapFile {
            display,
            text,
            ends,
        }));
        nodes.push(node);
    }
    let count = r.len()?;
    let mut defs = Vec::with_capacity(count);
    for _ in 0..count {
        let file = usize::try_from(r.int()?).ok().filter(|&f| f < n)?;
        let def = usize::try_from(r.int()?)
            .ok()
            .filter(|&d| d < files[file].ends.len())?;
        defs.push(Ranked {
            file,
            def,
            score: f64_of(&mut r)?,
        });
    }
    let mut skipped = Vec::new();
    let mut skipped_ids = Vec::new();
    for _ in 0..r.len()? {
        skipped_ids.push(r.u32()?);
        let display: Arc<str> = r.str()?.into();
        skipped.push((display, *SKIPS.get(usize::from(r.byte()?))?));
    }
    (r.at == body).then(|| Image {
        table: table.to_vec(),
        map: Arc::new(Map {
            files,
            ranks,
            defs,
            skipped,
        }),
        nodes,
        names,
        ids,
        skipped_ids,
    })
}

/// The image persisted at `path` for the table whose sum is `table`.
pub fn load(path: &Path, table: &[u8]) -> Option<Image> {
    decode(&std::fs::read(path).ok()?, table)
}

/// Writes `image` to `dir` (errors ignored: the ranking is rebuilt when it cannot be read).
pub fn save(dir: &Path, image: &Image) {
    let _ = crate::index::image::persist_as(dir, FILE, &encode(image));
}
