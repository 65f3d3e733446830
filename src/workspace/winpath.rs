//! Windows path rules, checked before a path touches the filesystem (issue 34).
//!
//! Win32 reinterprets some names instead of creating what they say: `a.txt:secret` is an
//! alternate data stream of `a.txt` (a payload no listing shows), `dot.txt.` and `dot.txt `
//! are `dot.txt` (trailing dots and spaces are dropped), `CON`, `NUL`, `aux.txt`, `COM1.log`…
//! are devices, and `<>"|?*` and control characters are not names at all. A path's prefix
//! can also lead where the confinement check must not even look: `C:x` is relative to drive
//! C's current directory (the process's, invisible to the caller), `\\server\share\…` makes
//! Windows connect to that server — offering the user's credentials — on the first stat, and
//! `\\.\…`, `\\?\GLOBALROOT\…` name devices and volumes.
//!
//! These are plain string functions, so they are tested on every platform; only Windows
//! enforces them ([`super::resolve`]). Elsewhere the same names are ordinary files: the
//! drop-in accepts them there, and repositories contain them.

use crate::error::ToolError;

/// What a path starts with, as Win32 reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prefix<'a> {
    /// No prefix: relative to the workspace root.
    Relative,
    /// A single leading separator (`\x`): the root's drive.
    Rooted,
    /// `X:\…` (absolute) or `X:…` (relative to drive X's current directory); also `\\?\X:\`.
    Drive {
        /// The drive letter, upper case.
        letter: u8,
        /// Whether a separator follows the colon.
        absolute: bool,
    },
    /// `\\server\share\…` or `\\?\UNC\server\share\…`.
    Unc {
        /// The server name as written.
        server: &'a str,
        /// The share name as written.
        share: &'a str,
    },
    /// The device namespace (`\\.\…`) or a verbatim path that is neither a drive nor UNC
    /// (`\\?\GLOBALROOT\…`, `\\?\Volume{…}\…`), or a malformed UNC prefix.
    Device,
}

fn is_sep(b: u8) -> bool {
    b == b'/' || b == b'\\'
}

/// The next separator-delimited part of `s` and what follows its separator.
fn part(s: &str) -> (&str, &str) {
    match s.bytes().position(is_sep) {
        Some(i) => (&s[..i], &s[i + 1..]),
        None => (s, ""),
    }
}

/// `X:` at the start of `s`: the letter (upper case), whether a separator follows, and the
/// rest after the colon.
fn drive(s: &str) -> Option<(u8, bool, &str)> {
    match s.as_bytes() {
        [l, b':', rest @ ..] if l.is_ascii_alphabetic() => Some((
            l.to_ascii_uppercase(),
            rest.first().is_some_and(|&b| is_sep(b)),
            &s[2..],
        )),
        _ => None,
    }
}

/// Splits `path` into its [`Prefix`] and the rest (the names, separators included).
pub fn split_prefix(path: &str) -> (Prefix<'_>, &str) {
    let b = path.as_bytes();
    // `\\?\` and `\\.\` (either separator): verbatim and device paths.
    if b.len() >= 4 && is_sep(b[0]) && is_sep(b[1]) && matches!(b[2], b'?' | b'.') && is_sep(b[3]) {
        let rest = &path[4..];
        if b[2] == b'?' {
            if let Some((letter, true, names)) = drive(rest) {
                return (
                    Prefix::Drive {
                        letter,
                        absolute: true,
                    },
                    names,
                );
            }
            let (first, after) = part(rest);
            if first.eq_ignore_ascii_case("UNC") {
                return unc(after);
            }
        }
        return (Prefix::Device, "");
    }
    if b.len() >= 2 && is_sep(b[0]) && is_sep(b[1]) {
        return unc(&path[2..]);
    }
    if let Some((letter, absolute, names)) = drive(path) {
        return (Prefix::Drive { letter, absolute }, names);
    }
    if b.first().is_some_and(|&c| is_sep(c)) {
        return (Prefix::Rooted, path);
    }
    (Prefix::Relative, path)
}

