//! The tolerant cascade edit_file falls back to when `old_string` has no exact match
//! (CONTRACT §5 edit_file, plus tiers 5–7 added for model drift). Strictest tier first; the
//! first tier with a surviving candidate decides, and every candidate of that tier is
//! reported, so a tolerant match is only ever applied when it is unique — never a guess.
//!
//! 1. indentation-flexible: same lines once each side's common leading indentation is removed;
//! 2. per-line trimmed;
//! 3. whitespace-collapsed (the block's whitespace-separated words are the same);
//! 4. trimmed substring (only when trimming changes `old_string`);
//! 5. typographic: per-line trimmed with curly quotes, dashes, Unicode spaces and ellipses
//!    folded to ASCII ([`super::typographic`]); a one-line fragment is searched within lines;
//! 6. blank-line-insensitive: the non-blank lines match per-line trimmed, blank lines
//!    dropped or added inside the block ([`super::blank_lines`]);
//! 7. escape drift: `old_string` decoded ([`super::escapes`]) and searched exactly, then
//!    with tiers 1–3.
//!
//! Tiers 1–3, 5 and 6 compare windows of whole lines. Per-line views (indent split, trim) are
//! slices of the file's lines computed on the fly without allocating, and a window is
//! abandoned at its first differing line, so a scan of a 100k-line file is a single linear
//! pass per tier.

use super::escapes::{self, Decoder};
use super::{blank_lines, exact, typographic, Lines};
use crate::text::{normalize_eol, utf16_len};

/// Which tier of the cascade matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tier {
    /// 1: indentation-flexible.
    Indent,
    /// 2: per-line trimmed.
    Trimmed,
    /// 3: whitespace-collapsed.
    Collapsed,
    /// 4: trimmed substring.
    Substring,
    /// 5: typographic folding.
    Typographic,
    /// 6: blank lines ignored.
    BlankLines,
    /// 7: escape drift, decoded by the decoder; the inner tier is `None` for an exact match
    /// of the decoded text.
    Escapes(Decoder, Option<InnerTier>),
}

/// The tier that matched a decoded `old_string` inside tier 7.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InnerTier {
    /// Tier 1.
    Indent,
    /// Tier 2.
    Trimmed,
    /// Tier 3.
    Collapsed,
}

impl Tier {
    /// The name used in messages.
    pub fn describe(self) -> String {
        match self {
            Tier::Indent => "tier 1, indentation-flexible".into(),
            Tier::Trimmed => "tier 2, per-line trimmed".into(),
            Tier::Collapsed => "tier 3, whitespace-collapsed".into(),
            Tier::Substring => "tier 4, trimmed substring".into(),
            Tier::Typographic => "tier 5, typographic: curly quotes, dashes, non-breaking spaces and ellipses read as their ASCII forms".into(),
            Tier::BlankLines => "tier 6, blank-line-insensitive".into(),
            Tier::Escapes(d, _) => format!("tier 7, escape drift: {}", d.describe()),
        }
    }
}

/// The deciding tier's result: its regions, and the `old_string` text it matched with
/// (LF-normalised, and decoded for tier 7).
#[derive(Debug)]
pub struct Found {
    /// The tier that found the regions.
    pub tier: Tier,
    /// Every candidate region of that tier (more than one is ambiguous).
    pub regions: Vec<Region>,
    /// The `old_string` the regions correspond to.
    pub needle: String,
}

/// One region of the file a tolerant tier matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Region {
    /// Byte offset of the start of the region in the normalised text.
    pub start: usize,
    /// Byte offset one past its end.
    pub end: usize,
    /// 1-based line number of its first line.
    pub line: usize,
    /// How many whole file lines the region spans; 0 for a substring region (tiers 4, 5 on a
    /// fragment, 7 exact), which is replaced verbatim.
    pub count: usize,
}

