//! Answers without a symbol index: the files that can hold the name are found by a literal
//! test of their bytes (over the trigram index's candidates when it is ready, else over
//! grep's own walk), and only those are parsed — on every core, through the memo.
//!
//! A file is read and prepared exactly as grep prepares it (BOM dropped, UTF-16 transcoded,
//! line endings `\n`), so line numbers agree with `read_file` and `grep`.

use super::memo::symbols_of;
use super::model::FileSyms;
use crate::cancel::Cancel;
use crate::config::Config;
use crate::pool::threads;
use crate::search::at::BaseDir;
use crate::search::policy::Policy;
use crate::search::scan::{prepare, read_confined};
use crate::search::walk::walk;
use crate::syntax::defs::has_symbols;
use crate::syntax::parse::TOOL_BUDGET;
use crate::syntax::{grammar_for, Grammar, ParseFailure, MAX_PARSE_BYTES};
use crate::warnings::Warnings;
use crate::workspace::{self, Guard};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

/// Which files to look at and what their bytes must contain.
pub struct Scope<'a> {
    /// A directory (searched under grep's ignore policy) or one file.
    pub base: &'a Path,
    /// `base` is a file.
    pub is_file: bool,
    /// Narrows the walk's files (the caller's `glob`).
    pub filter: &'a (dyn Fn(&Path) -> bool + Sync),
}

/// The literal every candidate must contain.
#[derive(Debug, Clone)]
pub struct Needle {
    /// The bytes.
    pub text: String,
    /// ASCII case ignored (prefix and substring matching).
    pub fold: bool,
    /// Where an occurrence may sit within an identifier.
    pub edge: Edge,
}

/// Where an occurrence of a needle may sit within the identifier around it. A file whose
/// every occurrence sits inside a longer identifier cannot define or use the name (`work1`
/// in a file holding only `work10`): testing the edges keeps such files from being parsed,
/// as `rg -w` keeps them out of its answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edge {
    /// Anywhere (substring matching).
    Any,
    /// At an identifier's start (prefix matching).
    Start,
    /// The whole identifier (exact matching).
    Whole,
}

/// Whether `b` continues an identifier in every grammar the tools carry. Deliberately
/// narrow: `$`, `-` and non-ASCII bytes count as edges, so a file is never left out for a
/// byte that some language treats as part of a name (at worst it is parsed for nothing).
fn continues(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

impl Needle {
    /// A needle for an exact name: a candidate holds it as a whole identifier.
    pub fn whole(text: &str) -> Needle {
        Needle {
            text: text.to_string(),
            fold: false,
            edge: Edge::Whole,
        }
    }

    /// A needle matched anywhere, case ignored when `fold`.
    pub fn anywhere(text: &str, fold: bool) -> Needle {
        Needle {
            text: text.to_string(),
            fold,
            edge: Edge::Any,
        }
    }

    /// Whether `hay` contains the needle, at an allowed edge.
    pub fn within(&self, hay: &[u8]) -> bool {
        let n = self.text.as_bytes();
        if n.is_empty() {
            return true;
        }
        // An edge is tested only where the needle itself starts or ends with an identifier
        // byte: `$x` after a letter is still a candidate.
        let before = self.edge != Edge::Any && continues(n[0]);
        let after = self.edge == Edge::Whole && continues(n[n.len() - 1]);
        let placed = |at: usize| {
            (!before || at == 0 || !continues(hay[at - 1]))
                && (!after || hay.get(at + n.len()).is_none_or(|&b| !continues(b)))
        };
        if !self.fold {
            if !before && !after {
                return memchr::memmem::find(hay, n).is_some();
            }
            return memchr::memmem::find_iter(hay, n).any(placed);
        }
        // Case folded: find the rarer of the first byte's two cases, compare the rest.
        let (lo, up) = (n[0].to_ascii_lowercase(), n[0].to_ascii_uppercase());
        memchr::memchr2_iter(lo, up, hay).any(|at| {
            hay.get(at..at + n.len())
                .is_some_and(|w| w.eq_ignore_ascii_case(n))
                && placed(at)
        })
    }
}

/// One parsed candidate.
#[derive(Debug, Clone)]
pub struct Parsed {
    /// Its absolute path.
    pub abs: PathBuf,
    /// Its display path.
    pub display: String,
    /// Its grammar.
    pub grammar: Grammar,
    /// Its symbols.
    pub syms: Arc<FileSyms>,
}

/// Why a file holding the needle was not parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Skip {
    /// No grammar with symbols for its extension.
    Unsupported,
    /// Over the parse limit.
    TooLarge,
    /// The parse ran out of time.
    Timeout,
}

