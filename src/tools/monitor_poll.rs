//! `monitor_poll`: a monitor's new output since an offset, whether it still runs, its exit code.

use super::title;
use super::{object_schema, Annotations, Call, Handler, Output, ToolDef};
use crate::error::{Code, ToolError, ToolResult};
use crate::jsregex::JsRegex;
use crate::process::monitor;
use crate::schema::{bool_arg, int_arg, str_arg};
use serde_json::{json, Map, Value};

const DESCRIPTION: &str = "Read a background command's output (see monitor_start): JSON {running, output, next_offset, exit_code}. Pass the previous next_offset as `offset` to get only what is new; a line still being written is held back until it is complete. `match` (a JavaScript regex) keeps only the matching lines, e.g. `error|warn`. When more output is waiting than one page holds, the output ends with `[... more output buffered; continue with offset=N ...]`. exit_code is set once the process has exited on its own (null while running or after monitor_stop). For a monitor on a terminal (tty) the output is text as the screen shows it: escape sequences removed, a line redrawn with carriage returns (a progress bar) shown in its last state; `raw: true` returns the bytes as the program wrote them. Errors: monitor_not_found (unknown id: see monitor_list), invalid_input (bad match regex).";

/// The annotations of the monitor tools that only look (they still sit with the other
/// monitor tools, off the read-only surface, as in the original).
pub const LOOK: Annotations = Annotations {
    read_only: false,
    destructive: false,
    idempotent: true,
    open_world: false,
};

/// The `monitor_poll` tool definition.
pub fn def() -> ToolDef {
    ToolDef {
        name: "monitor_poll",
        description: DESCRIPTION,
        schema,
        bounded: true,
        annotations: LOOK,
        handler: Handler::Blocking(run),
        aborted: ToolError::aborted,
        syntax: false,
        unstaged: false,
    }
}

fn schema() -> Value {
    object_schema(
        json!({
            "id": { "type": "string", "description": "The monitor id from monitor_start (mon_…)." },
            "offset": { "type": "integer", "minimum": 0, "default": 0, "description": "Byte offset to read from: the next_offset of the previous poll (0 = from the start)." },
            "match": { "type": "string", "description": "JavaScript regex: keep only the lines that match." },
            "raw": { "type": "boolean", "description": "Terminal monitors: return the output with its escape sequences, as written (default: cleaned text)." }
        }),
        &["id"],
    )
}

/// `monitor_not_found` for an id with no (readable) sidecar.
pub fn not_found(id: &str) -> ToolError {
    ToolError::new(Code::MonitorNotFound, format!("No such monitor: {id}")).with("id", id)
}

/// How much of a failed sandboxed monitor's log the sandbox note looks at.
const NOTE_TAIL_BYTES: u64 = 64 * 1024;

fn run(call: &Call) -> ToolResult<Output> {
    let root = &call.config.workspace_root;
    let id = str_arg(&call.args, "id").unwrap_or_default();
    let s = monitor::load(root, id).ok_or_else(|| not_found(id))?;
    let filter = match str_arg(&call.args, "match") {
        Some(p) => Some(JsRegex::new(p, "").map_err(|e| {
            ToolError::invalid(format!("Invalid match regex: {e}")).with("match", p)
        })?),
        None => None,
    };
    let offset = u64::try_from(int_arg(&call.args, "offset").unwrap_or(0)).unwrap_or(0);
    let view = monitor::View {
        filter: filter.as_ref(),
        clean: s.input.terminal().is_some() && bool_arg(&call.args, "raw") != Some(true),
        partial: false,
    };
    let mut p = monitor::poll(root, &s, offset, call.config.max_output_bytes, view);
    judge_page(call, &s, &mut p, view.clean);
    Ok(Output::text(answer(&p, "")))
}

