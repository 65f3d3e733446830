//! What a caller asks for: a name (maybe qualified), how to match it, which kinds — checked
//! and turned into a matcher over definitions.

use super::model::Def;
use crate::error::{ToolError, ToolResult};
use crate::syntax::defs::SymbolKind;

/// How `name` is compared with a definition's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The same name, case included.
    Exact,
    /// Names starting with it, case ignored.
    Prefix,
    /// Names containing it, case ignored.
    Substring,
}

impl Mode {
    /// The `match` argument (`exact` when absent).
    pub fn parse(s: Option<&str>) -> ToolResult<Mode> {
        match s.unwrap_or("exact") {
            "exact" => Ok(Mode::Exact),
            "prefix" => Ok(Mode::Prefix),
            "substring" => Ok(Mode::Substring),
            other => Err(ToolError::invalid(format!(
                "match must be \"exact\", \"prefix\" or \"substring\", got: {other}"
            ))),
        }
    }
}

/// A checked name: its qualifier segments and the name itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Name {
    /// The qualifier (`Config` in `Config.load`, `a`, `b` in `a::b::c`), outermost first.
    pub qualifier: Vec<String>,
    /// The last segment: the definition's own name.
    pub name: String,
}

/// Characters an identifier segment may hold after its first: letters, digits, `_`, `$`, and
/// `-` (PowerShell and shell function names).
fn ident_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '$' | '-')
}

fn is_identifier(seg: &str) -> bool {
    // Ruby's `name?`, `name!`, `name=`; C++'s `~Name`.
    let core = seg.strip_suffix(['?', '!', '=']).unwrap_or(seg);
    let core = core.strip_prefix('~').unwrap_or(core);
    let mut chars = core.chars();
    match chars.next() {
        Some(c) if c.is_alphabetic() || c == '_' || c == '$' => chars.all(ident_char),
        _ => false,
    }
}

/// Splits and checks `raw` (`load`, `Config.load`, `config::load`, `Config#load`,
/// `Config/load`). `what` names the argument in messages.
pub fn parse_name(raw: &str, what: &str) -> ToolResult<Name> {
    let trimmed = raw.trim();
    if trimmed.is_empty() {
        return Err(ToolError::invalid(format!("{what} must not be empty.")).with("field", what));
    }
    let unified = trimmed.replace("::", "\u{0}").replace("->", "\u{0}");
    let segs: Vec<&str> = unified.split(['\u{0}', '.', '#', '/', '\\']).collect();
    if let Some(bad) = segs.iter().find(|s| !is_identifier(s)) {
        let hint = if trimmed.contains('(') || trimmed.contains(' ') {
            " Pass the bare name, without parentheses, arguments or keywords."
        } else if trimmed.contains(['*', '?', '[', '^', '$', '|']) {
            " Patterns are not accepted: use match \"prefix\" or \"substring\", or grep for a regular expression."
        } else {
            ""
        };
        return Err(ToolError::invalid(format!(
            "{what} must be an identifier, optionally qualified (`parseConfig`, `Config.load`, `config::load`); `{bad}` in `{trimmed}` is not one.{hint}"
        ))
        .with("field", what));
    }
    let mut segs: Vec<String> = segs.into_iter().map(str::to_string).collect();
    let name = segs.pop().unwrap_or_default();
    Ok(Name {
        qualifier: segs,
        name,
    })
}

/// The kinds a caller may name, with the synonyms models use.
pub fn parse_kind(raw: &str) -> ToolResult<SymbolKind> {
    let k = raw.trim().to_ascii_lowercase();
    let found = match k.as_str() {
        "function" | "func" | "fn" | "def" | "procedure" => SymbolKind::Function,
        "method" | "constructor" => SymbolKind::Method,
        "class" | "record" => SymbolKind::Class,
        "struct" | "union" => SymbolKind::Struct,
        "enum" => SymbolKind::Enum,
        "interface" | "protocol" => SymbolKind::Interface,
        "trait" => SymbolKind::Trait,
        "type" | "type_alias" | "typealias" | "typedef" | "alias" => SymbolKind::Type,
        "module" | "namespace" | "package" | "mod" => SymbolKind::Module,
        "constant" | "const" => SymbolKind::Constant,
        "variable" | "var" | "let" | "static" | "global" => SymbolKind::Variable,
        "macro" => SymbolKind::Macro,
        "property" | "field" | "attribute" => SymbolKind::Property,
        _ => {
            let all: Vec<&str> = SymbolKind::ALL.iter().map(|k| k.as_str()).collect();
            return Err(ToolError::invalid(format!(
                "Unknown kind: {raw}. Kinds: {}.",
                all.join(", ")
            ))
            .with("field", "kind"));
        }
    };
    Ok(found)
}

/// How well a definition's name matches: lower is better.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Rank {
    /// The same name, case included.
    Exact,
    /// The same name but for case.
    Folded,
    /// Starts with the query.
    Prefix,
    /// Contains the query.
    Substring,
}

/// Compares `candidate` with `query` under `mode`.
pub fn rank(mode: Mode, query: &str, candidate: &str) -> Option<Rank> {
    if candidate == query {
        return Some(Rank::Exact);
    }
    if mode == Mode::Exact {
        return None;
    }
    let (q, c) = (query.to_lowercase(), candidate.to_lowercase());
    if q == c {
        Some(Rank::Folded)
    } else if c.starts_with(&q) {
        Some(Rank::Prefix)
    } else if mode == Mode::Substring && c.contains(&q) {
        Some(Rank::Substring)
    } else {
        None
    }
}

