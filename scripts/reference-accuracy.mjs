// find_references against language servers (issue 29's accuracy check; not part of npm test).
//
//   node scripts/reference-accuracy.mjs [--max N] [--show K] [--ts DIR ...] [--py DIR ...]
//
// For each project: the names defined exactly once in it (every declaration counts: functions,
// classes, methods, properties, variables, parameters, locals; imports and re-exports do not
// declare), a deterministic spread of at most N of them, and for each the language server's
// references — the TypeScript language service (`typescript` from node_modules) for TS/JS,
// jedi (scripts/jedi-references.py) for Python — compared with find_references { name } at
// the position level (path, line, UTF-16 column). Recall = the server's positions we report,
// precision = our positions the server reports. A server position whose text is not the name
// (an `import { x as y }` alias's uses) cannot be found by name and is counted apart. Prints
// per language the totals and the first K misses and false hits, with their lines and roles.
//
// Without arguments: @ai-sdk/provider-utils' TypeScript sources and zod's, two JavaScript
// packages (semver, CommonJS; undici's lib), and flask and click from Python's site-packages.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { execFileSync } from 'node:child_process'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const { createAgentTools } = require('../index.js')
const ts = require('typescript')
const here = path.dirname(new URL(import.meta.url).pathname)
const nm = path.resolve(here, '../node_modules')
const argv = process.argv.slice(2)
const opt = (name, dflt) => {
  const i = argv.indexOf(name)
  return i >= 0 ? Number(argv[i + 1]) : dflt
}
const MAX = opt('--max', 150)
const SHOW = opt('--show', 12)
const listed = (flag) => argv.flatMap((a, i) => (argv[i - 1] === flag ? [a] : []))
let tsDirs = listed('--ts')
let pyDirs = listed('--py')
if (!tsDirs.length && !pyDirs.length) {
  tsDirs = ['@ai-sdk/provider-utils/src', 'zod/src/v3', 'semver', 'undici/lib'].map((d) => path.join(nm, d)).filter((d) => fs.existsSync(d))
  const site = execFileSync('python3', ['-c', 'import site; print(site.getsitepackages()[0])'], { encoding: 'utf8' }).trim()
  pyDirs = ['flask', 'click'].map((d) => path.join(site, d)).filter((d) => fs.existsSync(d))
}

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'clarvis-refs-'))
const TS_EXT = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/
const key = (p, l, c) => `${p}:${l}:${c}`

/** The name in the package.json nearest above `dir`. */
function packageName(dir) {
  for (let d = path.resolve(dir); d !== path.dirname(d); d = path.dirname(d)) {
    const p = path.join(d, 'package.json')
    if (fs.existsSync(p)) return JSON.parse(fs.readFileSync(p, 'utf8')).name ?? null
  }
  return null
}

/**
 * The tree copied to a scratch workspace, without the files that import their own package by
 * name (`import { z } from "zod/v3"` in zod's tests): resolved through the package's build
 * output in its repository, they are unresolved in a copy of its sources, and the language
 * service would then miss every reference in them.
 */
let copies = 0
function copy(src) {
  // The tree keeps its directory's name (a Python package's relative imports resolve by it).
  const root = path.join(scratch, String(copies++), path.basename(src))
  fs.cpSync(src, root, { recursive: true, filter: (p) => !path.relative(src, p).split(path.sep).includes('node_modules') && !p.endsWith('.map') })
  const own = packageName(src)
  if (own) {
    const self = new RegExp(`(from\\s*|require\\(\\s*|import\\(\\s*)["']${own.replace(/[/.]/g, '\\$&')}(/[^"']*)?["']`)
    for (const f of walk(root, (p) => TS_EXT.test(p))) if (self.test(fs.readFileSync(f, 'utf8'))) fs.rmSync(f)
  }
  return root
}

function walk(dir, test, out = []) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name)
    if (e.isDirectory()) walk(p, test, out)
    else if (test(p)) out.push(p)
  }
  return out
}

