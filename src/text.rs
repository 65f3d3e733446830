//! Text: loading a file for a text tool, binary sniffing, BOMs and encodings, line endings.
//!
//! The rules (CONTRACT §4): a file is binary when a NUL byte sits in its first or last 8000
//! bytes, unless it starts with a UTF-16 BOM. UTF-16 LE/BE files with a BOM are decoded for
//! reading. A leading UTF-8 BOM is stripped for reading and matching. For display and
//! matching `\r\n` and lone `\r` become `\n`. Nothing here ever rewrites bytes lossily: the
//! lossy decode is for display only.

use crate::config::Config;
use crate::error::{Code, ToolError, ToolResult};
use crate::workspace;
use std::borrow::Cow;
use std::io::Read;
use std::path::Path;

/// How many bytes at each end of a file are sniffed for NUL.
pub const SNIFF_BYTES: usize = 8000;

/// The encoding a file's bytes declare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// UTF-8 without a BOM (or plain ASCII).
    Utf8,
    /// UTF-8 with a leading `EF BB BF`.
    Utf8Bom,
    /// UTF-16 little-endian with a leading `FF FE`.
    Utf16Le,
    /// UTF-16 big-endian with a leading `FE FF`.
    Utf16Be,
}

impl Encoding {
    /// The name used in error fields (`utf16le`, `utf16be`, `utf8`).
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Utf8 | Encoding::Utf8Bom => "utf8",
            Encoding::Utf16Le => "utf16le",
            Encoding::Utf16Be => "utf16be",
        }
    }
}

/// The encoding announced by the BOM at the start of `bytes`.
pub fn detect_bom(bytes: &[u8]) -> Encoding {
    if bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
        Encoding::Utf8Bom
    } else if bytes.starts_with(&[0xFF, 0xFE]) {
        Encoding::Utf16Le
    } else if bytes.starts_with(&[0xFE, 0xFF]) {
        Encoding::Utf16Be
    } else {
        Encoding::Utf8
    }
}

/// Binary = a NUL byte in the first or last 8000 bytes, unless a UTF-16 BOM leads.
///
/// `memchr`'s SIMD search rather than `<[u8]>::contains` (a word-at-a-time loop, several
/// times slower: it showed in profiles of grep and of read_file), and a file shorter than
/// twice the window is scanned once, not as an overlapping head and tail.
pub fn is_binary(bytes: &[u8]) -> bool {
    if matches!(detect_bom(bytes), Encoding::Utf16Le | Encoding::Utf16Be) {
        return false;
    }
    if bytes.len() <= 2 * SNIFF_BYTES {
        return memchr::memchr(0, bytes).is_some();
    }
    memchr::memchr(0, &bytes[..SNIFF_BYTES]).is_some()
        || memchr::memchr(0, &bytes[bytes.len() - SNIFF_BYTES..]).is_some()
}

/// The `too_large` error: fields `path`, `size`, `limit`.
pub fn too_large(input: &str, size: u64, limit: u64) -> ToolError {
    too_large_for("MAX_FILE_BYTES", input, size, limit)
}

/// [`too_large`] naming the environment variable that raises `limit` (`MAX_IMAGE_BYTES`…).
pub fn too_large_for(var: &str, input: &str, size: u64, limit: u64) -> ToolError {
    ToolError::new(
        Code::TooLarge,
        format!("File is {size} bytes, exceeding the {limit}-byte limit (raise {var}): {input}"),
    )
    .with("path", input)
    .with("size", size)
    .with("limit", limit)
}

/// The `is_binary` error for a file with NUL bytes.
pub fn binary_error(input: &str) -> ToolError {
    ToolError::new(
        Code::IsBinary,
        format!("File appears to be binary: {input}"),
    )
    .with("path", input)
}

/// Loads a file a text tool is about to use: it must exist, be a regular file (directories →
/// `not_a_file` `Path is a directory`, FIFOs, sockets and devices → `not_a_file` `Not a
/// regular file`), fit in `maxFileBytes` and not be binary. Paths in errors are `input`.
///
/// The file is opened once through [`workspace::open_confined`] and everything (stat, read)
/// goes through that descriptor, so a path swapped for a symlink mid-call cannot redirect
/// the read outside the root. At most `maxFileBytes + 1` bytes are read, so a file that
/// grows (or a device that never ends) cannot exhaust memory.
pub fn load(config: &Config, abs: &Path, input: &str) -> ToolResult<Vec<u8>> {
    let file = workspace::open_confined(config, abs, input)?;
    load_opened(config, &file, input)
}

