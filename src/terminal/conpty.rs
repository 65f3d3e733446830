//! A Windows pseudo console (ConPTY, Windows 10 1809 and later): the program's console, whose
//! output arrives as VT sequences on a pipe and whose input is VT written to another — the
//! Windows form of a Unix pseudo-terminal.
//!
//! [`spawn`] makes the two pipes and the console (`CreatePseudoConsole`), starts the program
//! suspended on it (`CreateProcessW` with a `STARTUPINFOEXW` whose attribute list carries
//! `PROC_THREAD_ATTRIBUTE_PSEUDOCONSOLE`, the standard handles given as null so the
//! console's own are opened and none of the host's redirected ones leaks in), puts it in a Job Object before it runs a single
//! instruction — so every process it starts is in the job, and `TerminateJobObject` ends the
//! whole tree — and resumes it. The job is named after the monitor and its pid, so another
//! tools object of the host finds it by name to stop the monitor; it kills what is left of the
//! tree when its last handle closes (`KILL_ON_JOB_CLOSE`).
//!
//! The three console functions are looked up in `kernel32.dll` at run time, not imported: an
//! import would keep the whole addon from loading on a Windows without them, where only a
//! terminal monitor should fail, with an error that says why.

use super::Size;
use std::ffi::{c_void, OsStr, OsString};
use std::fs::File;
use std::io;
use std::os::windows::ffi::OsStrExt;
use std::os::windows::io::{FromRawHandle, OwnedHandle, RawHandle};
use std::path::Path;
use std::sync::Mutex;
use windows_sys::Win32::Foundation::HANDLE;
use windows_sys::Win32::System::Console::{COORD, HPCON};
use windows_sys::Win32::System::JobObjects as job;
use windows_sys::Win32::System::Threading as th;

/// `JOB_OBJECT_TERMINATE` (in windows-sys's SystemServices module, a large feature for one
/// constant): the right to end a job's processes.
const JOB_OBJECT_TERMINATE: u32 = 0x0008;

/// `STATUS_CONTROL_C_EXIT`: the exit code of a console process that Ctrl-C ended.
pub const CONTROL_C_EXIT: u32 = 0xC000_013A;

type CreateFn = unsafe extern "system" fn(COORD, HANDLE, HANDLE, u32, *mut HPCON) -> i32;
type ResizeFn = unsafe extern "system" fn(HPCON, COORD) -> i32;
type CloseFn = unsafe extern "system" fn(HPCON);

/// The console functions, when this Windows has them.
#[derive(Clone, Copy)]
struct Api {
    create: CreateFn,
    resize: ResizeFn,
    close: CloseFn,
}

/// The error on a Windows without ConPTY.
pub fn unsupported() -> io::Error {
    io::Error::new(
        io::ErrorKind::Unsupported,
        "this Windows has no pseudo console (CreatePseudoConsole is missing from kernel32.dll; \
         ConPTY needs Windows 10 version 1809 or later): start the monitor without tty",
    )
}

fn api() -> io::Result<Api> {
    use windows_sys::Win32::System::LibraryLoader::{GetModuleHandleW, GetProcAddress};
    let name: Vec<u16> = OsStr::new("kernel32.dll")
        .encode_wide()
        .chain([0])
        .collect();
    // SAFETY: kernel32 is loaded in every process; the names are NUL-terminated; each symbol,
    // when present, has the documented signature it is transmuted to.
    unsafe {
        let k = GetModuleHandleW(name.as_ptr());
        if k.is_null() {
            return Err(unsupported());
        }
        let create = GetProcAddress(k, c"CreatePseudoConsole".as_ptr().cast());
        let resize = GetProcAddress(k, c"ResizePseudoConsole".as_ptr().cast());
        let close = GetProcAddress(k, c"ClosePseudoConsole".as_ptr().cast());
        match (create, resize, close) {
            (Some(c), Some(r), Some(x)) => Ok(Api {
                create: std::mem::transmute::<unsafe extern "system" fn() -> isize, CreateFn>(c),
                resize: std::mem::transmute::<unsafe extern "system" fn() -> isize, ResizeFn>(r),
                close: std::mem::transmute::<unsafe extern "system" fn() -> isize, CloseFn>(x),
            }),
            _ => Err(unsupported()),
        }
    }
}

