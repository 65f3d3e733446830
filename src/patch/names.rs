//! File names in patch headers: `a/`/`b/` prefixes, tabs, `/dev/null`, git's C quoting.

/// The path a `---`/`+++` header names: `None` for `/dev/null` or an empty name.
pub fn header_path(raw: &str) -> Option<String> {
    let raw = raw.trim_start();
    let name = if raw.starts_with('"') {
        unquote(raw)
    } else {
        raw.split('\t').next().unwrap_or("").trim_end().to_string()
    };
    if name.is_empty() || name == "/dev/null" {
        return None;
    }
    let stripped = name
        .strip_prefix("a/")
        .or_else(|| name.strip_prefix("b/"))
        .unwrap_or(&name);
    if stripped.is_empty() {
        return None;
    }
    Some(stripped.to_string())
}

pub(super) fn display_name(raw: &str) -> String {
    header_path(raw).unwrap_or_else(|| raw.trim().to_string())
}

/// The two names of a `diff --git a/x b/y` line, prefixes stripped. Unquoted names with
/// spaces are ambiguous; the split that makes both names equal wins, then the first ` b/`.
pub(super) fn git_names(rest: &str) -> Option<(String, String)> {
    let strip = |s: &str| -> String {
        s.strip_prefix("a/")
            .or_else(|| s.strip_prefix("b/"))
            .unwrap_or(s)
            .to_string()
    };
    if rest.starts_with('"') {
        let (first, used) = unquote_prefix(rest)?;
        let second = rest[used..].trim_start();
        let second = if second.starts_with('"') {
            unquote(second)
        } else {
            second.to_string()
        };
        return Some((strip(&first), strip(&second)));
    }
    let candidates: Vec<usize> = rest.match_indices(" b/").map(|(i, _)| i).collect();
    let pick = candidates
        .iter()
        .copied()
        .find(|&i| strip(&rest[..i]) == strip(&rest[i + 1..]))
        .or_else(|| candidates.first().copied())?;
    let second = rest[pick + 1..].trim();
    let second = if second.starts_with('"') {
        unquote(second)
    } else {
        second.to_string()
    };
    Some((strip(&rest[..pick]), strip(&second)))
}

/// Unquotes a C-quoted name (`"a\tb\303\251"`); a name without quotes is returned trimmed.
pub fn unquote(raw: &str) -> String {
    match unquote_prefix(raw) {
        Some((s, _)) => s,
        None => raw.trim_end().to_string(),
    }
}

/// Parses a leading C-quoted string; returns it and the bytes consumed.
fn unquote_prefix(raw: &str) -> Option<(String, usize)> {
    let bytes = raw.as_bytes();
    if bytes.first() != Some(&b'"') {
        return None;
    }
    let mut out = Vec::new();
    let mut i = 1;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => return Some((String::from_utf8_lossy(&out).into_owned(), i + 1)),
            b'\\' if i + 1 < bytes.len() => {
                let c = bytes[i + 1];
                i += 2;
                let decoded = match c {
                    b'a' => 7,
                    b'b' => 8,
                    b't' => b'\t',
                    b'n' => b'\n',
                    b'v' => 11,
                    b'f' => 12,
                    b'r' => b'\r',
                    b'0'..=b'7' => {
                        let mut v = u32::from(c - b'0');
                        let mut n = 1;
                        while n < 3 && i < bytes.len() && (b'0'..=b'7').contains(&bytes[i]) {
                            v = v * 8 + u32::from(bytes[i] - b'0');
                            i += 1;
                            n += 1;
                        }
                        (v & 0xFF) as u8
                    }
                    other => other,
                };
                out.push(decoded);
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    None
}
