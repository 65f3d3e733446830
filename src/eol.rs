//! Decoding a file for editing and re-encoding it afterwards without disturbing its bytes.
//!
//! The editing tools (edit_file, multi_edit, apply_patch) work on LF-normalised UTF-8 text
//! (CONTRACT §4). [`EditableText::decode`] accepts UTF-8 with or without a BOM and nothing
//! else: UTF-16 files are refused (rewriting them as UTF-8 would change every byte), and so
//! is anything that is not valid UTF-8 (a lossy decode would corrupt it). It remembers each
//! line's original terminator (`\r\n`, `\n` or `\r`) and the BOM.
//!
//! [`EditableText::encode`] turns an edited text back into bytes: lines the edit did not
//! touch keep their own terminator, new or changed lines get the file's dominant one, a last
//! line without a terminator stays without one, and the BOM is written back. Old and new
//! lines are aligned only on the window between the common prefix and suffix (so a small
//! edit of a 100k-line file costs two linear scans), only when the file mixes terminator
//! styles (otherwise every line gets the one style anyway), and then by unique-line anchors
//! with `similar` on what remains between them (see `align`).

use crate::error::{Code, ToolError, ToolResult};

mod align;
use std::time::{Duration, Instant};

/// A line terminator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Eol {
    /// `\n`
    Lf,
    /// `\r\n`
    CrLf,
    /// A lone `\r`
    Cr,
    /// The last line has no terminator.
    None,
}

impl Eol {
    /// The terminator's bytes.
    pub fn as_str(self) -> &'static str {
        match self {
            Eol::Lf => "\n",
            Eol::CrLf => "\r\n",
            Eol::Cr => "\r",
            Eol::None => "",
        }
    }
}

/// How long the line alignment may search for a minimal diff before settling for a
/// correct but coarser one (lines it cannot align just get the dominant terminator). Only
/// reachable with many changes between lines that repeat (see `align`).
const ALIGN_DEADLINE: Duration = Duration::from_millis(500);

/// A file decoded for editing: the LF-normalised text plus what is needed to write it back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditableText {
    /// The text with the BOM stripped and every `\r\n` / `\r` turned into `\n`.
    pub text: String,
    /// Whether the file started with a UTF-8 BOM.
    pub bom: bool,
    /// The original terminator of each line of `text` (as split by `split_inclusive('\n')`);
    /// [`Eol::None`] only for a last line without one.
    pub terminators: Vec<Eol>,
    /// The terminator new or changed lines get: the most common one (ties and files without
    /// any terminator → `\n`; between `\r\n` and `\r`, `\r\n`).
    pub dominant: Eol,
}

/// The refusal for a UTF-16 file: `is_binary`, fields `path`, `encoding`. `verb` is
/// `Editing` (edit_file, multi_edit) or `Patching` (apply_patch).
pub fn utf16_error(verb: &str, encoding: &str, path: &str) -> ToolError {
    ToolError::new(
        Code::IsBinary,
        format!(
            "{verb} {encoding} files is not supported (the file would be rewritten as UTF-8): {path}"
        ),
    )
    .with("path", path)
    .with("encoding", encoding)
}

/// The refusal for bytes that are not valid UTF-8: `is_binary`, `encoding: "unknown"`.
pub fn unknown_encoding_error(verb: &str, path: &str) -> ToolError {
    ToolError::new(
        Code::IsBinary,
        format!(
            "{verb} files that are not valid UTF-8 is not supported (the file would be rewritten lossily): {path}"
        ),
    )
    .with("path", path)
    .with("encoding", "unknown")
}

impl EditableText {
    /// Decodes `bytes` for editing. Errors name `path`; `verb` starts their message
    /// (`Editing` or `Patching`). Binary sniffing (NUL bytes) is [`crate::text::load`]'s job.
    pub fn decode(bytes: &[u8], path: &str, verb: &str) -> ToolResult<EditableText> {
        use crate::text::{detect_bom, Encoding};
        let enc = detect_bom(bytes);
        let body = match enc {
            Encoding::Utf16Le | Encoding::Utf16Be => {
                return Err(utf16_error(verb, enc.name(), path))
            }
            Encoding::Utf8Bom => &bytes[3..],
            Encoding::Utf8 => bytes,
        };
        let Ok(s) = std::str::from_utf8(body) else {
            return Err(unknown_encoding_error(verb, path));
        };
        Ok(Self::from_str_with_bom(s, enc == Encoding::Utf8Bom))
    }

