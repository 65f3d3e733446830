//! What a sandboxed command's process does between fork and exec. It runs in the child of a
//! multi-threaded host, so it may only make raw system calls on memory prepared before the
//! fork: no allocation, no lock, no formatting. Every step fails closed — an error ends the
//! child before exec and the spawn reports it.
//!
//! Order matters: the namespaces first (joining them needs the capabilities the user
//! namespace grants), then the working directory (joining a mount namespace moves the
//! process to its root), then capabilities, `no_new_privs`, Landlock, seccomp (the filter
//! refuses `setns` and mounts, so it comes last), and descriptors marked close-on-exec.

use seccompiler::BpfProgram;
use std::ffi::CString;
use std::os::fd::RawFd;

/// Everything one child needs, already in place.
pub struct Entry<'a> {
    /// The user namespace to join.
    pub user: Option<RawFd>,
    /// The mount namespace to join.
    pub mnt: Option<RawFd>,
    /// The network namespace to join.
    pub net: Option<RawFd>,
    /// The working directory, and the device and inode it must turn out to be.
    pub cwd: &'a CString,
    /// `(st_dev, st_ino)` of the working directory the host checked.
    pub cwd_id: (u64, u64),
    /// The Landlock ruleset.
    pub landlock: Option<RawFd>,
    /// The seccomp programs.
    pub filters: &'a [BpfProgram],
    /// `/proc/sys/kernel/cap_last_cap`.
    pub last_cap: u32,
}

const SECBITS: libc::c_ulong = 0xff & !0x10; // every lock and flag except KEEP_CAPS

#[repr(C)]
struct CapHeader {
    version: u32,
    pid: libc::c_int,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct CapData {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

fn last_error() -> std::io::Error {
    std::io::Error::last_os_error()
}

/// Confines the calling process.
///
/// # Safety
/// Call only between fork and exec, in the single-threaded child.
pub unsafe fn enter(e: &Entry<'_>) -> std::io::Result<()> {
    if let Some(fd) = e.user {
        if libc::setns(fd, libc::CLONE_NEWUSER) != 0 {
            return Err(last_error());
        }
    }
    if let Some(fd) = e.mnt {
        if libc::setns(fd, libc::CLONE_NEWNS) != 0 {
            return Err(last_error());
        }
    }
    if let Some(fd) = e.net {
        if libc::setns(fd, libc::CLONE_NEWNET) != 0 {
            return Err(last_error());
        }
    }
    // The directory the host checked, by path inside the sandbox's view; it must be the
    // same object, or a swap raced us.
    if libc::chdir(e.cwd.as_ptr()) != 0 {
        return Err(last_error());
    }
    let mut st: libc::stat = std::mem::zeroed();
    if libc::stat(c".".as_ptr(), &mut st) != 0 {
        return Err(last_error());
    }
    if (st.st_dev, st.st_ino) != e.cwd_id {
        return Err(std::io::Error::from_raw_os_error(libc::ESTALE));
    }
    // No capability survives, nor comes back at exec (root in the user namespace included):
    // lock the securebits, empty the bounding and ambient sets, then clear the rest. The
    // first two need CAP_SETPCAP, which an unprivileged process without a user namespace
    // lacks — it holds no capability to lose then.
    libc::prctl(libc::PR_SET_SECUREBITS, SECBITS, 0, 0, 0);
    for cap in 0..=e.last_cap {
        libc::prctl(libc::PR_CAPBSET_DROP, cap as libc::c_ulong, 0, 0, 0);
    }
    libc::prctl(
        libc::PR_CAP_AMBIENT,
        libc::PR_CAP_AMBIENT_CLEAR_ALL as libc::c_ulong,
        0,
        0,
        0,
    );
    let header = CapHeader {
        version: 0x2008_0522, // _LINUX_CAPABILITY_VERSION_3
        pid: 0,
    };
    let data = [CapData {
        effective: 0,
        permitted: 0,
        inheritable: 0,
    }; 2];
    if libc::syscall(libc::SYS_capset, &header, data.as_ptr()) != 0 {
        return Err(last_error());
    }
    if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
        return Err(last_error());
    }
    if let Some(fd) = e.landlock {
        if libc::syscall(libc::SYS_landlock_restrict_self, fd, 0u32) != 0 {
            return Err(last_error());
        }
    }
    for prog in e.filters {
        let fprog = libc::sock_fprog {
            len: prog.len() as libc::c_ushort,
            filter: prog.as_ptr() as *mut libc::sock_filter,
        };
        if libc::syscall(
            libc::SYS_seccomp,
            libc::SECCOMP_SET_MODE_FILTER,
            0,
            &fprog as *const libc::sock_fprog,
        ) != 0
        {
            return Err(last_error());
        }
    }
    // Nothing the host holds open reaches the command (the exec closes them all but 0–2).
    if libc::syscall(
        libc::SYS_close_range,
        3u32,
        u32::MAX,
        4u32, /* CLOEXEC */
    ) != 0
    {
        let mut fd = 3;
        while fd < 65_536 {
            libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC);
            fd += 1;
        }
    }
    Ok(())
}
