//! `monitor_write`: one turn with an interactive program — send input (text, named keys, end
//! of input, a resize) to a monitor's terminal or stdin pipe, and return what it answers
//! within a settle window.

use super::monitor_poll::{answer, judge_page, not_found};
use super::title;
use super::{object_schema, Annotations, Call, Handler, Output, ToolDef};
use crate::error::{Code, ToolError, ToolResult};
use crate::jsregex::JsRegex;
use crate::process::monitor::{self, Input, Sidecar};
use crate::schema::{bool_arg, int_arg, str_arg};
use crate::terminal::{self, input::Writer, keys, Size};
use serde_json::{json, Map, Value};
use std::path::Path;
use std::time::{Duration, Instant};

const DESCRIPTION: &str = "Send input to an interactive program started with monitor_start (tty: true, or stdin: true) and get its answer: one call is one turn — answer a prompt, run a line in a REPL (python3, node, psql), step a debugger. `input` is text as typed; on a terminal end a line with \"\\r\" (Enter), on a stdin pipe with \"\\n\"; JSON escapes send control characters (\"\\u0003\" Ctrl-C, \"\\u001b[A\" Up). `keys` sends named keys after the input (terminal only): enter, tab, esc, backspace, delete, up, down, left, right, home, end, pageup, pagedown, f1–f12, ctrl-<letter> (ctrl-c interrupts, ctrl-d ends input, ctrl-z suspends), alt-<key>. `close: true` ends the input: the stdin pipe is closed, a terminal gets Ctrl-D. `resize: {cols, rows}` resizes the terminal first. The call then waits `wait_ms` (default 300, max 30000), or less: until the output matches `until` (a JavaScript regex, e.g. the prompt `>>> $` or `\\$ $`) or the program exits, and returns JSON {running, output, next_offset, exit_code} with the output since the input was sent — sending nothing, the output no earlier answer showed (a prompt already printed is there) — (on a terminal as text, escapes removed; raw: true keeps them), plus `matched` with until. Send nothing to just wait for more output. At most 65536 bytes of input per call; a program that does not read its input takes only part: `unwritten` says how many bytes were not sent. For a full-screen program (top, vim, less) read the screen with monitor_screen. Errors: monitor_not_found (unknown id), not_running (the program exited: exit_code given), invalid_input (no terminal or stdin, keys or resize without a terminal, unknown key, input too long, bad until regex).";

/// The most input one call sends (text, keys and the end-of-file character together).
pub const MAX_INPUT_BYTES: usize = 65_536;

/// The settle window when `wait_ms` is absent.
pub const DEFAULT_WAIT_MS: u64 = 300;

/// The longest settle window.
pub const MAX_WAIT_MS: u64 = 30_000;

/// The `monitor_write` tool definition.
pub fn def() -> ToolDef {
    ToolDef {
        name: "monitor_write",
        description: DESCRIPTION,
        schema,
        bounded: true,
        annotations: Annotations {
            read_only: false,
            destructive: true,
            idempotent: false,
            open_world: true,
        },
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
            "input": { "type": "string", "description": "Text to send, as typed: \"print(1)\\r\" on a terminal, \"yes\\n\" on a stdin pipe." },
            "keys": { "type": "array", "items": { "type": "string" }, "maxItems": 256, "description": "Named keys sent after input (terminal only), e.g. [\"ctrl-c\"], [\"down\", \"enter\"]." },
            "close": { "type": "boolean", "description": "End the input after sending: close the stdin pipe, or Ctrl-D on a terminal." },
            "resize": {
                "type": "object",
                "description": "Resize the terminal first (terminal only).",
                "properties": {
                    "cols": { "type": "integer", "minimum": terminal::MIN_SIDE, "maximum": terminal::MAX_COLS },
                    "rows": { "type": "integer", "minimum": terminal::MIN_SIDE, "maximum": terminal::MAX_ROWS }
                },
                "required": ["cols", "rows"],
                "additionalProperties": false
            },
            "wait_ms": { "type": "integer", "minimum": 0, "maximum": MAX_WAIT_MS, "description": "How long to collect the answer, in ms (default 300)." },
            "until": { "type": "string", "description": "JavaScript regex: stop waiting as soon as the output since the input matches it (e.g. a prompt)." },
            "raw": { "type": "boolean", "description": "Terminal monitors: return the output with its escape sequences (default: cleaned text)." }
        }),
        &["id"],
    )
}

