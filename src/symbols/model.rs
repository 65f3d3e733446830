//! What the symbol engine knows about one source text: its definitions and every identifier
//! used as code, with where and how. A function of the grammar and the bytes alone, so it is
//! memoised by content (`memo`) and stored per file in the index image.

use crate::syntax::defs::SymbolKind;
use crate::syntax::Grammar;

/// How an identifier is used where it occurs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Role {
    /// It names a definition (or a declaration) in our table.
    Definition = 0,
    /// It is called (or constructed: `new X`, a Rust macro, a shell command).
    Call = 1,
    /// It appears in an import, export or `use`.
    Import = 2,
    /// It names a type.
    Type = 3,
    /// It is assigned or bound (an assignment's target, a declarator, a parameter).
    Write = 4,
    /// It is the member part of a member access (`x.name`), not called.
    Member = 5,
    /// Any other use as code.
    Read = 6,
}

impl Role {
    /// Every role, in the order messages list them.
    pub const ALL: [Role; 7] = [
        Role::Definition,
        Role::Call,
        Role::Import,
        Role::Type,
        Role::Write,
        Role::Member,
        Role::Read,
    ];

    /// The name results show and `kinds` takes.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Definition => "definition",
            Role::Call => "call",
            Role::Import => "import",
            Role::Type => "type",
            Role::Write => "write",
            Role::Member => "member",
            Role::Read => "read",
        }
    }

    /// The role a caller names (`definition`, `call`, …; plurals and a few synonyms too).
    pub fn parse(raw: &str) -> Option<Role> {
        Some(match raw.trim().to_ascii_lowercase().as_str() {
            "definition" | "definitions" | "def" | "declaration" | "declarations" => {
                Role::Definition
            }
            "call" | "calls" | "invocation" | "invocations" => Role::Call,
            "import" | "imports" | "use" | "uses" | "export" | "exports" => Role::Import,
            "type" | "types" | "type_reference" | "type_references" => Role::Type,
            "write" | "writes" | "assignment" | "assignments" => Role::Write,
            "member" | "members" | "member_access" | "property" | "field" => Role::Member,
            "read" | "reads" => Role::Read,
            _ => return None,
        })
    }

    /// The role stored as `b` (three bits in the image).
    pub fn from_u8(b: u8) -> Role {
        Role::ALL.get(usize::from(b)).copied().unwrap_or(Role::Read)
    }
}

/// One definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Def {
    /// The defined identifier.
    pub name: String,
    /// What it defines.
    pub kind: SymbolKind,
    /// The enclosing definitions' names, outermost first (`["Config"]` for `Config.load`).
    pub container: Vec<String>,
    /// A declaration without a body (a signature, a prototype, an abstract method).
    pub decl: bool,
    /// 1-based line of the name.
    pub line: u32,
    /// 1-based column of the name, in UTF-16 code units (as `check_syntax` counts).
    pub col: u32,
    /// 1-based first line of the defining node.
    pub start_line: u32,
    /// 1-based last line of the defining node.
    pub end_line: u32,
    /// Byte range of the defining node in the parsed text.
    pub span: (usize, usize),
    /// The line of the name, trimmed, without a trailing `{`, at most 150 characters.
    pub sig: String,
}

impl Def {
    /// The qualified name: containers and name joined by the language's separator.
    pub fn qualified(&self, sep: &str) -> String {
        let mut s = String::new();
        for c in &self.container {
            s.push_str(c);
            s.push_str(sep);
        }
        s.push_str(&self.name);
        s
    }
}

/// One identifier used as code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ref {
    /// Index into [`FileSyms::names`].
    pub name: u32,
    /// 1-based line.
    pub line: u32,
    /// 1-based column in UTF-16 code units.
    pub col: u32,
    /// How it is used.
    pub role: Role,
}

/// Everything the symbol tools need from one source text.
#[derive(Debug, Clone, Default)]
pub struct FileSyms {
    /// The definitions, in document order.
    pub defs: Vec<Def>,
    /// The distinct identifier names of [`FileSyms::refs`], in first-seen order.
    pub names: Vec<Box<str>>,
    /// Every identifier used as code, in document order (definitions' names included).
    pub refs: Vec<Ref>,
    /// The tree has an ERROR or MISSING node: what follows an error may be missing.
    pub has_error: bool,
}

impl FileSyms {
    /// The index of `name` in [`FileSyms::names`].
    pub fn name_id(&self, name: &str) -> Option<u32> {
        self.names
            .iter()
            .position(|n| &**n == name)
            .and_then(|i| u32::try_from(i).ok())
    }

    /// Roughly the heap this holds, for the memo's bound.
    pub fn weight(&self) -> usize {
        let defs: usize = self
            .defs
            .iter()
            .map(|d| {
                120 + d.name.len()
                    + d.sig.len()
                    + d.container.iter().map(|c| 24 + c.len()).sum::<usize>()
            })
            .sum();
        let names: usize = self.names.iter().map(|n| 16 + n.len()).sum();
        128 + defs + names + self.refs.len() * std::mem::size_of::<Ref>()
    }
}

/// The separator of qualified names in `g`'s own notation.
pub fn separator(g: Grammar) -> &'static str {
    match g {
        Grammar::Rust | Grammar::Cpp | Grammar::Php | Grammar::Ruby => "::",
        _ => ".",
    }
}