/// `old_string` prepared for the cascade: EOLs normalised, split into lines with trailing
/// empty lines dropped.
#[derive(Debug)]
pub struct Needle<'a> {
    /// The normalised `old_string`.
    pub text: &'a str,
    /// Its lines, trailing empty lines excluded.
    pub lines: Vec<&'a str>,
    /// Whether it ends with `\n`.
    pub ends_with_newline: bool,
}

impl<'a> Needle<'a> {
    /// Splits an LF-normalised `old_string`.
    pub fn new(text: &'a str) -> Needle<'a> {
        let mut lines: Vec<&str> = text.split('\n').collect();
        while lines.last() == Some(&"") {
            lines.pop();
        }
        Needle {
            text,
            lines,
            ends_with_newline: text.ends_with('\n'),
        }
    }
}

/// A line's leading spaces/tabs and the rest.
pub fn indent_split(line: &str) -> (&str, &str) {
    let rest = line.trim_start_matches([' ', '\t']);
    (&line[..line.len() - rest.len()], rest)
}

/// Whether a line is empty or whitespace only.
pub fn is_blank(line: &str) -> bool {
    line.trim().is_empty()
}

/// The smallest indentation among the non-blank lines.
fn common_indent<'s>(lines: impl Iterator<Item = &'s str>) -> usize {
    lines
        .filter(|l| !is_blank(l))
        .map(|l| indent_split(l).0.len())
        .min()
        .unwrap_or(0)
}

fn tier1(file: &[&str], needle: &[&str]) -> bool {
    if !file
        .iter()
        .zip(needle)
        .all(|(f, o)| indent_split(f).1 == indent_split(o).1)
    {
        return false;
    }
    let (cf, co) = (
        common_indent(file.iter().copied()),
        common_indent(needle.iter().copied()),
    );
    file.iter()
        .zip(needle)
        .all(|(f, o)| is_blank(f) || indent_split(f).0[cf..] == indent_split(o).0[co..])
}

fn tier2(file: &[&str], needle: &[&str]) -> bool {
    file.iter().zip(needle).all(|(f, o)| f.trim() == o.trim())
}

fn tier3(file: &[&str], needle: &[&str]) -> bool {
    // A window must not gain or lose a blank line at its edges, or one logical region would
    // also match shifted by a line and be reported as ambiguous.
    let edges = |a: &[&str], b: &[&str]| {
        is_blank(a[0]) == is_blank(b[0]) && is_blank(a[a.len() - 1]) == is_blank(b[b.len() - 1])
    };
    edges(file, needle)
        && file
            .iter()
            .flat_map(|l| l.split_whitespace())
            .eq(needle.iter().flat_map(|l| l.split_whitespace()))
}

/// Whether a candidate span is out of proportion with `old_string` (CONTRACT: its line count
/// is at least twice the needle's, or it is 500+ UTF-16 units longer).
pub fn disproportionate(span: &str, needle: &Needle) -> bool {
    let span_lines = span.bytes().filter(|&b| b == b'\n').count() + 1;
    span_lines >= 2 * needle.lines.len() || utf16_len(span) >= utf16_len(needle.text) + 500
}

/// Every window of whole lines that `eq` accepts, filtered for proportion.
pub fn line_tier(
    text: &str,
    lines: &Lines,
    needle: &Needle,
    eq: fn(&[&str], &[&str]) -> bool,
) -> Vec<Region> {
    let k = needle.lines.len();
    let mut found = Vec::new();
    if k == 0 || k > lines.lines.len() {
        return found;
    }
    for p in 0..=lines.lines.len() - k {
        if !eq(&lines.lines[p..p + k], &needle.lines) {
            continue;
        }
        let start = lines.starts[p];
        let mut end = lines.starts[p + k - 1] + lines.lines[p + k - 1].len();
        if needle.ends_with_newline && end < text.len() {
            end += 1; // the following newline
        }
        if !disproportionate(&text[start..end], needle) {
            found.push(Region {
                start,
                end,
                line: p + 1,
                count: k,
            });
        }
    }
    found
}

