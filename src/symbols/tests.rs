//! Definitions and references per language, and the grammar crates' own tag queries as a
//! cross-check: everything `TAGS_QUERY` calls a definition is one of ours, everything it
//! calls a reference is one of our references.

use super::extract::extract;
use super::model::{separator, FileSyms};
use crate::syntax::{parse, Grammar};
use std::time::Duration;
use tree_sitter::StreamingIterator;

fn syms(g: Grammar, src: &str) -> FileSyms {
    let parsed = parse::parse_masked(g, src.as_bytes(), Duration::from_secs(5), None).unwrap();
    extract(&parsed)
}

/// `line kind qualified[ decl]` per definition.
fn defs(g: Grammar, src: &str) -> Vec<String> {
    syms(g, src)
        .defs
        .iter()
        .map(|d| {
            let decl = if d.decl { " decl" } else { "" };
            format!(
                "{} {} {}{decl}",
                d.line,
                d.kind.as_str(),
                d.qualified(separator(g))
            )
        })
        .collect()
}

/// `line:col role` of every use of `name`.
fn uses(g: Grammar, src: &str, name: &str) -> Vec<String> {
    let s = syms(g, src);
    let Some(id) = s.name_id(name) else {
        return Vec::new();
    };
    s.refs
        .iter()
        .filter(|r| r.name == id)
        .map(|r| format!("{}:{} {}", r.line, r.col, r.role.as_str()))
        .collect()
}

const TS_SRC: &str = r#"import { helper as h, Base } from './base'
/** Loads things. */
export class Config extends Base implements Loader {
  name: string = 'x'
  private cb = () => h()
  static load(path: string): Config { return new Config(path.trim()) }
}
export interface Loader { load(p: string): Config; size: number }
export type Id = string | number
export enum Color { Red }
export function parseConfig(text: string) { const local = 1; return Config.load(text) }
export const VERSION = '1', make = () => new Config()
let counter = 0
namespace NS { export const inner = 1 }
declare function ambient(x: number): void
const api = { get() { return 1 }, post: function () {}, size: 3 }
Config.prototype.extra = function () {}
// parseConfig in a comment
const s = "parseConfig in a string" + `${parseConfig('x')}`
"#;

#[test]
fn typescript_definitions() {
    assert_eq!(
        defs(Grammar::TypeScript, TS_SRC),
        [
            "3 class Config",
            "4 property Config.name",
            "5 method Config.cb",
            "6 method Config.load",
            "8 interface Loader",
            "8 method Loader.load decl",
            "8 property Loader.size decl",
            "9 type Id",
            "10 enum Color",
            "11 function parseConfig",
            "12 constant VERSION",
            "12 function make",
            "13 variable counter",
            "14 module NS",
            "14 constant NS.inner",
            "15 function ambient decl",
            "16 constant api",
            "16 method api.get",
            "16 method api.post",
            "17 method Config.extra",
            "19 constant s",
        ]
    );
}

#[test]
fn typescript_references_have_roles_and_skip_comments_and_strings() {
    assert_eq!(
        uses(Grammar::TypeScript, TS_SRC, "parseConfig"),
        ["11:17 definition", "19:42 call"]
    );
    assert_eq!(
        uses(Grammar::TypeScript, TS_SRC, "Config"),
        [
            "3:14 definition",
            "6:30 type",
            "6:50 call",
            "8:44 type",
            "11:69 read",
            "12:46 call",
            "17:1 read"
        ]
    );
    assert_eq!(uses(Grammar::TypeScript, TS_SRC, "helper"), ["1:10 import"]);
    assert_eq!(
        uses(Grammar::TypeScript, TS_SRC, "h"),
        ["1:20 import", "5:22 call"]
    );
    assert_eq!(
        uses(Grammar::TypeScript, TS_SRC, "Loader"),
        ["3:45 type", "8:18 definition"]
    );
    assert_eq!(uses(Grammar::TypeScript, TS_SRC, "trim"), ["6:62 call"]);
    assert_eq!(uses(Grammar::TypeScript, TS_SRC, "local"), ["11:51 write"]);
    assert_eq!(
        uses(Grammar::TypeScript, TS_SRC, "load"),
        ["6:10 definition", "8:27 definition", "11:76 call"]
    );
}

