//! The edits by symbol on real shapes of each language family: what is replaced (doc
//! comments, decorators, attributes, `export`), what is kept, indentation, blank lines,
//! ambiguity and declarations.

use super::extract::extract;
use super::query::parse_name;
use super::splice::{insert, locate, replace, Position};
use crate::error::Code;
use crate::syntax::{parse, Grammar};
use std::time::Duration;

fn parsed(g: Grammar, src: &str) -> crate::syntax::Parsed {
    parse::parse(g, src.as_bytes(), Duration::from_secs(5), None).unwrap()
}

fn replaced(g: Grammar, src: &str, symbol: &str, new: &str) -> String {
    let p = parsed(g, src);
    let syms = extract(&p);
    let t = locate(&p, &syms, &parse_name(symbol, "symbol").unwrap(), "f").unwrap();
    replace(&p, &t, new).text
}

fn inserted(g: Grammar, src: &str, symbol: &str, new: &str, pos: Position) -> String {
    let p = parsed(g, src);
    let syms = extract(&p);
    let t = locate(&p, &syms, &parse_name(symbol, "symbol").unwrap(), "f").unwrap();
    insert(&p, &t, new, pos).text
}

fn error(g: Grammar, src: &str, symbol: &str) -> (Code, String) {
    let p = parsed(g, src);
    let syms = extract(&p);
    let e = locate(&p, &syms, &parse_name(symbol, "symbol").unwrap(), "a.src").unwrap_err();
    (e.code, e.message)
}

const TS: &str = "import { x } from './x'\n\n/** Loads. */\nexport function load(p: string) {\n  return x(p)\n}\n\nexport class Config {\n  /** The name. */\n  name = 'a'\n\n  @memo()\n  get(key: string) {\n    return key\n  }\n}\n\nexport const make = () => new Config()\n";

#[test]
fn typescript_replace_keeps_what_the_source_leaves_out() {
    // From the signature: the doc comment and `export` stay.
    let out = replaced(
        Grammar::TypeScript,
        TS,
        "load",
        "function load(p: string) {\n  return x(p.trim())\n}",
    );
    assert_eq!(out, TS.replace("return x(p)", "return x(p.trim())"));
    // From `export`: the doc comment stays.
    let out = replaced(
        Grammar::TypeScript,
        TS,
        "load",
        "export async function load(p: string) {\n  return x(p)\n}\n",
    );
    assert_eq!(
        out,
        TS.replace("export function load", "export async function load")
    );
    // From a doc comment: the old one goes.
    let out = replaced(
        Grammar::TypeScript,
        TS,
        "load",
        "/** Loads it. */\nexport function load(p: string) {\n  return x(p)\n}",
    );
    assert_eq!(out, TS.replace("/** Loads. */", "/** Loads it. */"));
    // A method, given dedented, with its decorator: indented into the class.
    let out = replaced(
        Grammar::TypeScript,
        TS,
        "Config.get",
        "@memo()\nget(key: string) {\n  return key + '!'\n}",
    );
    assert_eq!(out, TS.replace("return key\n", "return key + '!'\n"));
    // Without the decorator: the decorator stays.
    let out = replaced(
        Grammar::TypeScript,
        TS,
        "get",
        "get(k: string) {\n  return k\n}",
    );
    assert_eq!(
        out,
        TS.replace(
            "get(key: string) {\n    return key",
            "get(k: string) {\n    return k"
        )
    );
    // A const arrow function: the whole statement.
    let out = replaced(
        Grammar::TypeScript,
        TS,
        "make",
        "export const make = () => new Config() // one",
    );
    assert_eq!(out, TS.replace("new Config()\n", "new Config() // one\n"));
}

