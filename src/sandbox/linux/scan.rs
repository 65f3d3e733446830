//! Reads a captured command's upper directory back as changes (the rule is in
//! [`crate::sandbox::capture`]).
//!
//! The upper directory holds exactly what the command changed, in overlayfs's format: a
//! file or directory it made or copied up, a whiteout (a `0:0` character device) where it
//! removed something, and `user.overlay.opaque = "y"` on a directory that replaced one (its
//! lower contents are gone). Each entry is judged against what the command saw there before
//! — the *lower view*: the staged tree over the disk — so a copied-up file with unchanged
//! bytes and mode (`touch`) is no change, and a removed directory is the removal of every
//! file the command saw in it.

use super::super::capture::{CaptureError, Change, Refusal};
use super::overlay::{Staged, Target};
use std::collections::BTreeSet;
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

/// What the command saw at a path before it ran.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Seen {
    Nothing,
    /// A regular file: its bytes there, its permission bits.
    File(PathBuf, u32),
    Dir,
    Symlink,
    Special,
}

/// The lower view of one target: the staged tree over the disk.
struct Lower<'a> {
    t: &'a Target,
}

fn join(rel: &str, name: &str) -> String {
    if rel.is_empty() {
        name.to_string()
    } else {
        format!("{rel}/{name}")
    }
}

impl Lower<'_> {
    fn seen(&self, rel: &str) -> Seen {
        if let Some(s) = self.t.staged.get(rel) {
            return match s {
                Staged::File(p, mode) => Seen::File(p.clone(), *mode),
                Staged::Deleted => Seen::Nothing,
                Staged::Dir => Seen::Dir,
            };
        }
        // A staged file above `rel` hides whatever the disk holds beneath.
        let mut at = rel;
        while let Some((parent, _)) = at.rsplit_once('/') {
            if matches!(self.t.staged.get(parent), Some(Staged::File(..))) {
                return Seen::Nothing;
            }
            at = parent;
        }
        // The staged tree makes the directories of its files.
        let dir = format!("{rel}/");
        let staged_dir = self
            .t
            .staged
            .range(dir.clone()..)
            .next()
            .is_some_and(|(k, s)| {
                k.starts_with(&dir) && matches!(s, Staged::File(..) | Staged::Dir)
            });
        let disk = self.disk(rel);
        if staged_dir {
            return Seen::Dir;
        }
        disk
    }

    /// What the disk holds at `rel`, never through a symbolic link.
    fn disk(&self, rel: &str) -> Seen {
        let mut at = self.t.root.clone();
        let parts: Vec<&str> = rel.split('/').collect();
        for (i, part) in parts.iter().enumerate() {
            at.push(part);
            let Ok(m) = std::fs::symlink_metadata(&at) else {
                return Seen::Nothing;
            };
            let ft = m.file_type();
            if i + 1 < parts.len() {
                if !ft.is_dir() {
                    return Seen::Nothing;
                }
                continue;
            }
            return if ft.is_file() {
                Seen::File(at, m.mode() & 0o7777)
            } else if ft.is_dir() {
                Seen::Dir
            } else if ft.is_symlink() {
                Seen::Symlink
            } else {
                Seen::Special
            };
        }
        Seen::Nothing
    }

    /// The names the command saw in the directory `rel`.
    fn children(&self, rel: &str) -> BTreeSet<String> {
        let mut names = BTreeSet::new();
        if self.disk(rel) == Seen::Dir {
            let dir = if rel.is_empty() {
                self.t.root.clone()
            } else {
                self.t.root.join(rel)
            };
            if let Ok(rd) = std::fs::read_dir(&dir) {
                for e in rd.flatten() {
                    names.insert(e.file_name().to_string_lossy().into_owned());
                }
            }
        }
        let prefix = if rel.is_empty() {
            String::new()
        } else {
            format!("{rel}/")
        };
        for k in self.t.staged.range(prefix.clone()..) {
            let Some(rest) = k.0.strip_prefix(&prefix) else {
                break;
            };
            names.insert(rest.split('/').next().unwrap_or(rest).to_string());
        }
        names.retain(|n| self.seen(&join(rel, n)) != Seen::Nothing);
        names
    }

    /// The removal of what the command saw at `rel`.
    fn removed(&self, rel: &str, seen: &Seen, out: &mut Vec<Change>) {
        match seen {
            Seen::Nothing => {}
            Seen::File(..) => out.push(Change::Delete { rel: rel.into() }),
            Seen::Symlink => out.push(Change::Refused {
                rel: rel.into(),
                why: Refusal::SymlinkRemoved,
            }),
            Seen::Special => out.push(Change::Refused {
                rel: rel.into(),
                why: Refusal::Special,
            }),
            Seen::Dir => {
                for name in self.children(rel) {
                    let child = join(rel, &name);
                    let s = self.seen(&child);
                    self.removed(&child, &s, out);
                }
            }
        }
    }
}

fn is_whiteout(m: &std::fs::Metadata) -> bool {
    m.file_type().is_char_device() && m.rdev() == 0
}

