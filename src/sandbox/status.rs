//! What the sandbox enforces on this machine, per property, and how — what `probeSandbox()`
//! and `tools.sandboxStatus()` report, and what decides whether `createAgentTools` refuses to
//! start ("never silently weaker").

use crate::config::sandbox::{Network, Property};
use crate::config::SandboxPolicy;
use crate::config::StartupError;
use serde_json::{json, Value};

/// The kernel mechanisms available (after a test's forcing).
#[derive(Debug, Clone)]
pub struct Mechanisms {
    /// Landlock's ABI version (0: none).
    pub landlock_abi: u8,
    /// seccomp filters.
    pub seccomp: bool,
    /// Unprivileged user namespaces (with mount and network namespaces in them), or why not.
    pub user_namespaces: Result<(), String>,
}

/// One property: enforced or not, by which mechanisms, and what is missing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Enforcement {
    /// The property.
    pub property: Property,
    /// Whether the property holds.
    pub enforced: bool,
    /// The mechanisms that enforce it.
    pub by: Vec<&'static str>,
    /// What it lacks, when not enforced.
    pub missing: Option<String>,
}

/// The whole report.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Status {
    /// `linux`, `macos`, `windows`, …
    pub platform: &'static str,
    /// The mechanisms and their details, as JSON.
    pub mechanisms: Value,
    /// Per property.
    pub properties: Vec<Enforcement>,
}

fn prop(property: Property, by: Vec<&'static str>, missing: Option<String>) -> Enforcement {
    Enforcement {
        property,
        enforced: missing.is_none(),
        by,
        missing,
    }
}