fn unc(s: &str) -> (Prefix<'_>, &str) {
    let (server, after) = part(s);
    let (share, names) = part(after);
    if server.is_empty() || share.is_empty() {
        return (Prefix::Device, "");
    }
    (Prefix::Unc { server, share }, names)
}

/// Whether two prefixes name the same drive or share (Windows compares them without case).
fn same_place(a: Prefix<'_>, b: Prefix<'_>) -> bool {
    match (a, b) {
        (Prefix::Drive { letter: x, .. }, Prefix::Drive { letter: y, .. }) => x == y,
        (
            Prefix::Unc {
                server: s1,
                share: h1,
            },
            Prefix::Unc {
                server: s2,
                share: h2,
            },
        ) => s1.eq_ignore_ascii_case(s2) && h1.eq_ignore_ascii_case(h2),
        _ => false,
    }
}

/// Whether confinement may even look at a path with prefix `p` (Windows would otherwise
/// reach a server, a device or another directory before the check could refuse it):
/// relative, rooted and absolute drive paths may; a drive-relative path never does; a UNC
/// path only on the share the root itself lives on (`roots`: the root as given and its real
/// location); device and verbatim-other paths never.
pub fn prefix_allowed(p: Prefix<'_>, roots: &[&str]) -> bool {
    match p {
        Prefix::Relative | Prefix::Rooted | Prefix::Drive { absolute: true, .. } => true,
        Prefix::Drive {
            absolute: false, ..
        }
        | Prefix::Device => false,
        Prefix::Unc { .. } => roots.iter().any(|r| same_place(split_prefix(r).0, p)),
    }
}

/// Why Windows cannot take a name as it is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NameProblem {
    /// A character Win32 refuses in names: `<>"|?*` or a control character.
    Forbidden(char),
    /// A colon: the name selects an alternate data stream of a file.
    Stream,
    /// A trailing dot or space, which Win32 drops: the name Windows would use instead.
    Trailing(String),
    /// A reserved device name, with or without an extension (upper case).
    Device(String),
}

/// The device names Win32 reserves in every directory, with any extension (`nul.txt`).
const DEVICES: [&str; 6] = ["CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"];

/// What is wrong with one path name on Windows, if anything. `.` and `..` are fine.
pub fn name_problem(name: &str) -> Option<NameProblem> {
    if name == "." || name == ".." {
        return None;
    }
    if let Some(c) = name
        .chars()
        .find(|&c| (c as u32) < 0x20 || matches!(c, '<' | '>' | '"' | '|' | '?' | '*'))
    {
        return Some(NameProblem::Forbidden(c));
    }
    if name.contains(':') {
        return Some(NameProblem::Stream);
    }
    if name.ends_with(['.', ' ']) {
        return Some(NameProblem::Trailing(
            name.trim_end_matches(['.', ' ']).to_string(),
        ));
    }
    // The device check reads the part before the first dot, trailing spaces ignored
    // (`nul .txt` is NUL too).
    let stem = name.split('.').next().unwrap_or("").trim_end_matches(' ');
    let upper = stem.to_ascii_uppercase();
    let numbered = ["COM", "LPT"].iter().any(|d| {
        upper
            .strip_prefix(d)
            .is_some_and(|n| matches!(n.as_bytes(), [b'0'..=b'9']) || matches!(n, "¹" | "²" | "³"))
    });
    if numbered || DEVICES.contains(&upper.as_str()) {
        return Some(NameProblem::Device(upper));
    }
    None
}

/// The names of `rest` (what follows a prefix), without empty parts.
fn names(rest: &str) -> impl Iterator<Item = &str> {
    rest.split(['/', '\\']).filter(|n| !n.is_empty())
}

