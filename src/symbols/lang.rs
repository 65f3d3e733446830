//! Per grammar: which leaves are identifiers, and the syntax around an identifier that says
//! how it is used (called, imported, a type, assigned, a member). [`super::compiled`] turns
//! them into tables indexed by node-kind and field ids, so the walk compares integers.
//!
//! The grammar crates' `TAGS_QUERY` (tree-sitter's tags) were the starting point; they capture
//! calls and a few type uses only, so every language is extended here to every use as code.
//! Comments and string literals hold no identifier leaves (a template or f-string
//! interpolation is code and holds them), which is what keeps references out of comments and
//! strings by construction. `tests.rs` runs each crate's `TAGS_QUERY` over the fixtures and
//! checks that every definition it captures is one of ours and every reference it captures
//! is one of our references.

use crate::syntax::Grammar;

/// `(node type, field)`: the child of that node in that field (`""`: any child outside a
/// field) has the role.
pub(super) type Slot = (&'static str, &'static str);

/// What a grammar's syntax says about its identifiers.
pub(super) struct Spec {
    /// Leaf types that are identifiers.
    pub(super) idents: &'static [&'static str],
    /// Leaf types that only name types.
    pub(super) type_idents: &'static [&'static str],
    /// Ancestor types that make an identifier part of an import, export or `use`.
    pub(super) imports: &'static [&'static str],
    /// The callee slots (a member slot under a callee slot is a call too).
    pub(super) calls: &'static [Slot],
    /// The member slots (`x.field`, `Type::name`).
    pub(super) members: &'static [Slot],
    /// The assigned or bound slots.
    pub(super) writes: &'static [Slot],
    /// Parent types whose identifier children name types.
    pub(super) types: &'static [&'static str],
    /// Fields whose identifier names a type.
    pub(super) type_fields: &'static [&'static str],
    /// Wrappers looked through when finding an identifier's slot (`a, b = …`'s list).
    pub(super) through: &'static [&'static str],
    /// Node types that open a local scope (function bodies and the like).
    pub(super) scopes: &'static [&'static str],
    /// Identifier types that count only under one of these parents (Bash words).
    pub(super) only_under: &'static [(&'static str, &'static [&'static str])],
    /// The slots where a string literal spelling an identifier names a member, as the
    /// language's checker resolves it (`obj["name"]`, `T["name"]`): the literal's slot, seen
    /// through a `literal_type` wrapper.
    pub(super) string_keys: &'static [Slot],
}

const TS: Spec = Spec {
    idents: &[
        "identifier",
        "property_identifier",
        "shorthand_property_identifier",
        "shorthand_property_identifier_pattern",
        "type_identifier",
    ],
    type_idents: &["type_identifier"],
    imports: &["import_statement", "export_clause", "import_require_clause"],
    calls: &[
        ("call_expression", "function"),
        ("new_expression", "constructor"),
        ("decorator", ""),
    ],
    members: &[
        ("member_expression", "property"),
        ("nested_identifier", "property"),
    ],
    writes: &[
        ("assignment_expression", "left"),
        ("augmented_assignment_expression", "left"),
        ("variable_declarator", "name"),
        ("update_expression", "argument"),
        ("for_in_statement", "left"),
        ("required_parameter", "pattern"),
        ("optional_parameter", "pattern"),
        ("assignment_pattern", "left"),
        ("rest_pattern", ""),
        ("formal_parameters", ""),
        ("catch_clause", "parameter"),
        ("object_pattern", ""),
        ("array_pattern", ""),
        ("pair_pattern", "value"),
        ("object_assignment_pattern", "left"),
    ],
    types: &[
        "type_annotation",
        "generic_type",
        "type_arguments",
        "union_type",
        "intersection_type",
        "array_type",
        "implements_clause",
        "extends_type_clause",
        "constraint",
        "type_query",
        "lookup_type",
        "index_type_query",
        "nested_type_identifier",
        "tuple_type",
        "parenthesized_type",
        "readonly_type",
    ],
    type_fields: &[],
    through: &["parenthesized_expression", "non_null_expression"],
    scopes: &[
        "function_declaration",
        "generator_function_declaration",
        "function_expression",
        "function",
        "generator_function",
        "arrow_function",
        "method_definition",
        "class_body",
        "statement_block",
    ],
    only_under: &[],
    string_keys: &[("subscript_expression", "index"), ("lookup_type", "")],
};

