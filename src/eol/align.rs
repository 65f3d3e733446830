//! Line alignment for the re-encoder: which new lines are old lines left untouched.
//!
//! `similar`'s Myers diff is O(N·D), so a replace_all that touches thousands of scattered
//! lines of a 100k-line file would take seconds. Lines that occur exactly once on each side
//! are aligned first (the longest increasing run of them, as patience diff does); those
//! anchors cut the problem into small gaps, and Myers only runs on a gap whose two sides
//! still share a line. The gaps of a typical edit share nothing, so the whole alignment is
//! a few hash-map passes.

use similar::DiffOp;
use std::collections::{HashMap, HashSet};
use std::time::Instant;

/// Calls `equal(old_index, new_index)` for every pair of lines aligned as unchanged.
pub(super) fn align(
    old: &[&str],
    new: &[&str],
    deadline: Instant,
    mut equal: impl FnMut(usize, usize),
) {
    let mut prev = (0, 0);
    for (oi, ni) in anchors(old, new)
        .into_iter()
        .chain(std::iter::once((old.len(), new.len())))
    {
        gap(&old[prev.0..oi], &new[prev.1..ni], deadline, |a, b| {
            equal(prev.0 + a, prev.1 + b)
        });
        if oi < old.len() {
            equal(oi, ni);
        }
        prev = (oi + 1, ni + 1);
    }
}

/// Lines unique on both sides, as `(old, new)` pairs increasing in both indices.
fn anchors(old: &[&str], new: &[&str]) -> Vec<(usize, usize)> {
    let mut counts: HashMap<&str, (u32, usize, u32)> = HashMap::with_capacity(old.len());
    for (i, l) in old.iter().enumerate() {
        let e = counts.entry(l).or_insert((0, i, 0));
        e.0 += 1;
    }
    let mut new_pos: HashMap<&str, usize> = HashMap::new();
    for (j, l) in new.iter().enumerate() {
        if let Some(e) = counts.get_mut(l) {
            e.2 += 1;
            new_pos.insert(l, j);
        }
    }
    let mut pairs: Vec<(usize, usize)> = counts
        .iter()
        .filter(|(_, &(o, _, n))| o == 1 && n == 1)
        .map(|(l, &(_, i, _))| (i, new_pos[l]))
        .collect();
    pairs.sort_unstable_by_key(|p| p.1);
    longest_increasing(&pairs)
}

/// The longest subsequence of `pairs` (sorted by `.1`) whose `.0` also increases.
fn longest_increasing(pairs: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let mut tails: Vec<usize> = Vec::new(); // index into pairs of the smallest tail per length
    let mut back: Vec<Option<usize>> = vec![None; pairs.len()];
    for (k, p) in pairs.iter().enumerate() {
        let pos = tails.partition_point(|&t| pairs[t].0 < p.0);
        back[k] = pos.checked_sub(1).map(|q| tails[q]);
        if pos == tails.len() {
            tails.push(k);
        } else {
            tails[pos] = k;
        }
    }
    let mut out = Vec::with_capacity(tails.len());
    let mut cur = tails.last().copied();
    while let Some(k) = cur {
        out.push(pairs[k]);
        cur = back[k];
    }
    out.reverse();
    out
}

/// Aligns one gap between anchors: common ends first, then Myers if anything is shared.
fn gap(old: &[&str], new: &[&str], deadline: Instant, mut equal: impl FnMut(usize, usize)) {
    let pre = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let max = old.len().min(new.len()) - pre;
    let suf = old
        .iter()
        .rev()
        .zip(new.iter().rev())
        .take(max)
        .take_while(|(a, b)| a == b)
        .count();
    for k in 0..pre {
        equal(k, k);
    }
    for k in 1..=suf {
        equal(old.len() - k, new.len() - k);
    }
    let (om, nm) = (&old[pre..old.len() - suf], &new[pre..new.len() - suf]);
    if om.is_empty() || nm.is_empty() {
        return;
    }
    let set: HashSet<&str> = om.iter().copied().collect();
    if !nm.iter().any(|l| set.contains(l)) {
        return;
    }
    for op in crate::diffops::myers(om, nm, Some(deadline)) {
        if let DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = op
        {
            for k in 0..len {
                equal(pre + old_index + k, pre + new_index + k);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn pairs(old: &[&str], new: &[&str]) -> Vec<(usize, usize)> {
        let mut v = Vec::new();
        align(old, new, Instant::now() + Duration::from_secs(5), |a, b| {
            v.push((a, b))
        });
        v.sort();
        v
    }

    #[test]
    fn aligns_unchanged_lines_around_edits() {
        assert_eq!(
            pairs(&["a", "b", "c"], &["a", "X", "c"]),
            vec![(0, 0), (2, 2)]
        );
        assert_eq!(
            pairs(&["x", "x", "y"], &["x", "N", "x", "y"]),
            vec![(0, 0), (1, 2), (2, 3)]
        );
        assert_eq!(pairs(&["a", "b"], &["b", "a"]).len(), 1);
        assert!(pairs(&[], &["a"]).is_empty());
    }

    #[test]
    fn scattered_changes_of_a_big_file_align_every_untouched_line() {
        let old: Vec<String> = (0..100_000)
            .map(|i| format!("line {i} {}\n", if i % 10 == 0 { "t" } else { "k" }))
            .collect();
        let new: Vec<String> = old.iter().map(|l| l.replace(" t", " T")).collect();
        let (o, n): (Vec<&str>, Vec<&str>) = (
            old.iter().map(|s| s.as_str()).collect(),
            new.iter().map(|s| s.as_str()).collect(),
        );
        let t = Instant::now();
        let p = pairs(&o, &n);
        assert_eq!(p.len(), 90_000);
        assert!(p.iter().all(|&(a, b)| a == b && a % 10 != 0));
        assert!(t.elapsed() < Duration::from_secs(20), "does not hang");
    }
}
