//! A captured command's record (`run-<id>/run.json`): what it was shown above each overlaid
//! root, so its upper directory can be judged after the process that started it is gone.
//!
//! A monitor outlives its call, and its host may die before it does (SPEC §13, "The host
//! dies while a captured monitor runs"): then the staged tree it was shown — built in the dead
//! host's private directory from staging blobs that later stages may remove — is the one
//! thing a new tools object cannot rebuild. The record keeps it: the targets (root, prefix,
//! upper and work directories) and the staged paths, each staged file's bytes linked (or
//! copied) into `run-<id>/seen/` at the start, on the staging area's own filesystem. Written
//! only where asked ([`crate::sandbox::capture::Request::record`]): a stateless `bash`
//! call ends with its call.

use super::super::capture::CaptureError;
use super::overlay::{Run, Staged, Target};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The record's file name in the run directory.
const RECORD: &str = "run.json";

/// Writes `run`'s record into its directory (`dir`); each staged file's bytes are kept under
/// `seen/`, and the record names those copies.
pub fn save(dir: &Path, run: &Run) -> Result<(), CaptureError> {
    let seen = dir.join("seen");
    let mut n = 0usize;
    let mut targets = Vec::new();
    for t in &run.targets {
        let mut staged = Vec::new();
        for (rel, s) in &t.staged {
            staged.push(match s {
                Staged::File(source, mode) => {
                    if n == 0 {
                        std::fs::create_dir(&seen).map_err(|e| CaptureError::io(&seen, e))?;
                    }
                    let keep = seen.join(n.to_string());
                    n += 1;
                    if std::fs::hard_link(source, &keep).is_err() {
                        std::fs::copy(source, &keep).map_err(|e| CaptureError::io(&keep, e))?;
                    }
                    json!({ "rel": rel, "file": text(&keep)?, "mode": mode })
                }
                Staged::Deleted => json!({ "rel": rel, "deleted": true }),
                Staged::Dir => json!({ "rel": rel, "dir": true }),
            });
        }
        targets.push(json!({
            "root": text(&t.root)?,
            "prefix": t.prefix,
            "upper": text(&t.upper)?,
            "work": text(&t.work)?,
            "staged": staged,
        }));
    }
    let path = dir.join(RECORD);
    let body = json!({ "version": 1, "targets": targets }).to_string();
    std::fs::write(&path, body).map_err(|e| CaptureError::io(&path, e))
}

/// The run a record in `dir` describes (its scratch directories are removed when it drops).
pub fn load(dir: &Path) -> Result<Run, CaptureError> {
    let path = dir.join(RECORD);
    let bad = || CaptureError::io(&path, std::io::ErrorKind::InvalidData.into());
    let body = std::fs::read_to_string(&path).map_err(|e| CaptureError::io(&path, e))?;
    let v: Value = serde_json::from_str(&body).map_err(|_| bad())?;
    let field = |o: &Value, k: &str| o[k].as_str().map(PathBuf::from).ok_or_else(bad);
    let mut targets = Vec::new();
    for t in v["targets"].as_array().ok_or_else(bad)? {
        let mut staged = BTreeMap::new();
        for s in t["staged"].as_array().ok_or_else(bad)? {
            let rel = s["rel"].as_str().ok_or_else(bad)?.to_string();
            let what = if s["deleted"] == Value::Bool(true) {
                Staged::Deleted
            } else if s["dir"] == Value::Bool(true) {
                Staged::Dir
            } else {
                let mode = s["mode"].as_u64().and_then(|m| u32::try_from(m).ok());
                Staged::File(field(s, "file")?, mode.ok_or_else(bad)?)
            };
            staged.insert(rel, what);
        }
        targets.push(Target {
            root: field(t, "root")?,
            prefix: t["prefix"].as_str().ok_or_else(bad)?.to_string(),
            upper: field(t, "upper")?,
            work: field(t, "work")?,
            tree: None,
            staged,
        });
    }
    Ok(Run::adopted(dir, targets))
}

/// A path as the record's text (a name that is not UTF-8 cannot be recorded).
fn text(p: &Path) -> Result<&str, CaptureError> {
    p.to_str().ok_or_else(|| {
        CaptureError::io(
            p,
            std::io::Error::new(std::io::ErrorKind::InvalidData, "a path is not UTF-8"),
        )
    })
}
