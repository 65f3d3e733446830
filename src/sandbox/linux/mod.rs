//! Linux: the policy enforced in-process, between fork and exec, with nothing executed but
//! the command — a private mount namespace in an unprivileged user namespace (protected paths
//! read-only, credentials and host sockets hidden, a private `/tmp`), a network namespace,
//! Landlock and seccomp. See [`mounts`], [`ns`], [`rules`] and [`child`].

mod capture;
pub mod child;
mod janitor;
pub mod mounts;
pub mod ns;
pub mod overlay;
pub(crate) mod record;
pub mod rules;
pub mod scan;

/// Whether a path is a placeholder a sandbox of this process holds (see [`janitor`]).
#[cfg(test)]
pub(crate) use janitor::is_placeholder;

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
use std::sync::Arc;

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
    /// The namespaces (when user namespaces are usable), rebuilt when the plan is stale, and
    /// the janitor that removes the placeholders once no sandboxed process is left.
    shared: janitor::Shared,
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
            shared: janitor::Shared::default(),
            userns: false,
            landlock,
            landlock_abi: mech.landlock_abi,
            writable,
            filters: Arc::new(filters),
            last_cap: last_cap(),
            proxy_port,
            status: Status::default(),
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
                let mut cur = janitor::lock(&me.shared);
                cur.built = Some(Arc::new(b));
                cur.held = true;
                janitor::watch(&me.shared, &mut cur);
            }
        }
        me.status = Status::linux(&mech, &me.network);
        Ok(me)
    }

    fn build(&self, previous: Option<&Built>) -> Result<Built, String> {
        let plan = self
            .plan(Vec::new())
            .map_err(|e| format!("the mount plan: {e}"))?;
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
                janitor::release(&plan.placeholders);
                Err(format!("user namespaces: {e}"))
            }
        }
    }

    /// The proxy's listening socket, made inside the network namespace (once).
    pub fn take_listener(&self) -> Option<std::net::TcpListener> {
        let cur = janitor::lock(&self.shared);
        let b = cur.built.as_ref()?;
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
    /// was removed or replaced on the host (the janitor's removal of the placeholders
    /// included), and the token that keeps the janitor away until the spawn is done.
    fn current(&self) -> std::io::Result<(Option<Arc<Built>>, Arc<()>)> {
        if !self.userns {
            return Ok((None, Arc::new(())));
        }
        let mut cur = janitor::lock(&self.shared);
        // Every command checks the plan's anchors (a few lstat calls): a mount whose path
        // the host removed or replaced no longer protects anything.
        // The janitor let go of the placeholders (`held` false): a fresh plan takes them
        // again, even those another sandbox's hold kept on disk.
        if !(cur.held && cur.built.as_ref().is_some_and(|b| b.plan.current())) {
            let fresh = Arc::new(
                self.build(cur.built.as_deref())
                    .map_err(std::io::Error::other)?,
            );
            // The old namespace lives on while a command that outlived its call uses it: the
            // new plan holds the old placeholders still there (so they stay) before the old
            // one lets them go.
            if let Some(old) = cur.built.replace(fresh) {
                if cur.held {
                    janitor::release(&old.plan.placeholders);
                }
            }
            cur.held = true;
        }
        janitor::used(&self.shared, &mut cur);
        Ok((cur.built.clone(), Arc::clone(&cur.in_flight)))
    }

    /// The private temporary directory as the host names it and as a confined command does.
    pub fn temp_dir(&self) -> std::io::Result<(PathBuf, PathBuf)> {
        let (built, _) = self.current()?;
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
        let (built, in_flight) = self.current()?;
        let real_cwd = std::fs::canonicalize(cwd)?;
        let meta = std::fs::metadata(&real_cwd)?;
        self.arm(
            cmd,
            &real_cwd,
            (built, in_flight),
            (meta.dev(), meta.ino()),
            None,
        )
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
    /// (with `landlock` instead of the sandbox's own ruleset when given). The closure keeps
    /// `built` open and the janitor's `in_flight` token alive until `cmd` is dropped.
    fn arm(
        &self,
        cmd: &mut std::process::Command,
        real_cwd: &Path,
        (built, in_flight): (Option<Arc<Built>>, Arc<()>),
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
                let _keep = (&built, &in_flight, &own);
                child::enter(&entry)
            });
        }
        Ok(())
    }
}

impl Drop for Linux {
    fn drop(&mut self) {
        let mut cur = janitor::lock(&self.shared);
        let Some(b) = cur.built.as_ref() else {
            return;
        };
        if janitor::namespace_in_use(&b.ns.user) {
            // A command outlived the tools object: its mounts rest on the placeholders (the
            // janitor removes them once it is gone) and its /tmp is the private directory.
            self.private.keep = true;
            janitor::watch(&self.shared, &mut cur);
        } else {
            janitor::let_go(&mut cur);
            cur.built = None;
        }
    }
}
