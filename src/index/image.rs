//! Writing an index image (the layout is described in [`super::store`]): serialised in
//! memory, then persisted atomically.

use super::lists::Merged;
use super::store::{Entry, GRAM, HEADER, MAGIC, NONE, REC, SUM};
use crate::pool::threads;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Serialises an index: `files` and `dirs` sorted by path, `lists` the posting lists, whose
/// ids are positions in `files`.
/// `max_file_bytes` is the limit the content was read under (an image built under another
/// limit is not used); `build_ms` is reported by the status.
pub fn image(
    files: &[Entry],
    dirs: &[Entry],
    lists: &Merged,
    max_file_bytes: u64,
    build_ms: u64,
) -> Vec<u8> {
    let paths_len: usize = files.iter().chain(dirs).map(|e| e.path.len()).sum();
    let grams = &lists.table;
    let tables = HEADER + (files.len() + dirs.len()) * REC + grams.len() * GRAM;
    // Everything before the posting lists.
    let mut head = Vec::with_capacity(tables + paths_len);
    let post_off = tables + paths_len;
    head.extend_from_slice(MAGIC);
    for v in [
        files.len() as u64,
        dirs.len() as u64,
        grams.len() as u64,
        tables as u64,
        post_off as u64,
        max_file_bytes,
        build_ms,
    ] {
        head.extend_from_slice(&v.to_le_bytes());
    }
    head.resize(HEADER, 0);
    let (reps, next) = groups(files);
    let mut path_at = tables as u64;
    for (i, e) in files.iter().chain(dirs).enumerate() {
        head.extend_from_slice(&path_at.to_le_bytes());
        head.extend_from_slice(&(e.path.len() as u32).to_le_bytes());
        head.extend_from_slice(&e.flags.to_le_bytes());
        head.extend_from_slice(&e.stamp.size.to_le_bytes());
        head.extend_from_slice(&e.stamp.mtime.to_le_bytes());
        head.extend_from_slice(&e.stamp.ctime.to_le_bytes());
        head.extend_from_slice(&e.stamp.ino.to_le_bytes());
        head.extend_from_slice(&reps.get(i).copied().unwrap_or(NONE).to_le_bytes());
        head.extend_from_slice(&next.get(i).copied().unwrap_or(NONE).to_le_bytes());
        path_at += e.path.len() as u64;
    }
    let mut at = post_off as u64;
    for &(g, count, len) in grams {
        head.extend_from_slice(&g.to_le_bytes());
        head.extend_from_slice(&count.to_le_bytes());
        head.extend_from_slice(&at.to_le_bytes());
        at += len;
    }
    for e in files.iter().chain(dirs) {
        head.extend_from_slice(&e.path);
    }
    // The posting lists are written in place by several threads (`Merged::write_into`);
    // the zeroed buffer costs nothing up front (fresh pages), and each thread takes the
    // page faults of its own part.
    let mut image = vec![0u8; head.len() + lists.bytes_len() + SUM];
    image[..head.len()].copy_from_slice(&head);
    let at = image.len() - SUM;
    let (body, sum) = image.split_at_mut(at);
    let threads = if lists.bytes_len() < 4 << 20 {
        1
    } else {
        threads()
    };
    lists.write_into(&mut body[head.len()..], threads);
    sum.copy_from_slice(blake3::hash(body).as_bytes());
    image
}

/// Per file: the id whose postings describe it (itself unless it is a duplicate), and the
/// next file of its group — a chain from the representative through its duplicates in
/// ascending id order, which a query walks to expand a posted id to every file with that
/// content.
fn groups(files: &[Entry]) -> (Vec<u32>, Vec<u32>) {
    let n = files.len();
    let reps: Vec<u32> = files
        .iter()
        .enumerate()
        .map(|(i, e)| {
            if (e.rep as usize) < n {
                e.rep
            } else {
                i as u32
            }
        })
        .collect();
    let mut next = vec![NONE; n];
    let mut tail: Vec<u32> = (0..n as u32).collect();
    for (i, &rep) in reps.iter().enumerate() {
        if rep as usize != i {
            next[tail[rep as usize] as usize] = i as u32;
            tail[rep as usize] = i as u32;
        }
    }
    (reps, next)
}

/// Writes `bytes` atomically to `dir/grep.idx` (temp file, fsync, rename), creating `dir`
/// and a `.gitignore` in `.clarvis/` (git must not see the index).
pub fn persist(dir: &Path, bytes: &[u8]) -> io::Result<PathBuf> {
    persist_as(dir, "grep.idx", bytes)
}

/// [`persist`] under another file name (what is kept beside the postings: `symbols.idx`).
pub fn persist_as(dir: &Path, name: &str, bytes: &[u8]) -> io::Result<PathBuf> {
    // Never `create_dir_all`: the write may finish after the workspace was deleted (it runs
    // after the index is ready), and must not bring the workspace's directory back.
    for d in dir.parent().into_iter().chain([dir]) {
        match std::fs::create_dir(d) {
            Err(e) if e.kind() != io::ErrorKind::AlreadyExists => return Err(e),
            _ => {}
        }
    }
    if let Some(clarvis) = dir.parent() {
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(clarvis.join(".gitignore"))
        {
            let _ = f.write_all(b"*\n");
        }
    }
    let target = dir.join(name);
    let (tmp, mut file) = crate::atomic::create_temp(dir)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    std::fs::rename(tmp.path(), &target)?;
    tmp.keep();
    Ok(target)
}