const PY_SRC: &str = r#"from .base import helper, Base as B
import os.path

MAX_SIZE = 10
registry = {}

class Config(B):
    """Docs mention load."""
    default = None

    @staticmethod
    def load(path: str) -> "Config":
        value = helper(path)
        return Config(os.path.join(path, f"{value}"))

def parse_config(text):
    def inner():
        return parse_config
    return Config.load(text)

type Alias = list[int]
"#;

#[test]
fn python_definitions_and_references() {
    assert_eq!(
        defs(Grammar::Python, PY_SRC),
        [
            "4 constant MAX_SIZE",
            "5 variable registry",
            "7 class Config",
            "9 property Config.default",
            "12 method Config.load",
            "16 function parse_config",
            "17 function parse_config.inner",
            "21 type Alias",
        ]
    );
    assert_eq!(
        uses(Grammar::Python, PY_SRC, "helper"),
        ["1:19 import", "13:17 call"]
    );
    assert_eq!(
        uses(Grammar::Python, PY_SRC, "Config"),
        ["7:7 definition", "14:16 call", "19:12 read"]
    );
    assert_eq!(
        uses(Grammar::Python, PY_SRC, "value"),
        ["13:9 write", "14:45 read"]
    );
    assert_eq!(uses(Grammar::Python, PY_SRC, "join"), ["14:31 call"]);
    assert_eq!(uses(Grammar::Python, PY_SRC, "path")[0], "2:11 import");
}

const RUST_SRC: &str = r#"use std::collections::HashMap;
/// A config.
#[derive(Debug)]
pub struct Config { pub name: String }
pub enum Mode { A, B }
pub trait Load { fn load(p: &str) -> Self; fn ready(&self) -> bool { true } }
impl Load for Config {
    fn load(p: &str) -> Self { Config { name: p.to_string() } }
}
impl<T> Wrapper<T> { pub fn new(x: T) -> Self { Wrapper(x) } }
pub type Map = HashMap<String, Config>;
pub const LIMIT: usize = 3;
static mut COUNT: u32 = 0;
mod inner { pub fn helper() { super::make!(1); } }
macro_rules! make { ($x:expr) => { $x }; }
union U { a: u32 }
fn main() { let c = Config::load("x"); println!("{}", c.name); inner::helper(); }
"#;

#[test]
fn rust_definitions_and_references() {
    assert_eq!(
        defs(Grammar::Rust, RUST_SRC),
        [
            "4 struct Config",
            "5 enum Mode",
            "6 trait Load",
            "6 method Load::load decl",
            "6 method Load::ready",
            "8 method Config::load",
            "10 method Wrapper::new",
            "11 type Map",
            "12 constant LIMIT",
            "13 variable COUNT",
            "14 module inner",
            "14 function inner::helper",
            "15 macro make",
            "16 struct U",
            "17 function main",
        ]
    );
    assert_eq!(
        uses(Grammar::Rust, RUST_SRC, "Config"),
        [
            "4:12 definition",
            "7:15 type",
            "8:32 type",
            "11:32 type",
            "17:21 read"
        ]
    );
    assert_eq!(
        uses(Grammar::Rust, RUST_SRC, "load"),
        ["6:21 definition", "8:8 definition", "17:29 call"]
    );
    assert_eq!(
        uses(Grammar::Rust, RUST_SRC, "HashMap"),
        ["1:23 import", "11:16 type"]
    );
    assert_eq!(
        uses(Grammar::Rust, RUST_SRC, "make"),
        ["14:38 call", "15:14 definition"]
    );
    assert_eq!(uses(Grammar::Rust, RUST_SRC, "helper")[1], "17:71 call");
    // A macro's arguments are a token tree: `c.name` there is tokens, not a field access.
    assert_eq!(uses(Grammar::Rust, RUST_SRC, "name")[2], "17:57 read");
}

