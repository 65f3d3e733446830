//! `grep`: regex search over file contents, on ripgrep's engine, deterministic and bounded.
//!
//! Composition only: arguments → [`matcher::build`] → a single file or a parallel
//! [`crate::search::walk`] under the search [`Policy`] → per-file [`Scanner`] rows → the budgeted
//! [`Collector`] → [`render`]. Bounds its own output (CONTRACT §5 grep, rules 1–6).

use super::title;
use super::{object_schema, read_annotations, Call, Handler, ToolDef};
use crate::config::IndexMode;
use crate::error::{ToolError, ToolResult};
use crate::index::plan::{self, Query};
use crate::pool::threads;
use crate::schema::{bool_arg, int_arg, str_arg};
use crate::search::at::BaseDir;
use crate::search::collect::{Collector, FileHit, FileSink};
use crate::search::matcher::{self, Engine};
use crate::search::policy::Policy;
use crate::search::render::{render, Mode, PageSpec};
use crate::search::scan::{RowSink, Scanner};
use crate::search::walk::{walk_wanted, Visit, Wanted};
use crate::tools::glob::{compile, display, relative};
use crate::workspace;
use globset::GlobMatcher;
use grep_matcher::Matcher;
use serde_json::{json, Map, Value};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

const DESCRIPTION: &str = "Search file contents with a regular expression (ripgrep syntax; look-around and backreferences also work). Searches `path` (default: the workspace root; a directory recursively, or a single file), skipping files ignored by git (.gitignore files, .git/info/exclude, global git excludes), the .git/ directory, binary files and files over the size limit; hidden files ARE searched; UTF-16 files are searched too. Output depends on output_mode: `files_with_matches` (default) lists matching file paths; `count` gives `path:N` (N = matching lines); `content` gives `path:line:text` rows, with context rows `path-line-text` and `--` between separate groups when context/before_context/after_context is set. Results are sorted by path then line and are identical run to run. Narrow with `glob` (`*.ts` matches file names at any depth; a pattern with `/` such as `src/**/*.rs` is relative to `path`). `multiline: true` lets a match span lines (`.` matches newlines); a multi-line match is shown as one row. Paging: `head_limit` caps the results returned (files, or matches in content mode) and `offset` skips results — when more remain the output ends with `[... showing A..B of N; call again with offset=B for more ...]`. If the output ends with `[... search incomplete ...]` the scan stopped at the output cap: narrow the pattern, path or glob. `(no matches)` is a successful answer, not an error. Use this to find where something is defined or used; use glob to find files by name, read_file to read a file you found. Errors: invalid_input (bad regex or glob — the message explains; escape regex metacharacters such as `(` `[` `.` `*` with a backslash to match them literally), not_found (the path does not exist — check it with list_dir or glob), path_escape (stay inside the workspace).";

/// The `grep` tool definition.
pub fn def() -> ToolDef {
    ToolDef {
        name: "grep",
        description: DESCRIPTION,
        schema,
        bounded: true,
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
            "pattern": {"type": "string", "description": "Regular expression (ripgrep/Rust syntax; PCRE features such as look-around and backreferences are accepted)."},
            "path": {"type": "string", "description": "File or directory to search; defaults to the workspace root."},
            "glob": {"type": "string", "description": "Only search files matching this glob: without `/` it matches the file name at any depth (`*.py`), with `/` the path relative to `path` (`src/**/*.ts`). Ignored when `path` is a file."},
            "output_mode": {"type": "string", "enum": ["files_with_matches", "content", "count"], "default": "files_with_matches", "description": "files_with_matches: matching file paths; content: matching lines as path:line:text; count: path:N matching lines per file."},
            "ignore_case": {"type": "boolean", "default": false, "description": "Case-insensitive matching."},
            "multiline": {"type": "boolean", "default": false, "description": "Let matches span lines: `.` matches newlines, `^`/`$` still anchor at line boundaries."},
            "context": {"type": "integer", "minimum": 0, "default": 0, "description": "Context lines before and after each match (content mode only)."},
            "before_context": {"type": "integer", "minimum": 0, "description": "Lines before each match (content mode); overrides context for that side."},
            "after_context": {"type": "integer", "minimum": 0, "description": "Lines after each match (content mode); overrides context for that side."},
            "head_limit": {"type": "integer", "minimum": 1, "description": "Maximum results to return: files, or matches in content mode. Omit for all."},
            "offset": {"type": "integer", "minimum": 0, "default": 0, "description": "Number of results to skip (a result offset for paging, not a line number)."}
        }),
        &["pattern"],
    )
}

