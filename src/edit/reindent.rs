//! Re-indentation: when a tolerant tier matched a block whose indentation differs from the
//! file's, learn the transformation that maps `old_string`'s indentation onto the file's and
//! apply it to `new_string`, so the written lines have the file's own indentation style.
//!
//! A transformation is learned from the matched (old_string line, file line) indentation
//! pairs and accepted only when it is consistent for every pair AND maps every indented line
//! of `new_string` to a whole indentation:
//! - [`Plan::Linear`]: each side indents with one character (spaces or tabs) and the file's
//!   width is an affine function of old_string's (a shift, tabs ↔ spaces, or a re-scaled
//!   unit such as 2 → 4 spaces). With a single indentation level in the pairs, the unit
//!   ratio is that level's widths (`\t\t` ↔ 8 spaces: 4 per tab), or, when one side is at
//!   column 0, comes from the styles (a tab ↔ the spaces unit seen on that side, else 4).
//! - [`Plan::Shift`]: mixed indentation; every old_string indent starts with one base prefix
//!   that the file replaces by another, the rest being identical.
//!
//! Anything else is "no consistent transformation" and the caller keeps new_string verbatim.

/// A learned indentation transformation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plan {
    /// Indentation is already the file's.
    Identity,
    /// `file = f0 + (old - n0) * num / den`, counted in `to` / `from` characters.
    Linear {
        /// The indentation character of old_string/new_string.
        from: char,
        /// The file's indentation character.
        to: char,
        /// An anchor pair: old_string width …
        n0: i64,
        /// … and the file width it maps to.
        f0: i64,
        /// Ratio numerator (file characters).
        num: i64,
        /// Ratio denominator (old_string characters).
        den: i64,
    },
    /// Replace the prefix `from` by `to`.
    Shift {
        /// old_string's base indentation.
        from: String,
        /// The file's base indentation.
        to: String,
    },
}

fn kind(s: &str) -> Result<Option<char>, ()> {
    match s.chars().next() {
        None => Ok(None),
        Some(c) if s.chars().all(|d| d == c) => Ok(Some(c)),
        Some(_) => Err(()),
    }
}

/// The one indentation character used by all of `indents` (`Ok(None)` when all are empty).
fn common_kind<'a>(indents: impl Iterator<Item = &'a str>) -> Result<Option<char>, ()> {
    let mut found = None;
    for s in indents {
        match (kind(s)?, found) {
            (Some(k), Some(f)) if k != f => return Err(()),
            (Some(k), _) => found = Some(k),
            (None, _) => {}
        }
    }
    Ok(found)
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 {
        a.abs()
    } else {
        gcd(b, a % b)
    }
}

/// The spaces-per-level unit of a set of space indents (2, 4 or 8; 4 when unclear).
fn space_unit<'a>(indents: impl Iterator<Item = &'a str>) -> i64 {
    let g = indents.map(|s| s.len() as i64).fold(0, gcd);
    match g {
        2 | 4 | 8 => g,
        g if g > 0 && g % 4 == 0 => 4,
        _ => 4,
    }
}

impl Plan {
    /// Learns the transformation from `(old_string indent, file indent)` pairs of matched
    /// non-blank lines; `new_indents` are the indents of new_string's non-blank lines, which
    /// must all transform. `None`: no consistent transformation.
    pub fn learn(pairs: &[(&str, &str)], new_indents: &[&str]) -> Option<Plan> {
        if pairs.iter().all(|(n, f)| n == f) {
            return Some(Plan::Identity);
        }
        let plan = Self::linear(pairs, new_indents).or_else(|| Self::shift(pairs))?;
        new_indents
            .iter()
            .all(|i| plan.apply(i).is_some())
            .then_some(plan)
    }

    fn linear(pairs: &[(&str, &str)], new_indents: &[&str]) -> Option<Plan> {
        let olds = || pairs.iter().map(|p| p.0).chain(new_indents.iter().copied());
        let cn = common_kind(olds()).ok()?;
        let cf = common_kind(pairs.iter().map(|p| p.1)).ok()?;
        let (from, to) = match (cn, cf) {
            (None, None) => return Some(Plan::Identity),
            (Some(a), None) => (a, a),
            (None, Some(b)) => (b, b),
            (Some(a), Some(b)) => (a, b),
        };
        let width = |s: &str| s.chars().count() as i64;
        let lo = pairs.iter().min_by_key(|p| width(p.0))?;
        let hi = pairs.iter().max_by_key(|p| width(p.0))?;
        let (mut num, mut den) = if width(hi.0) > width(lo.0) {
            (width(hi.1) - width(lo.1), width(hi.0) - width(lo.0))
        } else {
            let (n, f) = (width(lo.0), width(lo.1));
            match (from, to) {
                (a, b) if a == b => (1, 1),
                // Both sides indented from column 0: their widths give the ratio.
                _ if n > 0 && f > 0 && (f % n == 0 || n % f == 0) => (f, n),
                (' ', _) => (1, space_unit(olds().filter(|s| !s.is_empty()))),
                _ => (
                    space_unit(pairs.iter().map(|p| p.1).filter(|s| !s.is_empty())),
                    1,
                ),
            }
        };
        if num <= 0 || den <= 0 {
            return None;
        }
        let g = gcd(num, den);
        (num, den) = (num / g, den / g);
        let (n0, f0) = (width(lo.0), width(lo.1));
        pairs
            .iter()
            .all(|(n, f)| (width(f) - f0) * den == (width(n) - n0) * num)
            .then_some(Plan::Linear {
                from,
                to,
                n0,
                f0,
                num,
                den,
            })
    }

