//! Review mode's captured monitors (SPEC §13 "Commands"): a monitor started in review mode
//! runs over an overlay of the workspace, as a stateless `bash` call does, and what it wrote
//! is staged when its shell has exited — by the host's reaper, *before* the monitor is
//! reported as ended, so a poll that says `running: false` finds the changes in `pending()`.
//!
//! The order the reaper keeps (the shell is a zombie, not yet reaped, throughout):
//! 1. what is left of the monitor (its background processes) is killed: what they wrote
//!    later could never be reviewed, and a monitor that is over leaves nothing running;
//! 2. the changes are staged in one batch (as `bash`'s are) and the note saying what was
//!    staged is written (`monitor-<id>.review`, shown at the end of the last page);
//! 3. the exit file is written (a natural exit), then the pending marker
//!    (`monitor-<id>.capture`, made before the shell started) is removed;
//! 4. the shell is reaped.
//!
//! While the marker exists and the shell is a zombie the monitor counts as running
//! ([`super::running`]): only the host that started it can hold its shell as a zombie, and
//! it stages before it reaps. If that host dies first, the shell is reaped by someone else,
//! the marker no longer makes it running, its relay leaves the exit code in
//! `monitor-<id>.exit-relay` (read as the exit code then), and its writes are not staged by
//! it: they stay in the capture's upper directory under `.clarvis/review/<scope>/run-<id>/`
//! with the record of what the monitor was shown (`sandbox::linux::record`). The marker names
//! that directory and the host's pid; once both the host and the shell are gone, the next
//! tools object on the scope adopts the run ([`adopt`]: at its opening, `pending()` and
//! `monitor_stop`) and stages its changes as the reaper would have.

use super::{file, Sidecar};
use crate::process::group;
use crate::sandbox::capture::{Captured, Request};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The pending marker's extension: `monitor-<id>.capture`.
pub(super) const PENDING: &str = "capture";
/// The note's extension: `monitor-<id>.review`.
pub(super) const NOTE: &str = "review";
/// Where a captured monitor's relay leaves the exit code (`monitor-<id>.exit-relay`): not
/// the exit file, which must not appear before the changes are staged.
pub(super) const RELAY_EXIT: &str = "exit-relay";

/// The longest `monitor_stop` waits for the host's reaper to stage a stopped monitor's
/// changes (staging is bounded by `reviewBytes`; this bound is for a reaper that cannot
/// finish, never reached otherwise).
const STAGE_BOUND: Duration = Duration::from_secs(120);

/// Stages a captured monitor's changes; returns the line its last page ends with (`None`:
/// nothing changed).
pub type Stage = Box<dyn FnOnce(&Captured) -> Option<String> + Send>;

/// A monitor's capture, as `monitor_start` asks for it.
pub struct Capture<'a> {
    /// What the monitor sees above the workspace, and where its writes go.
    pub request: Request<'a>,
    /// Stages its changes once its shell has exited.
    pub stage: Stage,
}

impl std::fmt::Debug for Capture<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Capture")
            .field("request", &self.request)
            .finish()
    }
}

/// A started captured monitor, handed to its reaper.
pub(super) struct Armed {
    pub captured: Captured,
    pub stage: Stage,
    pub root: PathBuf,
    pub id: String,
}

impl Armed {
    /// Makes the pending marker (before the shell is spawned): this host's pid and the
    /// capture's scratch directory, for [`adopt`] should the host die first.
    pub(super) fn mark(root: &Path, id: &str, run: Option<&Path>) -> std::io::Result<()> {
        let body = serde_json::json!({
            "host": std::process::id(),
            "run": run.and_then(Path::to_str),
        });
        std::fs::write(file(root, id, PENDING), body.to_string())
    }

    /// Steps 1 and 2 of the module's order, for the shell `pid` that has exited.
    pub(super) fn finish(self, pid: u32) {
        group::kill_tree(pid);
        group::kill_group(pid);
        group::sweep_marked(&self.id);
        // The scratch directories go (the capture is dropped) once the changes are staged.
        let line = {
            let captured = self.captured;
            (self.stage)(&captured)
        };
        if let Some(line) = line {
            let _ = std::fs::write(file(&self.root, &self.id, NOTE), line);
        }
    }
}

/// Step 3's end: the monitor's changes are staged and its exit is on disk.
pub(super) fn staged(root: &Path, id: &str) {
    let _ = std::fs::remove_file(file(root, id, PENDING));
}

/// Whether monitor `id` runs captured (its marker exists until its changes are staged).
pub fn captured(root: &Path, id: &str) -> bool {
    super::valid_id(id) && file(root, id, PENDING).exists()
}

/// Whether the host that started monitor `s` is still staging its changes: its marker exists
/// and its shell is a zombie (held by that host's reaper, which stages before it reaps).
pub(super) fn staging(root: &Path, s: &Sidecar) -> bool {
    file(root, &s.id, PENDING).exists() && super::read::zombie(s.pid)
}

