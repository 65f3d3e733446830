//! What a symbol is, once for the crate: per grammar, the syntax nodes that define something
//! and what they define. `outline` shows the entries marked `outline` (the original's
//! captured node types, LATER.md §3, unchanged); the symbol tools (`find_symbol`,
//! `find_references`, `repo_map`, the edits by symbol) use every entry, which adds what an
//! outline leaves out — constants, variables, type aliases, macros, object-literal methods —
//! and the grammars outline does not cover (C/C++, Ruby, PHP, Bash, PowerShell).
//!
//! A node listed here is a *candidate*: the symbol engine still decides from its shape
//! whether it defines a name (a JavaScript `variable_declarator` counts at the top level or
//! when its value is a function; a C `declaration` only when it declares a function) and
//! refines the kind (a Python function in a class body is a method; a Go `type_spec` of a
//! struct type is a struct). Node kinds a grammar does not have match nothing (the TypeScript
//! table serves JavaScript too, as outline's always has).

use super::lang::Grammar;

/// What a definition defines, as the symbol tools name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum SymbolKind {
    /// A free function (or a function-valued binding).
    Function,
    /// A function that belongs to a class, impl, trait or object.
    Method,
    /// A class (and records, named class expressions).
    Class,
    /// A struct or union.
    Struct,
    /// An enumeration.
    Enum,
    /// An interface (and annotation types).
    Interface,
    /// A trait.
    Trait,
    /// A type alias or type definition (`type X = …`, `typedef`, Go `type T int`).
    Type,
    /// A module, namespace or package.
    Module,
    /// A constant.
    Constant,
    /// A module-level (global, static, exported) variable.
    Variable,
    /// A macro.
    Macro,
    /// A field or property of a class (TypeScript fields, C# properties).
    Property,
    /// A Rust `impl` block: a container for its methods, never reported itself.
    Impl,
}

impl SymbolKind {
    /// Every kind a caller may ask for, in the order the messages list them.
    pub const ALL: [SymbolKind; 13] = [
        SymbolKind::Function,
        SymbolKind::Method,
        SymbolKind::Class,
        SymbolKind::Struct,
        SymbolKind::Enum,
        SymbolKind::Interface,
        SymbolKind::Trait,
        SymbolKind::Type,
        SymbolKind::Module,
        SymbolKind::Constant,
        SymbolKind::Variable,
        SymbolKind::Macro,
        SymbolKind::Property,
    ];

    /// The name results show and callers pass.
    pub fn as_str(self) -> &'static str {
        match self {
            SymbolKind::Function => "function",
            SymbolKind::Method => "method",
            SymbolKind::Class => "class",
            SymbolKind::Struct => "struct",
            SymbolKind::Enum => "enum",
            SymbolKind::Interface => "interface",
            SymbolKind::Trait => "trait",
            SymbolKind::Type => "type",
            SymbolKind::Module => "module",
            SymbolKind::Constant => "constant",
            SymbolKind::Variable => "variable",
            SymbolKind::Macro => "macro",
            SymbolKind::Property => "property",
            SymbolKind::Impl => "impl",
        }
    }

    /// The kind stored as `byte` (see `repr(u8)`).
    pub fn from_u8(byte: u8) -> Option<SymbolKind> {
        Self::ALL
            .iter()
            .chain(std::iter::once(&SymbolKind::Impl))
            .copied()
            .find(|k| *k as u8 == byte)
    }

    /// Whether definitions of this kind hold others (their members are qualified by it).
    pub fn is_container(self) -> bool {
        !matches!(
            self,
            SymbolKind::Constant | SymbolKind::Variable | SymbolKind::Macro | SymbolKind::Property
        )
    }
}

/// One defining node type of a grammar.
#[derive(Debug, Clone, Copy)]
pub struct Def {
    /// The tree-sitter node type.
    pub node: &'static str,
    /// What it defines before refinement.
    pub kind: SymbolKind,
    /// `outline` lists it (the original's capture set).
    pub outline: bool,
}

const fn o(node: &'static str, kind: SymbolKind) -> Def {
    Def {
        node,
        kind,
        outline: true,
    }
}

const fn s(node: &'static str, kind: SymbolKind) -> Def {
    Def {
        node,
        kind,
        outline: false,
    }
}

use SymbolKind as K;

