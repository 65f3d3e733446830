//! Checking every block of a patch against the workspace and staging what it will do.
//!
//! Paths go through [`crate::workspace::resolve`] (confinement). Blocks are checked in patch
//! order and the first failing block decides the error; nothing is written here. A block
//! is a create (`--- /dev/null`), a delete (`+++ /dev/null`), a rename (two paths that are
//! not the same file) or a modify. Messages name files by their display path, except the
//! rename-destination error (absolute) and the symlink refusal (absolute).

use super::apply::{apply, Failure};
use super::FilePatch;
use crate::atomic::commit::Op;
use crate::config::Config;
use crate::eol::EditableText;
use crate::error::{Code, ToolError, ToolResult};
use crate::{atomic, text, workspace};
use std::collections::HashMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// What a block does, for the summary line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// `M <p> (+a -d)`
    Modified {
        /// Display path of the file.
        path: String,
        /// Lines added.
        added: usize,
        /// Lines removed.
        removed: usize,
    },
    /// `A <p> (+a -d)`
    Added {
        /// Display path of the file.
        path: String,
        /// Lines added.
        added: usize,
        /// Lines removed.
        removed: usize,
    },
    /// `D <p> (+a -d)`
    Deleted {
        /// Display path of the file.
        path: String,
        /// Lines added.
        added: usize,
        /// Lines removed.
        removed: usize,
    },
    /// `R <from> -> <to>`, with counts when the content changed.
    Renamed {
        /// Display path of the source.
        from: String,
        /// Display path of the destination.
        to: String,
        /// `(added, removed)` when the content changed too.
        counts: Option<(usize, usize)>,
    },
}

/// A block whose paths have been resolved.
#[derive(Debug)]
pub struct Resolved<'a> {
    block: &'a FilePatch,
    old: Option<PathBuf>,
    new: Option<PathBuf>,
    /// A resolution or duplicate-path error, raised when the block's turn comes.
    error: Option<ToolError>,
}

impl Resolved<'_> {
    /// The paths the block touches (to lock).
    pub fn paths(&self) -> impl Iterator<Item = &PathBuf> {
        self.old.iter().chain(self.new.iter())
    }
}

/// Resolves every block's paths and applies the duplicate-path rule. Errors are kept with
/// their block, so the blocks can still be reported in order.
pub fn resolve<'a>(config: &Config, blocks: &'a [FilePatch]) -> Vec<Resolved<'a>> {
    let mut claimed: HashMap<PathBuf, ()> = HashMap::new();
    let mut out = Vec::with_capacity(blocks.len());
    for block in blocks {
        let mut r = Resolved {
            block,
            old: None,
            new: None,
            error: None,
        };
        let resolved = (|| -> ToolResult<()> {
            r.old = block
                .old_path
                .as_deref()
                .map(|p| workspace::resolve_write(config, p))
                .transpose()?;
            r.new = block
                .new_path
                .as_deref()
                .map(|p| workspace::resolve_write(config, p))
                .transpose()?;
            if let (Some(old), Some(new)) = (&r.old, &r.new) {
                if same_file(old, new) {
                    r.new = Some(old.clone());
                }
            }
            let mut keys: Vec<PathBuf> = r.paths().map(|p| atomic::lock_key(p)).collect();
            keys.dedup();
            for (key, abs) in keys.into_iter().zip(r.paths()) {
                if claimed.insert(key, ()).is_some() {
                    return Err(ToolError::invalid(format!(
                        "Patch contains multiple blocks for {}; combine them into a single block.",
                        workspace::display(config, abs)
                    )));
                }
            }
            Ok(())
        })();
        r.error = resolved.err();
        out.push(r);
    }
    out
}

/// Whether two resolved paths name one file (equal, or the same inode).
fn same_file(a: &Path, b: &Path) -> bool {
    if a == b || atomic::lock_key(a) == atomic::lock_key(b) {
        return true;
    }
    match (fs::metadata(a), fs::metadata(b)) {
        (Ok(x), Ok(y)) => crate::fsmeta::identity(&x) == crate::fsmeta::identity(&y),
        _ => false,
    }
}

