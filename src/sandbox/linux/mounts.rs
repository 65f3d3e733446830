//! The mount plan: what the sandbox's private mount namespace changes, built in the host (it
//! reads the disk, creates placeholders and allocates) and applied by a child that may only
//! make raw system calls.
//!
//! In order: every mount is made read-only (so that outside the roots not even metadata —
//! modes, owners, timestamps, extended attributes, which Landlock does not govern — can
//! change; `/proc` stays writable); every writable root is bound onto itself and made writable
//! again (a mount point cannot be renamed or removed, so `mv <root> x` cannot swap the
//! protected paths away); every protected path is
//! bound read-only onto itself, after its ancestors inside the root were bound onto themselves
//! for the same reason (`mv .git .git2` fails with `EBUSY`); a protected path that does not
//! exist gets a placeholder (an empty directory, or a file where a directory would break
//! something: `placeholder_is_file`) so that it cannot be created either, removed by the
//! janitor once no sandboxed process is left (`super::janitor`); credentials and host sockets
//! (`/run`, `$XDG_RUNTIME_DIR`) are covered by an empty read-only directory or file; and
//! `/tmp` and `/dev/shm` become the private temporary directory, with the workspace and the
//! writable roots under `/tmp` moved back to their places.

use super::super::layout::Layout;
use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// One step, with every string already a C string.
#[derive(Debug)]
pub enum Step {
    /// `mount --bind src dst` (recursive when `rec`), then, with `remount`, a remount of the
    /// new mount with those flags (read-only, plus the flags the kernel locks).
    Bind {
        /// What to show.
        src: CString,
        /// Where.
        dst: CString,
        /// Recursive (`MS_REC`).
        rec: bool,
        /// Remount flags, when the bind is made read-only.
        remount: Option<libc::c_ulong>,
    },
    /// A detached recursive copy of the tree at `path` (`open_tree(OPEN_TREE_CLONE)`), kept
    /// in `slot` until a [`Step::Move`] attaches it again.
    Clone {
        /// The tree.
        path: CString,
        /// Where the descriptor is kept.
        slot: usize,
    },
    /// Attaches the tree in `slot` at `dst` (`move_mount`).
    Move {
        /// The slot a [`Step::Clone`] filled.
        slot: usize,
        /// Where.
        dst: CString,
    },
    /// Makes the mount at `path` read-only (`ro`) or writable again (`mount_setattr`), with
    /// every mount beneath it when `recursive`.
    ReadOnly {
        /// The mount.
        path: CString,
        /// Read-only (or writable again).
        ro: bool,
        /// Every mount beneath too.
        recursive: bool,
    },
    /// Mounts an overlay at `dst` (review mode's capture, see [`super::overlay`]): `lowers`
    /// from the topmost down, `upper` and `work` for what is written (`fsopen("overlay")`,
    /// one `lowerdir+` per layer so no path needs escaping, `userxattr`, then `fsmount` and
    /// `move_mount`), with `attrs` (`MOUNT_ATTR_*`) on the new mount.
    Overlay {
        /// Where.
        dst: CString,
        /// The read-only layers, topmost first.
        lowers: Vec<CString>,
        /// Where writes land.
        upper: CString,
        /// Overlayfs's scratch directory (same filesystem as `upper`).
        work: CString,
        /// `MOUNT_ATTR_*` flags of the new mount.
        attrs: u64,
    },
}

/// The most trees kept aside at once (a fixed array in the child: no allocation there).
pub const SLOTS: usize = 16;

/// What the plan created on the host and must remove later, and what it relies on.
#[derive(Debug, Default)]
pub struct Plan {
    /// The steps, in order.
    pub steps: Vec<Step>,
    /// Placeholders created for missing protected paths (removed when the sandbox is dropped).
    pub placeholders: Vec<PathBuf>,
    /// `(path, dev, ino)` of every path the plan's mounts sit on: if one changes (the host
    /// removed or replaced it), the namespace is rebuilt.
    pub anchors: Vec<(PathBuf, u64, u64)>,
    /// Whether `/tmp` shows the private directory.
    pub private_tmp: bool,
}

