//! The namespaces of one tools object's sandbox, made once and kept as descriptors: an
//! unprivileged user namespace (our uid and gid mapped to themselves), a mount namespace
//! holding the mount plan, and — unless the network is `'all'` — a network namespace with
//! only a loopback interface. Every sandboxed command joins them (`setns`) between fork and
//! exec, which costs a few system calls instead of a fresh namespace and dozens of mounts per
//! command.
//!
//! They are made by a child that shares our memory and descriptor table (`clone` with
//! `CLONE_VM | CLONE_VFORK | CLONE_FILES`, like `posix_spawn`): no copy of the host's page
//! tables, and the descriptors it opens on its namespaces land in our table. The child only
//! makes raw system calls on data prepared before the clone; we wait (vfork) until it exits.

use super::mounts::{self, Step};
use std::ffi::CString;
use std::io;
use std::os::fd::{FromRawFd, OwnedFd};

/// The kept namespaces.
#[derive(Debug)]
pub struct Namespaces {
    /// The user namespace (join it first: it owns the others).
    pub user: OwnedFd,
    /// The mount namespace with the plan applied.
    pub mnt: OwnedFd,
    /// The network namespace (loopback only), unless the network is the host's.
    pub net: Option<OwnedFd>,
    /// A listening TCP socket on 127.0.0.1 inside the network namespace (the proxy's).
    pub listener: Option<OwnedFd>,
    /// `(st_dev, st_ino)` of the probed path as the mount namespace shows it (see [`create`]).
    pub probe: Option<(u64, u64)>,
    /// The directories [`Probe::open`] named, opened (`O_PATH`) inside the namespace.
    pub opened: Vec<OwnedFd>,
}

/// What to look up in a finished mount namespace (a captured command's).
#[derive(Debug)]
pub struct Probe<'a> {
    /// A path to `stat`: the command's working directory.
    pub cwd: &'a std::ffi::CStr,
    /// Directories to open (at most [`OPEN`]).
    pub open: &'a [CString],
}

/// The most directories a [`Probe`] opens.
pub const OPEN: usize = 16;

/// What the child reads and writes; lives on the parent's stack while the child runs.
#[repr(C)]
struct Shared<'a> {
    steps: &'a [Step],
    uid_map: &'a [u8],
    gid_map: &'a [u8],
    net: bool,
    /// The port to listen on inside the network namespace (0: none).
    listen: u16,
    /// An existing user namespace to join instead of making one (a rebuilt mount plan).
    join: i32,
    /// Which stage failed (0: none) and its errno.
    stage: i32,
    errno: i32,
    /// With a failed mount step, its index.
    step: i32,
    fds: [i32; 4],
    /// A path to `stat` once the plan is applied (null: none), and what it turned out to be.
    probe: *const libc::c_char,
    probe_id: Option<(u64, u64)>,
    /// Directories to open then, and their descriptors.
    open: &'a [CString],
    opened: [i32; OPEN],
}

const STAGES: [&str; 11] = [
    "",
    "writing /proc/self/setgroups",
    "writing /proc/self/uid_map",
    "writing /proc/self/gid_map",
    "bringing up the loopback interface",
    "creating the mount namespace",
    "applying the mount plan",
    "opening the namespaces",
    "cloning into new namespaces",
    "listening inside the network namespace",
    "finding the working directory and the overlays in the mount namespace",
];

unsafe fn write_file(path: &std::ffi::CStr, data: &[u8]) -> bool {
    let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
    if fd < 0 {
        return false;
    }
    let ok = libc::write(fd, data.as_ptr().cast(), data.len()) == data.len() as isize;
    libc::close(fd);
    ok
}

unsafe fn loopback_up() -> bool {
    let s = libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
    if s < 0 {
        return false;
    }
    let mut req: libc::ifreq = std::mem::zeroed();
    for (i, b) in b"lo\0".iter().enumerate() {
        req.ifr_name[i] = *b as libc::c_char;
    }
    let mut ok = libc::ioctl(s, libc::SIOCGIFFLAGS, &mut req) == 0;
    if ok {
        req.ifr_ifru.ifru_flags |= libc::IFF_UP as libc::c_short;
        ok = libc::ioctl(s, libc::SIOCSIFFLAGS, &req) == 0;
    }
    libc::close(s);
    ok
}

