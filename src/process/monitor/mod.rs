//! Monitors: long-running commands started in the background, whose state lives on disk so
//! any tools instance — this one, or a new one after the host restarted — can list, poll and
//! stop them (LATER §2.5, §6).
//!
//! Under `<root>/.clarvis/`, per monitor `mon_<8 hex>`: `monitor-<id>.json` (the sidecar,
//! written atomically), `monitor-<id>.log` (stdout and stderr, a rolling window kept by the
//! relay, see [`relay`]), `monitor-<id>.state` (the relay's count of dropped bytes) and
//! `monitor-<id>.exit` (its exit status, written by the shell's EXIT trap on a natural exit).
//! Nothing is kept in memory: "running" means no exit file and a live pid.
//!
//! Stronger than the original: ids from the model are validated before they are joined into
//! a path (`mon_` + 8 lowercase hex, nothing else), and stopping ends the whole process tree
//! — the shell is a child subreaper and every process carries `CLARVIS_CALL_ID=<id>` — and
//! checks it is gone (see [`stop`]).

pub mod captured;
#[cfg(windows)]
mod console;
mod lock;
mod read;
mod reap;
pub mod relay;
pub mod screen;
pub mod spawn;
mod stream;

pub use read::{around, poll, ready_head, settle, tail, Polled};
pub use read::{bytes_from, end_offset, View};
pub use spawn::{start, Options, Started};
pub use stream::Stream;

use crate::atomic;
use crate::terminal::Size;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// The state directory under the workspace root.
pub const STATE_DIR: &str = ".clarvis";

/// One monitor's sidecar.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sidecar {
    /// `mon_` + 8 hex.
    pub id: String,
    /// The command as given.
    pub command: String,
    /// The absolute working directory.
    pub cwd: String,
    /// The shell's pid (its process group id too).
    pub pid: u32,
    /// Epoch milliseconds.
    pub started_at: u64,
    /// The `ready_when` pattern.
    pub ready_when: Option<String>,
    /// How its input is wired (`"tty"` and `"stdin"` keys only when not the original's
    /// `/dev/null`, so the original's sidecars stay exact).
    pub input: Input,
}

/// A monitor's stdin.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Input {
    /// `/dev/null`, as in the original.
    #[default]
    Null,
    /// A pipe whose write end this tools object holds (`stdin: true`).
    Pipe,
    /// A pseudo-terminal: stdin, stdout and stderr, and the controlling terminal.
    Terminal {
        /// Its size (updated by a resize).
        size: Size,
        /// The slave's device path (`/dev/pts/N`; empty where there is none).
        path: String,
    },
}

impl Input {
    /// The terminal's size, if it has one.
    pub fn terminal(&self) -> Option<Size> {
        match self {
            Input::Terminal { size, .. } => Some(*size),
            _ => None,
        }
    }
}

impl Sidecar {
    fn to_json(&self) -> Value {
        let mut v = json!({
            "id": self.id, "command": self.command, "cwd": self.cwd, "pid": self.pid,
            "startedAt": self.started_at, "readyWhen": self.ready_when,
        });
        match &self.input {
            Input::Null => {}
            Input::Pipe => {
                v["stdin"] = json!(true);
            }
            Input::Terminal { size, path } => {
                v["tty"] = json!({"cols": size.cols, "rows": size.rows, "path": path});
            }
        }
        v
    }

    fn from_json(v: &Value) -> Option<Sidecar> {
        let side = |t: &Value, k: &str| {
            t.get(k)
                .and_then(Value::as_u64)
                .and_then(|n| u16::try_from(n).ok())
        };
        let input = match (v.get("tty"), v.get("stdin")) {
            (Some(t), _) if t.is_object() => Input::Terminal {
                size: Size {
                    cols: side(t, "cols")?,
                    rows: side(t, "rows")?,
                },
                path: t
                    .get("path")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
            },
            (_, Some(Value::Bool(true))) => Input::Pipe,
            _ => Input::Null,
        };
        Some(Sidecar {
            id: v.get("id")?.as_str()?.to_string(),
            command: v.get("command")?.as_str()?.to_string(),
            cwd: v.get("cwd")?.as_str()?.to_string(),
            pid: u32::try_from(v.get("pid")?.as_u64()?).ok()?,
            started_at: v.get("startedAt")?.as_u64()?,
            ready_when: v
                .get("readyWhen")
                .and_then(Value::as_str)
                .map(str::to_string),
            input,
        })
    }
}

