//! Property tests ("fuzz targets" with bounded case counts, so they run in CI) for the
//! edit_file / multi_edit matcher (`src/edit/`): on random files full of what makes tolerant
//! matching hard — mixed indentation, trailing whitespace, curly quotes and dashes,
//! non-breaking spaces, literal `\n` escapes, blank lines — and random `old_string`s (exact
//! slices, drifted copies of a line range, noise):
//!
//! - it never panics, and every error is `invalid_input`, `no_match` or `ambiguous_match`,
//!   each exactly when the contract says so;
//! - it never reports success when the deciding tier found more than one candidate region,
//!   and a tolerant success rewrites only inside that one region;
//! - an exact unique match always replaces exactly that region (and `replace_all` every
//!   occurrence), in memory and, through the `edit_file` tool, byte for byte on disk with
//!   the file's BOM and line terminator.

use clarvis_agent_tools::cancel::Cancel;
use clarvis_agent_tools::config::Config;
use clarvis_agent_tools::edit::{apply, cascade, Lines};
use clarvis_agent_tools::error::Code;
use clarvis_agent_tools::runtime::Runtime;
use clarvis_agent_tools::text::normalize_eol;
use clarvis_agent_tools::tools::{self, Call, Handler};
use proptest::prelude::*;
use proptest::test_runner::{Config as RunnerConfig, TestCaseError, TestRunner};

const INDENTS: &[&str] = &["", "", " ", "  ", "    ", "\t", "\t ", "        "];
const TOKENS: &[&str] = &[
    "foo",
    "bar",
    "x",
    "(a, b)",
    "{",
    "}",
    "“q”",
    "\"q\"",
    "‘s’",
    "'s'",
    "—",
    "--",
    "…",
    "...",
    "\u{a0}",
    "\\n",
    "\\\"",
    "\\\\",
    "return",
    "let y = 1;",
    "é",
];
const TRAILING: &[&str] = &["", "", "", " ", "\t", "  "];

fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        1 => Just(String::new()),
        6 => (
            prop::sample::select(INDENTS),
            prop::collection::vec(prop::sample::select(TOKENS), 1..4),
            prop::sample::select(&[" ", "  ", "\t"][..]),
            prop::sample::select(TRAILING),
        )
            .prop_map(|(indent, tokens, sep, trailing)| {
                format!("{indent}{}{trailing}", tokens.join(sep))
            }),
    ]
}

/// An LF-normalised file (what the matcher is given).
fn file() -> impl Strategy<Value = String> {
    (prop::collection::vec(line(), 0..24), any::<bool>()).prop_map(|(lines, bare)| {
        let mut s = lines.join("\n");
        if !lines.is_empty() && !bare {
            s.push('\n');
        }
        s
    })
}

/// How an `old_string` drifts from the file's text, as a model's copy does.
#[derive(Debug, Clone, Copy)]
enum Drift {
    Verbatim,
    Dedent,
    Indent,
    Trim,
    Collapse,
    Ascii,
    DropBlank,
    AddBlank,
    Escape,
    Crlf,
}

fn drift(text: &str, d: Drift) -> String {
    let lines: Vec<&str> = text.split('\n').collect();
    match d {
        Drift::Verbatim => text.to_string(),
        Drift::Dedent => lines
            .iter()
            .map(|l| l.trim_start())
            .collect::<Vec<_>>()
            .join("\n"),
        Drift::Indent => lines
            .iter()
            .map(|l| format!("  {l}"))
            .collect::<Vec<_>>()
            .join("\n"),
        Drift::Trim => lines
            .iter()
            .map(|l| l.trim())
            .collect::<Vec<_>>()
            .join("\n"),
        Drift::Collapse => lines
            .iter()
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect::<Vec<_>>()
            .join("\n"),
        Drift::Ascii => text
            .replace(['“', '”'], "\"")
            .replace(['‘', '’'], "'")
            .replace('—', "--")
            .replace('…', "...")
            .replace('\u{a0}', " "),
        Drift::DropBlank => lines
            .iter()
            .filter(|l| !l.trim().is_empty())
            .copied()
            .collect::<Vec<_>>()
            .join("\n"),
        Drift::AddBlank => {
            let mut v: Vec<&str> = lines.clone();
            v.insert(v.len() / 2, "");
            v.join("\n")
        }
        Drift::Escape => text.replace('\n', "\\n").replace('"', "\\\""),
        Drift::Crlf => text.replace('\n', "\r\n"),
    }
}

