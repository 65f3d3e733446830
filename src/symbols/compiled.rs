//! The identifier rules of [`super::lang`] compiled per grammar to tables indexed by
//! node-kind and field ids, once per process, so the walk compares integers.

use super::lang::{spec, Slot, Spec};
use crate::syntax::defs::{self, SymbolKind};
use crate::syntax::Grammar;
use std::collections::HashMap;
use std::sync::OnceLock;

/// Identifier classes in [`Table::ident`].
pub const NOT_IDENT: u8 = 0;
/// An identifier leaf.
pub const IDENT: u8 = 1;
/// An identifier leaf that names a type.
pub const TYPE_IDENT: u8 = 2;
/// An identifier leaf that counts only under certain parents ([`Table::only_under`]).
pub const RESTRICTED: u8 = 3;

/// A [`Spec`] compiled to ids. Ids are `u16` node-kind and field ids; `0` is no field.
pub struct Table {
    /// Per node kind: the index of its entry in `defs::defs(grammar)`, if it defines.
    pub def: Vec<Option<u8>>,
    /// Per node kind: [`NOT_IDENT`], [`IDENT`], [`TYPE_IDENT`] or [`RESTRICTED`].
    pub ident: Vec<u8>,
    /// Per node kind: an import, export or `use`.
    pub import: Vec<bool>,
    /// Per node kind: its identifier children name types.
    pub types: Vec<bool>,
    /// Per node kind: looked through when finding an identifier's slot.
    pub through: Vec<bool>,
    /// Per node kind: opens a local scope.
    pub scope: Vec<bool>,
    /// Callee slots as `(kind, field)` ids (field 0 = outside a field).
    pub calls: Vec<(u16, u16)>,
    /// Member slots.
    pub members: Vec<(u16, u16)>,
    /// Assigned or bound slots.
    pub writes: Vec<(u16, u16)>,
    /// Field ids that name a type.
    pub type_fields: Vec<u16>,
    /// For [`RESTRICTED`] kinds: the parent kinds under which they count.
    pub only_under: Vec<(u16, Vec<u16>)>,
    /// Member slots of string literals spelling an identifier ([`Spec::string_keys`]).
    pub string_keys: Vec<(u16, u16)>,
    /// The kinds of a string literal's text leaf, its literal and a literal type (empty
    /// without `string_keys`).
    pub key_leaf: Vec<u16>,
    /// See `key_leaf`.
    pub key_string: Vec<u16>,
    /// See `key_leaf`.
    pub key_wrapper: Vec<u16>,
    /// Field ids by name: the recognisers look fields up by name at every candidate, and
    /// tree-sitter's own lookup compares the name with each of the grammar's field names.
    fields: HashMap<&'static str, u16, foldhash::fast::FixedState>,
}

fn ids_named(g: Grammar, names: &[&str]) -> Vec<u16> {
    let lang = g.language();
    (0..lang.node_kind_count())
        .filter_map(|id| u16::try_from(id).ok())
        .filter(|&id| {
            lang.node_kind_is_named(id)
                && lang
                    .node_kind_for_id(id)
                    .is_some_and(|name| names.contains(&name))
        })
        .collect()
}

fn flags(g: Grammar, names: &[&str]) -> Vec<bool> {
    let mut v = vec![false; g.language().node_kind_count()];
    for id in ids_named(g, names) {
        v[usize::from(id)] = true;
    }
    v
}

fn field_id(g: Grammar, field: &str) -> u16 {
    if field.is_empty() {
        return 0;
    }
    // A field the grammar lacks matches no child (u16::MAX is never a field id).
    g.language()
        .field_id_for_name(field)
        .map_or(u16::MAX, |f| f.get())
}

fn slots(g: Grammar, list: &[Slot]) -> Vec<(u16, u16)> {
    list.iter()
        .flat_map(|(node, field)| {
            let f = field_id(g, field);
            ids_named(g, &[node]).into_iter().map(move |k| (k, f))
        })
        .collect()
}

fn compile(g: Grammar, spec: &Spec) -> Table {
    let count = g.language().node_kind_count();
    let mut def = vec![None; count];
    for (i, d) in defs::defs(g).iter().enumerate() {
        for id in ids_named(g, &[d.node]) {
            def[usize::from(id)] = u8::try_from(i).ok();
        }
    }
    let mut ident = vec![NOT_IDENT; count];
    for id in ids_named(g, spec.idents) {
        ident[usize::from(id)] = IDENT;
    }
    for id in ids_named(g, spec.type_idents) {
        ident[usize::from(id)] = TYPE_IDENT;
    }
    let mut only_under = Vec::new();
    for (leaf, parents) in spec.only_under {
        let parents = ids_named(g, parents);
        for id in ids_named(g, &[leaf]) {
            ident[usize::from(id)] = RESTRICTED;
            only_under.push((id, parents.clone()));
        }
    }
    Table {
        def,
        ident,
        import: flags(g, spec.imports),
        types: flags(g, spec.types),
        through: flags(g, spec.through),
        scope: flags(g, spec.scopes),
        calls: slots(g, spec.calls),
        members: slots(g, spec.members),
        writes: slots(g, spec.writes),
        type_fields: spec.type_fields.iter().map(|f| field_id(g, f)).collect(),
        only_under,
        string_keys: slots(g, spec.string_keys),
        key_leaf: keyed(g, spec, "string_fragment"),
        key_string: keyed(g, spec, "string"),
        key_wrapper: keyed(g, spec, "literal_type"),
        fields: field_ids(g),
    }
}

fn field_ids(g: Grammar) -> HashMap<&'static str, u16, foldhash::fast::FixedState> {
    let lang = g.language();
    (1..=u16::try_from(lang.field_count()).unwrap_or(u16::MAX))
        .filter_map(|id| Some((lang.field_name_for_id(id)?, id)))
        .collect()
}

/// The ids of `name` when the spec has string keys, else none.
fn keyed(g: Grammar, spec: &Spec, name: &str) -> Vec<u16> {
    if spec.string_keys.is_empty() {
        return Vec::new();
    }
    ids_named(g, &[name])
}

/// The compiled table of `g`, or `None` for a grammar without symbols (CSS, INI).
pub fn table(g: Grammar) -> Option<&'static Table> {
    /// One slot per `Grammar` variant (a fieldless enum: `g as usize` is its index).
    const N: usize = Grammar::PowerShell as usize + 1;
    static TABLES: [OnceLock<Option<Table>>; N] = [const { OnceLock::new() }; N];
    TABLES
        .get(g as usize)?
        .get_or_init(|| spec(g).map(|s| compile(g, s)))
        .as_ref()
}

impl Table {
    /// Whether `(kind, field)` is one of `slots`.
    pub fn has(slots: &[(u16, u16)], kind: u16, field: u16) -> bool {
        slots.iter().any(|&(k, f)| k == kind && f == field)
    }

    /// The id of field `name` (`0`, which names no field, when the grammar lacks it).
    pub fn field(&self, name: &str) -> u16 {
        self.fields.get(name).copied().unwrap_or(0)
    }

    /// The definition entry of node kind `kind`, if any.
    pub fn def_of(&self, g: Grammar, kind: u16) -> Option<(usize, SymbolKind)> {
        let i = usize::from((*self.def.get(usize::from(kind))?)?);
        Some((i, defs::defs(g)[i].kind))
    }
}