/// Runs tiers 1–4 on the normalised text and `old_string` (already LF-normalised).
/// Returns the regions of the first tier that found any (empty when none did).
pub fn find(text: &str, lines: &Lines, old: &str) -> Vec<Region> {
    contract_tiers(text, lines, old).map_or_else(Vec::new, |(_, r)| r)
}

fn contract_tiers(text: &str, lines: &Lines, old: &str) -> Option<(Tier, Vec<Region>)> {
    let needle = Needle::new(old);
    let tiers: [(Tier, Eq); 3] = [
        (Tier::Indent, tier1),
        (Tier::Trimmed, tier2),
        (Tier::Collapsed, tier3),
    ];
    for (tier, eq) in tiers {
        let found = line_tier(text, lines, &needle, eq);
        if !found.is_empty() {
            return Some((tier, found));
        }
    }
    let trimmed = old.trim();
    if trimmed.is_empty() || trimmed == old {
        return None;
    }
    let found = substrings(text, trimmed, &needle);
    (!found.is_empty()).then_some((Tier::Substring, found))
}

/// A window predicate: file lines against needle lines.
pub type Eq = fn(&[&str], &[&str]) -> bool;

/// Every occurrence of `part` (overlapping ones too) as a substring region, filtered for
/// proportion.
fn substrings(text: &str, part: &str, needle: &Needle) -> Vec<Region> {
    let offsets = exact::find_overlapping(text, part);
    let numbers = exact::line_numbers(text, &offsets);
    offsets
        .into_iter()
        .zip(numbers)
        .map(|(start, line)| Region {
            start,
            end: start + part.len(),
            line,
            count: 0,
        })
        .filter(|r| !disproportionate(&text[r.start..r.end], needle))
        .collect()
}

/// Runs the whole cascade (tiers 1–7) on `old` (LF-normalised). `None` when no tier found
/// anything.
pub fn find_tier(text: &str, lines: &Lines, old: &str) -> Option<Found> {
    let found = |tier, regions| Found {
        tier,
        regions,
        needle: old.to_string(),
    };
    let needle = Needle::new(old);
    let nonempty = |tier, regions: Vec<Region>| (!regions.is_empty()).then(|| found(tier, regions));
    let strict = contract_tiers(text, lines, old)
        .map(|(tier, regions)| found(tier, regions))
        .or_else(|| {
            nonempty(
                Tier::Typographic,
                typographic::regions(text, lines, &needle),
            )
        })
        .or_else(|| nonempty(Tier::BlankLines, blank_lines::find(text, lines, &needle)));
    let Some(mut f) = strict else {
        return escape_tier(text, lines, old);
    };
    if let [one] = f.regions.as_slice() {
        let more = elsewhere(text, lines, &needle, *one, f.tier);
        f.regions.extend(more);
    }
    Some(f)
}

/// Tier 7. Every decoder is tried: two readings of the escapes that find different places
/// (a `\t` read as a tab matching a tab-indented copy elsewhere, say) leave the place the
/// model meant undecided, so the regions of all of them are reported.
fn escape_tier(text: &str, lines: &Lines, old: &str) -> Option<Found> {
    if !escapes::has_escapes(old) {
        return None;
    }
    let mut first: Option<Found> = None;
    for decoder in Decoder::ALL {
        let decoded = normalize_eol(&decoder.decode(old)).into_owned();
        if decoded == old || decoded.trim().is_empty() {
            continue;
        }
        let Some((inner, regions)) = plain(text, lines, &decoded) else {
            continue;
        };
        match &mut first {
            None => {
                first = Some(Found {
                    tier: Tier::Escapes(decoder, inner),
                    regions,
                    needle: decoded,
                })
            }
            Some(f) => {
                // Two readings that match the same span agree; any other span (one reading
                // ending inside the other's escape, say) is a second candidate.
                let other: Vec<Region> = regions
                    .into_iter()
                    .filter(|r| {
                        f.regions
                            .iter()
                            .all(|k| (k.start, k.end) != (r.start, r.end))
                    })
                    .collect();
                f.regions.extend(other);
            }
        }
    }
    first
}