fn drift_kind() -> impl Strategy<Value = Drift> {
    prop::sample::select(
        &[
            Drift::Verbatim,
            Drift::Dedent,
            Drift::Indent,
            Drift::Trim,
            Drift::Collapse,
            Drift::Ascii,
            Drift::DropBlank,
            Drift::AddBlank,
            Drift::Escape,
            Drift::Crlf,
        ][..],
    )
}

/// How the `old_string` of a case is made from the file.
#[derive(Debug, Clone)]
enum OldFrom {
    /// A byte range of the file (start, length; moved to char boundaries).
    Slice(usize, usize),
    /// Whole lines (first, count), drifted.
    Lines(usize, usize, Drift),
    /// Unrelated text.
    Noise(String),
}

fn old_from() -> impl Strategy<Value = OldFrom> {
    prop_oneof![
        3 => (any::<usize>(), 1usize..40).prop_map(|(s, n)| OldFrom::Slice(s, n)),
        4 => (any::<usize>(), 1usize..5, drift_kind()).prop_map(|(s, n, d)| OldFrom::Lines(s, n, d)),
        1 => prop::collection::vec(prop_oneof![line(), Just("\n".to_string())], 1..4)
            .prop_map(|parts| OldFrom::Noise(parts.concat())),
    ]
}

fn floor_boundary(text: &str, mut at: usize) -> usize {
    at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn make_old(text: &str, from: &OldFrom) -> String {
    match from {
        OldFrom::Slice(start, len) => {
            let s = floor_boundary(text, start % (text.len() + 1));
            let e = floor_boundary(text, s + len);
            text[s..e].to_string()
        }
        OldFrom::Lines(first, count, d) => {
            let lines: Vec<&str> = text.split('\n').collect();
            let first = first % lines.len();
            let end = (first + count).min(lines.len());
            drift(&lines[first..end].join("\n"), *d)
        }
        OldFrom::Noise(s) => s.clone(),
    }
}

fn new_string() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![line(), Just("\n".to_string()), Just("\r\n".to_string())],
        0..4,
    )
    .prop_map(|parts| parts.concat())
}

/// Non-overlapping occurrences, left to right (JavaScript's `indexOf` loop), computed
/// without the crate.
fn occurrences(text: &str, old: &str) -> usize {
    if old.is_empty() {
        0
    } else {
        text.match_indices(old).count()
    }
}

/// Every position `old` starts at, overlapping ones included.
fn starts(text: &str, old: &str) -> usize {
    (0..text.len())
        .filter(|&i| text.is_char_boundary(i) && text[i..].starts_with(old))
        .count()
}

