//! The steps of a multi-file commit, and how to undo them from what is on disk.
//!
//! A [`Step`] records, for one file operation, every name it uses (target, staged temp file,
//! backup) and the identity ([`FileId`]: identity, size, mtime) each of them is expected to
//! carry. Undoing never relies on knowing which steps ran: each step looks at the disk and
//! recognises its own files by identity, so
//! [`undo`] is correct after a failure at any point, after a crash (run again from the
//! journal by [`super::journal::recover`]), and when run twice. It only ever touches the
//! paths a step names, and only when they hold the file the step expects: a file someone
//! else put there since is left alone (and reported). Size and mtime are part of the
//! identity because a filesystem may hand a freed inode number to the next new file.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::ffi::OsString;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// A path as stored in a journal: a JSON string when it is UTF-8, else `hex:<bytes>`
/// (journal paths are absolute, so a real one never starts with `hex:`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JPath(pub PathBuf);

impl Serialize for JPath {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0.to_str() {
            Some(text) if !text.starts_with("hex:") => s.serialize_str(text),
            _ => {
                let hex: String = self
                    .0
                    .as_os_str()
                    .as_encoded_bytes()
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect();
                s.serialize_str(&format!("hex:{hex}"))
            }
        }
    }
}

impl<'de> Deserialize<'de> for JPath {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<JPath, D::Error> {
        let text = String::deserialize(d)?;
        let Some(hex) = text.strip_prefix("hex:") else {
            return Ok(JPath(PathBuf::from(text)));
        };
        let bytes = (0..hex.len())
            .step_by(2)
            .map(|i| {
                hex.get(i..i + 2)
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
            })
            .collect::<Option<Vec<u8>>>()
            .ok_or_else(|| serde::de::Error::custom("bad hex path"))?;
        #[cfg(unix)]
        let os = {
            use std::os::unix::ffi::OsStringExt;
            OsString::from_vec(bytes)
        };
        // Elsewhere only UTF-8 is taken back: arbitrary bytes are not a valid encoding there.
        #[cfg(not(unix))]
        let os = OsString::from(
            String::from_utf8(bytes).map_err(|_| serde::de::Error::custom("bad hex path"))?,
        );
        Ok(JPath(PathBuf::from(os)))
    }
}

impl From<&Path> for JPath {
    fn from(p: &Path) -> JPath {
        JPath(p.to_path_buf())
    }
}

/// One staged file operation: the names it uses and the identitys they should carry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Step {
    /// `temp` (new content) is renamed over `target`; `backup` is a second name (or a copy)
    /// of the old file, made while staging.
    Modify {
        /// The file being modified.
        target: JPath,
        /// The staged new content.
        temp: JPath,
        /// `temp`'s identity (the target's once the step ran).
        temp_id: FileId,
        /// The backup of the old file.
        backup: JPath,
        /// `backup`'s identity (the old file's, unless it had to be copied).
        backup_id: FileId,
        /// The old file's identity.
        old_id: FileId,
    },
    /// `temp` is renamed to `target`, which must not exist.
    Create {
        /// The new file.
        target: JPath,
        /// The staged content.
        temp: JPath,
        /// `temp`'s identity.
        temp_id: FileId,
    },
    /// `target` is renamed to `backup` (removed once the commit succeeds).
    Delete {
        /// The file being deleted.
        target: JPath,
        /// Where it is parked until the commit is done.
        backup: JPath,
        /// Its identity.
        old_id: FileId,
    },
    /// `from` is renamed to `to`, which must not exist.
    Rename {
        /// The source.
        from: JPath,
        /// The destination.
        to: JPath,
        /// The file's identity.
        id: FileId,
    },
    /// `temp` (edited content) is renamed to `to`, then `from` is parked at `backup`.
    RenameEdit {
        /// The source.
        from: JPath,
        /// The destination.
        to: JPath,
        /// The staged content for `to`.
        temp: JPath,
        /// `temp`'s identity.
        temp_id: FileId,
        /// Where the source is parked until the commit is done.
        backup: JPath,
        /// The source's identity.
        old_id: FileId,
    },
}

