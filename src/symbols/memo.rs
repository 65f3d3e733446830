//! A file's [`FileSyms`] by content: the same bytes parsed with the same grammar always give
//! the same symbols, so they are kept process-wide under a BLAKE3 hash of both (see
//! `syntax::memo`, whose two-generation store this shares). A file asked about again costs a
//! read and a hash instead of a parse; a changed file is another key, so an entry can never
//! describe other bytes.

use super::extract::extract;
use super::model::FileSyms;
use crate::cancel::Cancel;
use crate::syntax::memo::{Generations, Key, Weighed};
use crate::syntax::{parse, Grammar, ParseFailure};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// The memo holds at most about this many bytes (two generations of half each): about ten
/// thousand ordinary source files' symbols.
pub const MAX_BYTES: usize = 48 << 20;

impl Weighed for FileSyms {
    fn weight(&self) -> usize {
        FileSyms::weight(self)
    }
}

static MEMO: Mutex<Option<Generations<FileSyms>>> = Mutex::new(None);

fn with<T>(f: impl FnOnce(&mut Generations<FileSyms>) -> T) -> T {
    let mut guard = MEMO.lock().unwrap_or_else(PoisonError::into_inner);
    f(guard.get_or_insert_with(|| Generations::new(MAX_BYTES)))
}

/// The key of `bytes` parsed with `grammar` for the symbol engine.
pub fn key(grammar: Grammar, bytes: &[u8]) -> Key {
    let mut h = blake3::Hasher::new();
    h.update(b"symbols\0");
    h.update(grammar.name().as_bytes());
    h.update(&[0]);
    h.update(bytes);
    *h.finalize().as_bytes()
}

/// The symbols of `bytes` (a file's text as it is on disk) in `grammar`: remembered, or
/// parsed within `budget` and remembered. Timeouts and aborts are not kept.
pub fn symbols_of(
    grammar: Grammar,
    bytes: &[u8],
    budget: Duration,
    cancel: Option<&Cancel>,
) -> Result<Arc<FileSyms>, ParseFailure> {
    let key = key(grammar, bytes);
    let (found, retired) = with(|m| m.get(&key));
    drop(retired);
    if let Some(f) = found {
        return Ok(f);
    }
    let parsed = parse::parse_masked(grammar, bytes, budget, cancel)?;
    let syms = Arc::new(extract(&parsed));
    parse::release(parsed.tree);
    let retired = with(|m| m.insert(key, Arc::clone(&syms)));
    drop(retired);
    Ok(syms)
}
