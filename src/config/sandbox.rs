//! The `sandbox` option: `true | { filesystem?: { allowWrite?, denyWrite?, denyRead? },
//! network?: 'none' | 'all' | { allowedDomains, deniedDomains? }, env?: { allow? },
//! require? }` (and `--sandbox`, `--allow-write`, `--allow-domain`, `CLARVIS_SANDBOX` for the
//! command line) checked and turned into a [`SandboxPolicy`] of plain values.
//!
//! The field names follow sandbox-runtime's configuration. What the policy *means* — which
//! paths are writable, which are protected, what the kernel enforces — is the sandbox engine's
//! business (`crate::sandbox`); this module only validates and normalises what the host wrote.

use super::{js_string, StartupError};
use crate::paths::normalize;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// The network a sandboxed command gets.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Network {
    /// No network at all (the default): only Unix sockets the command itself creates.
    #[default]
    None,
    /// The host's network, unfiltered.
    All,
    /// Egress only through the addon's filtering HTTP proxy, to these host names.
    Domains {
        /// Host names (`example.com`, or `*.example.com` for its subdomains) the proxy lets
        /// through.
        allowed: Vec<String>,
        /// Host names refused even when `allowed` matches them.
        denied: Vec<String>,
    },
}

/// A property of the sandbox, as `require` names it and `sandboxStatus()` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Property {
    /// Writes only under the writable roots and the private temporary directory.
    Writes,
    /// Protected paths inside the writable roots stay read-only, existing or not.
    ProtectedPaths,
    /// Credentials (and `denyRead`) cannot be read.
    Reads,
    /// The network policy (none, or only through the proxy).
    Network,
    /// No Unix socket to a service outside the sandbox (pathname or abstract).
    UnixSockets,
    /// No signal to a process outside the sandbox.
    Signals,
    /// No ptrace of (or memory access to) a process outside the sandbox.
    Ptrace,
    /// No new privileges (setuid does not elevate), no capabilities.
    Privileges,
    /// No new namespaces to escape the rules.
    Namespaces,
    /// Secret-looking environment variables are not passed.
    Environment,
}

impl Property {
    /// Every property, in the order they are reported.
    pub const ALL: [Property; 10] = [
        Property::Writes,
        Property::ProtectedPaths,
        Property::Reads,
        Property::Network,
        Property::UnixSockets,
        Property::Signals,
        Property::Ptrace,
        Property::Privileges,
        Property::Namespaces,
        Property::Environment,
    ];

    /// The name `require` and the status use.
    pub fn name(self) -> &'static str {
        match self {
            Property::Writes => "writes",
            Property::ProtectedPaths => "protectedPaths",
            Property::Reads => "reads",
            Property::Network => "network",
            Property::UnixSockets => "unixSockets",
            Property::Signals => "signals",
            Property::Ptrace => "ptrace",
            Property::Privileges => "privileges",
            Property::Namespaces => "namespaces",
            Property::Environment => "environment",
        }
    }

    fn parse(name: &str) -> Option<Property> {
        Property::ALL.into_iter().find(|p| p.name() == name)
    }
}

/// Mechanisms a test can switch off to exercise the fallbacks (honoured only with the test
/// hooks' environment variable, like `__testHooks`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Force {
    /// Act as if the kernel had no Landlock.
    pub no_landlock: bool,
    /// Act as if user namespaces were refused.
    pub no_userns: bool,
    /// Use at most this Landlock ABI.
    pub landlock_abi: Option<u8>,
    /// Act as if seccomp were unavailable.
    pub no_seccomp: bool,
}

/// The `sandbox` option, resolved: paths absolute and normalised, lists checked.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SandboxPolicy {
    /// Writable roots beyond the workspace (or `writeScope`) and the private temp directory.
    pub allow_write: Vec<PathBuf>,
    /// More protected paths: absolute ones as they are, relative ones under every writable
    /// root (like the built-in names).
    pub deny_write: Vec<PathBuf>,
    /// More unreadable paths (absolute).
    pub deny_read: Vec<PathBuf>,
    /// The network policy.
    pub network: Network,
    /// Environment variables passed even though their names look like secrets.
    pub env_allow: Vec<String>,
    /// The properties the host needs; `None` means all of them.
    pub require: Option<Vec<Property>>,
    /// Test-only: mechanisms to act as missing.
    pub force: Force,
}