/// Whether a staged block deletes an existing file, or removes every line of one (replacing
/// its whole content): the blocks `staleWrites: "refuse"` checks (`crate::stale`).
pub fn replaces_whole(op: &Option<Op>, change: &Change, old_lines: usize) -> bool {
    match (op, change) {
        (Some(Op::Delete { .. }), _) => true,
        (Some(Op::Modify { .. }), Change::Modified { removed, .. }) => {
            old_lines > 0 && *removed >= old_lines
        }
        _ => false,
    }
}

/// The number of lines of the file a modify block changes (0 for other blocks), for
/// [`replaces_whole`].
pub fn old_lines(config: &Config, r: &Resolved) -> usize {
    match (&r.old, &r.new) {
        (Some(path), Some(new)) if path == new => {
            load(config, path, "").map_or(0, |t| t.terminators.len())
        }
        _ => 0,
    }
}

/// Checks one block against the disk and returns what to do and what to report.
pub fn stage(config: &Config, r: &Resolved) -> ToolResult<(Option<Op>, Change)> {
    if let Some(e) = &r.error {
        return Err(e.clone());
    }
    let show = |p: &Path| workspace::display(config, p);
    let block = r.block;
    let counts = (
        block.hunks.iter().map(|h| h.added()).sum::<usize>(),
        block.hunks.iter().map(|h| h.removed()).sum::<usize>(),
    );
    match (&r.old, &r.new) {
        (None, Some(path)) => {
            let shown = show(path);
            check_creatable(config, path, &shown)?;
            let empty = EditableText::from_str_with_bom("", false);
            let bytes = patched(&empty, block, &shown)?;
            let change = Change::Added {
                path: shown,
                added: counts.0,
                removed: counts.1,
            };
            Ok((
                Some(Op::Create {
                    path: path.clone(),
                    bytes,
                    mode: None,
                }),
                change,
            ))
        }
        (Some(path), None) => {
            let shown = show(path);
            let meta = atomic::check_target(config, path, &shown)?;
            if block.delete_whole {
                let Some(meta) = meta else {
                    return Err(ToolError::fs(&crate::error::os_error(libc::ENOENT), &shown));
                };
                if meta.is_dir() {
                    return Err(is_dir(&shown));
                }
                // Only to count the lines removed: read through a confined, non-blocking
                // descriptor (a FIFO swapped in since the check must not hang the call).
                let removed = read_regular(config, path, &shown)
                    .and_then(|b| EditableText::decode(&b, &shown, "Patching").ok())
                    .map_or(0, |t| t.terminators.len());
                let change = Change::Deleted {
                    path: shown,
                    added: 0,
                    removed,
                };
                return Ok((Some(Op::Delete { path: path.clone() }), change));
            }
            let file = load(config, path, &shown)?;
            let out = apply(&file, &block.hunks).map_err(|f| hunk_error(f, &shown))?;
            if out.lines != 0 {
                return Err(ToolError::invalid(format!(
                    "Delete patch for {shown} does not remove the entire file"
                )));
            }
            let change = Change::Deleted {
                path: shown,
                added: counts.0,
                removed: counts.1,
            };
            Ok((Some(Op::Delete { path: path.clone() }), change))
        }
        (Some(from), Some(to)) if from != to => {
            let (from_shown, to_shown) = (show(from), show(to));
            atomic::check_target(config, from, &from_shown)?;
            let meta = workspace::overlay::stat(config, from)
                .map_err(|e| ToolError::fs(&e, &from_shown))?;
            if meta.is_dir() {
                return Err(is_dir(&from_shown));
            }
            match workspace::overlay::lstat(config, to) {
                Ok(_) => {
                    let abs = to.to_string_lossy();
                    return Err(ToolError::invalid(format!(
                        "Rename destination already exists: {abs}"
                    ))
                    .with("path", abs.as_ref()));
                }
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(ToolError::fs(&e, &to_shown)),
            }
            let mut bytes = None;
            if !block.hunks.is_empty() {
                let original = text::load(config, from, &from_shown)?;
                let file = EditableText::decode(&original, &from_shown, "Patching")?;
                let new = patched(&file, block, &from_shown)?;
                if new != original {
                    bytes = Some(new);
                }
            }
            let change = Change::Renamed {
                from: from_shown,
                to: to_shown,
                counts: bytes.as_ref().map(|_| counts),
            };
            Ok((
                Some(Op::Move {
                    from: from.clone(),
                    to: to.clone(),
                    bytes,
                }),
                change,
            ))
        }
        (Some(path), Some(_)) => {
            let shown = show(path);
            atomic::check_target(config, path, &shown)?;
            let original = text::load(config, path, &shown)?;
            let file = EditableText::decode(&original, &shown, "Patching")?;
            let bytes = patched(&file, block, &shown)?;
            let op = (bytes != original).then(|| Op::Modify {
                path: path.clone(),
                bytes,
                mode: None,
            });
            Ok((
                op,
                Change::Modified {
                    path: shown,
                    added: counts.0,
                    removed: counts.1,
                },
            ))
        }
        (None, None) => Err(super::missing_path()),
    }
}

