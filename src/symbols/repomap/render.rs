//! A [`Map`] of one scope in a byte budget: the longest best-first prefix of the scope's
//! definitions whose map fits, grouped by file (files by their best shown definition, then
//! their rank; definitions in line order), and a footer. The size of every prefix comes
//! from running sums, so fitting costs one pass over the candidates, not a render per step.

use super::{Map, MapFile};
use crate::symbols::ondemand::Skip;
use crate::symbols::rank::Ranked;

/// The footer: `[repo map: S of T definitions, F of N source files (K in other languages
/// not mapped); not parsed (too large or too slow): …; more with …]`.
struct Footer<'a> {
    total: usize,
    sources: usize,
    other: usize,
    unparsed: &'a [&'a str],
}

impl Footer<'_> {
    fn text(&self, shown: usize, files: usize) -> String {
        let mut s = format!(
            "[repo map: {shown} of {} definitions, {files} of {} source files",
            self.total, self.sources
        );
        if self.other > 0 {
            s.push_str(&format!(" ({} in other languages not mapped)", self.other));
        }
        if !self.unparsed.is_empty() {
            s.push_str(&format!(
                "; not parsed (too large or too slow): {}",
                self.unparsed.join(", ")
            ));
        }
        if shown < self.total {
            s.push_str("; more with a larger max_bytes or a narrower path");
        }
        s.push(']');
        s
    }
}

/// The map of the files whose display path `wanted` accepts (`None`: all), within `budget`
/// bytes.
pub fn render(map: &Map, wanted: Option<&dyn Fn(&str) -> bool>, budget: usize) -> String {
    let keep: Option<Vec<bool>> = wanted.map(|w| map.files.iter().map(|f| w(&f.display)).collect());
    let kept = |file: usize| keep.as_ref().is_none_or(|k| k[file]);
    let sources = keep
        .as_ref()
        .map_or(map.files.len(), |k| k.iter().filter(|&&b| b).count());
    let skipped: Vec<&(std::sync::Arc<str>, Skip)> = map
        .skipped
        .iter()
        .filter(|(d, _)| wanted.is_none_or(|w| w(d)))
        .collect();
    let other = skipped
        .iter()
        .filter(|(_, why)| *why == Skip::Unsupported)
        .count();
    let mut unparsed: Vec<&str> = skipped
        .iter()
        .filter(|(_, why)| *why != Skip::Unsupported)
        .map(|(d, _)| &**d)
        .collect();
    unparsed.sort_by(|a, b| crate::text::js_cmp(a, b));
    let total = map.defs.iter().filter(|r| kept(r.file)).count();
    let footer = Footer {
        total,
        sources,
        other,
        unparsed: &unparsed,
    };
    // Every definition takes at least 6 bytes (`  1: x` and a newline): no more can fit.
    let hi = total.min(budget / 6 + 1);
    let chosen = map.defs.iter().filter(|r| kept(r.file)).take(hi);
    // The body's size and file count of each prefix, up to the first whose body alone is
    // over the budget (no longer prefix can fit: the body only grows).
    let mut body = Vec::new();
    let mut files = Vec::new();
    let mut seen = vec![false; map.files.len()];
    let (mut size, mut count) = (0usize, 0usize);
    body.push(0);
    files.push(0);
    for r in chosen {
        let f: &MapFile = &map.files[r.file];
        if !seen[r.file] {
            seen[r.file] = true;
            size += f.display.len() + 1;
            count += 1;
        }
        size += f.line(r.def).len();
        body.push(size);
        files.push(count);
        if size > budget {
            break;
        }
    }
    let hi = body.len() - 1;
    let fits = |k: usize| body[k] + footer.text(k, files[k]).len() <= budget;
    // The largest count whose map fits, by the binary search the map has always used (the
    // size grows with the count but for the footer's last clause).
    let (mut lo, mut hi) = (0, hi);
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    let chosen: Vec<&Ranked> = map.defs.iter().filter(|r| kept(r.file)).take(lo).collect();
    let mut text = body_of(map, &chosen);
    text.push_str(&footer.text(lo, files[lo]));
    if text.len() > budget {
        // Even the footer alone is over a tiny budget: cut on a character boundary.
        let mut cut = budget;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
    }
    text
}

/// The lines of `chosen`: files in the order of their best chosen definition (then their
/// rank), each file's definitions in line order.
fn body_of(map: &Map, chosen: &[&Ranked]) -> String {
    let mut slot = vec![usize::MAX; map.files.len()];
    let mut by_file: Vec<(usize, Vec<usize>, f64)> = Vec::new();
    for r in chosen {
        if slot[r.file] == usize::MAX {
            slot[r.file] = by_file.len();
            by_file.push((r.file, Vec::new(), r.score));
        }
        by_file[slot[r.file]].1.push(r.def);
    }
    // Files that only hold unreferenced definitions follow, by their own rank.
    by_file.sort_by(|a, b| {
        b.2.total_cmp(&a.2)
            .then_with(|| map.ranks[b.0].total_cmp(&map.ranks[a.0]))
    });
    let mut out = String::with_capacity(chosen.len() * 64);
    for (f, mut defs, _) in by_file {
        let file = &map.files[f];
        defs.sort_unstable();
        out.push_str(&file.display);
        out.push('\n');
        for d in defs {
            out.push_str(file.line(d));
        }
    }
    out
}
