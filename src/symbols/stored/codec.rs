//! A file's [`FileSyms`] as bytes in the symbol table: LEB128 integers and length-prefixed
//! strings, lines delta-coded, so a reference costs 3–5 bytes. Decoding checks every bound:
//! a record that does not decode is treated as absent (the file is parsed again), never
//! misread.

use crate::symbols::model::{Def, FileSyms, Ref, Role};
use crate::syntax::defs::SymbolKind;

/// Appends `v` as LEB128.
pub(crate) fn put(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Appends `s`, length first.
pub(crate) fn put_str(out: &mut Vec<u8>, s: &str) {
    put(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

/// Appends the encoding of `syms` to `out`.
pub fn encode(syms: &FileSyms, out: &mut Vec<u8>) {
    out.push(u8::from(syms.has_error));
    put(out, syms.defs.len() as u64);
    for d in &syms.defs {
        put_str(out, &d.name);
        out.push(d.kind as u8);
        out.push(u8::from(d.decl));
        put(out, d.container.len() as u64);
        for c in &d.container {
            put_str(out, c);
        }
        for v in [d.line, d.col, d.start_line, d.end_line] {
            put(out, u64::from(v));
        }
        put(out, d.span.0 as u64);
        put(out, (d.span.1 - d.span.0) as u64);
        put_str(out, &d.sig);
    }
    put(out, syms.names.len() as u64);
    for n in &syms.names {
        put_str(out, n);
    }
    put(out, syms.refs.len() as u64);
    let mut line = 0;
    for r in &syms.refs {
        // Document order: lines never decrease.
        put(out, u64::from(r.line.saturating_sub(line)));
        line = r.line;
        put(out, u64::from(r.col));
        put(out, u64::from(r.name) << 3 | r.role as u64);
    }
}

/// Reads what [`put`] and [`put_str`] wrote, every bound checked.
pub(crate) struct Reader<'a> {
    /// The bytes.
    pub(crate) b: &'a [u8],
    /// The next byte to read.
    pub(crate) at: usize,
}

impl Reader<'_> {
    pub(crate) fn int(&mut self) -> Option<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = *self.b.get(self.at)?;
            self.at += 1;
            v |= u64::from(byte & 0x7f) << shift;
            if byte < 0x80 {
                return Some(v);
            }
        }
        None
    }

    pub(crate) fn u32(&mut self) -> Option<u32> {
        u32::try_from(self.int()?).ok()
    }

    pub(crate) fn len(&mut self) -> Option<usize> {
        let n = usize::try_from(self.int()?).ok()?;
        // A count can never exceed the bytes left (every item takes at least one).
        (n <= self.b.len() - self.at).then_some(n)
    }

    pub(crate) fn byte(&mut self) -> Option<u8> {
        let v = *self.b.get(self.at)?;
        self.at += 1;
        Some(v)
    }

    pub(crate) fn str(&mut self) -> Option<&str> {
        let n = self.len()?;
        let s = std::str::from_utf8(self.b.get(self.at..self.at + n)?).ok()?;
        self.at += n;
        Some(s)
    }
}

/// The kind stored as `b`.
pub(crate) fn kind(b: u8) -> Option<SymbolKind> {
    SymbolKind::ALL
        .iter()
        .chain(&[SymbolKind::Impl])
        .copied()
        .find(|k| *k as u8 == b)
}

/// Whether the record has syntax errors (its first byte), defines a name `wanted` accepts,
/// or (`used`) holds such a name among its identifiers — read in place, nothing decoded or
/// allocated, so a query can pass over the records it does not need (find_symbol looks at
/// a few hundred candidates to decode one). `None` when the record is malformed (the
/// caller decodes it, which refuses it).
pub fn errors_or_names(
    bytes: &[u8],
    used: bool,
    mut wanted: impl FnMut(&str) -> bool,
) -> Option<bool> {
    let mut r = Reader { b: bytes, at: 0 };
    if r.byte()? != 0 {
        return Some(true);
    }
    for _ in 0..r.len()? {
        if wanted(r.str()?) {
            return Some(true);
        }
        r.byte()?;
        r.byte()?;
        for _ in 0..r.len()? {
            r.str()?;
        }
        for _ in 0..6 {
            r.int()?;
        }
        r.str()?;
    }
    if used {
        for _ in 0..r.len()? {
            if wanted(r.str()?) {
                return Some(true);
            }
        }
    }
    Some(false)
}

