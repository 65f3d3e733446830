//! `read_file`: a text file with line numbers, paging and tail reads; bounds its own output.

use super::title;
use super::{object_schema, read_annotations, Call, Handler, ToolDef};
use crate::error::{ToolError, ToolResult};
use crate::output::utf8_prefix;
use crate::redact::Scope;
use crate::schema::{int_arg, str_arg};
use crate::text::{self, utf16_len};
use crate::workspace;
use serde_json::{json, Map, Value};

/// Lines longer than this many UTF-16 units are cut.
pub const MAX_LINE_UNITS: usize = 2000;
const LINE_MARKER: &str = " [... line truncated ...]";

const DESCRIPTION: &str = "Read a text file from the workspace. Returns lines prefixed with their 1-based line number and a tab (the prefix is NOT part of the file: never copy it into edit_file's old_string). Reads 2000 lines from offset 1 by default; when more lines remain the output ends with a hint giving the next offset to continue from. Use a negative offset to read the tail (offset: -50 reads the last 50 lines). UTF-8 and UTF-16 files with a byte-order mark are decoded; binary files are refused (is_binary). Use this before editing a file so old_string can be copied exactly. To find which file holds something use grep; to list files use glob or list_dir. Errors: not_found (check the path with list_dir or glob), not_a_file (the path is a directory: use list_dir), too_large (read a smaller file or raise MAX_FILE_BYTES), invalid_input (offset 0 or past the end: the message gives the valid range), path_escape (stay inside the workspace).";

/// The `read_file` tool definition.
pub fn def() -> ToolDef {
    ToolDef {
        name: "read_file",
        description: DESCRIPTION,
        schema,
        bounded: true,
        annotations: read_annotations(),
        handler: Handler::Blocking(|c| run(c).map(Into::into)),
        aborted: ToolError::aborted,
        syntax: false,
        unstaged: false,
    }
}

fn schema() -> Value {
    object_schema(
        json!({
            "path": { "type": "string", "description": "File to read, relative to the workspace root or absolute." },
            "offset": { "type": "integer", "default": 1, "description": "1-based line to start at; a negative value -N reads the last N lines. 0 is invalid." },
            "limit": { "type": "integer", "minimum": 1, "default": 2000, "description": "Maximum number of lines to return." }
        }),
        &["path"],
    )
}

fn run(call: &Call) -> ToolResult<String> {
    let input = str_arg(&call.args, "path").unwrap_or_default();
    let abs = workspace::resolve(&call.config, input)?;
    let bytes = text::load(&call.config, &abs, input)?;
    let content = text::decode_text(&bytes);
    let offset = int_arg(&call.args, "offset").unwrap_or(1);
    // 0 means "the default" (0.5; 0.1's schema refuses 0).
    let limit = match int_arg(&call.args, "limit") {
        None | Some(0) => 2000,
        Some(n) => n.max(1) as u64,
    };
    let max = call.config.max_output_bytes;
    let (out, lines) = render_lines(&content, offset, limit, max, input, &call.redaction)?;
    call.shown(&abs, &bytes, lines.0, lines.1, lines.2);
    Ok(out)
}

/// Formats `content` (line endings already `\n`) as numbered rows, per the contract.
pub fn render(
    content: &str,
    offset: i64,
    limit: u64,
    max_bytes: u64,
    input: &str,
) -> ToolResult<String> {
    render_lines(content, offset, limit, max_bytes, input, &Scope::off()).map(|(out, _)| out)
}

