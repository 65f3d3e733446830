//! The recognisers of Go, Rust, Java and C#, C/C++, Ruby, PHP and PowerShell (see
//! [`super`]: TypeScript/JavaScript and Python live there beside the shared shapes).

use super::{first_of_kind, last_ident, Ctx, Found};
use crate::symbols::decl;
use crate::syntax::defs::SymbolKind as K;
use tree_sitter::Node;

pub(super) fn go<'t>(ctx: &Ctx, node: Node<'t>, kind: K) -> Option<Found<'t>> {
    match node.kind() {
        "method_declaration" => {
            let mut f = Found::one(ctx, ctx.field(node, "name")?, K::Method);
            let receiver = ctx
                .field(node, "receiver")
                .and_then(|r| first_of_kind(r, "type_identifier"))
                .map(|t| ctx.text_of(t).to_string());
            f.qualifier = receiver.into_iter().collect();
            Some(f)
        }
        "type_spec" => {
            let k = match ctx.field(node, "type").map(|t| t.kind()) {
                Some("struct_type") => K::Struct,
                Some("interface_type") => K::Interface,
                _ => K::Type,
            };
            Some(Found::one(ctx, ctx.field(node, "name")?, k))
        }
        "const_spec" | "var_spec" => {
            if node.kind() == "var_spec" && ctx.local {
                return None;
            }
            let mut c = node.walk();
            let names: Vec<(Node, String)> = node
                .children_by_field_name("name", &mut c)
                .filter(|n| n.kind() == "identifier")
                .map(|n| (n, ctx.text_of(n).to_string()))
                .collect();
            if ctx.local && node.kind() == "const_spec" {
                return None;
            }
            Found::many(names, kind)
        }
        "method_elem" => Some(Found::one(ctx, ctx.field(node, "name")?, K::Method).decl(true)),
        _ => Some(Found::one(ctx, ctx.field(node, "name")?, kind)),
    }
}

pub(super) fn rust<'t>(ctx: &Ctx, node: Node<'t>, kind: K) -> Option<Found<'t>> {
    match node.kind() {
        "impl_item" => {
            let ty = ctx.field(node, "type")?;
            let base = match ty.kind() {
                "type_identifier" => ty,
                "generic_type" => ctx.field(ty, "type").map(|t| last_ident(ctx, t))?,
                "scoped_type_identifier" => ctx.field(ty, "name")?,
                _ => first_of_kind(ty, "type_identifier")?,
            };
            let mut f = Found::one(ctx, base, K::Impl);
            f.report = false;
            f.names.clear();
            f.scope = Some(ctx.text_of(base).to_string());
            Some(f)
        }
        "function_item" | "function_signature_item" => {
            let k = if matches!(ctx.inner(), Some(K::Impl | K::Trait)) {
                K::Method
            } else {
                K::Function
            };
            let decl = node.kind() == "function_signature_item";
            Some(Found::one(ctx, ctx.field(node, "name")?, k).decl(decl))
        }
        "associated_type" => Some(Found::one(ctx, ctx.field(node, "name")?, kind).decl(true)),
        _ => Some(Found::one(ctx, ctx.field(node, "name")?, kind)),
    }
}

pub(super) fn jvm_like<'t>(ctx: &Ctx, node: Node<'t>, kind: K) -> Option<Found<'t>> {
    match node.kind() {
        "field_declaration" | "constant_declaration" => {
            let constant = kind == K::Constant
                || decl::has_modifiers(ctx.text, node, &["const"])
                || decl::has_modifiers(ctx.text, node, &["static", "final"]);
            let declarators = decl::declarators(node);
            let names: Vec<(Node, String)> = declarators
                .into_iter()
                .filter_map(|d| ctx.field(d, "name").or_else(|| d.named_child(0)))
                .filter(|n| n.kind() == "identifier")
                .map(|n| (n, ctx.text_of(n).to_string()))
                .collect();
            Found::many(names, if constant { K::Constant } else { K::Property })
        }
        "namespace_declaration" | "file_scoped_namespace_declaration" => Some(Found::one(
            ctx,
            last_ident(ctx, ctx.field(node, "name")?),
            K::Module,
        )),
        "method_declaration" => Some(
            Found::one(ctx, ctx.field(node, "name")?, kind).decl(ctx.field(node, "body").is_none()),
        ),
        "using_directive" => {
            let mut f = Found::one(ctx, ctx.field(node, "name")?, K::Type);
            f.scope = None;
            Some(f)
        }
        _ => Some(Found::one(ctx, ctx.field(node, "name")?, kind)),
    }
}