fn coord(size: Size) -> COORD {
    COORD {
        X: size.cols as i16,
        Y: size.rows as i16,
    }
}

fn hresult(hr: i32) -> io::Result<()> {
    if hr < 0 {
        // A Win32 error wrapped in an HRESULT (FACILITY_WIN32) carries its code in the low
        // word; anything else is shown as the HRESULT.
        if (hr as u32) >> 16 == 0x8007 {
            return Err(io::Error::from_raw_os_error(hr & 0xFFFF));
        }
        return Err(io::Error::other(format!("HRESULT 0x{:08X}", hr as u32)));
    }
    Ok(())
}

/// A pseudo console; closed once, by [`Console::close`] or when dropped.
#[derive(Debug)]
pub struct Console {
    hpc: Mutex<Option<HPCON>>,
    api: ApiDebug,
}

/// [`Api`] behind a `Debug` that shows nothing (function pointers).
#[derive(Clone, Copy)]
struct ApiDebug(Api);

impl std::fmt::Debug for ApiDebug {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ConPTY")
    }
}

impl Console {
    fn lock(&self) -> std::sync::MutexGuard<'_, Option<HPCON>> {
        self.hpc.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Resizes it (the program sees a window-size event); `BrokenPipe` once it is closed.
    pub fn resize(&self, size: Size) -> io::Result<()> {
        let hpc = self.lock();
        let Some(hpc) = *hpc else {
            return Err(io::ErrorKind::BrokenPipe.into());
        };
        // SAFETY: a live pseudo console handle (closing takes the same lock).
        hresult(unsafe { (self.api.0.resize)(hpc, coord(size)) })
    }

    /// Closes it: the console host ends the programs still attached, writes what is left of
    /// its output and closes its end of the output pipe, so the relay reads end of file. The
    /// output must be being read meanwhile (before Windows 11 24H2 the call waits for it).
    pub fn close(&self) {
        if let Some(hpc) = self.lock().take() {
            // SAFETY: a live handle, taken out so it is closed once.
            unsafe { (self.api.0.close)(hpc) }
        }
    }
}

impl Drop for Console {
    fn drop(&mut self) {
        self.close();
    }
}

/// A program started on a pseudo console.
#[derive(Debug)]
pub struct Spawned {
    /// Its process id.
    pub pid: u32,
    /// Its process handle (waited on for its exit).
    pub process: OwnedHandle,
    /// The job it and its descendants are in.
    pub job: OwnedHandle,
    /// The console.
    pub console: std::sync::Arc<Console>,
    /// The write end of the console's input.
    pub input: File,
    /// The read end of the console's output.
    pub output: File,
}

/// The name of monitor `id`'s job, whose shell is `pid` (unique while that process lives).
pub fn job_name(id: &str, pid: u32) -> String {
    format!("Local\\clarvis-monitor-{id}-{pid}")
}

fn wide(s: &OsStr) -> Vec<u16> {
    s.encode_wide().chain([0]).collect()
}

fn last_error() -> io::Error {
    io::Error::last_os_error()
}

/// Owns a raw handle (non-null, valid) so it closes on every path.
fn own(h: HANDLE) -> OwnedHandle {
    // SAFETY: callers pass a handle just returned to this process, not owned elsewhere.
    unsafe { OwnedHandle::from_raw_handle(h as RawHandle) }
}

fn pipe() -> io::Result<(OwnedHandle, OwnedHandle)> {
    use windows_sys::Win32::System::Pipes::CreatePipe;
    let (mut r, mut w): (HANDLE, HANDLE) = (std::ptr::null_mut(), std::ptr::null_mut());
    // SAFETY: out-pointers to locals; not inheritable (no security attributes).
    if unsafe { CreatePipe(&mut r, &mut w, std::ptr::null(), 0) } == 0 {
        return Err(last_error());
    }
    Ok((own(r), own(w)))
}