    fn shift(pairs: &[(&str, &str)]) -> Option<Plan> {
        let (from, to) = pairs.iter().min_by_key(|p| p.0.len())?;
        pairs
            .iter()
            .all(|(n, f)| {
                n.strip_prefix(from)
                    .zip(f.strip_prefix(to))
                    .is_some_and(|(a, b)| a == b)
            })
            .then(|| Plan::Shift {
                from: from.to_string(),
                to: to.to_string(),
            })
    }

    /// The file-style indentation for an old_string-style `indent`, if it maps to one.
    pub fn apply(&self, indent: &str) -> Option<String> {
        match self {
            Plan::Identity => Some(indent.to_string()),
            Plan::Linear {
                from,
                to,
                n0,
                f0,
                num,
                den,
            } => {
                if kind(indent).ok()?.is_some_and(|k| k != *from) {
                    return None;
                }
                let v = f0 * den + (indent.chars().count() as i64 - n0) * num;
                (v >= 0 && v % den == 0).then(|| to.to_string().repeat((v / den) as usize))
            }
            Plan::Shift { from, to } => indent
                .strip_prefix(from.as_str())
                .map(|r| format!("{to}{r}")),
        }
    }

    /// A short description for the success message.
    pub fn describe(&self) -> String {
        let name = |c: char, n: i64| match (c, n) {
            ('\t', 1) => "1 tab".to_string(),
            ('\t', n) => format!("{n} tabs"),
            (_, 1) => "1 space".to_string(),
            (_, n) => format!("{n} spaces"),
        };
        match self {
            Plan::Identity => "unchanged".to_string(),
            Plan::Linear {
                from,
                to,
                n0,
                f0,
                num,
                den,
            } => {
                if from == to && num == den {
                    let d = f0 - n0;
                    let dir = if d >= 0 { "right" } else { "left" };
                    format!("shifted {dir} by {}", name(*to, d.abs()))
                } else {
                    format!(
                        "{} in old_string became {} in the file",
                        name(*from, *den),
                        name(*to, *num)
                    )
                }
            }
            Plan::Shift { from, to } => format!(
                "base indentation {} became {}",
                super::diagnose::visible(from),
                super::diagnose::visible(to)
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(plan: &Plan, s: &str) -> Option<String> {
        plan.apply(s)
    }

    #[test]
    fn a_consistent_shift_is_learned_and_extrapolated() {
        let p = Plan::learn(&[("", "    "), ("  ", "      ")], &["", "  ", "    "]).unwrap();
        assert_eq!(map(&p, "").as_deref(), Some("    "));
        assert_eq!(map(&p, "    ").as_deref(), Some("        "));
        assert_eq!(p.describe(), "shifted right by 4 spaces");
    }

    #[test]
    fn tabs_and_spaces_convert_both_ways() {
        let p = Plan::learn(&[("    ", "\t"), ("        ", "\t\t")], &["            "]).unwrap();
        assert_eq!(map(&p, "            ").as_deref(), Some("\t\t\t"));
        assert_eq!(
            p.describe(),
            "4 spaces in old_string became 1 tab in the file"
        );
        let p = Plan::learn(&[("\t", "  ")], &["\t\t"]).unwrap();
        assert_eq!(map(&p, "\t\t").as_deref(), Some("    "));
        // One level only: the unit comes from the spaces side.
        let p = Plan::learn(&[("\t\t", "        ")], &["\t\t\t"]).unwrap();
        assert_eq!(map(&p, "\t\t\t").as_deref(), Some("            "));
    }

    #[test]
    fn inconsistent_pairs_or_unmappable_new_lines_are_refused() {
        assert_eq!(
            Plan::learn(&[("", ""), ("  ", "    "), ("    ", "     ")], &[]),
            None
        );
        // new_string indents with tabs while old_string used spaces.
        assert_eq!(Plan::learn(&[("", "\t"), ("  ", "\t\t")], &["\t"]), None);
        // A dedent below what the file can express.
        assert_eq!(Plan::learn(&[("    ", "")], &[""]), None);
    }

    #[test]
    fn mixed_indentation_uses_a_prefix_shift() {
        let p = Plan::learn(&[("  ", "\t  "), ("   ", "\t   ")], &["  "]);
        assert!(p.is_some());
        let p = Plan::learn(&[("\t  ", " \t  "), ("\t   ", " \t   ")], &["\t    "]).unwrap();
        assert_eq!(map(&p, "\t    ").as_deref(), Some(" \t    "));
        assert_eq!(Plan::learn(&[("", "")], &["    "]), Some(Plan::Identity));
    }
}
