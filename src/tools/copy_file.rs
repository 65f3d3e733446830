//! `copy`: copy one file, streamed through a temp file beside the destination (constant
//! memory, no size limit), mode carried over, renamed into place atomically.

use super::endpoints::{remove_created, via, Endpoints};
use super::title;
use super::{change_annotations, Call, Handler, Output, ToolDef};
use crate::atomic;
use crate::error::{Code, ToolError, ToolResult};
use serde_json::{Map, Value};
use std::io::Read;

const DESCRIPTION: &str = "Copy one file inside the workspace, byte for byte (any size, binary included), with its permissions; missing parent directories of the destination are created. The copy appears atomically: readers see the old destination or the whole new file, never a partial one. Refuses to replace an existing file unless overwrite is true. Files only: to copy a directory use bash (cp -r). Use move to rename instead. Errors: not_found (no such source), not_a_file (the source is a directory, or the destination is one; or either is a FIFO, socket or device), invalid_input (same path, destination exists without overwrite, or a symlink at either end), path_escape (stay inside the workspace), io_error.";

/// Bytes copied between two cancellation checks (and writeback starts).
const CHUNK: u64 = 16 << 20;

/// The `copy` tool definition.
pub fn def() -> ToolDef {
    ToolDef {
        name: "copy",
        description: DESCRIPTION,
        schema,
        bounded: false,
        annotations: change_annotations(),
        handler: Handler::Blocking(run),
        aborted: ToolError::aborted,
        syntax: false,
        unstaged: false,
    }
}

fn schema() -> Value {
    super::move_file::transfer_schema()
}

fn run(call: &Call) -> ToolResult<Output> {
    let ends = Endpoints::check(call, false)?;
    if let Some(staged) = ends.staged(call, "Copied") {
        return staged.map(Output::text);
    }
    let (from_dir, to_dir, created) = ends.dirs(call)?;
    let result = copy_into(call, &ends, &from_dir, &to_dir);
    if result.is_err() {
        remove_created(&created);
    }
    result.map(|()| Output::text(ends.message("Copied")))
}

fn copy_into(
    call: &Call,
    ends: &Endpoints,
    from_dir: &std::fs::File,
    to_dir: &std::fs::File,
) -> ToolResult<()> {
    let fail = |e: std::io::Error| ToolError::fs(&e, &ends.dst_shown);
    let from = via(from_dir, &ends.src);
    // A FIFO, socket or device is not a file to copy: opening a FIFO for reading would wait
    // for a writer forever. Non-blocking, so one swapped in after the check cannot hang us.
    let not_regular = || {
        ToolError::new(
            Code::NotAFile,
            format!("Not a regular file: {}", ends.src_shown),
        )
        .with("path", ends.src_shown.as_str())
    };
    if !ends.src_meta.is_file() {
        return Err(not_regular());
    }
    let source = open_nonblocking(&from).map_err(|e| ToolError::fs(&e, &ends.src_shown))?;
    let meta = source
        .metadata()
        .map_err(|e| ToolError::fs(&e, &ends.src_shown))?;
    if !meta.is_file() {
        return Err(not_regular());
    }
    let to = via(to_dir, &ends.dst);
    let dst_dir = to.parent().map(|p| p.to_path_buf()).unwrap_or_default();
    let (temp, mut out) = atomic::create_temp(&dst_dir).map_err(fail)?;
    // std's copy uses copy_file_range/sendfile between files: the kernel moves the bytes.
    let mut written = 0u64;
    loop {
        if call.cancel.is_cancelled() {
            return Err(ToolError::aborted());
        }
        let n = std::io::copy(&mut (&source).take(CHUNK), &mut out).map_err(fail)?;
        if n == 0 {
            break;
        }
        start_writeback(&out, written, n);
        written += n;
    }
    let mode = crate::fsmeta::mode(&ends.src_meta) & 0o777;
    crate::fsmeta::set_file_mode(&out, mode).map_err(fail)?;
    out.sync_all().map_err(fail)?;
    if call.cancel.is_cancelled() {
        return Err(ToolError::aborted());
    }
    call.before_write(std::slice::from_ref(&ends.dst));
    atomic::rename_over(temp.path(), &to).map_err(fail)?;
    temp.keep();
    let _ = atomic::fsync_dir(&dst_dir);
    call.after_write(std::slice::from_ref(&ends.dst));
    Ok(())
}

/// Opens `path` for reading without blocking on a FIFO (reads of a regular file are
/// unaffected by `O_NONBLOCK`).
fn open_nonblocking(path: &std::path::Path) -> std::io::Result<std::fs::File> {
    let mut o = std::fs::OpenOptions::new();
    o.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC);
    }
    o.open(path)
}

/// Starts writing a copied range to disk without waiting (Linux `sync_file_range`), so the
/// final `fsync` finds most of the file already written instead of all of it: the disk
/// works while the next chunk is copied. Best effort: the `fsync` still decides.
#[cfg(target_os = "linux")]
fn start_writeback(out: &std::fs::File, offset: u64, len: u64) {
    use std::os::fd::AsRawFd;
    let (Ok(offset), Ok(len)) = (i64::try_from(offset), i64::try_from(len)) else {
        return;
    };
    // SAFETY: a plain syscall on an open descriptor; it reads no memory of ours.
    unsafe {
        libc::sync_file_range(out.as_raw_fd(), offset, len, libc::SYNC_FILE_RANGE_WRITE);
    }
}

#[cfg(not(target_os = "linux"))]
fn start_writeback(_out: &std::fs::File, _offset: u64, _len: u64) {}

/// The call's title (`describeCall`): what a progress list or an approval prompt shows.
pub fn title(args: &Map<String, Value>) -> String {
    format!(
        "Copy {} to {}",
        title::path(args, "source", "a file"),
        title::path(args, "destination", "another path")
    )
}