fn cstr(p: &Path) -> io::Result<CString> {
    CString::new(p.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a path holds a NUL byte"))
}

/// The flags a read-only remount of the mount holding `p` must carry: a remount in a user
/// namespace may not clear `nosuid`, `nodev`, `noexec` or the atime flags of a mount it did
/// not make.
fn ro_flags(p: &Path) -> libc::c_ulong {
    let mut flags = libc::MS_BIND | libc::MS_REMOUNT | libc::MS_RDONLY;
    if let (Ok(c), true) = (cstr(p), true) {
        // SAFETY: `st` is a plain C struct the kernel fills.
        let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
        if unsafe { libc::statvfs(c.as_ptr(), &mut st) } == 0 {
            for (st_flag, ms) in [
                (libc::ST_NOSUID, libc::MS_NOSUID),
                (libc::ST_NODEV, libc::MS_NODEV),
                (libc::ST_NOEXEC, libc::MS_NOEXEC),
                (libc::ST_NOATIME, libc::MS_NOATIME),
                (libc::ST_NODIRATIME, libc::MS_NODIRATIME),
                (libc::ST_RELATIME, libc::MS_RELATIME),
            ] {
                if st.f_flag & st_flag != 0 {
                    flags |= ms;
                }
            }
        }
    }
    flags
}

/// Whether the mount holding `p` is read-only on the host (then it stays so: the flag is
/// locked for a user namespace).
fn mounted_ro(p: &Path) -> bool {
    let Ok(c) = cstr(p) else {
        return false;
    };
    // SAFETY: `st` is a plain C struct the kernel fills.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    unsafe { libc::statvfs(c.as_ptr(), &mut st) == 0 && st.f_flag & libc::ST_RDONLY != 0 }
}

/// The private directory's parts: `tmp` (shown as `/tmp`), `shm` (`/dev/shm`), an empty
/// directory and an empty file (shown over what is hidden).
pub struct Private<'a> {
    /// Shown as `/tmp`.
    pub tmp: &'a Path,
    /// Shown as `/var/tmp`.
    pub var_tmp: &'a Path,
    /// Shown as `/dev/shm`.
    pub shm: &'a Path,
    /// An empty read-only directory.
    pub empty_dir: &'a Path,
    /// An empty read-only file.
    pub empty_file: &'a Path,
}

impl Plan {
    fn anchor(&mut self, p: &Path) {
        if let Ok(m) = std::fs::symlink_metadata(p) {
            self.anchors.push((p.to_path_buf(), m.dev(), m.ino()));
        }
    }

    fn bind(&mut self, src: &Path, dst: &Path, rec: bool, ro: bool) -> io::Result<()> {
        // The whole tree is read-only first (`plan`): a writable bind is remounted without
        // `MS_RDONLY`, a read-only one with it.
        let remount = Some(if ro || mounted_ro(src) {
            ro_flags(src)
        } else {
            ro_flags(src) & !libc::MS_RDONLY
        });
        self.steps.push(Step::Bind {
            src: cstr(src)?,
            dst: cstr(dst)?,
            rec,
            remount,
        });
        self.anchor(dst);
        Ok(())
    }

    /// Whether every anchor is still the object the plan was built on.
    pub fn current(&self) -> bool {
        self.anchors.iter().all(|(p, dev, ino)| {
            std::fs::symlink_metadata(p).is_ok_and(|m| m.dev() == *dev && m.ino() == *ino)
        })
    }
}

/// Whether the placeholder of a missing protected file (`rel` in `root`) is an empty file:
/// inside `.git` (git never adds what lies there) or in a root that is the home directory
/// (shells and git read their start-up files there, and a directory in their place would
/// break them while it exists). Elsewhere it is an empty directory, which `git add -A` and
/// `git status` ignore — a sandboxed `git add -A` must not commit the sandbox's placeholders
/// — and which refuses a write as well (`EISDIR`, and its mount is read-only).
fn placeholder_is_file(rel: &Path, root: &Path, home: Option<&Path>) -> bool {
    rel.starts_with(".git") || home == Some(root)
}

/// Builds the plan for `layout`, holding (and creating) the placeholders it needs; on an
/// error they are let go again.
pub fn plan(layout: &Layout, private: &Private<'_>) -> io::Result<Plan> {
    plan_over(layout, private, Vec::new())
}

