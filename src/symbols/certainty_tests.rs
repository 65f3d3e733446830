//! Each receiver rule of `certainty`, per language: a use it must keep certain and one it
//! must list as uncertain.

use super::split;
use crate::symbols::extract::extract;
use crate::symbols::ondemand::Parsed;
use crate::symbols::query::{Mode, Name};
use crate::symbols::{definitions, references};
use crate::syntax::{parse, Grammar};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// The workspace `files` (path, text), the certain and uncertain uses of `name` as
/// `path:line:col`.
fn judge(files: &[(&str, &str)], name: &str) -> (Vec<String>, Vec<String>) {
    let root = PathBuf::from("/ws");
    let texts: HashMap<PathBuf, String> = files
        .iter()
        .map(|(p, t)| (root.join(p), t.to_string()))
        .collect();
    let parsed: Vec<Parsed> = files
        .iter()
        .map(|(p, t)| {
            let g = if p.ends_with(".py") {
                Grammar::Python
            } else {
                Grammar::JavaScript
            };
            let tree = parse::parse(g, t.as_bytes(), Duration::from_secs(5), None).unwrap();
            Parsed {
                abs: root.join(p),
                display: p.to_string(),
                grammar: g,
                syms: Arc::new(extract(&tree)),
            }
        })
        .collect();
    let refs = references(&parsed, name, None);
    let defs = definitions(
        &parsed,
        &Name {
            qualifier: Vec::new(),
            name: name.to_string(),
        },
        Mode::Exact,
        None,
    );
    let (certain, uncertain) = split(name, refs, &defs, &parsed, |p: &Path| texts.get(p).cloned());
    let show = |v: Vec<crate::symbols::RefHit>| {
        v.iter()
            .map(|r| format!("{}:{}:{}", r.display, r.line, r.col))
            .collect()
    };
    (show(certain), show(uncertain))
}

const PY_APP: &str = "\
class Base:
    def launch(self):
        pass

class App(Base):
    def run(self):
        self.launch()
        super().launch()

class Other:
    def go(self):
        self.launch()
";

#[test]
fn python_self_and_super_in_the_defining_class_or_a_subclass_are_certain() {
    let (certain, uncertain) = judge(&[("app.py", PY_APP)], "launch");
    // The definition, `self.launch()` in a subclass, `super().launch()` below the definer.
    assert_eq!(certain, ["app.py:2:9", "app.py:7:14", "app.py:8:17"]);
    // `self` of a class that neither defines nor inherits it.
    assert_eq!(uncertain, ["app.py:12:14"]);
}

#[test]
fn python_super_in_the_only_definer_means_a_base() {
    let src = "class A(External):\n    def save(self):\n        super().save()\n";
    let (certain, uncertain) = judge(&[("a.py", src)], "save");
    assert_eq!(certain, ["a.py:2:9"]);
    assert_eq!(uncertain, ["a.py:3:17"]);
}

#[test]
fn python_module_qualified_access_and_constructed_instances() {
    let typing = "def make_thing():\n    pass\n";
    let user = "\
import uuid
from . import typing as ft
from .other import Unrelated

ft.make_thing()
uuid.make_thing()
";
    let (certain, uncertain) = judge(
        &[("pkg/typing.py", typing), ("pkg/user.py", user)],
        "make_thing",
    );
    assert_eq!(certain, ["pkg/typing.py:1:5", "pkg/user.py:5:4"]);
    // A module that is not the defining one.
    assert_eq!(uncertain, ["pkg/user.py:6:6"]);

    let classes = "\
class Fmt:
    def write_text(self, t):
        pass

class Other:
    pass

def f(fmt: Fmt, o: Other):
    w = Fmt()
    w.write_text(1)
    fmt.write_text(2)
    o.write_text(3)
";
    let (certain, uncertain) = judge(&[("c.py", classes)], "write_text");
    assert_eq!(certain, ["c.py:2:9", "c.py:10:7", "c.py:11:9"]);
    assert_eq!(uncertain, ["c.py:12:7"]);
}

#[test]
fn python_imports_from_outside_the_workspace_bring_another_definition() {
    let app = "class Environment:\n    pass\n";
    let user = "from jinja2 import Environment as Base\nfrom pkg.app import Environment\n";
    let (certain, uncertain) = judge(&[("pkg/app.py", app), ("pkg/user.py", user)], "Environment");
    assert_eq!(certain, ["pkg/app.py:1:7", "pkg/user.py:2:21"]);
    assert_eq!(uncertain, ["pkg/user.py:1:20"]);
}

