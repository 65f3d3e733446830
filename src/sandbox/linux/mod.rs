//! Linux: the policy enforced in-process, between fork and exec, with nothing executed but
//! the command — a private mount namespace in an unprivileged user namespace (protected paths
//! read-only, credentials and host sockets hidden, a private `/tmp`), a network namespace,
//! Landlock and seccomp. See [`mounts`], [`ns`], [`rules`] and [`child`].

mod capture;
pub mod child;
pub mod mounts;
pub mod ns;
pub mod overlay;
pub mod rules;
pub mod scan;

use super::layout::Layout;
use super::status::{Mechanisms, Status};
use crate::config::sandbox::{Force, Network};
use crate::config::SandboxPolicy;
use seccompiler::BpfProgram;
use std::ffi::CString;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The private directory of one tools object's sandbox (`/tmp/clarvis-sandbox-…`), removed
/// with it.
#[derive(Debug)]
struct PrivateDir {
    path: PathBuf,
    /// Left in place: a sandboxed command still uses it as its `/tmp`.
    keep: bool,
}

impl PrivateDir {
    fn new() -> std::io::Result<PrivateDir> {
        use std::os::unix::fs::DirBuilderExt;
        let dir = PrivateDir {
            path: super::private_dir()?,
            keep: false,
        };
        for sub in ["tmp", "vartmp", "shm", "empty"] {
            std::fs::DirBuilder::new()
                .mode(0o700)
                .create(dir.path.join(sub))?;
        }
        std::fs::File::create(dir.path.join("empty-file"))?;
        for ro in ["empty", "empty-file"] {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(
                dir.path.join(ro),
                std::fs::Permissions::from_mode(if ro == "empty" { 0o555 } else { 0o444 }),
            )?;
        }
        Ok(dir)
    }

    fn part(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }
}

impl Drop for PrivateDir {
    fn drop(&mut self) {
        use std::os::unix::fs::PermissionsExt;
        if self.keep {
            return;
        }
        let _ =
            std::fs::set_permissions(self.part("empty"), std::fs::Permissions::from_mode(0o755));
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// The namespaces and the plan they were built from.
#[derive(Debug)]
struct Built {
    ns: ns::Namespaces,
    plan: mounts::Plan,
}

/// One tools object's prepared sandbox.
pub struct Linux {
    layout: Layout,
    network: Network,
    env_allow: Vec<String>,
    private: PrivateDir,
    /// The namespaces (when user namespaces are usable), rebuilt when the plan is stale.
    built: Mutex<Option<Arc<Built>>>,
    userns: bool,
    landlock: Option<OwnedFd>,
    /// What the ruleset was built from (a captured command's is built again with its
    /// overlays).
    landlock_abi: u8,
    writable: Vec<PathBuf>,
    filters: Arc<Vec<BpfProgram>>,
    last_cap: u32,
    proxy_port: Option<u16>,
    status: Status,
    /// Placeholders a captured command's plan made (see [`Linux::confine_captured`]).
    extra_placeholders: Mutex<Vec<PathBuf>>,
}

impl std::fmt::Debug for Linux {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Linux")
            .field("layout", &self.layout)
            .field("status", &self.status)
            .finish()
    }
}

/// The mechanisms this kernel offers, after the test-only forcing.
pub fn mechanisms(force: &Force) -> Mechanisms {
    let mut abi = if force.no_landlock {
        0
    } else {
        rules::landlock_abi()
    };
    if let Some(cap) = force.landlock_abi {
        abi = abi.min(cap);
    }
    // SAFETY: a query; EINVAL means the kernel has no seccomp.
    let seccomp =
        !force.no_seccomp && unsafe { libc::prctl(libc::PR_GET_SECCOMP, 0, 0, 0, 0) } >= 0;
    Mechanisms {
        landlock_abi: abi,
        seccomp,
        user_namespaces: if force.no_userns {
            Err("switched off for this test".into())
        } else {
            Ok(())
        },
    }
}

/// Whether this process can make an unprivileged user namespace with a mount namespace in
/// it (refused by some AppArmor setups or by `user.max_user_namespaces = 0`). Asked once per
/// process: the answer does not change while it runs.
pub fn userns_usable() -> Result<(), String> {
    static ANSWER: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
    ANSWER
        .get_or_init(|| {
            // The status says "user namespaces (<this>)": the reason alone.
            ns::create(&[], false, None, None, None)
                .map(drop)
                .map_err(|e| e.to_string())
        })
        .clone()
}

fn last_cap() -> u32 {
    std::fs::read_to_string("/proc/sys/kernel/cap_last_cap")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(63)
}

impl Linux {
    /// Prepares the sandbox of `policy` for `layout`: the private directory, the namespaces
    /// (when the machine allows them), the Landlock ruleset and the seccomp filters.
    /// `proxy_port` is the filtering proxy's port with `allowedDomains`.
    pub fn new(
        layout: Layout,
        policy: &SandboxPolicy,
        proxy_port: Option<u16>,
    ) -> Result<Linux, String> {
        let mut mech = mechanisms(&policy.force);
        let private = PrivateDir::new().map_err(|e| format!("the private temp directory: {e}"))?;
        let mut writable = layout.writable.clone();
        writable.retain(|p| p.is_dir());
        // The parts themselves: shown as /tmp and /dev/shm, they are mount roots, and
        // Landlock's walk up from a file there never passes through their parent.
        writable.push(private.part("tmp"));
        writable.push(private.part("vartmp"));
        writable.push(private.part("shm"));
        let landlock = if mech.landlock_abi > 0 {
            Some(rules::ruleset(
                mech.landlock_abi,
                &writable,
                &[],
                &policy.network,
                proxy_port,
            )?)
        } else {
            None
        };
        let filters = if mech.seccomp {
            rules::filters(&policy.network)?
        } else {
            Vec::new()
        };
        let mut me = Linux {
            layout,
            network: policy.network.clone(),
            env_allow: policy.env_allow.clone(),
            private,
            built: Mutex::new(None),
            userns: false,
            landlock,
            landlock_abi: mech.landlock_abi,
            writable,
            filters: Arc::new(filters),
            last_cap: last_cap(),
            proxy_port,
            status: Status::default(),
            extra_placeholders: Mutex::new(Vec::new()),
        };
        if mech.user_namespaces.is_ok() {
            mech.user_namespaces = userns_usable();
        }
        if mech.user_namespaces.is_ok() {
            me.userns = true;
            // The namespaces (and the placeholders) are made by the first command, so tools
            // objects that never run one pay nothing; the proxy needs its listener at once.
            if proxy_port.is_some() {
                let b = me.build(None)?;
                *me.built.lock().unwrap_or_else(|p| p.into_inner()) = Some(Arc::new(b));
            }
        }
        me.status = Status::linux(&mech, &me.network);
        Ok(me)
    }