unsafe fn listen(port: u16) -> i32 {
    let s = libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0);
    if s < 0 {
        return -1;
    }
    let mut addr: libc::sockaddr_in = std::mem::zeroed();
    addr.sin_family = libc::AF_INET as libc::sa_family_t;
    addr.sin_port = port.to_be();
    addr.sin_addr.s_addr = u32::from(std::net::Ipv4Addr::LOCALHOST).to_be();
    let len = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
    if libc::bind(s, (&addr as *const libc::sockaddr_in).cast(), len) != 0
        || libc::listen(s, 128) != 0
    {
        libc::close(s);
        return -1;
    }
    s
}

extern "C" fn child(arg: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `arg` is the parent's `Shared`, alive until we exit (vfork); we only make
    // raw system calls on memory prepared before the clone.
    unsafe {
        let sh = &mut *(arg as *mut Shared);
        let errno = || *libc::__errno_location();
        let fail = |stage: i32, sh: &mut Shared| {
            sh.stage = stage;
            sh.errno = errno();
            1
        };
        if sh.join >= 0 {
            if libc::setns(sh.join, libc::CLONE_NEWUSER) != 0 {
                return fail(8, sh);
            }
        } else {
            if !write_file(c"/proc/self/setgroups", b"deny") {
                return fail(1, sh);
            }
            if !write_file(c"/proc/self/uid_map", sh.uid_map) {
                return fail(2, sh);
            }
            if !write_file(c"/proc/self/gid_map", sh.gid_map) {
                return fail(3, sh);
            }
            if sh.net && !loopback_up() {
                return fail(4, sh);
            }
        }
        if sh.listen != 0 && sh.join < 0 {
            sh.fds[3] = listen(sh.listen);
            if sh.fds[3] < 0 {
                return fail(9, sh);
            }
        }
        if libc::unshare(libc::CLONE_NEWNS) != 0 {
            return fail(5, sh);
        }
        if let Err((i, e)) = mounts::apply(sh.steps) {
            sh.stage = 6;
            sh.errno = e;
            sh.step = i as i32;
            return 1;
        }
        if !sh.probe.is_null() {
            let mut st: libc::stat = std::mem::zeroed();
            if libc::stat(sh.probe, &mut st) != 0 {
                return fail(10, sh);
            }
            sh.probe_id = Some((st.st_dev, st.st_ino));
        }
        for (i, p) in sh.open.iter().enumerate() {
            let flags = libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC;
            sh.opened[i] = libc::open(p.as_ptr(), flags);
            if sh.opened[i] < 0 {
                return fail(10, sh);
            }
        }
        let flags = libc::O_RDONLY | libc::O_CLOEXEC;
        sh.fds[0] = libc::open(c"/proc/self/ns/user".as_ptr(), flags);
        sh.fds[1] = libc::open(c"/proc/self/ns/mnt".as_ptr(), flags);
        let net = sh.net && sh.join < 0;
        if net {
            sh.fds[2] = libc::open(c"/proc/self/ns/net".as_ptr(), flags);
        }
        if sh.fds[0] < 0 || sh.fds[1] < 0 || (net && sh.fds[2] < 0) {
            return fail(7, sh);
        }
        0
    }
}

/// Why the namespaces could not be made: the stage and the OS error.
#[derive(Debug)]
pub struct NsError {
    /// What was being done.
    pub stage: &'static str,
    /// The error.
    pub error: io::Error,
    /// With a failed mount, the step's target.
    pub step: Option<String>,
}

impl std::fmt::Display for NsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.stage, self.error)?;
        if let Some(s) = &self.step {
            write!(f, " (at {s})")?;
        }
        Ok(())
    }
}

fn step_target(s: &Step) -> String {
    let c: &CString = match s {
        Step::Bind { dst, .. } | Step::Move { dst, .. } | Step::Overlay { dst, .. } => dst,
        Step::Clone { path, .. } | Step::ReadOnly { path, .. } => path,
    };
    c.to_string_lossy().into_owned()
}

