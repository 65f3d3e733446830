//! Unified diffs in the format of jsdiff's `createTwoFilesPatch` (the original's `meta.diff`).
//!
//! Interim version for the checkpoint work; the `readtools` branch carries the byte-exact one.

use similar::{ChangeTag, TextDiff};

/// `createTwoFilesPatch(old_name, new_name, old, new)` with 3 lines of context.
pub fn two_files_patch(old_name: &str, new_name: &str, old: &str, new: &str) -> String {
    let mut out = String::new();
    if old_name == new_name {
        out.push_str(&format!("Index: {old_name}\n"));
    }
    out.push_str(&"=".repeat(67));
    out.push_str(&format!("\n--- {old_name}\n+++ {new_name}\n"));
    let diff = TextDiff::from_lines(old, new);
    for group in diff.grouped_ops(3) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        let (o, n) = (first.old_range().start, first.new_range().start);
        let ol = last.old_range().end - o;
        let nl = last.new_range().end - n;
        let os = if ol == 0 { o } else { o + 1 };
        let ns = if nl == 0 { n } else { n + 1 };
        out.push_str(&format!("@@ -{os},{ol} +{ns},{nl} @@\n"));
        for op in &group {
            for change in diff.iter_changes(op) {
                let sign = match change.tag() {
                    ChangeTag::Equal => ' ',
                    ChangeTag::Delete => '-',
                    ChangeTag::Insert => '+',
                };
                let line = change.value();
                out.push(sign);
                out.push_str(line.strip_suffix('\n').unwrap_or(line));
                out.push('\n');
                if !line.ends_with('\n') {
                    out.push_str("\\ No newline at end of file\n");
                }
            }
        }
    }
    out
}

/// The `meta.diff` of one file: `None` when nothing changed.
pub fn file_patch(rel: &str, before: &str, after: &str) -> Option<String> {
    (before != after).then(|| two_files_patch(rel, rel, before, after))
}