    /// Splits already-decoded text (BOM removed) into normalised text and terminators.
    pub fn from_str_with_bom(s: &str, bom: bool) -> EditableText {
        let b = s.as_bytes();
        let mut text = String::with_capacity(s.len());
        let mut terminators = Vec::new();
        let (mut lf, mut crlf, mut cr) = (0usize, 0usize, 0usize);
        let mut start = 0;
        let mut i = 0;
        // memchr jumps to the next line break: most bytes are not one.
        while let Some(at) = memchr::memchr2(b'\n', b'\r', &b[i..]) {
            i += at;
            let eol = match b[i] {
                b'\n' => Eol::Lf,
                _ if b.get(i + 1) == Some(&b'\n') => Eol::CrLf,
                _ => Eol::Cr,
            };
            text.push_str(&s[start..i]);
            text.push('\n');
            terminators.push(eol);
            match eol {
                Eol::Lf => lf += 1,
                Eol::CrLf => crlf += 1,
                _ => cr += 1,
            }
            i += eol.as_str().len();
            start = i;
        }
        if start < b.len() {
            text.push_str(&s[start..]);
            terminators.push(Eol::None);
        }
        let dominant = if lf >= crlf && lf >= cr {
            Eol::Lf
        } else if crlf >= cr {
            Eol::CrLf
        } else {
            Eol::Cr
        };
        EditableText {
            text,
            bom,
            terminators,
            dominant,
        }
    }

