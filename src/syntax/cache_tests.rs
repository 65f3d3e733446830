//! The tree cache must never change an answer: incremental re-parses through random edit
//! sequences give the warnings and outlines a full parse gives.

use super::cache::{self, edit_between, Reuse};
use super::*;
use std::path::Path;

const BUDGET: Duration = Duration::from_secs(10);

fn first_issue_fresh(g: Grammar, text: &str) -> Option<issues::Issue> {
    let p = parse::parse(g, text.as_bytes(), BUDGET, None).unwrap();
    issues::collect(&p, 1).list.into_iter().next()
}

fn first_issue_cached(key: &Path, g: Grammar, text: &str) -> Option<issues::Issue> {
    let p = cache::parse(key, g, text, BUDGET, None, Reuse::Incremental).unwrap();
    issues::collect(&p, 1).list.into_iter().next()
}

/// A small deterministic PRNG (xorshift), so a failure replays.
struct Rng(u64);
impl Rng {
    fn next(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

const SNIPPETS: &[&str] = &[
    "",
    "{",
    "}",
    "(",
    ")",
    ";",
    "\n",
    "x",
    " = 1",
    "é😀",
    "fn ",
    "def ",
    "class A:\n",
    "\"",
    "//",
    "/*",
    "*/",
    "  ",
    "return 0;",
    "]",
    "if (a) {\n",
    "let s = \"é\";\n",
];

fn random_edits(name: &str, start: &str, seed: u64) {
    let g = grammar_for(name).unwrap();
    let key = std::env::temp_dir().join(format!("cache-test-{seed}-{name}"));
    let mut rng = Rng(seed);
    let mut text = start.to_string();
    let mut history = vec![text.clone()];
    for step in 0..150 {
        text = if rng.next(5) == 0 && history.len() > 1 {
            // Undo: back to an earlier version (a revert, the kind of edit that flips errors).
            history[rng.next(history.len())].clone()
        } else {
            let chars: Vec<usize> = text
                .char_indices()
                .map(|(i, _)| i)
                .chain([text.len()])
                .collect();
            let a = chars[rng.next(chars.len())];
            let b = chars
                [(chars.iter().position(|&c| c == a).unwrap() + rng.next(4)).min(chars.len() - 1)];
            format!(
                "{}{}{}",
                &text[..a],
                SNIPPETS[rng.next(SNIPPETS.len())],
                &text[b..]
            )
        };
        history.push(text.clone());
        assert_eq!(
            first_issue_cached(&key, g, &text),
            first_issue_fresh(g, &text),
            "{name} seed {seed} step {step}:\n{text}"
        );
        if step % 10 == 0 {
            let fresh = parse::parse(g, text.as_bytes(), BUDGET, None).unwrap();
            let kept = cache::parse(&key, g, &text, BUDGET, None, Reuse::Exact).unwrap();
            assert_eq!(
                outline::render("f", &Facts::of(&kept, Purpose::Outline)),
                outline::render("f", &Facts::of(&fresh, Purpose::Outline)),
                "{name} step {step}"
            );
            assert_eq!(
                check_json("f", &Facts::of(&kept, Purpose::Check)),
                check_json("f", &Facts::of(&fresh, Purpose::Check)),
                "{name} step {step}"
            );
        }
    }
}

#[test]
fn incremental_reparses_answer_like_full_parses() {
    let ts = "export class A {\n  m(x: number): string { return `${x}`; }\n}\nexport const f = (s: string) => s.length;\ninterface I { a: number }\nfunction g() {\n  if (a) { b(); }\n}\n";
    let py = "class A:\n    def m(self, x):\n        return x\n\ndef f(a, b=1):\n    if a:\n        return b\n    return [i for i in range(3)]\n";
    let rs = "mod m {\n    pub struct S { a: u8 }\n    impl S {\n        fn f(&self) -> u8 { self.a }\n    }\n}\nfn main() { let v = vec![1, 2]; }\n";
    for seed in 1..=12 {
        random_edits("a.ts", ts, seed);
        random_edits("a.py", py, seed + 100);
        random_edits("a.rs", rs, seed + 200);
    }
}

#[test]
fn the_edit_is_the_changed_span_in_bytes_and_points() {
    let e = edit_between("ab\ncdé\nxyz", "ab\ncdéQQ\nq\nxyz");
    assert_eq!((e.start_byte, e.old_end_byte, e.new_end_byte), (7, 7, 11));
    assert_eq!((e.start_position.row, e.start_position.column), (1, 4));
    assert_eq!((e.new_end_position.row, e.new_end_position.column), (2, 1));
    // Replacing é (2 bytes) by è: the span covers whole characters only.
    let e = edit_between("aé", "aè");
    assert_eq!((e.start_byte, e.old_end_byte, e.new_end_byte), (1, 3, 3));
    // Past the 64-byte blocks, and a shared suffix that overlaps the prefix.
    let long = "x".repeat(200);
    let e = edit_between(&format!("{long}a{long}"), &format!("{long}{long}"));
    assert_eq!(
        (e.start_byte, e.old_end_byte, e.new_end_byte),
        (200, 201, 200)
    );
    let e = edit_between("aaaa", "aaaaaa");
    assert_eq!((e.start_byte, e.old_end_byte, e.new_end_byte), (4, 4, 6));
    let e = edit_between("same", "same");
    assert_eq!((e.start_byte, e.old_end_byte, e.new_end_byte), (4, 4, 4));
}

#[test]
fn a_kept_tree_is_never_used_for_other_content() {
    let key = std::env::temp_dir().join("cache-test-other-content.ts");
    let g = Grammar::TypeScript;
    let ok = "const a = 1;\n";
    let bad = "const a = (1;\n";
    assert_eq!(first_issue_cached(&key, g, ok), None);
    // The same path now holds other (broken) content: the warning sees it.
    let issue = first_issue_cached(&key, g, bad).expect("an issue");
    assert_eq!(
        (issue.line, issue.column, issue.near.as_str()),
        (1, 13, ")")
    );
    let p = cache::parse(&key, g, ok, BUDGET, None, Reuse::Exact).unwrap();
    assert!(!p.tree.root_node().has_error());
    assert_eq!(p.text, ok);
}