/// Makes writes to a pipe's write end return at once with what fitted (possibly nothing)
/// instead of waiting for the reader, so a program that does not read never holds up a call
/// (`super::input`). Best effort: without it a write waits for the console host, which reads
/// its input pipe whether or not the program reads.
fn no_wait(h: &OwnedHandle) {
    use std::os::windows::io::AsRawHandle;
    use windows_sys::Win32::System::Pipes::{SetNamedPipeHandleState, PIPE_NOWAIT};
    let mode = PIPE_NOWAIT;
    // SAFETY: a pipe handle we own; `mode` lives for the call.
    unsafe {
        SetNamedPipeHandleState(h.as_raw_handle(), &mode, std::ptr::null(), std::ptr::null());
    }
}

/// A job whose processes die when its last handle closes, named `name`.
fn new_job(name: &str) -> io::Result<OwnedHandle> {
    let name = wide(OsStr::new(name));
    // SAFETY: a NUL-terminated name; default security.
    let h = unsafe { job::CreateJobObjectW(std::ptr::null(), name.as_ptr()) };
    if h.is_null() {
        return Err(last_error());
    }
    let handle = own(h);
    // SAFETY: a plain C struct, zero-initialised as documented, then one flag set.
    let mut info: job::JOBOBJECT_EXTENDED_LIMIT_INFORMATION = unsafe { std::mem::zeroed() };
    info.BasicLimitInformation.LimitFlags = job::JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
    // SAFETY: `info` is the struct this class takes, with its size.
    let ok = unsafe {
        job::SetInformationJobObject(
            h,
            job::JobObjectExtendedLimitInformation,
            (&info as *const job::JOBOBJECT_EXTENDED_LIMIT_INFORMATION).cast(),
            std::mem::size_of::<job::JOBOBJECT_EXTENDED_LIMIT_INFORMATION>() as u32,
        )
    };
    if ok == 0 {
        return Err(last_error());
    }
    Ok(handle)
}

/// Ends every process of monitor `id`'s job (its shell is `pid`). Returns whether the job was
/// found (it exists while the host that started the monitor holds it).
pub fn terminate_job(id: &str, pid: u32) -> bool {
    let name = wide(OsStr::new(&job_name(id, pid)));
    // SAFETY: a NUL-terminated name; the handle, when opened, is closed before returning.
    unsafe {
        let h = job::OpenJobObjectW(JOB_OBJECT_TERMINATE, 0, name.as_ptr());
        if h.is_null() {
            return false;
        }
        job::TerminateJobObject(h, 1);
        drop(own(h));
        true
    }
}

/// Ends process `pid` (a monitor without a job: its shell alone).
pub fn terminate_pid(pid: u32) {
    // SAFETY: as above.
    unsafe {
        let h = th::OpenProcess(th::PROCESS_TERMINATE, 0, pid);
        if !h.is_null() {
            th::TerminateProcess(h, 1);
            drop(own(h));
        }
    }
}

/// Waits for `process` to exit and returns its exit code.
pub fn wait(process: &OwnedHandle) -> Option<u32> {
    use std::os::windows::io::AsRawHandle;
    let h = process.as_raw_handle();
    let mut code = 0u32;
    // SAFETY: a process handle we own.
    unsafe {
        th::WaitForSingleObject(h, th::INFINITE);
        (th::GetExitCodeProcess(h, &mut code) != 0).then_some(code)
    }
}

/// An attribute list holding one attribute: the pseudo console.
struct Attributes(Vec<usize>);

impl Attributes {
    fn new(hpc: HPCON) -> io::Result<Attributes> {
        let mut size = 0usize;
        // SAFETY: the size query (fails with ERROR_INSUFFICIENT_BUFFER, size set).
        unsafe { th::InitializeProcThreadAttributeList(std::ptr::null_mut(), 1, 0, &mut size) };
        let mut buf = vec![0usize; size.div_ceil(std::mem::size_of::<usize>()).max(1)];
        let list: th::LPPROC_THREAD_ATTRIBUTE_LIST = buf.as_mut_ptr().cast();
        // SAFETY: `buf` holds `size` bytes, aligned for the list.
        if unsafe { th::InitializeProcThreadAttributeList(list, 1, 0, &mut size) } == 0 {
            return Err(last_error());
        }
        let attrs = Attributes(buf);
        // SAFETY: the console handle is the attribute's value itself (not a pointer to it),
        // as the documentation's sample passes it.
        let ok = unsafe {
            th::UpdateProcThreadAttribute(
                list,
                0,
                th::PROC_THREAD_ATTRIBUTE_PSEUDOCONSOLE as usize,
                hpc as *const c_void,
                std::mem::size_of::<HPCON>(),
                std::ptr::null_mut(),
                std::ptr::null(),
            )
        };
        if ok == 0 {
            return Err(last_error());
        }
        Ok(attrs)
    }