impl SandboxPolicy {
    /// Whether the host needs `p` enforced (startup fails if it is not).
    pub fn requires(&self, p: Property) -> bool {
        self.require.as_ref().is_none_or(|r| r.contains(&p))
    }

    /// The public `config.sandbox` value.
    pub fn to_json(&self) -> Value {
        let paths = |v: &[PathBuf]| -> Vec<String> {
            v.iter().map(|p| p.to_string_lossy().into_owned()).collect()
        };
        let network = match &self.network {
            Network::None => Value::from("none"),
            Network::All => Value::from("all"),
            Network::Domains { allowed, denied } => serde_json::json!({
                "allowedDomains": allowed,
                "deniedDomains": denied,
            }),
        };
        let mut v = serde_json::json!({
            "filesystem": {
                "allowWrite": paths(&self.allow_write),
                "denyWrite": paths(&self.deny_write),
                "denyRead": paths(&self.deny_read),
            },
            "network": network,
            "env": { "allow": self.env_allow },
        });
        if let (Some(r), Some(o)) = (&self.require, v.as_object_mut()) {
            let names: Vec<&str> = r.iter().map(|p| p.name()).collect();
            o.insert("require".into(), Value::from(names));
        }
        v
    }
}

/// The home directory `~` stands for ([`crate::paths::home_dir`]: `$HOME`; on Windows,
/// `%USERPROFILE%` when `HOME` is unset), if known.
pub fn home() -> Option<PathBuf> {
    crate::paths::home_dir().map(PathBuf::from)
}

/// `~`, `~/x`, an absolute path, or a path relative to `base`, made absolute and normalised.
fn expand(raw: &str, base: &Path) -> Option<PathBuf> {
    let p = if raw == "~" {
        home()?
    } else if let Some(rest) = raw.strip_prefix("~/") {
        home()?.join(rest)
    } else if Path::new(raw).is_absolute() {
        PathBuf::from(raw)
    } else {
        base.join(raw)
    };
    Some(normalize(&p))
}

fn err(msg: String) -> StartupError {
    StartupError(msg)
}

/// A list of non-empty strings at `sandbox.<at>`.
fn strings(v: Option<&Value>, at: &str) -> Result<Vec<String>, StartupError> {
    match v {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(a)) => a
            .iter()
            .map(|x| match x.as_str() {
                Some(s) if !s.is_empty() => Ok(s.to_string()),
                _ => Err(err(format!(
                    "sandbox.{at} entries must be non-empty strings, got: {}",
                    js_string(x)
                ))),
            })
            .collect(),
        Some(other) => Err(err(format!(
            "sandbox.{at} must be an array of strings, got: {}",
            js_string(other)
        ))),
    }
}

fn object<'a>(
    v: Option<&'a Value>,
    at: &str,
    keys: &[&str],
) -> Result<Option<&'a Map<String, Value>>, StartupError> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(o)) => {
            if let Some(k) = o.keys().find(|k| !keys.contains(&k.as_str())) {
                return Err(err(format!(
                    "sandbox{at} has an unknown key: {k} (known: {})",
                    keys.join(", ")
                )));
            }
            Ok(Some(o))
        }
        Some(other) => Err(err(format!(
            "sandbox{at} must be an object, got: {}",
            js_string(other)
        ))),
    }
}

/// A domain pattern: a host name, or `*.` and a host name. Lower-cased.
fn domain(raw: &str, at: &str) -> Result<String, StartupError> {
    let name = raw.strip_prefix("*.").unwrap_or(raw);
    let ok = !name.is_empty()
        && name.len() <= 253
        && name.split('.').all(|l| {
            !l.is_empty()
                && l.len() <= 63
                && l.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        });
    if !ok {
        return Err(err(format!(
            "sandbox.network.{at} entries must be host names (example.com or *.example.com), got: {raw}"
        )));
    }
    Ok(raw.to_ascii_lowercase())
}

