//! What `CreateProcessW` takes instead of an argument vector and an environment map: one
//! command line, quoted so the program's C runtime splits it back into the same arguments,
//! and one environment block. Portable so its rules are tested everywhere; used by the
//! Windows pseudo console (`super::conpty`), where std's `Command` cannot go (it has no
//! stable way to pass the pseudo console attribute).

use std::ffi::{OsStr, OsString};

/// `args` as one command line, each argument quoted by the rules of the Microsoft C runtime's
/// `CommandLineToArgvW` (which Git for Windows' MSYS2 runtime follows too): an argument
/// without space, tab, newline or quote goes as is; otherwise it is put in quotes, each quote
/// is preceded by a backslash, and the backslashes before a quote — or before the closing
/// quote — are doubled.
pub fn command_line<S: AsRef<OsStr>>(args: &[S]) -> OsString {
    let mut line = OsString::new();
    for (i, arg) in args.iter().enumerate() {
        if i > 0 {
            line.push(" ");
        }
        line.push(quote(&arg.as_ref().to_string_lossy()));
    }
    line
}

fn quote(arg: &str) -> String {
    if !arg.is_empty() && !arg.contains([' ', '\t', '\n', '\u{b}', '"']) {
        return arg.to_string();
    }
    let mut out = String::with_capacity(arg.len() + 2);
    out.push('"');
    let mut backslashes = 0;
    for c in arg.chars() {
        match c {
            '\\' => backslashes += 1,
            '"' => {
                out.extend(std::iter::repeat_n('\\', backslashes * 2 + 1));
                out.push('"');
                backslashes = 0;
            }
            _ => {
                out.extend(std::iter::repeat_n('\\', backslashes));
                out.push(c);
                backslashes = 0;
            }
        }
    }
    out.extend(std::iter::repeat_n('\\', backslashes * 2));
    out.push('"');
    out
}

/// The environment of this process with `set` added (replacing a variable of the same name,
/// compared without case as Windows does) and `remove` taken out, sorted by name without
/// case, as `KEY=value` entries (the block's entries before their NUL terminators).
pub fn environment(
    current: impl IntoIterator<Item = (OsString, OsString)>,
    set: &[(&str, OsString)],
    remove: &[&str],
) -> Vec<OsString> {
    let upper = |k: &OsStr| k.to_string_lossy().to_uppercase();
    let mut vars: Vec<(String, OsString, OsString)> = current
        .into_iter()
        .filter(|(k, _)| {
            let u = upper(k);
            !remove.iter().any(|r| r.eq_ignore_ascii_case(&u))
                && !set.iter().any(|(s, _)| s.eq_ignore_ascii_case(&u))
        })
        .map(|(k, v)| (upper(&k), k, v))
        .collect();
    vars.extend(
        set.iter()
            .map(|(k, v)| (k.to_uppercase(), OsString::from(k), v.clone())),
    );
    vars.sort_by(|a, b| a.0.cmp(&b.0));
    vars.into_iter()
        .map(|(_, k, v)| {
            let mut e = k;
            e.push("=");
            e.push(v);
            e
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_are_quoted_as_the_c_runtime_splits_them() {
        let cases: [(&[&str], &str); 6] = [
            (&["sh", "-c", "echo hi"], r#"sh -c "echo hi""#),
            (&["a\\b", ""], r#"a\b """#),
            (&[r#"say "hi""#], r#""say \"hi\"""#),
            (&["C:\\dir with space\\"], r#""C:\dir with space\\""#),
            (&[r#"a\"b c"#], r#""a\\\"b c""#),
            (&["trap 'x' EXIT\nset -m\n"], "\"trap 'x' EXIT\nset -m\n\""),
        ];
        for (args, want) in cases {
            assert_eq!(command_line(args), OsString::from(want), "{args:?}");
        }
    }

    #[test]
    fn the_environment_is_replaced_by_name_without_case_and_sorted() {
        let os = |s: &str| OsString::from(s);
        let current = vec![
            (os("Path"), os("C:\\bin")),
            (os("term"), os("dumb")),
            (os("CDPATH"), os("x")),
            (os("ALPHA"), os("1")),
        ];
        let got = environment(current, &[("TERM", os("xterm-256color"))], &["CDPATH"]);
        assert_eq!(
            got,
            vec![os("ALPHA=1"), os("Path=C:\\bin"), os("TERM=xterm-256color")]
        );
    }
}
