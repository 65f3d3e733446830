//! Patch-text generators for fuzzing apply_patch's parsers: a soup of patch syntax and the
//! mutations a model (or a truncated transfer) makes to a valid patch. Shared by
//! `tests/prop_patch.rs`.

use proptest::prelude::*;

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

pub fn soup() -> impl Strategy<Value = String> {
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
pub enum Mutation {
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

pub fn mutation() -> impl Strategy<Value = Mutation> {
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

pub fn mutate(text: &str, m: &Mutation) -> String {
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
