//! `glob`: files under a base directory whose path (relative to the base) matches a glob,
//! newest modification time first.
//!
//! Contract (CONTRACT §5 glob): `**` spans directories, `*` does not cross `/`, dotfiles
//! match, files only, symlinks neither listed nor followed. `respect_gitignore` (default
//! true) applies the search [`Policy`] (git ignore stack, `.git/`, `.clarvis/`,
//! `.clarvis-tmp-*` skipped); false skips nothing. Output: display paths, newest mtime first,
//! ties by path in JavaScript order; `(no matches)` when empty. Dispatch bounds the output.

use super::title;
use super::{object_schema, read_annotations, Call, Handler, ToolDef};
use crate::config::Config;
use crate::error::{Code, ToolError, ToolResult};
use crate::schema::{bool_arg, str_arg};
use crate::search::at::BaseDir;
use crate::search::policy::Policy;
use crate::search::walk::{walk_wanted, Visit, Wanted};
use crate::text::js_cmp;
use crate::workspace;
use globset::{GlobBuilder, GlobMatcher};
use serde_json::{json, Map, Value};
use std::borrow::Cow;
use std::ffi::OsStr;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

const DESCRIPTION: &str = "Find files by name pattern. Returns the paths (relative to the workspace root) of files under `path` (default: the workspace root) whose path relative to `path` matches `pattern`, most recently modified first — so what was just edited comes first. Glob syntax: `*` matches within one directory level, `**` spans directories (`**/*.ts` finds .ts files at any depth, `*.ts` only directly under `path`), `?` one character, `[abc]` a class, `{a,b}` alternatives. Dotfiles match; only files are listed (not directories, not symlinks). Files ignored by git (.gitignore files, .git/info/exclude, the global git excludes) and the .git/ directory are skipped unless respect_gitignore is false. No match returns `(no matches)` — that is a successful answer, not an error. Use this to locate files by name; to search inside files use grep; to see one directory's entries use list_dir. Errors: invalid_input (bad glob syntax, e.g. an unclosed `[` — fix the pattern), not_found (the base path does not exist — check it with list_dir), not_a_file (the base path is a file, not a directory — pass its parent), path_escape (stay inside the workspace).";

/// The `glob` tool definition.
pub fn def() -> ToolDef {
    ToolDef {
        name: "glob",
        description: DESCRIPTION,
        schema,
        bounded: false,
        annotations: read_annotations(),
        handler: Handler::Blocking(|c| run(c).map(Into::into)),
        aborted: ToolError::aborted,
        syntax: false,
        unstaged: false,
    }
}

fn schema() -> Value {
    object_schema(
        json!({
            "pattern": { "type": "string", "description": "Glob matched against each file's path relative to `path`, e.g. `**/*.ts`, `src/**/test_*.py`, `*.{json,yaml}`." },
            "path": { "type": "string", "description": "Base directory to search from; defaults to the workspace root." },
            "respect_gitignore": { "type": "boolean", "default": true, "description": "Skip files ignored by git and the .git/ directory (default true). Set false to list everything, ignored files included." }
        }),
        &["pattern"],
    )
}

/// Compiles a glob the way both search tools read them: `*` stays within one path
/// component, `**` spans components, a leading `./` is dropped.
pub fn compile(pattern: &str, field: &str) -> ToolResult<GlobMatcher> {
    let trimmed = pattern.strip_prefix("./").unwrap_or(pattern);
    let invalid = |detail: String| {
        ToolError::invalid(format!("Invalid glob pattern: {detail}")).with(field, pattern)
    };
    let glob = GlobBuilder::new(trimmed)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .map_err(|e| invalid(e.kind().to_string()))?;
    fits_nfa_limit(&glob).map_err(invalid)?;
    Ok(glob.compile_matcher())
}