/// What every page of a monitor's output goes through before it is shown (`monitor_poll`,
/// `monitor_write`): the redaction learns the log around the page (a page is a slice of it:
/// a key's body is judged with the lines around, as text when the page is cleaned text), and
/// a sandboxed monitor that failed on a denial gets the sandbox's one line at the end of its
/// last page, as `bash` output does (judged on the log's tail, where the denial is).
pub fn judge_page(call: &Call, s: &monitor::Sidecar, p: &mut monitor::Polled, clean: bool) {
    let root = &call.config.workspace_root;
    call.runtime.terminals.delivered(&s.id, p.next_offset);
    let shown = |text: String| {
        if clean {
            crate::terminal::clean::clean(text.as_bytes())
        } else {
            text
        }
    };
    if call.redaction.is_on() {
        let source = monitor::around(root, &s.id, p.start, p.next_offset, 16 << 10);
        call.redaction.learn(&shown(source));
        super::sources::learn_command(call, &s.command, &s.cwd);
    }
    if let (Some(sandbox), true, Some(code)) = (&call.runtime.sandbox, p.at_end, p.exit_code) {
        if code != 0 {
            let tail = shown(monitor::tail(root, &s.id, NOTE_TAIL_BYTES));
            sandbox.end_with_note(&mut p.output, &tail);
        }
    }
    // Review mode: the last page of a captured monitor that ended says what was staged, as
    // `bash`'s stderr does.
    if p.at_end && !p.running {
        if let Some(line) = monitor::captured::note(root, s) {
            if !p.output.is_empty() && !p.output.ends_with('\n') {
                p.output.push('\n');
            }
            p.output.push_str(&line);
        }
    }
}

/// The answer's JSON, written straight from the page (up to `maxOutputBytes`: going through
/// a `Value` would copy it once more, and serde_json escapes a byte per step). Keys in the
/// original's order; `dropped` only when output was dropped, so the original's four keys stay
/// exact otherwise; then `extra` (`,"key":value…`, already JSON) for `monitor_write`.
pub fn answer(p: &monitor::Polled, extra: &str) -> String {
    use std::fmt::Write as _;
    let mut out = Vec::with_capacity(p.output.len() + p.output.len() / 16 + 128);
    out.extend_from_slice(if p.running {
        b"{\"running\":true,\"output\":"
    } else {
        b"{\"running\":false,\"output\":"
    });
    crate::jsonstr::push_str(&mut out, &p.output);
    let mut tail = format!(",\"next_offset\":{},\"exit_code\":", p.next_offset);
    match p.exit_code {
        Some(c) => write!(tail, "{c}"),
        None => write!(tail, "null"),
    }
    .unwrap_or(());
    if p.dropped > 0 {
        write!(tail, ",\"dropped\":{}", p.dropped).unwrap_or(());
    }
    tail.push_str(extra);
    tail.push('}');
    out.extend_from_slice(tail.as_bytes());
    // Only whole UTF-8 strings and ASCII went in.
    String::from_utf8(out).unwrap_or_default()
}

/// The call's title (`describeCall`): what a progress list or an approval prompt shows.
pub fn title(args: &Map<String, Value>) -> String {
    format!(
        "Check the output of {}",
        title::named(args, "id", "monitor")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answer_keeps_the_original_keys_and_adds_dropped_only_when_set() {
        let mut p = monitor::Polled {
            running: true,
            output: "a\"b\n".into(),
            next_offset: 5,
            exit_code: None,
            dropped: 0,
            start: 0,
            at_end: true,
        };
        let plain = answer(&p, "");
        assert_eq!(
            plain,
            json!({"running": true, "output": "a\"b\n", "next_offset": 5, "exit_code": null})
                .to_string()
        );
        p.dropped = 7;
        p.running = false;
        p.exit_code = Some(3);
        assert_eq!(
            answer(&p, ""),
            r#"{"running":false,"output":"a\"b\n","next_offset":5,"exit_code":3,"dropped":7}"#
        );
    }
}
