//! The crate's layering, checked from the code: every `crate::…` path in `src/` (comments
//! and string literals aside) is an edge from the top-level module of its file to the
//! top-level module it names. The layers come from SPEC.md's table ("Layers and the module
//! map"), so the document and the check cannot drift. The test fails on an edge pointing to a
//! higher layer, on a circle spanning two top-level modules, and on a module of `src/` the
//! table does not place.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

const HEADING: &str = "## Layers and the module map";

/// `module → layer` from SPEC.md's table: each row is `| <n> <name> | `m`, `m`, … | … |`.
fn layers() -> BTreeMap<String, u32> {
    let spec = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("SPEC.md"))
        .expect("SPEC.md is readable");
    let start = spec.find(HEADING).expect("SPEC.md has the layers section");
    let section = &spec[start + HEADING.len()..];
    let section = &section[..section.find("\n## ").unwrap_or(section.len())];
    let mut out = BTreeMap::new();
    for row in section.lines().filter(|l| l.starts_with("| ")) {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let Some(layer) = cells
            .get(1)
            .and_then(|c| c.split_whitespace().next())
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        for name in cells[2].split('`').skip(1).step_by(2) {
            assert!(
                out.insert(name.to_string(), layer).is_none(),
                "{name} is placed twice in SPEC.md's layers"
            );
        }
    }
    assert!(
        out.len() > 10,
        "SPEC.md's layer table was not read: {out:?}"
    );
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("src/ is readable").flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The code of a Rust file with comments and the contents of string and char literals
/// blanked, so a path quoted in a doc comment or a message is not an edge.
fn code_only(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    while i < b.len() {
        let rest = &src[i..];
        if rest.starts_with("//") {
            i += rest.find('\n').unwrap_or(rest.len());
        } else if rest.starts_with("/*") {
            i += rest.find("*/").map_or(rest.len(), |e| e + 2);
        } else if let Some(hashes) = raw_string_start(rest) {
            let open = 2 + hashes;
            let close = format!("\"{}", "#".repeat(hashes));
            i += open
                + rest[open..]
                    .find(&close)
                    .map_or(rest.len() - open, |e| e + close.len());
            out.push_str("\"\"");
        } else if b[i] == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if let Some(len) = char_literal(rest) {
            i += len;
            out.push_str("' '");
        } else {
            let c = rest.chars().next().unwrap_or(' ');
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// `r"`, `r#"`, `br##"`…: the number of `#`s when `s` opens a raw string.
fn raw_string_start(s: &str) -> Option<usize> {
    let s = s.strip_prefix('b').unwrap_or(s);
    let s = s.strip_prefix('r')?;
    let hashes = s.bytes().take_while(|&c| c == b'#').count();
    (s.as_bytes().get(hashes) == Some(&b'"')).then_some(hashes)
}

/// The length of a char literal at the start of `s` (`'x'`, `'\n'`, `'\u{1F600}'`), or
/// `None` (a lifetime, a label).
fn char_literal(s: &str) -> Option<usize> {
    let inner = s.strip_prefix('\'')?;
    if let Some(esc) = inner.strip_prefix('\\') {
        let end = esc.find('\'')?;
        return (end <= 10).then_some(end + 3);
    }
    let c = inner.chars().next()?;
    inner[c.len_utf8()..]
        .starts_with('\'')
        .then_some(c.len_utf8() + 2)
}

fn ident_at(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// The top-level modules `code` names through `crate::` (and `crate::{a, b::c}`).
fn targets(code: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + "crate::".len()..];
        // `$crate::` in a macro, or part of a longer identifier.
        if before.is_some_and(|c| c == '$' || c.is_ascii_alphanumeric() || c == '_') {
            continue;
        }
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 1;
            let mut item_start = true;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 1 => item_start = true,
                    c if item_start && depth == 1 && !c.is_whitespace() => {
                        out.insert(ident_at(&group[i..]).to_string());
                        item_start = false;
                    }
                    _ => {}
                }
                if depth == 0 {
                    break;
                }
            }
        } else {
            out.insert(ident_at(rest).to_string());
        }
    }
    out.remove("");
    out
}

