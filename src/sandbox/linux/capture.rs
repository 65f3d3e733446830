//! Linux: review mode's capture of a command (see [`crate::sandbox::capture`]): the command's
//! own mount namespace, built from the sandbox's plan with the overlays of [`super::overlay`]
//! mounted first, and a Landlock ruleset that knows the overlays' roots.

use super::{janitor, mounts, ns, overlay, rules, userns_usable, Built, Linux};
use crate::sandbox::capture::{CaptureError, Captured, Request};
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::Arc;

impl Linux {
    /// Why commands cannot be captured here, if they cannot: no mount namespace, or no
    /// unprivileged overlayfs (tried once per process, with a throwaway overlay).
    pub fn can_capture(&self) -> Result<(), CaptureError> {
        if !self.userns {
            return Err(CaptureError::Unavailable(format!(
                "the sandbox has no mount namespace on this machine ({})",
                userns_usable()
                    .err()
                    .unwrap_or_else(|| "switched off".into())
            )));
        }
        overlay_usable(&self.private.path).map_err(CaptureError::Unavailable)
    }

    /// [`Linux::confine`] over an overlay of the writable roots in the workspace (review
    /// mode's capture): `cmd` sees `request.staged` above the disk and writes into fresh
    /// directories under `request.dir`, read back by the returned [`Captured`].
    pub fn confine_captured(
        &self,
        cmd: &mut std::process::Command,
        cwd: &Path,
        request: &Request<'_>,
    ) -> Result<Captured, CaptureError> {
        self.can_capture()?;
        // The sandbox's own namespaces first: they hold the placeholders (this plan finds
        // them held and shares them), and `in_flight` keeps the janitor away until the spawn.
        let (base, in_flight) = self
            .current()
            .map_err(|e| CaptureError::Unavailable(e.to_string()))?;
        let base = base.ok_or_else(|| CaptureError::Unavailable("no mount namespace".into()))?;
        let run = overlay::Run::new(
            &self.layout,
            &self.private.path,
            request.dir,
            request.staged,
            request.record,
        )?;
        let real_cwd = std::fs::canonicalize(cwd).map_err(|e| CaptureError::io(cwd, e))?;
        let cwd_c = CString::new(real_cwd.as_os_str().as_bytes())
            .map_err(|_| CaptureError::io(cwd, std::io::Error::from_raw_os_error(libc::EINVAL)))?;
        let plan = self
            .plan(run.steps()?)
            .map_err(|e| CaptureError::Unavailable(format!("the mount plan: {e}")))?;
        // This plan's holds are let go by the janitor with the sandbox's own, once no process
        // is left in the user namespace the command joins (never right after the spawn: a
        // placeholder only this plan made would go while the command's mounts rest on it).
        {
            let mut cur = janitor::lock(&self.shared);
            cur.captured.extend(plan.placeholders.iter().cloned());
            janitor::watch(&self.shared, &mut cur);
        }
        let roots = run.roots()?;
        let probe = ns::Probe {
            cwd: &cwd_c,
            open: &roots,
        };
        let mut ns = ns::create(&plan.steps, false, None, Some(&base.ns), Some(&probe))
            .map_err(|e| CaptureError::Unavailable(format!("overlayfs: {e}")))?;
        ns.net = base.ns.net.as_ref().and_then(|f| f.try_clone().ok());
        let cwd_id = ns.probe.ok_or_else(|| {
            CaptureError::io(cwd, std::io::Error::from_raw_os_error(libc::ENOENT))
        })?;
        // The overlays' roots are writable roots of their own for Landlock (it tags inodes,
        // and a mount point it passes on the way up is not looked at).
        let landlock = if self.landlock.is_some() {
            let r = rules::ruleset(
                self.landlock_abi,
                &self.writable,
                &ns.opened,
                &self.network,
                self.proxy_port,
            )
            .map_err(CaptureError::Unavailable)?;
            Some(r)
        } else {
            None
        };
        let built = Arc::new(Built { ns, plan });
        self.arm(cmd, &real_cwd, (Some(built), in_flight), cwd_id, landlock)
            .map_err(|e| CaptureError::io(cwd, e))?;
        Ok(Captured { run })
    }
}

/// Whether an unprivileged overlayfs can be mounted here (`userxattr`, Linux ≥ 5.11, not
/// refused by a security module): tried once per process with a throwaway overlay under
/// `scratch` in a fresh user and mount namespace.
fn overlay_usable(scratch: &Path) -> Result<(), String> {
    static ANSWER: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
    ANSWER
        .get_or_init(|| {
            let dir = scratch.join(format!("overlay-probe-{}", crate::atomic::unique_id()));
            let made = ["lower", "upper", "work", "merged"]
                .iter()
                .try_for_each(|d| std::fs::create_dir_all(dir.join(d)));
            let answer = made.map_err(|e| e.to_string()).and_then(|()| {
                let c =
                    |d: &str| CString::new(dir.join(d).as_os_str().as_bytes()).unwrap_or_default();
                let step = mounts::Step::Overlay {
                    dst: c("merged"),
                    lowers: vec![c("lower")],
                    upper: c("upper"),
                    work: c("work"),
                    attrs: 0,
                };
                ns::create(&[step], false, None, None, None)
                    .map(drop)
                    .map_err(|e| format!("overlayfs: {e}"))
            });
            overlay::remove_tree(&dir);
            answer
        })
        .clone()
}
