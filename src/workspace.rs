//! Paths: resolving a caller's path against the workspace, confinement, and display.
//!
//! Every tool goes through [`resolve`]; none joins or checks paths on its own. A relative
//! path is joined to the root and an absolute one taken as is; both are normalised lexically
//! (`a/../b` → `b`, no `~` expansion). With confinement on, the real location must be the
//! root or lie under it: the root is realpath'd, the longest existing prefix of the target is
//! realpath'd (following dangling links by hand) and the missing tail appended.
//!
//! That check alone is check-then-use: a directory swapped for a symlink between the check
//! and the open would let the open land outside. So tools never open a checked path and
//! trust it: [`open_confined`] and [`open_dir_confined`] open first, then prove where the
//! *opened descriptor* lives (Linux: `/proc/self/fd/<n>`), and the tool reads or lists
//! through that descriptor ([`io_path`]). A descriptor cannot be redirected after it is
//! open, so the race is closed for everything read through it. Confinement is path-based:
//! a hard link inside the root to an outside inode is inside. It is a guard for the file
//! tools, not a sandbox (`bash` runs arbitrary commands).

use crate::config::Config;
use crate::error::{Code, ToolError, ToolResult};
use crate::paths::normalize;
pub use crate::paths::realpath_prefix;
use std::path::{Path, PathBuf};

mod descriptors;
mod pins;
pub use descriptors::*;
pub use pins::Pins;
pub mod listing;
pub mod overlay;
pub mod winpath;

/// The lexical absolute form of `input`: joined to the root when relative, then normalised.
pub fn lexical(config: &Config, input: &str) -> PathBuf {
    let p = Path::new(input);
    if p.is_absolute() {
        normalize(p)
    } else {
        normalize(&config.workspace_root.join(p))
    }
}

/// A chat-style mention (`@src/a.ts`) without its `@`, unless something named `@…` exists
/// there (then the name is literal). Anything else is returned unchanged.
pub fn unmention<'a>(config: &Config, input: &'a str) -> &'a str {
    match input.strip_prefix('@') {
        Some(rest)
            if !rest.is_empty() && std::fs::symlink_metadata(lexical(config, input)).is_err() =>
        {
            rest
        }
        _ => input,
    }
}

/// Resolves a caller's path, enforcing confinement when it is on. A leading `@` (a chat
/// mention) is dropped unless a file literally named so exists ([`unmention`]). Errors:
/// `invalid_input` for a NUL byte, `path_escape` (field `path` = `input`) for a path outside
/// the root. On Windows, [`winpath::check`] runs first: names Win32 would reinterpret
/// (streams, trailing dots and spaces, devices) are `invalid_input`, and with confinement on
/// a drive-relative, device or foreign-share path is `path_escape` before anything is touched.
pub fn resolve(config: &Config, input: &str) -> ToolResult<PathBuf> {
    if input.contains('\0') {
        return Err(ToolError::invalid(format!(
            "Path contains a NUL byte: {}",
            input.replace('\0', "\\0")
        ))
        .with("path", input));
    }
    let path = unmention(config, input);
    #[cfg(windows)]
    windows_rules(config, path, input)?;
    let abs = lexical(config, path);
    if config.confine_to_workspace && !is_inside(config, &abs) {
        return Err(escape_error(input));
    }
    Ok(abs)
}

/// [`winpath::check`] with the root as given and its real location.
#[cfg(windows)]
fn windows_rules(config: &Config, path: &str, input: &str) -> ToolResult<()> {
    let real = config.real_root.get(&config.workspace_root);
    let given = config.workspace_root.to_string_lossy();
    let real = real.as_ref().map(|r| r.to_string_lossy());
    let mut roots = vec![given.as_ref()];
    roots.extend(real.as_deref());
    winpath::check(path, input, &roots, config.confine_to_workspace)
}

/// [`resolve`] for a path a tool is about to change (write, edit, patch, create, remove, a
/// move's ends, a copy's destination): with `writeScope` set, the real location must also
/// lie in one of the scope directories, else `path_escape` naming the scope.
pub fn resolve_write(config: &Config, input: &str) -> ToolResult<PathBuf> {
    let abs = resolve(config, input)?;
    check_write_scope(config, &abs, input)?;
    Ok(abs)
}

