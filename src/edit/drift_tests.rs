//! Tiers 5–7, re-indentation and the drift-free rewrite, through [`apply`].

use super::*;

fn ok(text: &str, old: &str, new: &str) -> Applied {
    apply(text, old, new, false).unwrap_or_else(|e| panic!("{}", e.message))
}

fn note(a: &Applied) -> String {
    let n = a.note.as_ref().expect("a tolerant match");
    format!("{} | {}", n.tier, n.adjustments.join("; "))
}

#[test]
fn a_shifted_block_is_reindented_and_its_unchanged_lines_kept() {
    let text = "fn a() {\n    if x {\n        y();\n    }\n}\n";
    let a = ok(text, "if x {\n    y();\n}", "if x {\n    y();\n    z();\n}");
    assert_eq!(
        a.text,
        "fn a() {\n    if x {\n        y();\n        z();\n    }\n}\n"
    );
    assert_eq!(note(&a), "tier 1, indentation-flexible | re-indented new_string to the file's indentation (shifted right by 4 spaces); kept 3 lines new_string did not change exactly as in the file");
}

#[test]
fn tabs_become_the_files_spaces_and_python_stays_valid() {
    let text = "def f(x):\n    if x:\n        return 1\n    return 0\n";
    let a = ok(
        text,
        "\tif x:\n\t\treturn 1",
        "\tif x:\n\t\tlog(x)\n\t\treturn 1",
    );
    assert_eq!(
        a.text,
        "def f(x):\n    if x:\n        log(x)\n        return 1\n    return 0\n"
    );
    assert!(note(&a).contains("(1 tab in old_string became 4 spaces in the file)"));
    // And the reverse: spaces written where the file indents with tabs.
    let text = "fn f() {\n\tif x {\n\t\ty();\n\t}\n}\n";
    let a = ok(
        text,
        "if x {\n    y();\n}",
        "if x {\n    y();\n    if z {\n        w();\n    }\n}",
    );
    assert_eq!(
        a.text,
        "fn f() {\n\tif x {\n\t\ty();\n\t\tif z {\n\t\t\tw();\n\t\t}\n\t}\n}\n"
    );
}

#[test]
fn without_a_consistent_transformation_an_observed_indentation_is_reused() {
    // Indents 0/2/5 in the file against 0/4/6 in old_string: no shift or ratio fits.
    let text = "a:\n  b\n     c\n";
    let a = ok(text, "a:\n    b\n      c", "a:\n    b\n      c\n    d");
    assert_eq!(a.text, "a:\n  b\n     c\n  d\n");
    // An indentation never seen and not extrapolable is refused, not written verbatim.
    let e = apply(
        text,
        "a:\n    b\n      c",
        "a:\n    b\n      c\n   d",
        false,
    )
    .unwrap_err();
    assert_eq!(e.code, Code::NoMatch);
    assert!(
        e.message
            .contains("cannot be written in the file's own whitespace"),
        "{}",
        e.message
    );
}

#[test]
fn new_string_already_in_the_files_indentation_is_not_shifted_twice() {
    let text = "def g():\n    return 1\n";
    let a = ok(text, "def g():\n  return 1", "def g():\n    return 2");
    assert_eq!(a.text, "def g():\n    return 2\n");
    assert!(a.note.unwrap().adjustments.is_empty());
}

#[test]
fn trailing_whitespace_drift_does_not_reach_the_file() {
    let a = ok("a\nb\nc\n", "a  \nb \nc", "a  \nB \nc\nd\t");
    assert_eq!(a.text, "a\nB\nc\nd\n");
    assert!(note(&a).contains("removed the trailing whitespace old_string had added"));
    // Trailing whitespace the file has is kept on unchanged lines.
    let a = ok("a \nb\n", "a\nb", "a\nB");
    assert_eq!(a.text, "a \nB\n");
}

#[test]
fn typographic_quotes_dashes_and_ellipses_match_their_ascii_forms() {
    let text = "say(\"hi\")\ncount--;\nf(...args)\n";
    let a = ok(
        text,
        "say(\u{201C}hi\u{201D})\ncount\u{2014};\nf(\u{2026}args)",
        "say(\u{201C}bye\u{201D})\ncount\u{2014};\nf(\u{2026}rest)",
    );
    assert_eq!(a.text, "say(\"bye\")\ncount--;\nf(...rest)\n");
    assert!(note(&a).starts_with("tier 5, typographic"));
    // A fragment of one line.
    let a = ok(text, "(\u{201C}hi\u{201D})", "(\u{201C}yo\u{201D})");
    assert_eq!(a.text, "say(\"yo\")\ncount--;\nf(...args)\n");
    // Two regions: ambiguous, naming the tier.
    let e = apply("p('a')\np('a')\n", "p(\u{2018}a\u{2019})", "q", false).unwrap_err();
    assert_eq!(e.code, Code::AmbiguousMatch);
    assert!(e.message.starts_with(
        "old_string was not found exactly; after tolerant matching (tier 5, typographic"
    ));
    assert_eq!(e.fields["lines"], serde_json::json!([1, 2]));
}

