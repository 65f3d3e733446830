//! Temp files a killed process left: which pids are alive, and the sweep that removes
//! their leftovers.

use super::TEMP_PREFIX;
use std::fs;

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// How old a dead process's temp file must be before a sweep removes it. The pid check is
/// what matters; the age only spares a live writer whose pid this process cannot see (another
/// pid namespace sharing the directory), whose temp file is seconds old at most.
pub const STALE_TEMP_AGE: Duration = Duration::from_secs(30);

/// Whether `pid` is a running process: Windows asks the process handle for its exit code
/// (`STILL_ACTIVE` while it runs); a pid that cannot be opened for lack of rights is alive.
#[cfg(windows)]
pub fn pid_alive(pid: u32) -> bool {
    use windows_sys::Win32::Foundation::{
        CloseHandle, GetLastError, ERROR_ACCESS_DENIED, STILL_ACTIVE,
    };
    use windows_sys::Win32::System::Threading::{
        GetExitCodeProcess, OpenProcess, PROCESS_QUERY_LIMITED_INFORMATION,
    };
    if pid == 0 {
        return false;
    }
    // SAFETY: plain Win32 calls; the handle, when opened, is closed before returning.
    unsafe {
        let h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid);
        if h.is_null() {
            return GetLastError() == ERROR_ACCESS_DENIED;
        }
        let mut code = 0u32;
        let ok = GetExitCodeProcess(h, &mut code) != 0;
        CloseHandle(h);
        !ok || code == STILL_ACTIVE as u32
    }
}

/// Elsewhere without a probe, a pid is presumed alive (its files then wait for a later start).
#[cfg(not(any(unix, windows)))]
pub fn pid_alive(pid: u32) -> bool {
    pid != 0
}

/// Whether `pid` is a running process (a zombie is not; another user's process is).
#[cfg(unix)]
pub fn pid_alive(pid: u32) -> bool {
    let Ok(p) = libc::pid_t::try_from(pid) else {
        return false;
    };
    if p <= 0 {
        return false;
    }
    // SAFETY: signal 0 only checks existence and permission.
    if unsafe { libc::kill(p, 0) } != 0
        && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
    {
        return false;
    }
    match fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !matches!(
            stat.rfind(')')
                .and_then(|i| stat[i + 1..].split_ascii_whitespace().next()),
            Some("Z") | Some("X")
        ),
        Err(_) => true,
    }
}

/// Removes the `.clarvis-tmp-<pid>-…` regular files in `dir` left by processes that are no
/// longer running and older than [`STALE_TEMP_AGE`] — none while a commit journal is pending
/// in a `.clarvis/journal` of `dir` or an ancestor. Best effort; returns how many it removed.
pub fn sweep_stale(dir: &Path) -> usize {
    let Ok(entries) = fs::read_dir(dir) else {
        return 0;
    };
    let now = SystemTime::now();
    let me = std::process::id();
    let stale: Vec<PathBuf> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name();
            let rest = name.to_str()?.strip_prefix(TEMP_PREFIX)?;
            let pid: u32 = rest.split('-').next()?.parse().ok()?;
            if pid == me || pid_alive(pid) {
                return None;
            }
            // DirEntry::metadata does not follow a symlink.
            let meta = e.metadata().ok()?;
            let age = now.duration_since(meta.modified().ok()?).ok()?;
            (meta.is_file() && age >= STALE_TEMP_AGE).then(|| e.path())
        })
        .collect();
    if stale.is_empty() || dir.ancestors().any(crate::atomic::journal::any_pending) {
        return 0;
    }
    stale.iter().filter(|p| fs::remove_file(p).is_ok()).count()
}
