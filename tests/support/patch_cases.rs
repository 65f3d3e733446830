//! Test cases for apply_patch: files A and B with mixed terminators, a BOM and missing final
//! newlines, the bytes the tool must turn A into, and the patches (unified and
//! `*** Begin Patch`) between them. Shared by `tests/prop_patch.rs`.

use proptest::prelude::*;
use std::fs;
use std::path::PathBuf;

/// A fresh workspace root (realpath'd) and the guard that removes it.
pub fn workspace() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(dir.path()).unwrap();
    (dir, root)
}

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

/// The terminator a line of this content gets in A.
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
pub enum Kind {
    Modify,
    Create,
    Delete,
}

/// One file of a generated patch: A's lines and how B is made from them.
#[derive(Debug, Clone)]
pub struct FileCase {
    pub kind: Kind,
    /// A's lines (letters `a b c` and spaces; `end` is appended when `a_bare`).
    pub a_lines: Vec<String>,
    /// A has no final newline.
    pub a_bare: bool,
    pub bom: bool,
    /// Varies which terminator each content gets.
    pub seed: u8,
    /// Which of A's lines B keeps (missing entries: kept).
    pub keep: Vec<bool>,
    /// Lines B adds (letters `x y z`), at positions taken modulo B's length.
    pub inserts: Vec<(usize, String)>,
    /// B has no final newline (when its last line is not empty).
    pub b_bare: bool,
    /// The diff's context lines.
    pub radius: usize,
}

/// A case made concrete.
pub struct Built {
    /// A's bytes on disk (`None`: the file does not exist).
    pub a: Option<Vec<u8>>,
    /// A's text as the diff sees it (no BOM, LF only).
    pub a_norm: String,
    /// B's bytes after the patch (`None`: the file is gone).
    pub b: Option<Vec<u8>>,
    /// B's text as the diff sees it.
    pub b_norm: String,
}

/// Lines joined with `\n`, with a final one unless `bare`.
fn norm(lines: &[String], bare: bool) -> String {
    let mut s = lines.join("\n");
    if !lines.is_empty() && !bare {
        s.push('\n');
    }
    s
}

impl FileCase {
    /// A's bytes, B's expected bytes, and both LF-normalised texts.
    pub fn build(&self) -> Built {
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

pub fn file_case() -> impl Strategy<Value = FileCase> {
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
/// and the patches for all of them.
pub struct Scenario {
    /// Removes the workspace when dropped.
    pub _dir: tempfile::TempDir,
    pub root: PathBuf,
    /// Each file the patches touch (workspace-relative) and its A and B.
    pub files: Vec<(String, Built)>,
    /// The unified diff of every file.
    pub unified: String,
    /// The same change in the `*** Begin Patch` format.
    pub codex: String,
}

/// Writes every case's A into a fresh workspace and builds both patches.
pub fn scenario(cases: &[FileCase]) -> Scenario {
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
