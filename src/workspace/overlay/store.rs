//! The staging area on disk: `manifest.json` (the entries) and `blobs/<n>` (staged bytes).
//!
//! A blob is written under a fresh name before the manifest that names it, and the manifest
//! is replaced by a rename, so a reader (or a restarted host) sees a whole state, old or
//! new. Neither is fsynced: the staging area must survive the host's restart, not a power
//! loss (then a blob whose length no longer matches drops its entry on load), and the two
//! fsyncs would cost a staged edit more than the direct write it replaces.

use super::{Base, Entry, Staged, State};
use crate::config::Config;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::Path;

/// The manifest's file name in the scope's directory.
pub(super) const MANIFEST: &str = "manifest.json";

/// Makes `<dir>/blobs` (inside the root, never through a symlink) and `.clarvis/.gitignore`.
pub(super) fn make_dirs(config: &Config, dir: &Path) -> io::Result<()> {
    let fail = |e: crate::error::ToolError| io::Error::other(e.message);
    let blobs = dir.join("blobs");
    super::super::open_dir_for_write(config, &blobs, ".clarvis", true).map_err(fail)?;
    if let Some(clarvis) = dir.ancestors().nth(2) {
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(clarvis.join(".gitignore"))
        {
            let _ = f.write_all(b"*\n");
        }
    }
    Ok(())
}

/// What the disk holds at `abs` now (`lstat`: a symlink or special file is [`Base::Absent`]
/// for staging; `accept` refuses it as a conflict).
pub(super) fn base_of(abs: &Path) -> io::Result<Base> {
    match std::fs::symlink_metadata(abs) {
        Ok(m) if m.is_file() => {
            let bytes = std::fs::read(abs)?;
            Ok(Base::File {
                hash: blake3::hash(&bytes).to_hex().to_string(),
                len: bytes.len() as u64,
                mode: crate::fsmeta::mode(&m),
            })
        }
        Ok(_) => Ok(Base::Absent),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Base::Absent),
        Err(e) if crate::error::errno(&e) == Some(libc::ENOTDIR) => Ok(Base::Absent),
        Err(e) => Err(e),
    }
}

/// Writes a new blob (never over an existing one).
pub(super) fn write_blob(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)?;
    f.write_all(bytes)
}

/// Replaces the manifest with `entries`.
pub(super) fn save(
    dir: &Path,
    entries: &BTreeMap<String, Entry>,
    next_blob: u64,
) -> io::Result<()> {
    let list: Vec<Value> = entries
        .iter()
        .map(|(path, e)| {
            let mut o = json!({ "path": path, "base": base_json(&e.base) });
            match &e.staged {
                Staged::Write { blob, len, hash } => {
                    o["blob"] = json!(blob);
                    o["len"] = json!(len);
                    o["hash"] = json!(hash);
                }
                Staged::Delete => o["delete"] = json!(true),
                Staged::Dir => o["dir"] = json!(true),
            }
            if let Some(from) = &e.from {
                o["from"] = json!(from);
            }
            o
        })
        .collect();
    let text = json!({ "version": 1, "nextBlob": next_blob, "entries": list }).to_string();
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let temp = dir.join(format!(".manifest-{}-{n}", std::process::id()));
    std::fs::write(&temp, text)?;
    // Windows: another process of the scope may be reading the manifest just then (a sharing
    // violation); the rename waits that out as every replacing write does.
    crate::busy::rename_over(&temp, &dir.join(MANIFEST)).inspect_err(|_| {
        let _ = std::fs::remove_file(&temp);
    })
}

fn base_json(b: &Base) -> Value {
    match b {
        Base::Absent => Value::Null,
        Base::File { hash, len, mode } => json!({ "hash": hash, "len": len, "mode": mode }),
    }
}

/// The persisted state; an entry whose blob is missing or of the wrong length is dropped (a
/// power loss after the manifest, or someone's hands in `.clarvis/`). A missing or corrupt
/// manifest is an empty staging area.
pub(super) fn load(dir: &Path) -> State {
    // Stamped before reading: a manifest replaced meanwhile is read again at the next call.
    let stamp = super::sync::stamp(dir);
    let Ok(text) = std::fs::read_to_string(dir.join(MANIFEST)) else {
        return State::default();
    };
    let Ok(v) = serde_json::from_str::<Value>(&text) else {
        return State::default();
    };
    let mut state = State {
        next_blob: v["nextBlob"].as_u64().unwrap_or(0),
        stamp,
        ..State::default()
    };
    let entries = v["entries"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|e| entry_of(dir, e))
        .collect();
    state.set_entries(dir, entries);
    state
}

fn entry_of(dir: &Path, e: &Value) -> Option<(String, Entry)> {
    let path = e["path"].as_str()?.to_string();
    if path
        .split('/')
        .any(|c| c.is_empty() || c == "." || c == "..")
    {
        return None;
    }
    let base = match &e["base"] {
        Value::Null => Base::Absent,
        b => Base::File {
            hash: b["hash"].as_str()?.to_string(),
            len: b["len"].as_u64()?,
            mode: u32::try_from(b["mode"].as_u64()?).ok()?,
        },
    };
    let staged = if e["delete"] == Value::Bool(true) {
        Staged::Delete
    } else if e["dir"] == Value::Bool(true) {
        Staged::Dir
    } else {
        let blob = e["blob"].as_str()?.to_string();
        let len = e["len"].as_u64()?;
        if !blob.bytes().all(|b| b.is_ascii_digit())
            || std::fs::symlink_metadata(dir.join("blobs").join(&blob))
                .ok()?
                .len()
                != len
        {
            return None;
        }
        Staged::Write {
            blob,
            len,
            hash: e["hash"].as_str()?.to_string(),
        }
    };
    let from = e["from"].as_str().map(str::to_string);
    Some((path, Entry { staged, base, from }))
}
