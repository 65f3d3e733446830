use super::*;
use crate::patch::parse::parse;
use proptest::prelude::*;

fn decode(bytes: &[u8]) -> EditableText {
    EditableText::decode(bytes, "f", "Patching").unwrap()
}

fn run(file: &[u8], patch: &str) -> Result<Vec<u8>, Failure> {
    let blocks = parse(patch).unwrap();
    apply(&decode(file), &blocks[0].hunks).map(|a| a.bytes)
}

const HEAD: &str = "--- a/f\n+++ b/f\n";

#[test]
fn keeps_crlf_bom_and_gives_new_lines_the_dominant_terminator() {
    let file = b"\xEF\xBB\xBFone\r\ntwo\r\nthree\n";
    let p = format!("{HEAD}@@ -1,3 +1,4 @@\n one\n-two\n+TWO\n+2b\n three\n");
    assert_eq!(
        run(file, &p).unwrap(),
        b"\xEF\xBB\xBFone\r\nTWO\r\n2b\r\nthree\n"
    );
}

#[test]
fn a_missing_final_newline_stays_missing() {
    let p = format!("{HEAD}@@ -1,2 +1,2 @@\n-a\n+A\n b\n");
    assert_eq!(run(b"a\nb", &p).unwrap(), b"A\nb");
    // Appending after a bare last line gives that line a terminator; the new last line has none.
    let p = format!("{HEAD}@@ -1 +1,2 @@\n a\n+b\n");
    assert_eq!(run(b"a", &p).unwrap(), b"a\nb");
}

#[test]
fn no_newline_markers_decide_the_end() {
    let p = format!("{HEAD}@@ -1 +1 @@\n-a\n+a\n\\ No newline at end of file\n");
    assert_eq!(run(b"a\n", &p).unwrap(), b"a");
    let p = format!("{HEAD}@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+a\n");
    assert_eq!(run(b"a", &p).unwrap(), b"a\n");
    let p = format!("{HEAD}@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+a\n");
    assert_eq!(
        run(b"a\r\nb\r\n", &p).unwrap(),
        b"a\r\nb\r\n",
        "not at the end: no effect"
    );
}

#[test]
fn displaced_hunks_and_reused_trailing_context() {
    let file = b"0\n1\n2\n3\n4\n5\n";
    // Stated two lines too early; the second hunk reuses the first one's trailing context.
    let p = format!("{HEAD}@@ -1,2 +1,2 @@\n 2\n-3\n+T\n@@ -2,2 +2,2 @@\n 3\n-4\n+F\n");
    assert_eq!(
        run(file, &p).unwrap_err(),
        Failure::Hunk(2),
        "`3` is gone after hunk 1"
    );
    let p = format!("{HEAD}@@ -1,3 +1,3 @@\n 2\n-3\n+T\n 4\n@@ -2,2 +2,2 @@\n 4\n-5\n+F\n");
    assert_eq!(run(file, &p).unwrap(), b"0\n1\n2\nT\n4\nF\n");
}

#[test]
fn blame_goes_to_the_first_hunk_that_fits_nowhere() {
    let p = format!("{HEAD}@@ -1 +1 @@\n-a\n+A\n@@ -2 +2 @@\n-zz\n+Z\n");
    assert_eq!(run(b"a\nb\n", &p).unwrap_err(), Failure::Hunk(2));
    // Out of order: each fits alone, not both in this order.
    let p = format!("{HEAD}@@ -2 +2 @@\n-b\n+B\n@@ -1 +1 @@\n-a\n+A\n");
    assert_eq!(run(b"a\nb\n", &p).unwrap_err(), Failure::Block);
}

#[test]
fn inserting_into_an_empty_file_and_removing_everything() {
    let p = "--- /dev/null\n+++ b/f\n@@ -0,0 +1,2 @@\n+x\n+y\n";
    assert_eq!(run(b"", p).unwrap(), b"x\ny\n");
    let p = format!("{HEAD}@@ -1,2 +0,0 @@\n-x\n-y\n");
    let out = apply(&decode(b"x\r\ny"), &parse(&p).unwrap()[0].hunks).unwrap();
    assert_eq!((out.bytes.as_slice(), out.lines), (&b""[..], 0));
}

fn text() -> impl Strategy<Value = String> {
    (prop::collection::vec("[abc]{0,2}", 0..12), any::<bool>()).prop_map(|(lines, bare)| {
        let mut s = lines.join("\n");
        if !lines.is_empty() && !bare {
            s.push('\n');
        }
        s
    })
}

/// The unified diff from `a` to `b` with `radius` lines of context, written from similar's
/// changes. Not similar's own `unified_diff`, whose hunk headers are sometimes wrong
/// (`@@ -1,9 +3,3 @@` over five new-side lines, which our parser rightly rejects; or
/// `@@ -3,0 +3,3 @@` over a hunk that holds a context line, one line early — over blank
/// lines the patch then says something else than the diff): its grouped operations carry
/// such indices (an `Insert` at old line 2 right after an `Equal` of old lines 1..3), so the
/// headers are counted from the changes' own line numbers instead.
fn unified(a: &str, b: &str, radius: usize) -> String {
    use similar::ChangeTag;
    let diff = similar::TextDiff::from_lines(a, b);
    let mut out = String::from("--- a/f\n+++ b/f\n");
    // New minus old line numbers so far: where a hunk with no old line goes.
    let mut shift = 0i64;
    for group in diff.grouped_ops(radius) {
        let changes: Vec<_> = group.iter().flat_map(|op| diff.iter_changes(op)).collect();
        let old_len = changes.iter().filter(|c| c.old_index().is_some()).count();
        let new_len = changes.iter().filter(|c| c.new_index().is_some()).count();
        // 1-based starts; an empty range names the line before it.
        let (old_start, new_start) = match (
            changes.iter().find_map(|c| c.old_index()),
            changes.iter().find_map(|c| c.new_index()),
        ) {
            (Some(o), Some(n)) => (o + 1, n + 1),
            (Some(o), None) => (o + 1, (o as i64 + shift) as usize),
            (None, Some(n)) => ((n as i64 - shift) as usize, n + 1),
            (None, None) => continue,
        };
        out += &format!("@@ -{old_start},{old_len} +{new_start},{new_len} @@\n");
        for change in &changes {
            out.push(match change.tag() {
                ChangeTag::Equal => ' ',
                ChangeTag::Delete => '-',
                ChangeTag::Insert => '+',
            });
            out += change.value();
            if change.missing_newline() {
                out += "\n\\ No newline at end of file\n";
            }
        }
        shift += new_len as i64 - old_len as i64;
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    #[test]
    fn a_diff_from_a_to_b_turns_a_into_b(a in text(), b in text(), radius in 0usize..4) {
        prop_assume!(a != b);
        let patch = unified(&a, &b, radius);
        let blocks = parse(&patch).map_err(|e| TestCaseError::fail(format!("{e}\n{patch}")))?;
        prop_assert_eq!(blocks.len(), 1, "{:?}", patch);
        let out = apply(&decode(a.as_bytes()), &blocks[0].hunks)
            .map_err(|e| TestCaseError::fail(format!("{e:?}\n{patch}")))?;
        prop_assert_eq!(String::from_utf8(out.bytes).unwrap(), b, "{}", patch);
    }
}
