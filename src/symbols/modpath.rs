//! Module paths in Python and JavaScript, by their text alone: which file a module spec
//! written in an import (`from .testing import x`, `require('../util')`, `flask.typing`)
//! can name, and where an import line spells a module rather than a definition.
//! [`super::certainty`] asks these questions to tell whether a receiver bound to a module
//! (`util.fn`, `ft.Name`) is the module defining the name. Nothing here resolves a package
//! through `node_modules`, `sys.path` or a bundler's aliases: a spec that is not relative is
//! compared by its trailing path components, which is what the syntax can vouch for.

use std::path::{Component, Path, PathBuf};

/// A module's key: its path without extension, `index`/`__init__` standing for their
/// directory (`pkg/__init__.py` and `pkg/index.js` are what `import pkg` names), so a file
/// and every spec naming it compare equal.
pub fn module_key(file: &Path) -> PathBuf {
    let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    let dir = file.parent().unwrap_or(Path::new(""));
    if matches!(stem, "index" | "__init__") {
        dir.to_path_buf()
    } else {
        dir.join(stem)
    }
}

/// Whether the module `spec`, written in the file `from`, may name the module whose
/// [`module_key`] is `key`: a relative spec resolved against `from`'s directory (Python's
/// leading dots: `.` the directory, `..` its parent; JavaScript's `./`, `../`, with a
/// `.js`/`.mjs`/`.cjs` extension dropped), an absolute one as a suffix of path components
/// (`flask.typing` → `…/flask/typing`), since where the package root lies is not known.
pub fn spec_matches(spec: &str, from: &Path, python: bool, key: &Path) -> bool {
    let dir = from.parent().unwrap_or(Path::new(""));
    let resolved = if python {
        python_relative(spec, dir)
    } else if spec.starts_with('.') {
        Some(js_relative(spec, dir))
    } else {
        None
    };
    match resolved {
        Some(r) => r == key,
        None => {
            let parts: Vec<&str> = spec
                .split(if python { '.' } else { '/' })
                .filter(|s| !s.is_empty())
                .collect();
            let comps: Vec<&str> = key.iter().filter_map(|c| c.to_str()).collect();
            !parts.is_empty() && comps.ends_with(&parts)
        }
    }
}

/// A Python spec with leading dots resolved against `dir` (one dot: `dir` itself, each more
/// one level up); `None` for an absolute spec.
fn python_relative(spec: &str, dir: &Path) -> Option<PathBuf> {
    let dots = spec.chars().take_while(|&c| c == '.').count();
    if dots == 0 {
        return None;
    }
    let mut d = dir.to_path_buf();
    for _ in 1..dots {
        d.pop();
    }
    Some(
        spec[dots..]
            .split('.')
            .filter(|s| !s.is_empty())
            .fold(d, |p, s| p.join(s)),
    )
}

/// A relative JavaScript spec (`./x`, `../y/z.js`) resolved lexically against `dir` (no
/// file system: the candidate files were already read, and a link must not change the
/// answer), as a [`module_key`].
fn js_relative(spec: &str, dir: &Path) -> PathBuf {
    let mut d = PathBuf::new();
    for c in dir.join(spec).components() {
        match c {
            Component::ParentDir => {
                d.pop();
            }
            Component::CurDir => {}
            c => d.push(c),
        }
    }
    if matches!(
        d.extension().and_then(|e| e.to_str()),
        Some("js" | "mjs" | "cjs")
    ) {
        d.set_extension("");
    }
    module_key(&d)
}

/// Whether 1-based `col` of `lines[row]` is inside the module path of a Python import
/// (`from a.b import …`, `import a.b`), which names a module file, not a definition: a use
/// there is never certainly the definition's.
pub fn in_module_path(lines: &[String], row: usize, col: u32) -> bool {
    let Some(line) = lines.get(row) else {
        return false;
    };
    let t = line.trim_start();
    let indent = line.len() - t.len();
    let at = (col as usize).saturating_sub(1);
    if let Some(rest) = t.strip_prefix("from ") {
        let end = rest.find(" import").map_or(line.len(), |i| indent + 5 + i);
        return at < end;
    }
    // `import a.b [as c]`: every name before `as` is a module's.
    t.starts_with("import ") && line.find(" as ").is_none_or(|i| at < i)
}

/// The module of a one-line Python `from M import …` at `lines[row]` (the spec an imported
/// name is looked up in), or `None` when the line is not one.
pub fn from_module(lines: &[String], row: usize) -> Option<&str> {
    let rest = lines.get(row)?.trim_start().strip_prefix("from ")?;
    let (m, _) = rest.split_once(" import")?;
    Some(m.trim())
}
