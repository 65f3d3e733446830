// find_symbol against universal-ctags (issue 29's accuracy check; not part of npm test).
//
//   node scripts/symbol-accuracy.mjs [--max N] [--misses K] [dir ...]
//
// For each tree, `ctags -R --output-format=json` lists the definitions the issue names
// (functions, classes, methods, structs, enums, interfaces, traits, type aliases); each is
// looked up with find_symbol { name, path: its file } and counts as found when a hit is at
// the same line. Prints found/total per language and kind, and the first K misses of each
// class (so they are fixed by class, in the node mappings of the symbol extraction). Each
// tree is copied to a scratch workspace first (a tree inside node_modules would be ignored
// by the walk). Without arguments: real trees available on this machine (Rust crates from
// ~/.cargo/registry, TypeScript and JavaScript from node_modules, Python's standard library).
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { execFileSync } from 'node:child_process'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const { createAgentTools } = require('../index.js')
const arg = (name, dflt) => {
  const i = process.argv.indexOf(name)
  return i > 0 ? Number(process.argv[i + 1]) : dflt
}
const MAX = arg('--max', 4000)
const MISSES = arg('--misses', 5)
const dirs = process.argv.slice(2).filter((a, i, all) => !a.startsWith('--') && !all[i - 1]?.startsWith('--'))

/** ctags' kinds (long names, per language) that the issue's classes name. */
const WANTED = {
  Rust: ['function', 'method', 'struct', 'enum', 'interface', 'typedef'],
  TypeScript: ['function', 'class', 'method', 'interface', 'enum', 'alias'],
  JavaScript: ['function', 'class', 'method'],
  Python: ['function', 'class', 'member'],
  Go: ['func', 'struct', 'interface', 'type', 'methodSpec'],
}

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
  if (t.language === 'JavaScript' && t.kind === 'class' && !/\bclass\b/.test(p) && /[=:]\s*\{\s*\$?\/$/.test(p)) return 'object literal'
  return null
}

function defaults() {
  const out = []
  const reg = path.join(os.homedir(), '.cargo/registry/src')
  if (fs.existsSync(reg)) {
    for (const idx of fs.readdirSync(reg)) {
      for (const c of fs.readdirSync(path.join(reg, idx))) {
        if (/^(regex-syntax-0\.8|serde-1\.|tokio-1\.|syn-2\.)/.test(c)) out.push(path.join(reg, idx, c, 'src'))
      }
    }
  }
  const nm = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../node_modules')
  for (const d of ['ai/src', '@modelcontextprotocol/sdk/dist/esm', 'ajv/lib']) if (fs.existsSync(path.join(nm, d))) out.push(path.join(nm, d))
  for (const d of ['json', 'email', 'asyncio', 'http', 'importlib', 'logging', 'unittest']) {
    const p = `/usr/lib/python3.11/${d}`
    if (fs.existsSync(p)) out.push(p)
  }
  return out
}

let ctags = 'ctags'
try {
  if (!/Universal Ctags/.test(execFileSync(ctags, ['--version'], { encoding: 'utf8' }))) throw new Error('not universal')
} catch {
  process.stderr.write('universal-ctags not found: apt-get install -y universal-ctags\n')
  process.exit(2)
}

const totals = new Map()
const misses = new Map()
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'clarvis-accuracy-'))
let grand = [0, 0]
const noisy = new Map()
for (const src of dirs.length ? dirs : defaults()) {
  const root = path.join(scratch, path.basename(path.dirname(src)) + '-' + path.basename(src))
  fs.cpSync(src, root, { recursive: true, filter: (p) => !path.relative(src, p).split(path.sep).includes('node_modules') })
  const out = execFileSync(ctags, ['-R', '--output-format=json', '--fields=+nKl', '--extras=-{qualified}', '-f', '-', '.'], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 30 })
  const tags = []
  for (const line of out.split('\n')) {
    if (!line.startsWith('{')) continue
    const t = JSON.parse(line)
    if (t._type !== 'tag' || !WANTED[t.language]?.includes(t.kind)) continue
    if (!/^[\p{L}_$][\p{L}\p{N}_$]*$/u.test(t.name)) continue
    tags.push(t)
  }
  // A deterministic sample when the tree is large.
  const step = Math.max(1, tags.length / MAX)
  const sample = []
  for (let i = 0; i < tags.length && sample.length < MAX; i += step) sample.push(tags[Math.floor(i)])
  const tools = createAgentTools({ workspaceRoot: root, searchIndex: 'off', maxOutputBytes: 1 << 24 })
  let found = 0
  for (const t of sample) {
    const r = await tools.callTool('find_symbol', { name: t.name, path: t.path.replace(/^\.\//, '') })
    const text = r.content.map((p) => p.text).join('')
    const lines = new Set([...text.matchAll(/^[^\n]*?:(\d+):\d+  /gm)].map((m) => Number(m[1])))
    const ok = lines.has(t.line)
    const why = noise(t)
    if (why) {
      const n = noisy.get(why) ?? [0, 0]
      n[0] += ok ? 1 : 0
      n[1]++
      noisy.set(why, n)
    }
    const key = why ? `${t.language} ${t.kind} (${why})` : `${t.language} ${t.kind}`
    const tot = totals.get(key) ?? [0, 0]
    tot[0] += ok ? 1 : 0
    tot[1]++
    totals.set(key, tot)
    if (ok) found++
    else {
      const m = misses.get(key) ?? []
      if (m.length < MISSES) m.push(`${path.basename(root)}/${t.path.replace(/^\.\//, '')}:${t.line} ${t.name}  (${t.pattern?.slice(2, 90) ?? ''})`)
      misses.set(key, m)
    }
  }
  grand = [grand[0] + found, grand[1] + sample.length]
  process.stdout.write(`${src}: ${found}/${sample.length} (${((100 * found) / Math.max(1, sample.length)).toFixed(1)}%) of ${tags.length} ctags definitions\n`)
}
process.stdout.write('\nby language and ctags kind:\n')
for (const [k, [f, n]] of [...totals].sort()) process.stdout.write(`  ${k.padEnd(24)} ${String(f).padStart(6)}/${String(n).padEnd(6)} ${((100 * f) / n).toFixed(1)}%\n`)
process.stdout.write(`\ntotal: ${grand[0]}/${grand[1]} = ${((100 * grand[0]) / Math.max(1, grand[1])).toFixed(2)}% (target >= 97%)\n`)
let [nf, nn] = [0, 0]
for (const [, [f, n]] of noisy) [nf, nn] = [nf + f, nn + n]
const [df, dn] = [grand[0] - nf, grand[1] - nn]
process.stdout.write(`without ctags' non-definitions (${[...noisy].map(([w, [, n]]) => `${n} ${w}`).join(', ') || 'none'}): ${df}/${dn} = ${((100 * df) / Math.max(1, dn)).toFixed(2)}%\n`)
if (misses.size) {
  process.stdout.write('\nmisses (first of each class):\n')
  for (const [k, m] of [...misses].sort()) process.stdout.write(`  ${k}:\n${m.map((x) => `    ${x}`).join('\n')}\n`)
}
fs.rmSync(scratch, { recursive: true, force: true })
