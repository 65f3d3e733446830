//! Whether a candidate node of `syntax::defs` defines a name, which name, and what kind of
//! symbol it is — the part of "what is a symbol" that depends on a node's shape.

use super::compiled::Table;
use super::decl;

mod others;
use crate::syntax::defs::SymbolKind as K;
use crate::syntax::outline::is_function_value;
use crate::syntax::Grammar;
use tree_sitter::Node;

/// Where the walk is when it meets a candidate.
pub struct Ctx<'a> {
    /// The grammar.
    pub grammar: Grammar,
    /// Its compiled table (field ids by name).
    pub table: &'static Table,
    /// The kind of the candidate's parent (the walk knows it: `Node::parent` searches
    /// down from the root).
    pub parent_kind: &'static str,
    /// The parsed text.
    pub text: &'a str,
    /// The kinds of the enclosing definitions, innermost last.
    pub containers: &'a [K],
    /// Inside a function body (or another local scope).
    pub local: bool,
    /// The innermost container's own name (`constructor`), when there is one.
    pub inner_name: Option<&'a str>,
}

impl Ctx<'_> {
    fn inner(&self) -> Option<K> {
        self.containers.last().copied()
    }

    /// `n`'s child in field `f`.
    fn field<'t>(&self, n: Node<'t>, f: &str) -> Option<Node<'t>> {
        match self.table.field(f) {
            0 => None,
            id => n.child_by_field_id(id),
        }
    }

    fn text_of(&self, n: Node) -> &str {
        self.text.get(n.byte_range()).unwrap_or("")
    }

    fn in_type(&self) -> bool {
        matches!(
            self.inner(),
            Some(K::Class | K::Struct | K::Enum | K::Interface | K::Trait | K::Impl)
        )
    }
}

/// What a candidate defines.
pub struct Found<'t> {
    /// The name nodes and their names (several for `const a, b = …` in Go).
    pub names: Vec<(Node<'t>, String)>,
    /// The kind.
    pub kind: K,
    /// A declaration without a body.
    pub decl: bool,
    /// The name its members are qualified by; `None`: it holds no members.
    pub scope: Option<String>,
    /// Qualifier segments written in the definition itself (`Foo::bar`, `X.prototype.go`).
    pub qualifier: Vec<String>,
    /// Reported as a definition (a Rust `impl` only qualifies its members).
    pub report: bool,
    /// A member the innermost container (a constructor) defines on its class: qualified
    /// by the class, not by the method.
    pub of_class: bool,
}

impl<'t> Found<'t> {
    fn one(ctx: &Ctx, name: Node<'t>, kind: K) -> Found<'t> {
        let text = ctx.text_of(name).to_string();
        let scope = kind.is_container().then(|| text.clone());
        Found {
            names: vec![(name, text)],
            kind,
            decl: false,
            scope,
            qualifier: Vec::new(),
            report: true,
            of_class: false,
        }
    }

    /// A member named by a property key: an identifier, or a string's content (`"load": …`);
    /// computed and numeric keys name nothing one can search for.
    fn key(ctx: &Ctx, key: Node<'t>, kind: K) -> Option<Found<'t>> {
        match key.kind() {
            "string" => {
                let inner = key.named_child(0)?;
                let mut f = Found::one(ctx, inner, kind);
                f.names[0].0 = key;
                Some(f)
            }
            "computed_property_name" | "number" => None,
            _ => Some(Found::one(ctx, key, kind)),
        }
    }

    /// Several names of one kind from one node (`const a, b = …`, `int x, y;`, a typedef's
    /// declarators); `None` when there is none.
    fn many(names: Vec<(Node<'t>, String)>, kind: K) -> Option<Found<'t>> {
        if names.is_empty() {
            return None;
        }
        Some(Found {
            names,
            kind,
            decl: false,
            scope: None,
            qualifier: Vec::new(),
            report: true,
            of_class: false,
        })
    }

    fn decl(mut self, decl: bool) -> Found<'t> {
        self.decl = decl;
        self
    }
}

/// The candidate `node` (of table kind `kind`), recognised.
pub fn recognize<'t>(ctx: &Ctx, node: Node<'t>, kind: K) -> Option<Found<'t>> {
    match ctx.grammar {
        Grammar::TypeScript | Grammar::Tsx | Grammar::JavaScript => script(ctx, node, kind),
        Grammar::Python => python(ctx, node, kind),
        Grammar::Go => others::go(ctx, node, kind),
        Grammar::Rust => others::rust(ctx, node, kind),
        Grammar::Cpp => others::cpp(ctx, node, kind),
        Grammar::Ruby => others::ruby(ctx, node, kind),
        Grammar::Php => others::php(ctx, node, kind),
        Grammar::PowerShell => others::powershell(ctx, node, kind),
        Grammar::Java | Grammar::CSharp => others::jvm_like(ctx, node, kind),
        Grammar::Bash => ctx.field(node, "name").map(|n| Found::one(ctx, n, kind)),
        Grammar::Css | Grammar::Ini => None,
    }
}

/// The last identifier of a dotted or qualified name node (`N.M` → `M`).
fn last_ident<'t>(ctx: &Ctx, n: Node<'t>) -> Node<'t> {
    let mut cur = n;
    loop {
        let next = ctx
            .field(cur, "name")
            .or_else(|| ctx.field(cur, "property"))
            .or_else(|| cur.named_child(cur.named_child_count().saturating_sub(1)));
        match next {
            Some(c) if c.id() != cur.id() && cur.named_child_count() > 0 => cur = c,
            _ => return cur,
        }
    }
}

