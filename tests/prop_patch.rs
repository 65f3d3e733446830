//! Property tests ("fuzz targets" with bounded case counts, so they run in CI) for
//! `apply_patch`:
//!
//! - **Parsers never panic.** Random bytes read as text, a soup of patch syntax (headers,
//!   hunk headers with absurd counts, markers, fences, mixed line endings) and valid patches
//!   of both formats mutated line by line: `parse_patch` returns a plan or an `invalid_input`
//!   error, nothing else.
//! - **A diff from A to B turns A into B, byte for byte, through the whole tool.** Files with
//!   mixed `\n` / `\r\n` / `\r` terminators, a BOM, no final newline; several files per patch
//!   (modify, create, delete), applied by the `apply_patch` handler on a temp workspace.
//! - **All or nothing.** A random mutation of a valid patch (either format) never panics, is
//!   never an `internal` error, and when it fails, the workspace is exactly as before (every
//!   path, type, mode and byte; no temp file, no journal, no `.clarvis`).
//!
//! Case counts are fixed (no time-based fuzzing); the whole file runs in a few seconds.

use clarvis_agent_tools::cancel::Cancel;
use clarvis_agent_tools::config::Config;
use clarvis_agent_tools::error::{Code, ToolError};
use clarvis_agent_tools::patch::parse_patch;
use clarvis_agent_tools::tools::{self, Call, Handler, Warnings};
use proptest::prelude::*;
use proptest::test_runner::{Config as RunnerConfig, TestCaseError, TestRunner};
use std::cell::Cell;
use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

// ---------------------------------------------------------------------------------------
// Running the tool

/// Calls the `apply_patch` handler directly (no dispatch, so a panic fails the test with
/// its message instead of becoming an `internal` error).
fn apply_patch(root: &Path, patch: &str) -> Result<String, ToolError> {
    apply_patch_with(Config::with_root(root), patch)
}

fn apply_patch_with(config: Config, patch: &str) -> Result<String, ToolError> {
    let def = tools::get_tool("apply_patch", false).expect("apply_patch is registered");
    let Handler::Blocking(run) = def.handler else {
        panic!("apply_patch is a blocking handler");
    };
    let mut args = serde_json::Map::new();
    args.insert("patch".into(), patch.into());
    let call = Call {
        args,
        config: Arc::new(config),
        cancel: Cancel::new(),
        warnings: Warnings::default(),
    };
    run(&call)
}

/// Every path under `root` with its type, permission bits and bytes (links: their target).
fn tree(root: &Path) -> BTreeMap<PathBuf, (char, u32, Vec<u8>)> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            let meta = fs::symlink_metadata(&path).unwrap();
            let mode = meta.permissions().mode() & 0o7777;
            let rel = path.strip_prefix(root).unwrap().to_path_buf();
            if meta.is_dir() {
                stack.push(path);
                out.insert(rel, ('d', mode, Vec::new()));
            } else if meta.file_type().is_symlink() {
                let target = fs::read_link(&path).unwrap();
                out.insert(rel, ('l', 0, target.into_os_string().into_encoded_bytes()));
            } else {
                out.insert(rel, ('f', mode, fs::read(&path).unwrap()));
            }
        }
    }
    out
}

/// Names under `root` that a finished call must not leave behind.
fn debris(root: &Path) -> Vec<PathBuf> {
    tree(root)
        .into_keys()
        .filter(|p| {
            p.starts_with(".clarvis")
                || p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with(clarvis_agent_tools::atomic::TEMP_PREFIX))
        })
        .collect()
}

fn workspace() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(dir.path()).unwrap();
    (dir, root)
}

// ---------------------------------------------------------------------------------------
// Files A and B, and the bytes the tool must produce
//
// Terminators are a function of a line's content (`eol_of`), so whichever of several equal
// lines a diff keeps, its terminator is the same; lines B adds are drawn from letters A never
// uses, so an added line is never mistaken for a kept one. A file without a final newline
// ends in the unique line `end`. The rules being checked (spec-notes/apply_patch.md,
// "Writing"): kept lines keep their terminator, added lines get the file's dominant one, a
// bare last line that gains a successor gets the dominant one, the BOM stays.

const LF: &str = "\n";
const CRLF: &str = "\r\n";
const CR: &str = "\r";

fn eol_of(content: &str, seed: u8) -> &'static str {
    if content.is_empty() {
        // Never a lone `\r` before an empty line ending in `\n`: that would read as `\r\n`.
        return CRLF;
    }
    let h = content.bytes().map(u32::from).sum::<u32>() + u32::from(seed);
    [LF, CRLF, CR][(h % 3) as usize]
}