/// Everything a search needs besides the matcher.
struct Job<'a> {
    call: &'a Call,
    base: &'a Path,
    is_file: bool,
    glob: Option<(GlobMatcher, bool)>,
    spec: PageSpec,
    multiline: bool,
    /// The pattern's bytes when it is a plain literal: the per-file pre-filter.
    literal: Option<Vec<u8>>,
    /// The index's condition for this pattern (`None`: scan).
    plan: Option<Query>,
}

fn nonneg(call: &Call, key: &str) -> Option<u64> {
    int_arg(&call.args, key).map(|v| v.max(0) as u64)
}

fn run(call: &Call) -> ToolResult<String> {
    let pattern = str_arg(&call.args, "pattern").unwrap_or_default();
    let ignore_case = bool_arg(&call.args, "ignore_case").unwrap_or(false);
    let multiline = bool_arg(&call.args, "multiline").unwrap_or(false);
    let engine = matcher::build(pattern, ignore_case, multiline)?;
    let glob = match str_arg(&call.args, "glob") {
        Some(g) => {
            let anchored = g.strip_prefix("./").unwrap_or(g).contains('/');
            Some((compile(g.strip_prefix('/').unwrap_or(g), "glob")?, anchored))
        }
        None => None,
    };
    let mode = match str_arg(&call.args, "output_mode") {
        Some("content") => Mode::Content,
        Some("count") => Mode::Count,
        _ => Mode::Files,
    };
    let context = nonneg(call, "context").unwrap_or(0);
    let (before, after) = if mode == Mode::Content {
        (
            nonneg(call, "before_context").unwrap_or(context),
            nonneg(call, "after_context").unwrap_or(context),
        )
    } else {
        (0, 0)
    };
    let spec = PageSpec {
        mode,
        offset: nonneg(call, "offset").unwrap_or(0),
        // 0 means "no limit" (0.5; 0.1's schema refuses 0).
        head_limit: nonneg(call, "head_limit").filter(|&n| n > 0),
        before,
        after,
        max: call.config.max_output_bytes,
    };
    let input = str_arg(&call.args, "path").unwrap_or("");
    let base = workspace::resolve(&call.config, input)?;
    let meta = workspace::overlay::stat(&call.config, &base)
        .map_err(|e| ToolError::fs(&e, &base.to_string_lossy()))?;
    if call.cancel.is_cancelled() {
        return Err(ToolError::aborted());
    }
    // Only the Rust engine's syntax is planned: PCRE2 reads some escapes differently.
    let plan = match &engine {
        Engine::Rust(_) if meta.is_dir() && call.runtime.index.mode() != IndexMode::Off => {
            plan::plan(pattern, ignore_case, multiline)
        }
        _ => None,
    };
    let job = Job {
        call,
        base: &base,
        is_file: !meta.is_dir(),
        glob,
        spec,
        multiline,
        literal: matcher::plain_literal(pattern, ignore_case, multiline),
        plan,
    };
    let out = match &engine {
        Engine::Rust(m) => search(&job, m),
        Engine::Pcre2(m) => search(&job, m),
    };
    crate::pool::release_freed_memory(out.as_ref().map_or(0, String::len));
    out
}

