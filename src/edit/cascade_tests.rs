//! Tests of the cascade's tiers and candidates.

use super::*;

fn run(text: &str, old: &str) -> Vec<(usize, &'static str)> {
    let lines = Lines::new(text);
    find(text, &lines, old)
        .into_iter()
        .map(|r| {
            (
                r.line,
                &*Box::leak(text[r.start..r.end].to_string().into_boxed_str()),
            )
        })
        .collect()
}

#[test]
fn indentation_flexible_keeps_relative_indent() {
    let text = "fn a() {\n    if x {\n        y();\n    }\n}\n";
    assert_eq!(
        run(text, "if x {\n    y();\n}"),
        vec![(2, "    if x {\n        y();\n    }")]
    );
    // Relative indentation differs: not tier 1, but tier 2 (trimmed) still finds it.
    assert_eq!(run(text, "if x {\ny();\n}").len(), 1);
}

#[test]
fn trailing_newline_of_the_needle_is_included() {
    let text = "a\n  b\n  c\nd\n";
    assert_eq!(run(text, "b\nc\n"), vec![(2, "  b\n  c\n")]);
    // One line ending in \n is disproportionate for tiers 1-3; tier 4 takes it.
    assert_eq!(run(text, " d\n"), vec![(4, "d")]);
}

#[test]
fn collapsed_whitespace_and_edges() {
    let text = "x\n\ncall(a,   b,\n     c)\n\ny\n";
    assert_eq!(
        run(text, "call(a, b,\nc)"),
        vec![(3, "call(a,   b,\n     c)")]
    );
    assert_eq!(run(text, "call( a, b, c)"), Vec::<(usize, &str)>::new());
}

#[test]
fn several_regions_are_all_reported() {
    let text = "  foo\nbar\n    foo\nbar\n";
    assert_eq!(
        run(text, "foo\nbar")
            .iter()
            .map(|r| r.0)
            .collect::<Vec<_>>(),
        vec![1, 3]
    );
}

#[test]
fn long_spans_are_discarded() {
    let pad = " ".repeat(600);
    let text = format!("a{pad}b\n");
    assert!(run(&text, "a b").is_empty());
}