/// What one file of a patch does.
#[derive(Debug, Clone)]
enum Kind {
    Modify,
    Create,
    Delete,
}

#[derive(Debug, Clone)]
struct FileCase {
    kind: Kind,
    a_lines: Vec<String>,
    a_bare: bool,
    bom: bool,
    seed: u8,
    keep: Vec<bool>,
    inserts: Vec<(usize, String)>,
    b_bare: bool,
    radius: usize,
}

/// A file's lines with their terminators; `None` marks the bare last line `end`.
struct Built {
    /// A's bytes on disk (`None`: the file does not exist).
    a: Option<Vec<u8>>,
    a_norm: String,
    /// B's bytes after the patch (`None`: the file is gone).
    b: Option<Vec<u8>>,
    b_norm: String,
}

fn norm(lines: &[String], bare: bool) -> String {
    let mut s = lines.join("\n");
    if !lines.is_empty() && !bare {
        s.push('\n');
    }
    s
}

impl FileCase {
    fn build(&self) -> Built {
        let bom: &[u8] = if self.bom { b"\xEF\xBB\xBF" } else { b"" };
        // A: (content, terminator); the bare `end` has none.
        let mut a: Vec<(String, &str)> = self
            .a_lines
            .iter()
            .map(|c| (c.clone(), eol_of(c, self.seed)))
            .collect();
        if self.a_bare {
            a.push(("end".to_string(), ""));
        }
        let (lf, crlf, cr) = a.iter().fold((0, 0, 0), |(l, c, r), (_, t)| match *t {
            LF => (l + 1, c, r),
            CRLF => (l, c + 1, r),
            CR => (l, c, r + 1),
            _ => (l, c, r),
        });
        let dominant = if lf >= crlf && lf >= cr {
            LF
        } else if crlf >= cr {
            CRLF
        } else {
            CR
        };
        // B: (content, Some(index in A) for a kept line).
        let mut b: Vec<(String, Option<usize>)> = a
            .iter()
            .enumerate()
            .filter(|(i, _)| self.keep.get(*i).copied().unwrap_or(true))
            .map(|(i, (c, _))| (c.clone(), Some(i)))
            .collect();
        for (at, line) in &self.inserts {
            b.insert(at % (b.len() + 1), (line.clone(), None));
        }
        let b_bare = self.b_bare && b.last().is_some_and(|(c, _)| !c.is_empty());
        let mut b_bytes = bom.to_vec();
        for (j, (content, from)) in b.iter().enumerate() {
            b_bytes.extend_from_slice(content.as_bytes());
            let eol = match from {
                _ if j + 1 == b.len() && b_bare => "",
                Some(i) if a[*i].1.is_empty() => dominant,
                Some(i) => a[*i].1,
                None => dominant,
            };
            b_bytes.extend_from_slice(eol.as_bytes());
        }
        let mut a_bytes = bom.to_vec();
        for (c, t) in &a {
            a_bytes.extend_from_slice(c.as_bytes());
            a_bytes.extend_from_slice(t.as_bytes());
        }
        let a_contents: Vec<String> = a.iter().map(|(c, _)| c.clone()).collect();
        let b_contents: Vec<String> = b.iter().map(|(c, _)| c.clone()).collect();
        let (a_norm, b_norm) = (norm(&a_contents, self.a_bare), norm(&b_contents, b_bare));
        match self.kind {
            Kind::Modify => Built {
                a: Some(a_bytes),
                a_norm,
                b: Some(b_bytes),
                b_norm,
            },
            // Created files are LF, with the final newline the diff says.
            Kind::Create => Built {
                a: None,
                a_norm: String::new(),
                b: Some(b_norm.clone().into_bytes()),
                b_norm,
            },
            Kind::Delete => Built {
                a: Some(a_bytes),
                a_norm,
                b: None,
                b_norm: String::new(),
            },
        }
    }
}

fn file_case() -> impl Strategy<Value = FileCase> {
    (
        prop_oneof![6 => Just(Kind::Modify), 1 => Just(Kind::Create), 1 => Just(Kind::Delete)],
        prop::collection::vec("[abc ]{0,3}", 0..14),
        any::<bool>(),
        any::<bool>(),
        any::<u8>(),
        prop::collection::vec(prop::bool::weighted(0.75), 0..16),
        prop::collection::vec((any::<usize>(), "[xyz]{1,2}"), 0..5),
        any::<bool>(),
        0usize..4,
    )
        .prop_map(
            |(kind, a_lines, a_bare, bom, seed, keep, inserts, b_bare, radius)| FileCase {
                kind,
                a_lines,
                a_bare,
                bom,
                seed,
                keep,
                inserts,
                b_bare,
                radius,
            },
        )
}