const PYTHON: Spec = Spec {
    idents: &["identifier"],
    type_idents: &[],
    imports: &[
        "import_statement",
        "import_from_statement",
        "future_import_statement",
    ],
    calls: &[("call", "function"), ("decorator", "")],
    members: &[("attribute", "attribute")],
    writes: &[
        ("assignment", "left"),
        ("augmented_assignment", "left"),
        ("for_statement", "left"),
        ("for_in_clause", "left"),
        ("parameters", ""),
        ("lambda_parameters", ""),
        ("default_parameter", "name"),
        ("typed_parameter", ""),
        ("typed_default_parameter", "name"),
        ("list_splat_pattern", ""),
        ("dictionary_splat_pattern", ""),
        ("as_pattern_target", ""),
        ("named_expression", "name"),
        ("global_statement", ""),
        ("nonlocal_statement", ""),
    ],
    types: &["type", "generic_type", "type_parameter"],
    type_fields: &[],
    through: &[
        "pattern_list",
        "tuple_pattern",
        "list_pattern",
        "parenthesized_expression",
    ],
    scopes: &["function_definition", "lambda", "class_definition"],
    only_under: &[],
    string_keys: &[],
};

const GO: Spec = Spec {
    idents: &[
        "identifier",
        "field_identifier",
        "type_identifier",
        "package_identifier",
    ],
    type_idents: &["type_identifier"],
    imports: &["import_declaration"],
    calls: &[("call_expression", "function")],
    members: &[("selector_expression", "field"), ("qualified_type", "name")],
    writes: &[
        ("assignment_statement", "left"),
        ("short_var_declaration", "left"),
        ("var_spec", "name"),
        ("const_spec", "name"),
        ("parameter_declaration", "name"),
        ("variadic_parameter_declaration", "name"),
        ("range_clause", "left"),
        ("inc_statement", ""),
        ("dec_statement", ""),
        ("receive_statement", "left"),
    ],
    types: &[
        "qualified_type",
        "generic_type",
        "pointer_type",
        "slice_type",
        "array_type",
        "map_type",
        "channel_type",
        "type_arguments",
    ],
    type_fields: &[],
    through: &["expression_list", "parenthesized_expression"],
    scopes: &["function_declaration", "method_declaration", "func_literal"],
    only_under: &[],
    string_keys: &[],
};

const RUST: Spec = Spec {
    idents: &[
        "identifier",
        "type_identifier",
        "field_identifier",
        "shorthand_field_identifier",
    ],
    type_idents: &["type_identifier"],
    imports: &["use_declaration", "extern_crate_declaration"],
    calls: &[
        ("call_expression", "function"),
        ("macro_invocation", "macro"),
        ("generic_function", "function"),
    ],
    members: &[
        ("field_expression", "field"),
        ("scoped_identifier", "name"),
        ("scoped_type_identifier", "name"),
    ],
    writes: &[
        ("let_declaration", "pattern"),
        ("assignment_expression", "left"),
        ("compound_assignment_expr", "left"),
        ("parameter", "pattern"),
        ("closure_parameters", ""),
        ("for_expression", "pattern"),
        ("let_condition", "pattern"),
    ],
    types: &[
        "generic_type",
        "type_arguments",
        "reference_type",
        "pointer_type",
        "array_type",
        "tuple_type",
        "trait_bounds",
        "dynamic_type",
        "abstract_type",
        "bounded_type",
    ],
    type_fields: &["type", "trait"],
    through: &[
        "tuple_pattern",
        "mut_pattern",
        "ref_pattern",
        "parenthesized_expression",
    ],
    scopes: &["function_item", "closure_expression"],
    only_under: &[],
    string_keys: &[],
};

const JAVA: Spec = Spec {
    idents: &["identifier", "type_identifier"],
    type_idents: &["type_identifier"],
    imports: &["import_declaration", "package_declaration"],
    calls: &[
        ("method_invocation", "name"),
        ("object_creation_expression", "type"),
    ],
    members: &[("field_access", "field"), ("scoped_type_identifier", "")],
    writes: &[
        ("variable_declarator", "name"),
        ("assignment_expression", "left"),
        ("formal_parameter", "name"),
        ("spread_parameter", ""),
        ("enhanced_for_statement", "name"),
        ("catch_formal_parameter", "name"),
        ("lambda_expression", "parameters"),
        ("inferred_parameters", ""),
        ("update_expression", ""),
    ],
    types: &[
        "generic_type",
        "type_arguments",
        "array_type",
        "scoped_type_identifier",
    ],
    type_fields: &[],
    through: &["parenthesized_expression"],
    scopes: &[
        "method_declaration",
        "constructor_declaration",
        "lambda_expression",
    ],
    only_under: &[],
    string_keys: &[],
};

const CSHARP: Spec = Spec {
    idents: &["identifier"],
    type_idents: &[],
    imports: &["using_directive"],
    calls: &[
        ("invocation_expression", "function"),
        ("object_creation_expression", "type"),
    ],
    members: &[
        ("member_access_expression", "name"),
        ("member_binding_expression", "name"),
    ],
    writes: &[
        ("variable_declarator", "name"),
        ("assignment_expression", "left"),
        ("parameter", "name"),
        ("foreach_statement", "left"),
        ("prefix_unary_expression", ""),
        ("postfix_unary_expression", ""),
    ],
    types: &[
        "generic_name",
        "type_argument_list",
        "base_list",
        "array_type",
        "nullable_type",
        "pointer_type",
        "tuple_element",
        "type_parameter_constraint",
    ],
    type_fields: &["type", "returns"],
    through: &["parenthesized_expression"],
    scopes: &[
        "method_declaration",
        "constructor_declaration",
        "local_function_statement",
        "lambda_expression",
        "accessor_declaration",
    ],
    only_under: &[],
    string_keys: &[],
};

