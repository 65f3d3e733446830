//! The built-in single-line formats: well-known credentials by their own shape (a GitHub
//! token, an AWS key id, a JWT, a `Bearer` header), found anywhere; and assignments whose key
//! names a secret (`DB_PASSWORD=…`, `"token": "…"`, `password: …`, `--api-key=…`) or a URL's
//! password (`https://user:pass@host`).
//!
//! The formats are one multi-pattern `regex-automata` meta regex: each starts with a literal,
//! so its prefilter skips ahead at memory speed. Assignments are not: a key is any word
//! around `token` or `password`, and joined to the formats those patterns made the lazy DFA
//! give up (2.5 s for a 9 MB file). So they are found from their keywords (one Aho-Corasick
//! pass) and parsed by hand from there: the key around the keyword, a separator, a value —
//! then judged by [`super::keys`].

use super::keys::{classify, code_argument, code_value, plausible};
use super::Span;
use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use regex_automata::meta::Regex;
use regex_automata::Input;

/// The formats, in priority order: `(kind, pattern)`. A `v` group is the part masked;
/// without one the whole match is.
fn formats() -> Vec<(&'static str, String)> {
    let b = r"(?-u:\b)";
    vec![
        ("aws_access_key", format!("{b}(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|APKA)[0-9A-Z]{{16}}{b}")),
        ("aws_secret_key", r#"(?i:aws_?secret_?(?:access_?)?key)["']?\s*[=:]\s*["']?(?P<v>[A-Za-z0-9/+=]{40})"#.into()),
        ("github_token", format!("{b}(?:gh[pousr]_[A-Za-z0-9]{{36,255}}|github_pat_[A-Za-z0-9_]{{22,255}}){b}")),
        ("gitlab_token", format!("{b}glpat-[A-Za-z0-9_\\-]{{20,}}")),
        ("npm_token", format!("{b}npm_[A-Za-z0-9]{{36}}{b}")),
        ("anthropic_key", format!("{b}sk-ant-[A-Za-z0-9_\\-]{{20,}}")),
        ("openai_key", format!("{b}sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\\-]{{32,}}")),
        ("google_api_key", format!("{b}AIza[0-9A-Za-z_\\-]{{35}}")),
        ("slack_token", format!("{b}xox[abposr]-[A-Za-z0-9\\-]{{10,}}")),
        ("slack_webhook", r"hooks\.slack\.com/services/(?P<v>T[A-Za-z0-9]+/B[A-Za-z0-9]+/[A-Za-z0-9]+)".into()),
        ("stripe_key", format!("{b}(?:[rs]k_live_|whsec_)[A-Za-z0-9]{{24,}}")),
        ("huggingface_token", format!("{b}hf_[A-Za-z0-9]{{34,}}")),
        ("sendgrid_key", format!("{b}SG\\.[A-Za-z0-9_\\-]{{22}}\\.[A-Za-z0-9_\\-]{{43}}")),
        ("private_key", format!("{b}AGE-SECRET-KEY-1[0-9A-Z]{{58}}")),
        ("jwt", format!("{b}eyJ[A-Za-z0-9_\\-]{{10,}}\\.eyJ[A-Za-z0-9_\\-]{{10,}}\\.[A-Za-z0-9_\\-]{{10,}}")),
        ("bearer_token", format!("(?i:{b}bearer)[ \\t]+(?P<v>[A-Za-z0-9._~+/\\-]{{16,}}=*)")),
        ("password", r#"(?i:authorization)["']?[ \t]*[:=][ \t]*["']?(?i:basic)[ \t]+(?P<v>[A-Za-z0-9+/]{8,}=*)"#.into()),
    ]
}

/// The words an assignment's key holds (see [`classify`]), and `://` for a URL's password.
const KEYWORDS: &[&str] = &["pass", "pwd", "secret", "token", "key", "credential", "://"];

/// The compiled rules.
pub struct Rules {
    formats: Regex,
    kinds: Vec<&'static str>,
    keywords: AhoCorasick,
}

impl Rules {
    /// Compiles the built-in rules.
    pub fn new() -> Result<Rules, String> {
        let formats = formats();
        // Bytes, not Unicode classes: a smaller automaton. Every class that ends a match
        // stops at an ASCII byte, so matches still start and end on characters.
        let regex = Regex::builder()
            .syntax(
                regex_automata::util::syntax::Config::new()
                    .unicode(false)
                    .utf8(false),
            )
            .build_many(&formats.iter().map(|f| f.1.as_str()).collect::<Vec<_>>())
            .map_err(|e| format!("built-in redaction patterns: {e}"))?;
        let keywords = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::LeftmostFirst)
            .build(KEYWORDS)
            .map_err(|e| format!("built-in redaction keywords: {e}"))?;
        Ok(Rules {
            formats: regex,
            kinds: formats.iter().map(|f| f.0).collect(),
            keywords,
        })
    }

    /// Every secret the rules find in `text`. A span's `anchor` is where its match starts
    /// (an assignment's key), for a needle that needs context.
    pub fn find(&self, text: &str, out: &mut Vec<Span>) {
        let mut caps = self.formats.create_captures();
        let mut at = 0;
        while at < text.len() {
            self.formats
                .search_captures(&Input::new(text).range(at..), &mut caps);
            let Some(m) = caps.get_match() else { break };
            let v = caps.get_group_by_name("v").map_or(m.range(), |s| s.range());
            out.push(Span {
                start: v.start,
                end: v.end,
                anchor: m.start(),
                kind: self.kinds[m.pattern().as_usize()],
            });
            at = m.end().max(at + 1);
        }
        let mut past = 0;
        for hit in self.keywords.find_iter(text) {
            if hit.start() < past {
                continue;
            }
            past = if hit.end() - hit.start() == 3 && &text[hit.range()] == "://" {
                url(text, hit.start(), out)
            } else {
                assignment(text, hit.start(), hit.end(), out)
            };
        }
    }
}

fn is_key_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-')
}