#[test]
fn typescript_insert_before_and_after() {
    let out = inserted(
        Grammar::TypeScript,
        TS,
        "Config.get",
        "set(key: string) {\n  this.k = key\n}",
        Position::After,
    );
    assert_eq!(
        out,
        TS.replace(
            "    return key\n  }\n",
            "    return key\n  }\n\n  set(key: string) {\n    this.k = key\n  }\n"
        )
    );
    // Before: above the anchor's doc comment, one blank line as between its siblings.
    let out = inserted(
        Grammar::JavaScript,
        TS,
        "load",
        "function pre() {}\n",
        Position::Before,
    );
    assert_eq!(
        out,
        TS.replace("/** Loads. */", "function pre() {}\n\n/** Loads. */")
    );
}

const PY: &str = "import os\n\n\n@cache\ndef load(path):\n    \"\"\"Load.\"\"\"\n    return os.read(path)\n\n\nclass Config:\n    # The name.\n    name = 'a'\n\n    def get(self, key):\n        return key\n\n    def put(self, key):\n        pass\n";

#[test]
fn python_replace_and_insert() {
    // Without the decorator: it is kept.
    let out = replaced(
        Grammar::Python,
        PY,
        "load",
        "def load(path):\n    return os.read(path) or b''\n",
    );
    assert_eq!(
        out,
        PY.replace(
            "    \"\"\"Load.\"\"\"\n    return os.read(path)\n",
            "    return os.read(path) or b''\n"
        )
    );
    // With a decorator: it replaces the old one.
    let out = replaced(
        Grammar::Python,
        PY,
        "load",
        "@lru_cache\ndef load(path):\n    return 1\n",
    );
    assert_eq!(
        out,
        PY.replace(
            "@cache\ndef load(path):\n    \"\"\"Load.\"\"\"\n    return os.read(path)\n",
            "@lru_cache\ndef load(path):\n    return 1\n"
        )
    );
    // A method copied from a listing: first line dedented, body at the file's indentation.
    let out = replaced(
        Grammar::Python,
        PY,
        "Config.get",
        "def get(self, key):\n        return key.lower()",
    );
    assert_eq!(out, PY.replace("return key\n", "return key.lower()\n"));
    // Tabs from the model become the file's four spaces.
    let out = replaced(
        Grammar::Python,
        PY,
        "get",
        "def get(self, key):\n\treturn 2",
    );
    assert_eq!(out, PY.replace("return key\n", "return 2\n"));
    // Top level: two blank lines, as between the file's top-level definitions.
    let out = inserted(
        Grammar::Python,
        PY,
        "load",
        "def save(path):\n    pass",
        Position::After,
    );
    assert_eq!(
        out,
        PY.replace(
            "return os.read(path)\n",
            "return os.read(path)\n\n\ndef save(path):\n    pass\n"
        )
    );
    // The last method of a class: one blank line, as between its methods.
    let out = inserted(
        Grammar::Python,
        PY,
        "put",
        "def drop(self):\n    pass",
        Position::After,
    );
    assert_eq!(out, format!("{PY}\n    def drop(self):\n        pass\n"));
}

const RS: &str = "use std::fmt;\n\n/// A config.\n#[derive(Debug)]\npub struct Config {\n    name: String,\n}\n\nimpl Config {\n    /// Loads one.\n    pub fn load(p: &str) -> Self {\n        Config { name: p.into() }\n    }\n}\n\nimpl fmt::Display for Config {\n    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {\n        write!(f, \"{}\", self.name)\n    }\n}\n";