/// What one call sends, validated.
struct Request {
    bytes: Vec<u8>,
    close: bool,
    resize: Option<Size>,
}

fn invalid(message: String, id: &str) -> ToolError {
    ToolError::invalid(message).with("id", id)
}

fn run(call: &Call) -> ToolResult<Output> {
    let root = &call.config.workspace_root;
    let id = str_arg(&call.args, "id").unwrap_or_default();
    let mut s = monitor::load(root, id).ok_or_else(|| not_found(id))?;
    let until = match str_arg(&call.args, "until") {
        Some(p) => Some(JsRegex::new(p, "").map_err(|e| {
            ToolError::invalid(format!("Invalid until regex: {e}")).with("until", p)
        })?),
        None => None,
    };
    let entry = call.runtime.terminals.get(id);
    let writer = entry.as_ref().and_then(|e| e.input.as_ref());
    let req = request(call, &s, entry.as_deref())?;
    if !monitor::running(root, &s) {
        return Err(not_running(root, &s));
    }
    let sends = !req.bytes.is_empty() || req.close || req.resize.is_some();
    let writer = match (sends, writer) {
        (false, _) => None,
        (true, Some(w)) => Some(w),
        (true, None) => return Err(detached(&s)),
    };
    // An answer is what came after the input; with nothing to send, it is what this object
    // has not shown yet (a prompt printed before the call is the answer to wait for).
    let end = monitor::end_offset(root, id);
    let start = match sends {
        true => end,
        false => call
            .runtime
            .terminals
            .unread_from(id)
            .map_or(end, |d| d.min(end)),
    };
    let wait = int_arg(&call.args, "wait_ms")
        .map_or(DEFAULT_WAIT_MS, |ms| u64::try_from(ms).unwrap_or(0))
        .min(MAX_WAIT_MS);
    let deadline = Instant::now() + Duration::from_millis(wait);
    let mut unwritten = 0;
    if let Some(w) = writer {
        unwritten = send(root, &mut s, w, req, deadline, call)?;
    }
    let clean = s.input.terminal().is_some() && bool_arg(&call.args, "raw") != Some(true);
    let view = monitor::View {
        filter: None,
        clean,
        partial: true,
    };
    let matched = settle_window(call, &s, start, deadline, view, until.as_ref());
    if call.cancel.is_cancelled() {
        return Err(ToolError::new(
            Code::Aborted,
            format!("Operation aborted (run cancelled); the input was sent and {id} still runs: monitor_poll with offset={start} reads its answer"),
        )
        .with("id", id)
        .with("next_offset", start));
    }
    let mut p = monitor::poll(root, &s, start, call.config.max_output_bytes, view);
    judge_page(call, &s, &mut p, clean);
    let matched = until
        .as_ref()
        .map(|re| matched || re.is_match(&p.output) == Ok(true));
    let mut extra = String::new();
    if let Some(m) = matched {
        extra.push_str(&format!(",\"matched\":{m}"));
    }
    if unwritten > 0 {
        extra.push_str(&format!(",\"unwritten\":{unwritten}"));
    }
    Ok(Output::text(answer(&p, &extra)))
}

/// Checks the fields against the monitor's input and builds the bytes to send.
fn request(call: &Call, s: &Sidecar, entry: Option<&terminal::Entry>) -> ToolResult<Request> {
    let id = s.id.as_str();
    let input = str_arg(&call.args, "input").unwrap_or_default();
    let names: Vec<&str> = call
        .args
        .get("keys")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let close = bool_arg(&call.args, "close") == Some(true);
    let resize = call.args.get("resize").and_then(|r| {
        Some(Size {
            cols: u16::try_from(r.get("cols")?.as_u64()?).ok()?,
            rows: u16::try_from(r.get("rows")?.as_u64()?).ok()?,
        })
    });
    let terminal = s.input.terminal().is_some();
    if !terminal && (!names.is_empty() || resize.is_some()) {
        return Err(invalid(
            format!("{id} has no terminal (it was started without tty): keys and resize need one. Send text with input (end a line with \"\\n\"), or start the program again with monitor_start tty: true"),
            id,
        ));
    }
    if s.input == Input::Null && (!input.is_empty() || close) {
        return Err(invalid(
            format!("{id} takes no input: it was started without tty or stdin, so its stdin is empty. Start the program again with monitor_start tty: true (a terminal: prompts, REPLs) or stdin: true (a pipe)"),
            id,
        ));
    }
    let mut bytes = input.as_bytes().to_vec();
    if !names.is_empty() {
        let app_cursor = entry.is_some_and(|e| {
            let mut slot = e.screen.lock().unwrap_or_else(|p| p.into_inner());
            monitor::screen::refresh(&call.config.workspace_root, s, &mut slot).application_cursor()
        });
        for name in names {
            let key = keys::bytes(name, app_cursor).ok_or_else(|| {
                invalid(
                    format!("Unknown key \"{name}\". Known keys: {}", keys::NAMES),
                    id,
                )
                .with("key", name)
            })?;
            bytes.extend(key);
        }
    }
    if bytes.len() > MAX_INPUT_BYTES {
        return Err(invalid(
            format!("Input is {} bytes; monitor_write sends at most {MAX_INPUT_BYTES} per call: send it in parts (on a terminal a line holds at most 4095 bytes)", bytes.len()),
            id,
        )
        .with("size", bytes.len())
        .with("limit", MAX_INPUT_BYTES));
    }
    Ok(Request {
        bytes,
        close,
        resize,
    })
}

