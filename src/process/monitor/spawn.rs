//! Starting a monitor: a detached `sh -c` in its own session, output appended to its log,
//! exit status written by an EXIT trap, state in a sidecar.

use super::{ensure_dir, file, new_id, save, Sidecar};
use crate::process::group::CALL_ID_VAR;
use std::io;
use std::path::Path;
use std::process::{Command, Stdio};

/// A started monitor.
#[derive(Debug)]
pub struct Started {
    /// Its sidecar (already on disk).
    pub sidecar: Sidecar,
}

/// The script the shell runs: an EXIT trap that writes `$?` to `$MON_EXIT`, then the command
/// on its own line (so a trailing comment or an unterminated heredoc in it cannot swallow
/// the trap).
fn script(command: &str) -> String {
    format!("trap 'echo $? > \"$MON_EXIT\"' EXIT\n{command}\n")
}

/// Starts `command` in `cwd` (an existing directory) for the workspace `root`. On a spawn
/// failure the log is removed and the error returned.
pub fn start(
    root: &Path,
    cwd: &Path,
    command: &str,
    ready_when: Option<&str>,
) -> io::Result<Started> {
    ensure_dir(root)?;
    // A fresh id whose files do not exist yet (4 random bytes: a collision is rare, not impossible).
    let id = loop {
        let id = new_id();
        if !file(root, &id, "json").exists() && !file(root, &id, "log").exists() {
            break id;
        }
    };
    let log_path = file(root, &id, "log");
    let log = std::fs::OpenOptions::new()
        .append(true)
        .create_new(true)
        .open(&log_path)?;
    let err = log.try_clone()?;
    let mut cmd = Command::new("/bin/sh");
    cmd.arg("-c")
        .arg(script(command))
        .current_dir(cwd)
        .env("MON_EXIT", file(root, &id, "exit"))
        .env(CALL_ID_VAR, &id)
        .stdin(Stdio::null())
        .stdout(log)
        .stderr(err);
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: `setsid` and `prctl` are async-signal-safe and touch no parent memory.
        unsafe {
            cmd.pre_exec(|| {
                if libc::setsid() == -1 {
                    return Err(io::Error::last_os_error());
                }
                // Orphans of double forks stay in the monitor's tree while its shell lives.
                #[cfg(target_os = "linux")]
                libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
                Ok(())
            });
        }
    }
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            let _ = std::fs::remove_file(&log_path);
            return Err(e);
        }
    };
    let sidecar = Sidecar {
        id,
        command: command.to_string(),
        cwd: cwd.to_string_lossy().into_owned(),
        pid: child.id(),
        started_at: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as u64)
            .unwrap_or(0),
        ready_when: ready_when.map(str::to_string),
    };
    // Reap it when it exits, so it does not linger as a zombie of this process (liveness is
    // judged from the pid, and a new instance would see it as a stranger's process).
    let _ = std::thread::Builder::new()
        .name("clarvis-monitor-reaper".into())
        .spawn(move || {
            let _ = child.wait();
        });
    save(root, &sidecar)?;
    Ok(Started { sidecar })
}