pub(super) fn cpp<'t>(ctx: &Ctx, node: Node<'t>, kind: K) -> Option<Found<'t>> {
    match node.kind() {
        "function_definition" | "declaration" | "field_declaration" => {
            let d = decl::c_declarator(node)?;
            if !d.function {
                return None;
            }
            // A declaration inside a function body is a local prototype or a variable.
            if node.kind() != "function_definition" && ctx.local {
                return None;
            }
            let in_class = ctx.in_type();
            let method = in_class || !d.scope.is_empty() || node.kind() == "field_declaration";
            let mut f = Found::one(ctx, d.name, if method { K::Method } else { K::Function });
            f.qualifier = d
                .scope
                .iter()
                .map(|n| ctx.text_of(*n).to_string())
                .collect();
            f.decl = node.kind() != "function_definition";
            Some(f)
        }
        "class_specifier" | "struct_specifier" | "union_specifier" | "enum_specifier" => {
            ctx.field(node, "body")?;
            let name = ctx.field(node, "name")?;
            Some(Found::one(ctx, last_ident(ctx, name), kind))
        }
        "type_definition" => {
            let mut c = node.walk();
            let names: Vec<(Node, String)> = node
                .children_by_field_name("declarator", &mut c)
                .filter_map(decl::c_type_name)
                .map(|n| (n, ctx.text_of(n).to_string()))
                .collect();
            Found::many(names, kind)
        }
        "namespace_definition" => {
            let name = ctx.field(node, "name")?;
            Some(Found::one(ctx, last_ident(ctx, name), K::Module))
        }
        _ => Some(Found::one(ctx, ctx.field(node, "name")?, kind)),
    }
}

pub(super) fn ruby<'t>(ctx: &Ctx, node: Node<'t>, kind: K) -> Option<Found<'t>> {
    match node.kind() {
        "assignment" => {
            let left = ctx.field(node, "left").filter(|l| l.kind() == "constant")?;
            Some(Found::one(ctx, left, K::Constant))
        }
        "class" | "module" => Some(Found::one(
            ctx,
            last_ident(ctx, ctx.field(node, "name")?),
            kind,
        )),
        "method" => {
            let k = if ctx.containers.is_empty() {
                K::Function
            } else {
                K::Method
            };
            Some(Found::one(ctx, ctx.field(node, "name")?, k))
        }
        _ => Some(Found::one(ctx, ctx.field(node, "name")?, kind)),
    }
}

pub(super) fn php<'t>(ctx: &Ctx, node: Node<'t>, kind: K) -> Option<Found<'t>> {
    match node.kind() {
        "const_element" => {
            let mut c = node.walk();
            let name = node.named_children(&mut c).find(|n| n.kind() == "name")?;
            Some(Found::one(ctx, name, kind))
        }
        "property_element" => {
            let var = ctx.field(node, "name")?;
            let name = var.named_child(0).unwrap_or(var);
            Some(Found::one(ctx, name, kind))
        }
        "namespace_definition" => Some(Found::one(
            ctx,
            last_ident(ctx, ctx.field(node, "name")?),
            kind,
        )),
        "method_declaration" => Some(
            Found::one(ctx, ctx.field(node, "name")?, kind).decl(ctx.field(node, "body").is_none()),
        ),
        _ => Some(Found::one(ctx, ctx.field(node, "name")?, kind)),
    }
}

pub(super) fn powershell<'t>(ctx: &Ctx, node: Node<'t>, kind: K) -> Option<Found<'t>> {
    let want = match node.kind() {
        "function_statement" => "function_name",
        "class_property_definition" => "variable",
        _ => "simple_name",
    };
    let mut c = node.walk();
    let name = node.named_children(&mut c).find(|n| n.kind() == want)?;
    let mut f = Found::one(ctx, name, kind);
    if want == "variable" {
        let text = ctx.text_of(name).trim_start_matches('$').to_string();
        f.names[0].1 = text;
    }
    Some(f)
}