const GO_SRC: &str = r#"package main

import "fmt"

const Limit, Other = 3, 4
var Registry = map[string]int{}

type Config struct{ Name string }
type Loader interface { Load(p string) Config }
type ID = string

func (c *Config) Load(p string) Config { return Config{Name: p} }
func main() { c := Config{}; fmt.Println(c.Load("x")) }
"#;

#[test]
fn go_definitions_and_references() {
    assert_eq!(
        defs(Grammar::Go, GO_SRC),
        [
            "5 constant Limit",
            "5 constant Other",
            "6 variable Registry",
            "8 struct Config",
            "9 interface Loader",
            "9 method Loader.Load decl",
            "10 type ID",
            "12 method Config.Load",
            "13 function main",
        ]
    );
    assert_eq!(
        uses(Grammar::Go, GO_SRC, "Load"),
        ["9:25 definition", "12:18 definition", "13:44 call"]
    );
    assert_eq!(uses(Grammar::Go, GO_SRC, "c")[1], "13:15 write");
}

#[test]
fn java_csharp_cpp_ruby_php_shell_definitions() {
    let java = "class A { public static final int X = 1; private String s; void f() { g(); } abstract void g(); A() {} interface I {} }\n";
    assert_eq!(
        defs(Grammar::Java, java),
        [
            "1 class A",
            "1 constant A.X",
            "1 property A.s",
            "1 method A.f",
            "1 method A.g decl",
            "1 method A.A",
            "1 interface A.I"
        ]
    );
    let cs = "namespace N.M { class C { const int X = 1; public int P { get; set; } void F() { G(); } } }\n";
    assert_eq!(
        defs(Grammar::CSharp, cs),
        [
            "1 module M",
            "1 class M.C",
            "1 constant M.C.X",
            "1 property M.C.P",
            "1 method M.C.F"
        ]
    );
    let cpp = "#define MAX(a,b) a\nnamespace ns {\nclass Foo {\n public:\n  Foo();\n  int bar(int x) const;\n  static void baz() { helper(); }\n};\n}\nint ns::Foo::bar(int x) const { return x; }\ntypedef struct node { int v; } node_t;\nusing Alias = int;\nstatic int *make(void);\nenum Color { RED };\nstruct S;\n";
    assert_eq!(
        defs(Grammar::Cpp, cpp),
        [
            "1 macro MAX",
            "2 module ns",
            "3 class ns::Foo",
            "5 method ns::Foo::Foo decl",
            "6 method ns::Foo::bar decl",
            "7 method ns::Foo::baz",
            "10 method ns::Foo::bar",
            "11 type node_t",
            "11 struct node",
            "12 type Alias",
            "13 function make decl",
            "14 enum Color",
        ]
    );
    let rb = "module Foo\n  class Bar\n    LIMIT = 1\n    def baz(a)\n      helper(a)\n    end\n    def self.make; end\n    alias qux baz\n  end\nend\ndef top; end\n";
    assert_eq!(
        defs(Grammar::Ruby, rb),
        [
            "1 module Foo",
            "2 class Foo::Bar",
            "3 constant Foo::Bar::LIMIT",
            "4 method Foo::Bar::baz",
            "7 method Foo::Bar::make",
            "8 method Foo::Bar::qux",
            "11 function top"
        ]
    );
    let php = "<?php\nnamespace App;\nconst X = 1;\nfunction helper($a) { return strlen($a); }\nclass User { public $name; public function save() { helper(1); } }\ninterface I { function f(); }\ntrait T {}\n";
    assert_eq!(
        defs(Grammar::Php, php),
        [
            "2 module App",
            "3 constant X",
            "4 function helper",
            "5 class User",
            "5 property User::name",
            "5 method User::save",
            "6 interface I",
            "6 method I::f decl",
            "7 trait T"
        ]
    );
    assert_eq!(
        uses(Grammar::Php, php, "helper"),
        ["4:10 definition", "5:53 call"]
    );
    let sh = "foo() { echo \"$X\"; bar 1; }\nfunction baz { foo; }\n";
    assert_eq!(
        defs(Grammar::Bash, sh),
        ["1 function foo", "2 function baz"]
    );
    assert_eq!(
        uses(Grammar::Bash, sh, "foo"),
        ["1:1 definition", "2:16 call"]
    );
    assert!(uses(Grammar::Bash, sh, "echo").len() == 1 && uses(Grammar::Bash, sh, "1").is_empty());
    let ps =
        "function Get-Thing { Get-Other }\nclass Car { [void] Drive() { } }\nenum Color { Red }\n";
    assert_eq!(
        defs(Grammar::PowerShell, ps),
        [
            "1 function Get-Thing",
            "2 class Car",
            "2 method Car.Drive",
            "3 enum Color"
        ]
    );
}

