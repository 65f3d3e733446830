//! Fitting a model's source to the place it goes: its first line at the definition's
//! indentation, the others moved by as much, tabs or spaces as the file indents.
//!
//! Models send a definition either as it stands in the file (indented), dedented to column
//! 0, or — copied from a listing — with the first line dedented and the rest at the file's
//! own indentation. The last is recognised by comparison with the definition it replaces
//! (the lines after the first sit exactly where the old ones did), and only its first line
//! moves.

/// A source fitted to its place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shaped {
    /// The lines, without terminators.
    pub lines: Vec<String>,
    /// What changed in the indentation, for the result; `None` when nothing did.
    pub changed: Option<String>,
}

fn indent_of(line: &str) -> &str {
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

/// The one character `indents` (non-empty ones) start with, if they agree.
fn style<'a>(indents: impl Iterator<Item = &'a str>) -> Option<char> {
    let mut found = None;
    for i in indents {
        let c = i.chars().next()?;
        match found {
            None => found = Some(c),
            Some(f) if f != c => return None,
            _ => {}
        }
    }
    found
}

/// The width of one level in space indents: their greatest common divisor when it is 2, 4
/// or 8; else 4.
fn space_unit<'a>(indents: impl Iterator<Item = &'a str>) -> usize {
    fn gcd(a: usize, b: usize) -> usize {
        if b == 0 {
            a
        } else {
            gcd(b, a % b)
        }
    }
    let g = indents
        .map(|i| i.len() - i.trim_start_matches(' ').len())
        .fold(0, gcd);
    match g {
        2 | 4 | 8 => g,
        _ => 4,
    }
}

/// The file's indentation: its character (the one most indented lines start with) and, for
/// spaces, the width of a level.
fn file_style(text: &str) -> Option<(char, usize)> {
    let (mut tabs, mut spaces) = (0usize, 0usize);
    for l in text.lines().filter(|l| !l.trim().is_empty()) {
        match l.as_bytes().first() {
            Some(b'\t') => tabs += 1,
            Some(b' ') => spaces += 1,
            _ => {}
        }
    }
    if tabs == 0 && spaces == 0 {
        return None;
    }
    if tabs > spaces {
        Some(('\t', 1))
    } else {
        let unit = space_unit(
            text.lines()
                .filter(|l| l.starts_with(' ') && !l.trim().is_empty())
                .map(indent_of),
        );
        Some((' ', unit))
    }
}

/// Re-writes each line's leading run of `from` characters in the file's other character (a level of
/// `new_unit` spaces is one tab; a tab is `file_unit` spaces).
fn convert(lines: &mut [String], from: char, new_unit: usize, file_unit: usize) {
    for l in lines.iter_mut() {
        let run = l.len() - l.trim_start_matches(from).len();
        if run == 0 {
            continue;
        }
        let lead = if from == ' ' {
            let mut s = "\t".repeat(run / new_unit);
            s.push_str(&" ".repeat(run % new_unit));
            s
        } else {
            " ".repeat(run * file_unit)
        };
        *l = format!("{lead}{}", &l[run..]);
    }
}

/// Fits `lines` to start at `target` (the indentation of the definition's first line) in a
/// file whose text is `file`; `old` is the definition being replaced, from the start of its
/// first line (empty for an insertion).
pub fn fit(lines: &[&str], target: &str, old: &[&str], file: &str) -> Shaped {
    let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    if out.is_empty() {
        return Shaped {
            lines: out,
            changed: None,
        };
    }
    let mut notes: Vec<String> = Vec::new();
    let indents = |v: &[String]| -> Vec<String> {
        v.iter()
            .filter(|l| !l.trim().is_empty())
            .map(|l| indent_of(l).to_string())
            .filter(|i| !i.is_empty())
            .collect()
    };
    let had = indents(&out);
    if let (Some((fc, unit)), Some(nc)) = (file_style(file), style(had.iter().map(String::as_str)))
    {
        if fc != nc {
            let new_unit = space_unit(had.iter().map(String::as_str));
            convert(&mut out, nc, new_unit, unit);
            notes.push(if fc == '\t' {
                format!("{new_unit} spaces became a tab, as the file indents")
            } else {
                format!("a tab became {unit} spaces, as the file indents")
            });
        }
    }
    let first = indent_of(&out[0]).to_string();
    let rest_min = |v: &[&str]| -> Option<String> {
        v.iter()
            .skip(1)
            .filter(|l| !l.trim().is_empty())
            .map(|l| indent_of(l))
            .min_by_key(|i| i.len())
            .map(str::to_string)
    };
    let new_rest: Vec<&str> = out.iter().map(String::as_str).collect();
    let copied = old.len() > 1
        && first.len() < target.len()
        && rest_min(&new_rest)
            .is_some_and(|r| Some(&r) == rest_min(old).as_ref() && r.len() > target.len());
    if copied {
        out[0] = format!("{target}{}", out[0].trim_start());
        notes.push(
            "the first line was indented to the definition's; the others already were".into(),
        );
    } else if first != target {
        let c = target
            .chars()
            .next()
            .or_else(|| first.chars().next())
            .unwrap_or(' ');
        for l in out.iter_mut().filter(|l| !l.trim().is_empty()) {
            let ind = indent_of(l).to_string();
            let new = match ind.strip_prefix(first.as_str()) {
                Some(rest) => format!("{target}{rest}"),
                None if ind.chars().all(|x| x == c) => c
                    .to_string()
                    .repeat((ind.len() + target.len()).saturating_sub(first.len())),
                None => ind.clone(),
            };
            *l = format!("{new}{}", &l[ind.len()..]);
        }
        let d = target.len() as i64 - first.len() as i64;
        let what = if c == '\t' { "tab" } else { "space" };
        notes.push(format!(
            "shifted {} by {} {what}{}",
            if d >= 0 { "right" } else { "left" },
            d.abs(),
            if d.abs() == 1 { "" } else { "s" }
        ));
    }
    for l in out.iter_mut() {
        if l.trim().is_empty() {
            l.clear();
        }
    }
    Shaped {
        lines: out,
        changed: (!notes.is_empty()).then(|| notes.join("; ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dedented_source_moves_to_the_definition() {
        let s = fit(
            &["def f(self):", "    return 1"],
            "    ",
            &[],
            "class A:\n    x = 1\n",
        );
        assert_eq!(s.lines, ["    def f(self):", "        return 1"]);
        assert_eq!(s.changed.as_deref(), Some("shifted right by 4 spaces"));
    }

    #[test]
    fn a_copied_first_line_alone_moves() {
        let old = ["    def f(self):", "        return 0"];
        let s = fit(
            &["def f(self):", "        return 1"],
            "    ",
            &old,
            "class A:\n    x = 1\n",
        );
        assert_eq!(s.lines, ["    def f(self):", "        return 1"]);
    }

    #[test]
    fn spaces_become_the_files_tabs_and_back() {
        let go = "func a() {\n\treturn\n}\n";
        let s = fit(&["func b() {", "    x()", "}"], "", &[], go);
        assert_eq!(s.lines, ["func b() {", "\tx()", "}"]);
        let py = "def a():\n  return 1\n";
        let s = fit(&["def b():", "\treturn 2"], "", &[], py);
        assert_eq!(s.lines, ["def b():", "  return 2"]);
    }

    #[test]
    fn already_in_place_is_unchanged() {
        let s = fit(&["  fn a() {", "", "    b();", "  }"], "  ", &[], "");
        assert_eq!(s.lines, ["  fn a() {", "", "    b();", "  }"]);
        assert_eq!(s.changed, None);
    }
}
