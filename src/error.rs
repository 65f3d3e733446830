//! Error codes, [`ToolError`] and the JSON envelope a failed call returns.
//!
//! Every failure a tool reports is a `ToolError`: a stable machine code, a sentence written
//! for the model, and optional extra fields (`path`, `size`, `index`…). Dispatch renders it
//! once, at the edge, as `{"error": <code>, "message": <msg>, ...fields}`. Nothing else in the
//! crate formats errors for the caller.

use serde_json::{Map, Value};
use std::fmt;
use std::io;

/// The closed set of error codes a caller can see.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Code {
    /// Arguments failed the schema or a tool's own argument rule.
    InvalidInput,
    /// A tool, file or directory does not exist.
    NotFound,
    /// A directory where a file was needed, or a file used as a directory.
    NotAFile,
    /// The file is binary, or in an encoding the tool will not rewrite.
    IsBinary,
    /// `read_image`: the file is not a PNG, JPEG, GIF or WebP image.
    NotAnImage,
    /// `edit_file`'s `old_string` was not found.
    NoMatch,
    /// `edit_file`'s `old_string` matched more than one region.
    AmbiguousMatch,
    /// A hunk of `apply_patch` did not apply.
    PatchFailed,
    /// Any other filesystem or process failure.
    IoError,
    /// `bash` ran past its timeout.
    Timeout,
    /// The caller's `AbortSignal` fired.
    Aborted,
    /// `bash` produced more output than the capture ceiling.
    OutputLimit,
    /// A file is larger than `maxFileBytes`.
    TooLarge,
    /// A path resolves outside the workspace while confinement is on.
    PathEscape,
    /// The host's guard (or the user, asked through elicit) refused the call.
    Denied,
    /// No monitor has that id.
    MonitorNotFound,
    /// `monitor_start` past `maxMonitors` live monitors.
    TooManyMonitors,
    /// `staleWrites: "refuse"`: a whole-file overwrite of a file that changed since the model
    /// last saw it whole (or was never shown whole).
    StaleWrite,
    /// `monitor_write` to a monitor whose program has exited (ours; the exit code is a field).
    NotRunning,
    /// A bug: anything that was not a `ToolError` (including a Rust panic).
    Internal,
}

impl Code {
    /// The wire name of the code, as it appears in the envelope's `error` field.
    pub fn as_str(self) -> &'static str {
        match self {
            Code::InvalidInput => "invalid_input",
            Code::NotFound => "not_found",
            Code::NotAFile => "not_a_file",
            Code::IsBinary => "is_binary",
            Code::NotAnImage => "not_an_image",
            Code::NoMatch => "no_match",
            Code::AmbiguousMatch => "ambiguous_match",
            Code::PatchFailed => "patch_failed",
            Code::IoError => "io_error",
            Code::Timeout => "timeout",
            Code::Aborted => "aborted",
            Code::OutputLimit => "output_limit",
            Code::TooLarge => "too_large",
            Code::PathEscape => "path_escape",
            Code::Denied => "denied",
            Code::MonitorNotFound => "monitor_not_found",
            Code::TooManyMonitors => "too_many_monitors",
            Code::StaleWrite => "stale_write",
            Code::NotRunning => "not_running",
            Code::Internal => "internal",
        }
    }

    /// Parses a wire name back into a code (used by the JS `ToolError` bridge).
    pub fn parse(name: &str) -> Option<Code> {
        ALL_CODES.iter().copied().find(|c| c.as_str() == name)
    }
}

/// Every code, in the order the original's `ErrorCode` union lists them (LATER §2.9), then
/// ours (`stale_write`, `not_running`) before `internal`.
pub const ALL_CODES: [Code; 20] = [
    Code::InvalidInput,
    Code::NotFound,
    Code::NotAFile,
    Code::IsBinary,
    Code::NotAnImage,
    Code::NoMatch,
    Code::AmbiguousMatch,
    Code::PatchFailed,
    Code::IoError,
    Code::Timeout,
    Code::Aborted,
    Code::OutputLimit,
    Code::TooLarge,
    Code::PathEscape,
    Code::Denied,
    Code::MonitorNotFound,
    Code::TooManyMonitors,
    Code::StaleWrite,
    Code::NotRunning,
    Code::Internal,
];

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A tool-level failure: code, message for the model, and extra envelope fields.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolError {
    /// The machine-readable code.
    pub code: Code,
    /// The sentence shown to the model.
    pub message: String,
    /// Extra fields merged into the envelope after `error` and `message`, in insertion order.
    pub fields: Map<String, Value>,
    /// The result's `meta` for the host (never shown to the model), when the error sets one.
    /// Boxed: a `ToolError` travels in every `Result` of the crate and stays small.
    pub meta: Option<Box<Map<String, Value>>>,
}