/// Every edge `(from, to)` between two top-level modules, with a file that makes it.
fn edges(src: &Path) -> BTreeMap<(String, String), PathBuf> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut out = BTreeMap::new();
    for file in files {
        let rel = file.strip_prefix(src).expect("under src/");
        let first = rel.components().next().expect("a path");
        let from = first
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
        if from == "lib" {
            continue;
        }
        let code = code_only(&fs::read_to_string(&file).expect("readable"));
        for to in targets(&code) {
            if to != from {
                out.entry((from.clone(), to))
                    .or_insert_with(|| rel.to_path_buf());
            }
        }
    }
    out
}

/// The circles of the graph: its strongly connected components of two or more modules.
fn circles(edges: &BTreeMap<(String, String), PathBuf>) -> Vec<BTreeSet<String>> {
    let nodes: BTreeSet<&String> = edges.keys().flat_map(|(a, b)| [a, b]).collect();
    let reach = |from: &String| {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from.clone()];
        while let Some(n) = stack.pop() {
            for ((a, b), _) in edges.iter() {
                if *a == n && seen.insert(b.clone()) {
                    stack.push(b.clone());
                }
            }
        }
        seen
    };
    let reaches: BTreeMap<&String, BTreeSet<String>> =
        nodes.iter().map(|n| (*n, reach(n))).collect();
    let mut out: Vec<BTreeSet<String>> = Vec::new();
    for n in &nodes {
        let scc: BTreeSet<String> = reaches[n]
            .iter()
            .filter(|m| reaches.get(m).is_some_and(|r| r.contains(*n)))
            .cloned()
            .collect();
        if scc.len() > 1 && !out.contains(&scc) {
            out.push(scc);
        }
    }
    out
}

#[test]
fn every_dependency_points_down_and_no_circle_spans_two_modules() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let layers = layers();
    let edges = edges(&src);
    let mut faults = Vec::new();
    let mut modules: BTreeSet<String> = BTreeSet::new();
    for entry in fs::read_dir(&src).expect("src/").flatten() {
        let name = entry
            .file_name()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
        if name != "lib"
            && (entry.path().is_dir() || entry.path().extension().is_some_and(|e| e == "rs"))
        {
            modules.insert(name);
        }
    }
    for m in &modules {
        if !layers.contains_key(m) {
            faults.push(format!("src/{m} is not placed in SPEC.md's layer table"));
        }
    }
    for ((from, to), file) in &edges {
        if let (Some(lf), Some(lt)) = (layers.get(from), layers.get(to)) {
            if lt > lf {
                faults.push(format!(
                    "upward: {from} (layer {lf}) uses {to} (layer {lt}), in src/{}",
                    file.display()
                ));
            }
        } else if modules.contains(to) || layers.contains_key(to) {
            // A module without a layer is reported above.
        }
    }
    for circle in circles(&edges) {
        faults.push(format!("circle across modules: {circle:?}"));
    }
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}

#[test]
fn the_checker_sees_what_it_must_and_nothing_else() {
    let code = code_only(
        "use crate::config::Config; // crate::tools\n\
         /// [`crate::dispatch`]\n\
         let s = \"crate::binding\"; let r = r#\"crate::runtime\"#;\n\
         use crate::{error::Code, workspace, pool::{threads, Task}};\n\
         let c = '\"'; fn f<'a>(x: &'a str) -> crate::text::Text {}\n\
         macro_rules! m { () => { $crate::index::x } }",
    );
    let found: Vec<String> = targets(&code).into_iter().collect();
    assert_eq!(found, ["config", "error", "pool", "text", "workspace"]);
    let mut e = BTreeMap::new();
    for (a, b) in [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")] {
        e.insert((a.to_string(), b.to_string()), PathBuf::new());
    }
    let c = circles(&e);
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].len(), 3);
}