fn script<'t>(ctx: &Ctx, node: Node<'t>, kind: K) -> Option<Found<'t>> {
    match node.kind() {
        "variable_declarator" => {
            let name = ctx
                .field(node, "name")
                .filter(|n| n.kind() == "identifier")?;
            let value = ctx.field(node, "value");
            let vk = value.map(|v| v.kind()).unwrap_or("");
            if is_function_value(vk) {
                return Some(Found::one(ctx, name, K::Function));
            }
            if matches!(vk, "class") {
                return Some(Found::one(ctx, name, K::Class));
            }
            if ctx.local || ctx.in_type() {
                return None;
            }
            let constant = node
                .parent()
                .and_then(|p| p.child(0))
                .is_some_and(|k| k.kind() == "const");
            let mut f = Found::one(ctx, name, if constant { K::Constant } else { K::Variable });
            // An object literal's function members are qualified by the binding.
            if vk == "object" {
                f.scope = Some(ctx.text_of(name).to_string());
            }
            Some(f)
        }
        "assignment_expression" => {
            let right = ctx.field(node, "right")?;
            let class = right.kind() == "class";
            let left = ctx.field(node, "left")?;
            if let Some(f) = constructor_member(ctx, left, is_function_value(right.kind())) {
                return Some(f);
            }
            if !is_function_value(right.kind()) && !class {
                // `export default x = …` binds an exported name.
                let exported = ctx.parent_kind == "export_statement";
                return (exported && left.kind() == "identifier")
                    .then(|| Found::one(ctx, left, K::Constant));
            }
            match left.kind() {
                "identifier" => Some(Found::one(
                    ctx,
                    left,
                    if class { K::Class } else { K::Function },
                )),
                "member_expression" => {
                    let prop = ctx.field(left, "property")?;
                    let mut path = Vec::new();
                    let mut obj = ctx.field(left, "object");
                    while let Some(o) = obj {
                        match o.kind() {
                            "member_expression" => {
                                if let Some(p) = ctx.field(o, "property") {
                                    path.push(ctx.text_of(p).to_string());
                                }
                                obj = ctx.field(o, "object");
                            }
                            "identifier" => {
                                path.push(ctx.text_of(o).to_string());
                                break;
                            }
                            _ => break,
                        }
                    }
                    path.reverse();
                    let path: Vec<String> = path
                        .into_iter()
                        .filter(|p| {
                            !matches!(
                                p.as_str(),
                                "prototype"
                                    | "module"
                                    | "exports"
                                    | "window"
                                    | "self"
                                    | "global"
                                    | "globalThis"
                            )
                        })
                        .collect();
                    let method = !path.is_empty() || !ctx.containers.is_empty();
                    let mut f = Found::one(
                        ctx,
                        prop,
                        if class {
                            K::Class
                        } else if method {
                            K::Method
                        } else {
                            K::Function
                        },
                    );
                    f.qualifier = path;
                    Some(f)
                }
                _ => None,
            }
        }
        "pair" => {
            let value = ctx.field(node, "value")?;
            if !is_function_value(value.kind()) {
                return None;
            }
            Found::key(ctx, ctx.field(node, "key")?, kind)
        }
        "public_field_definition" => {
            let fun = ctx
                .field(node, "value")
                .is_some_and(|v| is_function_value(v.kind()));
            Found::key(
                ctx,
                ctx.field(node, "name")?,
                if fun { K::Method } else { K::Property },
            )
        }
        "method_definition" => {
            let k = if ctx.containers.is_empty() {
                K::Function
            } else {
                K::Method
            };
            Found::key(ctx, ctx.field(node, "name")?, k)
        }
        "function_signature"
        | "method_signature"
        | "abstract_method_signature"
        | "property_signature" => Some(Found::key(ctx, ctx.field(node, "name")?, kind)?.decl(true)),
        "internal_module" | "module" => {
            let name = ctx.field(node, "name")?;
            let name = if name.kind() == "string" {
                name.named_child(0).unwrap_or(name)
            } else {
                last_ident(ctx, name)
            };
            Some(Found::one(ctx, name, K::Module))
        }
        "function_expression" | "class" => {
            // Only a named expression defines a name; a function value bound to a name is
            // found through its binding.
            let name = ctx.field(node, "name")?;
            Some(Found::one(ctx, name, kind))
        }
        _ => Some(Found::one(ctx, ctx.field(node, "name")?, kind).decl(decl::ambient(node))),
    }
}