fn search<M: Matcher + Sync>(job: &Job<'_>, matcher: &M) -> ToolResult<String> {
    let call = job.call;
    let config = &call.config;
    let content = job.spec.mode == Mode::Content;
    // Every file is read through a descriptor checked against the root: the walk itself
    // goes by path, and a directory swapped for a symlink mid-walk must not leak the outside.
    let guard = workspace::Guard::new(config);
    let new_scanner = || {
        Scanner::new(
            matcher,
            job.multiline,
            job.spec.before,
            job.spec.after,
            config.max_file_bytes,
        )
        .confined(guard.clone())
        .require_literal(job.literal.as_deref())
    };
    let collector = Collector::new(config.max_output_bytes);
    // One file's stored rows are capped at the budget (plus room for the row that crosses).
    let cap = usize::try_from(config.max_output_bytes).unwrap_or(usize::MAX);
    // For a single file this is no descriptor (not a directory): absolute paths are used.
    let base_dir = BaseDir::open(job.base).confine(&guard);
    let search_one = |scanner: &mut Scanner<&M>, abs: &Path| {
        // The display path is only built when needed: most files never match.
        let mut shown = None;
        if collector.has_bound() {
            let s = display(config, abs);
            if collector.beyond_bound(&s) {
                return;
            }
            shown = Some(s);
        }
        if !scanner.load(&base_dir, abs) {
            return;
        }
        let mut sink = FileSink::new(content, cap, &call.cancel);
        if let Err(e) = scanner.scan(&mut sink) {
            // The footer stays the scan's; the host hears that this file was cut short.
            let s = shown.get_or_insert_with(|| display(config, abs));
            call.warnings
                .push(format!("warning: grep stopped searching {s} early: {e}"));
        }
        if sink.units > 0 && content && call.redaction.is_on() {
            // Rows are slices of the file: its secrets are judged on all of it.
            call.redaction.learn(&scanner.text());
        }
        if sink.units > 0 {
            collector.add(FileHit {
                path: shown.unwrap_or_else(|| display(config, abs)),
                abs: abs.to_path_buf(),
                units: sink.units,
                bytes: sink.bytes,
                rows: sink.store,
            });
        }
    };
    let passes_glob = |path: &Path, name: &OsStr| match &job.glob {
        None => true,
        Some((glob, true)) => relative(job.base, path).is_some_and(|rel| glob.is_match(&*rel)),
        Some((glob, false)) => glob.is_match(name),
    };
    let indexed = match (&job.plan, job.is_file) {
        (Some(q), false) => call.runtime.index.candidates(config, job.base, q),
        _ => None,
    };
    if job.is_file {
        // A single file: the glob does not apply; an unreadable, binary or oversized file
        // simply has no matches.
        search_one(&mut new_scanner(), job.base);
    } else if let Some(paths) = indexed {
        // The index narrowed the files; each is searched exactly as the walk would.
        let paths: Vec<PathBuf> = paths
            .into_iter()
            .filter(|p| passes_glob(p, p.file_name().unwrap_or_default()))
            .collect();
        let next = AtomicUsize::new(0);
        let workers = threads().min(paths.len().div_ceil(16)).max(1);
        let scanners: Vec<_> = (0..workers).map(|_| new_scanner()).collect();
        std::thread::scope(|s| {
            for mut scanner in scanners {
                let (next, paths, search_one) = (&next, &paths, &search_one);
                s.spawn(move || {
                    while let Some(path) = paths.get(next.fetch_add(1, Ordering::Relaxed)) {
                        if call.cancel.is_cancelled() {
                            break;
                        }
                        search_one(&mut scanner, path);
                    }
                });
            }
        });
    } else {
        let policy = Arc::new(Policy::new(
            config.clone(),
            job.base,
            true,
            call.warnings.clone(),
        ));
        let walked = AtomicU64::new(0);
        // The glob is tested before the ignore policy (see `walk_wanted`).
        let wanted = job.glob.clone().map(|(glob, anchored)| {
            let base = job.base.to_path_buf();
            Arc::new(move |path: &Path| {
                if anchored {
                    relative(&base, path).is_some_and(|rel| glob.is_match(&*rel))
                } else {
                    glob.is_match(path.file_name().unwrap_or_default())
                }
            }) as Wanted
        });
        walk_wanted(job.base, policy, &call.cancel, wanted, || {
            let mut scanner = new_scanner();
            let (search_one, walked) = (&search_one, &walked);
            Box::new(move |path: &Path| {
                walked.fetch_add(1, Ordering::Relaxed);
                search_one(&mut scanner, path);
            }) as Visit
        });
        call.runtime
            .index
            .after_scan(config, walked.load(Ordering::Relaxed));
    }
    if call.cancel.is_cancelled() {
        return Err(ToolError::aborted());
    }
    let (hits, incomplete) = collector.finish();
    let mut rescan: Option<Scanner<&M>> = None;
    let mut rows_of = |hit: &FileHit, sink: &mut dyn RowSink| match &hit.rows {
        Some(store) if store.complete => store.replay(sink),
        _ => {
            // The file's rows outgrew its share of memory: search it again, streaming.
            let scanner = rescan.get_or_insert_with(new_scanner);
            if scanner.load(&base_dir, &hit.abs) {
                // A matcher error was reported by the first search of this file.
                let _ = scanner.scan(sink);
            }
        }
    };
    let text = render(&job.spec, &hits, incomplete, &mut rows_of);
    if call.cancel.is_cancelled() {
        return Err(ToolError::aborted());
    }
    Ok(text)
}

/// The call's title (`describeCall`): what a progress list or an approval prompt shows.
pub fn title(args: &Map<String, Value>) -> String {
    let pattern = title::text(args, "pattern").map_or("a pattern".into(), title::quoted);
    let within = title::scope(args);
    format!("Search {pattern}{within}")
}