/// Checks `path` against the Windows rules: every name ([`name_problem`] → `invalid_input`,
/// fields `path` = `input`, the caller's string, and `name`), and, when `confined`, the
/// prefix ([`prefix_allowed`] → the usual `path_escape`). `roots` are the workspace root as
/// given and its real location.
pub fn check(path: &str, input: &str, roots: &[&str], confined: bool) -> Result<(), ToolError> {
    let (prefix, rest) = split_prefix(path);
    if confined && !prefix_allowed(prefix, roots) {
        return Err(super::escape_error(input));
    }
    for name in names(rest) {
        if let Some(problem) = name_problem(name) {
            return Err(name_error(input, name, &problem));
        }
    }
    Ok(())
}

fn name_error(input: &str, name: &str, problem: &NameProblem) -> ToolError {
    let why = match problem {
        NameProblem::Forbidden(c) => {
            format!("{c:?} in \"{name}\" is a character Windows does not allow in names")
        }
        NameProblem::Stream => format!(
            "the colon in \"{name}\" selects an alternate data stream, hidden from listings"
        ),
        NameProblem::Trailing(kept) => format!(
            "\"{name}\" ends in a dot or a space, which Windows drops: it would be \"{kept}\""
        ),
        NameProblem::Device(dev) => {
            format!("\"{name}\" is the reserved Windows device name {dev}")
        }
    };
    ToolError::invalid(format!(
        "Path is not a valid Windows file name ({why}): {input}"
    ))
    .with("path", input)
    .with("name", name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Code;

    #[test]
    fn prefixes_as_win32_reads_them() {
        use Prefix::*;
        let d = |letter, absolute| Drive { letter, absolute };
        for (path, want, rest) in [
            ("a\\b", Relative, "a\\b"),
            ("\\a", Rooted, "\\a"),
            ("/a", Rooted, "/a"),
            ("c:\\w", d(b'C', true), "\\w"),
            ("C:/w", d(b'C', true), "/w"),
            ("C:w\\x", d(b'C', false), "w\\x"),
            ("C:", d(b'C', false), ""),
            ("\\\\?\\C:\\w", d(b'C', true), "\\w"),
            (
                "\\\\srv\\sh\\a",
                Unc {
                    server: "srv",
                    share: "sh",
                },
                "a",
            ),
            (
                "//srv/sh/a",
                Unc {
                    server: "srv",
                    share: "sh",
                },
                "a",
            ),
            (
                "\\\\?\\UNC\\srv\\sh\\a",
                Unc {
                    server: "srv",
                    share: "sh",
                },
                "a",
            ),
            (
                "\\\\?\\unc\\srv\\sh",
                Unc {
                    server: "srv",
                    share: "sh",
                },
                "",
            ),
            ("\\\\.\\C:\\w", Device, ""),
            ("\\\\.\\PhysicalDrive0", Device, ""),
            ("//./pipe/x", Device, ""),
            ("\\\\?\\GLOBALROOT\\Device\\x", Device, ""),
            ("\\\\?\\Volume{1}\\x", Device, ""),
            ("\\\\srv", Device, ""),
            ("\\\\srv\\", Device, ""),
        ] {
            assert_eq!(split_prefix(path), (want, rest), "{path}");
        }
    }

    #[test]
    fn confinement_never_looks_at_drive_relative_device_or_foreign_share_paths() {
        let roots = ["C:\\ws", "\\\\?\\C:\\real\\ws"];
        let allowed = |p: &str| prefix_allowed(split_prefix(p).0, &roots);
        for ok in ["a", "\\x", "C:\\ws\\a", "D:\\x", "\\\\?\\C:\\ws\\a"] {
            assert!(allowed(ok), "{ok}");
        }
        for refused in [
            "C:ws\\a",
            "c:",
            "D:x",
            "\\\\evil\\share\\x",
            "//evil/share",
            "\\\\localhost\\c$\\ws\\a",
            "\\\\?\\UNC\\evil\\s\\x",
            "\\\\.\\C:\\ws\\a",
            "\\\\?\\GLOBALROOT\\x",
        ] {
            assert!(!allowed(refused), "{refused}");
        }
        // A workspace on a share may name that share, in any case.
        let share = ["\\\\Srv\\Proj\\ws", "\\\\?\\UNC\\srv\\proj\\ws"];
        assert!(prefix_allowed(
            split_prefix("\\\\SRV\\proj\\ws\\a").0,
            &share
        ));
        assert!(!prefix_allowed(split_prefix("\\\\srv\\other\\a").0, &share));
    }

    #[test]
    fn names_windows_reinterprets() {
        use NameProblem::*;
        for (name, want) in [
            ("a.txt:secret", Some(Stream)),
            ("a.txt::$DATA", Some(Stream)),
            ("dot.txt.", Some(Trailing("dot.txt".into()))),
            ("space.txt ", Some(Trailing("space.txt".into()))),
            ("dir. ", Some(Trailing("dir".into()))),
            ("...", Some(Trailing("".into()))),
            ("CON", Some(Device("CON".into()))),
            ("con", Some(Device("CON".into()))),
            ("aux.txt", Some(Device("AUX".into()))),
            ("nul.tar.gz", Some(Device("NUL".into()))),
            ("Nul .txt", Some(Device("NUL".into()))),
            ("COM1.log", Some(Device("COM1".into()))),
            ("lpt9", Some(Device("LPT9".into()))),
            ("com0", Some(Device("COM0".into()))),
            ("COM¹", Some(Device("COM¹".into()))),
            ("conin$", Some(Device("CONIN$".into()))),
            ("a<b", Some(Forbidden('<'))),
            ("what?", Some(Forbidden('?'))),
            ("*.rs", Some(Forbidden('*'))),
            ("tab\there", Some(Forbidden('\t'))),
            ("pipe|", Some(Forbidden('|'))),
            ("quote\"", Some(Forbidden('"'))),
        ] {
            assert_eq!(name_problem(name), want, "{name}");
        }
        for fine in [
            ".",
            "..",
            ".gitignore",
            "a.b.c",
            "console.log",
            "auxiliary.txt",
            "nullable.rs",
            "com10",
            "lpt",
            "COM",
            "CONOUT",
            "a b.txt",
            "x.y z",
            "~$doc.docx",
            "é.txt",
        ] {
            assert_eq!(name_problem(fine), None, "{fine}");
        }
    }

    #[test]
    fn check_reports_the_name_and_keeps_the_input() {
        let chk = |p: &str, confined| check(p, p, &["C:\\ws"], confined);
        let e = chk("sub\\a.txt:secret", true).unwrap_err();
        assert_eq!(e.code, Code::InvalidInput);
        assert_eq!(
            e.message,
            "Path is not a valid Windows file name (the colon in \"a.txt:secret\" selects an \
             alternate data stream, hidden from listings): sub\\a.txt:secret"
        );
        assert_eq!(e.fields["path"], "sub\\a.txt:secret");
        assert_eq!(e.fields["name"], "a.txt:secret");
        let e = chk("dot.txt.", false).unwrap_err();
        assert!(
            e.message.contains("it would be \"dot.txt\""),
            "{}",
            e.message
        );
        let e = chk("docs/aux.txt", true).unwrap_err();
        assert!(e.message.contains("device name AUX"), "{}", e.message);
        // The drive's colon is not a stream; a drive-relative path is an escape when confined.
        assert!(chk("C:\\ws\\a.txt", true).is_ok());
        assert_eq!(chk("C:ws\\a.txt", true).unwrap_err().code, Code::PathEscape);
        assert!(chk("C:ws\\a.txt", false).is_ok());
        assert_eq!(
            chk("\\\\evil\\s\\x", true).unwrap_err().code,
            Code::PathEscape
        );
        assert!(chk("..\\..\\x", true).is_ok(), "left to the real check");
    }
}