/// The checks of [`resolve_write`] for a path already in lexical absolute form (a
/// checkpoint's recorded path, which must not go through [`unmention`] again): confinement
/// (`path_escape` naming `input`), then the write scope.
pub fn check_write(config: &Config, abs: &Path, input: &str) -> ToolResult<()> {
    if config.confine_to_workspace && !is_inside(config, abs) {
        return Err(escape_error(input));
    }
    check_write_scope(config, abs, input)
}

/// The write-scope check of [`resolve_write`] for an already resolved `abs`.
pub fn check_write_scope(config: &Config, abs: &Path, input: &str) -> ToolResult<()> {
    if config.write_scope.is_empty()
        || realpath_prefix(abs).is_ok_and(|real| in_write_scope(config, &real))
    {
        return Ok(());
    }
    Err(scope_error(config, input))
}

/// Whether the real location `real` lies in a write-scope directory (or is one).
fn in_write_scope(config: &Config, real: &Path) -> bool {
    config
        .write_scope
        .iter()
        .any(|s| real == s.real || real.starts_with(&s.real))
}

/// `path_escape` `Path is outside the write scope: <input> (writeScope: …)`.
fn scope_error(config: &Config, input: &str) -> ToolError {
    let names: Vec<&str> = config.write_scope.iter().map(|s| s.name.as_str()).collect();
    ToolError::new(
        Code::PathEscape,
        format!(
            "Path is outside the write scope: {input} (writeScope: {}). Write only under those directories.",
            names.join(", ")
        ),
    )
    .with("path", input)
    .with("writeScope", names)
}

/// The `path_escape` error for `input`.
pub fn escape_error(input: &str) -> ToolError {
    ToolError::new(
        Code::PathEscape,
        format!(
            "Path escapes the workspace root: {input} (set ALLOW_OUTSIDE_WORKSPACE=1 to permit)"
        ),
    )
    .with("path", input)
}

/// A guard's path fact for `raw`: lexically absolute against `base` (relative to the root;
/// the root itself when empty) — with `shell`, a leading `~` or `~/` is `$HOME` as a shell
/// expands it — and whether its real location is inside the workspace ([`is_inside`],
/// whatever `confineToWorkspace` says).
///
/// Where no home is known (`HOME` unset or empty, and no `USERPROFILE` on Windows) a `~` path
/// is not placed anywhere: it is reported as given and outside, never as the root (an empty
/// home used to make `rm -rf ~` a path inside the workspace on Windows, where `HOME` is
/// usually unset).
pub fn path_fact(config: &Config, raw: &str, base: &str, shell: bool) -> (String, bool) {
    let tilde = shell && (raw == "~" || raw.starts_with("~/"));
    let expanded = match (tilde, crate::paths::home_dir()) {
        (true, Some(home)) => format!("{}{}", home.to_string_lossy(), &raw[1..]),
        (true, None) => return (raw.to_string(), false),
        (false, _) => raw.to_string(),
    };
    let expanded = if shell {
        expanded
    } else {
        unmention(config, &expanded).to_string()
    };
    let base = config.workspace_root.join(base);
    let abs = normalize(&base.join(expanded));
    let within = is_inside(config, &abs);
    (abs.to_string_lossy().into_owned(), within)
}

/// Whether the real location of `abs` is the real root or lies under it.
pub fn is_inside(config: &Config, abs: &Path) -> bool {
    let Some(root) = config.real_root.get(&config.workspace_root) else {
        return false;
    };
    match realpath_prefix(abs) {
        Ok(real) => real == *root || real.starts_with(&*root),
        Err(_) => false,
    }
}

/// How a path is shown to the model: relative to the root (`.` for the root itself), or
/// absolute when it lies outside the root. On Windows that is what Node's `path.relative`
/// gives the original: `\`-separated, the root matched without regard to case.
pub fn display(config: &Config, abs: &Path) -> String {
    match strip_root(abs, &config.workspace_root, cfg!(windows)) {
        Some(rel) if rel.as_os_str().is_empty() => ".".to_string(),
        Some(rel) => rel.to_string_lossy().into_owned(),
        None => abs.to_string_lossy().into_owned(),
    }
}