/// [`plan`] with `first` applied before everything else: review mode's overlays, mounted
/// over the writable roots while the host's mounts are still writable (their upper
/// directories live there), so that every later step — the whole tree read-only, the roots
/// writable again, the protected paths read-only — applies to the overlaid view.
pub fn plan_over(layout: &Layout, private: &Private<'_>, first: Vec<Step>) -> io::Result<Plan> {
    let mut plan = Plan {
        steps: first,
        ..Plan::default()
    };
    match fill(&mut plan, layout, private) {
        Ok(()) => Ok(plan),
        Err(e) => {
            super::janitor::release(&plan.placeholders);
            Err(e)
        }
    }
}

fn fill(plan: &mut Plan, layout: &Layout, private: &Private<'_>) -> io::Result<()> {
    // Every mount read-only, so that outside the writable roots not even what Landlock does
    // not govern — chmod, chown, timestamps, extended attributes — can change; the roots
    // and the private directories are made writable again by their binds below. /proc stays
    // writable where it was (`/proc/self/oom_score_adj`, `comm`, …: the process's own
    // settings; the rest of /proc is guarded by Landlock's ptrace scoping and permissions).
    plan.steps.push(Step::ReadOnly {
        path: c"/".to_owned(),
        ro: true,
        recursive: true,
    });
    if !mounted_ro(Path::new("/proc")) {
        plan.steps.push(Step::ReadOnly {
            path: c"/proc".to_owned(),
            ro: false,
            recursive: false,
        });
    }
    let mut bound: Vec<PathBuf> = Vec::new();
    for root in layout.writable.iter().filter(|r| r.is_dir()) {
        plan.bind(root, root, true, false)?;
        bound.push(root.clone());
    }
    let mut protected = layout.protected.clone();
    protected.sort_by_key(|p| p.path.components().count());
    let home = layout
        .home
        .as_ref()
        .and_then(|h| std::fs::canonicalize(h).ok());
    for p in &protected {
        let Ok(rel) = p.path.strip_prefix(&p.root) else {
            continue;
        };
        if !p.root.is_dir() {
            continue;
        }
        // Walk down from the root: ancestors become mount points; the first missing
        // component gets a placeholder (or is one already: ours from an earlier walk, which
        // covers what lies beneath, or another sandbox's, shared); a file or a link on the
        // way ends the walk there.
        let mut at = p.root.clone();
        let parts: Vec<_> = rel.components().collect();
        for (i, part) in parts.iter().enumerate() {
            at.push(part);
            let last = i + 1 == parts.len();
            if plan.placeholders.contains(&at) {
                break;
            }
            let file = last && !p.dir && placeholder_is_file(rel, &p.root, home.as_deref());
            if super::janitor::hold(&at, !file)? {
                plan.placeholders.push(at.clone());
                plan.bind(&at, &at, false, true)?;
                break;
            }
            match std::fs::symlink_metadata(&at) {
                Err(e) => return Err(e),
                Ok(m) if m.file_type().is_symlink() => {
                    // A link planted by the host: its target is protected where it is
                    // writable (the link itself cannot carry a mount).
                    if let Ok(target) = std::fs::canonicalize(&at) {
                        if layout.writable.iter().any(|r| target.starts_with(r)) {
                            plan.bind(&target, &target, true, true)?;
                        }
                    }
                    break;
                }
                Ok(m) if last || !m.is_dir() => {
                    plan.bind(&at, &at, true, true)?;
                    break;
                }
                Ok(_) => {
                    if !bound.contains(&at) {
                        plan.bind(&at, &at, true, false)?;
                        bound.push(at.clone());
                    }
                }
            }
        }
    }
    let inside_a_root = |p: &Path| {
        layout
            .writable
            .iter()
            .chain(std::iter::once(&layout.workspace))
            .any(|r| r.starts_with(p))
    };
    let mut hide: Vec<PathBuf> = layout.deny_read.clone();
    hide.push("/run".into());
    hide.push("/var/run".into());
    if let Some(x) = std::env::var_os("XDG_RUNTIME_DIR") {
        hide.push(PathBuf::from(x));
    }
    hide.sort();
    let mut hidden: Vec<PathBuf> = Vec::new();
    for h in hide {
        let Ok(m) = std::fs::symlink_metadata(&h) else {
            continue;
        };
        // A link is hidden where it leads (a later entry); under a hidden directory there
        // is nothing left to hide.
        if m.file_type().is_symlink()
            || inside_a_root(&h)
            || hidden.iter().any(|d| h.starts_with(d))
        {
            continue;
        }
        hidden.push(h.clone());
        let src = if m.is_dir() {
            private.empty_dir
        } else {
            private.empty_file
        };
        plan.bind(src, &h, false, true)?;
    }
    private_tmp(plan, layout, private)
}

