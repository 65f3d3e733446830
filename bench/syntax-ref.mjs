// A reference of the original's outline / check_syntax on @vscode/tree-sitter-wasm 0.3.1
// (the grammars the original ships), written from LATER.md §2.7/§3. Used by bench/syntax.mjs
// as the "WebAssembly grammar walked in JS" baseline and by __test__/outline.test.mjs as a
// parity oracle for node type names.
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);
let TS;
try {
  TS = require("@vscode/tree-sitter-wasm");
} catch {
  TS = null;
}

export const available = TS !== null;
const dir = TS ? path.dirname(require.resolve("@vscode/tree-sitter-wasm")) : "";
let ready;
const langs = new Map();

export async function language(name) {
  if (!ready) ready = TS.Parser.init();
  await ready;
  if (!langs.has(name)) langs.set(name, await TS.Language.load(path.join(dir, `tree-sitter-${name}.wasm`)));
  return langs.get(name);
}

export async function parse(name, text) {
  const lang = await language(name);
  const parser = new TS.Parser();
  parser.setLanguage(lang);
  const tree = parser.parse(text);
  parser.delete();
  return tree;
}

const RULES = {
  ts: {
    capture: new Set(["function_declaration", "generator_function_declaration", "class_declaration", "abstract_class_declaration", "interface_declaration", "enum_declaration", "type_alias_declaration", "internal_module", "module", "function_signature", "method_definition", "method_signature", "abstract_method_signature", "public_field_definition"]),
    pass: new Set(["program", "export_statement", "expression_statement", "ambient_declaration", "statement_block", "class_body", "interface_body"]),
  },
  python: { capture: new Set(["function_definition", "class_definition"]), pass: new Set(["module", "decorated_definition", "block"]) },
  go: { capture: new Set(["function_declaration", "method_declaration", "type_spec"]), pass: new Set(["source_file", "type_declaration"]) },
  rust: { capture: new Set(["function_item", "struct_item", "enum_item", "trait_item", "impl_item", "mod_item", "macro_definition"]), pass: new Set(["source_file", "declaration_list"]) },
  java: { capture: new Set(["class_declaration", "interface_declaration", "enum_declaration", "record_declaration", "method_declaration", "constructor_declaration"]), pass: new Set(["program", "class_body", "interface_body", "enum_body"]) },
  "c-sharp": { capture: new Set(["namespace_declaration", "file_scoped_namespace_declaration", "class_declaration", "interface_declaration", "struct_declaration", "enum_declaration", "record_declaration", "method_declaration", "constructor_declaration", "property_declaration"]), pass: new Set(["compilation_unit", "declaration_list"]) },
};
const rulesFor = (g) => (g === "typescript" || g === "tsx" || g === "javascript" ? RULES.ts : RULES[g]);
const FN_VALUES = new Set(["arrow_function", "function_expression", "function", "generator_function"]);

function header(node) {
  let h = node.text.split("\n")[0].trim().replace(/[{:]$/, "").trimEnd();
  return h.length > 150 ? h.slice(0, 150) + "..." : h;
}

function topLevelFn(node) {
  if (node.type !== "lexical_declaration" && node.type !== "variable_declaration") return false;
  return node.namedChildren.some((d) => d.type === "variable_declarator" && d.childForFieldName("value") && FN_VALUES.has(d.childForFieldName("value").type));
}

export function collect(tree, max) {
  const errors = [];
  let truncated = false;
  const visit = (node) => {
    if (truncated) return;
    if (node.isError || node.isMissing) {
      if (errors.length === max) { truncated = true; return; }
      const line = tree.rootNode.text.split("\n")[node.startPosition.row] ?? "";
      if (node.isMissing) errors.push({ kind: "missing", line: node.startPosition.row + 1, column: node.startPosition.column + 1, near: node.type });
      else {
        const t = line.trim();
        errors.push({ kind: "error", line: node.startPosition.row + 1, column: node.startPosition.column + 1, near: t.length > 80 ? t.slice(0, 80) + "..." : t });
      }
      return;
    }
    if (!node.hasError) return;
    for (const c of node.children) visit(c);
  };
  visit(tree.rootNode);
  return { errors, truncated };
}

export async function outline(display, grammar, text) {
  const tree = await parse(grammar, text);
  const rules = rulesFor(grammar);
  const syms = [];
  const walk = (node, depth) => {
    for (const c of node.namedChildren) {
      if (rules.capture.has(c.type) || (depth === 0 && rules === RULES.ts && topLevelFn(c))) {
        syms.push(`${"  ".repeat(depth + 1)}${header(c)} (${c.startPosition.row + 1}-${c.endPosition.row + 1})`);
        walk(c, depth + 1);
      } else if (rules.pass.has(c.type)) walk(c, depth);
    }
  };
  walk(tree.rootNode, 0);
  const lines = [`${display} — ${grammar}, ${text.split("\n").length} lines`];
  if (syms.length === 0) lines.push("  (no symbols found)");
  else {
    lines.push(...syms.slice(0, 2000));
    if (syms.length > 2000) lines.push(`  [... ${syms.length - 2000} more symbols omitted ...]`);
  }
  if (tree.rootNode.hasError) {
    const { errors, truncated } = collect(tree, 50);
    lines.push(`note: file has syntax errors (${errors.length}${truncated ? "+" : ""}); outline may be incomplete — run check_syntax.`);
  }
  tree.delete();
  return lines.join("\n");
}

export async function checkSyntax(display, grammar, text) {
  const tree = await parse(grammar, text);
  const { errors, truncated } = collect(tree, 50);
  tree.delete();
  return JSON.stringify({ path: display, language: grammar, ok: errors.length === 0, errors, error_count: errors.length, truncated });
}

export async function sexp(grammar, text) {
  const tree = await parse(grammar, text);
  const s = tree.rootNode.toString();
  tree.delete();
  return s;
}
