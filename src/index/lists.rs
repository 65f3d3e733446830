//! Posting lists built in bulk, without a container per trigram.
//!
//! A build splits the files (numbered in path order) into contiguous id ranges of at most
//! `1 << PAIR_ID_BITS` files. A thread takes a range, extracts every file's distinct
//! trigrams as `gram << PAIR_ID_BITS | file within the range` pairs into one reused vector,
//! and turns them into that range's lists with one stable radix sort on the gram
//! ([`Lists::from_pairs`]): files were appended in ascending order, so each gram's ids
//! come out ascending, ready for gap encoding. A per-trigram `Vec` (or a hash map of them)
//! costs an allocation and a cache miss per pair; the sort streams through memory, four
//! bytes a pair. The ranges' lists are then concatenated gram by gram in range order
//! ([`Merged`]), which keeps every list ascending: only the first gap of each later range
//! is re-encoded.

use super::grams::{put_varint, PAIR_ID_BITS};

/// One trigram's list within a [`Lists`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gram {
    /// The trigram.
    pub gram: u32,
    /// How many ids.
    pub count: u32,
    /// The first id (stored absolute at the start of the list).
    pub first: u32,
    /// The last id.
    pub last: u32,
    /// Length of the encoded list in bytes.
    pub len: u32,
}

/// The posting lists of a range of file ids: grams ascending, their encoded lists
/// concatenated in the same order (LEB128 gaps, the first id absolute).
#[derive(Debug, Default)]
pub struct Lists {
    /// The grams, ascending.
    pub grams: Vec<Gram>,
    /// The encoded lists, in gram order.
    pub bytes: Vec<u8>,
}

/// A stable LSD radix sort of `pairs` on the gram (the bits above [`PAIR_ID_BITS`]): two
/// passes of 11 and 10 bits through `scratch`. Each pass streams the whole vector twice;
/// the 2,048 write cursors (a cache line each) fit in L2.
fn sort_by_gram(pairs: &mut Vec<u32>, scratch: &mut Vec<u32>) {
    const LOW: u32 = 11;
    let shifts = [PAIR_ID_BITS, PAIR_ID_BITS + LOW];
    let masks = [(1u32 << LOW) - 1, u32::MAX >> (PAIR_ID_BITS + LOW)];
    let mut counts = [vec![0u32; 1 << LOW], vec![0u32; (masks[1] + 1) as usize]];
    for &p in pairs.iter() {
        counts[0][((p >> shifts[0]) & masks[0]) as usize] += 1;
        counts[1][((p >> shifts[1]) & masks[1]) as usize] += 1;
    }
    scratch.clear();
    scratch.resize(pairs.len(), 0);
    for (pass, c) in counts.iter_mut().enumerate() {
        // A pass whose digit is the same everywhere would only copy.
        if c.iter().any(|&n| n as usize == pairs.len()) {
            continue;
        }
        let mut at = 0;
        for n in c.iter_mut() {
            let here = *n;
            *n = at;
            at += here;
        }
        let (shift, mask) = (shifts[pass], masks[pass]);
        for &p in pairs.iter() {
            let d = ((p >> shift) & mask) as usize;
            scratch[c[d] as usize] = p;
            c[d] += 1;
        }
        std::mem::swap(pairs, scratch);
    }
}

impl Lists {
    /// The lists of `pairs` (`gram << PAIR_ID_BITS | id - first_id`, each pair once, ids
    /// ascending in the order given for any one gram). Sorts `pairs` in place; `scratch` is
    /// working memory.
    pub fn from_pairs(pairs: &mut Vec<u32>, scratch: &mut Vec<u32>, first_id: u32) -> Lists {
        // Fewer than 2^32 pairs: the counters are `u32`.
        debug_assert!(u32::try_from(pairs.len()).is_ok());
        sort_by_gram(pairs, scratch);
        let mut out = Lists {
            grams: Vec::new(),
            bytes: Vec::with_capacity(pairs.len() + pairs.len() / 4),
        };
        let id = |p: u32| first_id + (p & ((1 << PAIR_ID_BITS) - 1));
        let mut i = 0;
        while i < pairs.len() {
            let gram = pairs[i] >> PAIR_ID_BITS;
            let start = out.bytes.len();
            let first = id(pairs[i]);
            let mut last = first;
            put_varint(&mut out.bytes, first);
            let mut j = i + 1;
            while j < pairs.len() && pairs[j] >> PAIR_ID_BITS == gram {
                let id = id(pairs[j]);
                put_varint(&mut out.bytes, id - last);
                last = id;
                j += 1;
            }
            out.grams.push(Gram {
                gram,
                count: (j - i) as u32,
                first,
                last,
                len: (out.bytes.len() - start) as u32,
            });
            i = j;
        }
        out
    }
}

