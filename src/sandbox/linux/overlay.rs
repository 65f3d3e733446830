//! Linux: review mode's capture ([`crate::sandbox::capture`]) as overlayfs mounts in a
//! command's own copy of the sandbox's mount namespace.
//!
//! Each writable root that is (or lies in) the workspace becomes an overlay mounted on
//! itself: lower layers the staged tree (when something is staged) over the root itself,
//! upper and work directories fresh for the command. The overlays are the plan's *first*
//! steps (`mounts::plan_over`), made while the host's mounts are still writable, so the rest
//! of the plan — the whole tree read-only, the roots writable again, the protected paths
//! read-only, credentials hidden, a private `/tmp` — applies to the overlaid view unchanged.
//!
//! Why these choices:
//! - **One overlay per writable root**, mounted *on* the root: Landlock tags inodes, and an
//!   overlay's inodes are its own; a write inside the overlay is allowed because Landlock's
//!   walk up from it leaves the overlay at its mount point — the root's real directory, which
//!   the ruleset tags. The overlay's own writes to its upper directory are made with the
//!   credentials of the helper that mounted it, which carry no Landlock domain, so the upper
//!   directory needs no rule (and the command cannot name it: see below).
//! - **The staged tree lives outside the workspace** (in the sandbox's private directory):
//!   overlayfs refuses a lower layer nested in another (`ELOOP`). Its files are hard links to
//!   the staging blobs when the filesystem and the mode allow, copies otherwise; whiteouts
//!   (`0:0` character devices, which an unprivileged process may make since Linux 5.8) hide
//!   staged deletions.
//! - **Upper and work live in the caller's directory** (`.clarvis/review/<scope>/run-<id>`),
//!   on the workspace's filesystem: an upper directory inside a lower layer is allowed, and a
//!   lookup of it through the overlay fails `ELOOP` — besides, `.clarvis` is protected.
//! - Nothing staged at or above a protected path is put in the tree: the protected path's
//!   read-only bind needs the disk's object there.
//! - The overlay uses `userxattr` (required in a user namespace, Linux ≥ 5.11), and so has
//!   neither `redirect_dir` nor `metacopy`: renaming a directory that came from a lower layer
//!   fails `EXDEV`, which `mv` answers by copying (the capture then sees the copy and the
//!   removal).

use super::super::capture::{CaptureError, Change, Layer};
use super::super::layout::Layout;
use super::mounts::Step;
use std::collections::BTreeMap;
use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// What the command sees of a staged path (target-relative keys).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Staged {
    /// A staged file, its bytes at this path.
    File(PathBuf, u32),
    /// A staged deletion.
    Deleted,
    /// A staged directory.
    Dir,
}

/// One overlaid root.
#[derive(Debug)]
pub struct Target {
    /// The root (real path).
    pub root: PathBuf,
    /// Its workspace-relative path (`""` for the workspace), the prefix of its changes.
    pub prefix: String,
    /// The command's upper directory.
    pub upper: PathBuf,
    /// Overlayfs's work directory.
    pub work: PathBuf,
    /// The staged tree's layer for this root (when something is staged in it).
    pub tree: Option<PathBuf>,
    /// The staged paths in this root, by root-relative path.
    pub staged: BTreeMap<String, Staged>,
}

/// One captured command's directories (removed on drop).
#[derive(Debug)]
pub struct Run {
    dir: PathBuf,
    tree: Option<PathBuf>,
    /// The overlaid roots.
    pub targets: Vec<Target>,
}

/// The roots to overlay: each writable root inside the workspace, or the workspace when a
/// writable root holds it.
fn roots(layout: &Layout) -> Vec<PathBuf> {
    let ws = &layout.workspace;
    let mut out: Vec<PathBuf> = layout
        .writable
        .iter()
        .filter_map(|r| {
            if r.starts_with(ws) {
                Some(r.clone())
            } else if ws.starts_with(r) {
                Some(ws.clone())
            } else {
                None
            }
        })
        .filter(|r| r.is_dir())
        .collect();
    out.sort();
    out.dedup();
    out
}