#[test]
fn a_file_with_errors_keeps_what_parsed_and_says_so() {
    let s = syms(
        Grammar::TypeScript,
        "function good() {}\nfunction bad( {\nfunction later() {}\n",
    );
    assert!(s.has_error);
    assert!(s.defs.iter().any(|d| d.name == "good"));
}

#[test]
fn columns_count_utf16_units() {
    assert_eq!(
        uses(Grammar::TypeScript, "const é😀 = 1; f(x)\n", "x"),
        ["1:18 read"]
    );
}

/// Every `@definition.*` and `@reference.*` name that a grammar crate's own tag query finds
/// in `src` is one of our definitions (same line, same name) or references (same position).
fn agrees_with_tags(g: Grammar, queries: &[&str], src: &str) {
    let parsed = parse::parse_masked(g, src.as_bytes(), Duration::from_secs(5), None).unwrap();
    let ours = extract(&parsed);
    let lang = g.language();
    for q in queries {
        let query = tree_sitter::Query::new(&lang, q).unwrap();
        let names = query.capture_names();
        let mut cursor = tree_sitter::QueryCursor::new();
        let mut matches = cursor.matches(&query, parsed.tree.root_node(), parsed.text.as_bytes());
        while let Some(m) = matches.next() {
            let role = m
                .captures
                .iter()
                .map(|c| names[c.index as usize])
                .find(|n| n.starts_with("definition.") || n.starts_with("reference."));
            let Some(role) = role else { continue };
            let Some(name) = m
                .captures
                .iter()
                .find(|c| names[c.index as usize] == "name")
            else {
                continue;
            };
            let mut node = name.node;
            while node.named_child_count() > 0 {
                node = node.named_child(0).unwrap();
            }
            let text = &parsed.text[node.byte_range()];
            let line = node.start_position().row as u32 + 1;
            if role.starts_with("definition.") {
                assert!(
                    ours.defs.iter().any(|d| d.name == text && d.line == line),
                    "{g:?}: tags define {text} at line {line} ({role}); ours: {:?}",
                    ours.defs
                        .iter()
                        .map(|d| (&d.name, d.line))
                        .collect::<Vec<_>>()
                );
            } else {
                let id = ours.name_id(text);
                assert!(
                    ours.refs
                        .iter()
                        .any(|r| Some(r.name) == id && r.line == line),
                    "{g:?}: tags reference {text} at line {line} ({role}), not among ours"
                );
            }
        }
    }
}

