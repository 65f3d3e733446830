// find_symbol and find_references (issue 29): definitions and uses from the parsed sources,
// across the grammars, with and without the search index, fresh after every kind of write.
import test from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { createAgentTools } from '../index.mjs'
import { latest, envelope, eventually } from './helpers.mjs'
import { slash } from './platform.mjs'

const unixOnly = { skip: process.platform === 'win32' && 'the search index is Unix only' }

const FILES = {
  'src/config.ts': `import { readFileSync } from 'fs'
/** Loads the configuration. */
export class Config {
  constructor(public path: string) {}
  static load(path: string): Config {
    return new Config(readFileSync(path, 'utf8'))
  }
}
export interface Loader { load(p: string): Config }
export function parseConfig(text: string): Config {
  // parseConfig is mentioned in this comment
  return Config.load(text)
}
export const DEFAULT_PATH = 'parseConfig in a string'
`,
  'src/main.ts': `import { parseConfig, Config } from './config'
const c: Config = parseConfig('x')
console.log(c.path)
`,
  'tools/config.py': `import os

MAX_DEPTH = 3

class Config:
    def load(self, path):
        return parse_config(os.path.join(path, "x"))

def parse_config(text):
    """parse_config mentioned in a docstring"""
    return Config()
`,
  'crates/core/src/config.rs': `pub struct Config { pub path: String }
impl Config {
    pub fn load(path: &str) -> Config { parse_config(path) }
}
pub fn parse_config(text: &str) -> Config { Config { path: text.to_string() } }
macro_rules! config_macro { () => {} }
`,
  'go/config.go': `package config

type Config struct{ Path string }

func (c *Config) Load(p string) Config { return ParseConfig(p) }

func ParseConfig(text string) Config { return Config{Path: text} }
`,
  'java/Config.java': `class Config {
  static Config load(String path) { return parseConfig(path); }
  static Config parseConfig(String text) { return new Config(); }
}
`,
  'notes/config.md': '# parseConfig\nThe parseConfig function parses.\n',
  'data/config.yaml': 'parseConfig: true\n',
}

// Display paths are `path.relative`'s form (`src\config.ts` on Windows): compared as `/`.
const text = (r) => slash(r.content.map((p) => p.text).join(''))

test('find_symbol: one line per definition, every grammar, best first', async () => {
  const w = latest(FILES)
  const r = await w.call('find_symbol', { name: 'Config' })
  assert.equal(r.isError, false, r.text)
  const lines = text(r).split('\n')
  assert.deepEqual(lines.slice(0, 5), [
    'crates/core/src/config.rs:1:12  struct  Config  — pub struct Config { pub path: String }',
    'go/config.go:3:6  struct  Config  — type Config struct{ Path string }',
    'java/Config.java:1:7  class  Config  — class Config',
    'src/config.ts:3:14  class  Config  — export class Config',
    'tools/config.py:5:7  class  Config  — class Config:',
  ])
  // A file holding the name only inside a longer identifier (`parseConfig`) is not a
  // candidate: it is neither parsed nor named.
  assert.doesNotMatch(text(r), /not parsed|config\.yaml|config\.md/)
  // The files that hold the name but have no symbol support are named, not parsed.
  const held = text(await w.call('find_symbol', { name: 'parseConfig' }))
  assert.match(held, /2 files holding `parseConfig` not parsed: data\/config\.yaml, notes\/config\.md \(no symbol support for the language\)/)
  const load = text(await w.call('find_symbol', { name: 'load' })).split('\n')
  assert.deepEqual(load.slice(0, 5), [
    'crates/core/src/config.rs:3:12  method  Config::load  — pub fn load(path: &str) -> Config { parse_config(path) }',
    'java/Config.java:2:17  method  Config.load  — static Config load(String path) { return parseConfig(path); }',
    'src/config.ts:5:10  method  Config.load  — static load(path: string): Config',
    'tools/config.py:6:9  method  Config.load  — def load(self, path):',
    // A signature without a body is a declaration: after the definitions.
    'src/config.ts:9:27  method decl  Loader.load  — export interface Loader { load(p: string): Config }',
  ])
})

