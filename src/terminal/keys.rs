//! Named keys (`monitor_write`'s `keys`): what a terminal sends when the key is pressed.
//!
//! Names are case-insensitive; `ctrl-`, `ctrl+`, `c-` and `^` spell Ctrl, `alt-`, `meta-` and
//! `m-` spell Alt (ESC before the key, as xterm sends it). The cursor keys follow the
//! terminal's mode: in application cursor mode (`ESC [ ? 1 h`, set by full-screen programs
//! and readline's vi mode) they are `ESC O A`…, otherwise `ESC [ A`….

/// Every plain key name, for the error message of an unknown one.
pub const NAMES: &str = "enter (return), tab, shift-tab (backtab), esc (escape), backspace, delete (del), insert, space, up, down, left, right, home, end, pageup, pagedown, f1–f12, ctrl-a … ctrl-z, ctrl-@ ctrl-[ ctrl-\\ ctrl-] ctrl-^ ctrl-_, alt-<key>";

/// The bytes of key `name`, or `None` when it is not a key this knows. `app_cursor`: the
/// terminal is in application cursor mode.
pub fn bytes(name: &str, app_cursor: bool) -> Option<Vec<u8>> {
    let lower = name.trim().to_ascii_lowercase();
    if let Some(rest) = ["alt-", "alt+", "meta-", "meta+", "m-"]
        .iter()
        .find_map(|p| lower.strip_prefix(p))
    {
        let mut out = vec![0x1b];
        out.extend(single(rest, app_cursor).or_else(|| literal(rest))?);
        return Some(out);
    }
    single(&lower, app_cursor)
}

/// A one-character key after `alt-` (`alt-x`, `alt-.`): the character itself.
fn literal(rest: &str) -> Option<Vec<u8>> {
    let mut chars = rest.chars();
    let c = chars.next()?;
    chars.next().is_none().then(|| c.to_string().into_bytes())
}

fn single(name: &str, app_cursor: bool) -> Option<Vec<u8>> {
    if let Some(rest) = ["ctrl-", "ctrl+", "control-", "c-", "^"]
        .iter()
        .find_map(|p| name.strip_prefix(p))
    {
        return ctrl(rest).map(|b| vec![b]);
    }
    let cursor = |c: u8| {
        if app_cursor {
            vec![0x1b, b'O', c]
        } else {
            vec![0x1b, b'[', c]
        }
    };
    let csi = |s: &str| {
        let mut v = vec![0x1b, b'['];
        v.extend_from_slice(s.as_bytes());
        v
    };
    Some(match name {
        "enter" | "return" | "cr" => vec![b'\r'],
        "tab" => vec![b'\t'],
        "shift-tab" | "shift+tab" | "backtab" => csi("Z"),
        "esc" | "escape" => vec![0x1b],
        "backspace" | "bs" => vec![0x7f],
        "delete" | "del" => csi("3~"),
        "insert" | "ins" => csi("2~"),
        "space" => vec![b' '],
        "up" => cursor(b'A'),
        "down" => cursor(b'B'),
        "right" => cursor(b'C'),
        "left" => cursor(b'D'),
        "home" => cursor(b'H'),
        "end" => cursor(b'F'),
        "pageup" | "page-up" | "pgup" => csi("5~"),
        "pagedown" | "page-down" | "pgdn" => csi("6~"),
        "f1" => b"\x1bOP".to_vec(),
        "f2" => b"\x1bOQ".to_vec(),
        "f3" => b"\x1bOR".to_vec(),
        "f4" => b"\x1bOS".to_vec(),
        "f5" => csi("15~"),
        "f6" => csi("17~"),
        "f7" => csi("18~"),
        "f8" => csi("19~"),
        "f9" => csi("20~"),
        "f10" => csi("21~"),
        "f11" => csi("23~"),
        "f12" => csi("24~"),
        _ => return None,
    })
}

/// Ctrl with a character: the letter's control code (`ctrl-c` = 0x03), and the five
/// punctuation controls; `ctrl-space` and `ctrl-@` are NUL.
fn ctrl(rest: &str) -> Option<u8> {
    let b = match rest {
        "space" | "@" => return Some(0),
        _ if rest.len() == 1 => rest.as_bytes()[0],
        _ => return None,
    };
    match b {
        b'a'..=b'z' => Some(b - b'a' + 1),
        b'[' => Some(0x1b),
        b'\\' => Some(0x1c),
        b']' => Some(0x1d),
        b'^' => Some(0x1e),
        b'_' => Some(0x1f),
        b'?' => Some(0x7f),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::bytes;

    #[test]
    fn keys_send_what_a_terminal_sends() {
        let k = |n| bytes(n, false).unwrap();
        assert_eq!(k("ctrl-c"), b"\x03");
        assert_eq!(k("Ctrl+C"), b"\x03");
        assert_eq!(k("^d"), b"\x04");
        assert_eq!(k("ctrl-z"), b"\x1a");
        assert_eq!(k("ctrl-\\"), b"\x1c");
        assert_eq!(k("ctrl-space"), b"\x00");
        assert_eq!(k("enter"), b"\r");
        assert_eq!(k("tab"), b"\t");
        assert_eq!(k("esc"), b"\x1b");
        assert_eq!(k("up"), b"\x1b[A");
        assert_eq!(bytes("up", true).unwrap(), b"\x1bOA");
        assert_eq!(k("backspace"), b"\x7f");
        assert_eq!(k("pagedown"), b"\x1b[6~");
        assert_eq!(k("f5"), b"\x1b[15~");
        assert_eq!(k("alt-b"), b"\x1bb");
        assert_eq!(k("alt-left"), b"\x1b\x1b[D");
        assert_eq!(k("shift-tab"), b"\x1b[Z");
    }

    #[test]
    fn unknown_names_are_refused() {
        for bad in [
            "", "ctrl-", "ctrl-1", "ctrl-cc", "f13", "hyper-x", "alt-", "alt-ab", "enterr",
        ] {
            assert_eq!(bytes(bad, false), None, "{bad}");
        }
    }
}