#[test]
fn a_dropped_or_added_blank_line_matches_and_the_files_blank_lines_stay() {
    let a = ok("a\n\nb\nc\n", "a\nb\nc", "a\nb\nC");
    assert_eq!(a.text, "a\n\nb\nC\n");
    assert!(note(&a).contains(
        "old_string had 1 blank line fewer than the file region; the file's blank lines were kept"
    ));
    let a = ok("x\na\nb\nc\n", "a\n\nb\nc", "a\n\nB\nc");
    assert_eq!(a.text, "x\na\nB\nc\n");
    // Deleting the whole block deletes the blank line inside it too.
    let a = ok("x\na\n\nb\ny\n", "a\nb\n", "");
    assert_eq!(a.text, "x\ny\n");
    let e = apply("a\n\nb\nx\na\n\nb\n", "a\nb", "c", false).unwrap_err();
    assert_eq!(e.code, Code::AmbiguousMatch);
}

#[test]
fn escape_drift_is_decoded_in_both_strings() {
    let text = "if (x) {\n\tputs(\"a\\n\");\n}\n";
    let a = ok(
        text,
        r#"if (x) {\n\tputs(\"a\\n\");\n}"#,
        r#"if (x) {\n\tputs(\"b\\n\");\n}"#,
    );
    assert_eq!(a.text, "if (x) {\n\tputs(\"b\\n\");\n}\n");
    assert!(note(&a).starts_with("tier 7, escape drift: escape sequences"));
    let a = ok("re = r\"\\d+\"\n", r#"r"\\d+""#, r#"r"\\w+""#);
    assert_eq!(a.text, "re = r\"\\w+\"\n");
    assert!(note(&a).starts_with("tier 7, escape drift"));
    let a = ok(
        "x = f(\"a\", 'b')\n",
        r#"f(\"a\", \'b\')"#,
        r#"f(\"c\", \'b\')"#,
    );
    assert_eq!(a.text, "x = f(\"c\", 'b')\n");
}

#[test]
fn line_number_prefixes_are_refused_not_stripped() {
    let e = apply(
        "fn a() {\n    b();\n}\n",
        "     1\tfn a() {\n     2\t    b();",
        "x",
        false,
    )
    .unwrap_err();
    assert_eq!(e.code, Code::NoMatch);
    assert!(e.message.contains("line-number prefixes"));
}

#[test]
fn a_miss_names_the_closest_region() {
    let text = "fn a() {\n    one();\n}\n\nfn b() {\n    two();\n}\n";
    let e = apply(text, "fn b() {\n    tw();\n}", "x", false).unwrap_err();
    assert!(e.message.ends_with(" The closest region is lines 5-7 (2 of 3 lines match once trimmed); first difference at line 6: the file has \"····two();\" where old_string has \"····tw();\". Re-read that region with read_file and copy it verbatim."), "{}", e.message);
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    /// A block: (indent level, words) per line, the first line at level 0.
    fn block() -> impl Strategy<Value = Vec<(usize, String)>> {
        prop::collection::vec((0usize..3, "[a-e]{1,3}( [a-e]{1,3}){0,2}"), 2..6).prop_map(
            |mut b| {
                b[0].0 = 0;
                b
            },
        )
    }

    fn render(b: &[(usize, String)], base: &str, unit: &str) -> Vec<String> {
        b.iter()
            .map(|(lvl, w)| format!("{base}{}{w}", unit.repeat(*lvl)))
            .collect()
    }

    proptest! {
        /// Whatever consistent indentation drift old_string and new_string share (a shift, or
        /// tabs for the file's spaces), the file ends up exactly as if they had none.
        #[test]
        fn shared_indentation_drift_never_reaches_the_file(
            b in block(),
            base in 1usize..4,
            at in 0usize..6,
            tabs in any::<bool>(),
            shift in 0usize..3,
        ) {
            let at = at % b.len();
            let mut changed = b.clone();
            changed[at].1.push_str(" zz");
            changed.insert(at + 1, (b[at].0, "inserted line".to_string()));
            let file_base = "    ".repeat(base);
            let file_block = render(&b, &file_base, "    ");
            let text = format!("100\n{}\n200\n", file_block.join("\n"));
            let (model_base, model_unit) = if tabs {
                ("\t".repeat(base), "\t")
            } else {
                (" ".repeat(shift), "    ")
            };
            let old = render(&b, &model_base, model_unit).join("\n");
            let new = render(&changed, &model_base, model_unit).join("\n");
            prop_assume!(!text.contains(&old));
            let expected = format!("100\n{}\n200\n", render(&changed, &file_base, "    ").join("\n"));
            match apply(&text, &old, &new, false) {
                Ok(a) => prop_assert_eq!(a.text, expected),
                // Repeated lines can make the block ambiguous: a refusal, never a wrong edit.
                Err(e) => prop_assert_eq!(e.code, Code::AmbiguousMatch),
            }
        }
    }
}

#[test]
fn a_changed_line_in_a_tab_indented_c_file_gets_the_files_tabs() {
    // The model wrote four spaces per tab in both strings; the changed line (not only the
    // context) lands with the file's tabs.
    let text = "int f(int x)\n{\n\tif (x) {\n\t\treturn g(x);\n\t}\n\treturn 0;\n}\n";
    let a = ok(
        text,
        "    if (x) {\n        return g(x);\n    }",
        "    if (x) {\n        return g(x) + 1;\n    }",
    );
    assert_eq!(
        a.text,
        "int f(int x)\n{\n\tif (x) {\n\t\treturn g(x) + 1;\n\t}\n\treturn 0;\n}\n"
    );
}

#[test]
fn tabs_inside_a_python_string_literal_are_not_guessed() {
    // Spaces-indented Python whose usage text starts lines with tabs.
    let text =
        "def usage():\n    text = \"\"\"\n\tprog FILE\n\t\t-v\tverbose\n\"\"\"\n    return text\n";
    // A changed literal line keeps its tabs (its counterpart's indentation and inner tab).
    let a = ok(
        text,
        "    text = \"\"\"\n    prog FILE\n        -v    verbose",
        "    text = \"\"\"\n    prog [options] FILE\n        -v    verbose",
    );
    assert_eq!(
        a.text,
        "def usage():\n    text = \"\"\"\n\tprog [options] FILE\n\t\t-v\tverbose\n\"\"\"\n    return text\n"
    );
    // A new line at 4 spaces could be the file's 4 spaces or one drifted tab: refused.
    let e = apply(
        text,
        "    text = \"\"\"\n    prog FILE",
        "    text = \"\"\"\n    prog FILE\n    -q",
        false,
    )
    .unwrap_err();
    assert_eq!(e.code, Code::NoMatch);
    assert!(
        e.message.contains("indents with both tabs and spaces"),
        "{}",
        e.message
    );
}

#[test]
fn unchanged_parts_of_a_changed_line_keep_typography_and_trailing_whitespace() {
    let text = "// pages 1\u{2013}9 of \u{201C}the guide\u{201D}  \nlet n = 9;\n";
    let a = ok(
        text,
        "// pages 1-9 of \"the guide\"\nlet n = 9;",
        "// pages 1-12 of \"the guide\"\nlet n = 12;",
    );
    assert_eq!(
        a.text,
        "// pages 1\u{2013}12 of \u{201C}the guide\u{201D}  \nlet n = 12;\n"
    );
    assert!(
        note(&a)
            .contains("kept the file's own characters in the unchanged parts of 1 changed line"),
        "{}",
        note(&a)
    );
}

#[test]
fn a_one_line_old_string_with_a_newline_keeps_the_files_indentation() {
    // Tier 4 (trimmed substring): new_string loses the whitespace old_string had around it.
    let text = "build:\n\t@cargo build\n\ntest:\n\t@cargo test\n";
    let a = ok(text, "    @cargo test\n", "    @cargo test --all\n");
    assert_eq!(
        a.text,
        "build:\n\t@cargo build\n\ntest:\n\t@cargo test --all\n"
    );
}

fn refused(text: &str, old: &str, new: &str) -> String {
    let e = apply(text, old, new, false).expect_err("a refusal");
    assert_eq!(e.code, Code::NoMatch, "{}", e.message);
    e.message
}

#[test]
fn deleting_one_of_a_run_of_equal_lines_whose_file_copies_differ_is_refused() {
    // Trailing whitespace stripped by the model: three `}` lines, which one goes?
    let text = "  return a;\n}  \n}\t\n}\t\n\n#endif\n";
    let why = refused(text, "  return a;\n}\n}\n}", "  return a;\n}\n}");
    assert!(why.contains("one of several equal lines"), "{why}");
    // The same deletion lands when the file's copies are alike.
    let text = "  return a;\n}\n}\n}\n\n#endif\n";
    let a = ok(text, "  return a;  \n}\n}\n}", "  return a;  \n}\n}");
    assert_eq!(a.text, "  return a;\n}\n}\n\n#endif\n");
}

#[test]
fn trailing_blank_lines_over_whitespace_only_file_lines_are_refused() {
    // new_string's trailing blank lines could keep either of the file's " " lines.
    let text = "/* head */\n \n/* by */\n \n\n#ifndef X\n";
    let why = refused(text, "/* head */\n\n/* by */\n\n", "/* head */\n\n\n");
    assert!(why.contains("holding only whitespace"), "{why}");
    let text = "    {\n      p = s;\n      \n      while (x)\n\t++p;\n";
    let why = refused(
        text,
        "    {\n      p = s;\n\n      while (x)",
        "    {\n      p = s;\n",
    );
    assert!(why.contains("holding only whitespace"), "{why}");
}
