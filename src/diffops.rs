//! Myers edit scripts from the `similar` crate whose indices can be trusted.
//!
//! `similar::capture_diff_slices` runs its ops through the `Compact` hook, which slides
//! deletions and insertions so that they join up (the shape every caller here was tuned on),
//! but, doing so, can report ops whose `old_index`/`new_index` do not follow from the ops before them
//! (mitsuhiko/similar#78; fixed in similar 3.1.1, a major upgrade not taken with this fix): diffing `if not x: # end` against
//! `if not x:      #\tend` gave a `Delete` at new index 20, then an `Equal` at new index 17
//! and an `Insert` at the old index that `Equal` had just covered. Whoever replays such ops
//! by their ranges puts characters (or line terminators) in the wrong place: the edit engine
//! wrote the file's drifted whitespace after the wrong character (issue 31). The ops' kinds,
//! order and lengths are right; only their positions are not. So the positions are
//! recomputed from the lengths, and the script is checked — each op starting where the
//! previous ended, every `Equal` run equal — before anyone uses it. Should a script ever fail
//! the check, Myers' own uncompacted script is used, and failing that one that replaces
//! everything: correct, if not minimal.

use similar::algorithms::{diff_deadline, Capture, Replace};
use similar::{Algorithm, DiffOp};
use std::hash::Hash;
use std::time::Instant;

/// The compacted Myers edit script turning `old` into `new`, its ranges consecutive and
/// exact; past `deadline` Myers gives up on minimality (as `similar` does), never on
/// correctness.
pub fn myers<T: Eq + Hash + Ord>(old: &[T], new: &[T], deadline: Option<Instant>) -> Vec<DiffOp> {
    let ops = renumber(similar::capture_diff_slices_deadline(
        Algorithm::Myers,
        old,
        new,
        deadline,
    ));
    if consistent(&ops, old, new) {
        return ops;
    }
    let raw = uncompacted(old, new, deadline);
    if consistent(&raw, old, new) {
        raw
    } else {
        whole(old.len(), new.len())
    }
}

/// `ops` with each op placed where the previous one ended.
fn renumber(ops: Vec<DiffOp>) -> Vec<DiffOp> {
    let (mut o, mut n) = (0, 0);
    ops.into_iter()
        .map(|op| {
            let (ol, nl) = (op.old_range().len(), op.new_range().len());
            let placed = match op {
                DiffOp::Equal { len, .. } => DiffOp::Equal {
                    old_index: o,
                    new_index: n,
                    len,
                },
                DiffOp::Delete { old_len, .. } => DiffOp::Delete {
                    old_index: o,
                    old_len,
                    new_index: n,
                },
                DiffOp::Insert { new_len, .. } => DiffOp::Insert {
                    old_index: o,
                    new_index: n,
                    new_len,
                },
                DiffOp::Replace {
                    old_len, new_len, ..
                } => DiffOp::Replace {
                    old_index: o,
                    old_len,
                    new_index: n,
                    new_len,
                },
            };
            (o, n) = (o + ol, n + nl);
            placed
        })
        .collect()
}

/// Myers' script as the algorithm emits it, adjacent deletions and insertions merged into
/// replacements, nothing moved.
fn uncompacted<T: Eq + Hash + Ord>(old: &[T], new: &[T], deadline: Option<Instant>) -> Vec<DiffOp> {
    let mut hook = Replace::new(Capture::new());
    // Capture never fails: its error type is `Infallible`.
    let Ok(()) = diff_deadline(
        Algorithm::Myers,
        &mut hook,
        old,
        0..old.len(),
        new,
        0..new.len(),
        deadline,
    );
    hook.into_inner().into_ops()
}

/// Whether `ops` cover `old` and `new` in order, without gaps, and their `Equal` runs are.
fn consistent<T: Eq>(ops: &[DiffOp], old: &[T], new: &[T]) -> bool {
    let (mut o, mut n) = (0, 0);
    for op in ops {
        let (or, nr) = (op.old_range(), op.new_range());
        if or.start != o || nr.start != n || or.end > old.len() || nr.end > new.len() {
            return false;
        }
        if matches!(op, DiffOp::Equal { .. }) && old[or.clone()] != new[nr.clone()] {
            return false;
        }
        (o, n) = (or.end, nr.end);
    }
    o == old.len() && n == new.len()
}

/// The script that replaces everything: correct, if not minimal.
fn whole(old: usize, new: usize) -> Vec<DiffOp> {
    match (old, new) {
        (0, 0) => Vec::new(),
        (0, n) => vec![DiffOp::Insert {
            old_index: 0,
            new_index: 0,
            new_len: n,
        }],
        (o, 0) => vec![DiffOp::Delete {
            old_index: 0,
            old_len: o,
            new_index: 0,
        }],
        (o, n) => vec![DiffOp::Replace {
            old_index: 0,
            old_len: o,
            new_index: 0,
            new_len: n,
        }],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chars(s: &str) -> Vec<char> {
        s.chars().collect()
    }

    #[test]
    fn the_script_is_consecutive_where_similars_compacted_one_is_not() {
        let (a, b) = (
            chars("if not nextchar: # end of file"),
            chars("if not nextchar:      #\tend of file"),
        );
        // similar's own capture reports an op whose index does not follow the one before it.
        let compacted = similar::capture_diff_slices(Algorithm::Myers, &a, &b);
        assert!(!consistent(&compacted, &a, &b), "{compacted:?}");
        // Renumbered, the same ops are a consistent script, and it is the one used.
        let ops = myers(&a, &b, None);
        assert!(consistent(&ops, &a, &b), "{ops:?}");
        assert_eq!(ops, renumber(compacted));
        assert!(consistent(&uncompacted(&a, &b, None), &a, &b));
        // The issue's own example.
        let (a, b) = ([1, 1, 0, 2], [2, 1, 0, 0, 0, 0]);
        assert!(consistent(&myers(&a, &b, None), &a, &b));
    }

    #[test]
    fn a_broken_script_falls_back_to_replacing_everything() {
        let bad = [DiffOp::Equal {
            old_index: 0,
            new_index: 0,
            len: 1,
        }];
        assert!(!consistent(&bad, &['a'], &['b']));
        assert_eq!(whole(1, 1).len(), 1);
        assert!(consistent(&whole(2, 3), &['a', 'b'], &['c', 'd', 'e']));
        assert!(consistent(&whole(0, 0), &[] as &[char], &[]));
    }

    #[test]
    fn random_scripts_are_consistent() {
        // xorshift: deterministic.
        let mut s = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: u64| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s % n) as u8
        };
        for _ in 0..2000 {
            let a: Vec<u8> = (0..next(12)).map(|_| next(3)).collect();
            let b: Vec<u8> = (0..next(12)).map(|_| next(3)).collect();
            let ops = myers(&a, &b, None);
            assert!(consistent(&ops, &a, &b), "{a:?} {b:?} {ops:?}");
            assert!(consistent(&uncompacted(&a, &b, None), &a, &b));
            // Replaying the script gives `new`.
            let mut out = Vec::new();
            for op in &ops {
                match op {
                    DiffOp::Equal { .. } => out.extend_from_slice(&a[op.old_range()]),
                    _ => out.extend_from_slice(&b[op.new_range()]),
                }
            }
            assert_eq!(out, b);
        }
    }
}
