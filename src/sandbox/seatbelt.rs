//! macOS: the policy as a Seatbelt profile for `/usr/bin/sandbox-exec -p <profile> /bin/sh
//! -c …`. Generated here, on every platform, so it is unit-tested where the tests run; the
//! release workflow's macOS job runs it for real.
//!
//! Shape (after codex's base profile): `(deny default)`; processes may run and fork; reads
//! everywhere but the credentials; writes only beneath the writable roots and the tools
//! object's private temporary directory (exported as `TMPDIR`; unlike codex, the shared
//! `/tmp` and `/var/folders` stay read-only, so nothing one command leaves there can steer
//! a later process of the host), with `require-not` for every protected path (`literal` for the path itself,
//! so a missing one cannot be created, `subpath` for what lies under it); no network, or only
//! `localhost:<proxy port>`, or all of it; signals only to the sandbox's own processes
//! (`target same-sandbox`); no `process-info` of others (no `ps` of the host's environment).

use super::layout::Layout;
use super::status::{Enforcement, Status};
use crate::config::sandbox::{Network, Property};

/// A Seatbelt string literal.
fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The profile for `layout` with `network` (`proxy_port` with `allowedDomains`); `tmp` is the
/// private temporary directory, by its real path (Seatbelt matches resolved paths:
/// `/private/var/folders/…`, not `/var/folders/…`).
pub fn profile(
    layout: &Layout,
    network: &Network,
    proxy_port: Option<u16>,
    tmp: &std::path::Path,
) -> String {
    let mut p = String::from(
        "(version 1)\n(deny default)\n\
         (allow process-exec process-fork)\n\
         (allow signal (target same-sandbox))\n\
         (allow process-info* (target same-sandbox))\n\
         (allow sysctl-read)\n\
         (allow mach-lookup (global-name \"com.apple.system.opendirectoryd.libinfo\") (global-name \"com.apple.system.logger\") (global-name \"com.apple.CoreServices.coreservicesd\"))\n\
         (allow ipc-posix-shm-read* ipc-posix-sem)\n\
         (allow pseudo-tty)\n\
         (allow file-ioctl (literal \"/dev/null\") (literal \"/dev/tty\") (regex #\"^/dev/ttys[0-9]+$\"))\n",
    );
    // Reads: everything, less the credentials.
    p.push_str("(allow file-read*)\n");
    if !layout.deny_read.is_empty() {
        p.push_str("(deny file-read*\n");
        for d in &layout.deny_read {
            let q = quote(&d.to_string_lossy());
            p.push_str(&format!("  (literal {q}) (subpath {q})\n"));
        }
        p.push_str(")\n");
    }
    // Writes: beneath the roots, never a protected path (existing or not).
    p.push_str("(allow file-write*\n  (require-all\n    (require-any\n");
    for r in &layout.writable {
        p.push_str(&format!(
            "      (subpath {})\n",
            quote(&r.to_string_lossy())
        ));
    }
    p.push_str(&format!(
        "      (subpath {})\n",
        quote(&tmp.to_string_lossy())
    ));
    p.push_str("    )\n");
    for prot in &layout.protected {
        let q = quote(&prot.path.to_string_lossy());
        p.push_str(&format!(
            "    (require-not (literal {q}))\n    (require-not (subpath {q}))\n"
        ));
    }
    p.push_str("  )\n)\n");
    p.push_str(
        "(allow file-write-data (literal \"/dev/null\") (literal \"/dev/zero\") (literal \"/dev/tty\") (regex #\"^/dev/ttys[0-9]+$\"))\n",
    );
    match (network, proxy_port) {
        (Network::All, _) => p.push_str("(allow network*)\n"),
        (Network::Domains { .. }, Some(port)) => p.push_str(&format!(
            "(allow network-outbound (remote ip \"localhost:{port}\"))\n"
        )),
        _ => {}
    }
    // Unix sockets the command makes itself (in its temp directory or the workspace).
    p.push_str("(allow network-bind network-inbound (local unix-socket))\n");
    p
}

/// What Seatbelt enforces.
pub fn status(network: &Network) -> Status {
    let by = |m: &'static str| vec![m];
    let mk = |property, by: Vec<&'static str>| Enforcement {
        property,
        enforced: true,
        by,
        missing: None,
    };
    let _ = network;
    Status {
        platform: "macos",
        mechanisms: serde_json::json!({ "seatbelt": "/usr/bin/sandbox-exec" }),
        properties: vec![
            mk(Property::Writes, by("seatbelt")),
            mk(
                Property::ProtectedPaths,
                by("seatbelt (require-not literal/subpath)"),
            ),
            mk(Property::Reads, by("seatbelt")),
            mk(Property::Network, by("seatbelt (network)")),
            mk(
                Property::UnixSockets,
                by("seatbelt (network-outbound denied)"),
            ),
            mk(Property::Signals, by("seatbelt (same-sandbox)")),
            mk(Property::Ptrace, by("seatbelt (process-info same-sandbox)")),
            mk(
                Property::Privileges,
                by("seatbelt (setuid denied by sandbox)"),
            ),
            mk(Property::Namespaces, by("not applicable")),
            mk(Property::Environment, by("scrubbed before exec")),
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::super::layout::Protected;
    use super::*;
    use std::path::PathBuf;

    fn layout() -> Layout {
        Layout {
            workspace: "/Users/u/ws".into(),
            writable: vec!["/Users/u/ws".into()],
            protected: vec![Protected {
                path: "/Users/u/ws/.vscode".into(),
                dir: true,
                root: "/Users/u/ws".into(),
            }],
            deny_read: vec!["/Users/u/.ssh".into()],
            home: Some(PathBuf::from("/Users/u")),
        }
    }

    const TMP: &str = "/private/var/folders/xy/T/clarvis-sandbox-1";

    #[test]
    fn writes_are_denied_by_default_and_protected_paths_excluded() {
        let p = profile(&layout(), &Network::None, None, TMP.as_ref());
        assert!(p.starts_with("(version 1)\n(deny default)\n"));
        assert!(p.contains("(subpath \"/Users/u/ws\")"));
        assert!(p.contains("(require-not (literal \"/Users/u/ws/.vscode\"))"));
        assert!(p.contains("(require-not (subpath \"/Users/u/ws/.vscode\"))"));
        assert!(p.contains(
            "(deny file-read*\n  (literal \"/Users/u/.ssh\") (subpath \"/Users/u/.ssh\")"
        ));
        assert!(!p.contains("network-outbound"));
        assert!(!p.contains("(allow network*)"));
    }

    #[test]
    fn the_only_temporary_directory_writable_is_the_private_one() {
        let p = profile(&layout(), &Network::None, None, TMP.as_ref());
        assert!(p.contains(&format!("(subpath \"{TMP}\")")));
        // The shared ones another process of the host reads stay read-only.
        assert!(!p.contains("\"/private/tmp\""));
        assert!(!p.contains("\"/private/var/folders\""));
    }

    #[test]
    fn the_proxy_port_is_the_only_network() {
        let n = Network::Domains {
            allowed: vec!["a.com".into()],
            denied: vec![],
        };
        let p = profile(&layout(), &n, Some(4242), TMP.as_ref());
        assert!(p.contains("(allow network-outbound (remote ip \"localhost:4242\"))"));
        assert_eq!(p.matches("network-outbound").count(), 1);
        assert!(profile(&layout(), &Network::All, None, TMP.as_ref()).contains("(allow network*)"));
    }

    #[test]
    fn strings_are_quoted() {
        assert_eq!(quote("a\"b\\c"), "\"a\\\"b\\\\c\"");
    }
}
