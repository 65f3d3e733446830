// Real source files for the drift suite, found on a fresh machine after `npm install && npm
// run build`: crate sources in cargo's registry (Rust, and C vendored by pcre2-sys),
// packages in node_modules (JavaScript/TypeScript) and the machine's python3 stdlib. Each
// language falls back to something that is always there (this repository's own sources, an
// embedded sample) so the suite still runs, with fewer distinct files, when a source is missing.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const here = path.dirname(fileURLToPath(import.meta.url))
const repo = path.resolve(here, '..', '..')
const MAX_BYTES = 400_000

function readable(p) {
  try {
    const st = fs.statSync(p)
    if (!st.isFile() || st.size > MAX_BYTES || st.size < 2000) return null
    const text = fs.readFileSync(p, 'utf8')
    if (text.includes('\r') || text.includes('\uFFFD') || text.includes('\0')) return null
    return text
  } catch {
    return null
  }
}

/** Version-aware comparison of `name-1.2.10` directory names (highest version last). */
function byVersion(a, b) {
  const va = a.split('-').pop().split('.').map(Number)
  const vb = b.split('-').pop().split('.').map(Number)
  for (let i = 0; i < 3; i++) if ((va[i] || 0) !== (vb[i] || 0)) return (va[i] || 0) - (vb[i] || 0)
  return a < b ? -1 : 1
}

function registryCrate(name) {
  const home = process.env.CARGO_HOME || path.join(os.homedir(), '.cargo')
  const src = path.join(home, 'registry', 'src')
  let found = []
  try {
    for (const index of fs.readdirSync(src)) {
      for (const dir of fs.readdirSync(path.join(src, index))) {
        if (dir.startsWith(name + '-') && /^\d/.test(dir.slice(name.length + 1))) found.push(path.join(src, index, dir))
      }
    }
  } catch {
    return null
  }
  found = found.sort((a, b) => byVersion(path.basename(a), path.basename(b)))
  return found.pop() ?? null
}

function fromList(candidates, want) {
  const out = []
  const seen = new Set()
  for (const p of candidates) {
    if (!p || seen.has(p)) continue
    seen.add(p)
    const text = readable(p)
    if (text) out.push({ path: p, text })
    if (out.length >= want) break
  }
  return out
}

function walk(dir, ext, limit = 200) {
  const out = []
  const stack = [dir]
  while (stack.length && out.length < limit) {
    const d = stack.pop()
    let entries = []
    try {
      entries = fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))
    } catch {
      continue
    }
    for (const e of entries) {
      const p = path.join(d, e.name)
      if (e.isDirectory()) stack.push(p)
      else if (p.endsWith(ext)) out.push(p)
    }
  }
  return out.sort()
}

function rustFiles() {
  const picks = [
    ['regex-syntax', 'src/ast/parse.rs'],
    ['ignore', 'src/walk.rs'],
    ['similar', 'src/text/mod.rs'],
    ['globset', 'src/glob.rs'],
    ['serde_json', 'src/de.rs'],
  ]
  const list = picks.map(([c, f]) => {
    const dir = registryCrate(c)
    return dir && path.join(dir, f)
  })
  return fromList([...list, ...walk(path.join(repo, 'src'), '.rs')], 4)
}

function cFiles() {
  const dir = registryCrate('pcre2-sys')
  const names = ['pcre2_compile.c', 'pcre2_match.c', 'pcre2_substitute.c', 'pcre2_study.c', 'pcre2_context.c']
  const list = dir ? names.flatMap((n) => [path.join(dir, 'upstream', 'src', n), path.join(dir, 'pcre2', 'src', n)]) : []
  return fromList([...list, ...walk('/usr/include', '.h', 400)], 4)
}

function jsFiles() {
  const nm = path.join(repo, 'node_modules')
  const list = [
    'ajv/lib/core.ts',
    'ajv/lib/compile/index.ts',
    'express/lib/response.js',
    'express/lib/application.js',
    'ajv/lib/compile/validate/index.ts',
  ].map((f) => path.join(nm, f))
  return fromList([...list, path.join(repo, 'index.js'), path.join(repo, 'lib')].concat(walk(path.join(repo, 'lib'), '.js')), 4)
}

function pythonFiles() {
  const r = spawnSync('python3', ['-c', "import sysconfig; print(sysconfig.get_paths()['stdlib'])"], { encoding: 'utf8' })
  const lib = r.status === 0 ? r.stdout.trim() : null
  const names = ['textwrap.py', 'shlex.py', 'argparse.py', 'difflib.py', 'configparser.py']
  const list = lib ? names.map((n) => path.join(lib, n)) : []
  const found = fromList(list, 4)
  if (found.length === 0) found.push({ path: path.join(here, 'sample.py'), text: fs.readFileSync(path.join(here, 'sample.py'), 'utf8') })
  return found
}

/** `[{ lang, ext, path, text }]`: up to four files per language. */
export function findSources() {
  const out = []
  for (const [lang, files] of [['c', cFiles()], ['js/ts', jsFiles()], ['python', pythonFiles()], ['rust', rustFiles()]]) {
    for (const f of files) out.push({ lang, ext: path.extname(f.path) || '.txt', ...f })
  }
  return out
}

/** Whether python3 can be run (for the compile checks). */
export function hasPython() {
  return spawnSync('python3', ['-c', 'pass']).status === 0
}

/** For each Python source, whether it compiles (one python3 process for the whole batch). */
export function pythonCompiles(sources) {
  if (sources.length === 0) return []
  const script = 'import sys, json\nout = []\nfor s in json.load(sys.stdin):\n    try:\n        compile(s, "x.py", "exec")\n        out.append(True)\n    except (SyntaxError, ValueError):\n        out.append(False)\nprint(json.dumps(out))'
  const r = spawnSync('python3', ['-c', script], { input: JSON.stringify(sources), encoding: 'utf8', maxBuffer: 1 << 28 })
  if (r.status !== 0) return sources.map(() => true)
  return JSON.parse(r.stdout)
}
