//! The extension → grammar map (the original's, LATER.md §2.7) and the compiled-in grammars.

use tree_sitter::Language;

/// A grammar compiled into the addon.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Grammar {
    /// `.ts .mts .cts`
    TypeScript,
    /// `.tsx`
    Tsx,
    /// `.js .mjs .cjs .jsx`
    JavaScript,
    /// `.py .pyi`
    Python,
    /// `.go`
    Go,
    /// `.rs`
    Rust,
    /// `.java`
    Java,
    /// `.cs`
    CSharp,
    /// `.cpp .cc .cxx .hpp .hh .c .h` (C files use the cpp grammar, as the original does).
    Cpp,
    /// `.rb`
    Ruby,
    /// `.php`
    Php,
    /// `.sh .bash`
    Bash,
    /// `.css`
    Css,
    /// `.ini`
    Ini,
    /// `.ps1 .psm1 .psd1`
    PowerShell,
}

/// Every mapped extension (lowercase, with the dot) and its grammar.
const EXTENSIONS: &[(&str, Grammar)] = &[
    (".ts", Grammar::TypeScript),
    (".mts", Grammar::TypeScript),
    (".cts", Grammar::TypeScript),
    (".tsx", Grammar::Tsx),
    (".js", Grammar::JavaScript),
    (".mjs", Grammar::JavaScript),
    (".cjs", Grammar::JavaScript),
    (".jsx", Grammar::JavaScript),
    (".py", Grammar::Python),
    (".pyi", Grammar::Python),
    (".go", Grammar::Go),
    (".rs", Grammar::Rust),
    (".java", Grammar::Java),
    (".cs", Grammar::CSharp),
    (".cpp", Grammar::Cpp),
    (".cc", Grammar::Cpp),
    (".cxx", Grammar::Cpp),
    (".hpp", Grammar::Cpp),
    (".hh", Grammar::Cpp),
    (".c", Grammar::Cpp),
    (".h", Grammar::Cpp),
    (".rb", Grammar::Ruby),
    (".php", Grammar::Php),
    (".sh", Grammar::Bash),
    (".bash", Grammar::Bash),
    (".css", Grammar::Css),
    (".ini", Grammar::Ini),
    (".ps1", Grammar::PowerShell),
    (".psm1", Grammar::PowerShell),
    (".psd1", Grammar::PowerShell),
];

/// The grammars `outline` has symbol rules for, in the order its messages list them.
pub const OUTLINE_GRAMMARS: [Grammar; 8] = [
    Grammar::TypeScript,
    Grammar::Tsx,
    Grammar::JavaScript,
    Grammar::Python,
    Grammar::Go,
    Grammar::Rust,
    Grammar::Java,
    Grammar::CSharp,
];

impl Grammar {
    /// The original's grammar name (`c-sharp`, `tsx`…), as tool output shows it.
    pub fn name(self) -> &'static str {
        match self {
            Grammar::TypeScript => "typescript",
            Grammar::Tsx => "tsx",
            Grammar::JavaScript => "javascript",
            Grammar::Python => "python",
            Grammar::Go => "go",
            Grammar::Rust => "rust",
            Grammar::Java => "java",
            Grammar::CSharp => "c-sharp",
            Grammar::Cpp => "cpp",
            Grammar::Ruby => "ruby",
            Grammar::Php => "php",
            Grammar::Bash => "bash",
            Grammar::Css => "css",
            Grammar::Ini => "ini",
            Grammar::PowerShell => "powershell",
        }
    }

    /// The compiled-in tree-sitter language.
    pub fn language(self) -> Language {
        match self {
            Grammar::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Grammar::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            Grammar::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Grammar::Python => tree_sitter_python::LANGUAGE.into(),
            Grammar::Go => tree_sitter_go::LANGUAGE.into(),
            Grammar::Rust => tree_sitter_rust::LANGUAGE.into(),
            Grammar::Java => tree_sitter_java::LANGUAGE.into(),
            Grammar::CSharp => tree_sitter_c_sharp::LANGUAGE.into(),
            Grammar::Cpp => tree_sitter_cpp::LANGUAGE.into(),
            Grammar::Ruby => tree_sitter_ruby::LANGUAGE.into(),
            // The original's `php` grammar parses whole files with `<?php` tags.
            Grammar::Php => tree_sitter_php::LANGUAGE_PHP.into(),
            Grammar::Bash => tree_sitter_bash::LANGUAGE.into(),
            Grammar::Css => tree_sitter_css::LANGUAGE.into(),
            Grammar::Ini => tree_sitter_ini::LANGUAGE.into(),
            Grammar::PowerShell => tree_sitter_powershell::LANGUAGE.into(),
        }
    }

    /// Whether `outline` has symbol rules for this grammar.
    pub fn has_outline(self) -> bool {
        OUTLINE_GRAMMARS.contains(&self)
    }
}

/// The lowercase extension of `path` with its dot (`path.extname` semantics: a leading dot
/// alone is not an extension), or `None`.
pub fn extension(path: &str) -> Option<String> {
    let base = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let dot = base.rfind('.')?;
    if dot == 0 || dot + 1 == base.len() {
        return None;
    }
    Some(base[dot..].to_lowercase())
}

/// The grammar for `path` by its extension (case-insensitive).
pub fn grammar_for(path: &str) -> Option<Grammar> {
    let ext = extension(path)?;
    EXTENSIONS.iter().find(|(e, _)| *e == ext).map(|(_, g)| *g)
}

/// Every mapped extension, sorted, joined with `, ` (check_syntax's message).
pub fn supported_extensions() -> String {
    let mut v: Vec<&str> = EXTENSIONS.iter().map(|(e, _)| *e).collect();
    v.sort_unstable();
    v.join(", ")
}

/// The outline grammars' names joined with `, `.
pub fn outline_names() -> String {
    OUTLINE_GRAMMARS
        .iter()
        .map(|g| g.name())
        .collect::<Vec<_>>()
        .join(", ")
}