fn mkdir(p: &Path, mode: u32) -> Result<(), CaptureError> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(mode)
        .create(p)
        .map_err(|e| CaptureError::io(p, e))
}

fn cstr(p: &Path) -> Result<CString, CaptureError> {
    CString::new(p.as_os_str().as_bytes()).map_err(|_| {
        CaptureError::io(
            p,
            io::Error::new(io::ErrorKind::InvalidInput, "a path holds a NUL byte"),
        )
    })
}

/// Whether a staged `abs` would sit at, in or above a protected path.
fn shadows_protected(layout: &Layout, abs: &Path) -> bool {
    layout
        .protected
        .iter()
        .any(|p| abs.starts_with(&p.path) || p.path.starts_with(abs))
}

impl Run {
    /// Prepares the directories of one command: `run-<id>` under `dir`, and the staged tree
    /// (under `private`, the sandbox's private directory) from `staged`; with `record`, the
    /// run's record too (`super::record`), for a command that may outlive its host.
    pub fn new(
        layout: &Layout,
        private: &Path,
        dir: &Path,
        staged: &[Layer],
        record: bool,
    ) -> Result<Run, CaptureError> {
        let id = crate::atomic::unique_id();
        mkdir(dir, 0o700)?;
        let run_dir = dir.join(format!("run-{id}"));
        let tree_dir = private.join(format!("tree-{id}"));
        let mut run = Run {
            dir: run_dir.clone(),
            tree: None,
            targets: Vec::new(),
        };
        mkdir(&run_dir, 0o700)?;
        for (i, root) in roots(layout).into_iter().enumerate() {
            let prefix = root
                .strip_prefix(&layout.workspace)
                .map(|r| r.to_string_lossy().into_owned())
                .unwrap_or_default();
            let upper = run_dir.join(i.to_string()).join("upper");
            let work = run_dir.join(i.to_string()).join("work");
            mkdir(&upper, 0o755)?;
            mkdir(&work, 0o700)?;
            let mut t = Target {
                root,
                prefix,
                upper,
                work,
                tree: None,
                staged: BTreeMap::new(),
            };
            for layer in staged {
                let Some(rel) = under(&t.prefix, layer.rel()) else {
                    continue;
                };
                if shadows_protected(layout, &t.root.join(rel)) {
                    continue;
                }
                let s = match layer {
                    Layer::File { source, mode, .. } => Staged::File(source.clone(), *mode),
                    Layer::Deleted { .. } => Staged::Deleted,
                    Layer::Dir { .. } => Staged::Dir,
                };
                t.staged.insert(rel.to_string(), s);
            }
            if !t.staged.is_empty() {
                run.tree = Some(tree_dir.clone());
                let tree = tree_dir.join(i.to_string());
                build_tree(&tree, &t.root, &t.staged)?;
                t.tree = Some(tree);
            }
            run.targets.push(t);
        }
        if record {
            super::record::save(&run_dir, &run)?;
        }
        Ok(run)
    }

    /// The run a record describes (`super::record::load`): no staged tree of its own (the
    /// host that built one is gone); dropping it removes `dir`.
    pub(super) fn adopted(dir: &Path, targets: Vec<Target>) -> Run {
        Run {
            dir: dir.to_path_buf(),
            tree: None,
            targets,
        }
    }

    /// The run's scratch directory (`run-<id>`).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The overlay mounts, for `mounts::plan_over`.
    pub fn steps(&self) -> Result<Vec<Step>, CaptureError> {
        let mut steps = Vec::new();
        for t in &self.targets {
            let root = cstr(&t.root)?;
            let mut lowers = Vec::new();
            if let Some(tree) = &t.tree {
                lowers.push(cstr(tree)?);
            }
            lowers.push(root.clone());
            steps.push(Step::Overlay {
                dst: root,
                lowers,
                upper: cstr(&t.upper)?,
                work: cstr(&t.work)?,
                attrs: attrs(&t.root),
            });
        }
        Ok(steps)
    }