/// Waits until monitor `s`'s changes are staged (at most [`STAGE_BOUND`]): `monitor_stop`
/// returns with them in `pending()`.
pub fn await_staged(root: &Path, s: &Sidecar) {
    let until = Instant::now() + STAGE_BOUND;
    while staging(root, s) && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// The line a captured monitor's last page ends with: what was staged, or — its marker
/// left behind by a host that ended first — that nothing was.
pub fn note(root: &Path, s: &Sidecar) -> Option<String> {
    if let Ok(line) = std::fs::read_to_string(file(root, &s.id, NOTE)) {
        return Some(line);
    }
    (file(root, &s.id, PENDING).exists() && !staging(root, s)).then(|| {
        "[review: nothing was staged: the host that started this monitor ended before it did; its writes are kept under .clarvis/review/ (run-* directories)]".to_string()
    })
}

/// Adopts the captured monitors of the scope whose staging directory is `scope_dir` that
/// were orphaned: their marker is left, the host that wrote it has died, and their shell is
/// gone. For each, what is left of the monitor is killed, `stage` stages its capture (read
/// back from its record) and gives the note, and the marker goes, as the reaper would have
/// done. Two adopters of one monitor take turns on its marker's lock; the second finds it
/// gone. A capture without a record (or a still running monitor) is left as it is. Returns
/// how many were adopted.
pub fn adopt(
    root: &Path,
    scope_dir: &Path,
    stage: impl Fn(&Sidecar, &Captured) -> Option<String>,
) -> usize {
    let Ok(entries) = std::fs::read_dir(root.join(super::STATE_DIR)) else {
        return 0;
    };
    let mut adopted = 0;
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(id) = name
            .to_str()
            .and_then(|n| n.strip_prefix("monitor-"))
            .and_then(|n| n.strip_suffix(&format!(".{PENDING}")))
        else {
            continue;
        };
        let Some(run) = orphan_run(root, id, scope_dir) else {
            continue;
        };
        let Some(s) = super::load(root, id) else {
            continue;
        };
        if crate::atomic::pid_alive(s.pid) || super::read::zombie(s.pid) {
            continue;
        }
        let marker = file(root, id, PENDING);
        let Ok(lock) = std::fs::File::open(&marker) else {
            continue;
        };
        if lock.lock().is_err() || !marker.exists() {
            continue;
        }
        // The scratch directory goes (the capture is dropped) once the changes are staged.
        let line = match Captured::adopt(&run) {
            Ok(captured) => {
                // What the monitor left running could write on, unreviewed: it goes first.
                group::kill_group(s.pid);
                group::sweep_marked(id);
                stage(&s, &captured)
            }
            Err(_) => continue,
        };
        if let Some(line) = line {
            let _ = std::fs::write(file(root, id, NOTE), line);
        }
        staged(root, id);
        adopted += 1;
    }
    adopted
}

/// The scratch directory of monitor `id`'s capture when its marker says the host that
/// started it (not this process) has died and the capture is `scope_dir`'s.
fn orphan_run(root: &Path, id: &str, scope_dir: &Path) -> Option<PathBuf> {
    let body = std::fs::read_to_string(file(root, id, PENDING)).ok()?;
    let v: serde_json::Value = serde_json::from_str(&body).ok()?;
    let host = u32::try_from(v["host"].as_u64()?).ok()?;
    let run = PathBuf::from(v["run"].as_str()?);
    let ours = run.parent() == Some(scope_dir);
    (ours && host != std::process::id() && !crate::atomic::pid_alive(host)).then_some(run)
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::super::{exit_status, file, running, Input, Sidecar, STATE_DIR};
    use super::*;

    /// A captured monitor whose shell has exited but whose host still stages its changes is
    /// running; it ends when the marker goes, and a host that died first is said plainly.
    #[test]
    fn a_zombie_with_its_marker_runs_until_its_changes_are_staged() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join(STATE_DIR)).unwrap();
        let mut child = std::process::Command::new("true").spawn().unwrap();
        // Exited, not reaped: a zombie, as the reaper holds the shell while it stages.
        // SAFETY: a plain C struct the kernel fills; WNOWAIT leaves the child unreaped.
        unsafe {
            let mut info: libc::siginfo_t = std::mem::zeroed();
            let pid = libc::id_t::from(child.id());
            assert_eq!(
                libc::waitid(libc::P_PID, pid, &mut info, libc::WEXITED | libc::WNOWAIT),
                0
            );
        }
        let s = Sidecar {
            id: "mon_0123abcd".into(),
            command: "true".into(),
            cwd: root.to_string_lossy().into_owned(),
            pid: child.id(),
            started_at: 0,
            ready_when: None,
            input: Input::Null,
        };
        assert!(!running(root, &s), "a plain monitor's zombie is dead");
        Armed::mark(root, &s.id, None).unwrap();
        assert!(captured(root, &s.id));
        assert!(running(root, &s), "its changes are being staged");
        assert_eq!(note(root, &s), None);
        staged(root, &s.id);
        assert!(!running(root, &s));
        // Reaped by someone else with the marker still there: the host died first.
        Armed::mark(root, &s.id, None).unwrap();
        child.wait().unwrap();
        assert!(!running(root, &s));
        assert!(note(root, &s).unwrap().contains("nothing was staged"));
        // A sweep leaves it for its scope's next tools object to adopt.
        super::super::save(root, &s).unwrap();
        assert_eq!(super::super::sweep(root), 0);
        assert!(captured(root, &s.id) && super::super::load(root, &s.id).is_some());
        // Its relay's copy of the exit code is the exit code then.
        std::fs::write(file(root, &s.id, RELAY_EXIT), "3\n").unwrap();
        assert_eq!(exit_status(root, &s.id), Some(Some(3)));
        super::super::forget(root, &s.id);
        assert!(!captured(root, &s.id));
        assert!(!file(root, &s.id, RELAY_EXIT).exists());
    }
}