#[test]
fn python_a_parameter_binds_only_inside_its_function() {
    let nodes = "class Block:\n    pass\n";
    let user = "\
from . import nodes

def f(nodes: t.Iterable[nodes.Node]):
    pass

def g(node: nodes.Block):
    pass
";
    let (certain, uncertain) = judge(&[("pkg/nodes.py", nodes), ("pkg/user.py", user)], "Block");
    assert_eq!(certain, ["pkg/nodes.py:1:7", "pkg/user.py:6:19"]);
    assert!(uncertain.is_empty());
}

#[test]
fn python_module_paths_name_files_not_definitions() {
    let src = "testing = 1\nfrom .testing import Client\nprint(testing)\n";
    let (certain, uncertain) = judge(&[("a.py", src)], "testing");
    assert_eq!(certain, ["a.py:1:1", "a.py:3:7"]);
    assert_eq!(uncertain, ["a.py:2:7"]);
}

#[test]
fn unknown_receivers_are_certain_only_for_one_member_without_builtin_namesake() {
    // One method, no built-in of the name: a parameter's `.launch()` stays certain.
    let one = "class A:\n    def launch(self):\n        pass\n\ndef f(x):\n    x.launch()\n";
    let (certain, uncertain) = judge(&[("a.py", one)], "launch");
    assert_eq!((certain.len(), uncertain.len()), (2, 0));
    // `get` is also dict's: unknown receivers are uncertain.
    let builtin = "class A:\n    def get(self):\n        pass\n\ndef f(x):\n    x.get()\n";
    let (certain, uncertain) = judge(&[("a.py", builtin)], "get");
    assert_eq!(
        (certain, uncertain),
        (vec!["a.py:2:9".to_string()], vec!["a.py:6:7".to_string()])
    );
    // A module-level variable is reached through an object only as its module's member.
    let var = "semver = 1\nprint(semver)\nx.semver\n";
    let (certain, uncertain) = judge(&[("a.py", var)], "semver");
    assert_eq!(certain, ["a.py:1:1", "a.py:2:7"]);
    assert_eq!(uncertain, ["a.py:3:3"]);
}

const JS_CLASSES: &str = "\
class Base {
  start () {}
}
class Child extends Base {
  run () {
    this.start()
    super.start()
  }
}
class Other {
  run () {
    this.start()
  }
}
const c = new Child()
c.start()
const o = new Other()
o.start()
";

#[test]
fn javascript_this_super_and_new_bindings() {
    let (certain, uncertain) = judge(&[("a.js", JS_CLASSES)], "start");
    assert_eq!(certain, ["a.js:2:3", "a.js:6:10", "a.js:7:11", "a.js:16:3"]);
    assert_eq!(uncertain, ["a.js:12:10", "a.js:18:3"]);
}

#[test]
fn javascript_module_qualified_access_and_containers() {
    let util = "export function errorRequest () {}\nexport const opcodes = { BINARY: 2 }\n";
    let cjs = "function errorRequest () {}\nmodule.exports = { errorRequest }\n";
    let user = "\
import * as util from './core/util.js'
import * as other from 'node:util'
import { opcodes } from './core/util'
const legacy = require('./core/cjs')
util.errorRequest()
other.errorRequest()
x.y.errorRequest()
opcodes.BINARY
legacy.errorRequest()
";
    let files = [
        ("core/util.js", util),
        ("core/cjs.js", cjs),
        ("user.js", user),
    ];
    let (certain, uncertain) = judge(&files, "errorRequest");
    // The ES module's namespace; a CommonJS `module.exports` property aliases the function
    // (the language service counts it apart), another module, a receiver of unknown type.
    assert_eq!(
        certain,
        [
            "core/cjs.js:1:10",
            "core/cjs.js:2:20",
            "core/util.js:1:17",
            "user.js:5:6"
        ]
    );
    assert_eq!(uncertain, ["user.js:6:7", "user.js:7:5", "user.js:9:8"]);
    // A key of a module-level object literal (no definition in the table) through the
    // object's name.
    let (certain, uncertain) = judge(&files, "BINARY");
    assert_eq!(certain, ["core/util.js:2:26", "user.js:8:9"]);
    assert!(uncertain.is_empty());
}
