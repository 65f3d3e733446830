use super::*;

fn shown(raw: &str, content: &str, budget: i64) -> String {
    let mut out = String::from("before");
    let (len, whole) = section(&mut out, raw, content, line_count(content), budget);
    assert_eq!(out.len(), "before".len() + len);
    assert_eq!(
        whole,
        !out.contains("lines shown; use read_file for the rest")
    );
    out.split_off("before".len())
}

/// A section is cut only when it does not fit what is left of the budget, which counts
/// a newline after its last row: a section exactly as long as the budget is cut.
#[test]
fn a_section_fits_only_below_the_budget() {
    let content = "alpha\nbeta\ngamma\n";
    let full = shown("f.txt", content, i64::MAX);
    assert_eq!(
        full,
        "==> f.txt <==\n     1\talpha\n     2\tbeta\n     3\tgamma"
    );
    let n = full.len() as i64;
    assert_eq!(shown("f.txt", content, n + 1), full);
    assert_eq!(
        shown("f.txt", content, n),
        "==> f.txt <==\n     1\talpha\n     2\tbeta\n[... 2 of 3 lines shown; use read_file for the rest ...]"
    );
    // At least one row, however small the budget.
    assert_eq!(
        shown("f.txt", content, 0),
        "==> f.txt <==\n     1\t [... line truncated ...]\n[... 1 of 3 lines shown; use read_file for the rest ...]"
    );
    // No final newline: the last line is still a line; an empty file says so.
    assert_eq!(
        shown("g", "a\nb", i64::MAX),
        "==> g <==\n     1\ta\n     2\tb"
    );
    assert_eq!(shown("g", "\n", i64::MAX), "==> g <==\n     1\t");
    assert_eq!(shown("e", "", 1), "==> e <==\n(empty file)");
}

/// The room reserved for a section holds it, whatever the text: long lines cut with a
/// marker, line numbers past six digits, a file of empty lines.
#[test]
fn the_room_reserved_holds_the_section() {
    let texts = [
        String::new(),
        "x".into(),
        "\n".repeat(1_200_000),
        format!("{}\n{}", "é".repeat(2001), "y".repeat(5000)),
        "a\r\nb".into(),
    ];
    for text in texts {
        let whole = shown("some/path.rs", &text, i64::MAX);
        let room = room(
            "some/path.rs",
            &Ok(Got::Text(text.clone(), line_count(&text), None)),
        );
        assert!(whole.len() <= room, "{}", text.len());
    }
}

#[test]
fn decoding_reuses_plain_utf8_and_converts_the_rest() {
    let plain = b"fn main() {}\n".to_vec();
    let at = plain.as_ptr();
    let text = decoded(plain);
    assert_eq!((text.as_str(), text.as_ptr()), ("fn main() {}\n", at));
    assert_eq!(decoded(b"\xEF\xBB\xBFa\r\nb".to_vec()), "a\nb");
    assert_eq!(decoded(b"a\xFFb".to_vec()), "a\u{FFFD}b");
    assert_eq!(decoded(b"\xFF\xFEh\0i\0".to_vec()), "hi");
}

#[test]
fn paths_claimed_by_a_helper_that_never_finished_are_read_by_the_caller() {
    let dir = tempfile::tempdir().unwrap();
    for (name, body) in [("a.txt", "one\n"), ("b.txt", "two\nthree\n")] {
        std::fs::write(dir.path().join(name), body).unwrap();
    }
    let config = Arc::new(Config::with_root(dir.path()));
    let batch = Batch {
        config,
        cancel: Cancel::new(),
        root: None,
        paths: vec!["a.txt".into(), "b.txt".into(), "gone.txt".into()],
        allowance: AtomicUsize::new(usize::MAX),
        // Every path claimed by a helper that was descheduled before reading any.
        next: AtomicUsize::new(3),
        slots: (0..3).map(|_| Mutex::new(Slot::Empty)).collect(),
    };
    batch.work();
    let text = |got: Option<ToolResult<Got>>| match got {
        Some(Ok(Got::Text(text, _, _))) => text,
        _ => panic!("not a kept text"),
    };
    assert_eq!(text(batch.take(0)), "one\n");
    // The helper wakes up and finishes path 0 after the caller took it: ignored.
    batch.keep(0, Some(Ok(Got::Text("late".into(), 1, None))));
    assert!(matches!(*batch.slot(0), Slot::Taken));
    // A helper's reading that landed first is the one used.
    batch.keep(1, Some(Ok(Got::Text("from the helper".into(), 1, None))));
    assert_eq!(text(batch.take(1)), "from the helper");
    let gone = batch.take(2).unwrap().err().unwrap();
    assert_eq!(gone.code, Code::NotFound);
    // A text whose section would take the kept texts past the allowance is not kept.
    let small = Batch {
        allowance: AtomicUsize::new(150),
        next: AtomicUsize::new(0),
        slots: (0..2).map(|_| Mutex::new(Slot::Empty)).collect(),
        paths: vec!["a.txt".into(), "b.txt".into()],
        cancel: Cancel::new(),
        ..batch
    };
    assert!(matches!(small.take(1), Some(Ok(Got::Large))));
    assert!(matches!(small.take(0), Some(Ok(Got::Text(_, 1, _)))));
    assert_eq!(
        small.allowance.load(Ordering::Relaxed),
        150 - text_room("one\n", 1)
    );
    // Cancelled before a path was read: `None`, which `run` reports as aborted.
    let cancelled = Batch {
        cancel: Cancel::new(),
        next: AtomicUsize::new(0),
        slots: vec![Mutex::new(Slot::Empty)],
        paths: vec!["a.txt".into()],
        ..small
    };
    cancelled.cancel.cancel();
    assert!(cancelled.take(0).is_none());
}

#[test]
fn rows_match_the_formatting_machinery() {
    let mut out = String::new();
    for ln in [1u64, 9, 10, 99_999, 999_999, 1_000_000, 12_345_678] {
        out.clear();
        push_row(&mut out, ln, "x", usize::MAX);
        assert_eq!(out, format!("{ln:>6}\tx"));
    }
    out.clear();
    let long = "é".repeat(2001);
    push_row(&mut out, 1, &long, usize::MAX);
    assert_eq!(
        out,
        format!("     1\t{} [... line truncated ...]", "é".repeat(2000))
    );
    out.clear();
    push_row(&mut out, 1, "abcdefghijklmnopqrstuvwxyz0123456789", 40);
    assert_eq!(out, "     1\tabcdefgh [... line truncated ...]");
}