/// Rewrites each hunk header's counts from its body (similar 2.x sometimes writes a wrong
/// new range, which the parser rightly rejects; see `src/patch/apply_tests.rs`).
fn recount(patch: &str) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut header: Option<(usize, String, String, usize, usize)> = None;
    let flush = |out: &mut Vec<String>, h: &mut Option<(usize, String, String, usize, usize)>| {
        if let Some((at, old_start, new_start, old, new)) = h.take() {
            out[at] = format!("@@ -{old_start},{old} +{new_start},{new} @@");
        }
    };
    for line in patch.lines() {
        if let Some(rest) = line.strip_prefix("@@ -") {
            flush(&mut out, &mut header);
            let old_start = rest.split([',', ' ']).next().unwrap_or("1").to_string();
            let new_start = rest
                .split('+')
                .nth(1)
                .and_then(|r| r.split([',', ' ']).next())
                .unwrap_or("1")
                .to_string();
            header = Some((out.len(), old_start, new_start, 0, 0));
        } else if line.starts_with("--- ") || line.starts_with("+++ ") {
            flush(&mut out, &mut header);
        } else if let Some((_, _, _, old, new)) = header.as_mut() {
            match line.chars().next() {
                Some(' ') => {
                    *old += 1;
                    *new += 1;
                }
                Some('-') => *old += 1,
                Some('+') => *new += 1,
                _ => {}
            }
        }
        out.push(line.to_string());
    }
    flush(&mut out, &mut header);
    out.join("\n") + "\n"
}

fn unified(name: &str, case: &FileCase, built: &Built) -> String {
    let (old, new) = match case.kind {
        Kind::Modify => (format!("a/{name}"), format!("b/{name}")),
        Kind::Create => ("/dev/null".to_string(), format!("b/{name}")),
        Kind::Delete => (format!("a/{name}"), "/dev/null".to_string()),
    };
    let diff = similar::TextDiff::from_lines(&built.a_norm, &built.b_norm);
    let raw = diff
        .unified_diff()
        .context_radius(case.radius)
        .header(&old, &new)
        .to_string();
    if !raw.is_empty() {
        return recount(&raw);
    }
    // No lines either side: git's extended headers create or delete an empty file.
    match case.kind {
        Kind::Modify => raw,
        Kind::Create => format!("diff --git a/{name} b/{name}\nnew file mode 100644\n"),
        Kind::Delete => format!("diff --git a/{name} b/{name}\ndeleted file mode 100644\n"),
    }
}

/// The same change as a `*** Begin Patch` block (one hunk per unified hunk, `@@` each).
fn codex(name: &str, case: &FileCase, built: &Built) -> String {
    match case.kind {
        Kind::Create => {
            let mut out = format!("*** Add File: {name}\n");
            for line in built.b_norm.lines() {
                out.push_str(&format!("+{line}\n"));
            }
            out
        }
        Kind::Delete => format!("*** Delete File: {name}\n"),
        Kind::Modify => {
            let mut out = format!("*** Update File: {name}\n");
            for line in unified(name, case, built).lines().skip(2) {
                if line.starts_with("@@") {
                    out.push_str("@@\n");
                } else if !line.starts_with('\\') {
                    out.push_str(line);
                    out.push('\n');
                }
            }
            out
        }
    }
}

/// A workspace holding each case's A (under `d<k>/f<k>.txt`, creates under `new<k>/sub/`),
/// and the unified patch for all of them.
struct Scenario {
    _dir: tempfile::TempDir,
    root: PathBuf,
    files: Vec<(String, Built)>,
    unified: String,
    codex: String,
}

fn scenario(cases: &[FileCase]) -> Scenario {
    let (dir, root) = workspace();
    let mut files = Vec::new();
    let (mut unified_text, mut codex_text) = (String::new(), String::from("*** Begin Patch\n"));
    for (k, case) in cases.iter().enumerate() {
        let name = match case.kind {
            Kind::Create => format!("new{k}/sub/f{k}.txt"),
            _ => format!("d{}/f{k}.txt", k % 2),
        };
        let built = case.build();
        if let Some(a) = &built.a {
            let path = root.join(&name);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(&path, a).unwrap();
        }
        let diff = unified(&name, case, &built);
        if diff.is_empty() {
            continue; // A modify that changes nothing.
        }
        unified_text.push_str(&diff);
        codex_text.push_str(&codex(&name, case, &built));
        files.push((name, built));
    }
    codex_text.push_str("*** End Patch\n");
    Scenario {
        _dir: dir,
        root,
        files,
        unified: unified_text,
        codex: codex_text,
    }
}