impl Step {
    /// The same step with every path passed through `f` (identities unchanged).
    pub fn map_paths(&self, f: &dyn Fn(&Path) -> PathBuf) -> Step {
        let m = |p: &JPath| JPath(f(&p.0));
        match self {
            Step::Modify {
                target,
                temp,
                temp_id,
                backup,
                backup_id,
                old_id,
            } => Step::Modify {
                target: m(target),
                temp: m(temp),
                temp_id: *temp_id,
                backup: m(backup),
                backup_id: *backup_id,
                old_id: *old_id,
            },
            Step::Create {
                target,
                temp,
                temp_id,
            } => Step::Create {
                target: m(target),
                temp: m(temp),
                temp_id: *temp_id,
            },
            Step::Delete {
                target,
                backup,
                old_id,
            } => Step::Delete {
                target: m(target),
                backup: m(backup),
                old_id: *old_id,
            },
            Step::Rename { from, to, id } => Step::Rename {
                from: m(from),
                to: m(to),
                id: *id,
            },
            Step::RenameEdit {
                from,
                to,
                temp,
                temp_id,
                backup,
                old_id,
            } => Step::RenameEdit {
                from: m(from),
                to: m(to),
                temp: m(temp),
                temp_id: *temp_id,
                backup: m(backup),
                old_id: *old_id,
            },
        }
    }
}

/// What tells one file from another over time: identity, size and modification time (rename
/// keeps all three; a new file reusing a freed inode number differs in the others).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileId(pub u64, pub u64, pub i64, pub i64);

/// A path [`undo`] could not put back, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unrestored {
    /// The user's path that is not as it was.
    pub path: PathBuf,
    /// What is wrong (and where the old content is, when it still exists).
    pub detail: String,
}

/// The identity of the file at `path` (not following a symlink).
pub fn file_id(path: &Path) -> io::Result<FileId> {
    let (ino, size, s, ns) = crate::fsmeta::stamp(&fs::symlink_metadata(path)?);
    Ok(FileId(ino, size, s, ns))
}

/// The identity at `path`, or `None` when nothing can be stat'ed there.
pub fn id_at(path: &Path) -> Option<FileId> {
    file_id(path).ok()
}

/// Removes `path` only when it is still the file `want`.
fn remove_if(path: &Path, want: FileId) {
    if id_at(path) == Some(want) {
        let _ = fs::remove_file(path);
    }
}

/// `rename(2)` that fails with `EEXIST` instead of replacing an existing `to`
/// (`renameat2(RENAME_NOREPLACE)`; a check-then-rename where the filesystem lacks it).
pub fn rename_noreplace(from: &Path, to: &Path) -> io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        use std::ffi::CString;
        use std::os::unix::ffi::OsStrExt;
        let c = |p: &Path| {
            CString::new(p.as_os_str().as_bytes()).map_err(|_| crate::error::os_error(libc::EINVAL))
        };
        let (cf, ct) = (c(from)?, c(to)?);
        // SAFETY: two valid NUL-terminated paths; the syscall does not retain them.
        let r = unsafe {
            libc::syscall(
                libc::SYS_renameat2,
                libc::AT_FDCWD,
                cf.as_ptr(),
                libc::AT_FDCWD,
                ct.as_ptr(),
                libc::RENAME_NOREPLACE,
            )
        };
        if r == 0 {
            return Ok(());
        }
        let err = io::Error::last_os_error();
        if !matches!(err.raw_os_error(), Some(libc::EINVAL) | Some(libc::ENOSYS)) {
            return Err(err);
        }
    }
    if fs::symlink_metadata(to).is_ok() {
        return Err(crate::error::os_error(libc::EEXIST));
    }
    fs::rename(from, to)
}

fn problem(path: &Path, detail: impl Into<String>) -> Unrestored {
    Unrestored {
        path: path.to_path_buf(),
        detail: detail.into(),
    }
}

fn kept(backup: &Path) -> String {
    format!("its previous content is kept at {}", backup.display())
}

