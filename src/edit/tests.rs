use super::*;
use proptest::prelude::*;

fn err(text: &str, old: &str, new: &str, all: bool) -> ToolError {
    apply(text, old, new, all).unwrap_err()
}

#[test]
fn exact_unique_and_replace_all() {
    let a = apply("x = 1\ny = 1\n", "y = 1", "y = 2", false).unwrap();
    assert_eq!(
        (a.text.as_str(), a.count, a.tolerant),
        ("x = 1\ny = 2\n", 1, false)
    );
    let a = apply("a a a", "a", "b", true).unwrap();
    assert_eq!((a.text.as_str(), a.count), ("b b b", 3));
}

#[test]
fn identical_strings_are_refused() {
    let e = err("abc", "zzz", "zzz", false);
    assert_eq!(
        e.envelope(),
        r#"{"error":"invalid_input","message":"old_string and new_string are identical — nothing to change."}"#
    );
}

#[test]
fn exact_ambiguity_lists_every_line_up_to_20() {
    let e = err("k k\nx\nk\n", "k", "q", false);
    assert_eq!(
        e.envelope(),
        r#"{"error":"ambiguous_match","message":"old_string matched 3 times (at lines 1, 1, 3); it must be unique. Add surrounding lines to make the match unique, or pass replace_all: true to replace every occurrence."}"#
    );
    let many = "k\n".repeat(25);
    let e = err(&many, "k", "q", false);
    let list = (1..=20)
        .map(|n| n.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    assert!(e.message.starts_with(&format!(
        "old_string matched 25 times (at lines {list}, …); it must"
    )));
}

#[test]
fn tolerant_match_and_its_ambiguity() {
    let a = apply(
        "if a {\n\t\tcall();\n}\n",
        "if a {\n  call();\n}",
        "if a {\n  other();\n}",
        false,
    )
    .unwrap();
    // Improvement: new_string is re-indented like old_string's lines (2 spaces → 2 tabs).
    assert_eq!(
        (a.text.as_str(), a.tolerant),
        ("if a {\n\t\tother();\n}\n", true)
    );
    let e = err(
        "  f(x)\n  g()\n\n    f(x)\n    g()\n",
        "f(x)\ng()",
        "h()",
        false,
    );
    assert_eq!(e.code, Code::AmbiguousMatch);
    assert_eq!(e.message, "old_string was not found exactly; after whitespace-tolerant matching it matched 2 regions (at lines 1, 4); it must be unique. Add surrounding lines, or correct the whitespace so it matches one region exactly.");
    assert_eq!(e.fields["lines"], serde_json::json!([1, 4]));
}

#[test]
fn crlf_old_string_is_a_tolerant_match_and_new_string_is_normalised() {
    let a = apply("one\ntwo\nthree\n", "one\r\ntwo", "1\r\n2", false).unwrap();
    assert_eq!((a.text.as_str(), a.tolerant), ("1\n2\nthree\n", true));
}

#[test]
fn replace_all_never_runs_the_cascade() {
    let e = err("  foo\n", "foo \n", "bar", true);
    assert_eq!(e.code, Code::NoMatch);
    assert!(e.message.ends_with("The text is present at line 1 but its leading/trailing whitespace differs from old_string. Re-read that region with read_file and copy the indentation verbatim."));
    assert!(e.fields.is_empty());
}

#[test]
fn a_large_file_is_edited_quickly_enough_not_to_hang() {
    // Generous bound: proves linear behaviour, not a speed target (see the bench note).
    let text: String = (0..100_000)
        .map(|i| format!("    line number {i} with some text here\n"))
        .collect();
    let t = std::time::Instant::now();
    let a = apply(
        &text,
        "line number 77777 with some text here\n  line number 77778 with some text here",
        "X",
        false,
    )
    .unwrap();
    assert!(a.tolerant);
    assert!(t.elapsed() < std::time::Duration::from_secs(10));
}

fn word() -> impl Strategy<Value = String> {
    "[a-e]{1,3}"
}

fn block() -> impl Strategy<Value = Vec<Vec<String>>> {
    prop::collection::vec(prop::collection::vec(word(), 1..4), 2..5)
}

/// The same whitespace variation, applied to a block: shifted indentation (tier 1),
/// extra trailing blanks (tier 2) or doubled inner spaces (tier 3).
fn vary(block: &[Vec<String>], kind: u8, indent: usize) -> String {
    block
        .iter()
        .map(|words| {
            let pad = " ".repeat(indent);
            match kind {
                0 => format!("{pad}{}", words.join(" ")),
                1 => format!("{pad}{} \t", words.join(" ")),
                _ => format!("{pad}{}", words.join("   ")),
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

proptest! {
    #[test]
    fn two_tolerant_copies_are_always_ambiguous(b in block(), kind in 0u8..3, i1 in 1usize..6, i2 in 1usize..6, fill in "[0-9]{1,8}") {
        let old = vary(&b, 0, 0);
        let text = format!("{fill}\n{}\n{fill}\n{}\n{fill}\n", vary(&b, kind, i1), vary(&b, kind, i2));
        prop_assume!(!text.contains(&old));
        let e = apply(&text, &old, "NEW", false).unwrap_err();
        prop_assert_eq!(e.code, Code::AmbiguousMatch);
        let lines = e.fields["lines"].as_array().unwrap().len();
        prop_assert!(lines >= 2);
    }

    #[test]
    fn a_successful_tolerant_edit_had_exactly_one_region(text in "[ab \n]{0,40}", old in "[ab \n]{1,8}") {
        if let Ok(a) = apply(&text, &old, "Z", false) {
            if a.tolerant {
                let lines = Lines::new(&text);
                let found = cascade::find_tier(&text, &lines, &normalize_eol(&old));
                prop_assert_eq!(found.map(|f| f.regions.len()), Some(1));
                prop_assert_eq!(a.text.matches('Z').count(), 1);
            }
        }
    }
}

/// Timing probe for the report (not a speed assertion): `cargo test --release -- --ignored
/// timing_probe --nocapture`.
#[test]
#[ignore]
fn timing_probe_5mb_100k_lines() {
    use crate::eol::EditableText;
    use std::time::Instant;
    let raw: String = (0..100_000)
        .map(|i| {
            format!(
                "    let value_{i} = compute({i}, \"padding text\");{}",
                if i % 3 == 0 { "\n" } else { "\r\n" }
            )
        })
        .collect();
    println!("bytes: {}", raw.len());
    let t = Instant::now();
    let file = EditableText::decode(raw.as_bytes(), "f", "Editing").unwrap();
    println!("decode: {:?}", t.elapsed());
    let t = Instant::now();
    let a = apply(&file.text, "let value_77777 = compute(77777, \"padding text\");\n  let value_77778 = compute(77778, \"padding text\");", "X", false).unwrap();
    println!(
        "tolerant apply: {:?} (tolerant={})",
        t.elapsed(),
        a.tolerant
    );
    let probe = |label: &str, old: &str| {
        let t = Instant::now();
        let r = apply(&file.text, old, "X", false);
        println!(
            "{label}: {:?} ({})",
            t.elapsed(),
            match &r {
                Ok(a) => a
                    .note
                    .as_ref()
                    .map_or("exact".to_string(), |n| n.tier.clone()),
                Err(e) => format!("{:?}", e.code),
            }
        );
    };
    probe(
        "typographic (tier 5)",
        "let value_77777 = compute(77777, \u{201C}padding text\u{201D});",
    );
    probe("blank lines (tier 6)", "let value_77777 = compute(77777, \"padding text\");\n\n    let value_77778 = compute(77778, \"padding text\");");
    probe(
        "escapes (tier 7)",
        "let value_77777 = compute(77777, \\\"padding text\\\");",
    );
    probe("no_match with diagnosis", "let value_77777 = compute(77777, \"padded text\");\n    let value_77778 = compute(77778, \\\"padding\\\");");
    let t = Instant::now();
    let out = file.encode(&a.text);
    println!("encode: {:?} ({} bytes)", t.elapsed(), out.len());
    let t = Instant::now();
    let a = apply(&file.text, "compute(", "calc(", true).unwrap();
    println!("replace_all every line: apply {:?}", t.elapsed());
    let t = Instant::now();
    file.encode(&a.text);
    println!("replace_all every line: encode {:?}", t.elapsed());
    let t = Instant::now();
    let a = apply(&file.text, "value_1", "VALUE_1", true).unwrap();
    let _ = file.encode(&a.text);
    println!(
        "replace_all {} lines in blocks: apply+encode {:?}",
        a.count,
        t.elapsed()
    );
}
