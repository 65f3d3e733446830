use super::*;
use crate::error::Code;

fn msg(text: &str) -> String {
    let e = parse(text).unwrap_err();
    assert_eq!(e.code, Code::InvalidInput);
    e.message
}

fn kinds(h: &Hunk) -> String {
    h.lines
        .iter()
        .map(|l| match l.kind {
            Kind::Context => ' ',
            Kind::Remove => '-',
            Kind::Add => '+',
        })
        .collect()
}

#[test]
fn git_style_headers_and_hunks() {
    let p = "diff --git a/src/x.rs b/src/x.rs\nindex 1..2 100644\n--- a/src/x.rs\n+++ b/src/x.rs\n@@ -1,3 +1,3 @@ fn main\n a\n-b\n+B\n c\n@@ -10 +10,2 @@\n x\n+y\n";
    let blocks = parse(p).unwrap();
    assert_eq!(blocks.len(), 1);
    let b = &blocks[0];
    assert_eq!(b.old_path.as_deref(), Some("src/x.rs"));
    assert_eq!(b.new_path.as_deref(), Some("src/x.rs"));
    assert_eq!(b.hunks.len(), 2);
    assert_eq!(kinds(&b.hunks[0]), " -+ ");
    assert_eq!(b.hunks[0].start, Some(0));
    assert_eq!(b.hunks[0].line, 5);
    assert_eq!(b.hunks[1].start, Some(9));
    assert_eq!(b.hunks[1].lines[1].text, "y");
}

#[test]
fn tab_suffix_quotes_and_dev_null() {
    let p = "--- /dev/null\t2024-01-01\n+++ \"b/sp ace\\tq\\303\\251\"\t2024\n@@ -0,0 +1 @@\n+hi\n";
    let b = &parse(p).unwrap()[0];
    assert_eq!(b.old_path, None);
    assert_eq!(b.new_path.as_deref(), Some("sp ace\tqé"));
    assert_eq!(b.hunks[0].start, Some(0));
    let p = "--- old.txt\t2024-01-01 10:00\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n";
    let b = &parse(p).unwrap()[0];
    assert_eq!(
        (b.old_path.as_deref(), b.new_path.as_deref()),
        (Some("old.txt"), None)
    );
}

#[test]
fn rename_without_headers_and_empty_creates() {
    let p = "diff --git a/a b/c d/e f\nsimilarity index 100%\nrename from a b\nrename to \"c d/e f\"\ndiff --git a/n b/n\nnew file mode 100644\nindex 0000000..e69de29\ndiff --git a/m b/m\nold mode 100644\nnew mode 100755\n";
    let blocks = parse(p).unwrap();
    assert_eq!(
        blocks.len(),
        2,
        "a mode change alone is not a block: {blocks:?}"
    );
    assert_eq!(blocks[0].old_path.as_deref(), Some("a b"));
    assert_eq!(blocks[0].new_path.as_deref(), Some("c d/e f"));
    assert!(blocks[0].hunks.is_empty());
    assert_eq!(
        (blocks[1].old_path.as_deref(), blocks[1].new_path.as_deref()),
        (None, Some("n"))
    );
}

#[test]
fn git_names_split_where_both_sides_agree() {
    assert_eq!(
        git_names("a/x b/y b/x b/y"),
        Some(("x b/y".into(), "x b/y".into()))
    );
    assert_eq!(git_names("a/p b/q"), Some(("p".into(), "q".into())));
    assert_eq!(
        git_names("\"a/x y\" \"b/x y\""),
        Some(("x y".into(), "x y".into()))
    );
}

#[test]
fn no_newline_markers() {
    let p = "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file\n";
    let h = &parse(p).unwrap()[0].hunks[0];
    assert!(h.old_no_newline && h.new_no_newline);
    let p = "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-a\n+b\n c\n\\ No newline at end of file\n";
    let h = &parse(p).unwrap()[0].hunks[0];
    assert!(h.old_no_newline && h.new_no_newline);
}