/// The whole content of the regular file at `path`, read through a confined, non-blocking
/// descriptor; `None` when it cannot be read or is not a regular file.
fn read_regular(config: &Config, path: &Path, shown: &str) -> Option<Vec<u8>> {
    use std::io::Read;
    let file = workspace::open_confined(config, path, shown).ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut bytes = Vec::new();
    (&file).read_to_end(&mut bytes).ok()?;
    Some(bytes)
}

fn load(config: &Config, path: &Path, shown: &str) -> ToolResult<EditableText> {
    let bytes = text::load(config, path, shown)?;
    EditableText::decode(&bytes, shown, "Patching")
}

fn patched(file: &EditableText, block: &FilePatch, shown: &str) -> ToolResult<Vec<u8>> {
    apply(file, &block.hunks)
        .map(|a| a.bytes)
        .map_err(|f| hunk_error(f, shown))
}

fn hunk_error(failure: Failure, shown: &str) -> ToolError {
    let e = ToolError::new(
        Code::PatchFailed,
        format!("Hunk did not apply cleanly in {shown}"),
    )
    .with("file", shown);
    match failure {
        Failure::Hunk(k) => e.with("hunk", k),
        Failure::Block => e,
    }
}

fn is_dir(shown: &str) -> ToolError {
    ToolError::new(Code::NotAFile, format!("Path is a directory: {shown}")).with("path", shown)
}

/// A create target must not exist, and no ancestor may be a file. A FIFO, socket or device
/// there is `not_a_file`, as for every writer.
fn check_creatable(config: &Config, path: &Path, shown: &str) -> ToolResult<()> {
    match workspace::overlay::lstat(config, path) {
        Ok(m) if m.is_dir() => Err(is_dir(shown)),
        Ok(m) if !m.is_file() && !m.file_type().is_symlink() => Err(ToolError::not_regular(shown)),
        Ok(_) => Err(ToolError::invalid(format!(
            "Cannot create {shown}: a file already exists there. Use a modify hunk with context, or delete it first."
        ))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            // `lstat` says ENOENT both for a missing parent and for a missing leaf; a file
            // used as a directory on the way shows up as ENOTDIR on the nearest ancestor.
            let mut cur = path.parent();
            while let Some(dir) = cur {
                match fs::metadata(dir) {
                    Ok(m) if m.is_dir() => return Ok(()),
                    Ok(_) => return Err(ToolError::fs(&crate::error::os_error(libc::ENOTDIR), shown)),
                    Err(_) => cur = dir.parent(),
                }
            }
            Ok(())
        }
        Err(e) => Err(ToolError::fs(&e, shown)),
    }
}
