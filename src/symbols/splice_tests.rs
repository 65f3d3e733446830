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
    parse::parse_masked(g, src.as_bytes(), Duration::from_secs(5), None).unwrap()
}

fn replaced(g: Grammar, src: &str, symbol: &str, new: &str) -> String {
    let p = parsed(g, src);
    let syms = extract(&p);
    let t = locate(&p, &syms, &parse_name(symbol, "symbol").unwrap(), "f").unwrap();
    replace(&p, &t, new).unwrap().text
}

fn inserted(g: Grammar, src: &str, symbol: &str, new: &str, pos: Position) -> String {
    let p = parsed(g, src);
    let syms = extract(&p);
    let t = locate(&p, &syms, &parse_name(symbol, "symbol").unwrap(), "f").unwrap();
    insert(&p, &t, new, pos).text
}

/// Replacing `symbol` by `new` in `src` changes `from` into `to`, and nothing else.
fn becomes(g: Grammar, src: &str, symbol: &str, new: &str, from: &str, to: &str) {
    assert!(src.contains(from), "{from}");
    assert_eq!(
        replaced(g, src, symbol, new),
        src.replacen(from, to, 1),
        "{symbol} ← {new}"
    );
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
    let g = Grammar::TypeScript;
    let cases = [
        // From the signature: the doc comment and `export` stay.
        (
            "load",
            "function load(p: string) {\n  return x(p.trim())\n}",
            "return x(p)",
            "return x(p.trim())",
        ),
        // From `export`: the doc comment stays.
        (
            "load",
            "export async function load(p: string) {\n  return x(p)\n}\n",
            "export function load",
            "export async function load",
        ),
        // From a doc comment: the old one goes.
        (
            "load",
            "/** Loads it. */\nexport function load(p: string) {\n  return x(p)\n}",
            "/** Loads. */",
            "/** Loads it. */",
        ),
        // A method, given dedented, with its decorator: indented into the class.
        (
            "Config.get",
            "@memo()\nget(key: string) {\n  return key + '!'\n}",
            "return key\n",
            "return key + '!'\n",
        ),
        // Without the decorator: the decorator stays.
        (
            "get",
            "get(k: string) {\n  return k\n}",
            "get(key: string) {\n    return key",
            "get(k: string) {\n    return k",
        ),
        // A const arrow function: the whole statement.
        (
            "make",
            "export const make = () => new Config() // one",
            "new Config()\n",
            "new Config() // one\n",
        ),
    ];
    for (symbol, new, from, to) in cases {
        becomes(g, TS, symbol, new, from, to);
    }
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
    let g = Grammar::Python;
    let cases = [
        // Without the decorator: it is kept.
        (
            "load",
            "def load(path):\n    return os.read(path) or b''\n",
            "    \"\"\"Load.\"\"\"\n    return os.read(path)\n",
            "    return os.read(path) or b''\n",
        ),
        // With a decorator: it replaces the old one.
        (
            "load",
            "@lru_cache\ndef load(path):\n    return 1\n",
            "@cache\ndef load(path):\n    \"\"\"Load.\"\"\"\n    return os.read(path)\n",
            "@lru_cache\ndef load(path):\n    return 1\n",
        ),
        // A method copied from a listing: first line dedented, body at the file's indentation.
        (
            "Config.get",
            "def get(self, key):\n        return key.lower()",
            "return key\n",
            "return key.lower()\n",
        ),
        // Tabs from the model become the file's four spaces.
        (
            "get",
            "def get(self, key):\n\treturn 2",
            "return key\n",
            "return 2\n",
        ),
    ];
    for (symbol, new, from, to) in cases {
        becomes(g, PY, symbol, new, from, to);
    }
    // Top level: two blank lines, as between the file's top-level definitions.
    let out = inserted(g, PY, "load", "def save(path):\n    pass", Position::After);
    assert_eq!(
        out,
        PY.replace(
            "return os.read(path)\n",
            "return os.read(path)\n\n\ndef save(path):\n    pass\n"
        )
    );
    // The last method of a class: one blank line, as between its methods.
    let out = inserted(g, PY, "put", "def drop(self):\n    pass", Position::After);
    assert_eq!(out, format!("{PY}\n    def drop(self):\n        pass\n"));
}

const RS: &str = "use std::fmt;\n\n/// A config.\n#[derive(Debug)]\npub struct Config {\n    name: String,\n}\n\nimpl Config {\n    /// Loads one.\n    pub fn load(p: &str) -> Self {\n        Config { name: p.into() }\n    }\n}\n\nimpl fmt::Display for Config {\n    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {\n        write!(f, \"{}\", self.name)\n    }\n}\n";