/// `/tmp` and `/dev/shm` become the private directory's parts; the workspace and writable
/// roots under `/tmp` are set aside first and moved back after.
fn private_tmp(plan: &mut Plan, layout: &Layout, private: &Private<'_>) -> io::Result<()> {
    let roots: Vec<&PathBuf> = layout
        .writable
        .iter()
        .chain(std::iter::once(&layout.workspace))
        .collect();
    let shm = Path::new("/dev/shm");
    if shm.is_dir()
        && !roots
            .iter()
            .any(|r| shm.starts_with(r) || r.starts_with(shm))
    {
        plan.bind(private.shm, shm, false, false)?;
    }
    // /var/tmp first: its private part lives under the host's /tmp, hidden once /tmp is.
    private_dir(plan, &roots, Path::new("/var/tmp"), private.var_tmp)?;
    plan.private_tmp = private_dir(plan, &roots, Path::new("/tmp"), private.tmp)?;
    Ok(())
}

/// Shows `part` at `dir` (unless a root is `dir` or above it), with the workspace and the
/// roots under `dir` set aside and moved back. Returns whether it did.
fn private_dir(plan: &mut Plan, roots: &[&PathBuf], dir: &Path, part: &Path) -> io::Result<bool> {
    let real = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    if !real.is_dir() || roots.iter().any(|r| real.starts_with(r)) {
        return Ok(false);
    }
    let mut keep: Vec<PathBuf> = roots
        .iter()
        .filter(|r| r.starts_with(&real) && r.is_dir())
        .map(|r| r.to_path_buf())
        .collect();
    keep.sort();
    keep.dedup();
    let keep: Vec<PathBuf> = keep
        .iter()
        .filter(|k| !keep.iter().any(|o| o != *k && k.starts_with(o)))
        .cloned()
        .collect();
    if keep.len() > SLOTS {
        return Err(io::Error::other(format!(
            "too many writable roots under {}",
            dir.display()
        )));
    }
    for (slot, k) in keep.iter().enumerate() {
        let rel = k.strip_prefix(&real).unwrap_or(k);
        std::fs::create_dir_all(part.join(rel))?;
        plan.steps.push(Step::Clone {
            path: cstr(k)?,
            slot,
        });
    }
    plan.bind(part, &real, false, false)?;
    for (slot, k) in keep.iter().enumerate() {
        plan.steps.push(Step::Move {
            slot,
            dst: cstr(k)?,
        });
    }
    Ok(true)
}

/// `struct mount_attr` of `mount_setattr(2)`.
#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