    /// The overlaid roots as C strings (for `ns::Probe::open`); more than `ns::OPEN` is
    /// refused.
    pub fn roots(&self) -> Result<Vec<CString>, CaptureError> {
        if self.targets.len() > super::ns::OPEN {
            return Err(CaptureError::Unavailable(format!(
                "more than {} writable roots in the workspace",
                super::ns::OPEN
            )));
        }
        self.targets.iter().map(|t| cstr(&t.root)).collect()
    }

    /// What the command changed, workspace-relative, sorted by path.
    pub fn changes(&self) -> Result<Vec<Change>, CaptureError> {
        let mut out = Vec::new();
        for t in &self.targets {
            let from = out.len();
            super::scan::scan(t, &mut out)?;
            // A placeholder is the sandbox's, never the command's: it is a read-only mount
            // point in the command's view, so no change can reach it, and none is reported
            // should one appear there (belt and braces: it would stage an empty file).
            let mut i = from;
            while i < out.len() {
                let rel = out[i].rel();
                let in_root = match t.prefix.as_str() {
                    "" => Some(rel),
                    p => rel.strip_prefix(p).and_then(|r| r.strip_prefix('/')),
                };
                let abs = in_root.map(|r| t.root.join(r));
                if abs.is_some_and(|a| super::janitor::is_placeholder(&a)) {
                    out.remove(i);
                } else {
                    i += 1;
                }
            }
        }
        out.sort_by(|a, b| a.rel().cmp(b.rel()));
        Ok(out)
    }
}

/// `FSCONFIG_SET_FLAG`, `FSCONFIG_SET_STRING` and `FSCONFIG_CMD_CREATE` of `fsconfig(2)`.
const FSCONFIG_SET_FLAG: libc::c_uint = 0;
const FSCONFIG_SET_STRING: libc::c_uint = 1;
const FSCONFIG_CMD_CREATE: libc::c_uint = 6;

/// Mounts an overlay (see [`Step::Overlay`]); `false` on failure (errno set).
///
/// # Safety
/// Raw system calls only; call where `mounts::apply` may.
pub(super) unsafe fn mount(
    dst: &CString,
    lowers: &[CString],
    upper: &CString,
    work: &CString,
    attrs: u64,
) -> bool {
    let fs = libc::syscall(
        libc::SYS_fsopen,
        c"overlay".as_ptr(),
        1u32, /* CLOEXEC */
    ) as i32;
    if fs < 0 {
        return false;
    }
    let set = |cmd: libc::c_uint, key: &std::ffi::CStr, value: *const libc::c_char| {
        libc::syscall(libc::SYS_fsconfig, fs, cmd, key.as_ptr(), value, 0) == 0
    };
    let mut ok = set(FSCONFIG_SET_FLAG, c"userxattr", std::ptr::null());
    for l in lowers {
        ok = ok && set(FSCONFIG_SET_STRING, c"lowerdir+", l.as_ptr());
    }
    ok = ok
        && set(FSCONFIG_SET_STRING, c"upperdir", upper.as_ptr())
        && set(FSCONFIG_SET_STRING, c"workdir", work.as_ptr())
        && libc::syscall(
            libc::SYS_fsconfig,
            fs,
            FSCONFIG_CMD_CREATE,
            std::ptr::null::<libc::c_char>(),
            std::ptr::null::<libc::c_char>(),
            0,
        ) == 0;
    let mnt = if ok {
        libc::syscall(libc::SYS_fsmount, fs, 1u32 /* CLOEXEC */, attrs) as i32
    } else {
        -1
    };
    let saved = *libc::__errno_location();
    libc::close(fs);
    if mnt < 0 {
        *libc::__errno_location() = saved;
        return false;
    }
    let r = libc::syscall(
        libc::SYS_move_mount,
        mnt,
        c"".as_ptr(),
        libc::AT_FDCWD,
        dst.as_ptr(),
        libc::MOVE_MOUNT_F_EMPTY_PATH,
    );
    let saved = *libc::__errno_location();
    libc::close(mnt);
    *libc::__errno_location() = saved;
    r == 0
}

