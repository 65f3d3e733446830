//! edit_file never writes a wrong byte under tabs ↔ spaces drift (issue 11): on real source
//! files (tests/fixtures/drift/), for any block, any edit of it and any drift of width 2, 4
//! or 8 applied to both old_string and new_string, the result is exactly the intended edit
//! or a refusal.

use clarvis_agent_tools::edit::apply;
use proptest::prelude::*;

const FILES: [(&str, &str); 5] = [
    ("sljitUtils.c", include_str!("fixtures/drift/sljitUtils.c")),
    ("Makefile", include_str!("fixtures/drift/Makefile")),
    ("shlex.py", include_str!("fixtures/drift/shlex.py")),
    (
        "ajv_compile.js",
        include_str!("fixtures/drift/ajv_compile.js"),
    ),
    (
        "tab_literal.py",
        include_str!("fixtures/drift/tab_literal.py"),
    ),
];

/// How the model's strings drifted from the file.
#[derive(Debug, Clone, Copy)]
enum Drift {
    /// Every leading tab written as `w` spaces.
    LeadingTabs(usize),
    /// Every tab, also inside lines, written as `w` spaces.
    AllTabs(usize),
    /// Every `w` leading spaces written as a tab.
    Spaces(usize),
}

fn drift_line(line: &str, d: Drift) -> String {
    let rest = line.trim_start_matches([' ', '\t']);
    let indent = &line[..line.len() - rest.len()];
    match d {
        Drift::LeadingTabs(w) => format!("{}{rest}", indent.replace('\t', &" ".repeat(w))),
        Drift::AllTabs(w) => line.replace('\t', &" ".repeat(w)),
        Drift::Spaces(w) => {
            let spaces = indent.len() - indent.trim_start_matches(' ').len();
            let (tabs, left) = (spaces / w, spaces % w);
            format!(
                "{}{}{}{rest}",
                "\t".repeat(tabs),
                " ".repeat(left),
                &indent[spaces..]
            )
        }
    }
}

fn drift(s: &str, d: Drift) -> String {
    s.split('\n')
        .map(|l| drift_line(l, d))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The edit the model means: on `block` (the file's lines), `kind` applied at line `k`.
fn edited(block: &[&str], kind: u8, k: usize, unit: &str) -> Vec<String> {
    let mut out: Vec<String> = block.iter().map(|s| s.to_string()).collect();
    let line = block[k];
    let indent = &line[..line.len() - line.trim_start_matches([' ', '\t']).len()];
    match kind {
        0 => out[k].push_str(" /* changed */"),
        1 => out.insert(k + 1, format!("{indent}inserted(1);")),
        2 => out.insert(k + 1, format!("{indent}{unit}nested(2);")),
        3 => {
            out.remove(k);
        }
        _ => out[k] = format!("{indent}replaced({})", line.trim().len()),
    }
    out
}

fn case(
    file: usize,
    start: usize,
    len: usize,
    kind: u8,
    k: usize,
    d: Drift,
) -> Option<(String, String, String, String)> {
    let text = FILES[file].1;
    let lines: Vec<&str> = text.split('\n').collect();
    let start = start % lines.len().saturating_sub(len).max(1);
    let block = &lines[start..(start + len).min(lines.len())];
    if block.iter().all(|l| l.trim().is_empty()) {
        return None;
    }
    let k = k % block.len();
    let old = block.join("\n");
    // The file's own indentation unit: the model means to write in the file's style.
    let unit = if lines.iter().any(|l| l.starts_with('\t')) && !text.contains("\n    ") {
        "\t"
    } else {
        "    "
    };
    let new = edited(block, kind, k, unit).join("\n");
    let (old_d, new_d) = (drift(&old, d), drift(&new, d));
    if old_d == old || old == new {
        return None; // no drift in old_string: not this property
    }
    let before = lines[..start].join("\n");
    let after = lines[start + block.len()..].join("\n");
    let join = |mid: &str| {
        let mut s = before.clone();
        if start > 0 {
            s.push('\n');
        }
        s.push_str(mid);
        if start + block.len() < lines.len() {
            s.push('\n');
            s.push_str(&after);
        }
        s
    };
    Some((text.to_string(), old_d, new_d, join(&new)))
}

fn drifts() -> impl Strategy<Value = Drift> {
    let w = prop::sample::select(vec![2usize, 4, 8]);
    (w, 0u8..3).prop_map(|(w, k)| match k {
        0 => Drift::LeadingTabs(w),
        1 => Drift::AllTabs(w),
        _ => Drift::Spaces(w),
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]
    #[test]
    fn drifted_edits_land_exactly_or_are_refused(
        file in 0..FILES.len(),
        start in 0usize..10_000,
        len in 1usize..9,
        kind in 0u8..5,
        k in 0usize..9,
        d in drifts(),
    ) {
        let Some((text, old, new, intended)) = case(file, start, len, kind, k, d) else {
            return Ok(());
        };
        if let Ok(done) = apply(&text, &old, &new, false) {
            let at = done.text.bytes().zip(intended.bytes()).take_while(|(a, b)| a == b).count();
            prop_assert!(
                done.text == intended,
                "{} {:?}\nold:\n{}\nnew:\n{}\nwritten: {:?}\nintended: {:?}",
                FILES[file].0, d, old, new,
                &done.text[at.saturating_sub(20)..(at + 40).min(done.text.len())],
                &intended[at.saturating_sub(20)..(at + 40).min(intended.len())]
            );
        }
    }
}

/// The property is not met by refusing everything: most drifted edits land.
#[test]
fn most_drifted_edits_land() {
    let (mut landed, mut total) = (0, 0);
    for (file, (name, _)) in FILES.iter().enumerate() {
        for start in (0..400).step_by(7) {
            for (kind, d) in [
                (0, Drift::LeadingTabs(4)),
                (1, Drift::Spaces(4)),
                (2, Drift::LeadingTabs(8)),
                (4, Drift::Spaces(2)),
            ] {
                let Some((text, old, new, intended)) = case(file, start, 4, kind, 1, d) else {
                    continue;
                };
                total += 1;
                if let Ok(done) = apply(&text, &old, &new, false) {
                    assert!(done.text == intended, "{name} {start} {kind}");
                    landed += 1;
                }
            }
        }
    }
    eprintln!("{landed} of {total} drifted edits landed");
    assert!(
        total > 50 && landed * 10 >= total * 7,
        "{landed} of {total} landed"
    );
}
