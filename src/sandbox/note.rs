//! The one line a failed sandboxed command's output ends with, so the model changes approach
//! instead of retrying: that it ran sandboxed, what the sandbox allows, and — for a denied
//! write to a known cache — how the host allows it.

use super::layout::{Layout, CACHES};
use crate::config::sandbox::Network;

/// Error texts that mean the sandbox (or no network) refused something.
const DENIALS: &[&str] = &[
    "Permission denied",
    "Read-only file system",
    "Operation not permitted",
    "EACCES",
    "EROFS",
    "EPERM",
];
const NETWORK: &[&str] = &[
    "Address family not supported",
    "Network is unreachable",
    "Could not resolve host",
    "Temporary failure in name resolution",
    "Name or service not known",
    "getaddrinfo",
    "ENOTFOUND",
    "EAI_AGAIN",
    "ENETUNREACH",
    "EAFNOSUPPORT",
    "Connection refused",
    "Couldn't connect to server",
    "Failed to connect",
    "Bad file descriptor",
    "403 Forbidden",
];

/// What the sandbox allows, in one sentence.
fn allows(layout: &Layout, network: &Network) -> String {
    let roots: Vec<String> = layout.writable.iter().map(|p| layout.show(p)).collect();
    let net = match network {
        Network::None => "no network".to_string(),
        Network::All => "the network".to_string(),
        Network::Domains { allowed, .. } => format!(
            "network only through its HTTP proxy to {}",
            allowed.join(", ")
        ),
    };
    format!(
        "it may write only under {} and $TMPDIR (not .git/hooks, .git/config, .vscode, .idea, .mcp.json, .envrc, .clarvis or shell start-up files there), may not read credentials (~/.ssh, ~/.aws, …), and has {net}",
        roots.join(", ")
    )
}

/// The note for a sandboxed command that failed with `output` (stdout and stderr), or `None`
/// when the output shows no denial.
pub fn note(layout: &Layout, network: &Network, output: &str) -> Option<String> {
    let denied = DENIALS.iter().any(|d| output.contains(d));
    let offline = !matches!(network, Network::All) && NETWORK.iter().any(|d| output.contains(d));
    if !denied && !offline {
        return None;
    }
    let mut line = format!(
        "[sandbox] This command ran in a sandbox: {}.",
        allows(layout, network)
    );
    if let Some(cache) = denied.then(|| cache_in(layout, output)).flatten() {
        line.push_str(&format!(
            " A write to {cache} was denied: the host can allow it with sandbox.filesystem.allowWrite: [\"{cache}\"] (or --allow-write {cache})."
        ));
    } else if offline && matches!(network, Network::None) {
        line.push_str(" Work offline, or ask the user to allow the domains you need (sandbox.network.allowedDomains).");
    } else {
        line.push_str(" Do not retry the same command; work within these limits or ask the user.");
    }
    Some(line)
}

/// The known cache a denied write in `output` went to, shown with `~`.
fn cache_in(layout: &Layout, output: &str) -> Option<String> {
    let home = layout.home.as_ref()?;
    CACHES.iter().find_map(|c| {
        let abs = home.join(c);
        let shown = format!("~/{c}");
        (output.contains(&*abs.to_string_lossy()) || output.contains(&shown)).then_some(shown)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn layout() -> Layout {
        Layout {
            workspace: "/ws".into(),
            writable: vec!["/ws".into()],
            protected: vec![],
            deny_read: vec![],
            home: Some(PathBuf::from("/home/u")),
        }
    }

    #[test]
    fn a_denied_write_gets_one_line() {
        let n = note(
            &layout(),
            &Network::None,
            "touch: cannot touch '/etc/x': Permission denied\n",
        )
        .unwrap();
        assert!(
            n.starts_with(
                "[sandbox] This command ran in a sandbox: it may write only under /ws and $TMPDIR"
            ),
            "{n}"
        );
        assert!(!n.contains('\n'));
    }

    #[test]
    fn a_cache_gets_the_recipe() {
        let n = note(
            &layout(),
            &Network::None,
            "error: failed to open `/home/u/.cargo/registry/x`: Read-only file system",
        )
        .unwrap();
        assert!(
            n.contains("sandbox.filesystem.allowWrite: [\"~/.cargo\"]"),
            "{n}"
        );
    }

    #[test]
    fn ordinary_failures_get_none() {
        assert_eq!(note(&layout(), &Network::None, "test failed: 1 != 2"), None);
        assert!(note(
            &layout(),
            &Network::None,
            "curl: (6) Could not resolve host: example.com"
        )
        .unwrap()
        .contains("no network"));
        assert_eq!(
            note(&layout(), &Network::All, "Could not resolve host: x"),
            None
        );
    }
}