/// `abs` relative to `root`, when it lies under it; with `fold_case` (Windows) the root's
/// names compare as `path.relative` compares them there, lower-cased.
fn strip_root<'a>(abs: &'a Path, root: &Path, fold_case: bool) -> Option<&'a Path> {
    if let Ok(rel) = abs.strip_prefix(root) {
        return Some(rel);
    }
    if fold_case {
        let mut rest = abs.components();
        for want in root.components() {
            let got = rest.next()?;
            let same = got.as_os_str().to_string_lossy().to_lowercase()
                == want.as_os_str().to_string_lossy().to_lowercase();
            if !same {
                return None;
            }
        }
        return Some(rest.as_path());
    }
    None
}

// Unix only: these tests build symlinks, FIFOs and permission bits.
#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn setup() -> (tempfile::TempDir, tempfile::TempDir, Config) {
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let config = Config::with_root(root.path());
        (root, outside, config)
    }

    #[test]
    fn relative_and_normalised() {
        let (root, _o, c) = setup();
        assert_eq!(resolve(&c, "a/../b").unwrap(), root.path().join("b"));
        assert_eq!(resolve(&c, "").unwrap(), root.path());
        assert_eq!(resolve(&c, "~/x").unwrap(), root.path().join("~/x"));
    }

    #[test]
    fn a_root_swapped_for_a_link_after_first_use_does_not_widen() {
        let parent = tempfile::tempdir().unwrap();
        let root = parent.path().join("ws");
        std::fs::create_dir(&root).unwrap();
        let c = Config::with_root(&root);
        assert!(resolve(&c, "a").is_ok());
        // The root becomes a link to `/`: everything would be "inside" a fresh realpath.
        std::fs::rename(&root, parent.path().join("moved")).unwrap();
        symlink("/", &root).unwrap();
        assert_eq!(
            resolve(&c, "etc/passwd").unwrap_err().code,
            Code::PathEscape
        );
    }

    #[test]
    fn escapes_are_refused() {
        let (root, outside, c) = setup();
        let e = resolve(&c, "../x").unwrap_err();
        assert_eq!(e.code, Code::PathEscape);
        assert_eq!(
            e.message,
            "Path escapes the workspace root: ../x (set ALLOW_OUTSIDE_WORKSPACE=1 to permit)"
        );
        assert_eq!(e.fields["path"], "../x");
        assert!(resolve(&c, "/etc/passwd").is_err());
        symlink(outside.path(), root.path().join("out")).unwrap();
        assert!(resolve(&c, "out/new/file").is_err());
        symlink(outside.path().join("missing"), root.path().join("dangling")).unwrap();
        assert!(resolve(&c, "dangling/x").is_err());
        assert!(resolve(&c, "dangling").is_err());
        symlink("/", root.path().join("slash")).unwrap();
        assert!(resolve(&c, "slash/etc").is_err());
    }

    #[test]
    fn inside_links_and_unconfined() {
        let (root, outside, mut c) = setup();
        std::fs::create_dir(root.path().join("d")).unwrap();
        symlink(root.path().join("d"), root.path().join("ld")).unwrap();
        assert!(resolve(&c, "ld/new").is_ok());
        c.confine_to_workspace = false;
        assert_eq!(
            resolve(&c, outside.path().to_str().unwrap()).unwrap(),
            outside.path()
        );
    }

    #[test]
    fn mentions_resolve_without_the_at_unless_the_file_exists() {
        let (root, _o, c) = setup();
        assert_eq!(
            resolve(&c, "@src/a.ts").unwrap(),
            root.path().join("src/a.ts")
        );
        assert_eq!(resolve(&c, "@").unwrap(), root.path().join("@"));
        std::fs::write(root.path().join("@x"), "").unwrap();
        assert_eq!(resolve(&c, "@x").unwrap(), root.path().join("@x"));
        assert_eq!(resolve(&c, "@y").unwrap(), root.path().join("y"));
        assert_eq!(resolve(&c, "@../x").unwrap_err().code, Code::PathEscape);
        let (resolved, within) = path_fact(&c, "@src/b", "", false);
        assert_eq!(resolved, root.path().join("src/b").to_string_lossy());
        assert!(within);
    }

    #[test]
    fn write_scope_by_real_location() {
        let (root, outside, mut c) = setup();
        std::fs::create_dir_all(root.path().join("src/deep")).unwrap();
        std::fs::create_dir_all(root.path().join("docs")).unwrap();
        symlink(root.path().join("docs"), root.path().join("src/docs-link")).unwrap();
        symlink(outside.path(), root.path().join("src/out")).unwrap();
        c.write_scope =
            crate::config::WriteScope::parse(&serde_json::json!(["src", "./gen/"]), root.path())
                .unwrap();
        assert!(resolve_write(&c, "src/a").is_ok());
        assert!(resolve_write(&c, "src/deep/new/x").is_ok());
        assert!(resolve_write(&c, "src").is_ok());
        assert!(
            resolve_write(&c, "gen/x").is_ok(),
            "a scope may not exist yet"
        );
        assert!(resolve_write(&c, "@src/a").is_ok());
        let e = resolve_write(&c, "docs/a").unwrap_err();
        assert_eq!(e.code, Code::PathEscape);
        assert_eq!(
            e.message,
            "Path is outside the write scope: docs/a (writeScope: src, gen). Write only under those directories."
        );
        assert_eq!(e.fields["writeScope"], serde_json::json!(["src", "gen"]));
        assert!(
            resolve_write(&c, "src/docs-link/a").is_err(),
            "real location counts"
        );
        assert!(resolve_write(&c, "srcx/a").is_err());
        assert!(resolve_write(&c, ".").is_err());
        c.confine_to_workspace = false;
        assert!(resolve_write(&c, "src/out/a").is_err());
        c.write_scope.clear();
        assert!(resolve_write(&c, "docs/a").is_ok());
    }

    #[test]
    fn display_paths() {
        let (root, _o, c) = setup();
        assert_eq!(display(&c, root.path()), ".");
        assert_eq!(display(&c, &root.path().join("..env")), "..env");
        assert_eq!(display(&c, &root.path().join("a/b")), "a/b");
        assert_eq!(display(&c, Path::new("/etc/x")), "/etc/x");
    }

    #[test]
    fn the_root_matches_without_case_where_names_fold() {
        let root = Path::new("/Users/Me/WS");
        let abs = Path::new("/users/me/ws/Sub/B.txt");
        assert_eq!(strip_root(abs, root, false), None);
        assert_eq!(strip_root(abs, root, true), Some(Path::new("Sub/B.txt")));
        assert_eq!(strip_root(Path::new("/users/me/wsx/a"), root, true), None);
        assert_eq!(strip_root(Path::new("/users/me"), root, true), None);
    }
}

