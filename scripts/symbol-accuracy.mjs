// find_symbol and replace_symbol against universal-ctags (issue 29's accuracy checks; not part
// of npm test).
//
//   node scripts/symbol-accuracy.mjs [--max N] [--misses K] [--edits E] [--lang L] [dir ...]
//
// For each tree, `ctags -R --output-format=json` lists the definitions the issue names:
// functions, classes, methods, structs, enums, interfaces, traits and type aliases — per
// language, the ctags kinds that are those categories (KINDS below; ctags' own kinds per
// language come from `ctags --list-kinds-full=LANG`). Only files of the extensions the tools
// map to a grammar count. Each definition is looked up with find_symbol { name, path: its file }
// and counts as found when a hit is at the same line. Prints found/total per language and
// kind, per language, and the first K misses of each class (so they are fixed by class, in the
// node mappings of the symbol extraction).
//
// With --edits E (default 40), for E found definitions per language that ctags gives an end
// line for, replace_symbol replaces the definition (ctags' lines line..end) with itself plus a
// comment line before its last line; the file afterwards must be exactly the old file with
// those lines swapped for the new ones (any other difference is a wrong edit). The file is put
// back after each edit.
//
// Each tree is copied to a scratch workspace first (a tree inside node_modules would be
// ignored by the walk). Without arguments: real trees available on this machine (see
// defaults(): Rust crates from ~/.cargo/registry, C from vendored C sources there (PCRE2,
// mimalloc, tree-sitter's runtime), C++ from libstdc++'s headers and Node's (V8, cppgc, libuv), TypeScript and JavaScript from node_modules, Python's standard
// library, Go's (golang-1.19-src), Ruby's (ruby), Java's (openjdk-17-source), C# (the
// pythonnet sdist), PHP (google-cloud-sdk), shell scripts and PowerShell modules (the npm
// package @autorest/powershell) — each used when present, see /tmp/acc-corpora).
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { execFileSync } from 'node:child_process'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const { createAgentTools } = require('../index.js')
const arg = (name, dflt) => {
  const i = process.argv.indexOf(name)
  return i > 0 ? process.argv[i + 1] : dflt
}
const MAX = Number(arg('--max', 3000))
const MISSES = Number(arg('--misses', 5))
const EDITS = Number(arg('--edits', 40))
const ONLY = arg('--lang', null)
const dirs = process.argv.slice(2).filter((a, i, all) => !a.startsWith('--') && !all[i - 1]?.startsWith('--'))

/**
 * Per ctags language, its kinds that are one of the issue's categories (functions, classes,
 * methods, structs, enums, interfaces, traits, type aliases). Left out on purpose: fields,
 * members, variables, constants, enumerators, namespaces/modules/packages, macros, Rust's
 * `implementation` (an impl block defines no name), Ruby's accessors and aliases, C/C++'s
 * `prototype` and `externvar` (off by default in ctags). CSS and INI have none.
 */
export const KINDS = {
  Rust: ['function', 'method', 'struct', 'enum', 'interface', 'typedef'],
  C: ['function', 'struct', 'union', 'enum', 'typedef'],
  'C++': ['function', 'class', 'struct', 'union', 'enum', 'typedef'],
  TypeScript: ['function', 'generator', 'class', 'method', 'interface', 'enum', 'alias'],
  JavaScript: ['function', 'generator', 'class', 'method', 'getter', 'setter'],
  Python: ['function', 'class', 'member'],
  Go: ['func', 'struct', 'interface', 'type', 'talias', 'methodSpec'],
  Java: ['class', 'interface', 'enum', 'method', 'annotation'],
  'C#': ['class', 'struct', 'enum', 'interface', 'method', 'typedef'],
  Ruby: ['class', 'method', 'singletonMethod'],
  PHP: ['class', 'function', 'interface', 'trait'],
  Sh: ['function'],
  PowerShell: ['function'],
}

/** The extensions the tools map to a grammar (src/syntax/lang.rs), CSS and INI aside. */
const EXTENSIONS = new Set('.ts .mts .cts .tsx .js .mjs .cjs .jsx .py .pyi .go .rs .java .cs .cpp .cc .cxx .hpp .hh .c .h .rb .php .sh .bash .ps1 .psm1 .psd1'.split(' '))

/** A line comment each language accepts (for the edit check). */
const COMMENT = { Python: '#', Ruby: '#', Sh: '#', PowerShell: '#', PHP: '//' }

/**
 * Tags universal-ctags reports that define nothing, reported apart (both totals are printed):
 * a TypeScript `type X` specifier inside an import or export list (ctags 5.9 tags it as an
 * alias), and a JavaScript object literal bound to a local, a key or a member (`x = {`,
 * `key: {`), which ctags' JavaScript parser tags as a class.
 */
