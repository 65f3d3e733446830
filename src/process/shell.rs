//! The shell `bash` and the monitors run: `/bin/sh` on Unix, Git for Windows' `sh.exe` on
//! Windows (SPEC §9, Platforms: the tools speak POSIX shell everywhere).
//!
//! Git for Windows' installer puts only `Git\cmd` (git.exe) on `PATH` by default, not
//! `Git\bin` where `sh.exe` lives, so a `PATH` lookup alone misses most machines that have
//! it. The search is: `sh.exe` on `PATH`; beside the `git.exe` found on `PATH` (`cmd\`,
//! `bin\`, `mingw64\bin\` layouts); the standard install folders. Without any, the error
//! says what is missing and how to get it, instead of the OS's "program not found".

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};

/// The shell for `sh -c`: `/bin/sh` on Unix, else [`find_sh`] over the process environment.
/// Errors (Windows only): `NotFound` with [`missing_sh_message`].
pub fn shell() -> io::Result<PathBuf> {
    if cfg!(unix) {
        return Ok(PathBuf::from("/bin/sh"));
    }
    find_sh(std::env::var_os("PATH"), |k| std::env::var_os(k))
        .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, missing_sh_message()))
}

/// What a Windows user needs to know when no `sh.exe` is found.
pub fn missing_sh_message() -> String {
    "no sh.exe found: bash and monitors run commands with a POSIX sh, which Windows gets from \
     Git for Windows (looked on PATH, beside git.exe, in Program Files\\Git). Install Git for \
     Windows (https://git-scm.com/download/win, or: winget install --id Git.Git -e), or add \
     the folder that holds sh.exe (e.g. C:\\Program Files\\Git\\bin) to PATH"
        .to_string()
}

/// The first `sh.exe` in: the directories of `path` (a `PATH` value); the Git installation
/// a `git.exe` on `path` belongs to; `Git\bin` under `%ProgramFiles%`, `%ProgramW6432%`,
/// `%ProgramFiles(x86)%` and `%LOCALAPPDATA%\Programs` (read through `env`).
#[allow(clippy::let_and_return)] // see the end: the binding is needed
pub fn find_sh(path: Option<OsString>, env: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    let dirs: Vec<PathBuf> = path
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    let is_file = |p: &Path| p.is_file();
    if let Some(sh) = dirs.iter().map(|d| d.join("sh.exe")).find(|p| is_file(p)) {
        return Some(sh);
    }
    let installs = dirs
        .iter()
        .filter(|d| is_file(&d.join("git.exe")))
        .flat_map(|d| [d.parent(), d.parent().and_then(Path::parent)])
        .flatten()
        .map(Path::to_path_buf);
    let standard = ["ProgramFiles", "ProgramW6432", "ProgramFiles(x86)"]
        .iter()
        .filter_map(|k| env(k).map(|v| PathBuf::from(v).join("Git")))
        .chain(env("LOCALAPPDATA").map(|v| PathBuf::from(v).join("Programs").join("Git")));
    // Bound before returning: as a tail expression the iterator, which borrows `dirs`, would
    // be dropped after `dirs` (edition 2021 temporaries), which the borrow checker refuses.
    let found = installs
        .chain(standard)
        .flat_map(|git| {
            [
                git.join("bin").join("sh.exe"),
                git.join("usr").join("bin").join("sh.exe"),
            ]
        })
        .find(|p| is_file(p));
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(p: &Path) {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, "").unwrap();
    }

    fn path_of(dirs: &[PathBuf]) -> Option<OsString> {
        Some(std::env::join_paths(dirs).unwrap())
    }

    #[test]
    fn sh_on_path_first() {
        let t = tempfile::tempdir().unwrap();
        let (a, b) = (t.path().join("a"), t.path().join("b"));
        touch(&b.join("sh.exe"));
        std::fs::create_dir_all(&a).unwrap();
        let found = find_sh(path_of(&[a, b.clone()]), |_| None);
        assert_eq!(found, Some(b.join("sh.exe")));
    }

    #[test]
    fn beside_the_git_on_path_in_each_layout() {
        for git_dir in ["cmd", "bin", "mingw64/bin"] {
            let t = tempfile::tempdir().unwrap();
            let install = t.path().join("Git");
            touch(&install.join(git_dir).join("git.exe"));
            touch(&install.join("bin/sh.exe"));
            let found = find_sh(path_of(&[install.join(git_dir)]), |_| None);
            // `bin\git.exe` sits beside `bin\sh.exe`: found by the PATH pass itself.
            assert_eq!(found, Some(install.join("bin/sh.exe")), "{git_dir}");
        }
    }

    #[test]
    fn standard_install_folders_then_nothing() {
        let t = tempfile::tempdir().unwrap();
        let local = t.path().join("Local");
        touch(&local.join("Programs/Git/usr/bin/sh.exe"));
        let env = |k: &str| (k == "LOCALAPPDATA").then(|| local.clone().into_os_string());
        assert_eq!(
            find_sh(None, env),
            Some(local.join("Programs/Git/usr/bin/sh.exe"))
        );
        let pf = t.path().join("PF");
        touch(&pf.join("Git/bin/sh.exe"));
        let env = |k: &str| (k == "ProgramFiles").then(|| pf.clone().into_os_string());
        assert_eq!(find_sh(None, env), Some(pf.join("Git/bin/sh.exe")));
        assert_eq!(find_sh(path_of(&[t.path().join("none")]), |_| None), None);
        assert!(missing_sh_message().contains("Git for Windows"));
    }
}