/// globset's `compile_matcher` panics when a glob's regex outgrows its NFA size limit (a
/// megabyte of pattern, found by the fuzzer). This builds the same regex with the same
/// configuration as globset 0.4 first, so an oversized glob is an error, not a panic.
fn fits_nfa_limit(glob: &globset::Glob) -> Result<(), String> {
    use regex_automata::meta::Regex;
    let syntax = regex_automata::util::syntax::Config::new()
        .utf8(false)
        .dot_matches_new_line(true);
    let config = Regex::config()
        .utf8_empty(false)
        .nfa_size_limit(Some(10 * (1 << 20)))
        .hybrid_cache_capacity(10 * (1 << 20));
    Regex::builder()
        .syntax(syntax)
        .configure(config)
        .build(glob.regex())
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// A file's path relative to `base` with `/` separators, as globs see it (borrowed unless
/// the name is not UTF-8).
///
/// Walked paths are `base` joined with components, so the common case is a byte prefix
/// check; `Path::strip_prefix` (which parses components) is the fallback.
pub fn relative<'p>(base: &Path, path: &'p Path) -> Option<Cow<'p, str>> {
    let rel = match strip_dir(base, path) {
        Some(rel) => rel,
        None => path.strip_prefix(base).ok()?,
    };
    Some(rel.to_string_lossy())
}

/// The walk's filter for `matcher`: an entry is wanted when its path relative to `base`
/// matches (tested before the ignore policy, see `walk_wanted`).
pub fn wanted(base: &Path, matcher: GlobMatcher) -> Wanted {
    let base = base.to_path_buf();
    Arc::new(move |path: &Path| relative(&base, path).is_some_and(|rel| matcher.is_match(&*rel)))
}

/// `path` below `dir` when its bytes are `dir`, `/`, then the rest (no parsing).
fn strip_dir<'p>(dir: &Path, path: &'p Path) -> Option<&'p Path> {
    let (d, p) = (
        dir.as_os_str().as_encoded_bytes(),
        path.as_os_str().as_encoded_bytes(),
    );
    if p.len() > d.len() + 1 && p.starts_with(d) && std::path::is_separator(char::from(p[d.len()]))
    {
        // SAFETY: `p` came from `as_encoded_bytes` and is split right after an ASCII
        // separator, which the encoding guarantees is a valid boundary.
        Some(Path::new(unsafe {
            OsStr::from_encoded_bytes_unchecked(&p[d.len() + 1..])
        }))
    } else {
        None
    }
}

/// [`workspace::display`] of a walked path, without parsing components when the path lies
/// plainly under the workspace root.
pub fn display(config: &Config, path: &Path) -> String {
    match strip_dir(&config.workspace_root, path) {
        Some(rel) => rel.to_string_lossy().into_owned(),
        None => workspace::display(config, path),
    }
}

/// One walker thread's finds, handed to the shared list when the thread's visitor is
/// dropped (one lock per thread instead of one per file).
struct Found<'a> {
    local: Vec<(f64, String)>,
    all: &'a Mutex<Vec<(f64, String)>>,
}

impl Drop for Found<'_> {
    fn drop(&mut self) {
        if let Ok(mut all) = self.all.lock() {
            all.append(&mut self.local);
        }
    }
}

/// The instant `ns` nanoseconds from the epoch (the index's stamps).
fn system_time(ns: i64) -> SystemTime {
    let d = std::time::Duration::from_nanos(ns.unsigned_abs());
    if ns >= 0 {
        UNIX_EPOCH + d
    } else {
        UNIX_EPOCH - d
    }
}

/// Milliseconds since the epoch as a double, as Node's `mtimeMs` computes it, so ties break
/// exactly where the original's did.
fn mtime_ms(t: SystemTime) -> Option<f64> {
    Some(match t.duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_secs() as f64 * 1e3 + f64::from(d.subsec_nanos()) / 1e6,
        Err(e) => {
            -(e.duration().as_secs() as f64 * 1e3 + f64::from(e.duration().subsec_nanos()) / 1e6)
        }
    })
}

fn run(call: &Call) -> ToolResult<String> {
    let out = list(call);
    crate::pool::release_freed_memory(out.as_ref().map_or(0, String::len));
    out
}