    /// Re-encodes an edited version of [`EditableText::text`] (LF-only) as the file's bytes.
    /// Passing `self.text` unchanged gives back the original bytes exactly.
    pub fn encode(&self, new_text: &str) -> Vec<u8> {
        let old: Vec<&str> = self.text.split_inclusive('\n').collect();
        let new: Vec<&str> = new_text.split_inclusive('\n').collect();
        // For each new line, the original terminator when it is an untouched old line.
        let mut kept: Vec<Option<Eol>> = vec![None; new.len()];
        let prefix = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
        let max_suffix = old.len().min(new.len()) - prefix;
        let suffix = old
            .iter()
            .rev()
            .zip(new.iter().rev())
            .take(max_suffix)
            .take_while(|(a, b)| a == b)
            .count();
        for (k, t) in kept.iter_mut().zip(&self.terminators).take(prefix) {
            *k = Some(*t);
        }
        for j in 0..suffix {
            kept[new.len() - 1 - j] = Some(self.terminators[old.len() - 1 - j]);
        }
        let (old_mid, new_mid) = (
            &old[prefix..old.len() - suffix],
            &new[prefix..new.len() - suffix],
        );
        // With one terminator style every line gets it anyway: aligning would change nothing.
        let uniform = self
            .terminators
            .iter()
            .all(|&t| t == self.dominant || t == Eol::None);
        if !uniform {
            let deadline = Instant::now() + ALIGN_DEADLINE;
            align::align(old_mid, new_mid, deadline, |i, j| {
                kept[prefix + j] = Some(self.terminators[prefix + i]);
            });
        }
        let mut out = Vec::with_capacity(new_text.len() + new.len() + 3);
        if self.bom {
            out.extend_from_slice(&[0xEF, 0xBB, 0xBF]);
        }
        for (line, kept) in new.iter().zip(kept) {
            match line.strip_suffix('\n') {
                Some(body) => {
                    out.extend_from_slice(body.as_bytes());
                    out.extend_from_slice(kept.unwrap_or(self.dominant).as_str().as_bytes());
                }
                None => out.extend_from_slice(line.as_bytes()),
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn dec(b: &[u8]) -> EditableText {
        EditableText::decode(b, "f", "Editing").unwrap()
    }

    #[test]
    fn decode_normalises_and_remembers() {
        let t = dec(b"\xEF\xBB\xBFa\r\nb\rc\nd");
        assert_eq!(t.text, "a\nb\nc\nd");
        assert!(t.bom);
        assert_eq!(t.terminators, vec![Eol::CrLf, Eol::Cr, Eol::Lf, Eol::None]);
        assert_eq!(dec(b"a\r\nb\r\nc\n").dominant, Eol::CrLf);
        assert_eq!(dec(b"a\rb\r").dominant, Eol::Cr);
        assert_eq!(dec(b"abc").dominant, Eol::Lf);
    }

    #[test]
    fn refusals() {
        let e = EditableText::decode(&[0xFF, 0xFE, b'a', 0], "x.txt", "Editing").unwrap_err();
        assert_eq!(
            e.envelope(),
            r#"{"error":"is_binary","message":"Editing utf16le files is not supported (the file would be rewritten as UTF-8): x.txt","path":"x.txt","encoding":"utf16le"}"#
        );
        let e = EditableText::decode(&[0xFE, 0xFF, 0, b'a'], "y", "Patching").unwrap_err();
        assert!(e
            .message
            .starts_with("Patching utf16be files is not supported"));
        let e = EditableText::decode(b"caf\xE9", "l1", "Editing").unwrap_err();
        assert_eq!(
            (e.code, &e.fields["encoding"]),
            (Code::IsBinary, &serde_json::json!("unknown"))
        );
    }

    #[test]
    fn encode_keeps_untouched_terminators() {
        let t = dec(b"a\r\nb\nc\rd\r\ne");
        assert_eq!(t.encode("a\nb\nX\nY\nd\ne"), b"a\r\nb\nX\r\nY\r\nd\r\ne");
        assert_eq!(t.encode("a\nb\nc\nd\ne\n"), b"a\r\nb\nc\rd\r\ne\r\n");
        assert_eq!(t.encode("zzz"), b"zzz");
        let bom = dec(b"\xEF\xBB\xBFx\r\ny\r\n");
        assert_eq!(bom.encode("x\nq\n"), b"\xEF\xBB\xBFx\r\nq\r\n");
        assert_eq!(dec(b"").encode("new\n"), b"new\n");
    }

    fn eol() -> impl Strategy<Value = &'static str> {
        prop_oneof![Just("\n"), Just("\r\n"), Just("\r")]
    }

    fn file() -> impl Strategy<Value = (Vec<(String, &'static str)>, bool)> {
        (
            prop::collection::vec(("[a-c ]{1,4}", eol()), 0..12),
            any::<bool>(),
        )
    }

    fn render(lines: &[(String, &str)], last_bare: bool) -> String {
        let mut s = String::new();
        for (i, (body, eol)) in lines.iter().enumerate() {
            s.push_str(body);
            if !(last_bare && i + 1 == lines.len()) {
                s.push_str(eol);
            }
        }
        s
    }

    proptest! {
        #[test]
        fn unchanged_text_round_trips(bytes in prop::collection::vec(
            prop_oneof![Just(b'\r'), Just(b'\n'), Just(b'a'), Just(b' ')], 0..40), bom in any::<bool>()) {
            let mut raw = if bom { vec![0xEF, 0xBB, 0xBF] } else { vec![] };
            raw.extend(bytes);
            let t = dec(&raw);
            prop_assert_eq!(t.encode(&t.text), raw);
        }

        #[test]
        fn editing_one_line_keeps_the_others((lines, last_bare) in file(), pick in any::<prop::sample::Index>()) {
            prop_assume!(!lines.is_empty());
            let raw = render(&lines, last_bare);
            let t = dec(raw.as_bytes());
            let i = pick.index(lines.len());
            let mut new_lines: Vec<String> = t.text.split_inclusive('\n').map(str::to_string).collect();
            let had_nl = new_lines[i].ends_with('\n');
            new_lines[i] = format!("CHANGED{}", if had_nl { "\n" } else { "" });
            let out = String::from_utf8(t.encode(&new_lines.concat())).unwrap();
            let mut expected = lines.clone();
            expected[i].0 = "CHANGED".into();
            if had_nl {
                expected[i].1 = t.dominant.as_str();
            }
            prop_assert_eq!(out, render(&expected, last_bare));
        }
    }
}