/// TypeScript, TSX and JavaScript.
const TS: &[Def] = &[
    o("function_declaration", K::Function),
    o("generator_function_declaration", K::Function),
    o("class_declaration", K::Class),
    o("abstract_class_declaration", K::Class),
    o("interface_declaration", K::Interface),
    o("enum_declaration", K::Enum),
    o("type_alias_declaration", K::Type),
    o("internal_module", K::Module),
    o("module", K::Module),
    o("function_signature", K::Function),
    o("method_definition", K::Method),
    o("method_signature", K::Method),
    o("abstract_method_signature", K::Method),
    o("public_field_definition", K::Property),
    // Outline shows a top-level function binding by its declaration (`fn_binding`); the
    // symbol is the declarator.
    s("variable_declarator", K::Variable),
    s("class", K::Class),
    s("function_expression", K::Function),
    s("assignment_expression", K::Function),
    s("pair", K::Method),
    s("property_signature", K::Property),
];

const PYTHON: &[Def] = &[
    o("function_definition", K::Function),
    o("class_definition", K::Class),
    s("assignment", K::Variable),
    s("type_alias_statement", K::Type),
];

const GO: &[Def] = &[
    o("function_declaration", K::Function),
    o("method_declaration", K::Method),
    o("type_spec", K::Type),
    s("type_alias", K::Type),
    s("const_spec", K::Constant),
    s("var_spec", K::Variable),
    s("method_elem", K::Method),
];

const RUST: &[Def] = &[
    o("function_item", K::Function),
    o("struct_item", K::Struct),
    o("enum_item", K::Enum),
    o("trait_item", K::Trait),
    o("impl_item", K::Impl),
    o("mod_item", K::Module),
    o("macro_definition", K::Macro),
    s("union_item", K::Struct),
    s("type_item", K::Type),
    s("const_item", K::Constant),
    s("static_item", K::Variable),
    s("function_signature_item", K::Function),
    s("associated_type", K::Type),
];

const JAVA: &[Def] = &[
    o("class_declaration", K::Class),
    o("interface_declaration", K::Interface),
    o("enum_declaration", K::Enum),
    o("record_declaration", K::Class),
    o("method_declaration", K::Method),
    o("constructor_declaration", K::Method),
    s("annotation_type_declaration", K::Interface),
    s("compact_constructor_declaration", K::Method),
    s("field_declaration", K::Property),
    s("constant_declaration", K::Constant),
];

const CSHARP: &[Def] = &[
    o("namespace_declaration", K::Module),
    o("file_scoped_namespace_declaration", K::Module),
    o("class_declaration", K::Class),
    o("interface_declaration", K::Interface),
    o("struct_declaration", K::Struct),
    o("enum_declaration", K::Enum),
    o("record_declaration", K::Class),
    o("method_declaration", K::Method),
    o("constructor_declaration", K::Method),
    o("property_declaration", K::Property),
    s("delegate_declaration", K::Type),
    s("local_function_statement", K::Function),
    s("destructor_declaration", K::Method),
    s("field_declaration", K::Property),
    s("event_declaration", K::Property),
    // `using Alias = Some.Type;`: a type alias (a plain `using N;` names nothing).
    s("using_directive", K::Type),
];

/// C and C++ (one grammar, as for check_syntax).
const CPP: &[Def] = &[
    s("function_definition", K::Function),
    s("declaration", K::Function),
    s("field_declaration", K::Method),
    s("class_specifier", K::Class),
    s("struct_specifier", K::Struct),
    s("union_specifier", K::Struct),
    s("enum_specifier", K::Enum),
    s("type_definition", K::Type),
    s("alias_declaration", K::Type),
    s("namespace_definition", K::Module),
    s("preproc_def", K::Macro),
    s("preproc_function_def", K::Macro),
    s("concept_definition", K::Type),
];

const RUBY: &[Def] = &[
    s("method", K::Method),
    s("singleton_method", K::Method),
    s("class", K::Class),
    s("module", K::Module),
    s("assignment", K::Constant),
    s("alias", K::Method),
];

const PHP: &[Def] = &[
    s("function_definition", K::Function),
    s("class_declaration", K::Class),
    s("interface_declaration", K::Interface),
    s("trait_declaration", K::Trait),
    s("enum_declaration", K::Enum),
    s("method_declaration", K::Method),
    s("namespace_definition", K::Module),
    s("const_element", K::Constant),
    s("property_element", K::Property),
];

const BASH: &[Def] = &[s("function_definition", K::Function)];