#[test]
fn text_between_blocks_is_ignored() {
    let p = "Here is my patch:\n\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n\nAnd another one\n--- a/y\n+++ b/y\n@@ -1 +1 @@\n-c\n+d\n-- \n2.40.0\n";
    let blocks = parse(p).unwrap();
    assert_eq!(blocks.len(), 2);
    assert_eq!(blocks[1].old_path.as_deref(), Some("y"));
}

#[test]
fn crlf_patch_text() {
    let p = "--- a/x\r\n+++ b/x\r\n@@ -1 +1 @@\r\n-a\r\n+b\r\n";
    let b = &parse(p).unwrap()[0];
    assert_eq!(b.hunks[0].lines[1].text, "b");
}

#[test]
fn empty_line_inside_a_hunk_is_context() {
    let p = "--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n\n-c\n+C\n";
    assert_eq!(kinds(&parse(p).unwrap()[0].hunks[0]), "  -+");
}

#[test]
fn malformed_details() {
    assert_eq!(
        msg("--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n+d\n"),
        "Malformed patch: Added line count did not match for hunk at line 3"
    );
    assert_eq!(
        msg("--- a/x\n+++ b/x\n@@ -1 +1,2 @@\n-a\n+b\n"),
        "Malformed patch: Added line count did not match for hunk at line 3"
    );
    assert_eq!(
        msg("--- a/x\n+++ b/x\n@@ -1,3 +1,1 @@\n-a\n+b\n"),
        "Malformed patch: Removed line count did not match for hunk at line 3"
    );
    assert_eq!(
        msg("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n-extra\n"),
        "Malformed patch: Removed line count did not match for hunk at line 3"
    );
    assert_eq!(
        msg("junk\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\n*b\n"),
        "Malformed patch: Hunk at line 4 contained invalid line *b"
    );
    assert_eq!(
        msg("--- a/x\n@@ -1 +1 @@\n-a\n+b\n"),
        "Malformed patch: Missing \"+++ ...\" file header for x"
    );
    // A `---` line alone, or followed by anything but `+++` (jsdiff's rule).
    for patch in ["--- a/x", "--- a/x\n", "--- a/x\nsome text\n"] {
        assert_eq!(
            msg(patch),
            "Malformed patch: Missing \"+++ ...\" file header for x",
            "{patch:?}"
        );
    }
    assert_eq!(
        msg("+++ b/x\n"),
        "Malformed patch: Missing \"--- ...\" file header for x"
    );
    assert_eq!(
        msg("--- a/x\n+++ b/x\n@@ -a +1 @@\n"),
        "Malformed patch: Invalid hunk header at line 3: @@ -a +1 @@"
    );
}

#[test]
fn missing_paths() {
    assert_eq!(
        msg("@@ -1 +1 @@\n-a\n+b\n"),
        "Patch is missing a valid file path"
    );
    assert_eq!(
        msg("--- /dev/null\n+++ /dev/null\n@@ -0,0 +1 @@\n+a\n"),
        "Patch is missing a valid file path"
    );
}

#[test]
fn nothing_to_parse_is_empty() {
    assert!(parse("just some words\n").unwrap().is_empty());
    assert!(parse("").unwrap().is_empty());
}

#[test]
fn headers_of_another_file_after_a_rename_start_a_new_block() {
    let p =
        "diff --git a/t b/u\nrename from t\nrename to u\n--- a/e\n+++ b/f\n@@ -1 +1 @@\n-x\n+y\n";
    let blocks = parse(p).unwrap();
    assert_eq!(blocks.len(), 2);
    assert!(blocks[0].hunks.is_empty());
    assert_eq!(
        (blocks[1].old_path.as_deref(), blocks[1].new_path.as_deref()),
        (Some("e"), Some("f"))
    );
    let p =
        "diff --git a/t b/u\nrename from t\nrename to u\n--- a/t\n+++ b/u\n@@ -1 +1 @@\n-x\n+y\n";
    assert_eq!(parse(p).unwrap().len(), 1);
}
