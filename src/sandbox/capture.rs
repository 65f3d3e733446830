//! Review mode's capture of what a command writes (issue 32, "commands too"), platform-neutral.
//!
//! A captured command runs over an overlay of the workspace: it sees the workspace with the
//! staged changes applied (a read-only layer above the disk), and everything it writes lands
//! in a scratch directory instead of the workspace. After the command, [`Captured::changes`]
//! reads that directory and says what changed, relative to what the command saw; the caller
//! stages those changes and drops the [`Captured`] (which removes the scratch directories).
//! The disk is never written.
//!
//! Only Linux can do this (an overlayfs in the sandbox's mount namespace, see
//! `linux::overlay`); elsewhere, and where the machine refuses unprivileged overlays, asking
//! for a capture is [`CaptureError::Unavailable`] and review mode keeps refusing commands.
//!
//! What a capture reports, path by path (the rule review mode documents):
//! - a regular file created or changed → [`Change::Write`] (its new bytes, its mode);
//! - a file whose bytes are unchanged but whose permission bits changed → [`Change::Mode`];
//! - a regular file removed (also when its directory is removed or replaced) →
//!   [`Change::Delete`];
//! - a directory created → [`Change::Dir`] (staging holds files: a directory reaches disk with
//!   the first file accepted into it);
//! - a symbolic link created, changed or removed, a regular file put where a link was, or a
//!   special file (FIFO, socket, device) → [`Change::Refused`]: never staged, reported so the
//!   model knows. The path keeps what it held before the command.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// One staged path as a captured command sees it above the workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Layer {
    /// A staged file: its bytes are in `source` (never written: a command that changes the
    /// file changes a copy), shown with permission bits `mode`.
    File {
        /// The workspace-relative path, `/`-separated.
        rel: String,
        /// Where its bytes are (a staging blob).
        source: PathBuf,
        /// The permission bits the command sees.
        mode: u32,
    },
    /// A staged deletion: the command does not see the path.
    Deleted {
        /// The workspace-relative path, `/`-separated.
        rel: String,
    },
    /// A staged directory (`mkdir` in review mode): the command sees it, empty but for what
    /// else is staged in it.
    Dir {
        /// The workspace-relative path, `/`-separated.
        rel: String,
    },
}

impl Layer {
    /// The workspace-relative path.
    pub fn rel(&self) -> &str {
        match self {
            Layer::File { rel, .. } | Layer::Deleted { rel } | Layer::Dir { rel } => rel,
        }
    }
}

/// What one captured command is to see, and where its writes go.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    /// A directory for the command's scratch directories (made if missing; each command gets
    /// a fresh `run-<id>` inside, removed when its [`Captured`] is dropped). It must be on a
    /// filesystem with user extended attributes (ext4, xfs, btrfs, tmpfs ≥ 6.6) and outside
    /// every path the command may write — review mode uses `.clarvis/review/<scope>/`.
    pub dir: &'a Path,
    /// The staged changes the command sees above the disk.
    pub staged: &'a [Layer],
    /// Keep a record of what the command was shown in its scratch directory, so its writes
    /// can be judged by another process should this one die first ([`Captured::adopt`]): a
    /// monitor outlives its call.
    pub record: bool,
}

/// Why a path's change was not captured.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The command made a symbolic link (to `target`), or changed one.
    Symlink {
        /// What the link points to.
        target: PathBuf,
    },
    /// The command removed a symbolic link.
    SymlinkRemoved,
    /// The command put a regular file where a symbolic link was.
    ReplacesSymlink,
    /// The command made a FIFO, socket or device node, or removed one.
    Special,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Symlink { target } => {
                write!(f, "a symbolic link (to {})", target.display())
            }
            Refusal::SymlinkRemoved => f.write_str("a symbolic link removed"),
            Refusal::ReplacesSymlink => f.write_str("a file put where a symbolic link was"),
            Refusal::Special => f.write_str("a special file (FIFO, socket or device)"),
        }
    }
}