/// `rel` relative to the root at `prefix` (`None` when outside it).
fn under<'a>(prefix: &str, rel: &'a str) -> Option<&'a str> {
    if prefix.is_empty() {
        return Some(rel);
    }
    rel.strip_prefix(prefix)?.strip_prefix('/')
}

/// The new mount's flags: never set-user-ID or devices, and no execution where the root's
/// own mount forbids it (an overlay is a new filesystem: it would not inherit `noexec`).
fn attrs(root: &Path) -> u64 {
    const NOSUID: u64 = 0x2;
    const NODEV: u64 = 0x4;
    const NOEXEC: u64 = 0x8;
    let mut a = NOSUID | NODEV;
    if let Ok(c) = CString::new(root.as_os_str().as_bytes()) {
        // SAFETY: `st` is a plain C struct the kernel fills.
        let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
        if unsafe { libc::statvfs(c.as_ptr(), &mut st) } == 0 && st.f_flag & libc::ST_NOEXEC != 0 {
            a |= NOEXEC;
        }
    }
    a
}

/// Writes the staged tree of one root at `tree`: each staged file (a hard link to its blob,
/// or a copy), each staged deletion a whiteout, directories with the disk's modes.
fn build_tree(
    tree: &Path,
    root: &Path,
    staged: &BTreeMap<String, Staged>,
) -> Result<(), CaptureError> {
    mkdir(tree, 0o755)?;
    for (rel, s) in staged {
        let at = tree.join(rel);
        if let Some(parent) = Path::new(rel).parent() {
            let mut dir = tree.to_path_buf();
            let mut disk = root.to_path_buf();
            for c in parent.components() {
                dir.push(c);
                disk.push(c);
                if !dir.is_dir() {
                    let mode = std::fs::symlink_metadata(&disk)
                        .ok()
                        .filter(|m| m.is_dir())
                        .map_or(0o755, |m| m.mode() & 0o7777);
                    mkdir(&dir, mode)?;
                    let _ = std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(mode));
                }
            }
        }
        match s {
            Staged::File(source, mode) => place(source, &at, *mode)?,
            Staged::Deleted => whiteout(&at)?,
            // Made already when a file staged below it came first in the map.
            Staged::Dir if at.is_dir() => {}
            Staged::Dir => mkdir(&at, 0o755)?,
        }
    }
    Ok(())
}

/// Puts `source`'s bytes at `at` with `mode`: a hard link when the blob already has that
/// mode and lives on the same filesystem, a copy otherwise (the blob's mode is not ours to
/// change).
fn place(source: &Path, at: &Path, mode: u32) -> Result<(), CaptureError> {
    let meta = std::fs::metadata(source).map_err(|e| CaptureError::io(source, e))?;
    if meta.mode() & 0o7777 == mode && std::fs::hard_link(source, at).is_ok() {
        return Ok(());
    }
    std::fs::copy(source, at).map_err(|e| CaptureError::io(at, e))?;
    std::fs::set_permissions(at, std::fs::Permissions::from_mode(mode))
        .map_err(|e| CaptureError::io(at, e))
}

fn whiteout(at: &Path) -> Result<(), CaptureError> {
    let c = cstr(at)?;
    // SAFETY: a plain system call on a C string we own.
    if unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR, 0) } != 0 {
        return Err(CaptureError::io(at, io::Error::last_os_error()));
    }
    Ok(())
}

/// Removes `dir` whatever overlayfs left in it (its work directory is mode 000).
pub(super) fn remove_tree(dir: &Path) {
    fn open_up(p: &Path) {
        let _ = std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o700));
        if let Ok(rd) = std::fs::read_dir(p) {
            for e in rd.flatten() {
                if e.file_type().is_ok_and(|t| t.is_dir()) {
                    open_up(&e.path());
                }
            }
        }
    }
    if dir.exists() {
        open_up(dir);
        let _ = std::fs::remove_dir_all(dir);
    }
}

impl Drop for Run {
    fn drop(&mut self) {
        remove_tree(&self.dir);
        if let Some(t) = &self.tree {
            remove_tree(t);
        }
    }
}