/// Checks one `apply` call against the contract. Returns which outcome it was, for the
/// coverage counts.
fn check(
    text: &str,
    old: &str,
    new: &str,
    replace_all: bool,
) -> Result<&'static str, TestCaseError> {
    let result = apply(text, old, new, replace_all);
    let exact = occurrences(text, old);
    // A unique match is one start: an occurrence overlapping another is ambiguous even when
    // the non-overlapping count is one (SPEC.md, edit_file).
    let unique = starts(text, old) == 1;
    let new_norm = normalize_eol(new).into_owned();
    let old_norm = normalize_eol(old).into_owned();
    let lines = Lines::new(text);
    let tolerant_regions =
        || cascade::find_tier(text, &lines, &old_norm).map_or(0, |found| found.regions.len());
    let case = || format!("text {text:?}\nold {old:?}\nnew {new:?}\nreplace_all {replace_all}");
    match result {
        Err(e) => {
            let expected = if old == new {
                Code::InvalidInput
            } else if !replace_all
                && ((exact > 0 && !unique) || (exact == 0 && tolerant_regions() > 1))
            {
                Code::AmbiguousMatch
            } else {
                Code::NoMatch
            };
            prop_assert_eq!(
                e.code,
                expected,
                "{}: {}\n{}",
                e.code.as_str(),
                e.message,
                case()
            );
            // Every way to an error is one where no unique region exists.
            prop_assert!(
                old == new || !unique,
                "an exact unique match failed: {}\n{}",
                e.message,
                case()
            );
            Ok(match e.code {
                Code::AmbiguousMatch => "ambiguous",
                Code::NoMatch => "no_match",
                _ => "invalid",
            })
        }
        Ok(done) => {
            prop_assert!(old != new, "identical strings accepted\n{}", case());
            if exact > 0 {
                prop_assert!(!done.tolerant, "an exact match went tolerant\n{}", case());
                prop_assert!(
                    replace_all || unique,
                    "{} exact matches accepted\n{}",
                    exact,
                    case()
                );
                prop_assert_eq!(done.count, exact, "{}", case());
                prop_assert_eq!(&done.text, &text.replace(old, &new_norm), "{}", case());
                return Ok(if replace_all { "replace_all" } else { "exact" });
            }
            prop_assert!(
                !replace_all,
                "replace_all without an exact match succeeded\n{}",
                case()
            );
            prop_assert!(done.tolerant && done.count == 1, "{}", case());
            let found = cascade::find_tier(text, &lines, &old_norm);
            let regions = found.as_ref().map(|f| f.regions.as_slice()).unwrap_or(&[]);
            prop_assert_eq!(
                regions.len(),
                1,
                "tolerant success over {:?}\n{}",
                regions,
                case()
            );
            let (r, _) = clarvis_agent_tools::edit::placed(
                text,
                found.as_ref().unwrap(),
                &regions[0],
                &new_norm,
            );
            prop_assert!(
                done.text.starts_with(&text[..r.start]) && done.text.ends_with(&text[r.end..]),
                "a tolerant edit changed text outside its region {:?}\nresult {:?}\n{}",
                r,
                done.text,
                case()
            );
            prop_assert!(done.note.is_some(), "{}", case());
            Ok("tolerant")
        }
    }
}

#[test]
fn the_matcher_never_panics_and_never_succeeds_on_an_ambiguous_or_partial_match() {
    let mut runner = TestRunner::new(RunnerConfig {
        cases: 4000,
        failure_persistence: None,
        ..RunnerConfig::default()
    });
    let seen = std::sync::Mutex::new(std::collections::BTreeMap::<&str, usize>::new());
    let strategy = (file(), old_from(), new_string(), prop::bool::weighted(0.15));
    runner
        .run(&strategy, |(text, from, new, replace_all)| {
            let old = make_old(&text, &from);
            // The schema requires a non-empty old_string (minLength 1).
            prop_assume!(!old.is_empty());
            let outcome = check(&text, &old, &new, replace_all)?;
            *seen.lock().unwrap().entry(outcome).or_default() += 1;
            Ok(())
        })
        .unwrap();
    // Every outcome must be exercised, or the properties above say little.
    let seen = seen.into_inner().unwrap();
    for outcome in ["exact", "replace_all", "tolerant", "no_match", "ambiguous"] {
        assert!(
            seen.get(outcome).copied().unwrap_or(0) >= 20,
            "outcome {outcome} barely exercised: {seen:?}"
        );
    }
}