/// Makes the namespaces and applies `steps` in the mount namespace. With `rebuild`, the
/// user and network namespaces of an earlier [`Namespaces`] are kept and only a new mount
/// namespace is made (its `net` and `listener` are then `None`: keep the old ones). With
/// `probe`, the path is looked up in the finished mount namespace and its identity returned
/// (a command's working directory inside an overlay is not the object the host sees).
pub fn create(
    steps: &[Step],
    net: bool,
    listen: Option<u16>,
    rebuild: Option<&Namespaces>,
    probe: Option<&Probe<'_>>,
) -> Result<Namespaces, NsError> {
    use std::os::fd::AsRawFd;
    // SAFETY: plain getters.
    let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
    let uid_map = format!("{uid} {uid} 1\n").into_bytes();
    let gid_map = format!("{gid} {gid} 1\n").into_bytes();
    let mut shared = Shared {
        steps,
        uid_map: &uid_map,
        gid_map: &gid_map,
        net,
        listen: if net { listen.unwrap_or(0) } else { 0 },
        join: rebuild.map_or(-1, |r| r.user.as_raw_fd()),
        stage: 0,
        errno: 0,
        step: -1,
        fds: [-1; 4],
        probe: probe.map_or(std::ptr::null(), |p| p.cwd.as_ptr()),
        probe_id: None,
        open: probe.map_or(&[][..], |p| &p.open[..p.open.len().min(OPEN)]),
        opened: [-1; OPEN],
    };
    let mut stack = vec![0u8; 256 * 1024];
    // The stack grows down: hand the clone its top, 16-byte aligned.
    let top = (stack.as_mut_ptr() as usize + stack.len()) & !15;
    let mut flags = libc::CLONE_VM | libc::CLONE_VFORK | libc::CLONE_FILES | libc::SIGCHLD;
    if rebuild.is_none() {
        flags |= libc::CLONE_NEWUSER;
        if net {
            flags |= libc::CLONE_NEWNET;
        }
    }
    // SAFETY: the child runs `child` on `stack` and only touches `shared`, both alive until
    // it exits (CLONE_VFORK suspends us until then).
    let pid = unsafe {
        libc::clone(
            child,
            top as *mut libc::c_void,
            flags,
            (&mut shared as *mut Shared).cast(),
        )
    };
    if pid < 0 {
        return Err(NsError {
            stage: STAGES[8],
            error: io::Error::last_os_error(),
            step: None,
        });
    }
    let mut status = 0;
    // SAFETY: reaping our own child.
    unsafe {
        libc::waitpid(pid, &mut status, libc::__WALL);
    }
    drop(stack);
    // SAFETY: the child opened these in our (shared) table and gave them to us.
    let take = |fd: i32| (fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd) });
    let opened: Vec<OwnedFd> = shared.opened.iter().filter_map(|&fd| take(fd)).collect();
    let (user, mnt, netfd, listener) = (
        take(shared.fds[0]),
        take(shared.fds[1]),
        take(shared.fds[2]),
        take(shared.fds[3]),
    );
    if shared.stage != 0 || !libc::WIFEXITED(status) || libc::WEXITSTATUS(status) != 0 {
        let stage = STAGES
            .get(shared.stage as usize)
            .copied()
            .filter(|s| !s.is_empty())
            .unwrap_or("the namespace helper");
        return Err(NsError {
            stage,
            error: io::Error::from_raw_os_error(shared.errno),
            step: usize::try_from(shared.step)
                .ok()
                .and_then(|i| steps.get(i))
                .map(step_target),
        });
    }
    match (user, mnt) {
        (Some(user), Some(mnt)) => Ok(Namespaces {
            user,
            mnt,
            net: netfd,
            listener,
            probe: shared.probe_id,
            opened,
        }),
        _ => Err(NsError {
            stage: STAGES[7],
            error: io::Error::from_raw_os_error(libc::EBADF),
            step: None,
        }),
    }
}