fn network(v: Option<&Value>) -> Result<Network, StartupError> {
    match v {
        None | Some(Value::Null) => Ok(Network::None),
        Some(Value::String(s)) if s == "none" => Ok(Network::None),
        Some(Value::String(s)) if s == "all" => Ok(Network::All),
        Some(o @ Value::Object(_)) => {
            let o = object(Some(o), ".network", &["allowedDomains", "deniedDomains"])?
                .expect("an object");
            let allowed = strings(o.get("allowedDomains"), "network.allowedDomains")?
                .iter()
                .map(|d| domain(d, "allowedDomains"))
                .collect::<Result<Vec<_>, _>>()?;
            if !o.contains_key("allowedDomains") {
                return Err(err(
                    "sandbox.network needs allowedDomains (use 'none' for no network, 'all' for any)"
                        .into(),
                ));
            }
            let denied = strings(o.get("deniedDomains"), "network.deniedDomains")?
                .iter()
                .map(|d| domain(d, "deniedDomains"))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(Network::Domains { allowed, denied })
        }
        Some(other) => Err(err(format!(
            "sandbox.network must be 'none', 'all' or {{ allowedDomains, deniedDomains? }}, got: {}",
            js_string(other)
        ))),
    }
}

/// Parses the `sandbox` option (`root` is the workspace root relative paths resolve
/// against). `None` when off; `StartupError` for a malformed value, and on Windows for any
/// sandbox asked for. The value is checked whole first, on every platform: one
/// configuration shipped to every user fails the same way everywhere, and a Windows user is
/// told the platform is unsupported only about a sandbox that would work elsewhere.
pub fn parse(v: Option<&Value>, root: &Path) -> Result<Option<SandboxPolicy>, StartupError> {
    let policy = policy(v, root)?;
    if cfg!(windows) && policy.is_some() {
        return Err(err(
            "sandbox is not supported on Windows: run the host in a container or VM instead, or leave sandbox off"
                .into(),
        ));
    }
    Ok(policy)
}

/// [`parse`] on every platform.
fn policy(v: Option<&Value>, root: &Path) -> Result<Option<SandboxPolicy>, StartupError> {
    let o = match v {
        None | Some(Value::Null) | Some(Value::Bool(false)) => return Ok(None),
        Some(Value::Bool(true)) => None,
        Some(Value::Object(_)) => object(
            v,
            "",
            &["filesystem", "network", "env", "require", "__force"],
        )?,
        Some(other) => {
            return Err(err(format!(
                "sandbox must be true, false or an object {{ filesystem, network, env, require }}, got: {}",
                js_string(other)
            )))
        }
    };
    let mut policy = SandboxPolicy::default();
    let Some(o) = o else {
        return Ok(Some(policy));
    };
    if let Some(fs) = object(
        o.get("filesystem"),
        ".filesystem",
        &["allowWrite", "denyWrite", "denyRead"],
    )? {
        let paths = |key: &str, relative_kept: bool| -> Result<Vec<PathBuf>, StartupError> {
            strings(fs.get(key), &format!("filesystem.{key}"))?
                .iter()
                .map(|raw| {
                    if relative_kept && !raw.starts_with('~') && !Path::new(raw).is_absolute() {
                        let n = normalize(Path::new(raw));
                        if n.starts_with("..") {
                            return Err(err(format!(
                                "sandbox.filesystem.{key} entries must not climb out with '..', got: {raw}"
                            )));
                        }
                        return Ok(n);
                    }
                    expand(raw, root).ok_or_else(|| {
                        err(format!(
                            "sandbox.filesystem.{key}: {raw} needs $HOME, which is not set"
                        ))
                    })
                })
                .collect()
        };
        policy.allow_write = paths("allowWrite", false)?;
        policy.deny_write = paths("denyWrite", true)?;
        policy.deny_read = paths("denyRead", false)?;
        if let Some(p) = policy.allow_write.iter().find(|p| p.as_os_str() == "/") {
            return Err(err(format!(
                "sandbox.filesystem.allowWrite must not make the whole filesystem writable: {}",
                p.display()
            )));
        }
    }
    policy.network = network(o.get("network"))?;
    if let Some(env) = object(o.get("env"), ".env", &["allow"])? {
        policy.env_allow = strings(env.get("allow"), "env.allow")?;
    }
    if let Some(r) = o.get("require").filter(|r| !r.is_null()) {
        let names = strings(Some(r), "require")?;
        let mut props = Vec::new();
        for n in names {
            let p = Property::parse(&n).ok_or_else(|| {
                let known: Vec<&str> = Property::ALL.iter().map(|p| p.name()).collect();
                err(format!(
                    "sandbox.require names an unknown property: {n} (properties: {})",
                    known.join(", ")
                ))
            })?;
            props.push(p);
        }
        policy.require = Some(props);
    }
    Ok(Some(policy))
}