/** The names declared exactly once in a TS/JS project, and the language service's references. */
function tsTruth(root) {
  const files = walk(root, (p) => TS_EXT.test(p))
  const options = { allowJs: true, checkJs: false, noEmit: true, target: ts.ScriptTarget.ESNext, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, jsx: ts.JsxEmit.Preserve, skipLibCheck: true }
  const host = {
    getScriptFileNames: () => files,
    getScriptVersion: () => '1',
    getScriptSnapshot: (f) => (fs.existsSync(f) ? ts.ScriptSnapshot.fromString(fs.readFileSync(f, 'utf8')) : undefined),
    getCurrentDirectory: () => root,
    getCompilationSettings: () => options,
    getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
    fileExists: ts.sys.fileExists,
    readFile: ts.sys.readFile,
    readDirectory: ts.sys.readDirectory,
    directoryExists: ts.sys.directoryExists,
    getDirectories: ts.sys.getDirectories,
  }
  const ls = ts.createLanguageService(host, ts.createDocumentRegistry())
  const program = ls.getProgram()
  const counts = new Map()
  const candidates = new Map()
  const notDeclaring = new Set([ts.SyntaxKind.ImportSpecifier, ts.SyntaxKind.ExportSpecifier, ts.SyntaxKind.ImportClause, ts.SyntaxKind.NamespaceImport, ts.SyntaxKind.ShorthandPropertyAssignment, ts.SyntaxKind.ImportEqualsDeclaration, ts.SyntaxKind.NamespaceExport])
  const wanted = new Set([ts.SyntaxKind.FunctionDeclaration, ts.SyntaxKind.ClassDeclaration, ts.SyntaxKind.MethodDeclaration, ts.SyntaxKind.InterfaceDeclaration, ts.SyntaxKind.TypeAliasDeclaration, ts.SyntaxKind.EnumDeclaration, ts.SyntaxKind.VariableDeclaration, ts.SyntaxKind.PropertyDeclaration, ts.SyntaxKind.PropertySignature, ts.SyntaxKind.MethodSignature, ts.SyntaxKind.GetAccessor, ts.SyntaxKind.SetAccessor, ts.SyntaxKind.PropertyAssignment])
  for (const f of files) {
    const sf = program.getSourceFile(f)
    if (!sf) continue
    const visit = (n) => {
      if (ts.isIdentifier(n) && n.parent && n.parent.name === n && !notDeclaring.has(n.parent.kind) && (ts.isDeclaration?.(n.parent) ?? true)) {
        const name = n.text
        counts.set(name, (counts.get(name) ?? 0) + 1)
        if (wanted.has(n.parent.kind) && !candidates.has(name)) candidates.set(name, { file: f, pos: n.getStart(sf) })
      }
      ts.forEachChild(n, visit)
    }
    visit(sf)
  }
  const names = [...candidates.keys()].filter((n) => counts.get(n) === 1).sort()
  const step = Math.max(1, names.length / MAX)
  const out = []
  for (let i = 0; i < names.length && out.length < MAX; i += step) {
    const name = names[Math.floor(i)]
    const c = candidates.get(name)
    const refs = []
    const aliased = []
    for (const group of ls.findReferences(c.file, c.pos) ?? []) {
      for (const r of group.references) {
        if (!r.fileName.startsWith(root + path.sep)) continue
        const sf = program.getSourceFile(r.fileName)
        const { line, character } = sf.getLineAndCharacterOfPosition(r.textSpan.start)
        const text = sf.text.slice(r.textSpan.start, r.textSpan.start + r.textSpan.length)
        const at = [path.relative(root, r.fileName), line + 1, character + 1]
        ;(text === name ? refs : aliased).push(at)
      }
    }
    const sf = program.getSourceFile(c.file)
    const { line, character } = sf.getLineAndCharacterOfPosition(c.pos)
    out.push({ name, def: [path.relative(root, c.file), line + 1, character + 1], refs, aliased })
  }
  return out
}

function pyTruth(root) {
  const json = execFileSync('python3', [path.join(here, 'jedi-references.py'), root, String(MAX)], { encoding: 'utf8', maxBuffer: 1 << 28 })
  return JSON.parse(json).map((t) => ({ ...t, aliased: [] }))
}