// Windows only: resolve applies the name and prefix rules of `winpath` (run by the release
// workflow's `cargo test` on windows-latest; the rules themselves are tested everywhere).
#[cfg(all(test, windows))]
mod windows_tests {
    use super::*;

    #[test]
    fn resolve_applies_the_windows_rules() {
        let root = tempfile::tempdir().unwrap();
        let c = Config::with_root(root.path());
        for name in [
            "a.txt:secret",
            "dot.txt.",
            "aux.txt",
            "sub\\CON",
            "what?.txt",
        ] {
            let e = resolve(&c, name).unwrap_err();
            assert_eq!(e.code, Code::InvalidInput, "{name}");
            assert_eq!(e.fields["path"], name);
        }
        let drive = &root.path().to_str().unwrap()[..2];
        for p in [
            format!("{drive}x.txt"),
            "\\\\evil\\share\\x".into(),
            "\\\\.\\C:\\x".into(),
        ] {
            assert_eq!(resolve(&c, &p).unwrap_err().code, Code::PathEscape, "{p}");
        }
        let upper = root.path().join("f.txt").to_str().unwrap().to_uppercase();
        assert!(
            resolve(&c, &upper).is_ok(),
            "the root in another case is inside"
        );
        assert_eq!(display(&c, Path::new(&upper)), "F.TXT");
    }
}