fn is_opaque(p: &Path) -> bool {
    let Ok(c) = std::ffi::CString::new(p.as_os_str().as_bytes()) else {
        return false;
    };
    let mut buf = [0u8; 4];
    // SAFETY: reads at most `buf.len()` bytes into `buf`.
    let n = unsafe {
        libc::lgetxattr(
            c.as_ptr(),
            c"user.overlay.opaque".as_ptr(),
            buf.as_mut_ptr().cast(),
            buf.len(),
        )
    };
    n == 1 && buf[0] == b'y'
}

/// Whether two files hold the same bytes.
fn same_bytes(a: &Path, b: &Path) -> Result<bool, CaptureError> {
    let open = |p: &Path| std::fs::File::open(p).map_err(|e| CaptureError::io(p, e));
    let (mut fa, mut fb) = (open(a)?, open(b)?);
    let len = |f: &std::fs::File, p: &Path| {
        f.metadata()
            .map(|m| m.len())
            .map_err(|e| CaptureError::io(p, e))
    };
    if len(&fa, a)? != len(&fb, b)? {
        return Ok(false);
    }
    let (mut ba, mut bb) = (vec![0u8; 64 * 1024], vec![0u8; 64 * 1024]);
    loop {
        let n = fa.read(&mut ba).map_err(|e| CaptureError::io(a, e))?;
        if n == 0 {
            return Ok(true);
        }
        fb.read_exact(&mut bb[..n])
            .map_err(|e| CaptureError::io(b, e))?;
        if ba[..n] != bb[..n] {
            return Ok(false);
        }
    }
}

/// Appends the changes in `t`'s upper directory to `out` (workspace-relative paths).
pub fn scan(t: &Target, out: &mut Vec<Change>) -> Result<(), CaptureError> {
    let lower = Lower { t };
    let mut mine = Vec::new();
    walk(&lower, &t.upper, "", true, &mut mine)?;
    for mut c in mine {
        if !t.prefix.is_empty() {
            let full = join(&t.prefix, c.rel());
            match &mut c {
                Change::Write { rel, .. }
                | Change::Mode { rel, .. }
                | Change::Delete { rel }
                | Change::Dir { rel }
                | Change::Refused { rel, .. } => *rel = full,
            }
        }
        out.push(c);
    }
    Ok(())
}

fn walk(
    lower: &Lower<'_>,
    dir: &Path,
    rel: &str,
    visible: bool,
    out: &mut Vec<Change>,
) -> Result<(), CaptureError> {
    let mut entries: Vec<(String, PathBuf)> = std::fs::read_dir(dir)
        .map_err(|e| CaptureError::io(dir, e))?
        .map(|e| {
            e.map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
                .map_err(|e| CaptureError::io(dir, e))
        })
        .collect::<Result<_, _>>()?;
    entries.sort();
    for (name, path) in entries {
        let rel = join(rel, &name);
        let m = std::fs::symlink_metadata(&path).map_err(|e| CaptureError::io(&path, e))?;
        let seen = if visible {
            lower.seen(&rel)
        } else {
            Seen::Nothing
        };
        let ft = m.file_type();
        if is_whiteout(&m) {
            lower.removed(&rel, &seen, out);
        } else if ft.is_dir() {
            let opaque = is_opaque(&path);
            if seen != Seen::Dir {
                lower.removed(&rel, &seen, out);
                out.push(Change::Dir { rel: rel.clone() });
            } else if opaque {
                // Replaced: what the command saw inside and did not make again is gone.
                let kept: BTreeSet<String> = std::fs::read_dir(&path)
                    .map_err(|e| CaptureError::io(&path, e))?
                    .flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect();
                for n in lower.children(&rel).difference(&kept) {
                    let child = join(&rel, n);
                    let s = lower.seen(&child);
                    lower.removed(&child, &s, out);
                }
            }
            walk(lower, &path, &rel, seen == Seen::Dir && !opaque, out)?;
        } else if ft.is_file() {
            let mode = m.mode() & 0o7777;
            match seen {
                Seen::File(before, old_mode) => {
                    if !same_bytes(&before, &path)? {
                        out.push(Change::Write {
                            rel,
                            source: path,
                            mode,
                            created: false,
                        });
                    } else if mode != old_mode {
                        out.push(Change::Mode { rel, mode });
                    }
                }
                Seen::Symlink => out.push(Change::Refused {
                    rel,
                    why: Refusal::ReplacesSymlink,
                }),
                other => {
                    if other == Seen::Dir {
                        lower.removed(&rel, &other, out);
                    }
                    out.push(Change::Write {
                        rel,
                        source: path,
                        mode,
                        created: true,
                    });
                }
            }
        } else {
            let why = if ft.is_symlink() {
                Refusal::Symlink {
                    target: std::fs::read_link(&path).unwrap_or_default(),
                }
            } else {
                Refusal::Special
            };
            // The path itself keeps what it held; a directory it replaced is still gone.
            if seen == Seen::Dir {
                lower.removed(&rel, &seen, out);
            }
            out.push(Change::Refused { rel, why });
        }
    }
    Ok(())
}