test('find_symbol: qualified names, match modes and kinds', async () => {
  const w = latest(FILES)
  const one = async (args) => text(await w.call('find_symbol', args)).split('\n')
  assert.deepEqual(await one({ name: 'Config.load', glob: '*.ts' }), [
    'src/config.ts:5:10  method  Config.load  — static load(path: string): Config',
  ])
  assert.deepEqual(await one({ name: 'config::parse_config' }), [
    'crates/core/src/config.rs:5:8  function  parse_config  — pub fn parse_config(text: &str) -> Config { Config { path: text.to_string() } }',
    'tools/config.py:9:5  function  parse_config  — def parse_config(text):',
  ])
  assert.deepEqual(await one({ name: 'Loader.load' }), [
    'src/config.ts:9:27  method decl  Loader.load  — export interface Loader { load(p: string): Config }',
  ])
  // Exact is case-sensitive; prefix and substring ignore case, exact names first.
  const prefix = await one({ name: 'parseconfig', match: 'prefix' })
  assert.deepEqual(prefix.map((l) => l.split('  ')[0]), [
    'go/config.go:7:6',
    'java/Config.java:3:17',
    'src/config.ts:10:17',
    '[2 files holding `parseconfig` not parsed: data/config.yaml, notes/config.md (no symbol support for the language); grep searches them]',
  ])
  const sub = await one({ name: 'config', match: 'substring', kind: 'function' })
  // Equally good matches in path order; the note about unparsed files follows the rows.
  assert.deepEqual(sub.filter((l) => !l.startsWith('[')).map((l) => l.split('  ')[2]), ['parse_config', 'ParseConfig', 'parseConfig', 'parse_config'])
  assert.deepEqual(await one({ name: 'config_macro', kind: 'macro' }), [
    'crates/core/src/config.rs:6:14  macro  config_macro  — macro_rules! config_macro { () => {} }',
  ])
  assert.deepEqual(await one({ name: 'DEFAULT_PATH' }), [
    "src/config.ts:14:14  constant  DEFAULT_PATH  — export const DEFAULT_PATH = 'parseConfig in a string'",
  ])
  assert.deepEqual(await one({ name: 'MAX_DEPTH', path: 'tools' }), ['tools/config.py:3:1  constant  MAX_DEPTH  — MAX_DEPTH = 3'])
  // One file as the path.
  assert.deepEqual(await one({ name: 'Config', path: 'go/config.go' }), ['go/config.go:3:6  struct  Config  — type Config struct{ Path string }'])
})

test('find_symbol: nothing found is an answer with the closest names; bad input is invalid_input', async () => {
  const w = latest(FILES)
  const miss = text(await w.call('find_symbol', { name: 'parseConfg' }))
  assert.match(miss, /^\(no definition of `parseConfg` found\)/)
  // Found through either half of the name; one place per name.
  assert.match(miss, /\nClosest definitions: ParseConfig \(go\/config\.go:7\), parseConfig \(java\/Config\.java:3\), parse_config \(crates\/core\/src\/config\.rs:5\)/)
  assert.match(text(await w.call('find_symbol', { name: 'prseConfig' })), /Closest definitions: .*ParseConfig \(go\/config\.go:7\)/)
  const used = text(await w.call('find_symbol', { name: 'readFileSync' }))
  assert.match(used, /`readFileSync` is used as code in 1 file/)
  const other = text(await w.call('find_symbol', { name: 'Other.load' }))
  assert.match(other, /`load` is defined, but not as `Other.load`/)
  for (const [args, field, re] of [
    [{ name: '' }, 'name', /must not be empty/],
    [{ name: 'parse config' }, 'name', /must be an identifier/],
    [{ name: 'parseConfig()' }, 'name', /without parentheses/],
    [{ name: 'parse*' }, 'name', /Patterns are not accepted/],
    [{ name: 'x', kind: 'widget' }, 'kind', /^Unknown kind: widget\. Kinds: function, method, class/],
  ]) {
    const e = envelope(await w.call('find_symbol', args))
    assert.equal(e.error, 'invalid_input', JSON.stringify(args))
    assert.equal(e.field, field)
    assert.match(e.message, re)
  }
  assert.equal(envelope(await w.call('find_symbol', { name: 'x', match: 'fuzzy' })).error, 'invalid_input')
  assert.equal(envelope(await w.call('find_symbol', { name: 'x', path: 'nope' })).error, 'not_found')
  assert.equal(envelope(await w.call('find_symbol', { name: 'x', path: '../..' })).error, 'path_escape')
})