/// Decodes a record [`encode`] wrote; `None` when it is malformed.
pub fn decode(bytes: &[u8]) -> Option<FileSyms> {
    let mut r = Reader { b: bytes, at: 0 };
    let has_error = r.byte()? != 0;
    let n = r.len()?;
    let mut defs = Vec::with_capacity(n);
    for _ in 0..n {
        let name = r.str()?.to_string();
        let kind = kind(r.byte()?)?;
        let decl = r.byte()? != 0;
        let nc = r.len()?;
        let mut container = Vec::with_capacity(nc);
        for _ in 0..nc {
            container.push(r.str()?.to_string());
        }
        let (line, col, start_line, end_line) = (r.u32()?, r.u32()?, r.u32()?, r.u32()?);
        let from = usize::try_from(r.int()?).ok()?;
        let to = from.checked_add(usize::try_from(r.int()?).ok()?)?;
        defs.push(Def {
            name,
            kind,
            container,
            decl,
            line,
            col,
            start_line,
            end_line,
            span: (from, to),
            sig: r.str()?.to_string(),
        });
    }
    let n = r.len()?;
    let mut names = Vec::with_capacity(n);
    for _ in 0..n {
        names.push(Box::from(r.str()?));
    }
    let n = r.len()?;
    let mut refs = Vec::with_capacity(n);
    let mut line = 0u32;
    for _ in 0..n {
        line = line.checked_add(r.u32()?)?;
        let col = r.u32()?;
        let packed = r.int()?;
        let name = u32::try_from(packed >> 3).ok()?;
        if name as usize >= names.len() {
            return None;
        }
        refs.push(Ref {
            name,
            line,
            col,
            role: Role::from_u8((packed & 7) as u8),
        });
    }
    (r.at == bytes.len()).then_some(FileSyms {
        defs,
        names,
        refs,
        has_error,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::Grammar;

    #[test]
    fn a_file_s_symbols_round_trip_and_a_damaged_record_is_refused() {
        let src = "/// Doc.\npub struct Config { port: u16 }\nimpl Config {\n    pub fn load(p: &str) -> Config { let c = parse(p); c }\n}\nmacro_rules! m { () => {} }\n";
        let syms = crate::symbols::memo::symbols_of(
            Grammar::Rust,
            src.as_bytes(),
            std::time::Duration::from_secs(5),
            None,
        )
        .unwrap();
        assert!(syms.defs.len() >= 3 && syms.refs.len() >= 5);
        let mut bytes = Vec::new();
        encode(&syms, &mut bytes);
        let back = decode(&bytes).unwrap();
        assert_eq!(back.defs, syms.defs);
        assert_eq!(back.names, syms.names);
        assert_eq!(back.refs, syms.refs);
        assert_eq!(back.has_error, syms.has_error);
        assert!(decode(&bytes[..bytes.len() - 1]).is_none());
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(decode(&longer).is_none());
    }

    #[test]
    fn a_record_is_asked_for_its_names_in_place() {
        let src = "pub struct Config { port: u16 }\nimpl Config {\n    pub fn load() -> Config { parse() }\n}\n";
        let syms = crate::symbols::memo::symbols_of(
            Grammar::Rust,
            src.as_bytes(),
            std::time::Duration::from_secs(5),
            None,
        )
        .unwrap();
        assert!(!syms.has_error);
        let mut bytes = Vec::new();
        encode(&syms, &mut bytes);
        let mut seen = Vec::new();
        let r = errors_or_names(&bytes, false, |n| {
            seen.push(n.to_string());
            false
        });
        let want: Vec<String> = syms.defs.iter().map(|d| d.name.clone()).collect();
        assert_eq!((r, seen), (Some(false), want));
        assert_eq!(errors_or_names(&bytes, false, |n| n == "load"), Some(true));
        // `parse` is used, not defined.
        assert_eq!(
            errors_or_names(&bytes, false, |n| n == "parse"),
            Some(false)
        );
        assert_eq!(errors_or_names(&bytes, true, |n| n == "parse"), Some(true));
        assert_eq!(
            errors_or_names(&bytes, true, |n| n == "absent"),
            Some(false)
        );
        let broken = crate::symbols::memo::symbols_of(
            Grammar::Rust,
            b"fn a() {\nfn b(",
            std::time::Duration::from_secs(5),
            None,
        )
        .unwrap();
        assert!(broken.has_error);
        let mut bytes = Vec::new();
        encode(&broken, &mut bytes);
        assert_eq!(errors_or_names(&bytes, true, |_| false), Some(true));
        assert_eq!(errors_or_names(&[0, 5, 3], false, |_| false), None);
        assert_eq!(errors_or_names(&[0, 0, 5, 3], true, |_| false), None);
    }
}
