//! The checks `move` and `copy` share (LATER §4), in the original's order, and the verified
//! directory handles their renames go through.

use super::Call;
use crate::atomic;
use crate::error::{Code, ToolError, ToolResult};
use crate::schema::{bool_arg, str_arg};
use crate::workspace;
use std::fs::{File, Metadata};
use std::path::{Path, PathBuf};

/// Both ends of a move or copy, checked, with their locks held.
pub struct Endpoints {
    /// The source's absolute path.
    pub src: PathBuf,
    /// The destination's absolute path.
    pub dst: PathBuf,
    /// Display paths of both.
    pub src_shown: String,
    /// See `src_shown`.
    pub dst_shown: String,
    /// The source's metadata (a regular file).
    pub src_meta: Metadata,
    /// Whether a file is replaced at the destination.
    pub overwrite: bool,
    /// A move (the source is written too), not a copy.
    moving: bool,
    _locks: atomic::PathGuard,
}

impl Endpoints {
    /// Resolves and checks `source` and `destination`, in this order:
    ///
    /// 0. with `writeScope`, the destination (and a move's source) in scope → `path_escape`;
    /// 1. the same absolute path → `invalid_input`;
    /// 2. a symlink at either end → `invalid_input` (absolute path), then a FIFO, socket or
    ///    device at either end → `not_a_file` `Not a regular file: <path>`;
    /// 3. a missing source → `not_found`, a directory → `not_a_file`;
    /// 4. a directory at the destination → `not_a_file`;
    /// 5. an existing destination without `overwrite` → `invalid_input`.
    pub fn check(call: &Call, moving: bool) -> ToolResult<Endpoints> {
        let src_in = str_arg(&call.args, "source").unwrap_or_default();
        let dst_in = str_arg(&call.args, "destination").unwrap_or_default();
        let overwrite = bool_arg(&call.args, "overwrite").unwrap_or(false);
        // A move changes its source too (it disappears); a copy only its destination.
        let src = if moving {
            workspace::resolve_write(&call.config, src_in)?
        } else {
            workspace::resolve(&call.config, src_in)?
        };
        let dst = workspace::resolve_write(&call.config, dst_in)?;
        let src_shown = workspace::display(&call.config, &src);
        let dst_shown = workspace::display(&call.config, &dst);
        if src == dst {
            return Err(ToolError::invalid(format!(
                "Source and destination are the same: {src_shown}"
            )));
        }
        let locks = atomic::lock_paths(&[src.clone(), dst.clone()]);
        let src_meta = atomic::check_target(&call.config, &src, &src_shown);
        let dst_meta = atomic::check_target(&call.config, &dst, &dst_shown);
        // A symlink at either end is refused first (LATER §4's order), then a FIFO, socket
        // or device at either end (`not_a_file`, like any writer's target).
        for e in [&src_meta, &dst_meta]
            .into_iter()
            .filter_map(|r| r.as_ref().err())
        {
            if e.code == Code::InvalidInput {
                return Err(e.clone());
            }
        }
        let (src_meta, dst_meta) = (src_meta?, dst_meta?);
        let Some(src_meta) = src_meta else {
            return Err(
                ToolError::new(Code::NotFound, format!("No such file: {src_shown}"))
                    .with("path", src_shown.as_str()),
            );
        };
        if src_meta.is_dir() {
            return Err(ToolError::new(
                Code::NotAFile,
                format!("Source is a directory (files only): {src_shown}"),
            )
            .with("path", src_shown.as_str()));
        }
        if let Some(m) = &dst_meta {
            if m.is_dir() {
                return Err(ToolError::new(
                    Code::NotAFile,
                    format!("Destination is a directory: {dst_shown}"),
                )
                .with("path", dst_shown.as_str()));
            }
            if !overwrite {
                return Err(ToolError::invalid(format!(
                    "Destination already exists: {dst_shown} (pass overwrite: true to replace it)"
                ))
                .with("path", dst_shown.as_str()));
            }
        }
        Ok(Endpoints {
            overwrite: dst_meta.is_some(),
            moving,
            src,
            dst,
            src_shown,
            dst_shown,
            src_meta,
            _locks: locks,
        })
    }

    /// Verified handles on the source's directory and the destination's (made, with any
    /// missing ancestors, when absent), and the directories that were created. The ends a
    /// call writes (the destination; a move's source) are checked against the write scope
    /// by handle.
    pub fn dirs(&self, call: &Call) -> ToolResult<(File, File, Vec<PathBuf>)> {
        let src_dir = self.src.parent().unwrap_or(Path::new("/"));
        let dst_dir = self.dst.parent().unwrap_or(Path::new("/"));
        let config = &call.config;
        let from = workspace::open_dir_confined(config, src_dir, &self.src_shown)?;
        if self.moving {
            workspace::verify_write_scope(
                config,
                &from,
                src_dir,
                self.src.file_name(),
                &self.src_shown,
            )?;
        }
        let (to, created) = workspace::open_dir_for_write(config, dst_dir, &self.dst_shown, true)?;
        workspace::verify_write_scope(config, &to, dst_dir, self.dst.file_name(), &self.dst_shown)
            .inspect_err(|_| remove_created(&created))?;
        Ok((from, to, created))
    }

    /// Review mode: stages the move or copy (no directory is made, nothing on disk changes)
    /// and returns its message; `None` when review is off.
    pub fn staged(&self, call: &Call, verb: &str) -> Option<ToolResult<String>> {
        let overlay = atomic::staging::overlay(&call.config)?;
        let result = if self.moving {
            call.before_move(&self.src, &self.dst);
            overlay.stage_move(&self.src, &self.dst, None, &self.src_shown)
        } else {
            call.before_write(std::slice::from_ref(&self.dst));
            overlay
                .current_bytes(&self.src)
                .map_err(|e| ToolError::fs(&e, &self.src_shown))
                .and_then(|bytes| overlay.stage_write(&self.dst, &bytes, &self.dst_shown))
        };
        Some(result.map(|()| self.message(verb)))
    }

    /// `<verb> <from> → <to>.` or `… (overwritten).`
    pub fn message(&self, verb: &str) -> String {
        let tail = if self.overwrite { " (overwritten)" } else { "" };
        format!(
            "{verb} {} \u{2192} {}{tail}.",
            self.src_shown, self.dst_shown
        )
    }
}

pub use crate::workspace::remove_created;

/// `abs` reached through `dir`, a verified handle on its parent (see
/// [`workspace::io_path`]): a parent swapped for a symlink cannot redirect the operation.
pub fn via(dir: &File, abs: &Path) -> PathBuf {
    let parent = abs.parent().unwrap_or(Path::new("/"));
    let base = workspace::io_path(dir, parent);
    match abs.file_name() {
        Some(name) => base.join(name),
        None => base,
    }
}