impl ToolError {
    /// A new error with no extra fields.
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        ToolError {
            code,
            message: message.into(),
            fields: Map::new(),
            meta: None,
        }
    }

    /// Sets `meta[key] = value` on the result (for the host, never in the envelope).
    pub fn with_meta(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.meta
            .get_or_insert_with(Default::default)
            .insert(key.to_string(), value.into());
        self
    }

    /// Adds (or replaces) an envelope field.
    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.fields.insert(key.to_string(), value.into());
        self
    }

    /// Shorthand for an `invalid_input` error.
    pub fn invalid(message: impl Into<String>) -> Self {
        ToolError::new(Code::InvalidInput, message)
    }

    /// Maps a filesystem error to the contract's codes: ENOENT → `not_found`, EISDIR and
    /// ENOTDIR → `not_a_file`, anything else → `io_error` `<ERRNO>: <detail>`. Every variant
    /// carries `path`.
    pub fn fs(err: &io::Error, path: &str) -> Self {
        let e = match errno(err) {
            Some(libc::ENOENT) => ToolError::new(Code::NotFound, format!("No such file: {path}")),
            Some(libc::EISDIR) => {
                ToolError::new(Code::NotAFile, format!("Path is a directory: {path}"))
            }
            Some(libc::ENOTDIR) => {
                ToolError::new(Code::NotAFile, format!("Not a directory: {path}"))
            }
            _ => ToolError::new(Code::IoError, io_detail(err)),
        };
        e.with("path", path)
    }

    /// `not_a_file` `Not a regular file: <path>`: a FIFO, socket or device where a tool wants
    /// a file. Every reader and writer refuses them alike (a FIFO would block a reader
    /// forever; a writer would replace it with a regular file).
    pub fn not_regular(path: &str) -> Self {
        ToolError::new(Code::NotAFile, format!("Not a regular file: {path}")).with("path", path)
    }

    /// The `aborted` error for tools other than bash.
    pub fn aborted() -> Self {
        ToolError::new(Code::Aborted, "Operation aborted (run cancelled)")
    }

    /// Renders the JSON envelope: `{"error":…,"message":…,…fields}`.
    pub fn envelope(&self) -> String {
        let mut obj = Map::new();
        obj.insert("error".into(), Value::String(self.code.as_str().into()));
        obj.insert("message".into(), Value::String(self.message.clone()));
        for (k, v) in &self.fields {
            if k != "error" && k != "message" {
                obj.insert(k.clone(), v.clone());
            }
        }
        Value::Object(obj).to_string()
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for ToolError {}

/// The result type of every tool handler.
pub type ToolResult<T = String> = Result<T, ToolError>;

/// `<ERRNO>: <system message>` as Node prints it (`EACCES: permission denied`), `EIO` when the
/// error carries no errno.
pub fn io_detail(err: &io::Error) -> String {
    match (errno(err), err.raw_os_error()) {
        (Some(n), Some(_)) => format!("{}: {}", errno_name(n), lower(&err.to_string())),
        // A made-up error (Windows maps kinds to errnos) keeps its own sentence.
        (Some(n), None) if err.get_ref().is_some() => format!("{}: {err}", errno_name(n)),
        (Some(n), None) => format!("{}: {}", errno_name(n), lower(&os_error(n).to_string())),
        (None, _) => format!("EIO: {err}"),
    }
}

/// The errno an I/O error stands for: the raw value on Unix; elsewhere (Windows, whose raw
/// codes are Win32 errors) the errno of its kind.
pub fn errno(err: &io::Error) -> Option<i32> {
    #[cfg(unix)]
    return err.raw_os_error();
    #[cfg(not(unix))]
    kind_errno(err.kind())
}

#[cfg(not(unix))]
fn kind_errno(kind: io::ErrorKind) -> Option<i32> {
    use io::ErrorKind as K;
    Some(match kind {
        K::NotFound => libc::ENOENT,
        K::PermissionDenied => libc::EACCES,
        K::AlreadyExists => libc::EEXIST,
        K::NotADirectory => libc::ENOTDIR,
        K::IsADirectory => libc::EISDIR,
        K::DirectoryNotEmpty => libc::ENOTEMPTY,
        K::InvalidInput | K::InvalidFilename => libc::EINVAL,
        K::ReadOnlyFilesystem => libc::EROFS,
        K::StorageFull => libc::ENOSPC,
        K::FileTooLarge => libc::EFBIG,
        K::CrossesDevices => libc::EXDEV,
        K::ResourceBusy => libc::EBUSY,
        K::Interrupted => libc::EINTR,
        K::WouldBlock => libc::EAGAIN,
        K::OutOfMemory => libc::ENOMEM,
        K::TooManyLinks => libc::EMLINK,
        K::ExecutableFileBusy => libc::ETXTBSY,
        _ => return None,
    })
}

/// An I/O error for `errno`: the OS error on Unix, an error of the matching kind elsewhere
/// (a raw errno there would be read as an unrelated Win32 code).
pub fn os_error(errno: i32) -> io::Error {
    #[cfg(unix)]
    return io::Error::from_raw_os_error(errno);
    #[cfg(not(unix))]
    {
        use io::ErrorKind as K;
        let kind = match errno {
            libc::ENOENT => K::NotFound,
            libc::EACCES => K::PermissionDenied,
            libc::EEXIST => K::AlreadyExists,
            libc::ENOTDIR => K::NotADirectory,
            libc::EISDIR => K::IsADirectory,
            libc::ENOTEMPTY => K::DirectoryNotEmpty,
            libc::EINVAL => K::InvalidInput,
            _ => K::Other,
        };
        io::Error::from(kind)
    }
}

/// std renders "Permission denied (os error 13)"; Node says "permission denied".
fn lower(msg: &str) -> String {
    let msg = msg.split(" (os error").next().unwrap_or(msg).to_string();
    let mut chars = msg.chars();
    match chars.next() {
        Some(c) => c.to_lowercase().collect::<String>() + chars.as_str(),
        None => msg,
    }
}

/// The symbolic name of an errno value (`ENOENT`), or `E<number>` for an unknown one.
pub fn errno_name(n: i32) -> String {
    let name = match n {
        libc::EPERM => "EPERM",
        libc::ENOENT => "ENOENT",
        libc::EIO => "EIO",
        libc::EBADF => "EBADF",
        libc::EAGAIN => "EAGAIN",
        libc::ENOMEM => "ENOMEM",
        libc::EACCES => "EACCES",
        libc::EBUSY => "EBUSY",
        libc::EEXIST => "EEXIST",
        libc::EXDEV => "EXDEV",
        libc::ENOTDIR => "ENOTDIR",
        libc::EISDIR => "EISDIR",
        libc::EINVAL => "EINVAL",
        libc::EMFILE => "EMFILE",
        libc::ENFILE => "ENFILE",
        libc::ETXTBSY => "ETXTBSY",
        libc::EFBIG => "EFBIG",
        libc::ENOSPC => "ENOSPC",
        libc::EROFS => "EROFS",
        libc::EMLINK => "EMLINK",
        libc::ENAMETOOLONG => "ENAMETOOLONG",
        libc::ENOTEMPTY => "ENOTEMPTY",
        libc::ELOOP => "ELOOP",
        #[cfg(unix)]
        libc::EDQUOT => "EDQUOT",
        libc::ENOEXEC => "ENOEXEC",
        libc::E2BIG => "E2BIG",
        _ => return format!("E{n}"),
    };
    name.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelope_orders_error_message_then_fields() {
        let e = ToolError::new(Code::TooLarge, "big")
            .with("path", "a")
            .with("size", 5);
        assert_eq!(
            e.envelope(),
            r#"{"error":"too_large","message":"big","path":"a","size":5}"#
        );
    }

    #[test]
    fn fs_maps_errno() {
        let e = ToolError::fs(&crate::error::os_error(libc::ENOENT), "./a.txt");
        assert_eq!(e.code, Code::NotFound);
        assert_eq!(e.message, "No such file: ./a.txt");
        let e = ToolError::fs(&crate::error::os_error(libc::EACCES), "x");
        assert_eq!(e.message, "EACCES: permission denied");
        let e = ToolError::fs(&crate::error::os_error(libc::ENOTDIR), "x");
        assert_eq!(
            (e.code, e.message.as_str()),
            (Code::NotAFile, "Not a directory: x")
        );
        let e = ToolError::fs(&io::Error::other("boom"), "x");
        assert_eq!(e.message, "EIO: boom");
    }

    #[test]
    fn codes_round_trip() {
        for c in ALL_CODES {
            assert_eq!(Code::parse(c.as_str()), Some(c));
        }
    }
}