/// The module segments a file's path stands for (`src/config/mod.rs` → `src`, `config`;
/// `pkg/util.py` → `pkg`, `util`): a qualifier may name them (`config::load`). Split on the
/// platform's separators: a display path is `src\config.rs` on Windows (SPEC §9), where
/// `/` is one too; on Unix a `\` is part of a name.
pub fn module_path(display: &str) -> Vec<&str> {
    let mut segs: Vec<&str> = display
        .split(std::path::is_separator)
        .filter(|s| !s.is_empty() && *s != ".")
        .collect();
    if let Some(last) = segs.pop() {
        let stem = last.split('.').next().unwrap_or(last);
        if !matches!(stem, "mod" | "index" | "__init__" | "lib" | "main") {
            segs.push(stem);
        }
    }
    segs
}

/// Whether `def` (in the file shown as `display`) is qualified as `qualifier` asks: the
/// qualifier is a suffix of the file's module path followed by the definition's containers
/// (case ignored for the path's segments).
pub fn qualifies(qualifier: &[String], def: &Def, display: &str) -> bool {
    if qualifier.is_empty() {
        return true;
    }
    let module = module_path(display);
    let chain: Vec<&str> = module
        .iter()
        .copied()
        .chain(def.container.iter().map(String::as_str))
        .collect();
    if qualifier.len() > chain.len() {
        return false;
    }
    let tail = &chain[chain.len() - qualifier.len()..];
    let path_len = module.len();
    let start = chain.len() - qualifier.len();
    tail.iter()
        .zip(qualifier)
        .enumerate()
        .all(|(i, (have, want))| {
            if start + i < path_len {
                have.eq_ignore_ascii_case(want)
            } else {
                have == want
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_split_on_every_separator_and_bad_ones_are_refused() {
        for raw in [
            "Config.load",
            "Config::load",
            "Config#load",
            "Config/load",
            "Config->load",
        ] {
            let n = parse_name(raw, "name").unwrap();
            assert_eq!(
                (n.qualifier.as_slice(), n.name.as_str()),
                (&["Config".to_string()][..], "load"),
                "{raw}"
            );
        }
        assert_eq!(parse_name("empty?", "name").unwrap().name, "empty?");
        assert_eq!(parse_name("Get-Thing", "name").unwrap().name, "Get-Thing");
        assert_eq!(parse_name("~Foo", "name").unwrap().name, "~Foo");
        for bad in [
            "", "  ", "foo()", "foo bar", "a..b", "1abc", "fo*", "Config.",
        ] {
            let e = parse_name(bad, "name").unwrap_err();
            assert_eq!(e.code, crate::error::Code::InvalidInput, "{bad}");
        }
        assert!(parse_name("foo()", "name")
            .unwrap_err()
            .message
            .contains("without parentheses"));
    }

    #[test]
    fn kinds_take_synonyms_and_list_themselves_when_unknown() {
        assert_eq!(parse_kind("fn").unwrap(), SymbolKind::Function);
        assert_eq!(parse_kind("Namespace").unwrap(), SymbolKind::Module);
        let e = parse_kind("widget").unwrap_err();
        assert!(
            e.message
                .starts_with("Unknown kind: widget. Kinds: function, method, class"),
            "{}",
            e.message
        );
    }

    #[test]
    fn ranks_order_exact_folded_prefix_substring() {
        assert_eq!(rank(Mode::Exact, "load", "load"), Some(Rank::Exact));
        assert_eq!(rank(Mode::Exact, "load", "Load"), None);
        assert_eq!(rank(Mode::Prefix, "load", "Load"), Some(Rank::Folded));
        assert_eq!(rank(Mode::Prefix, "load", "loadAll"), Some(Rank::Prefix));
        assert_eq!(rank(Mode::Prefix, "load", "reload"), None);
        assert_eq!(
            rank(Mode::Substring, "load", "reLoad"),
            Some(Rank::Substring)
        );
    }

    #[test]
    fn qualifiers_match_containers_and_the_files_module_path() {
        let def = |container: &[&str]| Def {
            name: "load".into(),
            kind: SymbolKind::Method,
            container: container.iter().map(|s| s.to_string()).collect(),
            decl: false,
            line: 1,
            col: 1,
            start_line: 1,
            end_line: 1,
            span: (0, 0),
            sig: String::new(),
        };
        let q = |s: &str| parse_name(s, "name").unwrap().qualifier;
        assert!(qualifies(&q("Config.load"), &def(&["Config"]), "src/a.ts"));
        assert!(!qualifies(&q("Other.load"), &def(&["Config"]), "src/a.ts"));
        assert!(qualifies(&q("config::load"), &def(&[]), "src/config.rs"));
        assert!(qualifies(
            &q("config::load"),
            &def(&[]),
            "src/config/mod.rs"
        ));
        assert!(qualifies(
            &q("config::Config::load"),
            &def(&["Config"]),
            "src/config.rs"
        ));
        assert!(!qualifies(&q("config::load"), &def(&[]), "src/other.rs"));
        // Containers compare with their case; path segments without.
        assert!(!qualifies(&q("config.load"), &def(&["Config"]), "src/a.ts"));
        // A display path in the platform's form (`crates\core\config.rs` on Windows).
        let native = ["crates", "core", "config.rs"].join(std::path::MAIN_SEPARATOR_STR);
        assert_eq!(module_path(&native), ["crates", "core", "config"]);
        assert!(qualifies(&q("core::config::load"), &def(&[]), &native));
    }
}
