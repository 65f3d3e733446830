//! The kernel sandbox for `bash` and monitors (`sandbox` option): writes only where allowed,
//! protected paths read-only, credentials unreadable, no network unless allowed, secrets out
//! of the environment — enforced by the kernel on the command and everything it starts,
//! in-process, with nothing to install.
//!
//! The contract: a [`Sandbox`] is built once per tools object from its policy (values in
//! `Config`) and is a service of the runtime. [`Sandbox::shell`] gives the command to spawn
//! and [`Sandbox::confine`] arms it; `process` calls both and knows nothing else of the
//! sandbox. It is never silently weaker: a property the policy requires and the machine
//! cannot enforce is a `StartupError` (see [`status`]).
//!
//! Platforms: Linux enforces the policy between fork and exec ([`linux`]); macOS runs the
//! shell under `/usr/bin/sandbox-exec` with a generated Seatbelt profile ([`seatbelt`]);
//! Windows refuses the option. The filtering proxy for `allowedDomains` is [`proxy`].
//!
//! Non-goals: delayed execution through ordinary workspace files (a `Makefile` or
//! `package.json` script the user runs later), resource limits, and confidentiality of what
//! the workspace itself holds.

pub mod capture;
#[cfg(all(test, target_os = "linux"))]
mod capture_tests;
pub mod env;
pub mod layout;
#[cfg(target_os = "linux")]
pub mod linux;
pub mod note;
pub mod proxy;
pub mod seatbelt;
pub mod status;

use crate::config::sandbox::Force;
#[cfg(any(target_os = "linux", target_os = "macos"))]
use crate::config::sandbox::Network;
use crate::config::{Config, SandboxPolicy, StartupError};
use layout::Layout;
use status::Status;
use std::path::Path;

/// One tools object's sandbox.
#[derive(Debug)]
pub struct Sandbox {
    policy: SandboxPolicy,
    #[cfg(target_os = "linux")]
    inner: linux::Linux,
    #[cfg(not(target_os = "linux"))]
    layout: Layout,
    #[cfg(not(target_os = "linux"))]
    status: Status,
    #[cfg(target_os = "macos")]
    profile: String,
    /// The private temporary directory (`TMPDIR` of every command), removed with the sandbox.
    #[cfg(target_os = "macos")]
    tmp: PrivateTmp,
    proxy: Option<proxy::Proxy>,
}

/// Makes a fresh `<host temp>/clarvis-sandbox-<unique>` only we may enter (mode 700): the
/// root of one tools object's private directories, on every platform with a sandbox.
#[cfg(any(target_os = "linux", target_os = "macos"))]
fn private_dir() -> std::io::Result<std::path::PathBuf> {
    use std::os::unix::fs::DirBuilderExt;
    let path = std::env::temp_dir().join(format!("clarvis-sandbox-{}", crate::atomic::unique_id()));
    std::fs::DirBuilder::new().mode(0o700).create(&path)?;
    Ok(path)
}

/// macOS: the tools object's private temporary directory, `<host temp>/clarvis-sandbox-<id>`
/// (mode 700), by its real path; removed when the sandbox is dropped. (Linux has its own,
/// mounted over `/tmp` in the command's mount namespace: `linux::PrivateDir`.)
#[cfg(target_os = "macos")]
#[derive(Debug)]
struct PrivateTmp(std::path::PathBuf);

#[cfg(target_os = "macos")]
impl PrivateTmp {
    fn new() -> std::io::Result<PrivateTmp> {
        Ok(PrivateTmp(std::fs::canonicalize(private_dir()?)?))
    }
}

#[cfg(target_os = "macos")]
impl Drop for PrivateTmp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The port the filtering proxy listens on inside the sandbox's network namespace (any port
/// is free there: the namespace holds nothing else).
pub const PROXY_PORT: u16 = 3128;