/** find_references' positions for `name`: key → role. */
async function ours(tools, name) {
  const r = await tools.callTool('find_references', { name, head_limit: 100000 })
  const text = r.content.map((p) => p.text).join('')
  const out = new Map()
  let file = null
  for (const line of text.split('\n')) {
    const m = line.match(/^ {2}(\d+):(\d+) {2}(\w+) {2}/)
    if (m && file) out.set(key(file, Number(m[1]), Number(m[2])), m[3])
    else if (line && !line.startsWith(' ') && !line.startsWith('[') && !line.startsWith('(')) file = line
  }
  return { out, note: /cannot tell which definition/.test(text) }
}

const lineOf = (root, k) => {
  const [p, l] = k.split(':')
  return (fs.readFileSync(path.join(root, p), 'utf8').split('\n')[Number(l) - 1] ?? '').trim().slice(0, 120)
}

/** Per language: totals and examples. */
const by = new Map()
const stats = (lang) => {
  if (!by.has(lang)) by.set(lang, { hit: 0, want: 0, got: 0, aliased: 0, notes: 0, missed: [], extra: [] })
  return by.get(lang)
}
for (const [family, dirs, truth] of [['ts', tsDirs, tsTruth], ['py', pyDirs, pyTruth]]) {
  for (const src of dirs) {
    const root = copy(src)
    // A tree with TypeScript sources counts as TypeScript, else JavaScript.
    const lang = family === 'py' ? 'Python' : walk(root, (p) => /\.(ts|tsx|mts|cts)$/.test(p) && !p.endsWith('.d.ts')).length ? 'TypeScript' : 'JavaScript'
    const s = stats(lang)
    const t0 = Date.now()
    const cases = truth(root)
    const tools = createAgentTools({ workspaceRoot: root, searchIndex: 'off', maxOutputBytes: 1 << 24 })
    let [h, w, g] = [0, 0, 0]
    for (const c of cases) {
      const theirs = new Set(c.refs.map(([p, l, col]) => key(p, l, col)))
      theirs.add(key(...c.def))
      const { out: mine, note } = await ours(tools, c.name)
      if (note) s.notes++
      for (const k of theirs) {
        if (mine.has(k)) h++
        else s.missed.push(`${path.basename(path.dirname(src))}/${path.basename(root)} ${c.name} ${k}  ${lineOf(root, k)}`)
      }
      for (const [k, role] of mine) if (!theirs.has(k)) s.extra.push(`${path.basename(path.dirname(src))}/${path.basename(root)} ${c.name} ${k} ${role}  ${lineOf(root, k)}${note ? '  [noted ambiguous]' : ''}`)
      w += theirs.size
      g += mine.size
      s.aliased += c.aliased.length
    }
    process.stdout.write(`${lang} ${src}: ${cases.length} names, recall ${h}/${w}, precision ${h}/${g} (${((Date.now() - t0) / 1000).toFixed(1)} s)\n`)
    s.hit += h
    s.want += w
    s.got += g
  }
}
const summary = []
for (const [lang, s] of by) {
  if (!s.want) continue
  const line = `${lang}: recall ${s.hit}/${s.want} = ${((100 * s.hit) / s.want).toFixed(2)}% (target >= 99%), precision ${s.hit}/${s.got} = ${((100 * s.hit) / Math.max(1, s.got)).toFixed(2)}% (target >= 95%); ${s.aliased} server positions under an import alias's other name not counted; ${s.notes} names noted as ambiguous`
  summary.push(line)
  process.stdout.write(`\n${line}\n`)
  if (s.missed.length) process.stdout.write(`  misses (${s.missed.length}; first ${SHOW}):\n${s.missed.slice(0, SHOW).map((m) => `    ${m}`).join('\n')}\n`)
  if (s.extra.length) process.stdout.write(`  false hits (${s.extra.length}; first ${SHOW}):\n${s.extra.slice(0, SHOW).map((m) => `    ${m}`).join('\n')}\n`)
}
process.stdout.write(`\n${summary.join('\n')}\n`)
fs.rmSync(scratch, { recursive: true, force: true })