/// Puts the parked `backup` (identity `want`) back at `target`, which must be free.
fn restore(backup: &Path, target: &Path) -> Result<(), Unrestored> {
    rename_noreplace(backup, target).map_err(|e| {
        let why = if crate::error::errno(&e) == Some(libc::EEXIST) {
            "another file was put there since".to_string()
        } else {
            e.to_string()
        };
        problem(target, format!("{why}; {}", kept(backup)))
    })
}

fn undo_step(step: &Step) -> Result<(), Unrestored> {
    match step {
        Step::Modify {
            target,
            temp,
            temp_id,
            backup,
            backup_id,
            old_id,
        } => {
            let (target, backup) = (&target.0, &backup.0);
            remove_if(&temp.0, *temp_id);
            match id_at(target) {
                Some(cur) if cur == *temp_id => {
                    if id_at(backup) != Some(*backup_id) {
                        return Err(problem(target, "its backup is missing"));
                    }
                    // Over our own new file: a plain rename, atomic for readers.
                    crate::atomic::rename_over(backup, target)
                        .map_err(|e| problem(target, format!("{e}; {}", kept(backup))))
                }
                Some(cur) if cur == *old_id || cur == *backup_id => {
                    // Never replaced, or already restored: at most a spare name (a hard link
                    // or a copy of what the target holds) is left.
                    remove_if(backup, *backup_id);
                    Ok(())
                }
                _ if id_at(backup) == Some(*backup_id) => Err(problem(
                    target,
                    format!(
                        "it was changed since and is left as it is; {}",
                        kept(backup)
                    ),
                )),
                _ => Err(problem(target, "it was changed since and is left as it is")),
            }
        }
        Step::Create {
            target,
            temp,
            temp_id,
        } => {
            remove_if(&temp.0, *temp_id);
            remove_if(&target.0, *temp_id);
            Ok(())
        }
        Step::Delete {
            target,
            backup,
            old_id,
        } => {
            if id_at(&backup.0) == Some(*old_id) {
                restore(&backup.0, &target.0)
            } else if id_at(&target.0) == Some(*old_id) {
                Ok(())
            } else {
                Err(problem(&target.0, "the file and its backup are both gone"))
            }
        }
        Step::Rename { from, to, id: i } => {
            if id_at(&from.0) == Some(*i) {
                Ok(())
            } else if id_at(&to.0) == Some(*i) {
                rename_noreplace(&to.0, &from.0).map_err(|e| problem(&from.0, e.to_string()))
            } else {
                Err(problem(&from.0, "the renamed file is gone"))
            }
        }
        Step::RenameEdit {
            from,
            to,
            temp,
            temp_id,
            backup,
            old_id,
        } => {
            remove_if(&temp.0, *temp_id);
            remove_if(&to.0, *temp_id);
            if id_at(&from.0) == Some(*old_id) {
                Ok(())
            } else if id_at(&backup.0) == Some(*old_id) {
                restore(&backup.0, &from.0)
            } else {
                Err(problem(&from.0, "the file and its backup are both gone"))
            }
        }
    }
}

/// Undoes `steps` (in reverse) from the state of the disk, then removes the directories the
/// commit created (deepest first, only when empty). Returns what could not be restored;
/// a backup named there is kept, since it may be the only copy of the user's file.
pub fn undo(steps: &[Step], dirs: &[PathBuf]) -> Vec<Unrestored> {
    let failed: Vec<Unrestored> = steps
        .iter()
        .rev()
        .filter_map(|s| undo_step(s).err())
        .collect();
    for dir in dirs.iter().rev() {
        // Only empty directories go: something else may have been put there meanwhile.
        let _ = fs::remove_dir(dir);
    }
    failed
}

/// Removes what a successful commit no longer needs: the backups. Best effort (a leftover
/// is a stale temp file that a later write to its directory sweeps).
pub fn discard_backups(steps: &[Step]) {
    for step in steps {
        match step {
            Step::Modify {
                backup, backup_id, ..
            } => remove_if(&backup.0, *backup_id),
            Step::Delete { backup, old_id, .. } | Step::RenameEdit { backup, old_id, .. } => {
                remove_if(&backup.0, *old_id)
            }
            Step::Create { .. } | Step::Rename { .. } => {}
        }
    }
}