/// One change a captured command made, relative to what it saw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// A regular file created or changed.
    Write {
        /// The workspace-relative path.
        rel: String,
        /// Where its new bytes are (valid until the [`Captured`] is dropped).
        source: PathBuf,
        /// Its permission bits.
        mode: u32,
        /// Whether the command saw no regular file there before.
        created: bool,
    },
    /// A regular file whose bytes are unchanged and whose permission bits changed.
    Mode {
        /// The workspace-relative path.
        rel: String,
        /// The new permission bits.
        mode: u32,
    },
    /// A regular file removed.
    Delete {
        /// The workspace-relative path.
        rel: String,
    },
    /// A directory created.
    Dir {
        /// The workspace-relative path.
        rel: String,
    },
    /// A change that is not captured (see [`Refusal`]).
    Refused {
        /// The workspace-relative path.
        rel: String,
        /// Why.
        why: Refusal,
    },
}

impl Change {
    /// The workspace-relative path.
    pub fn rel(&self) -> &str {
        match self {
            Change::Write { rel, .. }
            | Change::Mode { rel, .. }
            | Change::Delete { rel }
            | Change::Dir { rel }
            | Change::Refused { rel, .. } => rel,
        }
    }
}

/// Why a capture failed.
#[derive(Debug)]
pub enum CaptureError {
    /// This machine cannot capture commands (no sandbox mount namespace, no unprivileged
    /// overlayfs, …): the reason. Review mode then refuses commands.
    Unavailable(String),
    /// Preparing or reading the capture failed at `path`.
    Io {
        /// The path.
        path: PathBuf,
        /// The error.
        error: io::Error,
    },
}

impl CaptureError {
    /// An [`CaptureError::Io`] at `path`.
    pub fn io(path: &Path, error: io::Error) -> CaptureError {
        CaptureError::Io {
            path: path.to_path_buf(),
            error,
        }
    }
}

impl fmt::Display for CaptureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CaptureError::Unavailable(why) => {
                write!(f, "commands cannot be captured here: {why}")
            }
            CaptureError::Io { path, error } => write!(f, "{}: {error}", path.display()),
        }
    }
}

impl std::error::Error for CaptureError {}

impl From<CaptureError> for io::Error {
    fn from(e: CaptureError) -> io::Error {
        match e {
            CaptureError::Io { error, .. } => error,
            other => io::Error::other(other.to_string()),
        }
    }
}

/// One captured command's overlay: keep it until the command (and everything it started)
/// has ended, then read [`Captured::changes`]; dropping it removes the scratch directories.
#[derive(Debug)]
pub struct Captured {
    #[cfg(target_os = "linux")]
    pub(crate) run: super::linux::overlay::Run,
}

impl Captured {
    /// The capture of a command whose host died, from the record it left in `run_dir`
    /// (`run-<id>`, see [`Request::record`]); dropping it removes `run_dir`.
    pub fn adopt(run_dir: &Path) -> Result<Captured, CaptureError> {
        #[cfg(target_os = "linux")]
        return Ok(Captured {
            run: super::linux::record::load(run_dir)?,
        });
        #[cfg(not(target_os = "linux"))]
        Err(CaptureError::Unavailable(format!(
            "no capture on this platform ({})",
            run_dir.display()
        )))
    }

    /// The command's scratch directory (`run-<id>`; `None` off Linux, where nothing is
    /// captured).
    pub fn dir(&self) -> Option<&Path> {
        #[cfg(target_os = "linux")]
        return Some(self.run.dir());
        #[cfg(not(target_os = "linux"))]
        None
    }

    /// What the command changed, sorted by path (see the module's rule).
    pub fn changes(&self) -> Result<Vec<Change>, CaptureError> {
        #[cfg(target_os = "linux")]
        return self.run.changes();
        #[cfg(not(target_os = "linux"))]
        Ok(Vec::new())
    }
}