fn list(call: &Call) -> ToolResult<String> {
    let pattern = str_arg(&call.args, "pattern").unwrap_or_default();
    let input = str_arg(&call.args, "path").unwrap_or("");
    let shown = if input.is_empty() { "." } else { input };
    let respect = bool_arg(&call.args, "respect_gitignore").unwrap_or(true);
    let matcher = compile(pattern, "pattern")?;
    let base = workspace::resolve(&call.config, input)?;
    let meta =
        workspace::overlay::stat(&call.config, &base).map_err(|e| ToolError::fs(&e, shown))?;
    if !meta.is_dir() {
        return Err(
            ToolError::new(Code::NotAFile, format!("Not a directory: {shown}")).with("path", shown),
        );
    }
    if call.cancel.is_cancelled() {
        return Err(ToolError::aborted());
    }
    let guard = workspace::Guard::new(&call.config);
    let base_dir = BaseDir::open(&base).confine(&guard);
    let config = &call.config;
    // A file whose stat fails (vanished, unreadable) is silently dropped. When confined, the
    // file is opened (O_PATH, not followed) and stat'd through a descriptor checked against
    // the root: the walk goes by path, and a directory swapped for a symlink mid-walk must
    // not list the outside.
    let stat_ms = |path: &Path| -> Option<f64> {
        let modified = if guard.is_on() {
            base_dir
                .open_entry(path)
                .ok()
                .filter(|o| o.beneath || guard.allows(&o.file, path))
                .and_then(|o| o.file.metadata().ok())
                .filter(|m| m.is_file())
                .and_then(|m| m.modified().ok())
        } else {
            base_dir.mtime(path).ok()
        };
        modified.and_then(mtime_ms)
    };
    // A ready index lists the files without a walk (the same files: its freshness machinery
    // names every file changed or created since it was built, and those are stat'ed here).
    let indexed = if respect {
        call.runtime
            .index
            .files(config, &base, |rel| matcher.is_match(rel))
    } else {
        None
    };
    let mut files = if let Some(listed) = indexed {
        let mut files = Vec::with_capacity(listed.len());
        for l in listed {
            let ms = match l.mtime {
                Some(ns) => mtime_ms(system_time(ns)),
                // Changed since the build: what is there now, if it is still a file.
                None => workspace::overlay::lstat(config, &l.abs)
                    .is_ok_and(|m| m.is_file())
                    .then(|| stat_ms(&l.abs))
                    .flatten(),
            };
            if let Some(ms) = ms {
                files.push((ms, display(config, &l.abs)));
            }
        }
        files
    } else {
        let found: Mutex<Vec<(f64, String)>> = Mutex::new(Vec::new());
        let policy = Arc::new(Policy::new(
            call.config.clone(),
            &base,
            respect,
            call.warnings.clone(),
        ));
        walk_wanted(
            &base,
            policy,
            &call.cancel,
            Some(wanted(&base, matcher)),
            || {
                let (stat_ms, found) = (&stat_ms, &found);
                let mut mine = Found {
                    local: Vec::new(),
                    all: found,
                };
                Box::new(move |path: &Path| {
                    let Some(ms) = stat_ms(path) else {
                        return;
                    };
                    mine.local.push((ms, display(config, path)));
                }) as Visit
            },
        );
        found.into_inner().unwrap_or_default()
    };
    if call.cancel.is_cancelled() {
        return Err(ToolError::aborted());
    }
    if files.is_empty() {
        return Ok("(no matches)".into());
    }
    files.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| js_cmp(&a.1, &b.1)));
    let mut out = String::with_capacity(files.iter().map(|(_, p)| p.len() + 1).sum());
    for (i, (_, path)) in files.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(path);
    }
    Ok(out)
}

/// The call's title (`describeCall`): what a progress list or an approval prompt shows.
pub fn title(args: &Map<String, Value>) -> String {
    let pattern = title::text(args, "pattern").map_or("a pattern".into(), title::quoted);
    match title::text(args, "path") {
        Some(p) => format!("Find files matching {pattern} in {}", title::short_path(p)),
        None => format!("Find files matching {pattern}"),
    }
}
