"""jedi's references for names defined exactly once in a Python project (a helper of
scripts/reference-accuracy.mjs; not part of npm test).

    python3 scripts/jedi-references.py ROOT MAX

Prints JSON: a list of {name, def: [path, line, col], refs: [[path, line, col], ...]} for at
most MAX names (a deterministic spread), where each name is a function, class or module-level
or class-level assignment defined exactly once among every definition jedi sees in ROOT (its
parameters and locals included; an import declares nothing), and refs are jedi's `get_references` of that definition
across the project. Paths are relative to ROOT, lines 1-based, columns 1-based in UTF-16
units (as the tools print them).
"""

import json
import os
import sys

import jedi
from parso.tree import search_ancestor


def utf16_col(line_text, col):
    """jedi's column is in code points, 0-based; the tools' are UTF-16 units, 1-based."""
    return len(line_text[:col].encode("utf-16-le")) // 2 + 1


def main():
    root, limit = sys.argv[1], int(sys.argv[2])
    # The package is importable by its directory's name (its relative imports resolve).
    project = jedi.Project(
        root,
        added_sys_path=[os.path.dirname(root)],
        smart_sys_path=False,
        load_unsafe_extensions=False,
    )
    files = []
    for d, dirs, names in os.walk(root):
        dirs[:] = sorted(x for x in dirs if not x.startswith(".") and x != "__pycache__")
        files += [os.path.join(d, n) for n in sorted(names) if n.endswith(".py")]
    texts = {}
    counts = {}
    candidates = {}
    for f in files:
        with open(f, encoding="utf-8", errors="replace") as fh:
            texts[f] = fh.read()
        script = jedi.Script(texts[f], path=f, project=project)
        for n in script.get_names(all_scopes=True, definitions=True, references=False):
            tree_name = n._name.tree_name
            d = tree_name.get_definition(import_name_always=True) if tree_name else None
            if d is None or d.type in ("import_from", "import_name"):
                # An import binds a name defined elsewhere: it declares nothing.
                continue
            counts[n.name] = counts.get(n.name, 0) + 1
            scope = search_ancestor(tree_name, "funcdef", "classdef", "lambdef", "file_input")
            if d.type in ("funcdef", "classdef") or (
                d.type == "expr_stmt" and scope is not None and scope.type in ("file_input", "classdef")
            ):
                candidates.setdefault(n.name, (f, n.line, n.column))
    names = sorted(
        n for n, c in counts.items() if c == 1 and n in candidates and not n.startswith("__")
    )
    step = max(1, len(names) / max(1, limit))
    picked = [names[int(i * step)] for i in range(min(limit, len(names)))]
    out = []
    for name in picked:
        f, line, col = candidates[name]
        script = jedi.Script(texts[f], path=f, project=project)
        refs = []
        for r in script.get_references(line, col, scope="project"):
            if r.module_path is None or r.line is None:
                continue
            p = str(r.module_path)
            if not p.startswith(root):
                continue
            text = texts.get(p)
            if text is None:
                continue
            row = text.split("\n")[r.line - 1]
            refs.append([os.path.relpath(p, root), r.line, utf16_col(row, r.column)])
        row = texts[f].split("\n")[line - 1]
        out.append(
            {
                "name": name,
                "def": [os.path.relpath(f, root), line, utf16_col(row, col)],
                "refs": refs,
            }
        )
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