fn blanks(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && matches!(b[i], b' ' | b'\t') {
        i += 1;
    }
    i
}

/// How a value follows its key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// `KEY = "quoted"` (also JSON's `"key": "…"`; the closing quote may be cut off).
    Quoted,
    /// `KEY=bare` with no blank around `=` (env files, command-line flags, URL queries).
    Bare,
    /// `key: bare` at the start of a line (YAML, HTTP headers).
    Colon,
}

/// The assignment whose key holds the keyword at `k0..k1`, if it is one; returns where its
/// key ends (the keyword pass goes on from there).
fn assignment(text: &str, k0: usize, k1: usize, out: &mut Vec<Span>) -> usize {
    let b = text.as_bytes();
    let mut ks = k0;
    while ks > 0 && is_key_byte(b[ks - 1]) {
        ks -= 1;
    }
    let mut ke = k1;
    while ke < b.len() && is_key_byte(b[ke]) {
        ke += 1;
    }
    let opened = ks
        .checked_sub(1)
        .map(|i| b[i])
        .filter(|c| matches!(c, b'"' | b'\''));
    let mut i = ke;
    let closed = matches!(b.get(i), Some(b'"') | Some(b'\''));
    if closed {
        i += 1;
    }
    let sep_at = blanks(b, i);
    let spaced = sep_at > i;
    let rest = &b[sep_at.min(b.len())..];
    let (sep, len) = if rest.starts_with(b":=") || rest.starts_with(b"=>") {
        (b'=', 2)
    } else if rest.starts_with(b"=") && !rest.starts_with(b"==") {
        (b'=', 1)
    } else if rest.starts_with(b":") {
        (b':', 1)
    } else {
        return ke;
    };
    let v0 = blanks(b, sep_at + len);
    let shape = match b.get(v0) {
        // `'PASS' : 'MISS'` is a conditional expression, not a mapping.
        Some(b'"') | Some(b'\'') if !(sep == b':' && spaced) => Shape::Quoted,
        Some(_) if sep == b'=' && len == 1 && !spaced && v0 == sep_at + 1 => Shape::Bare,
        Some(_) if sep == b':' && !spaced && v0 > sep_at + 1 && at_line_start(text, ks, opened) => {
            Shape::Colon
        }
        _ => return ke,
    };
    // A key opened by a quote that does not close after it is prose in a string
    // (`"redactSecrets.patterns: /…/ matches"`); one after `/` or `@` is a path or a
    // package (`@octokit/auth-token`).
    if (opened.is_some() && !closed)
        || matches!(ks.checked_sub(1).map(|i| b[i]), Some(b'/') | Some(b'@'))
    {
        return ke;
    }
    let key = &text[ks..ke];
    let Some(kind) = classify(key) else { return ke };
    let line_end = memchr::memchr(b'\n', &b[v0..]).map_or(b.len(), |n| v0 + n);
    let (vs, raw) = match shape {
        Shape::Quoted => {
            let q = b[v0];
            let end = memchr::memchr(q, &b[v0 + 1..line_end]).map_or(line_end, |n| v0 + 1 + n);
            (v0 + 1, &text[v0 + 1..end])
        }
        Shape::Bare => {
            let end = b[v0..line_end]
                .iter()
                .position(|c| {
                    c.is_ascii_whitespace() || matches!(c, b'"' | b'\'' | b'`' | b'\\' | b'&')
                })
                .map_or(line_end, |n| v0 + n);
            (v0, &text[v0..end])
        }
        Shape::Colon => (v0, strip_comment(&text[v0..line_end])),
    };
    let v = match shape {
        Shape::Quoted => raw,
        // Closing punctuation of the surrounding code or sentence is not the secret's.
        _ => raw.trim_end_matches([',', ';', ')', ']', '}', '.', ':']),
    };
    let after = text[vs + v.len()..].chars().next();
    let secret = plausible(v)
        && match shape {
            // The closing quote may be cut off by the view (`head -c`), so a value runs to
            // the end of the line then; one starting with a blank is code (`"token: " + t`).
            Shape::Quoted => !v.starts_with([' ', '\t']),
            Shape::Bare => {
                !matches!(v.as_bytes()[0], b'$' | b'>' | b'=') && !code_argument(v, key, after)
            }
            Shape::Colon => {
                !matches!(v.as_bytes()[0], b'"' | b'\'' | b'`' | b'#') && !code_value(raw, key)
            }
        };
    if secret {
        out.push(Span {
            start: vs,
            end: vs + v.len(),
            anchor: ks,
            kind,
        });
    }
    ke
}