impl Sandbox {
    /// The sandbox `config` asks for (`None` when off), or a `StartupError` when a property
    /// it requires cannot be enforced here.
    pub fn new(config: &Config) -> Result<Option<Sandbox>, StartupError> {
        let Some(policy) = config.sandbox.clone() else {
            return Ok(None);
        };
        let layout = Layout::new(config, &policy);
        Sandbox::build(policy, layout).map(Some)
    }

    #[cfg(target_os = "linux")]
    fn build(policy: SandboxPolicy, layout: Layout) -> Result<Sandbox, StartupError> {
        let domains = matches!(policy.network, Network::Domains { .. });
        let inner = linux::Linux::new(layout, &policy, domains.then_some(PROXY_PORT))
            .map_err(|e| StartupError(format!("sandbox: {e}")))?;
        inner.status().check(&policy)?;
        let proxy = match (&policy.network, inner.take_listener()) {
            (Network::Domains { allowed, denied }, Some(listener)) => Some(
                proxy::Proxy::start(
                    proxy::Rules::new(allowed, denied),
                    proxy::Listen::Socket(listener),
                )
                .map_err(|e| StartupError(format!("sandbox: the filtering proxy: {e}")))?,
            ),
            _ => None,
        };
        Ok(Sandbox {
            policy,
            inner,
            proxy,
        })
    }

    #[cfg(target_os = "macos")]
    fn build(policy: SandboxPolicy, layout: Layout) -> Result<Sandbox, StartupError> {
        let proxy = match &policy.network {
            Network::Domains { allowed, denied } => Some(
                proxy::Proxy::start(proxy::Rules::new(allowed, denied), proxy::Listen::Loopback)
                    .map_err(|e| StartupError(format!("sandbox: the filtering proxy: {e}")))?,
            ),
            _ => None,
        };
        let port = proxy.as_ref().map(|p| p.port());
        let tmp = PrivateTmp::new()
            .map_err(|e| StartupError(format!("sandbox: the private temporary directory: {e}")))?;
        let profile = seatbelt::profile(&layout, &policy.network, port, &tmp.0);
        let status = seatbelt::status(&policy.network);
        status.check(&policy)?;
        Ok(Sandbox {
            policy,
            layout,
            status,
            profile,
            tmp,
            proxy,
        })
    }

    #[cfg(not(any(target_os = "linux", target_os = "macos")))]
    fn build(policy: SandboxPolicy, layout: Layout) -> Result<Sandbox, StartupError> {
        let _ = (policy, layout);
        Err(StartupError(
            "sandbox is not supported on this platform (Linux and macOS only)".into(),
        ))
    }

    /// What is enforced, and how.
    pub fn status(&self) -> &Status {
        #[cfg(target_os = "linux")]
        return self.inner.status();
        #[cfg(not(target_os = "linux"))]
        &self.status
    }

    /// The layout enforced.
    pub fn layout(&self) -> &Layout {
        #[cfg(target_os = "linux")]
        return self.inner.layout();
        #[cfg(not(target_os = "linux"))]
        &self.layout
    }

    /// The shell to run a command with (`/bin/sh`, or `sandbox-exec … /bin/sh` on macOS);
    /// the caller adds `-c <command>`.
    pub fn shell(&self) -> std::process::Command {
        #[cfg(target_os = "macos")]
        {
            let mut c = std::process::Command::new("/usr/bin/sandbox-exec");
            c.arg("-p").arg(&self.profile).arg("/bin/sh");
            c
        }
        #[cfg(not(target_os = "macos"))]
        std::process::Command::new("/bin/sh")
    }

    /// Arms `cmd` (from [`Sandbox::shell`], to run in `cwd`): the environment scrubbed and,
    /// on Linux, the confinement entered between fork and exec.
    pub fn confine(&self, cmd: &mut std::process::Command, cwd: &Path) -> std::io::Result<()> {
        #[cfg(target_os = "linux")]
        return self.inner.confine(cmd, cwd);
        #[cfg(not(target_os = "linux"))]
        {
            let _ = cwd;
            for (k, _) in std::env::vars_os() {
                let k = k.to_string_lossy();
                if env::looks_secret(&k) && !self.policy.env_allow.iter().any(|a| a == &k) {
                    cmd.env_remove(&*k);
                }
            }
            if let Some(p) = &self.proxy {
                env::set_proxy(cmd, p.port());
            }
            #[cfg(target_os = "macos")]
            cmd.env("TMPDIR", &self.tmp.0);
            Ok(())
        }
    }

