//! What a session shell reads for one call, and the report it writes back — pure text, no
//! I/O (see the module documentation of [`super`] for the design).
//!
//! Every word of ours is protected from what the user's earlier commands may have set:
//! builtins are called as `\command name` (no alias, no function of that name; a function
//! named `command` itself is removed first), `set`, `unset` and
//! `export` as `\set`/`\export` (special builtins: found before functions; the backslash
//! stops aliases), redirections use `>|` (`set -C` cannot refuse them), every expansion is
//! quoted (`IFS` and `set -f` change nothing), and nothing is left in a variable.

/// `s` as one single-quoted shell word (`'` becomes `'\''`).
pub fn quote(s: &str) -> String {
    let mut q = String::with_capacity(s.len() + 2);
    q.push('\'');
    for c in s.chars() {
        if c == '\'' {
            q.push_str("'\\''");
        } else {
            q.push(c);
        }
    }
    q.push('\'');
    q
}

/// One call's script.
pub struct Script<'a> {
    /// The user's command, run by `command eval` in the shell itself (so `cd`, `export`,
    /// functions and options stay; a syntax error is reported, not fatal).
    pub command: &'a str,
    /// The call's marker (`CLARVIS_CALL_ID`), inherited by everything the command starts.
    pub call_id: &'a str,
    /// A directory to change to first (`cwd`), as the shell names it.
    pub cd: Option<&'a str>,
    /// The call's stdout and stderr pipes (FIFOs), as the shell names them.
    pub out: &'a str,
    /// See `out`.
    pub err: &'a str,
    /// The random word that frames the report.
    pub nonce: &'a str,
    /// Whether `set -x` was on after the previous call: turned off around our own lines and
    /// back on for the command, so a trace shows the user's commands and nothing of ours.
    pub xtrace: bool,
}

impl Script<'_> {
    /// The text written to the shell's stdin. Our lines outside the group trace (with
    /// `set -x`) to the shell's own stderr, which is `/dev/null`.
    pub fn text(&self) -> String {
        let n = self.nonce;
        let eval = if self.xtrace {
            quote(&format!("set -x;{}", self.command))
        } else {
            quote(self.command)
        };
        let cd = match self.cd {
            Some(d) => format!(
                "\\command cd -- {} >/dev/null 2>|{} && ",
                quote(d),
                quote(self.err)
            ),
            None => String::new(),
        };
        format!(
            "{{ \\set +x; \\unset -f command; }} 2>/dev/null\n\\export CLARVIS_CALL_ID={id}\n\
             {cd}{{ \\command eval {eval}\n}} </dev/null >|{out} 2>|{err}\n\
             \\command printf '%s\\n' \"{n} $? $-\" \"$PWD\" '{n}-pwd'; \\export -p; \\command printf '%s\\n' '{n}-end'\n",
            id = quote(self.call_id),
            out = quote(self.out),
            err = quote(self.err),
        )
    }
}

/// What a fresh shell reads to take over a lost one's state: its exported variables (as
/// `export -p` printed them, re-read by `eval`) and its working directory.
pub fn restore(exports: Option<&str>, cwd: &str) -> String {
    let mut t = String::new();
    if let Some(e) = exports {
        t.push_str(&format!("\\command eval {} >/dev/null 2>&1\n", quote(e)));
    }
    t.push_str(&format!("\\command cd -- {} >/dev/null 2>&1\n", quote(cwd)));
    t
}

/// What the shell reported after a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// The command's exit status (`$?`).
    pub status: i32,
    /// The shell's option letters (`$-`).
    pub flags: String,
    /// The working directory (`$PWD`), bytes as the shell printed them.
    pub cwd: Vec<u8>,
    /// `export -p`, to restore a restarted shell (`None`: too large to keep).
    pub exports: Option<String>,
}

/// Takes one complete report framed by `nonce` from the start of `buf`: `Some((report,
/// bytes used))`, or `None` while it is incomplete. Bytes before the header (none are
/// expected) are skipped.
pub fn parse(buf: &[u8], nonce: &str) -> Option<(Report, usize)> {
    let head = format!("{nonce} ");
    let h = find(buf, head.as_bytes(), 0)?;
    let header_end = h + find(&buf[h..], b"\n", 0)?;
    let header = std::str::from_utf8(&buf[h + head.len()..header_end]).ok()?;
    let mut parts = header.split(' ');
    let status = parts.next()?.parse().ok()?;
    let flags = parts.next().unwrap_or("").to_string();
    let pwd_mark = format!("\n{nonce}-pwd\n");
    let p = find(buf, pwd_mark.as_bytes(), header_end)?;
    let cwd = buf[header_end + 1..p].to_vec();
    let exports_start = p + pwd_mark.len();
    let end_mark = format!("{nonce}-end\n");
    let mut from = exports_start;
    let e = loop {
        let e = find(buf, end_mark.as_bytes(), from)?;
        if e == exports_start || buf[e - 1] == b'\n' {
            break e;
        }
        from = e + 1;
    };
    let exports = Some(String::from_utf8_lossy(&buf[exports_start..e]).into_owned());
    Some((
        Report {
            status,
            flags,
            cwd,
            exports,
        },
        e + end_mark.len(),
    ))
}

/// Where the exports of the report framed by `nonce` start in `buf`, once its header and
/// working directory are there.
pub fn exports_start(buf: &[u8], nonce: &str) -> Option<usize> {
    let h = find(buf, format!("{nonce} ").as_bytes(), 0)?;
    let mark = format!("\n{nonce}-pwd\n");
    find(buf, mark.as_bytes(), h).map(|p| p + mark.len())
}

/// The first `needle` in `hay` at or after `from`.
fn find(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    if from > hay.len() {
        return None;
    }
    hay[from..]
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|i| i + from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quote_survives_every_quote() {
        assert_eq!(quote("a'b"), "'a'\\''b'");
        assert_eq!(quote(""), "''");
    }

    #[test]
    fn a_report_is_taken_whole_and_only_whole() {
        let n = "N0";
        let text = "N0 3 hB\n/tmp/a\nb\nN0-pwd\nexport A='1\nN0-end'\nexport B=2\nN0-end\nrest";
        // The end mark counts only at the start of a line.
        let (r, used) = parse(text.as_bytes(), n).unwrap();
        assert_eq!(r.status, 3);
        assert_eq!(r.flags, "hB");
        assert_eq!(r.cwd, b"/tmp/a\nb");
        assert!(r.exports.unwrap().starts_with("export A="));
        assert_eq!(&text[used..], "rest");
        for cut in 0..text.len() - 4 {
            let p = parse(&text.as_bytes()[..cut], n);
            assert!(
                p.is_none() || p.unwrap().1 <= cut,
                "a cut report at {cut} is never complete beyond the cut"
            );
        }
        assert!(parse(b"N0 0 \n/\nN0-pwd\n", n).is_none());
        let (r, _) = parse(b"N0 0 \n/\nN0-pwd\nN0-end\n", n).unwrap();
        assert_eq!(
            (r.cwd.as_slice(), r.exports.as_deref()),
            (&b"/"[..], Some(""))
        );
    }
}
