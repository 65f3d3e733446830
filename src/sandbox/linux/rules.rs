//! The Landlock ruleset and the seccomp filters, both built once per tools object in the host;
//! a sandboxed child only hands them to the kernel.
//!
//! **Landlock** (through the `landlock` crate): writes (every write right the ABI knows,
//! truncation and device ioctls included) only beneath the writable roots, the private
//! directory and the few devices programs write to; TCP bind and connect refused when the
//! network is not `'all'` (ABI ≥ 4; with the proxy, connect only to its port); abstract Unix
//! sockets and signals scoped to the sandbox (ABI ≥ 6). Landlock also refuses, from any ABI,
//! ptrace of a process outside the sandbox — which covers `/proc/<pid>/environ`, `mem` and
//! `root` of the host and the user's other processes — and mount changes.
//!
//! **seccomp** (through `seccompiler`; each rule's reason beside it): what Landlock does not
//! see — socket families, io_uring, new namespaces, kernel keyrings, and the calls that exist
//! only to debug or administer a machine.

use crate::config::sandbox::Network;
use landlock::{
    Access, AccessFs, AccessNet, CompatLevel, Compatible, NetPort, PathBeneath, PathFd, Ruleset,
    RulesetAttr, RulesetCreatedAttr, Scope, ABI,
};
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};
use std::collections::BTreeMap;
use std::os::fd::OwnedFd;
use std::path::PathBuf;

/// The kernel's Landlock ABI version (0: none).
pub fn landlock_abi() -> u8 {
    // SAFETY: the version query of landlock_create_ruleset reads no memory.
    let v = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            1u32, // LANDLOCK_CREATE_RULESET_VERSION
        )
    };
    u8::try_from(v).unwrap_or(0)
}

fn abi(n: u8) -> ABI {
    match n {
        0 => ABI::Unsupported,
        1 => ABI::V1,
        2 => ABI::V2,
        3 => ABI::V3,
        4 => ABI::V4,
        5 => ABI::V5,
        6 => ABI::V6,
        7 => ABI::V7,
        8 => ABI::V8,
        // ABI 9 adds connecting to pathname Unix sockets to the write rights: sockets outside
        // the writable roots become unreachable, not only hidden.
        _ => ABI::V9,
    }
}

/// Devices ordinary programs write to (`> /dev/null`, terminals a command opens itself).
const DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/tty",
    "/dev/ptmx",
];

/// The ruleset of a policy: writes beneath `writable` and beneath the open directories
/// `also` (a captured command's overlays: their inodes are not the roots' own), the network
/// rules, the scopes. Returns the ruleset's descriptor, for `landlock_restrict_self` in each
/// child.
pub fn ruleset(
    abi_version: u8,
    writable: &[PathBuf],
    also: &[OwnedFd],
    network: &Network,
    proxy_port: Option<u16>,
) -> Result<OwnedFd, String> {
    let abi = abi(abi_version);
    let fail = |e: &dyn std::fmt::Display| format!("Landlock: {e}");
    let write = AccessFs::from_write(abi);
    let mut rs = Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(write)
        .map_err(|e| fail(&e))?;
    let tcp = abi_version >= 4 && !matches!(network, Network::All);
    if tcp {
        rs = rs
            .handle_access(AccessNet::from_all(abi))
            .map_err(|e| fail(&e))?;
    }
    if abi_version >= 6 {
        rs = rs
            .scope(Scope::AbstractUnixSocket | Scope::Signal)
            .map_err(|e| fail(&e))?;
    }
    let mut created = rs.create().map_err(|e| fail(&e))?;
    for root in writable {
        let fd = PathFd::new(root).map_err(|e| fail(&e))?;
        created = created
            .add_rule(PathBeneath::new(fd, write))
            .map_err(|e| fail(&e))?;
    }
    for fd in also {
        created = created
            .add_rule(PathBeneath::new(fd, write))
            .map_err(|e| fail(&e))?;
    }
    let file_write = write & AccessFs::from_file(abi);
    for dev in DEVICES {
        if let Ok(fd) = PathFd::new(dev) {
            created = created
                .add_rule(PathBeneath::new(fd, file_write))
                .map_err(|e| fail(&e))?;
        }
    }
    if let Ok(fd) = PathFd::new("/dev/pts") {
        created = created
            .add_rule(PathBeneath::new(fd, file_write))
            .map_err(|e| fail(&e))?;
    }
    if let (true, Some(port)) = (tcp, proxy_port) {
        created = created
            .add_rule(NetPort::new(port, AccessNet::ConnectTcp))
            .map_err(|e| fail(&e))?;
    }
    let fd: Option<OwnedFd> = created.into();
    fd.ok_or_else(|| "Landlock: the kernel gave no ruleset".to_string())
}