#[test]
fn rust_attributes_doc_comments_and_impls() {
    // From the attribute: the doc comment stays, the attribute is replaced.
    becomes(
        Grammar::Rust,
        RS,
        "Config",
        "#[derive(Debug, Clone)]\npub struct Config {\n    name: String,\n}",
        "#[derive(Debug)]",
        "#[derive(Debug, Clone)]",
    );
    // A method by its qualified name, dedented.
    becomes(
        Grammar::Rust,
        RS,
        "Config::load",
        "pub fn load(p: &str) -> Self {\n    Config { name: p.trim().into() }\n}",
        "p.into()",
        "p.trim().into()",
    );
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
    becomes(
        Grammar::Go,
        GO,
        "Load",
        "func Load(p string) *Config {\n    return &Config{Name: strings.TrimSpace(p)}\n}\n",
        "{Name: p}",
        "{Name: strings.TrimSpace(p)}",
    );
    // A type: `type X struct` is the whole statement.
    becomes(
        Grammar::Go,
        GO,
        "Config",
        "// Config is a config.\ntype Config struct {\n\tName string\n\tAge  int\n}",
        "\tName string\n}",
        "\tName string\n\tAge  int\n}",
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
fn java_annotations_and_a_definition_sharing_its_line() {
    let java = "class A {\n  @Override\n  public String toString() {\n    return \"a\";\n  }\n}\n";
    // Without the annotation: kept (it is inside the method's node).
    becomes(
        Grammar::Java,
        java,
        "A.toString",
        "public String toString() {\n  return \"b\";\n}",
        "\"a\"",
        "\"b\"",
    );
    // A one-line class: the method is replaced in place, the rest of the line kept.
    let one = "class B { int f() { return 1; } int g() { return 2; } }\n";
    becomes(
        Grammar::Java,
        one,
        "f",
        "int f() { return 3; }",
        "return 1;",
        "return 3;",
    );
    let out = inserted(
        Grammar::Java,
        one,
        "g",
        "int h() { return 4; }",
        Position::After,
    );
    assert_eq!(
        out,
        "class B { int f() { return 1; } int g() { return 2; }\nint h() { return 4; } }\n"
    );
}

#[test]
fn a_last_line_without_a_terminator_keeps_none() {
    becomes(
        Grammar::Rust,
        "fn a() {}\nfn b() {}",
        "b",
        "fn b() { 1 }\n",
        "fn b() {}",
        "fn b() { 1 }",
    );
    let out = inserted(
        Grammar::Rust,
        "fn a() {}",
        "a",
        "fn b() {}",
        Position::After,
    );
    assert_eq!(out, "fn a() {}\n\nfn b() {}\n");
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
    becomes(
        Grammar::Python,
        two,
        "B.get",
        "def get(self): return 2",
        "class B:\n    def get(self): pass",
        "class B:\n    def get(self): return 2",
    );
}

#[test]
fn a_prototype_gives_way_to_the_definition_but_overloads_are_ambiguous() {
    let c = "int f(int);\n\nint g(void) { return f(1); }\n\nint f(int x) {\n  return x;\n}\n";
    becomes(
        Grammar::Cpp,
        c,
        "f",
        "int f(int x) {\n  return x + 1;\n}",
        "return x;",
        "return x + 1;",
    );
    let ts = "function f(a: string): void;\nfunction f(a: number): void;\nfunction f(a: any) {}\n";
    assert_eq!(error(Grammar::TypeScript, ts, "f").0, Code::AmbiguousMatch);
}

#[test]
fn a_declarator_sharing_its_statement_is_replaced_alone_or_refused() {
    let src = "const a = 1, b = 2;\nconst c = 3;\n";
    becomes(
        Grammar::JavaScript,
        src,
        "b",
        "b = () => 42",
        "b = 2",
        "b = () => 42",
    );
    becomes(Grammar::TypeScript, src, "a", "a = 10", "a = 1,", "a = 10,");
    // A whole statement cannot stand in for one declarator: refused, nothing written.
    let p = parsed(Grammar::JavaScript, src);
    let syms = extract(&p);
    let t = locate(&p, &syms, &parse_name("b", "symbol").unwrap(), "f").unwrap();
    let e = replace(&p, &t, "const b = 3;").unwrap_err();
    assert_eq!(e.code, Code::InvalidInput);
    assert!(
        e.message.contains("must start with `b`") && e.message.contains("edit_file"),
        "{}",
        e.message
    );
    // The sole declarator of its statement is still replaced with its statement.
    becomes(
        Grammar::JavaScript,
        src,
        "c",
        "const c = 4;",
        "const c = 3;",
        "const c = 4;",
    );
    // An insertion beside a shared declarator goes beside the whole statement.
    assert_eq!(
        inserted(
            Grammar::JavaScript,
            src,
            "b",
            "function f() {}",
            Position::After
        ),
        "const a = 1, b = 2;\nfunction f() {}\nconst c = 3;\n"
    );
}

#[test]
fn visibility_the_new_source_leaves_out_is_kept() {
    let rs = "/// Loads.\npub fn load() -> u8 {\n    1\n}\n\npub(crate) async fn two() {}\n";
    becomes(
        Grammar::Rust,
        rs,
        "load",
        "fn load() -> u8 {\n    2\n}",
        "1\n",
        "2\n",
    );
    becomes(
        Grammar::Rust,
        rs,
        "two",
        "async fn two() { x() }",
        "{}",
        "{ x() }",
    );
    // Written with its own visibility, the new source's is used.
    becomes(
        Grammar::Rust,
        rs,
        "load",
        "pub(super) fn load() -> u8 { 3 }",
        "pub fn load() -> u8 {\n    1\n}",
        "pub(super) fn load() -> u8 { 3 }",
    );
    let java = "class A {\n    @Override\n    public static int f() { return 1; }\n}\n";
    becomes(
        Grammar::Java,
        java,
        "f",
        "int f() { return 2; }",
        "return 1;",
        "return 2;",
    );
    let ts = "class A {\n  private f(): number { return 1 }\n}\n";
    becomes(
        Grammar::TypeScript,
        ts,
        "f",
        "f(): number { return 2 }",
        "return 1",
        "return 2",
    );
    let p = parsed(Grammar::Rust, rs);
    let syms = extract(&p);
    let t = locate(&p, &syms, &parse_name("load", "symbol").unwrap(), "f").unwrap();
    let done = replace(&p, &t, "fn load() -> u8 { 2 }").unwrap();
    assert_eq!(done.kept_modifiers.as_deref(), Some("pub"));
    assert_eq!(done.kept, 1);
}