/// [`render`], handing the lines shown (and the text around them) to the call's redaction,
/// and which lines it showed: `(first, last, total)` (`(0, 0, 0)` for an empty file).
pub fn render_lines(
    content: &str,
    offset: i64,
    limit: u64,
    max_bytes: u64,
    input: &str,
    redaction: &Scope,
) -> ToolResult<(String, (u64, u64, u64))> {
    if content.is_empty() {
        return Ok(("(empty file)".into(), (0, 0, 0)));
    }
    let lines = split_lines(content);
    let total = lines.len() as u64;
    if offset == 0 {
        return Err(ToolError::invalid(
            "offset must be non-zero: use a positive 1-indexed line, or a negative tail offset.",
        )
        .with("path", input));
    }
    let start: u64 = if offset > 0 {
        let o = offset as u64;
        if o > total {
            return Err(ToolError::invalid(format!(
                "offset {o} exceeds file line count {total}; read from offset 1..{total}"
            ))
            .with("path", input)
            .with("line_count", total));
        }
        o
    } else {
        let n = offset.unsigned_abs();
        total.saturating_sub(n).saturating_add(1).max(1)
    };
    let end = start.saturating_add(limit - 1).min(total); // inclusive
    if redaction.is_on() {
        // The rows are slices of `content`: their span is where the secrets are judged.
        let at = |line: &str| line.as_ptr() as usize - content.as_ptr() as usize;
        let (first, last) = (lines[(start - 1) as usize], lines[(end - 1) as usize]);
        redaction.learn_around(content, at(first)..at(last) + last.len());
    }
    let max = usize::try_from(max_bytes).unwrap_or(usize::MAX);
    // Sized once for the common whole-file read: the text plus an 8-byte prefix per row.
    let rows = (end - start + 1) as usize;
    let mut out = String::with_capacity(
        content
            .len()
            .saturating_add(rows.saturating_mul(8))
            .min(max.saturating_add(128)),
    );
    let mut used = 0usize;
    let mut shown = 0u64;
    for ln in start..=end {
        let mark = out.len();
        if shown > 0 {
            out.push('\n');
        }
        let len = push_row(&mut out, ln, lines[(ln - 1) as usize], max);
        if shown > 0 && used + len + 1 > max {
            out.truncate(mark);
            break;
        }
        used += len + 1;
        shown += 1;
    }
    let last = start + shown - 1;
    if last < total {
        out.push_str(&format!(
            "\n[... {shown} of {total} lines shown; continue with offset={} ...]",
            last + 1
        ));
    }
    Ok((out, (start, last, total)))
}

/// The lines of `content` without their `\n`; a final empty line (after a trailing `\n`)
/// is not one. `memchr`'s SIMD search: `str::split('\n')` searched each short line with
/// core's generic char searcher, a quarter of a 2,000-line read's worker time.
pub(crate) fn split_lines(content: &str) -> Vec<&str> {
    let mut lines = Vec::with_capacity(content.len() / 32 + 1);
    let mut from = 0;
    for nl in memchr::memchr_iter(b'\n', content.as_bytes()) {
        lines.push(&content[from..nl]);
        from = nl + 1;
    }
    if from < content.len() {
        lines.push(&content[from..]);
    }
    lines
}

/// Appends one numbered row to `out`: `<n right-aligned in 6>\t<line>`, cut at 2,000 UTF-16
/// units and at `max` bytes (UTF-8 safe) with ` [... line truncated ...]`. No allocation of
/// its own for the common row (at most 2,000 bytes, copied once). Returns the bytes appended.
pub(crate) fn push_row(out: &mut String, ln: u64, line: &str, max: usize) -> usize {
    let start = out.len();
    push_number(out, ln);
    let prefix = out.len() - start;
    // A line of at most 2,000 bytes has at most 2,000 UTF-16 units: no counting needed.
    let cut_units = line.len() > MAX_LINE_UNITS && utf16_len(line) > MAX_LINE_UNITS;
    if !cut_units && prefix + line.len() <= max {
        out.push_str(line);
        return out.len() - start;
    }
    let text: std::borrow::Cow<'_, str> = if cut_units {
        let mut units = 0;
        let mut cut = line.len();
        for (i, c) in line.char_indices() {
            if units + c.len_utf16() > MAX_LINE_UNITS {
                cut = i;
                break;
            }
            units += c.len_utf16();
        }
        format!("{}{LINE_MARKER}", &line[..cut]).into()
    } else {
        line.into()
    };
    if prefix + text.len() > max {
        let room = max.saturating_sub(prefix + LINE_MARKER.len());
        out.push_str(utf8_prefix(&text, room));
        out.push_str(LINE_MARKER);
    } else {
        out.push_str(&text);
    }
    out.len() - start
}