/// Whether the key at `ks` (after its opening quote, if any) is the first thing on its line
/// once a view's prefix, indentation and a YAML list's `- ` are passed.
fn at_line_start(text: &str, ks: usize, opened: Option<u8>) -> bool {
    let end = ks - usize::from(opened.is_some());
    let start = memchr::memrchr(b'\n', &text.as_bytes()[..end]).map_or(0, |n| n + 1);
    let pre = &text[start..end];
    let pre = &pre[super::blocks::view_prefix(pre).unwrap_or(0)..];
    let pre = pre.trim_start_matches([' ', '\t', '·', '→']);
    let pre = pre.strip_prefix('-').unwrap_or(pre);
    pre.trim_start_matches([' ', '\t', '·', '→']).is_empty()
}

/// A trailing ` # comment` (YAML), and trailing blanks, removed.
fn strip_comment(v: &str) -> &str {
    let v = match v.find(" #").or_else(|| v.find("\t#")) {
        Some(i) => &v[..i],
        None => v,
    };
    v.trim_end()
}

/// The password of a URL whose `://` is at `at` (`scheme://user:pass@host`); returns where
/// the keyword pass goes on.
fn url(text: &str, at: usize, out: &mut Vec<Span>) -> usize {
    let b = text.as_bytes();
    let mut s = at;
    while s > 0
        && at - s < 20
        && (b[s - 1].is_ascii_alphanumeric() || matches!(b[s - 1], b'+' | b'.' | b'-'))
    {
        s -= 1;
    }
    let from = at + 3;
    if s == at || !b[s].is_ascii_alphabetic() {
        return from;
    }
    let stop = |c: &u8| {
        c.is_ascii_whitespace() || matches!(c, b'/' | b'?' | b'#' | b'"' | b'\'' | b'<' | b'>')
    };
    let auth_end = b[from..]
        .iter()
        .position(stop)
        .map_or(b.len(), |n| from + n);
    let Some(at_sign) = memchr::memrchr(b'@', &b[from..auth_end]).map(|n| from + n) else {
        return from;
    };
    let Some(colon) = memchr::memchr(b':', &b[from..at_sign]).map(|n| from + n) else {
        return from;
    };
    let pass = &text[colon + 1..at_sign];
    if !pass.is_empty() && plausible(pass) {
        out.push(Span {
            start: colon + 1,
            end: at_sign,
            anchor: s,
            kind: "password",
        });
    }
    auth_end
}
