//! The in-line whitespace class of the drift soak (issue 31): a change *inside* one line —
//! text appended, prepended, replaced or inserted — while the model's strings drifted from the
//! file's whitespace at the lines' start (indentation shifted or written in the other style),
//! at their end (trailing whitespace added or dropped) or inside them (alignment runs
//! collapsed, single spaces doubled), in files indented with tabs, 2 or 4 spaces, with LF, CRLF
//! or CR line endings. The drift may be undone only where it drifted: the model's own text
//! between words is never changed. Used by `tests/drift_soak.rs`.

use clarvis_agent_tools::edit::apply;
use clarvis_agent_tools::eol::EditableText;

/// A small deterministic generator: the soak must be replayable from its seed.
pub struct Rng(pub u64);

impl Rng {
    /// The next raw value (xorshift64).
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// Uniform in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    /// One of `items`.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// How the model's whitespace differs from the file's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Ws {
    /// The model added trailing whitespace the file's lines lack.
    TrailingAdded,
    /// The file has trailing whitespace the model dropped.
    TrailingDropped,
    /// The model's indentation is shifted (+2, +4, or the block dedented to column 0).
    Shifted,
    /// The model indents with spaces where the file has tabs, or the reverse.
    Restyled,
    /// The file aligns with runs of spaces or a tab inside its lines; the model wrote one space.
    InnerCollapsed,
    /// The model wrote two spaces where the file has one, inside a line.
    InnerWidened,
}

const WS: [Ws; 6] = [
    Ws::TrailingAdded,
    Ws::TrailingDropped,
    Ws::Shifted,
    Ws::Restyled,
    Ws::InnerCollapsed,
    Ws::InnerWidened,
];

/// The change the model makes to one line of its old_string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Change {
    /// ` /* note */` after the line's text; its drifted trailing whitespace, if any, after that.
    Append,
    /// `/* note */` right after the line's drifted trailing whitespace, which thereby becomes
    /// the model's separator (`x;␠` → `x;␠/* note */␠`, issue 31's wrong edits).
    AppendAfterPad,
    /// `/* note */ ` before the line's text.
    Prepend,
    /// The last identifier renamed.
    Replace,
    /// ` /* in */` after the line's first word.
    Insert,
}

const CHANGES: [Change; 5] = [
    Change::Append,
    Change::AppendAfterPad,
    Change::Prepend,
    Change::Replace,
    Change::Insert,
];

/// One generated case.
pub struct Case {
    /// The category, for the tally (`Inline <drift> <change>` for this class).
    pub label: String,
    /// The file's bytes.
    pub file: Vec<u8>,
    /// The model's strings.
    pub old: String,
    pub new: String,
    /// The bytes the edit must leave (any one of them, when the intent allows two readings).
    pub intended: Vec<Vec<u8>>,
}

/// The outcome of one case.
pub enum Outcome {
    Landed,
    /// The refusal's message.
    Refused(String),
    /// The bytes written instead of an intended result.
    Wrong(Vec<u8>),
}

fn indent_of(line: &str) -> &str {
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

fn trailing_of(line: &str) -> &str {
    &line[line.trim_end_matches([' ', '\t']).len()..]
}

/// The file with its indentation in style `style`: 0 as it is, 1 tabs (a tab for 4 columns),
/// 2 two spaces per 4 columns, 3 four spaces (a tab counting 4 columns).
fn restyle(text: &str, style: usize) -> String {
    let lines = text.split('\n').map(|l| {
        let ind = indent_of(l);
        let rest = &l[ind.len()..];
        let cols: usize = ind.chars().map(|c| if c == '\t' { 4 } else { 1 }).sum();
        let ind = match style {
            0 => ind.to_string(),
            1 => "\t".repeat(cols / 4) + &" ".repeat(cols % 4),
            2 => " ".repeat(cols / 2),
            _ => " ".repeat(cols),
        };
        if rest.is_empty() {
            l.to_string()
        } else {
            ind + rest
        }
    });
    lines.collect::<Vec<_>>().join("\n")
}

/// Byte offsets of the single spaces between two non-space characters in `line`'s text.
fn inner_spaces(line: &str) -> Vec<usize> {
    let b = line.as_bytes();
    let start = indent_of(line).len();
    let end = line.trim_end_matches([' ', '\t']).len();
    (start + 1..end.saturating_sub(1))
        .filter(|&i| b[i] == b' ' && b[i - 1] != b' ' && b[i + 1] != b' ' && b[i - 1] != b'\t')
        .filter(|&i| b[i + 1] != b'\t')
        .collect()
}

/// The identifier-like words of `line` (start, end), ASCII letters, digits and `_`, 3+ long.
fn words(line: &str) -> Vec<(usize, usize)> {
    let b = line.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_alphabetic() || b[i] == b'_' {
            let s = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            if i - s >= 3 {
                out.push((s, i));
            }
        } else {
            i += 1;
        }
    }
    out
}