impl Skip {
    /// How results word it.
    pub fn reason(self) -> String {
        match self {
            Skip::Unsupported => "no symbol support for the language".to_string(),
            Skip::TooLarge => format!("over the {MAX_PARSE_BYTES}-byte parse limit"),
            Skip::Timeout => "parsing timed out".to_string(),
        }
    }
}

/// What a scan found.
#[derive(Debug, Default)]
pub struct Scanned {
    /// The candidates that parsed, in path order.
    pub files: Vec<Parsed>,
    /// Candidates holding the needle that were not parsed: display path and why.
    pub skipped: Vec<(String, Skip)>,
    /// Files the walk visited (to start the index under `searchIndex`'s rules).
    pub walked: u64,
    /// Files holding the needle that an index answer left out because the caller did not
    /// want them ([`crate::symbols::Want`]).
    pub passed_over: usize,
}

/// Reads `abs` under grep's rules into `buf` (prepared) when it holds `needle`. `false`:
/// skip it (unreadable, binary, oversized, or no needle).
fn load(
    config: &Config,
    base: &BaseDir,
    guard: Option<&Guard>,
    abs: &Path,
    needle: &Needle,
    buf: &mut Vec<u8>,
) -> bool {
    use crate::text::{detect_bom, Encoding};
    buf.clear();
    if !read_confined(base, guard, abs, config.max_file_bytes, buf) {
        return false;
    }
    // UTF-16 is tested after transcoding; other files on their raw bytes (preparing only
    // drops a BOM and rewrites line ends, which an identifier never spans).
    let utf16 = matches!(detect_bom(buf), Encoding::Utf16Le | Encoding::Utf16Be);
    if !utf16 && !needle.within(buf) {
        return false;
    }
    prepare(buf) && (!utf16 || needle.within(buf))
}

#[cfg(test)]
thread_local! {
    /// Tests: how many times [`read_text`] read each file on this thread (a call reads each
    /// of its files at most once, see `symbols::texts`).
    pub static TEXT_READS: std::cell::RefCell<std::collections::HashMap<PathBuf, usize>> =
        std::cell::RefCell::default();
}

/// The text of `abs` as grep and the parser see it (read under confinement, BOM dropped,
/// UTF-16 transcoded, line ends `\n`, invalid UTF-8 as U+FFFD); `None` when it cannot be
/// read or is binary or over `maxFileBytes`.
pub fn read_text(config: &Config, abs: &Path) -> Option<String> {
    #[cfg(test)]
    TEXT_READS.with(|n| *n.borrow_mut().entry(abs.to_path_buf()).or_default() += 1);
    let g = Guard::new(config);
    let base = BaseDir::open(&config.workspace_root).confine(&g);
    let mut buf = Vec::new();
    let ok = read_confined(
        &base,
        g.is_on().then_some(&g),
        abs,
        config.max_file_bytes,
        &mut buf,
    ) && prepare(&mut buf);
    ok.then(|| crate::text::decode_text(&buf).into_owned())
}

/// Parses one loaded candidate, or says why not.
fn parse_one(
    grammar: Option<Grammar>,
    bytes: &[u8],
    cancel: &Cancel,
) -> Result<(Grammar, Arc<FileSyms>), Option<Skip>> {
    let g = grammar
        .filter(|g| has_symbols(*g))
        .ok_or(Some(Skip::Unsupported))?;
    match symbols_of(g, bytes, TOOL_BUDGET, Some(cancel)) {
        Ok(s) => Ok((g, s)),
        Err(ParseFailure::TooLarge) => Err(Some(Skip::TooLarge)),
        Err(ParseFailure::Timeout) => Err(Some(Skip::Timeout)),
        Err(ParseFailure::Aborted | ParseFailure::Runtime) => Err(None),
    }
}

/// Collects what each candidate gave.
#[derive(Default)]
struct Sink {
    files: Mutex<Vec<Parsed>>,
    skipped: Mutex<Vec<(String, Skip)>>,
}

impl Sink {
    fn take(&self, config: &Config, abs: &Path, bytes: &[u8], cancel: &Cancel) {
        let display = workspace::display(config, abs);
        match parse_one(grammar_for(&display), bytes, cancel) {
            Ok((grammar, syms)) => self
                .files
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(Parsed {
                    abs: abs.to_path_buf(),
                    display,
                    grammar,
                    syms,
                }),
            Err(Some(why)) => self
                .skipped
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push((display, why)),
            Err(None) => {}
        }
    }