/// `MOUNT_ATTR_RDONLY`.
const MOUNT_ATTR_RDONLY: u64 = 0x1;
/// Applies `steps` in a child that may only make raw system calls (no allocation, no lock).
/// Returns the index of the failed step and its errno.
///
/// # Safety
/// Call only in a single-threaded child, in its own mount namespace.
pub unsafe fn apply(steps: &[Step]) -> Result<(), (usize, i32)> {
    let mut slots = [-1i32; SLOTS];
    let errno = || *libc::__errno_location();
    for (i, step) in steps.iter().enumerate() {
        let failed = match step {
            Step::Bind {
                src,
                dst,
                rec,
                remount,
            } => {
                let flags = libc::MS_BIND | if *rec { libc::MS_REC } else { 0 };
                libc::mount(
                    src.as_ptr(),
                    dst.as_ptr(),
                    std::ptr::null(),
                    flags,
                    std::ptr::null(),
                ) != 0
                    || remount.is_some_and(|f| {
                        libc::mount(
                            std::ptr::null(),
                            dst.as_ptr(),
                            std::ptr::null(),
                            f,
                            std::ptr::null(),
                        ) != 0
                    })
            }
            Step::Clone { path, slot } => {
                let fd = libc::syscall(
                    libc::SYS_open_tree,
                    libc::AT_FDCWD,
                    path.as_ptr(),
                    (libc::OPEN_TREE_CLONE | libc::OPEN_TREE_CLOEXEC) as libc::c_uint
                        | libc::AT_RECURSIVE as libc::c_uint,
                );
                slots[*slot] = fd as i32;
                fd < 0
            }
            Step::ReadOnly {
                path,
                ro,
                recursive,
            } => {
                let attr = MountAttr {
                    attr_set: if *ro { MOUNT_ATTR_RDONLY } else { 0 },
                    attr_clr: if *ro { 0 } else { MOUNT_ATTR_RDONLY },
                    propagation: 0,
                    userns_fd: 0,
                };
                let flags = if *recursive {
                    libc::AT_RECURSIVE as libc::c_uint
                } else {
                    0
                };
                libc::syscall(
                    libc::SYS_mount_setattr,
                    libc::AT_FDCWD,
                    path.as_ptr(),
                    flags,
                    &attr as *const MountAttr,
                    std::mem::size_of::<MountAttr>(),
                ) != 0
            }
            Step::Overlay {
                dst,
                lowers,
                upper,
                work,
                attrs,
            } => !super::overlay::mount(dst, lowers, upper, work, *attrs),
            Step::Move { slot, dst } => {
                let empty = c"".as_ptr();
                let r = libc::syscall(
                    libc::SYS_move_mount,
                    slots[*slot],
                    empty,
                    libc::AT_FDCWD,
                    dst.as_ptr(),
                    libc::MOVE_MOUNT_F_EMPTY_PATH,
                );
                libc::close(slots[*slot]);
                r != 0
            }
        };
        if failed {
            return Err((i, errno()));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Config, SandboxPolicy};

    #[test]
    fn a_placeholder_is_a_directory_but_inside_git_and_in_a_home_root() {
        let (w, h) = (Path::new("/w"), Path::new("/h"));
        assert!(!placeholder_is_file(Path::new(".envrc"), w, None));
        assert!(!placeholder_is_file(Path::new(".mcp.json"), w, Some(h)));
        assert!(placeholder_is_file(Path::new(".git/config"), w, None));
        assert!(placeholder_is_file(Path::new(".bashrc"), h, Some(h)));
    }

    #[test]
    fn the_plan_makes_directories_git_ignores_and_records_them() {
        let dir = tempfile::tempdir_in(concat!(env!("CARGO_MANIFEST_DIR"), "/target")).unwrap();
        let ws = dir.path().join("ws");
        std::fs::create_dir_all(ws.join(".git")).unwrap();
        let parts: Vec<PathBuf> = ["tmp", "vartmp", "shm", "empty"]
            .iter()
            .map(|p| dir.path().join(p))
            .collect();
        for p in &parts {
            std::fs::create_dir(p).unwrap();
        }
        let empty_file = dir.path().join("empty-file");
        std::fs::write(&empty_file, "").unwrap();
        let private = Private {
            tmp: &parts[0],
            var_tmp: &parts[1],
            shm: &parts[2],
            empty_dir: &parts[3],
            empty_file: &empty_file,
        };
        let layout = Layout::new(&Config::with_root(&ws), &SandboxPolicy::default());
        let first = plan(&layout, &private).unwrap();
        let real = std::fs::canonicalize(&ws).unwrap();
        for name in [".envrc", ".mcp.json", ".gitmodules", ".vscode", ".bashrc"] {
            let p = real.join(name);
            assert!(p.is_dir(), "{name} is an empty directory");
            assert!(first.placeholders.contains(&p), "{name} is recorded");
        }
        // A second plan (another tools object on the workspace) shares them: the first to
        // let go removes nothing, the last removes them.
        let second = plan(&layout, &private).unwrap();
        assert_eq!(second.placeholders, first.placeholders);
        super::super::janitor::release(&second.placeholders);
        assert!(real.join(".envrc").is_dir());
        // Inside .git, where git never looks for files to add: an empty file.
        assert!(real.join(".git/config").is_file());
        assert!(real.join(".git/hooks").is_dir());
        let status = std::process::Command::new("git")
            .args(["init", "-q"])
            .current_dir(&ws)
            .status();
        if status.is_ok_and(|s| s.success()) {
            let out = std::process::Command::new("git")
                .args(["status", "--porcelain", "--untracked-files=all"])
                .current_dir(&ws)
                .output()
                .unwrap();
            assert_eq!(
                String::from_utf8_lossy(&out.stdout),
                "",
                "git sees no placeholder"
            );
        }
        super::super::janitor::release(&first.placeholders);
        for name in [".envrc", ".mcp.json", ".vscode", ".bashrc"] {
            assert!(!real.join(name).exists(), "{name} is removed");
        }
    }
}