    fn build(&self, previous: Option<&Built>) -> Result<Built, String> {
        let mut plan = self
            .plan(Vec::new())
            .map_err(|e| format!("the mount plan: {e}"))?;
        if let Some(p) = previous {
            // Placeholders made earlier are ours still (the new plan sees them as existing).
            for old in &p.plan.placeholders {
                if !plan.placeholders.contains(old) && old.exists() {
                    plan.placeholders.push(old.clone());
                }
            }
        }
        let net = !matches!(self.network, Network::All);
        match ns::create(
            &plan.steps,
            net,
            self.proxy_port,
            previous.map(|p| &p.ns),
            None,
        ) {
            Ok(mut ns) => {
                if let Some(p) = previous {
                    // Same user and network namespaces: keep the network one and its listener.
                    ns.net = p.ns.net.as_ref().and_then(|f| f.try_clone().ok());
                    ns.listener = p.ns.listener.as_ref().and_then(|f| f.try_clone().ok());
                }
                Ok(Built { ns, plan })
            }
            Err(e) => {
                remove_placeholders(&plan.placeholders);
                Err(format!("user namespaces: {e}"))
            }
        }
    }

    /// The proxy's listening socket, made inside the network namespace (once).
    pub fn take_listener(&self) -> Option<std::net::TcpListener> {
        let built = self.built.lock().unwrap_or_else(|p| p.into_inner());
        let b = built.as_ref()?;
        let fd = b.ns.listener.as_ref()?.try_clone().ok()?;
        Some(std::net::TcpListener::from(fd))
    }

    /// What is enforced, and how.
    pub fn status(&self) -> &Status {
        &self.status
    }

    /// The layout enforced.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The namespaces for the next command, rebuilt first when something a mount sits on
    /// was removed or replaced on the host.
    fn current(&self) -> std::io::Result<Option<Arc<Built>>> {
        if !self.userns {
            return Ok(None);
        }
        let mut built = self.built.lock().unwrap_or_else(|p| p.into_inner());
        // Every command checks the plan's anchors (a few lstat calls): a mount whose path
        // the host removed or replaced no longer protects anything.
        if let Some(b) = built.as_ref().filter(|b| b.plan.current()) {
            return Ok(Some(Arc::clone(b)));
        }
        let fresh = Arc::new(
            self.build(built.as_deref())
                .map_err(std::io::Error::other)?,
        );
        // The old namespace lives on while a command that outlived its call uses it.
        *built = Some(Arc::clone(&fresh));
        Ok(Some(fresh))
    }

    /// The private temporary directory as the host names it and as a confined command does.
    pub fn temp_dir(&self) -> std::io::Result<(PathBuf, PathBuf)> {
        let built = self.current()?;
        Ok((self.private.part("tmp"), self.tmpdir(built.as_deref())))
    }

    /// `TMPDIR` inside the sandbox.
    fn tmpdir(&self, built: Option<&Built>) -> PathBuf {
        if built.is_some_and(|b| b.plan.private_tmp) {
            PathBuf::from("/tmp")
        } else {
            self.private.part("tmp")
        }
    }

