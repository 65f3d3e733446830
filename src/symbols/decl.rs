//! Shape helpers for [`super::recognize`]: C declarators, Java/C# declarator lists and
//! modifiers, TypeScript ambient declarations.

use tree_sitter::Node;

/// What a C/C++ declarator chain declares.
pub struct CDecl<'t> {
    /// The declared name's node (an identifier, field identifier, destructor or operator name).
    pub name: Node<'t>,
    /// The scope segments of a qualified name (`ns::Foo::bar` → `ns`, `Foo`).
    pub scope: Vec<Node<'t>>,
    /// The chain passes a function declarator: a function is declared.
    pub function: bool,
}

/// Follows `node`'s `declarator` chain (through pointers, references, parentheses and
/// qualified names) to the declared name.
pub fn c_declarator(node: Node) -> Option<CDecl> {
    let mut cur = node.child_by_field_name("declarator")?;
    let mut function = false;
    let mut scope = Vec::new();
    loop {
        match cur.kind() {
            "function_declarator" => {
                function = true;
                cur = cur.child_by_field_name("declarator")?;
            }
            "pointer_declarator"
            | "reference_declarator"
            | "init_declarator"
            | "array_declarator"
            | "attributed_declarator" => {
                cur = cur
                    .child_by_field_name("declarator")
                    .or_else(|| cur.named_child(cur.named_child_count().saturating_sub(1)))?;
            }
            "parenthesized_declarator" => cur = cur.named_child(0)?,
            "qualified_identifier" => {
                if let Some(s) = cur.child_by_field_name("scope") {
                    // `Foo<int>::bar`: the template's name.
                    let s = match s.kind() {
                        "template_type" => s.child_by_field_name("name").unwrap_or(s),
                        _ => s,
                    };
                    scope.push(s);
                }
                cur = cur.child_by_field_name("name")?;
            }
            "template_function" => cur = cur.child_by_field_name("name")?,
            "identifier" | "field_identifier" | "type_identifier" | "operator_name"
            | "destructor_name" => {
                return Some(CDecl {
                    name: cur,
                    scope,
                    function,
                })
            }
            _ => return None,
        }
    }
}

/// The type name a `typedef` declarator introduces (`typedef int (*cb)(int)` → `cb`).
pub fn c_type_name(mut cur: Node) -> Option<Node> {
    loop {
        match cur.kind() {
            "type_identifier" | "primitive_type" => return Some(cur),
            "parenthesized_declarator" => cur = cur.named_child(0)?,
            _ => {
                cur = cur
                    .child_by_field_name("declarator")
                    .or_else(|| cur.named_child(0))?;
            }
        }
    }
}

/// The `variable_declarator`s of a Java or C# field declaration.
pub fn declarators(node: Node) -> Vec<Node> {
    let mut out = Vec::new();
    let mut c = node.walk();
    for ch in node.named_children(&mut c) {
        match ch.kind() {
            "variable_declarator" => out.push(ch),
            "variable_declaration" => {
                let mut c2 = ch.walk();
                out.extend(
                    ch.named_children(&mut c2)
                        .filter(|d| d.kind() == "variable_declarator"),
                );
            }
            _ => {}
        }
    }
    out
}

/// Whether `node`'s modifiers (Java's `modifiers` node, C#'s `modifier` children) include
/// every word of `words`.
pub fn has_modifiers(text: &str, node: Node, words: &[&str]) -> bool {
    let mut said: Vec<&str> = Vec::new();
    let mut c = node.walk();
    for ch in node.named_children(&mut c) {
        if matches!(ch.kind(), "modifiers" | "modifier") {
            said.extend(text.get(ch.byte_range()).unwrap_or("").split_whitespace());
        }
    }
    words.iter().all(|w| said.contains(w))
}

/// A TypeScript declaration under `declare` (an ambient declaration): a declaration only.
pub fn ambient(node: Node) -> bool {
    let mut cur = node.parent();
    while let Some(p) = cur {
        match p.kind() {
            "ambient_declaration" => return true,
            "program" => return false,
            _ => cur = p.parent(),
        }
    }
    false
}