    fn list(&mut self) -> th::LPPROC_THREAD_ATTRIBUTE_LIST {
        self.0.as_mut_ptr().cast()
    }
}

impl Drop for Attributes {
    fn drop(&mut self) {
        // SAFETY: initialised in `new` (a failed initialisation never builds one).
        unsafe { th::DeleteProcThreadAttributeList(self.list()) }
    }
}

/// Starts `args` (the program first, found by the caller) in `cwd` with the environment
/// `env` (`KEY=value` entries) on a new pseudo console of `size`, in a new job named by
/// [`job_name`] for `id`.
pub fn spawn(
    args: &[OsString],
    cwd: &Path,
    env: &[OsString],
    size: Size,
    id: &str,
) -> io::Result<Spawned> {
    use std::os::windows::io::AsRawHandle;
    let api = api()?;
    let (in_read, in_write) = pipe()?;
    let (out_read, out_write) = pipe()?;
    let mut hpc: HPCON = 0;
    // SAFETY: valid pipe ends; the console duplicates what it keeps, so ours close after.
    hresult(unsafe {
        (api.create)(
            coord(size),
            in_read.as_raw_handle(),
            out_write.as_raw_handle(),
            0,
            &mut hpc,
        )
    })?;
    let console = std::sync::Arc::new(Console {
        hpc: Mutex::new(Some(hpc)),
        api: ApiDebug(api),
    });
    drop((in_read, out_write));
    let mut attrs = Attributes::new(hpc)?;
    // SAFETY: a plain C struct; zero is its documented start.
    let mut si: th::STARTUPINFOEXW = unsafe { std::mem::zeroed() };
    si.StartupInfo.cb = std::mem::size_of::<th::STARTUPINFOEXW>() as u32;
    // Standard handles given, and null (the zeroed struct): the console's own are opened for
    // them, and none of the host's (redirected) ones is passed on — as Windows Terminal
    // starts its shells (Wine, too, fills null ones only, not INVALID_HANDLE_VALUE).
    si.StartupInfo.dwFlags = th::STARTF_USESTDHANDLES;
    si.lpAttributeList = attrs.list();
    let mut line = wide(&super::cmdline::command_line(args));
    let mut block: Vec<u16> = env.iter().flat_map(|e| wide(e)).collect();
    block.push(0);
    let dir = wide(cwd.as_os_str());
    // SAFETY: a plain C struct the call fills.
    let mut pi: th::PROCESS_INFORMATION = unsafe { std::mem::zeroed() };
    let flags =
        th::EXTENDED_STARTUPINFO_PRESENT | th::CREATE_UNICODE_ENVIRONMENT | th::CREATE_SUSPENDED;
    // SAFETY: every buffer is NUL-terminated and outlives the call; no handle is inherited
    // (the console is attached through the attribute list).
    let ok = unsafe {
        th::CreateProcessW(
            std::ptr::null(),
            line.as_mut_ptr(),
            std::ptr::null(),
            std::ptr::null(),
            0,
            flags,
            block.as_ptr().cast(),
            dir.as_ptr(),
            &si.StartupInfo,
            &mut pi,
        )
    };
    drop(attrs);
    if ok == 0 {
        return Err(last_error());
    }
    let (process, thread) = (own(pi.hProcess), own(pi.hThread));
    let pid = pi.dwProcessId;
    let assigned = new_job(&job_name(id, pid)).and_then(|j| {
        // SAFETY: our job and our suspended process.
        if unsafe { job::AssignProcessToJobObject(j.as_raw_handle(), process.as_raw_handle()) } == 0
        {
            return Err(last_error());
        }
        Ok(j)
    });
    let job = match assigned {
        Ok(j) => j,
        Err(e) => {
            // Never let it run outside a job: nothing could end its tree.
            // SAFETY: our own suspended process.
            unsafe { th::TerminateProcess(process.as_raw_handle(), 1) };
            return Err(e);
        }
    };
    // SAFETY: the main thread of our suspended process.
    unsafe { th::ResumeThread(thread.as_raw_handle()) };
    no_wait(&in_write);
    Ok(Spawned {
        pid,
        process,
        job,
        console,
        input: File::from(in_write),
        output: File::from(out_read),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    /// Reads `out` on a thread into a shared buffer.
    fn reader(mut out: File) -> std::sync::Arc<Mutex<Vec<u8>>> {
        let got = std::sync::Arc::new(Mutex::new(Vec::new()));
        let g = std::sync::Arc::clone(&got);
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = out.read(&mut buf) {
                if n == 0 {
                    break;
                }
                g.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
        got
    }

    fn cmd() -> OsString {
        let root = std::env::var_os("SystemRoot").unwrap_or_else(|| "C:\\windows".into());
        Path::new(&root).join("system32").join("cmd.exe").into()
    }

    fn env() -> Vec<OsString> {
        super::super::cmdline::environment(std::env::vars_os(), &[], &[])
    }

    fn text(got: &Mutex<Vec<u8>>) -> String {
        String::from_utf8_lossy(&got.lock().unwrap()).into_owned()
    }

    fn eventually(what: &str, f: impl Fn() -> bool) {
        for _ in 0..3000 {
            if f() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        panic!("never: {what}");
    }

    /// Whether this is Wine (ntdll exports `wine_get_version`).
    fn wine() -> bool {
        use windows_sys::Win32::System::LibraryLoader::{GetModuleHandleW, GetProcAddress};
        let name: Vec<u16> = OsStr::new("ntdll.dll").encode_wide().chain([0]).collect();
        // SAFETY: a lookup in a loaded module by NUL-terminated names.
        unsafe {
            let m = GetModuleHandleW(name.as_ptr());
            !m.is_null() && GetProcAddress(m, c"wine_get_version".as_ptr().cast()).is_some()
        }
    }

    // The programs read and write the console through `CON` rather than their standard
    // handles: Wine 8 gives a pseudo console's client no standard handles bound to it (SPEC
    // §9, "Terminal monitors on Windows"); Windows gives the console's, and `CON` is the
    // same console there.

    #[test]
    fn a_program_on_a_pseudo_console_answers_input_and_its_exit_code_and_last_output_come_back() {
        let size = Size { cols: 90, rows: 30 };
        let args = [
            cmd(),
            "/c".into(),
            "set /p v=<CON & call echo got%v%> CON & exit 7".into(),
        ];
        let s = spawn(&args, &std::env::temp_dir(), &env(), size, "mon_0000beef").unwrap();
        let got = reader(s.output.try_clone().unwrap());
        let mut input = &s.input;
        input.write_all(b"abc\r").unwrap();
        eventually("the answer to the input", || text(&got).contains("gotabc"));
        assert_eq!(wait(&s.process), Some(7));
        // Resizing: Windows resizes; Wine 8's ResizePseudoConsole is a stub (E_NOTIMPL).
        match s.console.resize(Size {
            cols: 100,
            rows: 20,
        }) {
            Ok(()) => assert!(!wine()),
            Err(e) => assert!(wine() && e.to_string().contains("0x80004001"), "{e}"),
        }
        s.console.close();
        assert!(
            s.console.resize(size).is_err(),
            "a closed console is not resized"
        );
        let mut all = Vec::new();
        let _ = s.output.try_clone().unwrap().read_to_end(&mut all);
        assert!(text(&got).contains("gotabc"));
    }

    #[test]
    fn the_job_is_found_by_name_and_ends_the_program() {
        let args = [
            cmd(),
            "/c".into(),
            "echo waiting> CON & set /p v=<CON".into(),
        ];
        let s = spawn(
            &args,
            &std::env::temp_dir(),
            &env(),
            Size { cols: 80, rows: 24 },
            "mon_0000cafe",
        )
        .unwrap();
        let got = reader(s.output.try_clone().unwrap());
        eventually("the program runs", || text(&got).contains("waiting"));
        assert!(
            !terminate_job("mon_0000cafe", s.pid + 4),
            "another pid names another job"
        );
        assert!(
            terminate_job("mon_0000cafe", s.pid),
            "the job is found by name"
        );
        assert_eq!(wait(&s.process), Some(1), "TerminateJobObject's exit code");
        s.console.close();
    }
}
