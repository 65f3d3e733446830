//! What a [`SandboxPolicy`] means on disk, platform-neutral: the writable roots, the protected
//! paths inside them, the unreadable credentials. Each platform's mechanism (mounts and
//! Landlock on Linux, a Seatbelt profile on macOS) enforces this one layout.

use crate::config::sandbox::home;
use crate::config::{Config, SandboxPolicy};
use std::path::{Path, PathBuf};

/// Names protected (read-only, existing or not) inside every writable root: what a command
/// could plant to run later, outside the sandbox — git hooks and configuration, editor and
/// agent settings, direnv, and the shell start-up files (in case a root is a home directory).
/// `true` for a directory.
pub const PROTECTED: &[(&str, bool)] = &[
    (".git/hooks", true),
    (".git/config", false),
    (".gitmodules", false),
    (".gitconfig", false),
    (".vscode", true),
    (".idea", true),
    (".mcp.json", false),
    (".envrc", false),
    (".clarvis", true),
    (".ripgreprc", false),
    (".bashrc", false),
    (".bash_profile", false),
    (".bash_login", false),
    (".bash_logout", false),
    (".profile", false),
    (".zshrc", false),
    (".zshenv", false),
    (".zprofile", false),
    (".zlogin", false),
];

/// Credentials under the home directory nobody sandboxed may read.
pub const CREDENTIALS: &[&str] = &[
    ".ssh",
    ".aws",
    ".gnupg",
    ".config/gh",
    ".netrc",
    ".npmrc",
    ".git-credentials",
    ".docker/config.json",
    ".kube",
    ".config/gcloud",
    ".azure",
    ".pypirc",
    ".cargo/credentials",
    ".cargo/credentials.toml",
];

/// Caches a denied write commonly goes to, for the note that says how to allow them.
pub const CACHES: &[&str] = &[
    ".cargo",
    ".npm",
    ".cache",
    ".rustup",
    ".yarn",
    ".pnpm-store",
    ".local/share/pnpm",
    ".m2",
    ".gradle",
    "go/pkg",
    ".bun",
    ".deno",
];

/// One protected path: where, and whether it is a directory when it has to be made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Protected {
    /// The absolute path.
    pub path: PathBuf,
    /// Whether a placeholder for it is a directory.
    pub dir: bool,
    /// The writable root it lies in.
    pub root: PathBuf,
}

/// The resolved layout of a policy for one workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// The workspace root (real path); always readable, writable unless `writeScope` narrows.
    pub workspace: PathBuf,
    /// Where writes are allowed (real paths, existing or not), besides the private temp dir.
    pub writable: Vec<PathBuf>,
    /// Read-only inside the writable roots.
    pub protected: Vec<Protected>,
    /// Unreadable (real paths where they exist).
    pub deny_read: Vec<PathBuf>,
    /// The home directory, when known (for the note and `~` in messages).
    pub home: Option<PathBuf>,
}

fn real(p: &Path) -> PathBuf {
    crate::paths::realpath_prefix(p).unwrap_or_else(|_| p.to_path_buf())
}

/// Drops entries that lie inside another entry, and duplicates.
fn outermost(mut v: Vec<PathBuf>) -> Vec<PathBuf> {
    v.sort();
    v.dedup();
    let mut out: Vec<PathBuf> = Vec::new();
    for p in v {
        if !out.iter().any(|o| p.starts_with(o)) {
            out.push(p);
        }
    }
    out
}

impl Layout {
    /// The layout of `policy` for `config`'s workspace.
    pub fn new(config: &Config, policy: &SandboxPolicy) -> Layout {
        let workspace = real(&config.workspace_root);
        let mut writable: Vec<PathBuf> = if config.write_scope.is_empty() {
            vec![workspace.clone()]
        } else {
            config.write_scope.iter().map(|s| real(&s.real)).collect()
        };
        writable.extend(policy.allow_write.iter().map(|p| real(p)));
        let writable = outermost(writable);
        let mut protected = Vec::new();
        for root in &writable {
            let names = PROTECTED
                .iter()
                .map(|(n, dir)| (PathBuf::from(n), *dir))
                .chain(
                    policy
                        .deny_write
                        .iter()
                        .filter(|p| p.is_relative())
                        .map(|p| (p.clone(), false)),
                );
            for (name, dir) in names {
                protected.push(Protected {
                    path: root.join(name),
                    dir,
                    root: root.clone(),
                });
            }
        }
        for abs in policy.deny_write.iter().filter(|p| p.is_absolute()) {
            let abs = real(abs);
            if let Some(root) = writable.iter().find(|r| abs.starts_with(r)) {
                protected.push(Protected {
                    path: abs.clone(),
                    dir: abs.is_dir(),
                    root: root.clone(),
                });
            }
        }
        let home = home();
        let mut deny_read: Vec<PathBuf> = home
            .iter()
            .flat_map(|h| CREDENTIALS.iter().map(move |c| h.join(c)))
            .chain(policy.deny_read.iter().cloned())
            .map(|p| real(&p))
            .collect();
        deny_read.sort();
        deny_read.dedup();
        Layout {
            workspace,
            writable,
            protected,
            deny_read,
            home,
        }
    }

    /// `p` shown with `~` for the home directory.
    pub fn show(&self, p: &Path) -> String {
        match self.home.as_ref().and_then(|h| p.strip_prefix(h).ok()) {
            Some(rest) if rest.as_os_str().is_empty() => "~".into(),
            Some(rest) => format!("~/{}", rest.display()),
            None => p.display().to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_roots_collapse() {
        let v = outermost(vec!["/a/b".into(), "/a".into(), "/c".into(), "/a".into()]);
        assert_eq!(v, vec![PathBuf::from("/a"), PathBuf::from("/c")]);
    }

    #[test]
    fn protected_names_live_in_every_writable_root() {
        let ws = tempfile::tempdir().unwrap();
        let extra = tempfile::tempdir().unwrap();
        let config = Config::with_root(ws.path());
        let policy = SandboxPolicy {
            allow_write: vec![extra.path().to_path_buf()],
            deny_write: vec!["secrets.env".into()],
            ..SandboxPolicy::default()
        };
        let l = Layout::new(&config, &policy);
        assert_eq!(l.writable.len(), 2);
        let real_ws = std::fs::canonicalize(ws.path()).unwrap();
        for name in [".git/hooks", ".vscode", ".bashrc", "secrets.env"] {
            assert!(
                l.protected.iter().any(|p| p.path == real_ws.join(name)),
                "{name}"
            );
        }
        assert!(l.protected.iter().any(|p| p
            .path
            .starts_with(std::fs::canonicalize(extra.path()).unwrap())));
    }
}