// ---------------------------------------------------------------------------------------
// (a) The parsers never panic

/// Pieces of patch syntax, valid and broken, for the token soup.
const TOKENS: &[&str] = &[
    "--- a/f.txt",
    "+++ b/f.txt",
    "--- /dev/null",
    "+++ /dev/null",
    "--- \"a/sp ace\\303\\251\\t\\\"\"",
    "+++ b/f.txt\t2024-01-01 00:00:00",
    "@@ -1,2 +1,2 @@",
    "@@ -1 +1 @@ fn main",
    "@@ -0,0 +1,3 @@",
    "@@ -1,0 +0,0 @@",
    "@@ -18446744073709551615,18446744073709551615 +1,1 @@",
    "@@ -99999999999999999999999,1 +1 @@",
    "@@ -1,-1 +1,1 @@",
    "@@ -,@@",
    "@@",
    "@@ ",
    "@@ anchor line",
    " context",
    " ",
    "",
    "-removed",
    "+added",
    "-",
    "+",
    "\\ No newline at end of file",
    "\\",
    "diff --git a/f.txt b/g.txt",
    "diff --git a/f.txt",
    "rename from f.txt",
    "rename to g.txt",
    "new file mode 100644",
    "deleted file mode 100644",
    "similarity index 90%",
    "index 83db48f..bf269f4 100644",
    "GIT binary patch",
    "Binary files a/x and b/x differ",
    "Index: f.txt",
    "-- ",
    "--",
    "*** Begin Patch",
    "*** End Patch",
    "*** Add File: f.txt",
    "*** Add File: ",
    "*** Update File: f.txt",
    "*** Delete File: f.txt",
    "*** Move to: g.txt",
    "*** End of File",
    "***",
    "```",
    "```diff",
    "\u{feff}",
    "\0",
    "é\u{301}",
    "\u{202e}",
];

fn soup() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(
            prop_oneof![
                8 => prop::sample::select(TOKENS).prop_map(str::to_string),
                1 => ".{0,12}",
            ],
            0..40,
        ),
        prop::collection::vec(prop::sample::select(&["\n", "\r\n", "\r"][..]), 1..4),
    )
        .prop_map(|(lines, eols)| {
            let mut out = String::new();
            for (i, l) in lines.iter().enumerate() {
                out.push_str(l);
                out.push_str(eols[i % eols.len()]);
            }
            out
        })
}

