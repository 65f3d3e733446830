//! Pinned directories for multi-path writes (`apply_patch`, `replace`, checkpoint restore):
//! every path's parent opened once through verified handles, and the path rewritten to go
//! through that handle for the rest of the call.

use super::{io_path, open_dir_for_write, verify_write_scope};
use crate::config::Config;
use crate::error::ToolResult;
use std::fs::File;
use std::path::{Path, PathBuf};

/// The directories of a multi-path write (apply_patch), pinned: each target's parent is opened
/// (and made, when asked) through verified handles, and the target is rewritten to a path
/// through that handle (`/proc/self/fd/<n>/<name>` on Linux), so every later path operation
/// on it — temp file, rename, hard link, unlink, rollback — lands in the verified directory
/// even if a component of the original path is swapped for a symlink meanwhile. The handles
/// live as long as the `Pins`.
#[derive(Debug, Default)]
pub struct Pins {
    dirs: Vec<(PathBuf, File)>,
    created: Vec<PathBuf>,
    names: Vec<(PathBuf, PathBuf)>,
}

impl Pins {
    /// Pins `path`'s parent directory (creating it and missing ancestors inside the root
    /// when `create` is set) and returns the path to use for `path` from now on; the path
    /// must lie in the write scope by the pinned handle ([`verify_write_scope`]). Errors
    /// carry `input`.
    pub fn pin(
        &mut self,
        config: &Config,
        path: &Path,
        input: &str,
        create: bool,
    ) -> ToolResult<PathBuf> {
        let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
            return Ok(path.to_path_buf());
        };
        let i = match self.dirs.iter().position(|(p, _)| p == parent) {
            Some(i) => i,
            None => {
                let (handle, created) = open_dir_for_write(config, parent, input, create)?;
                self.created.extend(created);
                self.dirs.push((parent.to_path_buf(), handle));
                self.dirs.len() - 1
            }
        };
        verify_write_scope(config, &self.dirs[i].1, parent, Some(name), input)?;
        let via = io_path(&self.dirs[i].1, parent).join(name);
        self.names.push((via.clone(), path.to_path_buf()));
        Ok(via)
    }

    /// The original path for a path [`Pins::pin`] returned (for messages).
    pub fn original(&self, via: &Path) -> PathBuf {
        self.names
            .iter()
            .find(|(v, _)| v == via)
            .map_or_else(|| via.to_path_buf(), |(_, p)| p.clone())
    }

    /// A function mapping any path inside a pinned directory (the target, or a temp or backup
    /// beside it) back to the workspace path, for records that must outlive the process.
    pub fn unpinner(&self) -> impl Fn(&Path) -> PathBuf + Send + Sync + 'static {
        let dirs: Vec<(PathBuf, PathBuf)> = self
            .dirs
            .iter()
            .map(|(lexical, handle)| (io_path(handle, lexical), lexical.clone()))
            .collect();
        move |p: &Path| {
            for (via, lexical) in &dirs {
                if let Ok(rest) = p.strip_prefix(via) {
                    return lexical.join(rest);
                }
            }
            p.to_path_buf()
        }
    }

    /// `text` with every pinned directory's handle path (`/proc/self/fd/<n>/…`) written as
    /// the workspace path again, for messages that outlive the call.
    pub fn unpin_text(&self, text: &str) -> String {
        let mut out = text.to_string();
        for (lexical, handle) in &self.dirs {
            let via = io_path(handle, lexical);
            if via != *lexical {
                out = out.replace(
                    &format!("{}/", via.display()),
                    &format!("{}/", lexical.display()),
                );
            }
        }
        out
    }

    /// The directories pinning created (lexical paths, in creation order).
    pub fn created(&self) -> &[PathBuf] {
        &self.created
    }

    /// Removes the directories pinning created, deepest first, if they are still empty:
    /// the rollback of a write that did not happen.
    pub fn remove_created(&self) {
        for dir in self.created.iter().rev() {
            let _ = std::fs::remove_dir(dir);
        }
    }
}
