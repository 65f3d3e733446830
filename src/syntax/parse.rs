//! Parsing under the original's limits: a byte cap, a time budget and the caller's abort,
//! both enforced from inside the parser through tree-sitter's progress callback.

use super::lang::Grammar;
use crate::cancel::Cancel;
use std::ops::Range;
use std::time::{Duration, Instant};
use tree_sitter::{ParseOptions, ParseState, Parser, Tree};

/// Files over this many bytes are not parsed (`too_large`).
pub const MAX_PARSE_BYTES: usize = 2_000_000;

/// The tools' parse budget.
pub const TOOL_BUDGET: Duration = Duration::from_millis(2000);

/// Why a parse produced no tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParseFailure {
    /// The source is over [`MAX_PARSE_BYTES`].
    TooLarge,
    /// The budget ran out.
    Timeout,
    /// The caller aborted.
    Aborted,
    /// The grammar could not be loaded (an ABI mismatch; never expected).
    Runtime,
}

/// A parsed source: the text as parsed (a file's bytes decoded as `read_file` decodes them,
/// [`crate::text::decode_text`]) and its tree.
pub struct Parsed {
    /// The decoded source: every position the tree reports is in this text.
    pub text: String,
    /// The syntax tree.
    pub tree: Tree,
    /// The grammar it was parsed with.
    pub grammar: Grammar,
    /// Byte ranges of `text` the parser saw as spaces: C/C++ macros the symbol engine hides
    /// ([`parse_masked`], [`super::cmask`]); empty for every other parse.
    pub masked: Vec<Range<usize>>,
}

/// Parses a file's `bytes` with `grammar`, giving up after `budget` or when `cancel` fires.
/// The bytes are decoded as `read_file` decodes them ([`crate::text::decode_text`]: BOM,
/// UTF-16, line endings), and the limit applies to the decoded text's UTF-8 length, as the
/// original measures it.
pub fn parse(
    grammar: Grammar,
    bytes: &[u8],
    budget: Duration,
    cancel: Option<&Cancel>,
) -> Result<Parsed, ParseFailure> {
    parse_text(grammar, decoded(bytes)?, None, budget, cancel)
}

/// `bytes` decoded as `read_file` decodes them, within the parse limit.
fn decoded(bytes: &[u8]) -> Result<String, ParseFailure> {
    let text = crate::text::decode_text(bytes);
    if text.len() > MAX_PARSE_BYTES {
        return Err(ParseFailure::TooLarge);
    }
    Ok(text.into_owned())
}

/// Like [`parse`], for the symbol engine: a C/C++ file is parsed with the macros
/// [`super::cmask`] recognises blanked out (same offsets), so the definitions around them
/// parse as what they are. `Parsed::text` stays the file's text; `Parsed::masked` says what
/// the parser did not see. Other grammars parse as with [`parse`].
pub fn parse_masked(
    grammar: Grammar,
    bytes: &[u8],
    budget: Duration,
    cancel: Option<&Cancel>,
) -> Result<Parsed, ParseFailure> {
    parse_text_masked(grammar, decoded(bytes)?, budget, cancel)
}

/// [`parse_masked`] of decoded `text`.
pub fn parse_text_masked(
    grammar: Grammar,
    text: String,
    budget: Duration,
    cancel: Option<&Cancel>,
) -> Result<Parsed, ParseFailure> {
    if grammar != Grammar::Cpp {
        return parse_text(grammar, text, None, budget, cancel);
    }
    match super::cmask::mask(&text) {
        Some((input, masked)) => {
            let mut p = parse_input(grammar, &input, None, budget, cancel)?;
            p.masked = masked;
            Ok(Parsed { text, ..p })
        }
        None => parse_text(grammar, text, None, budget, cancel),
    }
}

/// Parses decoded `text` (never a file's raw bytes: see [`parse`]); with `old` (already `edit`ed to match `text`) incrementally,
/// reusing its unchanged subtrees.
pub fn parse_text(
    grammar: Grammar,
    text: String,
    old: Option<&Tree>,
    budget: Duration,
    cancel: Option<&Cancel>,
) -> Result<Parsed, ParseFailure> {
    let tree = parse_input(grammar, &text, old, budget, cancel)?.tree;
    Ok(Parsed {
        text,
        tree,
        grammar,
        masked: Vec::new(),
    })
}

/// Runs `f` with this thread's parser, kept between parses: a new one allocates its stack,
/// lexer and subtree pool again for every file (the symbol table parses thousands in a row).
fn with_parser<R>(f: impl FnOnce(&mut Parser) -> R) -> R {
    thread_local! {
        static PARSER: std::cell::RefCell<Option<Parser>> = const { std::cell::RefCell::new(None) };
    }
    PARSER.with(|cell| match cell.try_borrow_mut() {
        Ok(mut kept) => f(kept.get_or_insert_with(Parser::new)),
        // Only if a parse ever ran inside another on this thread: a parser of its own.
        Err(_) => f(&mut Parser::new()),
    })
}

/// Parses `input`; the result's text is empty (the callers put theirs). The kept parser's
/// `set_language` resets it first, so nothing of an earlier parse (an interrupted one's
/// state included) carries over.
fn parse_input(
    grammar: Grammar,
    input: &str,
    old: Option<&Tree>,
    budget: Duration,
    cancel: Option<&Cancel>,
) -> Result<Parsed, ParseFailure> {
    super::alloc::install();
    with_parser(|parser| {
        parser
            .set_language(&grammar.language())
            .map_err(|_| ParseFailure::Runtime)?;
        let start = Instant::now();
        let mut why = None;
        let mut progress = |_: &ParseState| -> bool {
            if cancel.is_some_and(Cancel::is_cancelled) {
                why = Some(ParseFailure::Aborted);
                return true;
            }
            if start.elapsed() > budget {
                why = Some(ParseFailure::Timeout);
                return true;
            }
            false
        };
        let src = input.as_bytes();
        let tree = parser.parse_with_options(
            &mut |i, _| src.get(i..).unwrap_or_default(),
            old,
            Some(ParseOptions::new().progress_callback(&mut progress)),
        );
        match tree {
            Some(tree) => Ok(Parsed {
                text: String::new(),
                tree,
                grammar,
                masked: Vec::new(),
            }),
            None => {
                // An interrupted parse keeps its state (and the old tree) to resume: drop it now.
                parser.reset();
                Err(why.unwrap_or(ParseFailure::Timeout))
            }
        }
    })
}

/// Frees `tree` off the caller's path: a 287 KB TypeScript file's tree takes 2–6 ms to free
/// (every subtree is released one by one), time a tool call need not wait for. One
/// background thread does it; when it is behind (four trees queued) or cannot be started,
/// the caller frees the tree itself, so memory waiting to be freed stays bounded.
pub fn release(tree: Tree) {
    use std::sync::mpsc::{sync_channel, SyncSender, TrySendError};
    use std::sync::OnceLock;
    static REAPER: OnceLock<Option<SyncSender<Tree>>> = OnceLock::new();
    let reaper = REAPER.get_or_init(|| {
        let (tx, rx) = sync_channel::<Tree>(4);
        std::thread::Builder::new()
            .name("syntax-free".into())
            .spawn(move || rx.into_iter().for_each(drop))
            .ok()
            .map(|_| tx)
    });
    let Some(tx) = reaper else { return };
    if let Err(TrySendError::Full(tree) | TrySendError::Disconnected(tree)) = tx.try_send(tree) {
        drop(tree);
    }
}