fn arch() -> TargetArch {
    #[cfg(target_arch = "aarch64")]
    return TargetArch::aarch64;
    #[cfg(target_arch = "riscv64")]
    return TargetArch::riscv64;
    #[cfg(not(any(target_arch = "aarch64", target_arch = "riscv64")))]
    TargetArch::x86_64
}

fn flag_rules(arg: u8, flags: &[libc::c_int]) -> Vec<SeccompRule> {
    flags
        .iter()
        .map(|&f| {
            SeccompRule::new(vec![SeccompCondition::new(
                arg,
                SeccompCmpArgLen::Qword,
                SeccompCmpOp::MaskedEq(f as u64),
                f as u64,
            )
            .expect("a valid condition")])
            .expect("a valid rule")
        })
        .collect()
}

fn compile(
    rules: BTreeMap<i64, Vec<SeccompRule>>,
    errno: i32,
) -> Result<BpfProgram, seccompiler::BackendError> {
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(errno as u32),
        arch(),
    )?;
    filter.try_into()
}

/// The seccomp programs of a policy, installed in order in each child.
pub fn filters(network: &Network) -> Result<Vec<BpfProgram>, String> {
    let fail = |e: &dyn std::fmt::Display| format!("seccomp: {e}");
    let mut deny: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    let always: &[(i64, &str)] = &[
        // Debugging another process, or reading and writing its memory.
        (libc::SYS_ptrace, "ptrace"),
        (libc::SYS_process_vm_readv, "process_vm_readv"),
        (libc::SYS_process_vm_writev, "process_vm_writev"),
        // Taking a descriptor out of another process.
        (libc::SYS_pidfd_getfd, "pidfd_getfd"),
        // io_uring performs opens, connects and sends without passing this filter.
        (libc::SYS_io_uring_setup, "io_uring_setup"),
        (libc::SYS_io_uring_enter, "io_uring_enter"),
        (libc::SYS_io_uring_register, "io_uring_register"),
        // Kernel attack surface a build never needs: eBPF, performance counters,
        // userfaultfd (a classic exploit primitive).
        (libc::SYS_bpf, "bpf"),
        (libc::SYS_perf_event_open, "perf_event_open"),
        (libc::SYS_userfaultfd, "userfaultfd"),
        // Kernel keyrings are shared by every process of the user: they can hold
        // credentials (Kerberos tickets, fscrypt keys).
        (libc::SYS_keyctl, "keyctl"),
        (libc::SYS_add_key, "add_key"),
        (libc::SYS_request_key, "request_key"),
        // The filesystem layout is the sandbox: no mount changes (Landlock refuses them too).
        (libc::SYS_mount, "mount"),
        (libc::SYS_umount2, "umount2"),
        (libc::SYS_pivot_root, "pivot_root"),
        (libc::SYS_chroot, "chroot"),
        (libc::SYS_open_tree, "open_tree"),
        (libc::SYS_move_mount, "move_mount"),
        (libc::SYS_fsopen, "fsopen"),
        (libc::SYS_fsmount, "fsmount"),
        (libc::SYS_fsconfig, "fsconfig"),
        (libc::SYS_fspick, "fspick"),
        (libc::SYS_mount_setattr, "mount_setattr"),
        // Joining another namespace (the host's, through a descriptor) undoes the sandbox.
        (libc::SYS_setns, "setns"),
        // Opening by handle bypasses path-based checks.
        (libc::SYS_open_by_handle_at, "open_by_handle_at"),
        // Administering the machine.
        (libc::SYS_kexec_load, "kexec_load"),
        (libc::SYS_kexec_file_load, "kexec_file_load"),
        (libc::SYS_init_module, "init_module"),
        (libc::SYS_finit_module, "finit_module"),
        (libc::SYS_delete_module, "delete_module"),
        (libc::SYS_acct, "acct"),
        (libc::SYS_swapon, "swapon"),
        (libc::SYS_swapoff, "swapoff"),
        (libc::SYS_reboot, "reboot"),
        (libc::SYS_quotactl, "quotactl"),
        (libc::SYS_vhangup, "vhangup"),
    ];
    for (nr, _why) in always {
        deny.insert(*nr, Vec::new());
    }
    #[cfg(target_arch = "x86_64")]
    {
        // Raw port I/O.
        deny.insert(libc::SYS_iopl, Vec::new());
        deny.insert(libc::SYS_ioperm, Vec::new());
    }
    // New namespaces: a new user namespace gives back every capability inside it, a new mount
    // or network namespace a fresh view the rules were not written for.
    let new_ns = [
        libc::CLONE_NEWUSER,
        libc::CLONE_NEWNS,
        libc::CLONE_NEWNET,
        libc::CLONE_NEWPID,
        libc::CLONE_NEWIPC,
        libc::CLONE_NEWUTS,
        libc::CLONE_NEWCGROUP,
        0x80, // CLONE_NEWTIME
    ];
    deny.insert(libc::SYS_unshare, flag_rules(0, &new_ns));
    deny.insert(libc::SYS_clone, flag_rules(0, &new_ns));
    // Typing into the terminal of whoever reads it (TIOCSTI), or the console (TIOCLINUX).
    deny.insert(
        libc::SYS_ioctl,
        [libc::TIOCSTI, 0x541C /* TIOCLINUX */]
            .iter()
            .map(|&req| {
                // The request's type is the libc's (`c_ulong` on glibc, `c_int` on musl).
                #[allow(clippy::unnecessary_cast)]
                let req = req as u64;
                SeccompRule::new(vec![SeccompCondition::new(
                    1,
                    SeccompCmpArgLen::Dword,
                    SeccompCmpOp::Eq,
                    req,
                )
                .expect("a valid condition")])
                .expect("a valid rule")
            })
            .collect(),
    );
    let mut out = vec![compile(deny, libc::EPERM).map_err(|e| fail(&e))?];
    // clone3 passes its flags in memory a filter cannot read: refuse it as unknown, and libc
    // falls back to clone, whose flags the rule above sees.
    let mut clone3 = BTreeMap::new();
    clone3.insert(libc::SYS_clone3, Vec::new());
    out.push(compile(clone3, libc::ENOSYS).map_err(|e| fail(&e))?);
    if !matches!(network, Network::All) {
        // No socket but Unix ones (with the proxy, IP sockets too: the network namespace
        // holds only the loopback and the proxy's listener).
        let allowed: &[i32] = match network {
            Network::Domains { .. } => &[libc::AF_UNIX, libc::AF_INET, libc::AF_INET6],
            _ => &[libc::AF_UNIX],
        };
        let cond = |fam: i32| {
            SeccompCondition::new(0, SeccompCmpArgLen::Dword, SeccompCmpOp::Ne, fam as u64)
                .expect("a valid condition")
        };
        let rule =
            SeccompRule::new(allowed.iter().map(|&f| cond(f)).collect()).map_err(|e| fail(&e))?;
        let mut sockets = BTreeMap::new();
        sockets.insert(libc::SYS_socket, vec![rule.clone()]);
        sockets.insert(libc::SYS_socketpair, vec![rule]);
        out.push(compile(sockets, libc::EAFNOSUPPORT).map_err(|e| fail(&e))?);
    }
    #[cfg(target_arch = "x86_64")]
    out.push(x32_guard());
    Ok(out)
}