impl Status {
    /// The Linux report for these mechanisms and network policy.
    pub fn linux(m: &Mechanisms, network: &Network) -> Status {
        let ll = m.landlock_abi > 0;
        let userns = m.user_namespaces.is_ok();
        let why_userns = || {
            format!(
                "user namespaces ({})",
                m.user_namespaces.as_ref().err().map_or("", String::as_str)
            )
        };
        let need = |checks: &[(bool, String)]| -> Option<String> {
            let missing: Vec<&str> = checks
                .iter()
                .filter(|(ok, _)| !ok)
                .map(|(_, w)| w.as_str())
                .collect();
            (!missing.is_empty()).then(|| missing.join(" and "))
        };
        let landlock = (ll, "Landlock".to_string());
        let abi6 = (m.landlock_abi >= 6, "Landlock ABI 6 (scopes)".to_string());
        let ns = (userns, why_userns());
        let seccomp = (m.seccomp, "seccomp".to_string());
        let pick = |pairs: &[(bool, &'static str)]| -> Vec<&'static str> {
            pairs
                .iter()
                .filter(|(ok, _)| *ok)
                .map(|(_, n)| *n)
                .collect()
        };
        let netns = userns && !matches!(network, Network::All);
        let properties = vec![
            prop(
                Property::Writes,
                pick(&[(ll, "landlock"), (userns, "mount namespace (read-only tree)")]),
                // Landlock governs contents and names, not metadata: without the read-only
                // mount tree, chmod, chown and timestamps outside the roots stay writable.
                need(&[
                    landlock.clone(),
                    (
                        userns,
                        format!(
                            "{} for a read-only mount tree (Landlock alone does not stop chmod, chown or timestamp changes)",
                            why_userns()
                        ),
                    ),
                ]),
            ),
            prop(
                Property::ProtectedPaths,
                pick(&[
                    (userns, "mount namespace (read-only binds)"),
                    (ll, "landlock"),
                ]),
                need(&[ns.clone(), landlock.clone()]),
            ),
            prop(
                Property::Reads,
                pick(&[(userns, "mount namespace (hidden)"), (ll, "landlock")]),
                need(&[ns.clone(), landlock.clone()]),
            ),
            match network {
                Network::All => prop(Property::Network, vec!["none needed ('all')"], None),
                Network::None => prop(
                    Property::Network,
                    pick(&[
                        (m.seccomp, "seccomp (socket families)"),
                        (netns, "network namespace"),
                        (m.landlock_abi >= 4, "landlock (TCP)"),
                    ]),
                    (!m.seccomp && !netns).then(|| "seccomp or user namespaces".to_string()),
                ),
                Network::Domains { .. } => prop(
                    Property::Network,
                    pick(&[
                        (netns, "network namespace (only the proxy's listener)"),
                        (m.seccomp, "seccomp (socket families)"),
                        (m.landlock_abi >= 4, "landlock (TCP to the proxy only)"),
                    ]),
                    need(std::slice::from_ref(&ns)),
                ),
            },
            prop(
                Property::UnixSockets,
                pick(&[
                    (userns, "mount namespace (host sockets hidden)"),
                    (m.landlock_abi >= 6, "landlock (abstract sockets scoped)"),
                    (netns, "network namespace (abstract sockets)"),
                ]),
                need(&[
                    ns.clone(),
                    landlock.clone(),
                    (
                        m.landlock_abi >= 6 || netns,
                        "Landlock ABI 6 or a network namespace (abstract sockets)".into(),
                    ),
                ]),
            ),
            prop(
                Property::Signals,
                pick(&[(m.landlock_abi >= 6, "landlock (signals scoped)")]),
                need(&[abi6]),
            ),
            prop(
                Property::Ptrace,
                pick(&[(ll, "landlock"), (m.seccomp, "seccomp")]),
                need(std::slice::from_ref(&landlock)),
            ),
            prop(
                Property::Privileges,
                vec!["no_new_privs", "capabilities dropped"],
                None,
            ),
            prop(
                Property::Namespaces,
                pick(&[(m.seccomp, "seccomp"), (ll, "landlock (no mounts)")]),
                need(&[seccomp]),
            ),
            prop(Property::Environment, vec!["scrubbed before exec"], None),
        ];
        Status {
            platform: "linux",
            mechanisms: json!({
                "landlockAbi": m.landlock_abi,
                "seccomp": m.seccomp,
                "userNamespaces": userns,
                "userNamespacesError": m.user_namespaces.as_ref().err(),
            }),
            properties,
        }
    }

    /// The report of a platform without a sandbox.
    pub fn unsupported(platform: &'static str, why: &str) -> Status {
        Status {
            platform,
            mechanisms: json!({}),
            properties: Property::ALL
                .iter()
                .map(|&p| prop(p, vec![], Some(why.to_string())))
                .collect(),
        }
    }

    /// The report as JSON: `{platform, mechanisms, properties: {name: {enforced, by,
    /// missing?}}}`.
    pub fn to_json(&self) -> Value {
        let mut props = serde_json::Map::new();
        for e in &self.properties {
            let mut v = json!({ "enforced": e.enforced, "by": e.by });
            if let Some(m) = &e.missing {
                v["missing"] = Value::from(m.clone());
            }
            props.insert(e.property.name().into(), v);
        }
        json!({
            "platform": self.platform,
            "mechanisms": self.mechanisms,
            "properties": props,
        })
    }

    /// `Err` naming the first property `policy` requires that is not enforced.
    pub fn check(&self, policy: &SandboxPolicy) -> Result<(), StartupError> {
        let missing: Vec<&Enforcement> = self
            .properties
            .iter()
            .filter(|e| !e.enforced && policy.requires(e.property))
            .collect();
        let Some(first) = missing.first() else {
            return Ok(());
        };
        let names: Vec<&str> = missing.iter().map(|e| e.property.name()).collect();
        Err(StartupError(format!(
            "sandbox: {} cannot be enforced on this machine: it needs {}. Fix the machine, or pass sandbox.require without {} to run with what is enforced (see probeSandbox()).",
            names.join(", "),
            first.missing.as_deref().unwrap_or("a missing mechanism"),
            names.join(", "),
        )))
    }
}