    /// Why this sandbox cannot capture commands for review mode, if it cannot (see
    /// [`capture`]): Linux with the sandbox's mount namespace and an unprivileged overlayfs
    /// only.
    pub fn can_capture(&self) -> Result<(), capture::CaptureError> {
        #[cfg(target_os = "linux")]
        return self.inner.can_capture();
        #[cfg(not(target_os = "linux"))]
        Err(capture::CaptureError::Unavailable(
            "capturing commands needs the Linux sandbox's mount namespace".into(),
        ))
    }

    /// [`Sandbox::confine`] for review mode: `cmd` sees the workspace with `request.staged`
    /// applied and writes nowhere but into the returned [`capture::Captured`], which says
    /// after the command what it changed. [`capture::CaptureError::Unavailable`] where this
    /// machine cannot (then review mode refuses the command).
    pub fn confine_captured(
        &self,
        cmd: &mut std::process::Command,
        cwd: &Path,
        request: &capture::Request<'_>,
    ) -> Result<capture::Captured, capture::CaptureError> {
        #[cfg(target_os = "linux")]
        return self.inner.confine_captured(cmd, cwd, request);
        #[cfg(not(target_os = "linux"))]
        {
            let _ = (cmd, cwd, request);
            Err(self.can_capture().err().unwrap_or_else(|| {
                capture::CaptureError::Unavailable("not on this platform".into())
            }))
        }
    }

    /// A directory a confined command may write: `(as the host names it, as the command
    /// names it)` — the sandbox's private temporary directory (on macOS the same path on both
    /// sides). Shell sessions put their per-call pipes there.
    pub fn temp_dir(&self) -> std::io::Result<(std::path::PathBuf, std::path::PathBuf)> {
        #[cfg(target_os = "linux")]
        return self.inner.temp_dir();
        #[cfg(target_os = "macos")]
        return Ok((self.tmp.0.clone(), self.tmp.0.clone()));
        #[cfg(not(any(target_os = "linux", target_os = "macos")))]
        {
            let t = std::env::temp_dir();
            Ok((t.clone(), t))
        }
    }

    /// The one line to end a failed command's output with (see [`note`]).
    pub fn note(&self, output: &str) -> Option<String> {
        note::note(self.layout(), &self.policy.network, output)
    }

    /// Ends `text` with the note, on a line of its own, when `output` (what the failed
    /// command printed) shows a denial. Used by `bash` and `monitor_poll` alike.
    pub fn end_with_note(&self, text: &mut String, output: &str) {
        if let Some(line) = self.note(output) {
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(&line);
            text.push('\n');
        }
    }

    /// The proxy's counts (tests and the status).
    pub fn proxy(&self) -> Option<&proxy::Proxy> {
        self.proxy.as_ref()
    }
}

/// What this machine can enforce, for the default policy (`probeSandbox()`).
pub fn probe() -> Status {
    probe_with(&Force::default())
}

/// [`probe`] with mechanisms forced off (tests).
pub fn probe_with(force: &Force) -> Status {
    #[cfg(target_os = "linux")]
    {
        let mut m = linux::mechanisms(force);
        if m.user_namespaces.is_ok() {
            m.user_namespaces = linux::userns_usable();
        }
        Status::linux(&m, &Network::None)
    }
    #[cfg(target_os = "macos")]
    {
        let _ = force;
        seatbelt::status(&Network::None)
    }
    #[cfg(windows)]
    {
        let _ = force;
        Status::unsupported("windows", "not supported on Windows")
    }
    #[cfg(not(any(target_os = "linux", target_os = "macos", windows)))]
    {
        let _ = force;
        Status::unsupported("other", "not supported on this platform")
    }
}