/// `change` applied to a line (any of the model's or the file's versions of it).
fn changed(line: &str, change: Change) -> Option<String> {
    let ind = indent_of(line);
    let body = line.trim_end_matches([' ', '\t']);
    let pad = trailing_of(line);
    Some(match change {
        Change::Append => format!("{body} /* note */{pad}"),
        Change::AppendAfterPad if !pad.is_empty() => format!("{line}/* note */{pad}"),
        Change::AppendAfterPad => return None,
        Change::Prepend => format!("{ind}/* note */ {}", &line[ind.len()..]),
        Change::Replace => {
            let &(s, e) = words(line).last()?;
            format!("{}{}_v2{}", &line[..s], &line[s..e], &line[e..])
        }
        Change::Insert => {
            let &(_, e) = words(line).first()?;
            format!("{} /* in */{}", &line[..e], &line[e..])
        }
    })
}

/// A case from `text` (LF-only), or `None` when the drawn block does not suit the drift.
pub fn case(text: &str, rng: &mut Rng) -> Option<Case> {
    let ws = *rng.pick(&WS);
    let change = *rng.pick(&CHANGES);
    let text = restyle(text, rng.below(4));
    let mut lines: Vec<String> = text.split('\n').map(str::to_string).collect();
    let len = 1 + rng.below(6);
    let start = rng.below(lines.len().saturating_sub(len).max(1));
    let end = (start + len).min(lines.len());
    if lines[start..end].iter().all(|l| l.trim().is_empty())
        || lines[start..end].iter().any(|l| !trailing_of(l).is_empty())
    {
        return None;
    }
    let k = start + rng.below(end - start);
    if lines[k].trim().is_empty() {
        return None;
    }
    let pads = [" ", "  ", "\t", " \t"];
    let pad = *rng.pick(&pads);
    // The file side of the drift.
    match ws {
        Ws::TrailingDropped => {
            for l in &mut lines[start..end] {
                if !l.trim().is_empty() && rng.below(2) == 0 {
                    l.push_str(pad);
                }
            }
            // Whether the model's append goes before or after the file's trailing whitespace
            // is not decided by the strings.
            if matches!(change, Change::Append | Change::AppendAfterPad)
                && !trailing_of(&lines[k]).is_empty()
            {
                return None;
            }
        }
        Ws::InnerCollapsed => {
            for l in &mut lines[start..end] {
                let spaces = inner_spaces(l);
                if !spaces.is_empty() && rng.below(2) == 0 {
                    let at = *rng.pick(&spaces);
                    let run = *rng.pick(&["  ", "   ", "\t"]);
                    l.replace_range(at..at + 1, run);
                }
            }
        }
        _ => {}
    }
    let file_block: Vec<String> = lines[start..end].to_vec();
    // The model's view of each line. Decisions are per line index, so old_string and
    // new_string drift alike.
    let shift = *rng.pick(&[2usize, 4, 0]);
    let min_indent = file_block
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| indent_of(l).len())
        .min()
        .unwrap_or(0);
    let trail_lines: Vec<bool> = (0..file_block.len()).map(|_| rng.below(2) == 0).collect();
    let widen: Vec<Option<usize>> = file_block
        .iter()
        .map(|l| {
            let s = inner_spaces(l);
            (!s.is_empty() && rng.below(2) == 0).then(|| *rng.pick(&s))
        })
        .collect();
    let model = |i: usize, l: &str| -> String {
        if l.trim().is_empty() {
            return l.to_string();
        }
        let ind = indent_of(l);
        let rest = &l[ind.len()..];
        match ws {
            Ws::TrailingAdded if trail_lines[i] || i == k - start => format!("{l}{pad}"),
            Ws::TrailingDropped => l.trim_end_matches([' ', '\t']).to_string(),
            Ws::Shifted if shift == 0 => format!("{}{rest}", &ind[min_indent..]),
            Ws::Shifted => format!("{}{l}", " ".repeat(shift)),
            Ws::Restyled if ind.contains('\t') => format!("{}{rest}", ind.replace('\t', "    ")),
            Ws::Restyled => format!("{}{rest}", ind.replace("    ", "\t")),
            Ws::InnerCollapsed => {
                let words: Vec<&str> = rest.split([' ', '\t']).filter(|w| !w.is_empty()).collect();
                format!("{ind}{}", words.join(" "))
            }
            Ws::InnerWidened => match widen[i] {
                Some(at) => format!("{} {}", &l[..at], &l[at..]),
                None => l.to_string(),
            },
            _ => l.to_string(),
        }
    };
    let old_lines: Vec<String> = file_block
        .iter()
        .enumerate()
        .map(|(i, l)| model(i, l))
        .collect();
    let mut new_lines = old_lines.clone();
    new_lines[k - start] = changed(&old_lines[k - start], change)?;
    // What the change means in the file: made on the file's own line, except that text the
    // model placed after its drifted trailing whitespace keeps that whitespace as the model's
    // separator (AppendAfterPad).
    let file_line = &lines[k];
    let mut meant = vec![match (ws, change) {
        (Ws::TrailingAdded, Change::AppendAfterPad) => format!("{file_line}{pad}/* note */"),
        _ => changed(file_line, change)?,
    }];
    // An insertion right after a word followed by an alignment run may go before or after
    // the run: both keep every character of the file and of the model.
    if ws == Ws::InnerCollapsed && change == Change::Insert {
        let &(_, e) = words(file_line).first()?;
        let run = file_line[e..].len() - file_line[e..].trim_start_matches([' ', '\t']).len();
        if run > 0 && &file_line[e..e + run] != " " {
            meant.push(format!(
                "{}/* in */ {}",
                &file_line[..e + run],
                &file_line[e + run..]
            ));
        }
    }
    let old = old_lines.join("\n");
    let new = new_lines.join("\n");
    let file = lines.join("\n");
    if old == new || file.contains(&old) {
        return None;
    }
    let eol = *rng.pick(&["\n", "\r\n", "\r"]);
    let strings_crlf = eol == "\r\n" && rng.below(3) == 0;
    let encode = |t: &str| t.replace('\n', eol).into_bytes();
    let intended = meant
        .into_iter()
        .map(|m| {
            let mut out = lines.clone();
            out[k] = m;
            encode(&out.join("\n"))
        })
        .collect();
    let (old, new) = if strings_crlf {
        (old.replace('\n', "\r\n"), new.replace('\n', "\r\n"))
    } else {
        (old, new)
    };
    Some(Case {
        label: format!("Inline {ws:?} {change:?}"),
        file: encode(&file),
        old,
        new,
        intended,
    })
}

/// Applies `c` as edit_file does (decode, edit, re-encode) and judges the bytes.
pub fn run(c: &Case) -> Outcome {
    let file = EditableText::decode(&c.file, "f", "Editing").expect("UTF-8");
    match apply(&file.text, &c.old, &c.new, false) {
        Ok(a) => {
            let bytes = file.encode(&a.text);
            if c.intended.contains(&bytes) {
                Outcome::Landed
            } else {
                Outcome::Wrong(bytes)
            }
        }
        Err(e) => Outcome::Refused(e.message),
    }
}