/// `not_running`, with the exit code (null after a kill).
fn not_running(root: &Path, s: &Sidecar) -> ToolError {
    monitor::settle(root, s);
    let code = monitor::exit_status(root, &s.id).flatten();
    let how = code.map_or(
        "was killed or its exit status is unknown".to_string(),
        |c| format!("exited with code {c}"),
    );
    ToolError::new(
        Code::NotRunning,
        format!(
            "{} is not running ({how}): it takes no more input. Read its last output with monitor_poll, remove it with monitor_stop",
            s.id
        ),
    )
    .with("id", s.id.as_str())
    .with("exit_code", code)
}

/// The monitor has an input, but another tools object (or a host that has exited) holds it.
fn detached(s: &Sidecar) -> ToolError {
    invalid(
        format!("{}'s input is held by the tools object that started it, not this one (another session, or the host restarted): input cannot be sent. monitor_poll and monitor_screen still read it; monitor_stop ends it", s.id),
        &s.id,
    )
}

/// Resizes, writes and closes as asked; returns how many bytes did not go in by `deadline`.
fn send(
    root: &Path,
    s: &mut Sidecar,
    w: &Writer,
    req: Request,
    deadline: Instant,
    call: &Call,
) -> ToolResult<usize> {
    let id = s.id.clone();
    let io = |e: std::io::Error| {
        ToolError::new(
            Code::IoError,
            format!("Failed to write to {id}: {}", crate::error::io_detail(&e)),
        )
        .with("id", id.as_str())
    };
    if let Some(size) = req.resize {
        w.resize(size).map_err(io)?;
        if let Input::Terminal { size: kept, .. } = &mut s.input {
            *kept = size;
        }
        // Every reader of the screen (this object or another) takes the size from here.
        monitor::save(root, s).map_err(io)?;
    }
    let mut bytes = req.bytes;
    let terminal = w.kind() == terminal::input::Kind::Terminal;
    if req.close && terminal {
        bytes.push(w.eof_char());
    }
    if req.close && !terminal && w.is_closed() && bytes.is_empty() {
        return Ok(0);
    }
    let cancelled = || call.cancel.is_cancelled();
    let written = w.write(&bytes, deadline, &cancelled).map_err(io)?;
    if written.gone && !bytes.is_empty() {
        if !monitor::running(root, s) {
            return Err(not_running(root, s));
        }
        let what = if terminal {
            "its terminal is closed"
        } else {
            "its stdin is closed (close: true was sent, or the program closed it)"
        };
        return Err(invalid(format!("Cannot write to {}: {what}", s.id), &s.id));
    }
    if req.close && !terminal {
        w.close_pipe();
    }
    Ok(bytes.len() - written.bytes)
}

/// How long to sleep between looks at the log: short at first, when an answer is likeliest
/// (a keystroke's echo takes well under a millisecond), longer as the wait goes on.
fn pause(waited: Duration) -> Duration {
    if waited < Duration::from_millis(20) {
        Duration::from_micros(200)
    } else if waited < Duration::from_millis(500) {
        Duration::from_millis(1)
    } else {
        Duration::from_millis(5)
    }
}