const CPP: Spec = Spec {
    idents: &[
        "identifier",
        "type_identifier",
        "field_identifier",
        "namespace_identifier",
    ],
    type_idents: &["type_identifier"],
    imports: &["using_declaration", "preproc_include"],
    calls: &[
        ("call_expression", "function"),
        ("template_function", "name"),
    ],
    members: &[
        ("field_expression", "field"),
        ("qualified_identifier", "name"),
    ],
    writes: &[
        ("init_declarator", "declarator"),
        ("assignment_expression", "left"),
        ("parameter_declaration", "declarator"),
        ("update_expression", "argument"),
        ("pointer_declarator", "declarator"),
        ("reference_declarator", ""),
    ],
    types: &["template_type", "template_argument_list", "type_descriptor"],
    type_fields: &["type"],
    through: &["parenthesized_expression"],
    scopes: &["function_definition", "lambda_expression"],
    only_under: &[],
    string_keys: &[],
};

const RUBY: Spec = Spec {
    idents: &["identifier", "constant"],
    type_idents: &[],
    imports: &[],
    calls: &[("call", "method")],
    members: &[("scope_resolution", "name")],
    writes: &[
        ("assignment", "left"),
        ("operator_assignment", "left"),
        ("method_parameters", ""),
        ("block_parameters", ""),
        ("lambda_parameters", ""),
        ("optional_parameter", "name"),
        ("keyword_parameter", "name"),
        ("splat_parameter", "name"),
        ("for", "pattern"),
    ],
    types: &["superclass"],
    type_fields: &[],
    through: &["left_assignment_list", "destructured_left_assignment"],
    scopes: &["method", "singleton_method", "block", "do_block", "lambda"],
    only_under: &[],
    string_keys: &[],
};

const PHP: Spec = Spec {
    idents: &["name"],
    type_idents: &[],
    imports: &["namespace_use_declaration"],
    calls: &[
        ("function_call_expression", "function"),
        ("member_call_expression", "name"),
        ("nullsafe_member_call_expression", "name"),
        ("scoped_call_expression", "name"),
        ("object_creation_expression", ""),
    ],
    members: &[
        ("member_access_expression", "name"),
        ("nullsafe_member_access_expression", "name"),
        ("class_constant_access_expression", ""),
        ("qualified_name", ""),
    ],
    writes: &[
        ("assignment_expression", "left"),
        ("augmented_assignment_expression", "left"),
        ("simple_parameter", "name"),
        ("foreach_statement", ""),
    ],
    types: &[
        "named_type",
        "base_clause",
        "class_interface_clause",
        "union_type",
    ],
    type_fields: &[],
    through: &["variable_name"],
    scopes: &[
        "function_definition",
        "method_declaration",
        "anonymous_function",
        "arrow_function",
    ],
    only_under: &[],
    string_keys: &[],
};

const BASH: Spec = Spec {
    idents: &["word", "variable_name"],
    type_idents: &[],
    imports: &[],
    calls: &[("command_name", "")],
    members: &[],
    writes: &[
        ("variable_assignment", "name"),
        ("for_statement", "variable"),
    ],
    types: &[],
    type_fields: &[],
    through: &[],
    scopes: &["function_definition"],
    only_under: &[("word", &["command_name", "function_definition"])],
    string_keys: &[],
};

const POWERSHELL: Spec = Spec {
    idents: &[
        "function_name",
        "simple_name",
        "command_name",
        "type_identifier",
    ],
    type_idents: &["type_identifier"],
    imports: &[],
    calls: &[("command", "command_name")],
    members: &[("member_name", "")],
    writes: &[],
    types: &["type_name"],
    type_fields: &[],
    through: &[],
    scopes: &[
        "function_statement",
        "class_method_definition",
        "script_block",
    ],
    only_under: &[],
    string_keys: &[],
};

/// The identifier rules of `g`, or `None` for a grammar without symbols.
pub(super) fn spec(g: Grammar) -> Option<&'static Spec> {
    Some(match g {
        Grammar::TypeScript | Grammar::Tsx | Grammar::JavaScript => &TS,
        Grammar::Python => &PYTHON,
        Grammar::Go => &GO,
        Grammar::Rust => &RUST,
        Grammar::Java => &JAVA,
        Grammar::CSharp => &CSHARP,
        Grammar::Cpp => &CPP,
        Grammar::Ruby => &RUBY,
        Grammar::Php => &PHP,
        Grammar::Bash => &BASH,
        Grammar::PowerShell => &POWERSHELL,
        Grammar::Css | Grammar::Ini => return None,
    })
}
