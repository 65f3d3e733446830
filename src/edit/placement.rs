//! Where new_string's lines sit against old_string's: the line split both are diffed in,
//! the vote on whose indentation new_string's changed lines are written in, and the
//! placements a line diff decides arbitrarily (which of several equal lines a deletion
//! removes), which must not decide bytes.

use super::cascade::{indent_split, is_blank};
use super::changed::Refusal;
use similar::DiffOp;

/// Why the line diff's placement of a deletion or insertion decides bytes the model did not:
/// removing one of two equal old_string lines (or adding a line equal to its neighbour) can
/// be placed at either, and when the file's versions of those lines differ (one has
/// trailing whitespace, another indentation) the two placements write different files.
pub fn sliding(
    ops: &[DiffOp],
    needle: &[&str],
    new: &[&str],
    map: &[Option<usize>],
    file: &[&str],
) -> Option<Refusal> {
    let file_of = |i: usize| map.get(i).copied().flatten().map(|f| file[f]);
    let at = |i: usize| needle.get(i).copied();
    for op in ops {
        let (o0, o1) = (op.old_range().start, op.old_range().end);
        let moves = match *op {
            // A deletion slides over a run of equal lines as far as the block repeats:
            // every placement leaves the same old_string lines, but the file lines they
            // stand for may differ.
            DiffOp::Delete { .. } => {
                let len = o1 - o0;
                let mut lo = o0;
                while lo > 0 && at(lo - 1) == at(lo - 1 + len) {
                    lo -= 1;
                }
                let mut hi = o1;
                while at(hi).is_some() && at(hi) == at(hi - len) {
                    hi += 1;
                }
                let kept = |skip: usize| -> Vec<Option<&str>> {
                    (lo..hi)
                        .filter(|&i| i < skip || i >= skip + len)
                        .map(file_of)
                        .collect()
                };
                let chosen = kept(o0);
                (lo..=hi - len).any(|p| kept(p) != chosen)
            }
            // An insertion slides over the lines it repeats; crossing a line whose file
            // copy has drifted moves the file's version of it to the other side.
            DiffOp::Insert { .. } => {
                let (n0, n1) = (op.new_range().start, op.new_range().end);
                let block = &new[n0..n1];
                let drifted = |i: usize| file_of(i).is_some_and(|f| Some(f) != at(i));
                let mut moves = false;
                let mut j = 0;
                while !moves
                    && j < o0
                    && at(o0 - 1 - j) == Some(block[block.len() - 1 - j % block.len()])
                {
                    moves = drifted(o0 - 1 - j);
                    j += 1;
                }
                j = 0;
                while !moves && at(o0 + j) == Some(block[j % block.len()]) {
                    moves = drifted(o0 + j);
                    j += 1;
                }
                moves
            }
            _ => false,
        };
        if moves {
            return Some("new_string removes or repeats one of several equal lines, whose copies in the file differ in whitespace, so which one is meant is not decided".to_string());
        }
    }
    None
}

/// `s` split into lines with trailing empty lines dropped, and the newlines that followed.
pub fn core_lines(s: &str) -> (Vec<&str>, &str) {
    let core = s.trim_end_matches('\n');
    let lines = if core.is_empty() {
        Vec::new()
    } else {
        core.split('\n').collect()
    };
    (lines, &s[core.len()..])
}

/// Votes on whether new_string's changed lines are written in old_string's indentation
/// (first) or already in the file's (second): lines replaced one for one are compared.
pub fn votes(
    ops: &[DiffOp],
    needle: &[&str],
    new: &[&str],
    file_indent: &dyn Fn(usize) -> Option<String>,
) -> (usize, usize) {
    let (mut old_side, mut file_side) = (0, 0);
    for op in ops {
        let (o, n, len) = match *op {
            DiffOp::Equal {
                old_index,
                new_index,
                len,
            } => (old_index, new_index, len),
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } if old_len == new_len => (old_index, new_index, old_len),
            _ => continue,
        };
        for k in 0..len {
            let (ni, fi) = (indent_split(needle[o + k]).0, file_indent(o + k));
            let mi = indent_split(new[n + k]).0;
            match fi {
                Some(fi) if fi != ni && !is_blank(new[n + k]) => {
                    old_side += usize::from(mi == ni);
                    file_side += usize::from(mi == fi);
                }
                _ => {}
            }
        }
    }
    (old_side, file_side)
}