/// Waits until `deadline`, the program's exit, a match of `until` or the call's cancellation,
/// streaming the output (within one page) to `onOutput` as it arrives. Returns whether
/// `until` matched.
fn settle_window(
    call: &Call,
    s: &Sidecar,
    start: u64,
    deadline: Instant,
    view: monitor::View<'_>,
    until: Option<&JsRegex>,
) -> bool {
    let root = &call.config.workspace_root;
    let max = call.config.max_output_bytes;
    let mut live = call
        .on_output
        .clone()
        .map(|sink| monitor::Stream::new(view.clean, sink, start));
    let began = Instant::now();
    let mut seen = start;
    let mut matched = false;
    let cancelled = || call.cancel.is_cancelled();
    loop {
        let alive = monitor::running(root, s);
        let end = monitor::end_offset(root, &s.id);
        // Output past one page is not looked at: the answer holds one page.
        let grew = end > seen && seen < start + max;
        if grew {
            seen = end;
            if let Some(l) = live.as_mut() {
                l.pump(root, &s.id, end.min(start + max));
            }
            if let Some(re) = until {
                let text = monitor::poll(root, s, start, max, view).output;
                matched = re.is_match_until(&text, &cancelled) == Ok(true);
            }
        }
        if matched || !alive || Instant::now() >= deadline || cancelled() {
            break;
        }
        std::thread::sleep(
            pause(began.elapsed()).min(deadline.saturating_duration_since(Instant::now())),
        );
    }
    if let Some(l) = live {
        l.finish(
            root,
            &s.id,
            monitor::end_offset(root, &s.id).min(start + max),
        );
    }
    matched
}

/// The call's title (`describeCall`): what is typed (control characters shown as `⏎`, `⇥`,
/// `^C`), the keys pressed, the end of input, a resize — or a wait when nothing is sent.
pub fn title(args: &Map<String, Value>) -> String {
    let mut parts = Vec::new();
    if let Some(input) = title::text(args, "input") {
        parts.push(format!("type {}", title::quoted(&visible(input))));
    }
    let keys = title::strings(args, "keys");
    if !keys.is_empty() {
        parts.push(format!("press {}", keys.join(" ")));
    }
    if args.get("close").and_then(Value::as_bool) == Some(true) {
        parts.push("end the input".to_string());
    }
    if let Some(r) = args.get("resize") {
        let side = |k| r.get(k).and_then(Value::as_u64).unwrap_or(0);
        parts.push(format!("resize to {}×{}", side("cols"), side("rows")));
    }
    let monitor = title::named(args, "id", "monitor");
    if parts.is_empty() {
        return format!("Wait for the answer of {monitor}");
    }
    let what = parts.join(", ");
    let mut first = what.chars();
    let what: String = first
        .next()
        .map(|c| c.to_uppercase().chain(first).collect())
        .unwrap_or_default();
    format!("{what} in {monitor}")
}

/// Typed text as a person reads it: Enter as `⏎`, Tab as `⇥`, other control characters in
/// caret notation (`^C`, `^[`).
fn visible(input: &str) -> String {
    let mut out = String::with_capacity(input.len());
    for c in input.chars() {
        match c {
            '\r' | '\n' => out.push('⏎'),
            '\t' => out.push('⇥'),
            c if (c as u32) < 0x20 => {
                out.push('^');
                out.push(char::from(b'@' + c as u8));
            }
            '\u{7f}' => out.push_str("^?"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(args: Value) -> String {
        title(args.as_object().unwrap())
    }

    #[test]
    fn the_title_shows_what_is_typed_as_a_person_reads_it() {
        assert_eq!(
            t(json!({"id": "mon_1", "input": "print(1)\r"})),
            "Type \"print(1)⏎\" in monitor mon_1"
        );
        assert_eq!(
            t(json!({"id": "mon_1", "input": "a\tb\u{3}\u{1b}[A\u{7f}"})),
            "Type \"a⇥b^C^[[A^?\" in monitor mon_1"
        );
        assert_eq!(
            t(json!({"id": "mon_1", "keys": ["ctrl-c", "enter"], "close": true})),
            "Press ctrl-c enter, end the input in monitor mon_1"
        );
        assert_eq!(
            t(json!({"id": "mon_1", "resize": {"cols": 100, "rows": 30}})),
            "Resize to 100×30 in monitor mon_1"
        );
        assert_eq!(
            t(json!({"id": "mon_1"})),
            "Wait for the answer of monitor mon_1"
        );
        assert_eq!(t(json!({})), "Wait for the answer of a monitor");
    }
}