/// [`load`] for a file already opened (and confined) by the caller, such as a walk's
/// `openat2` beneath its verified base: the same checks, read and errors.
pub fn load_opened(config: &Config, file: &std::fs::File, input: &str) -> ToolResult<Vec<u8>> {
    let meta = file.metadata().map_err(|e| ToolError::fs(&e, input))?;
    if meta.is_dir() {
        return Err(
            ToolError::new(Code::NotAFile, format!("Path is a directory: {input}"))
                .with("path", input),
        );
    }
    if !meta.is_file() {
        return Err(ToolError::not_regular(input));
    }
    if meta.len() > config.max_file_bytes {
        return Err(too_large(input, meta.len(), config.max_file_bytes));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(config.max_file_bytes.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| ToolError::fs(&e, input))?;
    // The file may have grown between the stat and the read.
    if bytes.len() as u64 > config.max_file_bytes {
        let size = file
            .metadata()
            .map(|m| m.len())
            .unwrap_or(0)
            .max(bytes.len() as u64);
        return Err(too_large(input, size, config.max_file_bytes));
    }
    if is_binary(&bytes) {
        return Err(binary_error(input));
    }
    Ok(bytes)
}

/// Decodes bytes for display: BOM stripped, UTF-16 transcoded, invalid UTF-8 shown as
/// U+FFFD. Line endings are left alone (see [`normalize_eol`]).
pub fn decode_lossy(bytes: &[u8]) -> Cow<'_, str> {
    match detect_bom(bytes) {
        Encoding::Utf8 => utf8_lossy(bytes),
        Encoding::Utf8Bom => utf8_lossy(&bytes[3..]),
        Encoding::Utf16Le => Cow::Owned(
            encoding_rs::UTF_16LE
                .decode_without_bom_handling(&bytes[2..])
                .0
                .into_owned(),
        ),
        Encoding::Utf16Be => Cow::Owned(
            encoding_rs::UTF_16BE
                .decode_without_bom_handling(&bytes[2..])
                .0
                .into_owned(),
        ),
    }
}

/// The text a file's bytes read as — what `read_file` shows and what every other reader of
/// text (the syntax tools and warnings, `diff`, `read_files`) must see, so that a line and a
/// column mean the same thing in all of them: the BOM stripped, UTF-16 LE/BE transcoded,
/// invalid UTF-8 as U+FFFD ([`decode_lossy`]), `\r\n` and lone `\r` as `\n`
/// ([`normalize_eol`]). Borrows `bytes` when they already are that text (UTF-8 without a BOM
/// or a CR).
pub fn decode_text(bytes: &[u8]) -> Cow<'_, str> {
    match decode_lossy(bytes) {
        Cow::Borrowed(s) => normalize_eol(s),
        Cow::Owned(s) => match normalize_eol(&s) {
            Cow::Borrowed(_) => Cow::Owned(s),
            Cow::Owned(n) => Cow::Owned(n),
        },
    }
}

/// `String::from_utf8_lossy`, but valid UTF-8 (nearly every file) is checked by
/// `simdutf8` (SIMD, several times faster than `str::from_utf8`'s word-at-a-time loop, which
/// was a tenth of a read_file call's worker time on a 77 KB file), and only invalid input
/// takes the lossy iterator's byte loop.
fn utf8_lossy(bytes: &[u8]) -> Cow<'_, str> {
    match simdutf8::basic::from_utf8(bytes) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// `\r\n` and lone `\r` become `\n`.
pub fn normalize_eol(s: &str) -> Cow<'_, str> {
    // One SIMD pass for the common LF-only text (`contains` is a word-at-a-time loop).
    if memchr::memchr(b'\r', s.as_bytes()).is_none() {
        return Cow::Borrowed(s);
    }
    Cow::Owned(s.replace("\r\n", "\n").replace('\r', "\n"))
}

/// Length of `s` in UTF-16 code units, as JavaScript's `length` counts.
pub fn utf16_len(s: &str) -> usize {
    s.chars().map(char::len_utf16).sum()
}