const POWERSHELL: &[Def] = &[
    s("function_statement", K::Function),
    s("class_statement", K::Class),
    s("class_method_definition", K::Method),
    s("enum_statement", K::Enum),
    s("class_property_definition", K::Property),
];

/// The defining node types of `g` (empty for CSS and INI, which define no symbols).
pub fn defs(g: Grammar) -> &'static [Def] {
    match g {
        Grammar::TypeScript | Grammar::Tsx | Grammar::JavaScript => TS,
        Grammar::Python => PYTHON,
        Grammar::Go => GO,
        Grammar::Rust => RUST,
        Grammar::Java => JAVA,
        Grammar::CSharp => CSHARP,
        Grammar::Cpp => CPP,
        Grammar::Ruby => RUBY,
        Grammar::Php => PHP,
        Grammar::Bash => BASH,
        Grammar::PowerShell => POWERSHELL,
        Grammar::Css | Grammar::Ini => &[],
    }
}

/// Whether the symbol tools read files of `g`.
pub fn has_symbols(g: Grammar) -> bool {
    !defs(g).is_empty()
}

/// The node types `outline` captures for `g`, in table order.
pub fn outline_captures(g: Grammar) -> impl Iterator<Item = &'static str> {
    defs(g).iter().filter(|d| d.outline).map(|d| d.node)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The original's capture sets (LATER.md §3), as `bench/syntax-ref.mjs` states them:
    /// deriving outline's from this table must not change them.
    #[test]
    fn outline_captures_are_the_originals() {
        let want: [(Grammar, &[&str]); 6] = [
            (
                Grammar::TypeScript,
                &[
                    "function_declaration",
                    "generator_function_declaration",
                    "class_declaration",
                    "abstract_class_declaration",
                    "interface_declaration",
                    "enum_declaration",
                    "type_alias_declaration",
                    "internal_module",
                    "module",
                    "function_signature",
                    "method_definition",
                    "method_signature",
                    "abstract_method_signature",
                    "public_field_definition",
                ],
            ),
            (
                Grammar::Python,
                &["function_definition", "class_definition"],
            ),
            (
                Grammar::Go,
                &["function_declaration", "method_declaration", "type_spec"],
            ),
            (
                Grammar::Rust,
                &[
                    "function_item",
                    "struct_item",
                    "enum_item",
                    "trait_item",
                    "impl_item",
                    "mod_item",
                    "macro_definition",
                ],
            ),
            (
                Grammar::Java,
                &[
                    "class_declaration",
                    "interface_declaration",
                    "enum_declaration",
                    "record_declaration",
                    "method_declaration",
                    "constructor_declaration",
                ],
            ),
            (
                Grammar::CSharp,
                &[
                    "namespace_declaration",
                    "file_scoped_namespace_declaration",
                    "class_declaration",
                    "interface_declaration",
                    "struct_declaration",
                    "enum_declaration",
                    "record_declaration",
                    "method_declaration",
                    "constructor_declaration",
                    "property_declaration",
                ],
            ),
        ];
        for (g, names) in want {
            assert_eq!(outline_captures(g).collect::<Vec<_>>(), names, "{g:?}");
        }
        for g in [
            Grammar::Cpp,
            Grammar::Ruby,
            Grammar::Php,
            Grammar::Bash,
            Grammar::PowerShell,
        ] {
            assert_eq!(outline_captures(g).count(), 0, "{g:?}");
        }
    }

    #[test]
    fn every_listed_node_type_exists_in_its_grammar() {
        use crate::syntax::lang::OUTLINE_GRAMMARS;
        let all = [
            Grammar::Cpp,
            Grammar::Ruby,
            Grammar::Php,
            Grammar::Bash,
            Grammar::PowerShell,
        ];
        for g in OUTLINE_GRAMMARS.into_iter().chain(all) {
            let lang = g.language();
            for d in defs(g) {
                // The TypeScript table serves JavaScript, which lacks the type-only nodes.
                let shared = g == Grammar::JavaScript;
                let found = lang.id_for_node_kind(d.node, true) != 0;
                assert!(found || shared, "{g:?} has no node type {}", d.node);
            }
        }
    }

    #[test]
    fn kinds_round_trip_through_their_byte() {
        for k in SymbolKind::ALL.into_iter().chain([SymbolKind::Impl]) {
            assert_eq!(SymbolKind::from_u8(k as u8), Some(k));
        }
        assert_eq!(SymbolKind::from_u8(200), None);
    }
}