/// The test-only forcing of fallbacks: `__force` in the option object, or the
/// `CLARVIS_SANDBOX_FORCE` environment variable (`no-landlock,no-userns,landlock-abi=3,
/// no-seccomp`), each honoured only when the test hooks' variable is `1`.
pub fn force(v: Option<&Value>, hooks_enabled: bool) -> Force {
    let mut f = Force::default();
    if !hooks_enabled {
        return f;
    }
    let mut words: Vec<String> = std::env::var("CLARVIS_SANDBOX_FORCE")
        .unwrap_or_default()
        .split(',')
        .map(|s| s.trim().to_string())
        .collect();
    if let Some(Value::Array(a)) = v.and_then(Value::as_object).and_then(|o| o.get("__force")) {
        words.extend(a.iter().filter_map(Value::as_str).map(str::to_string));
    }
    for w in words {
        match w.as_str() {
            "no-landlock" => f.no_landlock = true,
            "no-userns" => f.no_userns = true,
            "no-seccomp" => f.no_seccomp = true,
            w => {
                if let Some(n) = w.strip_prefix("landlock-abi=").and_then(|n| n.parse().ok()) {
                    f.landlock_abi = Some(n);
                }
            }
        }
    }
    f
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn p(v: Value) -> Result<Option<SandboxPolicy>, StartupError> {
        parse(Some(&v), Path::new("/ws"))
    }

    #[test]
    fn true_is_the_defaults_and_false_is_off() {
        assert_eq!(p(json!(true)).unwrap(), Some(SandboxPolicy::default()));
        assert_eq!(p(json!(false)).unwrap(), None);
        assert_eq!(parse(None, Path::new("/ws")).unwrap(), None);
    }

    #[test]
    fn paths_are_resolved() {
        let s = p(
            json!({"filesystem": {"allowWrite": ["cache", "/opt/x/../y"],
            "denyWrite": ["secret.txt", "/etc/z"], "denyRead": ["keys"]}}),
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            s.allow_write,
            vec![PathBuf::from("/ws/cache"), PathBuf::from("/opt/y")]
        );
        assert_eq!(
            s.deny_write,
            vec![PathBuf::from("secret.txt"), PathBuf::from("/etc/z")]
        );
        assert_eq!(s.deny_read, vec![PathBuf::from("/ws/keys")]);
    }

    #[test]
    fn network_forms() {
        let s = p(json!({"network": {"allowedDomains": ["Example.com", "*.npmjs.org"]}}))
            .unwrap()
            .unwrap();
        assert_eq!(
            s.network,
            Network::Domains {
                allowed: vec!["example.com".into(), "*.npmjs.org".into()],
                denied: vec![]
            }
        );
        assert_eq!(
            p(json!({"network": "all"})).unwrap().unwrap().network,
            Network::All
        );
    }

    #[test]
    fn bad_values_are_startup_errors() {
        for (v, msg) in [
            (json!("yes"), "sandbox must be true, false or an object"),
            (json!({"nope": 1}), "sandbox has an unknown key: nope"),
            (
                json!({"network": "some"}),
                "sandbox.network must be 'none', 'all'",
            ),
            (
                json!({"network": {"allowedDomains": ["a b"]}}),
                "allowedDomains entries must be host names",
            ),
            (
                json!({"network": {}}),
                "sandbox.network needs allowedDomains",
            ),
            (
                json!({"filesystem": {"allowWrite": "x"}}),
                "sandbox.filesystem.allowWrite must be an array of strings",
            ),
            (
                json!({"filesystem": {"allowWrite": ["/"]}}),
                "must not make the whole filesystem writable",
            ),
            (
                json!({"filesystem": {"denyWrite": ["../x"]}}),
                "must not climb out",
            ),
            (
                json!({"require": ["writes", "flying"]}),
                "sandbox.require names an unknown property: flying",
            ),
            (json!({"env": {"allow": [1]}}), "sandbox.env.allow entries"),
        ] {
            let e = p(v.clone()).unwrap_err().0;
            assert!(e.contains(msg), "{v}: {e}");
        }
    }

    #[test]
    fn require_lists_properties() {
        let s = p(json!({"require": ["writes", "network"]}))
            .unwrap()
            .unwrap();
        assert!(s.requires(Property::Writes));
        assert!(!s.requires(Property::Signals));
        assert!(SandboxPolicy::default().requires(Property::Signals));
    }
}