fn varint_len(v: u32) -> usize {
    match v {
        0..=0x7F => 1,
        0x80..=0x3FFF => 2,
        0x4000..=0x1F_FFFF => 3,
        0x20_0000..=0x0FFF_FFFF => 4,
        _ => 5,
    }
}

/// The lists of consecutive id ranges, concatenated per trigram (ranges given in id order).
pub struct Merged {
    parts: Vec<Lists>,
    /// Per trigram, ascending: `(gram, count, encoded length)`.
    pub table: Vec<(u32, u32, u64)>,
}

/// Visits every trigram of `parts` in ascending order, from each part's gram `at[k]` and
/// below `end` (all of them: `None`), with the parts that hold it, in part order, as
/// `(part, index of the gram in that part)`. A linear k-way merge: parts are few (tens),
/// trigrams a few hundred thousand.
fn each_gram(
    parts: &[Lists],
    mut at: Vec<usize>,
    end: Option<u32>,
    mut visit: impl FnMut(u32, &[(usize, usize)]),
) {
    let mut holders = Vec::with_capacity(parts.len());
    loop {
        let next = parts
            .iter()
            .zip(&at)
            .filter_map(|(p, &i)| p.grams.get(i).map(|g| g.gram))
            .min();
        let Some(gram) = next.filter(|&g| end.is_none_or(|end| g < end)) else {
            break;
        };
        holders.clear();
        for (k, p) in parts.iter().enumerate() {
            if p.grams.get(at[k]).is_some_and(|g| g.gram == gram) {
                holders.push((k, at[k]));
                at[k] += 1;
            }
        }
        visit(gram, &holders);
    }
}

/// Writes `v` as a LEB128 varint at `out[at..]`; returns the position after it.
fn varint_at(out: &mut [u8], mut at: usize, mut v: u32) -> usize {
    while v >= 0x80 {
        out[at] = (v as u8) | 0x80;
        v >>= 7;
        at += 1;
    }
    out[at] = v as u8;
    at + 1
}

impl Merged {
    /// Merges `parts`, the lists of consecutive id ranges in id order.
    pub fn new(parts: Vec<Lists>) -> Merged {
        let mut table = Vec::new();
        each_gram(&parts, vec![0; parts.len()], None, |gram, holders| {
            let (mut count, mut len, mut last) = (0u32, 0u64, None::<u32>);
            for &(k, i) in holders {
                let g = parts[k].grams[i];
                count += g.count;
                len += u64::from(g.len);
                if let Some(last) = last {
                    len = len + varint_len(g.first - last) as u64 - varint_len(g.first) as u64;
                }
                last = Some(g.last);
            }
            table.push((gram, count, len));
        });
        Merged { parts, table }
    }

    /// Total encoded length of all lists.
    pub fn bytes_len(&self) -> usize {
        self.table.iter().map(|t| t.2 as usize).sum()
    }

    /// Writes every list, in [`Merged::table`] order, into `out` (exactly
    /// [`Merged::bytes_len`] bytes) on up to `threads` threads, each taking a run of
    /// trigrams holding about the same number of bytes: the merge costs per (trigram, range)
    /// rather than per byte, ~35 ms on the corpus on one thread, and it delays readiness.
    pub fn write_into(&self, out: &mut [u8], threads: usize) {
        assert_eq!(out.len(), self.bytes_len(), "the lists' exact size");
        let per = out.len().div_ceil(threads.max(1)).max(1) as u64;
        let mut cuts = vec![0];
        let mut acc = 0u64;
        for (i, t) in self.table.iter().enumerate() {
            if acc >= per * cuts.len() as u64 {
                cuts.push(i);
            }
            acc += t.2;
        }
        cuts.push(self.table.len());
        std::thread::scope(|s| {
            let mut rest = out;
            for w in cuts.windows(2) {
                let len: u64 = self.table[w[0]..w[1]].iter().map(|t| t.2).sum();
                let (mine, r) = std::mem::take(&mut rest).split_at_mut(len as usize);
                rest = r;
                s.spawn(move || self.write_run(w[0], w[1], mine));
            }
        });
    }

