//! Exact literal matching: every non-overlapping occurrence of `old_string`, left to right,
//! as JavaScript's `indexOf` loop (and `split`/`join` replace-all) would find them.

/// Byte offsets of every non-overlapping occurrence of `needle` in `haystack`.
pub fn find_all(haystack: &str, needle: &str) -> Vec<usize> {
    if needle.is_empty() {
        return Vec::new();
    }
    haystack.match_indices(needle).map(|(i, _)| i).collect()
}

/// Byte offsets of every occurrence of `needle`, overlapping ones included: a block of
/// repeated lines holds a shorter block of them at several places, and a single edit there
/// is ambiguous even when the non-overlapping count is one.
pub fn find_overlapping(haystack: &str, needle: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let Some(step) = needle.chars().next().map(char::len_utf8) else {
        return out;
    };
    let mut from = 0;
    while let Some(i) = haystack[from..].find(needle) {
        out.push(from + i);
        from += i + step;
    }
    out
}

/// `haystack` with the `len`-byte regions at `offsets` (sorted, non-overlapping) replaced
/// by `with`.
pub fn replace_at(haystack: &str, offsets: &[usize], len: usize, with: &str) -> String {
    let mut out = String::with_capacity(haystack.len() + offsets.len() * with.len());
    let mut last = 0;
    for &o in offsets {
        out.push_str(&haystack[last..o]);
        out.push_str(with);
        last = o + len;
    }
    out.push_str(&haystack[last..]);
    out
}

/// The 1-based line number of each byte offset (`offsets` sorted ascending), counted in
/// one pass over the text.
pub fn line_numbers(text: &str, offsets: &[usize]) -> Vec<usize> {
    let bytes = text.as_bytes();
    let mut line = 1;
    let mut pos = 0;
    offsets
        .iter()
        .map(|&o| {
            line += bytes[pos..o].iter().filter(|&&b| b == b'\n').count();
            pos = o;
            line
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn occurrences_do_not_overlap() {
        assert_eq!(find_all("aaaa", "aa"), vec![0, 2]);
        assert_eq!(find_all("abc", "x"), Vec::<usize>::new());
        assert_eq!(replace_at("a-b-c", &[1, 3], 1, "+"), "a+b+c");
        assert_eq!(line_numbers("x\ny\nx x\n", &[0, 4, 6]), vec![1, 3, 3]);
        assert_eq!(find_overlapping("aaaa", "aa"), vec![0, 1, 2]);
        assert_eq!(find_overlapping("}\n}\n}", "}\n}"), vec![0, 2]);
        assert_eq!(find_overlapping("é–é", "é"), vec![0, 5]);
    }
}