/// Whether two regions are different places: neither holds the other (regions that only
/// overlap, `}` lines shifted by one, are two candidates).
fn apart(a: &Region, b: &Region) -> bool {
    let holds = |x: &Region, y: &Region| x.start <= y.start && y.end <= x.end;
    !holds(a, b) && !holds(b, a)
}

/// The regions the more tolerant tiers find away from `one`, the only region of `tier`.
///
/// "The first tier that finds anything decides" is the contract's order, but a model's
/// drift can make old_string match one place strictly and the place it meant only
/// tolerantly: its old_string had the indentation of a similar block elsewhere and the
/// trailing whitespace of neither, or its escaped `\n` is also literally in a string
/// elsewhere. When a more tolerant tier (3, 5, 6 or 7) sees old_string at a second place,
/// which one the model meant is not decided, and the edit is reported as ambiguous instead
/// of landing on a guess.
///
/// A place is a place whatever old_string's final line break does to the proportion rule: a
/// one-line old_string ending in `\n` is out of proportion with every single line (its span
/// counts two), which is why tier 4 decides it, but a line tier 3, 5 or 6 sees elsewhere is
/// still a line the model may have meant (`size_t ext_len);\n` found inside a longer line
/// by tier 4, and whole, aligned `size_t   ext_len);`, by tier 3).
fn elsewhere(text: &str, lines: &Lines, needle: &Needle, one: Region, tier: Tier) -> Vec<Region> {
    let needle = &Needle {
        text: needle.text,
        lines: needle.lines.clone(),
        ends_with_newline: false,
    };
    let contract = matches!(
        tier,
        Tier::Indent | Tier::Trimmed | Tier::Collapsed | Tier::Substring
    );
    let mut more = Vec::new();
    if contract {
        more.extend(line_tier(text, lines, needle, tier3));
        more.extend(typographic::regions(text, lines, needle));
    }
    if contract || tier == Tier::Typographic {
        more.extend(blank_lines::find(text, lines, needle));
    }
    if let Some(f) = escape_tier(text, lines, needle.text) {
        more.extend(f.regions);
    }
    more.retain(|r| apart(r, &one));
    more.sort_by_key(|r| r.start);
    // Several tiers see the same place with different extents: one region a place.
    let mut places: Vec<Region> = Vec::new();
    for r in more {
        if places.last().is_none_or(|p| apart(p, &r)) {
            places.push(r);
        }
    }
    places
}

/// Tier 7's search for a decoded `old_string`: exact, then tiers 1–3.
fn plain(text: &str, lines: &Lines, decoded: &str) -> Option<(Option<InnerTier>, Vec<Region>)> {
    let needle = Needle::new(decoded);
    // An exact match of the decoded text is as long as it: the proportion rule has nothing
    // to judge there (and would drop every one-line old_string ending in an escaped `\n`).
    let offsets = exact::find_overlapping(text, decoded);
    let exact: Vec<Region> = offsets
        .iter()
        .zip(exact::line_numbers(text, &offsets))
        .map(|(&start, line)| Region {
            start,
            end: start + decoded.len(),
            line,
            count: 0,
        })
        .collect();
    if !exact.is_empty() {
        return Some((None, exact));
    }
    let tiers: [(InnerTier, Eq); 3] = [
        (InnerTier::Indent, tier1),
        (InnerTier::Trimmed, tier2),
        (InnerTier::Collapsed, tier3),
    ];
    tiers.into_iter().find_map(|(tier, eq)| {
        let found = line_tier(text, lines, &needle, eq);
        (!found.is_empty()).then_some((Some(tier), found))
    })
}

#[cfg(test)]
#[path = "cascade_tests.rs"]
mod tests;