#[test]
fn the_grammar_crates_tag_queries_agree() {
    agrees_with_tags(Grammar::JavaScript, &[tree_sitter_javascript::TAGS_QUERY], "class A { m() { f(); new B(); x.y(1) } }\nfunction f() {}\nconst g = () => 1\nvar h = function () {}\no.p = function () {}\nconst q = { r: () => 1 }\nexport default k = 1\n");
    agrees_with_tags(
        Grammar::TypeScript,
        &[
            tree_sitter_javascript::TAGS_QUERY,
            tree_sitter_typescript::TAGS_QUERY,
        ],
        TS_SRC,
    );
    agrees_with_tags(Grammar::Python, &[tree_sitter_python::TAGS_QUERY], PY_SRC);
    agrees_with_tags(Grammar::Rust, &[tree_sitter_rust::TAGS_QUERY], RUST_SRC);
    agrees_with_tags(Grammar::Go, &[tree_sitter_go::TAGS_QUERY], GO_SRC);
    agrees_with_tags(
        Grammar::Java,
        &[tree_sitter_java::TAGS_QUERY],
        "class A extends B implements C, D { void f() { g(1); new E(); } }\ninterface I {}\n",
    );
    agrees_with_tags(Grammar::CSharp, &[tree_sitter_c_sharp::TAGS_QUERY], "namespace N { class A : B, IC { void F() { x.G(); var y = new D(); E z = null; } } interface IC : IE {} }\n");
    agrees_with_tags(Grammar::Cpp, &[tree_sitter_cpp::TAGS_QUERY], "struct S { int x; };\nclass C { void m(); };\nvoid C::m() {}\nint f(int a) { return a; }\ntypedef int T;\nenum E { A };\n");
    agrees_with_tags(Grammar::Ruby, &[tree_sitter_ruby::TAGS_QUERY], "module M\n  class C < Base\n    def m(a); helper(a); end\n    def self.s; end\n    alias n m\n  end\nend\n");
    agrees_with_tags(Grammar::Php, &[tree_sitter_php::TAGS_QUERY], "<?php\nnamespace App;\nfunction f() { g(); }\nclass C extends B implements I { function m() { $this->n(); C::s(); new D(); } }\ninterface I {}\ntrait T {}\n");
}

/// Classes universal-ctags reports that the mapping once missed (scripts/symbol-accuracy.mjs).
#[test]
fn constructor_members_and_lambdas_define_names() {
    let js = "class Provider {\n  constructor(o) {\n    this._info = { id: o.id }\n    this.count = 0\n    this.onDone = () => {}\n    other.x = 1\n  }\n  run() {\n    this.later = 1\n  }\n}\n";
    assert_eq!(
        defs(Grammar::JavaScript, js),
        [
            "1 class Provider",
            "2 method Provider.constructor",
            "3 property Provider._info",
            "4 property Provider.count",
            "5 method Provider.onDone",
            "8 method Provider.run",
        ]
    );
    // TypeScript declares its fields: an assignment in the constructor is no second definition.
    let ts = "class A {\n  x: number\n  constructor() {\n    this.x = 1\n  }\n}\n";
    assert_eq!(
        defs(Grammar::TypeScript, ts),
        ["1 class A", "2 property A.x", "3 method A.constructor"]
    );
    let py = "def run(limit):\n    factory = lambda: make(limit)\n    other = 1\n    return factory\n\nclass C:\n    key = lambda self: 1\n";
    assert_eq!(
        defs(Grammar::Python, py),
        [
            "1 function run",
            "2 function run.factory",
            "6 class C",
            "7 method C.key"
        ]
    );
}

#[test]
fn typescript_string_keys_name_members_and_other_strings_do_not() {
    let src = r#"type In = Schema["input"];
const v = obj["input"](1) + obj?.['input'] + obj[`input`];
const s = "input"; log("input", { input: 1 }["x"]);
const w = obj["in put"] + obj["in\u0070ut"] + Other["input" + "x"];
"#;
    assert_eq!(
        uses(Grammar::TypeScript, src, "input"),
        ["1:19 member", "2:16 call", "2:36 member", "3:35 read"]
    );
    assert_eq!(
        uses(Grammar::JavaScript, "x = obj['input'];\n", "input"),
        ["1:10 member"]
    );
    assert!(uses(Grammar::Python, "x = obj['input']\n", "input").is_empty());
}