#[test]
fn rust_attributes_doc_comments_and_impls() {
    // From the attribute: the doc comment stays, the attribute is replaced.
    let out = replaced(
        Grammar::Rust,
        RS,
        "Config",
        "#[derive(Debug, Clone)]\npub struct Config {\n    name: String,\n}",
    );
    assert_eq!(
        out,
        RS.replace("#[derive(Debug)]", "#[derive(Debug, Clone)]")
    );
    // A method by its qualified name, dedented.
    let out = replaced(
        Grammar::Rust,
        RS,
        "Config::load",
        "pub fn load(p: &str) -> Self {\n    Config { name: p.trim().into() }\n}",
    );
    assert_eq!(out, RS.replace("p.into()", "p.trim().into()"));
    // Insert after a method inside the impl (no sibling after: one blank line).
    let out = inserted(
        Grammar::Rust,
        RS,
        "Config::load",
        "pub fn name(&self) -> &str {\n    &self.name\n}",
        Position::After,
    );
    assert_eq!(out, RS.replace("        Config { name: p.into() }\n    }\n", "        Config { name: p.into() }\n    }\n\n    pub fn name(&self) -> &str {\n        &self.name\n    }\n"));
}

const GO: &str = "package config\n\n// Config is a config.\ntype Config struct {\n\tName string\n}\n\n// Load loads one.\nfunc Load(p string) *Config {\n\treturn &Config{Name: p}\n}\n\nfunc (c *Config) String() string {\n\treturn c.Name\n}\n";

#[test]
fn go_tabs_and_doc_comments() {
    // Spaces from the model become tabs; the doc comment stays.
    let out = replaced(
        Grammar::Go,
        GO,
        "Load",
        "func Load(p string) *Config {\n    return &Config{Name: strings.TrimSpace(p)}\n}\n",
    );
    assert_eq!(out, GO.replace("{Name: p}", "{Name: strings.TrimSpace(p)}"));
    // A type: `type X struct` is the whole statement.
    let out = replaced(
        Grammar::Go,
        GO,
        "Config",
        "// Config is a config.\ntype Config struct {\n\tName string\n\tAge  int\n}",
    );
    assert_eq!(
        out,
        GO.replace("\tName string\n}", "\tName string\n\tAge  int\n}")
    );
    let out = inserted(
        Grammar::Go,
        GO,
        "Config.String",
        "func (c *Config) Len() int { return len(c.Name) }",
        Position::After,
    );
    assert_eq!(
        out,
        format!("{GO}\nfunc (c *Config) Len() int {{ return len(c.Name) }}\n")
    );
    let out = inserted(
        Grammar::Go,
        GO,
        "Load",
        "// Default is the default.\nvar Default = Load(\"\")",
        Position::Before,
    );
    assert_eq!(
        out,
        GO.replace(
            "// Load loads one.",
            "// Default is the default.\nvar Default = Load(\"\")\n\n// Load loads one."
        )
    );
}

#[test]
fn no_match_names_the_closest_and_ambiguity_lists_each() {
    let (code, msg) = error(Grammar::Python, PY, "lod");
    assert_eq!(code, Code::NoMatch);
    assert!(msg.contains("Closest definitions: load (a.src:5)"), "{msg}");
    let two = "class A:\n    def get(self): pass\n\nclass B:\n    def get(self): pass\n";
    let (code, msg) = error(Grammar::Python, two, "get");
    assert_eq!(code, Code::AmbiguousMatch);
    assert!(
        msg.contains("a.src:2 method A.get") && msg.contains("a.src:5 method B.get"),
        "{msg}"
    );
    // The qualifier picks one.
    let out = replaced(Grammar::Python, two, "B.get", "def get(self): return 2");
    assert_eq!(
        out,
        two.replace(
            "class B:\n    def get(self): pass",
            "class B:\n    def get(self): return 2"
        )
    );
}

#[test]
fn a_prototype_gives_way_to_the_definition_but_overloads_are_ambiguous() {
    let c = "int f(int);\n\nint g(void) { return f(1); }\n\nint f(int x) {\n  return x;\n}\n";
    let out = replaced(Grammar::Cpp, c, "f", "int f(int x) {\n  return x + 1;\n}");
    assert_eq!(out, c.replace("return x;", "return x + 1;"));
    let ts = "function f(a: string): void;\nfunction f(a: number): void;\nfunction f(a: any) {}\n";
    assert_eq!(error(Grammar::TypeScript, ts, "f").0, Code::AmbiguousMatch);
}