test('find_symbol: files with syntax errors keep what parsed and say so; paging as grep', async () => {
  const files = { 'broken.ts': 'export function good() {}\nfunction bad( {\n' }
  for (let i = 0; i < 30; i++) files[`many/m${String(i).padStart(2, '0')}.py`] = `def handler_${i}():\n    pass\n`
  const w = latest(files)
  const r = text(await w.call('find_symbol', { name: 'good' }))
  assert.match(r, /^broken\.ts:1:17  function  good/)
  assert.match(r, /\[note: syntax errors in broken\.ts: what follows an error there may be missing/)
  const page = text(await w.call('find_symbol', { name: 'handler_', match: 'prefix', head_limit: 5, offset: 10 })).split('\n')
  assert.equal(page.length, 6)
  assert.match(page[0], /^many\/m10\.py:1:5  function  handler_10/)
  assert.equal(page[5], '[... showing 10..15 of 30; call again with offset=15 for more ...]')
})

test('find_references: grouped by file, roles, never in comments or strings', async () => {
  const w = latest(FILES)
  const r = await w.call('find_references', { name: 'parseConfig', glob: '*.ts' })
  assert.equal(r.isError, false, r.text)
  assert.equal(
    text(r),
    [
      'src/config.ts',
      '  10:17  definition  export function parseConfig(text: string): Config {',
      'src/main.ts',
      "  1:10  import  import { parseConfig, Config } from './config'",
      "  2:19  call  const c: Config = parseConfig('x')",
    ].join('\n'),
  )
  const roles = text(await w.call('find_references', { name: 'Config', path: 'src' }))
  assert.match(roles, /^ {2}5:30 {2}type {2}static load\(path: string\): Config \{$/m)
  assert.match(roles, /^  6:16  call  return new Config/m)
  assert.match(roles, /^ {2}12:10 {2}read {2}return Config\.load\(text\)$/m)
  assert.match(roles, /^src\/main\.ts\n {2}1:23 {2}import {2}import \{ parseConfig, Config \} from '\.\/config'\n {2}2:10 {2}type {2}const c: Config/m)
  const calls = text(await w.call('find_references', { name: 'parse_config', kinds: ['call'] }))
  assert.equal(
    calls,
    [
      'crates/core/src/config.rs',
      '  3:41  call  pub fn load(path: &str) -> Config { parse_config(path) }',
      'tools/config.py',
      '  7:16  call  return parse_config(os.path.join(path, "x"))',
    ].join('\n') + '\n' + calls.split('\n').slice(4).join('\n'),
  )
  // Several definitions of one name: the result says so instead of guessing.
  assert.match(calls, /\[note: `parse_config` has 2 definitions: crates\/core\/src\/config\.rs:5 function parse_config, tools\/config\.py:9 function parse_config\./)
  const member = text(await w.call('find_references', { name: 'path', path: 'src/main.ts' }))
  assert.equal(member.split('\n')[1], '  3:15  member  console.log(c.path)')
  assert.match(text(await w.call('find_references', { name: 'nowhere' })), /^\(no uses of `nowhere` as code found\)/)
  const e = envelope(await w.call('find_references', { name: 'x', kinds: ['calls', 'bogus'] }))
  assert.equal(e.error, 'invalid_input')
  assert.match(e.message, /^Unknown reference kind: bogus\. Kinds: definition, call, import, type, write, member, read\./)
})

test('find_references: a name defined only as a class member leaves out its bare uses (Python, TS/JS)', async () => {
  const w = latest({
    'store.py': `class Store:
    def open(self, path):
        return open(path)

def use(s):
    s.open("x")
    return open("y")
`,
    'other.py': 'from io import open\n\nopen("z")\n',
    'list.ts': `export class List {
  filter(f: (x: number) => boolean) { return this }
}
function run(filter: number) { return filter + 1 }
new List().filter(() => true)
const { filter: pick } = new List()
`,
  })
  const py = text(await w.call('find_references', { name: 'open', glob: '*.py' }))
  assert.equal(
    py,
    [
      'other.py',
      '  3:1  call  open("z")',
      'store.py',
      '  2:9  definition  def open(self, path):',
      '  6:7  call  s.open("x")',
      // A name imported from a module outside the workspace is another definition's.
      '[uncertain: 1 use of `open` the syntax cannot tie to its definition — a member access on a receiver whose type it cannot tell, or a module path; it may mean another symbol of the same name:]',
      'other.py:1:16  import  from io import open',
      '[note: `open` is defined only as a class member here; 2 bare uses of the name (not through an object: a builtin, a local, a parameter) left out]',
    ].join('\n'),
  )
  const ts = text(await w.call('find_references', { name: 'filter', path: 'list.ts' }))
  assert.match(ts, /^ {2}2:3 {2}definition {2}filter/m)
  assert.match(ts, /^ {2}5:12 {2}call {2}new List\(\)\.filter\(/m)
  assert.match(ts, /^ {2}6:9 {2}\w+ {2}const \{ filter: pick \}/m)
  assert.doesNotMatch(ts, /^ {2}4:14 /m)
  assert.doesNotMatch(ts, /^ {2}4:39 /m)
  assert.match(ts, /2 bare uses of the name/)
})

test('find_references: member accesses the syntax cannot tie to the definition are listed apart (JS, Python)', async () => {
  const w = latest({
    'a.js': `class Base { start () {} }
class Child extends Base { run () { this.start() } }
function f (x) { x.start() }
`,
    'b.py': `class Job:
    def update(self):
        self.update()

def get_job(j: Job, other):
    j.update()
    other.update()
`,
  })
  const js = text(await w.call('find_references', { name: 'start' }))
  const heading = (n, name) =>
    `[uncertain: ${n} use${n === 1 ? '' : 's'} of \`${name}\` the syntax cannot tie to its definition — a member access on a receiver whose type it cannot tell, or a module path; ${n === 1 ? 'it' : 'they'} may mean another symbol of the same name:]`
  assert.equal(
    js,
    [
      'a.js',
      '  1:14  definition  class Base { start () {} }',
      '  2:42  call  class Child extends Base { run () { this.start() } }',
      heading(1, 'start'),
      'a.js:3:20  call  function f (x) { x.start() }',
    ].join('\n'),
  )
  // Paging counts both lists; a page starting inside the uncertain ones repeats the heading.
  const page = text(await w.call('find_references', { name: 'start', offset: 2, head_limit: 1 }))
  assert.equal(page, [heading(1, 'start'), 'a.js:3:20  call  function f (x) { x.start() }'].join('\n'))
  // `update` is also dict's: on a parameter of unknown type it is uncertain; on `j: Job` not.
  const py = text(await w.call('find_references', { name: 'update' }))
  assert.equal(
    py,
    [
      'b.py',
      '  2:9  definition  def update(self):',
      '  3:14  call  self.update()',
      '  6:7  call  j.update()',
      heading(1, 'update'),
      'b.py:7:11  call  other.update()',
    ].join('\n'),
  )
})

test('find_symbol / find_references: fresh after our writes and other processes', async () => {
  const w = latest(FILES)
  const where = async () => text(await w.call('find_symbol', { name: 'parseConfig', glob: '*.ts' })).split('\n')[0]
  assert.match(await where(), /^src\/config\.ts:10:17/)
  await w.call('edit_file', { path: 'src/config.ts', old_string: '/** Loads the configuration. */\n', new_string: '' })
  assert.match(await where(), /^src\/config\.ts:9:17/)
  fs.writeFileSync(path.join(w.root, 'src/config.ts'), '\n\n' + fs.readFileSync(path.join(w.root, 'src/config.ts'), 'utf8'))
  assert.match(await where(), /^src\/config\.ts:11:17/)
  fs.rmSync(path.join(w.root, 'src/config.ts'))
  assert.match(await where(), /^\(no definition of `parseConfig` found\)/)
  const refs = text(await w.call('find_references', { name: 'parseConfig', glob: '*.ts' }))
  assert.match(refs, /^src\/main\.ts\n {2}1:10  import/)
})

test('find_symbol with the search index: the same answers, fresh after a change', unixOnly, async () => {
  const files = { ...FILES }
  for (let i = 0; i < 60; i++) files[`pad/p${i}.ts`] = `export const pad${i} = ${i}\n`
  const w = latest(files, { searchIndex: 'on' })
  const off = createAgentTools({ workspaceRoot: w.root, searchIndex: 'off' })
  await w.call('grep', { pattern: 'parseConfig' })
  await eventually(() => w.tools.searchIndexStatus().state === 'ready', 'the index is ready')
  for (const [tool, args] of [
    ['find_symbol', { name: 'Config' }],
    ['find_symbol', { name: 'pad', match: 'prefix', head_limit: 3 }],
    ['find_references', { name: 'parse_config' }],
  ]) {
    assert.equal(text(await w.call(tool, args)), text(await off.callTool(tool, args)), JSON.stringify(args))
  }
  fs.writeFileSync(path.join(w.root, 'pad/new.ts'), 'export function lateArrival() {}\n')
  await eventually(async () => text(await w.call('find_symbol', { name: 'lateArrival' })).startsWith('pad/new.ts:1:17'), 'a new file is found')
})

test('repo_map: the most used definitions first, grouped by file, within max_bytes', async () => {
  const files = {
    'lib/core.ts': 'export function coreHelper(x: number) { return x }\nexport class Registry { add() {} }\nfunction unusedThing() {}\n',
    'lib/util.ts': "import { coreHelper } from './core'\nexport function formatValue(v: number) { return coreHelper(v) }\n",
    'app/a.ts': "import { coreHelper, Registry } from '../lib/core'\nimport { formatValue } from '../lib/util'\nconst r = new Registry()\ncoreHelper(formatValue(1))\n",
    'app/b.ts': "import { coreHelper } from '../lib/core'\ncoreHelper(2)\ncoreHelper(3)\n",
    'README.md': '# coreHelper docs\n',
  }
  const w = latest(files)
  const map = text(await w.call('repo_map', {}))
  const lines = map.split('\n')
  // The definition the most (and most important) files use leads.
  assert.deepEqual(lines.slice(0, 2), ['lib/core.ts', '  1: export function coreHelper(x: number) { return x }'])
  assert.ok(lines.indexOf('lib/core.ts') < lines.indexOf('lib/util.ts'), map)
  assert.match(map, /^ {2}2: export class Registry \{ add\(\) \{\} \}$/m)
  // Methods sit under their class.
  assert.match(map, /^ {4}2: export class Registry/m)
  assert.match(map, /\n\[repo map: 5 of 5 definitions, 2 of 4 source files \(1 in other languages not mapped\)\]$/)
  // A small budget keeps the best and says what it left out.
  const small = text(await w.call('repo_map', { max_bytes: 240 }))
  assert.ok(Buffer.byteLength(small) <= 240, small)
  assert.match(small, /^lib\/core\.ts\n {2}1: export function coreHelper/)
  assert.match(small, /; more with a larger max_bytes or a narrower path\]$/)
  // Narrowed by path.
  const app = text(await w.call('repo_map', { path: 'lib' }))
  assert.doesNotMatch(app, /app\//)
  assert.equal(envelope(await w.call('repo_map', { path: 'nope' })).error, 'not_found')
})