proptest! {
    #![proptest_config(RunnerConfig { cases: 1500, ..RunnerConfig::default() })]

    #[test]
    fn arbitrary_text_never_panics_the_matcher(
        text in ".{0,200}",
        old in ".{1,40}",
        new in ".{0,40}",
        replace_all in any::<bool>(),
    ) {
        let text = normalize_eol(&text).into_owned();
        check(&text, &old, &new, replace_all)?;
    }

    #[test]
    fn an_exact_unique_match_replaces_exactly_that_region(
        text in file(),
        start in any::<usize>(),
        len in 1usize..30,
        new in new_string(),
    ) {
        let s = floor_boundary(&text, start % (text.len() + 1));
        let e = floor_boundary(&text, s + len);
        let old = &text[s..e];
        // Unique even counting overlapping occurrences: in `aaa`, `aa` is one match (at 0,
        // as JavaScript's indexOf loop finds it), not the slice at 1 this case may have cut.
        prop_assume!(!old.is_empty() && starts(&text, old) == 1 && old != new);
        let done = apply(&text, old, &new, false)
            .map_err(|e| TestCaseError::fail(format!("{}: {}", e.code.as_str(), e.message)))?;
        let expected = format!("{}{}{}", &text[..s], normalize_eol(&new), &text[e..]);
        prop_assert_eq!(done.text, expected);
        prop_assert!(!done.tolerant && done.count == 1);
    }
}

// ---------------------------------------------------------------------------------------
// Through the tool, on disk

fn edit_file(root: &std::path::Path, path: &str, old: &str, new: &str) -> Result<String, String> {
    let def =
        tools::get_tool("edit_file", &Config::with_root("/")).expect("edit_file is registered");
    let Handler::Blocking(run) = def.handler else {
        panic!("edit_file is a blocking handler");
    };
    let mut args = serde_json::Map::new();
    args.insert("path".into(), path.into());
    args.insert("old_string".into(), old.into());
    args.insert("new_string".into(), new.into());
    args.insert("replace_all".into(), false.into());
    let call = Call::new(
        args,
        Runtime::new(Config::with_root(root)).shared(),
        Cancel::new(),
    );
    run(&call)
        .map(|o| o.joined_text())
        .map_err(|e| format!("{}: {}", e.code.as_str(), e.message))
}

#[test]
fn an_exact_unique_edit_lands_byte_for_byte_with_the_files_bom_and_terminator() {
    let mut runner = TestRunner::new(RunnerConfig {
        cases: 150,
        failure_persistence: None,
        ..RunnerConfig::default()
    });
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let strategy = (
        prop::collection::vec(line(), 1..16),
        any::<bool>(),
        any::<bool>(),
        prop::sample::select(&["\n", "\r\n", "\r"][..]),
        any::<usize>(),
        1usize..20,
        new_string(),
    );
    let done = std::cell::Cell::new(0);
    runner
        .run(&strategy, |(lines, bare, bom, eol, start, len, new)| {
            // The old_string is a piece of one line, so it never spans a terminator.
            let at = start % lines.len();
            let l = &lines[at];
            let s = floor_boundary(l, start % (l.len() + 1));
            let old = &l[s..floor_boundary(l, s + len)];
            let norm = {
                let mut t = lines.join("\n");
                if !bare {
                    t.push('\n');
                }
                t
            };
            prop_assume!(!old.is_empty() && starts(&norm, old) == 1 && old != new);
            let raw_text = norm.replace('\n', eol);
            let mut raw = if bom {
                "\u{feff}".to_string()
            } else {
                String::new()
            };
            raw.push_str(&raw_text);
            std::fs::write(root.join("f.txt"), &raw).unwrap();
            edit_file(&root, "f.txt", old, &new).map_err(TestCaseError::fail)?;
            // A file of one terminator gives new lines that terminator (LF when it has none).
            let has_eol = lines.len() > 1 || !bare;
            let new_eol = if has_eol { eol } else { "\n" };
            let expected = raw.replacen(old, &normalize_eol(&new).replace('\n', new_eol), 1);
            let on_disk = std::fs::read(root.join("f.txt")).unwrap();
            prop_assert_eq!(
                String::from_utf8_lossy(&on_disk),
                expected,
                "old {:?} new {:?}",
                old,
                new
            );
            done.set(done.get() + 1);
            Ok(())
        })
        .unwrap();
    assert!(done.get() >= 50, "only {} edits ran", done.get());
}