    fn finish(self, walked: u64) -> Scanned {
        let mut files = self
            .files
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner);
        files.sort_by(|a, b| crate::text::js_cmp(&a.display, &b.display));
        let mut skipped = self
            .skipped
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner);
        skipped.sort_by(|a, b| crate::text::js_cmp(&a.0, &b.0));
        Scanned {
            files,
            skipped,
            walked,
            passed_over: 0,
        }
    }
}

/// Reads, tests and parses `paths` (absolute) on every core.
pub fn parse_paths(
    config: &Arc<Config>,
    cancel: &Cancel,
    base: &Path,
    paths: &[PathBuf],
    needle: &Needle,
) -> Scanned {
    if paths.is_empty() {
        return Scanned::default();
    }
    let g = Guard::new(config);
    let base_dir = BaseDir::open(base).confine(&g);
    let guard = g.is_on().then_some(&g);
    let sink = Sink::default();
    let next = AtomicUsize::new(0);
    let workers = threads().min(paths.len()).max(1);
    std::thread::scope(|s| {
        for _ in 0..workers {
            let (next, sink, base_dir) = (&next, &sink, &base_dir);
            s.spawn(move || {
                let mut buf = Vec::new();
                while let Some(abs) = paths.get(next.fetch_add(1, Ordering::Relaxed)) {
                    if cancel.is_cancelled() {
                        break;
                    }
                    if load(config, base_dir, guard, abs, needle, &mut buf) {
                        sink.take(config, abs, &buf, cancel);
                    }
                }
            });
        }
    });
    sink.finish(0)
}

/// Walks `scope` under grep's policy and parses every file that holds `needle`.
pub fn scan(
    config: &Arc<Config>,
    cancel: &Cancel,
    warnings: &Warnings,
    scope: &Scope,
    needle: &Needle,
) -> Scanned {
    if scope.is_file {
        return parse_paths(
            config,
            cancel,
            scope.base,
            &[scope.base.to_path_buf()],
            needle,
        );
    }
    let policy = Arc::new(Policy::new(
        config.clone(),
        scope.base,
        true,
        warnings.clone(),
    ));
    let g = Guard::new(config);
    let base_dir = BaseDir::open(scope.base).confine(&g);
    let guard = g.is_on().then_some(&g);
    let sink = Sink::default();
    let walked = AtomicU64::new(0);
    walk(scope.base, policy, cancel, || {
        let (sink, walked, base_dir) = (&sink, &walked, &base_dir);
        let mut buf = Vec::new();
        Box::new(move |abs: &std::path::Path| {
            walked.fetch_add(1, Ordering::Relaxed);
            if !(scope.filter)(abs) {
                return;
            }
            if load(config, base_dir, guard, abs, needle, &mut buf) {
                sink.take(config, abs, &buf, cancel);
            }
        })
    });
    sink.finish(walked.load(Ordering::Relaxed))
}

#[cfg(test)]
mod tests {
    use super::{Edge, Needle};

    fn holds(text: &str, fold: bool, edge: Edge, hay: &str) -> bool {
        let needle = Needle {
            text: text.to_string(),
            fold,
            edge,
        };
        needle.within(hay.as_bytes())
    }

    #[test]
    fn an_exact_name_is_a_candidate_only_where_it_is_a_whole_identifier() {
        let whole = |hay| Needle::whole("work1").within(hay);
        assert!(!whole(b"fn work10() { work1_x(); awork1 }"));
        assert!(whole(b"fn work10() {}\nwork1()"));
        assert!(whole(b"work1"));
        assert!(whole(b"x.work1;"));
        // Bytes some language reads as part of a name never leave a file out.
        assert!(whole(b"$work1 w\xc3\xa9work1\xc3\xa9"));
        assert!(whole(b"work1-x"));
        // A needle edged by a non-identifier byte tests no edge on that side.
        assert!(Needle::whole("$x").within(b"a$x;"));
        assert!(!Needle::whole("$x").within(b"a$xy"));
        assert!(Needle::whole("").within(b""));
    }

    #[test]
    fn a_prefix_starts_an_identifier_and_a_substring_sits_anywhere() {
        assert!(holds("Load", true, Edge::Start, "fn loadConfig()"));
        assert!(!holds("Load", true, Edge::Start, "fn reloadConfig()"));
        assert!(holds("Load", true, Edge::Any, "fn reloadConfig()"));
        assert!(!holds("Load", true, Edge::Any, "fn relo_ad()"));
        assert!(Needle::anywhere("", false).within(b"anything"));
    }
}