/// x32 system calls share the x86_64 architecture token and add 0x40000000 to the number, so
/// a rule on `socket` would not see `socket | 0x40000000`: refuse every x32 call.
#[cfg(target_arch = "x86_64")]
fn x32_guard() -> BpfProgram {
    use seccompiler::sock_filter;
    const LD_W_ABS: u16 = 0x20;
    const JGE_K: u16 = 0x35;
    const RET_K: u16 = 0x06;
    let ins = |code, jt, jf, k| sock_filter { code, jt, jf, k };
    vec![
        ins(LD_W_ABS, 0, 0, 0), // seccomp_data.nr
        ins(JGE_K, 0, 1, 0x4000_0000),
        ins(RET_K, 0, 0, 0x0005_0000 | libc::EPERM as u32), // SECCOMP_RET_ERRNO
        ins(RET_K, 0, 0, 0x7fff_0000),                      // SECCOMP_RET_ALLOW
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_compile_for_each_network() {
        for n in [
            Network::None,
            Network::All,
            Network::Domains {
                allowed: vec!["a.b".into()],
                denied: vec![],
            },
        ] {
            let f = filters(&n).unwrap();
            assert!(f.iter().all(|p| !p.is_empty() && p.len() < 4096));
            assert_eq!(f.len(), if n == Network::All { 3 } else { 4 });
        }
    }
}