/// `this.name = …` in a JavaScript class's constructor declares the property `name` of the
/// class (as the TypeScript language service reads JavaScript, and universal-ctags tags the
/// object-valued ones). TypeScript declares its fields, so only JavaScript.
fn constructor_member<'t>(ctx: &Ctx, left: Node<'t>, function: bool) -> Option<Found<'t>> {
    let in_constructor = ctx.grammar == Grammar::JavaScript
        && ctx.inner() == Some(K::Method)
        && ctx.inner_name == Some("constructor")
        && ctx.containers.len() >= 2
        && ctx.containers[ctx.containers.len() - 2] == K::Class;
    if !in_constructor || left.kind() != "member_expression" {
        return None;
    }
    if ctx.field(left, "object")?.kind() != "this" {
        return None;
    }
    let prop = ctx
        .field(left, "property")
        .filter(|p| p.kind() == "property_identifier")?;
    let mut f = Found::one(ctx, prop, if function { K::Method } else { K::Property });
    f.of_class = true;
    Some(f)
}

fn python<'t>(ctx: &Ctx, node: Node<'t>, kind: K) -> Option<Found<'t>> {
    match node.kind() {
        "function_definition" => {
            let k = if ctx.inner() == Some(K::Class) {
                K::Method
            } else {
                K::Function
            };
            Some(Found::one(ctx, ctx.field(node, "name")?, k))
        }
        "assignment" => {
            // Module and class level only: `X = …` at statement level, a plain name.
            if ctx.parent_kind != "expression_statement" {
                return None;
            }
            let left = ctx
                .field(node, "left")
                .filter(|l| l.kind() == "identifier")?;
            // A name bound to a lambda is a function wherever it is (as a `def` would be).
            if ctx
                .field(node, "right")
                .is_some_and(|r| r.kind() == "lambda")
            {
                let k = if ctx.inner() == Some(K::Class) {
                    K::Method
                } else {
                    K::Function
                };
                return Some(Found::one(ctx, left, k));
            }
            let k = match ctx.inner() {
                Some(K::Class) => K::Property,
                None if !ctx.local => {
                    let name = ctx.text_of(left);
                    let upper = name.bytes().any(|b| b.is_ascii_uppercase())
                        && !name.bytes().any(|b| b.is_ascii_lowercase());
                    if upper {
                        K::Constant
                    } else {
                        K::Variable
                    }
                }
                _ => return None,
            };
            Some(Found::one(ctx, left, k))
        }
        "type_alias_statement" => {
            let left = ctx.field(node, "left")?;
            let name = first_of_kind(left, "identifier")?;
            Some(Found::one(ctx, name, kind))
        }
        _ => Some(Found::one(ctx, ctx.field(node, "name")?, kind)),
    }
}

fn first_of_kind<'t>(n: Node<'t>, kind: &str) -> Option<Node<'t>> {
    if n.kind() == kind {
        return Some(n);
    }
    let mut c = n.walk();
    let found = n
        .named_children(&mut c)
        .find_map(|ch| first_of_kind(ch, kind));
    found
}