/// `format!("{n:>6}\t")` without the formatting machinery (it showed in profiles of
/// read_files, which numbers every line of 64 files): the row prefix is built in a stack
/// buffer and appended with one copy.
fn push_number(out: &mut String, n: u64) {
    // 20 digits at most, right-aligned in at least 6 columns, then a tab.
    let mut buf = [b' '; 21];
    let end = buf.len() - 1;
    buf[end] = b'\t';
    let mut i = end;
    let mut v = n;
    loop {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    let from = i.min(end - 6);
    // SAFETY: `buf[from..]` holds only ASCII spaces, digits and a tab, so appending it keeps
    // `out` valid UTF-8. (`str::from_utf8` on each 7-byte prefix was 5 % of a 2,000-line
    // read's worker time.)
    unsafe { out.as_mut_vec() }.extend_from_slice(&buf[from..]);
}

/// The call's title (`describeCall`): what a progress list or an approval prompt shows.
pub fn title(args: &Map<String, Value>) -> String {
    let path = title::path(args, "path", "a file");
    let range = match (title::int(args, "offset"), title::int(args, "limit")) {
        (Some(o), _) if o < 0 => format!(" (last {} lines)", o.unsigned_abs()),
        (Some(o), Some(l)) if o >= 1 && l >= 1 => {
            format!(" (lines {o}–{})", o.saturating_add(l - 1))
        }
        (None, Some(l)) if l >= 1 => format!(" (lines 1–{l})"),
        (Some(o), None) if o > 1 => format!(" (from line {o})"),
        _ => String::new(),
    };
    format!("Read {path}{range}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Code;

    #[test]
    fn numbering_and_paging() {
        let c = "a\nb\nc\n";
        assert_eq!(
            render(c, 1, 2000, 131072, "f").unwrap(),
            "     1\ta\n     2\tb\n     3\tc"
        );
        assert_eq!(
            render(c, 1, 2, 131072, "f").unwrap(),
            "     1\ta\n     2\tb\n[... 2 of 3 lines shown; continue with offset=3 ...]"
        );
        assert_eq!(
            render(c, -2, 2000, 131072, "f").unwrap(),
            "     2\tb\n     3\tc"
        );
        assert_eq!(
            render(c, -10, 2000, 131072, "f").unwrap().lines().count(),
            3
        );
        assert_eq!(render("", 5, 1, 1024, "f").unwrap(), "(empty file)");
        assert_eq!(render("x", 1, 1, 1024, "f").unwrap(), "     1\tx");
    }

    #[test]
    fn row_prefixes_and_line_splitting() {
        for (n, want) in [
            (1, "     1\t"),
            (999_999, "999999\t"),
            (1_000_000, "1000000\t"),
            (u64::MAX, "18446744073709551615\t"),
        ] {
            let mut out = String::from(">");
            push_number(&mut out, n);
            assert_eq!(out, format!(">{want}"));
            assert_eq!(want, format!("{n:>6}\t"));
        }
        for text in ["", "a", "a\n", "a\n\n", "\n", "\n\nb", "a\nb", "é\n😀\nx"] {
            let mut want: Vec<&str> = text.split('\n').collect();
            if want.last() == Some(&"") {
                want.pop();
            }
            assert_eq!(split_lines(text), want, "{text:?}");
        }
    }

    #[test]
    fn offset_errors() {
        let e = render("a\nb\n", 0, 10, 1024, "f").unwrap_err();
        assert_eq!(e.code, Code::InvalidInput);
        assert_eq!(e.fields["path"], "f");
        let e = render("a\nb\n", 3, 10, 1024, "f").unwrap_err();
        assert_eq!(
            e.message,
            "offset 3 exceeds file line count 2; read from offset 1..2"
        );
        assert_eq!(e.fields["line_count"], 2);
    }

    #[test]
    fn long_lines_and_byte_budget() {
        let long = "x".repeat(2500);
        let out = render(&long, 1, 1, 131072, "f").unwrap();
        assert_eq!(out, format!("     1\t{}{LINE_MARKER}", "x".repeat(2000)));
        let emoji = "😀".repeat(1500); // 3000 UTF-16 units
        let out = render(&emoji, 1, 1, 131072, "f").unwrap();
        assert!(out.contains(&"😀".repeat(1000)) && !out.contains(&"😀".repeat(1001)));
        let many: String = (0..1000).map(|i| format!("line {i}\n")).collect();
        let out = render(&many, 1, 2000, 1024, "f").unwrap();
        let (body, footer) = out.rsplit_once('\n').unwrap();
        assert!(body.len() <= 1024);
        assert!(
            footer.starts_with("[... ")
                && footer.contains("of 1000 lines shown; continue with offset=")
        );
        let out = render(&"y".repeat(1500), 1, 1, 1024, "f").unwrap();
        assert!(out.len() <= 1024 && out.ends_with(LINE_MARKER));
    }
}