    /// Confines `cmd` (a `sh -c …` about to be spawned in `cwd`): its environment scrubbed,
    /// `TMPDIR` set, and the namespaces, capabilities, Landlock and seccomp entered between
    /// fork and exec.
    pub fn confine(&self, cmd: &mut std::process::Command, cwd: &Path) -> std::io::Result<()> {
        let built = self.current()?;
        let real_cwd = std::fs::canonicalize(cwd)?;
        let meta = std::fs::metadata(&real_cwd)?;
        self.arm(cmd, &real_cwd, built, (meta.dev(), meta.ino()), None)
    }

    /// The mount plan for the layout, with `first` before it (see [`mounts::plan_over`]).
    fn plan(&self, first: Vec<mounts::Step>) -> std::io::Result<mounts::Plan> {
        let private = mounts::Private {
            tmp: &self.private.part("tmp"),
            var_tmp: &self.private.part("vartmp"),
            shm: &self.private.part("shm"),
            empty_dir: &self.private.part("empty"),
            empty_file: &self.private.part("empty-file"),
        };
        mounts::plan_over(&self.layout, &private, first)
    }

    /// Arms `cmd` to enter `built` (the namespaces), its working directory `real_cwd`
    /// checked to be the object `cwd_id` names inside them, then the rest of the confinement
    /// (with `landlock` instead of the sandbox's own ruleset when given).
    fn arm(
        &self,
        cmd: &mut std::process::Command,
        real_cwd: &Path,
        built: Option<Arc<Built>>,
        cwd_id: (u64, u64),
        landlock: Option<OwnedFd>,
    ) -> std::io::Result<()> {
        use std::os::unix::process::CommandExt;
        let cwd_c = CString::new(real_cwd.as_os_str().as_bytes())
            .map_err(|_| std::io::Error::from_raw_os_error(libc::EINVAL))?;
        for (k, _) in std::env::vars_os() {
            let k = k.to_string_lossy();
            if super::env::looks_secret(&k) && !self.env_allow.iter().any(|a| a == &k) {
                cmd.env_remove(&*k);
            }
        }
        cmd.env("TMPDIR", self.tmpdir(built.as_deref()));
        if let (Network::Domains { .. }, Some(port)) = (&self.network, self.proxy_port) {
            super::env::set_proxy(cmd, port);
            cmd.env("NO_PROXY", "").env("no_proxy", "");
        }
        let fds = built.as_ref().map(|b| {
            (
                b.ns.user.as_raw_fd(),
                b.ns.mnt.as_raw_fd(),
                b.ns.net.as_ref().map(|n| n.as_raw_fd()),
            )
        });
        let own = landlock.map(Arc::new);
        let landlock = own
            .as_ref()
            .map(|f| f.as_raw_fd())
            .or_else(|| self.landlock.as_ref().map(|f| f.as_raw_fd()));
        let filters = Arc::clone(&self.filters);
        let last_cap = self.last_cap;
        // SAFETY: `enter` makes only raw system calls on data owned by the closure (the
        // namespaces stay open: `built` is moved in and outlives the fork).
        unsafe {
            cmd.pre_exec(move || {
                let entry = child::Entry {
                    user: fds.map(|f| f.0),
                    mnt: fds.map(|f| f.1),
                    net: fds.and_then(|f| f.2),
                    cwd: &cwd_c,
                    cwd_id,
                    landlock,
                    filters: &filters,
                    last_cap,
                };
                let _keep = (&built, &own);
                child::enter(&entry)
            });
        }
        Ok(())
    }
}

fn remove_placeholders(paths: &[PathBuf]) {
    for p in paths.iter().rev() {
        // Only what is still an empty placeholder: never something the user put there since.
        match std::fs::symlink_metadata(p) {
            Ok(m) if m.is_dir() => {
                let _ = std::fs::remove_dir(p);
            }
            Ok(m) if m.is_file() && m.len() == 0 => {
                let _ = std::fs::remove_file(p);
            }
            _ => {}
        }
    }
}

/// Whether a process other than ours lives in the user namespace `ns` (a sandboxed command
/// that outlived its call: its mounts still rest on the placeholders).
fn namespace_in_use(ns: &OwnedFd) -> bool {
    let Ok(me) = std::fs::metadata(format!("/proc/self/fd/{}", ns.as_raw_fd())) else {
        return true;
    };
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return true;
    };
    dir.flatten()
        .filter(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|s| s.bytes().all(|b| b.is_ascii_digit()))
        })
        .any(|e| {
            std::fs::metadata(e.path().join("ns/user"))
                .is_ok_and(|m| m.ino() == me.ino() && m.dev() == me.dev())
        })
}

impl Drop for Linux {
    fn drop(&mut self) {
        let built = self.built.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(b) = built {
            if namespace_in_use(&b.ns.user) {
                // A command outlived the tools object: its mounts rest on the placeholders and
                // its /tmp is the private directory; both stay.
                self.private.keep = true;
            } else {
                remove_placeholders(&b.plan.placeholders);
                let extra = std::mem::take(
                    &mut *self
                        .extra_placeholders
                        .lock()
                        .unwrap_or_else(|p| p.into_inner()),
                );
                remove_placeholders(&extra);
            }
        }
    }
}