function noise(t) {
  const p = t.pattern ?? ''
  // A type alias declaration starts its line (`type X =`, `export type X<T> =`).
  const alias = new RegExp(`^/\\^\\s*(export\\s+)?(declare\\s+)?type\\s+${t.name.replace(/\$/g, '\\$')}\\b`)
  // Or the line is an item of a multi-line import or export list (`  type X,`, `  type X as Y,`).
  const item = /^\/\^\s*type\s+[\w$]+(\s+as\s+[\w$]+)?\s*,?\s*(\/\/.*)?\$?\/$/
  if (t.language === 'TypeScript' && t.kind === 'alias' && (!alias.test(p) || item.test(p))) return 'type-only import/export specifier'
  if (t.language === 'JavaScript' && t.kind === 'class' && !/\bclass\b/.test(p) && /[=:]\s*\{/.test(p)) return 'object literal'
  // Names ctags makes up for anonymous structs, unions and enums (`__anon2df991730103`).
  if (/^__anon[0-9a-f]+$/.test(t.name)) return 'anonymous type'
  // `class Cache<TKey, TValue> where TKey : notnull`: ctags 5.9 names the class after the
  // constrained type parameter.
  if (t.language === 'C#' && new RegExp(`\\bwhere\\s+${t.name}\\b`).test(p)) return 'generic constraint'
  // `def self.name` read as a method named `self`; `def _invoke_#{name}` (a method generated
  // from a string) read as `_invoke_`.
  if (t.language === 'Ruby' && (t.name === 'self' || new RegExp(`def\\s+(self\\.)?${t.name.replace(/[?!=]/g, '\\$&')}#\\{`).test(p))) return 'not a method name'
  return null
}

function defaults() {
  const out = []
  const add = (p) => fs.existsSync(p) && out.push(p)
  const reg = path.join(os.homedir(), '.cargo/registry/src')
  if (fs.existsSync(reg)) {
    for (const idx of fs.readdirSync(reg)) {
      for (const c of fs.readdirSync(path.join(reg, idx))) {
        if (/^(regex-syntax-0\.8|serde-1\.|tokio-1\.|syn-2\.)/.test(c)) out.push(path.join(reg, idx, c, 'src'))
        // C: PCRE2 and mimalloc, vendored by their -sys crates.
        if (/^pcre2-sys-/.test(c)) out.push(path.join(reg, idx, c, 'upstream/src'))
        if (/^libmimalloc-sys-/.test(c)) out.push(path.join(reg, idx, c, 'c_src/mimalloc/v2/src'))
        // C: tree-sitter's runtime (its headers are C++ to ctags, as every `.h` is).
        if (/^tree-sitter-0\./.test(c)) out.push(path.join(reg, idx, c, 'src'))
      }
    }
  }
  add('/usr/include/c++/12/bits')
  // C++: V8's, cppgc's, libuv's and Node's headers as Node ships them (export and inline
  // macros on most declarations; its vendored OpenSSL is left out, see SKIP).
  add('/usr/include/node')
  const nm = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../node_modules')
  for (const d of ['ai/src', '@modelcontextprotocol/sdk/dist/esm', 'ajv/lib']) add(path.join(nm, d))
  for (const d of ['json', 'email', 'asyncio', 'http', 'importlib', 'logging', 'unittest']) add(`/usr/lib/python3.11/${d}`)
  for (const d of ['net/http', 'go/types', 'encoding/json', 'strings', 'sort']) add(`/usr/share/go-1.19/src/${d}`)
  for (const d of ['rubygems', 'bundler', 'net', 'irb']) add(`/usr/lib/ruby/3.1.0/${d}`)
  add('/tmp/acc-corpora/java/java.base/java/util')
  add('/tmp/acc-corpora/pythonnet-3.2.1/src/runtime')
  add('/usr/lib/google-cloud-sdk/platform/google_appengine/php/sdk/google/appengine')
  add('/usr/lib/perf-core/tests/shell')
  add('/usr/share/doc/git/contrib')
  add('/tmp/acc-corpora/package/resources/modules')
  return out
}

/**
 * Directories not copied: a tree inside node_modules would be ignored by the walk, and Node's
 * headers carry OpenSSL's generated headers once per target architecture (50 MB of copies).
 */
const SKIP = new Set(['node_modules', 'openssl'])

let ctags = 'ctags'
try {
  if (!/Universal Ctags/.test(execFileSync(ctags, ['--version'], { encoding: 'utf8' }))) throw new Error('not universal')
} catch {
  process.stderr.write('universal-ctags not found: apt-get install -y universal-ctags\n')
  process.exit(2)
}

const pct = (f, n) => `${((100 * f) / Math.max(1, n)).toFixed(2)}%`
const totals = new Map()
const perLang = new Map()
const misses = new Map()
const edits = new Map()
const editFailures = []
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'clarvis-accuracy-'))
let grand = [0, 0]
const noisy = new Map()
const bump = (map, key, ok) => {
  const n = map.get(key) ?? [0, 0]
  n[0] += ok ? 1 : 0
  n[1]++
  map.set(key, n)
}