/// Compares two strings as JavaScript does (`a < b`): by UTF-16 code units, never by locale.
pub fn js_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    if a.is_ascii() && b.is_ascii() {
        return a.cmp(b);
    }
    a.encode_utf16().cmp(b.encode_utf16())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_sniffing() {
        assert!(!is_binary(b"hello"));
        assert!(is_binary(b"he\0llo"));
        let mut big = vec![b'a'; 20_000];
        assert!(!is_binary(&big));
        big[10_000] = 0; // in the unsniffed middle
        assert!(!is_binary(&big));
        big[19_999] = 0;
        assert!(is_binary(&big));
        assert!(!is_binary(&[0xFF, 0xFE, b'a', 0]));
    }

    #[test]
    fn js_order_is_utf16() {
        use std::cmp::Ordering::*;
        assert_eq!(js_cmp("B", "a"), Less);
        // U+FF5E sorts after U+1F600 in UTF-8 but before it in UTF-16.
        assert_eq!(js_cmp("\u{FF5E}", "\u{1F600}"), Greater);
    }

    #[test]
    fn decoding() {
        assert_eq!(decode_lossy(&[0xEF, 0xBB, 0xBF, b'h', b'i']), "hi");
        assert_eq!(decode_lossy(&[0xFF, 0xFE, b'h', 0, b'i', 0]), "hi");
        assert_eq!(decode_lossy(&[0xFE, 0xFF, 0, b'h', 0, b'i']), "hi");
        assert_eq!(decode_lossy(&[b'a', 0xE9, b'b']), "a\u{FFFD}b");
        assert_eq!(normalize_eol("a\r\nb\rc\n"), "a\nb\nc\n");
        // decode_text is both, once: a BOM, UTF-16 and every line ending.
        assert_eq!(decode_text(b"\xEF\xBB\xBFa\r\nb\rc"), "a\nb\nc");
        assert_eq!(
            decode_text(&[0xFF, 0xFE, b'a', 0, b'\r', 0, b'\n', 0]),
            "a\n"
        );
        assert_eq!(decode_text(&[0xFE, 0xFF, 0, b'a', 0, b'\r']), "a\n");
        assert!(matches!(decode_text(b"plain\n"), Cow::Borrowed("plain\n")));
        // Only the first BOM is the file's; a second is text.
        assert_eq!(decode_text(b"\xEF\xBB\xBF\xEF\xBB\xBFx"), "\u{FEFF}x");
    }

    #[test]
    fn load_errors() {
        let dir = tempfile::tempdir().unwrap();
        let mut c = Config::with_root(dir.path());
        c.max_file_bytes = 1024;
        let e = load(&c, &dir.path().join("nope"), "./nope").unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            (Code::NotFound, "No such file: ./nope")
        );
        let e = load(&c, dir.path(), ".").unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            (Code::NotAFile, "Path is a directory: .")
        );
        std::fs::write(dir.path().join("big"), vec![b'a'; 2000]).unwrap();
        let e = load(&c, &dir.path().join("big"), "big").unwrap_err();
        assert_eq!(
            e.envelope(),
            r#"{"error":"too_large","message":"File is 2000 bytes, exceeding the 1024-byte limit (raise MAX_FILE_BYTES): big","path":"big","size":2000,"limit":1024}"#
        );
        std::fs::write(dir.path().join("bin"), b"a\0b").unwrap();
        let e = load(&c, &dir.path().join("bin"), "bin").unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            (Code::IsBinary, "File appears to be binary: bin")
        );
    }

    #[cfg(unix)]
    #[test]
    fn load_refuses_special_files_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let c = Config::with_root(dir.path());
        let fifo = dir.path().join("fifo");
        let cpath = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path; mkfifo only creates a node.
        assert_eq!(unsafe { libc::mkfifo(cpath.as_ptr(), 0o600) }, 0);
        let e = load(&c, &fifo, "fifo").unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            (Code::NotAFile, "Not a regular file: fifo")
        );
    }

    #[test]
    fn load_refuses_endless_devices() {
        let dir = tempfile::tempdir().unwrap();
        let mut c = Config::with_root("/");
        c.confine_to_workspace = false;
        c.max_file_bytes = 1024;
        // /dev/zero stats as size 0 and never ends: it is not a regular file.
        let e = load(&c, Path::new("/dev/zero"), "/dev/zero").unwrap_err();
        assert_eq!(e.code, Code::NotAFile);
        std::fs::write(dir.path().join("ok"), "fine").unwrap();
        assert_eq!(load(&c, &dir.path().join("ok"), "ok").unwrap(), b"fine");
    }
}