    /// Writes the lists of table entries `a..b` into `out`, which holds exactly them.
    fn write_run(&self, a: usize, b: usize, out: &mut [u8]) {
        let Some(&(first, ..)) = self.table.get(a).filter(|_| a < b) else {
            return;
        };
        let at: Vec<usize> = (self.parts.iter())
            .map(|p| p.grams.partition_point(|g| g.gram < first))
            .collect();
        // Where each part's next list starts in its bytes.
        let mut from: Vec<usize> = (self.parts.iter().zip(&at))
            .map(|(p, &i)| p.grams[..i].iter().map(|g| g.len as usize).sum())
            .collect();
        let mut pos = 0;
        let end = self.table.get(b).map(|t| t.0);
        each_gram(&self.parts, at, end, |_, holders| {
            let mut last = None::<u32>;
            for &(k, i) in holders {
                let (p, g) = (&self.parts[k], self.parts[k].grams[i]);
                let list = &p.bytes[from[k]..from[k] + g.len as usize];
                from[k] += g.len as usize;
                let list = match last {
                    None => list,
                    Some(last) => {
                        // The range's first id, absolute in its own list, becomes a gap.
                        pos = varint_at(out, pos, g.first - last);
                        &list[varint_len(g.first)..]
                    }
                };
                out[pos..pos + list.len()].copy_from_slice(list);
                pos += list.len();
                last = Some(g.last);
            }
        });
        debug_assert_eq!(pos, out.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::grams::decode;

    /// The lists of `(gram, id)` pairs whose ids lie in one range from `first`.
    fn lists(first: u32, pairs: &[(u32, u32)]) -> Lists {
        let mut p: Vec<u32> = pairs
            .iter()
            .map(|&(g, id)| (g << PAIR_ID_BITS) | (id - first))
            .collect();
        Lists::from_pairs(&mut p, &mut Vec::new(), first)
    }

    fn decoded(m: &Merged) -> Vec<(u32, Vec<u32>)> {
        let mut bytes = vec![0; m.bytes_len()];
        m.write_into(&mut bytes, 1);
        // Any number of threads writes the same bytes.
        for threads in [2, 3, 64] {
            let mut again = vec![0; m.bytes_len()];
            m.write_into(&mut again, threads);
            assert_eq!(again, bytes, "{threads} threads");
        }
        let mut at = 0;
        m.table
            .iter()
            .map(|&(g, count, len)| {
                let mut ids = Vec::new();
                decode(&bytes[at..at + len as usize], count as usize, &mut ids);
                at += len as usize;
                (g, ids)
            })
            .collect()
    }

    #[test]
    fn ranges_concatenate_into_ascending_lists() {
        // Grams over both radix digits; ids crossing varint widths between ranges.
        let a = lists(
            0,
            &[
                (0x1BCDEF, 0),
                (7, 0),
                (0x1BCDEF, 5),
                (7, 100),
                (0x10000, 127),
            ],
        );
        let b = lists(128, &[(7, 128), (0x1BCDEF, 2_000), (0x20, 2_001)]);
        let c = lists(3_999_999_000, &[(0x20, 3_999_999_000), (7, 4_000_000_000)]);
        assert_eq!(
            a.grams.iter().map(|g| g.gram).collect::<Vec<_>>(),
            [7, 0x10000, 0x1BCDEF]
        );
        let m = Merged::new(vec![a, b, c]);
        assert_eq!(
            decoded(&m),
            [
                (7, vec![0, 100, 128, 4_000_000_000]),
                (0x20, vec![2_001, 3_999_999_000]),
                (0x10000, vec![127]),
                (0x1BCDEF, vec![0, 5, 2_000]),
            ]
        );
        assert_eq!(m.table[0].1, 4);
    }

    #[test]
    fn the_sort_orders_every_gram_bit_and_keeps_ids_in_order() {
        // Grams that differ in one bit each, ids in a range from 1,000.
        let grams: Vec<u32> = (0..21).map(|b| 1 << b).chain([0, 0x1F_FFFF]).collect();
        let mut pairs = Vec::new();
        for id in 0..(1 << PAIR_ID_BITS) as u32 {
            for (k, &g) in grams.iter().enumerate() {
                if (id as usize + k).is_multiple_of(3) {
                    pairs.push((g, 1_000 + id));
                }
            }
        }
        let l = lists(1_000, &pairs);
        let mut want = grams.clone();
        want.sort_unstable();
        assert_eq!(l.grams.iter().map(|g| g.gram).collect::<Vec<_>>(), want);
        for got in decoded(&Merged::new(vec![l])) {
            let k = grams.iter().position(|&g| g == got.0).unwrap();
            let ids: Vec<u32> = (0..(1 << PAIR_ID_BITS) as u32)
                .filter(|&id| (id as usize + k).is_multiple_of(3))
                .map(|id| 1_000 + id)
                .collect();
            assert_eq!(got.1, ids, "gram {:#x}", got.0);
        }
    }

    #[test]
    fn no_parts_no_lists() {
        let m = Merged::new(vec![Lists::default(), lists(0, &[])]);
        assert!(m.table.is_empty() && decoded(&m).is_empty());
    }
}
