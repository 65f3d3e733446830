//! `find_references` reads each of its files at most once per call, whichever steps need the
//! file (the bare uses of a member-only name, the certainty of each use, the page's lines).

use super::run;
use crate::cancel::Cancel;
use crate::config::{Config, IndexMode};
use crate::runtime::Runtime;
use crate::symbols::ondemand::TEXT_READS;
use crate::tools::{Call, Output, Part};
use serde_json::{json, Value};
use std::path::Path;

/// `fetch` is defined only as a method, twice, in Python and in JavaScript: each file has a
/// definition, a certain use (`self.`/`this.`), a bare use (left out) and a use through an
/// untyped receiver (uncertain, listed after every certain use, so the page comes back to
/// the file).
fn workspace(root: &Path) {
    let py = "class Store:\n    def fetch(self):\n        return self.fetch()\n\n\nclass Cache:\n    def fetch(self):\n        return 1\n\n\ndef go(other):\n    fetch(1)\n    other.fetch()\n";
    let js = "class Pool {\n  fetch() {\n    return this.fetch()\n  }\n}\nfunction use(x) {\n  fetch()\n  x.fetch()\n}\n";
    std::fs::write(root.join("app.py"), py).unwrap();
    std::fs::write(root.join("more.py"), py.replace("Store", "Shop")).unwrap();
    std::fs::write(root.join("lib.js"), js).unwrap();
    std::fs::write(
        root.join("ui.ts"),
        "export function f(p: Pool) {\n  p.fetch()\n}\n",
    )
    .unwrap();
}

fn text(out: Output) -> String {
    match out.content.into_iter().next() {
        Some(Part::Text(t)) => t,
        other => panic!("not text: {other:?}"),
    }
}

#[test]
fn one_call_reads_each_file_once() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    workspace(&root);
    let mut config = Config::with_root(&root);
    config.search_index = IndexMode::Off;
    let runtime = Runtime::new(config).shared();
    let pages: [Value; 6] = [
        json!({}),
        json!({ "head_limit": 2 }),
        json!({ "offset": 3, "head_limit": 4 }),
        json!({ "offset": 7 }),
        json!({ "kinds": ["call"] }),
        json!({ "path": "app.py" }),
    ];
    for extra in pages {
        let mut args = json!({ "name": "fetch" });
        args.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        TEXT_READS.with(|n| n.borrow_mut().clear());
        let call = Call::new(
            args.as_object().cloned().unwrap(),
            runtime.clone(),
            Cancel::new(),
        );
        let out = text(run(&call).unwrap());
        let reads = TEXT_READS.with(|n| n.borrow().clone());
        assert!(!reads.is_empty(), "{extra}: no file read\n{out}");
        for (path, n) in &reads {
            assert_eq!(*n, 1, "{extra}: {} read {n} times\n{out}", path.display());
        }
        if extra == json!({}) {
            // Every step ran: bare uses left out, uncertain uses listed apart, lines shown.
            assert!(out.contains("bare uses of the name"), "{out}");
            assert!(out.contains("[uncertain: 3 uses"), "{out}");
            assert!(out.contains("app.py:13:11  call  other.fetch()"), "{out}");
            assert!(out.contains("  3:21  call  return self.fetch()"), "{out}");
            assert!(out.contains("  2:5  call  p.fetch()"), "{out}");
            assert_eq!(reads.len(), 4, "{reads:?}");
        }
    }
}
