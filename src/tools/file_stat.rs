//! `file_stat`: what a path is — type, size, mtime, mode, link target, binary, image type —
//! as compact JSON, from `lstat` (a final symlink is described, never followed).

use super::title;
use super::{object_schema, read_annotations, Call, Handler, Output, ToolDef};
use crate::error::{ToolError, ToolResult};
use crate::schema::str_arg;
use crate::{image, text, workspace};
use serde_json::{json, Map, Value};
use std::io::Read;

const DESCRIPTION: &str = "Describe one path without reading it: JSON {path, type (file|directory|symlink|other), size (bytes), mtime (ISO-8601), mode (octal permission bits such as \"0644\")}, plus symlink_target for a symlink (the link itself is described, never followed) and, for a file, binary (true when its first 8 KB contain a NUL byte; UTF-16 files count as binary) and mime (image/png, image/jpeg, image/gif or image/webp when it is an image, else null). Only an 8 KB head is read, so it works on files of any size. Use it to check whether a file exists, how big it is or when it changed before reading or editing it; use list_dir or tree to see many entries at once, read_file to read text. Errors: not_found (nothing at that path: check it with list_dir or glob), path_escape (stay inside the workspace), io_error.";

/// Bytes read from a file's head for `binary` and `mime`.
const HEAD_BYTES: usize = 8192;

/// The `file_stat` tool definition.
pub fn def() -> ToolDef {
    ToolDef {
        name: "file_stat",
        description: DESCRIPTION,
        schema,
        bounded: false,
        annotations: read_annotations(),
        handler: Handler::Blocking(run),
        aborted: ToolError::aborted,
        syntax: false,
        unstaged: false,
    }
}

fn schema() -> Value {
    object_schema(
        json!({
            "path": { "type": "string", "description": "The path to describe, relative to the workspace root or absolute." }
        }),
        &["path"],
    )
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ` for milliseconds since the epoch (UTC), as JavaScript's
/// `Date.prototype.toISOString` writes it for years 0–9999.
pub fn iso8601(ms: i64) -> String {
    let days = ms.div_euclid(86_400_000);
    let rem = ms.rem_euclid(86_400_000);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3_600_000,
        rem / 60_000 % 60,
        rem / 1000 % 60,
        rem % 1000
    )
}

fn run(call: &Call) -> ToolResult<Output> {
    let input = str_arg(&call.args, "path").unwrap_or_default();
    let abs = workspace::resolve(&call.config, input)?;
    let meta =
        workspace::overlay::lstat(&call.config, &abs).map_err(|e| ToolError::fs(&e, input))?;
    let ft = meta.file_type();
    let kind = if ft.is_symlink() {
        "symlink"
    } else if ft.is_dir() {
        "directory"
    } else if ft.is_file() {
        "file"
    } else {
        "other"
    };
    // Node's `stats.mtime` rounds the nanoseconds to the nearest millisecond.
    let (secs, nanos) = crate::fsmeta::mtime(&meta);
    let ms = secs * 1000 + (nanos + 500_000) / 1_000_000;
    let mut out = Map::new();
    out.insert("path".into(), workspace::display(&call.config, &abs).into());
    out.insert("type".into(), kind.into());
    out.insert("size".into(), meta.len().into());
    out.insert("mtime".into(), iso8601(ms).into());
    out.insert(
        "mode".into(),
        format!("0{:03o}", crate::fsmeta::mode(&meta) & 0o777).into(),
    );
    if ft.is_symlink() {
        let target = std::fs::read_link(&abs)
            .ok()
            .map(|t| Value::from(t.to_string_lossy().into_owned()));
        out.insert("symlink_target".into(), target.unwrap_or(Value::Null));
    } else if ft.is_file() && !crate::fsmeta::is_special(&meta) {
        let head = read_head(call, &abs, input)?;
        let utf16 = matches!(
            text::detect_bom(&head),
            text::Encoding::Utf16Le | text::Encoding::Utf16Be
        );
        out.insert("binary".into(), (utf16 || head.contains(&0)).into());
        out.insert(
            "mime".into(),
            image::sniff(&head).map_or(Value::Null, Value::from),
        );
    }
    Ok(Output::text(Value::Object(out).to_string()))
}

/// The first [`HEAD_BYTES`] of a regular file, read through a confined descriptor.
fn read_head(call: &Call, abs: &std::path::Path, input: &str) -> ToolResult<Vec<u8>> {
    let file = workspace::open_confined(&call.config, abs, input)?;
    let mut head = Vec::with_capacity(HEAD_BYTES);
    (&file)
        .take(HEAD_BYTES as u64)
        .read_to_end(&mut head)
        .map_err(|e| ToolError::fs(&e, input))?;
    Ok(head)
}

/// The call's title (`describeCall`): what a progress list or an approval prompt shows.
pub fn title(args: &Map<String, Value>) -> String {
    format!("Inspect {}", title::path(args, "path", "a file"))
}

#[cfg(test)]
mod tests {
    use super::iso8601;

    #[test]
    fn iso_dates_like_javascript() {
        assert_eq!(iso8601(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso8601(1_783_166_400_123), "2026-07-04T12:00:00.123Z");
        assert_eq!(iso8601(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(iso8601(-1), "1969-12-31T23:59:59.999Z");
    }
}