/// One edit of a patch's text: what a model (or a truncated transfer) does to a patch.
#[derive(Debug, Clone)]
enum Mutation {
    DeleteLine(usize),
    DuplicateLine(usize),
    SwapLines(usize, usize),
    ReplaceLine(usize, &'static str),
    InsertLine(usize, &'static str),
    /// Changes the `n`-th number in the text by the delta (or to a huge value).
    Renumber(usize, i64),
    /// Flips the first character of a line among ` `, `-`, `+`, nothing.
    Remark(usize, usize),
    Truncate(usize),
    CrLf,
    TrimLine(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let at = any::<usize>();
    prop_oneof![
        at.prop_map(Mutation::DeleteLine),
        at.prop_map(Mutation::DuplicateLine),
        (at, at).prop_map(|(a, b)| Mutation::SwapLines(a, b)),
        (at, prop::sample::select(TOKENS)).prop_map(|(a, t)| Mutation::ReplaceLine(a, t)),
        (at, prop::sample::select(TOKENS)).prop_map(|(a, t)| Mutation::InsertLine(a, t)),
        (
            at,
            prop_oneof![Just(-1i64), Just(1), Just(-1000), Just(i64::MAX)]
        )
            .prop_map(|(a, d)| Mutation::Renumber(a, d)),
        (at, 0usize..4).prop_map(|(a, m)| Mutation::Remark(a, m)),
        at.prop_map(Mutation::Truncate),
        Just(Mutation::CrLf),
        at.prop_map(Mutation::TrimLine),
    ]
}

fn mutate(text: &str, m: &Mutation) -> String {
    let mut lines: Vec<String> = text.split('\n').map(str::to_string).collect();
    let n = lines.len().max(1);
    match *m {
        Mutation::DeleteLine(i) => {
            if !lines.is_empty() {
                lines.remove(i % n);
            }
        }
        Mutation::DuplicateLine(i) => {
            if let Some(l) = lines.get(i % n).cloned() {
                lines.insert(i % n, l);
            }
        }
        Mutation::SwapLines(a, b) => {
            if !lines.is_empty() {
                lines.swap(a % n, b % n);
            }
        }
        Mutation::ReplaceLine(i, t) => {
            if !lines.is_empty() {
                lines[i % n] = t.to_string();
            }
        }
        Mutation::InsertLine(i, t) => lines.insert(i % (lines.len() + 1), t.to_string()),
        Mutation::Renumber(i, delta) => return renumber(text, i, delta),
        Mutation::Remark(i, mark) => {
            if let Some(l) = lines.get_mut(i % n) {
                let rest: String = l.chars().skip(1).collect();
                *l = format!("{}{rest}", [" ", "-", "+", ""][mark]);
            }
        }
        Mutation::Truncate(at) => {
            let mut cut = at % (text.len() + 1);
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            return text[..cut].to_string();
        }
        Mutation::CrLf => return text.replace('\n', "\r\n"),
        Mutation::TrimLine(i) => {
            if let Some(l) = lines.get_mut(i % n) {
                *l = l.trim().to_string();
            }
        }
    }
    lines.join("\n")
}

/// Changes the `i`-th run of digits in `text` by `delta` (saturating at 0; `i64::MAX`
/// makes it enormous).
fn renumber(text: &str, i: usize, delta: i64) -> String {
    let runs: Vec<(usize, usize)> = {
        let b = text.as_bytes();
        let mut runs = Vec::new();
        let mut k = 0;
        while k < b.len() {
            if b[k].is_ascii_digit() {
                let s = k;
                while k < b.len() && b[k].is_ascii_digit() {
                    k += 1;
                }
                runs.push((s, k));
            } else {
                k += 1;
            }
        }
        runs
    };
    let Some(&(s, e)) = runs.get(i % runs.len().max(1)) else {
        return text.to_string();
    };
    let new = if delta == i64::MAX {
        "99999999999999999999999999".to_string()
    } else {
        let v: i64 = text[s..e].parse().unwrap_or(0);
        (v + delta).max(0).to_string()
    };
    format!("{}{new}{}", &text[..s], &text[e..])
}

/// `parse_patch` gave a plan or an `invalid_input` error.
fn parses_or_refuses(text: &str) -> Result<(), TestCaseError> {
    match parse_patch(text) {
        Ok(_) => Ok(()),
        Err(e) if e.code == Code::InvalidInput => Ok(()),
        Err(e) => Err(TestCaseError::fail(format!(
            "parse_patch gave {:?} {:?} for {text:?}",
            e.code, e.message
        ))),
    }
}

proptest! {
    #![proptest_config(RunnerConfig { cases: 1500, ..RunnerConfig::default() })]

    #[test]
    fn parsers_never_panic_on_random_text(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        let text = String::from_utf8_lossy(&bytes);
        parses_or_refuses(&text)?;
        // The same text behind a codex start line goes through the other parser.
        parses_or_refuses(&format!("*** Begin Patch\n{text}"))?;
    }

    #[test]
    fn parsers_never_panic_on_a_soup_of_patch_syntax(text in soup()) {
        parses_or_refuses(&text)?;
        parses_or_refuses(&format!("*** Begin Patch\n{text}\n*** End Patch\n"))?;
        parses_or_refuses(&format!("```\n*** Begin Patch\n{text}"))?;
    }
}

proptest! {
    #![proptest_config(RunnerConfig { cases: 600, ..RunnerConfig::default() })]

    #[test]
    fn parsers_never_panic_on_mutated_valid_patches(
        cases in prop::collection::vec(file_case(), 1..4),
        mutations in prop::collection::vec(mutation(), 1..4),
    ) {
        // Only the patch text matters here; the scenario's files are not used.
        let s = scenario(&cases);
        for text in [&s.unified, &s.codex] {
            parses_or_refuses(text)?;
            let mut mutated = text.clone();
            for m in &mutations {
                mutated = mutate(&mutated, m);
                parses_or_refuses(&mutated)?;
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// (b) Applying: A becomes B exactly; a broken patch changes nothing

/// Bounded case counts for the tests that touch the disk (each call fsyncs).
fn disk_runner(cases: u32) -> TestRunner {
    TestRunner::new(RunnerConfig {
        cases,
        failure_persistence: None,
        ..RunnerConfig::default()
    })
}

#[test]
fn a_diff_from_a_to_b_turns_a_into_b_byte_for_byte_through_the_tool() {
    let mut runner = disk_runner(160);
    let strategy = prop::collection::vec(file_case(), 1..5);
    runner
        .run(&strategy, |cases| {
            let s = scenario(&cases);
            prop_assume!(!s.files.is_empty());
            let before = tree(&s.root);
            let result = apply_patch(&s.root, &s.unified);
            let summary = result.map_err(|e| {
                TestCaseError::fail(format!(
                    "{:?} {}\npatch:\n{}\nbefore: {before:?}",
                    e.code, e.message, s.unified
                ))
            })?;
            prop_assert!(summary.starts_with("Applied patch:"), "{}", summary);
            prop_assert_eq!(summary.lines().count(), s.files.len() + 1, "{}", summary);
            for (name, built) in &s.files {
                let on_disk = fs::read(s.root.join(name)).ok();
                prop_assert_eq!(
                    on_disk.as_ref(),
                    built.b.as_ref(),
                    "{}\npatch:\n{}\nA: {:?}",
                    name,
                    s.unified,
                    built
                        .a
                        .as_ref()
                        .map(|a| String::from_utf8_lossy(a).into_owned())
                );
            }
            prop_assert!(debris(&s.root).is_empty(), "{:?}", debris(&s.root));
            Ok(())
        })
        .unwrap();
}

#[test]
fn a_mutated_patch_never_panics_and_applies_all_or_nothing() {
    let mut runner = disk_runner(200);
    let strategy = (
        prop::collection::vec(file_case(), 1..4),
        prop::collection::vec(mutation(), 1..3),
        any::<bool>(),
    );
    let (failed, applied) = (Cell::new(0), Cell::new(0));
    runner
        .run(&strategy, |(cases, mutations, use_codex)| {
            let s = scenario(&cases);
            let mut text = if use_codex {
                s.codex.clone()
            } else {
                s.unified.clone()
            };
            for m in &mutations {
                text = mutate(&text, m);
            }
            let before = tree(&s.root);
            match apply_patch(&s.root, &text) {
                Ok(summary) => {
                    applied.set(applied.get() + 1);
                    prop_assert!(summary.starts_with("Applied patch:"), "{}", summary);
                }
                Err(e) => {
                    failed.set(failed.get() + 1);
                    prop_assert_ne!(e.code, Code::Internal, "{}\npatch:\n{}", e.message, text);
                    let after = tree(&s.root);
                    prop_assert!(
                        after == before,
                        "a failed patch ({:?} {}) changed the workspace\npatch:\n{}\nbefore: {:?}\nafter: {:?}",
                        e.code,
                        e.message,
                        text,
                        before,
                        after
                    );
                }
            }
            prop_assert!(debris(&s.root).is_empty(), "{:?}\npatch:\n{}", debris(&s.root), text);
            Ok(())
        })
        .unwrap();
    // Both outcomes must really be exercised, or the property says little.
    let (failed, applied) = (failed.get(), applied.get());
    assert!(
        failed > 20 && applied > 20,
        "failed {failed}, applied {applied}"
    );
}

#[test]
fn a_commit_failing_after_any_operation_leaves_the_workspace_as_it_was() {
    // The commit's own rollback, on mixed multi-file patches: the test hook fails the commit
    // after k file operations (k random, up to all of them but one).
    let mut runner = disk_runner(80);
    let strategy = (prop::collection::vec(file_case(), 2..6), any::<usize>());
    runner
        .run(&strategy, |(cases, k)| {
            let s = scenario(&cases);
            prop_assume!(s.files.len() >= 2);
            let mut config = Config::with_root(&s.root);
            let k = (k % s.files.len()) as u64;
            config.hooks.fail_commit_after = Some(k);
            let before = tree(&s.root);
            let e = apply_patch_with(config, &s.unified).expect_err("the hook fails the commit");
            let want = format!(
                "Failed to apply patch: EIO: injected failure after {k} file operations (test hook)"
            );
            prop_assert_eq!((e.code, e.message.as_str()), (Code::IoError, want.as_str()));
            let after = tree(&s.root);
            prop_assert!(
                after == before,
                "the workspace changed\nbefore: {:?}\nafter: {:?}",
                before,
                after
            );
            Ok(())
        })
        .unwrap();
}