/// Whether `id` is a well-formed monitor id: `mon_` and 8 lowercase hex digits.
pub fn valid_id(id: &str) -> bool {
    id.strip_prefix("mon_").is_some_and(|h| {
        h.len() == 8
            && h.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

/// A fresh id: `mon_` + 4 random bytes in hex.
pub fn new_id() -> String {
    format!("mon_{:08x}", rand::random::<u32>())
}

/// `<root>/.clarvis/monitor-<id>.<ext>`; `id` must be valid.
pub fn file(root: &Path, id: &str, ext: &str) -> PathBuf {
    root.join(STATE_DIR).join(format!("monitor-{id}.{ext}"))
}

/// Makes `.clarvis/` (a real directory, never a symlink) with its `.gitignore`.
pub fn ensure_dir(root: &Path) -> std::io::Result<PathBuf> {
    let dir = root.join(STATE_DIR);
    crate::process::spill::create_dir(&dir)?;
    Ok(dir)
}

/// Reads a monitor's sidecar; `None` when the id is malformed, or the file missing or corrupt.
pub fn load(root: &Path, id: &str) -> Option<Sidecar> {
    if !valid_id(id) {
        return None;
    }
    let text = std::fs::read_to_string(file(root, id, "json")).ok()?;
    let v: Value = serde_json::from_str(&text).ok()?;
    Sidecar::from_json(&v).filter(|s| s.id == id)
}

/// What a guard is told about monitor `id` (`monitor_write`'s context): `{id, command, cwd,
/// tty, stdin}`, or `None` for an unknown id.
pub fn facts(root: &Path, id: &str) -> Option<Value> {
    let s = load(root, id)?;
    Some(json!({
        "id": s.id, "command": s.command, "cwd": s.cwd,
        "tty": s.input.terminal().is_some(), "stdin": s.input != Input::Null,
    }))
}

/// Writes a sidecar atomically: a temp file renamed over the name, so a reader sees all of
/// it or nothing. Not fsynced, unlike a user's file: a sidecar describes processes, which do
/// not survive a power loss either, and two fsyncs were most of `monitor_start`'s own time.
pub fn save(root: &Path, s: &Sidecar) -> std::io::Result<()> {
    use std::io::Write;
    let path = file(root, &s.id, "json");
    let dir = path.parent().unwrap_or(root);
    let (temp, mut f) = atomic::create_temp(dir)?;
    f.write_all(s.to_json().to_string().as_bytes())?;
    drop(f);
    std::fs::rename(temp.path(), &path)?;
    temp.keep();
    Ok(())
}

/// The exit code from the exit file: `None` while running or after a kill; `Some(None)` for
/// a natural exit whose file does not hold an integer. A captured monitor whose host ended
/// first has its code where its relay left it ([`captured`]).
pub fn exit_status(root: &Path, id: &str) -> Option<Option<i64>> {
    let text = std::fs::read_to_string(file(root, id, "exit"))
        .or_else(|_| std::fs::read_to_string(file(root, id, captured::RELAY_EXIT)))
        .ok()?;
    Some(text.trim().parse::<i64>().ok())
}

/// Running = no exit code written, and the pid alive (the exit file beats a reused pid), or its
/// code still to be written by this process's reaper, or — a captured monitor — its shell
/// exited and the host that started it still stages its changes.
pub fn running(root: &Path, s: &Sidecar) -> bool {
    !exit_written(root, &s.id)
        && (atomic::pid_alive(s.pid) || reaping(s) || captured::staging(root, s))
}

/// Whether this process's reaper of a Windows console monitor has yet to write its code after
/// the shell exited (Unix keeps the shell a zombie for that moment, which `read::poll` waits on).
fn reaping(s: &Sidecar) -> bool {
    #[cfg(windows)]
    return console::reaping(&s.id);
    #[cfg(not(windows))]
    {
        let _ = s;
        false
    }
}

/// Whether the exit file holds its whole line. Every writer (the shell's EXIT trap, the
/// host's reaper, the relay) creates the file and then writes the code and a line break in
/// one `write`: a file that exists but is still empty is being written, and a reader that took
/// it for written would answer "not running" with no exit code.
pub fn exit_written(root: &Path, id: &str) -> bool {
    line_written(&file(root, id, "exit"))
}

/// Whether the file at `path` ends with a line break (see `exit_written`).
pub(super) fn line_written(path: &Path) -> bool {
    std::fs::read(path).is_ok_and(|b| b.ends_with(b"\n"))
}

/// Every monitor with a readable sidecar, newest first.
pub fn list(root: &Path) -> Vec<Sidecar> {
    let Ok(entries) = std::fs::read_dir(root.join(STATE_DIR)) else {
        return Vec::new();
    };
    let mut out: Vec<Sidecar> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let id = name.strip_prefix("monitor-")?.strip_suffix(".json")?;
            load(root, id)
        })
        .collect();
    out.sort_by(|a, b| {
        b.started_at
            .cmp(&a.started_at)
            .then_with(|| a.id.cmp(&b.id))
    });
    out
}

/// Removes a monitor's files (the original's three, the relay's state file, and a captured
/// monitor's marker, note and relay's exit code).
pub fn forget(root: &Path, id: &str) {
    let capture = [captured::PENDING, captured::NOTE, captured::RELAY_EXIT];
    for ext in ["json", "log", "exit", "state"].into_iter().chain(capture) {
        let _ = std::fs::remove_file(file(root, id, ext));
    }
}

/// Ends a monitor's processes: SIGTERM to its group, up to `grace` for them to leave, then
/// SIGKILL to what is left of its tree, its group and every process carrying its marker
/// (Windows: its Job Object's processes at once, else its shell after `grace`). Returns
/// whether nothing of it is left running.
pub fn stop(s: &Sidecar, grace: std::time::Duration) -> bool {
    use crate::process::group;
    let pid = s.pid;
    #[cfg(unix)]
    if let Ok(p) = libc::pid_t::try_from(pid) {
        if p > 1 {
            // SAFETY: plain syscalls; ESRCH (already gone) is fine.
            unsafe {
                if libc::killpg(p, libc::SIGTERM) != 0 {
                    libc::kill(p, libc::SIGTERM);
                }
            }
        }
    }
    // Windows: a terminal monitor's Job Object holds its whole tree (found by name while the
    // host that started it lives), ended at once — a console program has no SIGTERM to get.
    #[cfg(windows)]
    crate::terminal::conpty::terminate_job(&s.id, pid);
    let deadline = std::time::Instant::now() + grace;
    while atomic::pid_alive(pid) && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    if atomic::pid_alive(pid) {
        group::kill_tree(pid);
        // Windows, a monitor without a job: its shell (TerminateProcess), as `bash` ends one.
        #[cfg(windows)]
        crate::terminal::conpty::terminate_pid(pid);
    }
    group::kill_group(pid);
    group::sweep_marked(&s.id);
    !atomic::pid_alive(pid)
}

/// Waits (up to 2 s) for the monitor's log relay to exit, killing it after that; see
/// [`relay::finish`].
pub fn finish_relay(root: &Path, id: &str) -> bool {
    relay::finish(&file(root, id, "state"), std::time::Duration::from_secs(2))
}

/// SIGKILLs at once everything of a monitor whose shell is `pid`: its tree, its group and its
/// marked processes (a start that failed half-way; only the log relay can fail so).
#[cfg(unix)]
pub(crate) fn stop_pid(pid: u32, id: &str) {
    use crate::process::group;
    group::kill_tree(pid);
    group::kill_group(pid);
    group::sweep_marked(id);
}

/// Deletes the files of every monitor that is not running; live ones are left alone, and so
/// is a captured monitor whose changes are not staged yet (its host died first): its marker and
/// sidecar are what the next tools object on its review scope adopts it by
/// ([`captured::adopt`]), so sweeping them would leave its writes unstaged for good.
/// Returns how many monitors were swept.
pub fn sweep(root: &Path) -> usize {
    let mut n = 0;
    for s in list(root) {
        if !running(root, &s) && !captured::captured(root, &s.id) {
            forget(root, &s.id);
            n += 1;
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_validated_before_they_touch_a_path() {
        assert!(valid_id("mon_0123abcd"));
        for bad in [
            "mon_0123ABCD",
            "mon_123",
            "../x",
            "mon_0123abcd/..",
            "mon_0123abcdx",
            "",
        ] {
            assert!(!valid_id(bad), "{bad}");
        }
        assert!(valid_id(&new_id()));
    }

    /// The window between a writer creating the exit file and writing its line: the monitor
    /// still runs, so no answer can say "not running" without its code.
    #[test]
    fn an_exit_file_counts_once_its_line_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join(STATE_DIR)).unwrap();
        let s = Sidecar {
            id: "mon_0123abcd".into(),
            command: "true".into(),
            cwd: root.to_string_lossy().into_owned(),
            pid: std::process::id(),
            started_at: 0,
            ready_when: None,
            input: Input::Null,
        };
        assert!(running(root, &s));
        let exit = file(root, &s.id, "exit");
        std::fs::write(&exit, "").unwrap();
        assert!(
            running(root, &s),
            "an empty exit file is still being written"
        );
        assert_eq!(exit_status(root, &s.id), Some(None));
        std::fs::write(&exit, "130\n").unwrap();
        assert!(!running(root, &s));
        assert_eq!(exit_status(root, &s.id), Some(Some(130)));
    }
}