/** replace_symbol on `t` (found at its line) with itself plus a comment line; checks the file. */
async function editCheck(tools, root, t) {
  const rel = t.path.replace(/^\.\//, '')
  const file = path.join(root, rel)
  const before = fs.readFileSync(file, 'utf8')
  const eol = before.includes('\r\n') ? '\r\n' : '\n'
  const lines = before.split(eol)
  // C-family definitions start above ctags' line when their return type, template header or
  // storage class has lines of their own (`static void\nname(…)`): the definition is from there.
  let first = t.line
  if (/^(C|C\+\+|C#|Java)$/.test(t.language)) {
    while (first > 1) {
      const above = lines[first - 2].trim()
      if (!above || /[;{}:,]$|\*\/$|^(#|\/\/|\/\*|\*|@|\[)/.test(above)) break
      first--
    }
  }
  const def = lines.slice(first - 1, t.end)
  if (def.length < 2) return null
  // ctags' end is sometimes not the definition's (a Ruby class it closes early): a block's
  // last line is indented as its first, except in Python.
  const lead = (l) => l.match(/^\s*/)[0]
  if (t.language !== 'Python' && lead(def[def.length - 1]) !== lead(lines[t.line - 1])) return null
  const last = def[def.length - 1]
  const indent = (def.find((l, i) => i > 0 && l.trim()) ?? last).match(/^\s*/)[0]
  const mark = `${indent}${COMMENT[t.language] ?? '//'} edited by symbol-accuracy`
  const fresh = [...def.slice(0, -1), mark, last]
  const scoped = t.scope ? `${t.scope.split(/\.|::/).pop()}.${t.name}` : t.name
  let r
  let ambiguous = false
  for (const symbol of [t.name, scoped]) {
    r = await tools.callTool('replace_symbol', { path: rel, symbol, new_source: fresh.join('\n') })
    if (!r.isError || !/ambiguous/.test(JSON.stringify(r))) break
    ambiguous = true
  }
  const after = fs.readFileSync(file, 'utf8')
  fs.writeFileSync(file, before)
  const said = r.isError ? r.content.map((p) => p.text).join('') : ''
  // Overloads and same-named definitions no qualifier separates; a definition whose extent a
  // syntax error makes uncertain: refused, which is not a wrong edit.
  if (r.isError && (ambiguous || /ambiguous/.test(said))) return 'ambiguous'
  if (r.isError && /is uncertain/.test(said)) return 'refused'
  // A parse over its time budget on a loaded machine (pcre2_jit_compile.c): not an edit.
  if (r.isError && /"timeout"|timed out/.test(said)) return 'ambiguous'
  if (r.isError) return `error: ${said.slice(0, 200)}`
  // Whitespace-only lines may lose their spaces (new_source is re-indented).
  const norm = (x) => x.split(eol).map((l) => l.trimEnd())
  const want = norm([...lines.slice(0, first - 1), ...fresh, ...lines.slice(t.end)].join(eol))
  const got = norm(after)
  if (got.length === want.length && got.every((l, i) => l === want[i])) return 'ok'
  let i = 0
  while (i < got.length && got[i] === want[i]) i++
  return `wrong: first difference at line ${i + 1}: got ${JSON.stringify(got[i])}, want ${JSON.stringify(want[i])}`
}

for (const src of dirs.length ? dirs : defaults()) {
  const root = path.join(scratch, path.basename(path.dirname(src)) + '-' + path.basename(src))
  fs.cpSync(src, root, { recursive: true, filter: (p) => !path.relative(src, p).split(path.sep).some((s) => SKIP.has(s)) })
  const out = execFileSync(ctags, ['-R', '--output-format=json', '--fields=+nKle', '--extras=-{qualified}', '-f', '-', '.'], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 30 })
  const tags = []
  for (const line of out.split('\n')) {
    if (!line.startsWith('{')) continue
    const t = JSON.parse(line)
    if (t._type !== 'tag' || !KINDS[t.language]?.includes(t.kind)) continue
    if (ONLY && t.language !== ONLY) continue
    if (!EXTENSIONS.has(path.extname(t.path).toLowerCase())) continue
    if (!/^[\p{L}_$][\p{L}\p{N}_$-]*[?!=]?$/u.test(t.name)) continue
    tags.push(t)
  }
  if (!tags.length) continue
  // A deterministic sample when the tree is large.
  const step = Math.max(1, tags.length / MAX)
  const sample = []
  for (let i = 0; i < tags.length && sample.length < MAX; i += step) sample.push(tags[Math.floor(i)])
  const tools = createAgentTools({ workspaceRoot: root, searchIndex: 'off', maxOutputBytes: 1 << 24, checkpointBytes: 0 })
  let found = 0
  const editable = []
  for (const t of sample) {
    const r = await tools.callTool('find_symbol', { name: t.name, path: t.path.replace(/^\.\//, '') })
    const text = r.content.map((p) => p.text).join('')
    const lines = new Set([...text.matchAll(/^[^\n]*?:(\d+):\d+  /gm)].map((m) => Number(m[1])))
    const ok = lines.has(t.line)
    const why = noise(t)
    if (why) bump(noisy, `${t.language}: ${why}`, ok)
    const key = why ? `${t.language} ${t.kind} (${why})` : `${t.language} ${t.kind}`
    bump(totals, key, ok)
    bump(perLang, t.language, ok)
    if (ok) {
      found++
      if (!why && t.end > t.line) editable.push(t)
    } else {
      const m = misses.get(key) ?? []
      if (m.length < MISSES) m.push(`${path.basename(root)}/${t.path.replace(/^\.\//, '')}:${t.line} ${t.name}  (${t.pattern?.slice(2, 90) ?? ''})`)
      misses.set(key, m)
    }
  }
  // Edits: a spread of the found definitions, per language.
  const byLang = new Map()
  for (const t of editable) byLang.set(t.language, [...(byLang.get(t.language) ?? []), t])
  for (const [lang, list] of byLang) {
    const done = edits.get(lang) ?? { ok: 0, wrong: 0, skipped: 0, refused: 0 }
    const want = Math.max(0, EDITS - done.ok - done.wrong)
    const stride = Math.max(1, list.length / Math.max(1, want))
    for (let i = 0; i < list.length && done.ok + done.wrong < EDITS; i += stride) {
      const t = list[Math.floor(i)]
      const res = await editCheck(tools, root, t)
      if (res === 'ok') done.ok++
      else if (res === 'refused') done.refused++
      else if (res === null || res === 'ambiguous') done.skipped++
      else {
        done.wrong++
        editFailures.push(`${lang} ${path.basename(root)}/${t.path.replace(/^\.\//, '')}:${t.line}-${t.end} ${t.name}: ${res}`)
      }
    }
    edits.set(lang, done)
  }
  grand = [grand[0] + found, grand[1] + sample.length]
  process.stdout.write(`${src}: ${found}/${sample.length} (${pct(found, sample.length)}) of ${tags.length} ctags definitions\n`)
}
process.stdout.write('\nby language and ctags kind:\n')
for (const [k, [f, n]] of [...totals].sort()) process.stdout.write(`  ${k.padEnd(40)} ${String(f).padStart(6)}/${String(n).padEnd(6)} ${pct(f, n)}\n`)
process.stdout.write('\nby language (raw; without ctags\' non-definitions):\n')
for (const [lang, [f, n]] of [...perLang].sort()) {
  let [nf, nn] = [0, 0]
  for (const [k, [a, b]] of noisy) if (k.startsWith(`${lang}:`)) [nf, nn] = [nf + a, nn + b]
  process.stdout.write(`  ${lang.padEnd(12)} ${String(f).padStart(6)}/${String(n).padEnd(6)} ${pct(f, n).padStart(7)}   ${String(f - nf).padStart(6)}/${String(n - nn).padEnd(6)} ${pct(f - nf, n - nn)}\n`)
}
process.stdout.write(`\ntotal: ${grand[0]}/${grand[1]} = ${pct(grand[0], grand[1])} (target >= 97%)\n`)
let [nf, nn] = [0, 0]
for (const [, [f, n]] of noisy) [nf, nn] = [nf + f, nn + n]
process.stdout.write(`without ctags' non-definitions (${[...noisy].map(([w, [, n]]) => `${n} ${w}`).join(', ') || 'none'}): ${grand[0] - nf}/${grand[1] - nn} = ${pct(grand[0] - nf, grand[1] - nn)}\n`)
if (EDITS > 0) {
  process.stdout.write('\nreplace_symbol on found definitions (ok / wrong / refused: extent uncertain after a syntax error / skipped: one line, ambiguous, a parse timeout, or ctags end not the block\'s):\n')
  for (const [lang, d] of [...edits].sort()) process.stdout.write(`  ${lang.padEnd(12)} ${d.ok} ok, ${d.wrong} wrong, ${d.refused} refused, ${d.skipped} skipped\n`)
  for (const f of editFailures.slice(0, 40)) process.stdout.write(`    ${f}\n`)
}
if (misses.size) {
  process.stdout.write('\nmisses (first of each class):\n')
  for (const [k, m] of [...misses].sort()) process.stdout.write(`  ${k}:\n${m.map((x) => `    ${x}`).join('\n')}\n`)
}
fs.rmSync(scratch, { recursive: true, force: true })
