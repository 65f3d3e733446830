// replace_symbol and insert_symbol (issue 29): edits by name, through edit_file's writer
// path — bytes on disk (line endings, BOM), meta.diff, the syntax warning, checkpoints, the
// guard, write scope, confinement, staleWrites, and definitions that moved since the read.
import test from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { latest, envelope } from './helpers.mjs'
import { slash, windows } from './platform.mjs'

const RULE = '='.repeat(67)
const disk = (root, rel) => fs.readFileSync(path.join(root, rel), 'latin1')

const TS = '\uFEFFimport { x } from "./x"\r\n\r\n/** Loads. */\r\nexport function load(p: string) {\r\n  return x(p)\r\n}\r\n\r\nexport class Config {\r\n  get(key: string) {\r\n    return key\r\n  }\r\n}\r\n'

test('replace_symbol: bytes on disk keep the BOM and CRLF; the doc comment and export stay; meta.diff', async () => {
  const { root, call } = latest({ 'src/a.ts': TS })
  const r = await call('replace_symbol', { path: 'src/a.ts', symbol: 'load', new_source: 'function load(p: string) {\n  return x(p.trim())\n}\n' })
  assert.equal(r.isError, false, r.text)
  assert.equal(slash(r.text), 'Replaced function `load` in src/a.ts (now lines 4-6). Kept the line above it (doc comment, attributes, decorators or export) that new_source does not include.')
  assert.equal(disk(root, 'src/a.ts'), Buffer.from(TS.replace('x(p)', 'x(p.trim())')).toString('latin1'))
  // Windows quotes a header path with a backslash (`--- "src\\a.ts"`), as edit_file's diff does there.
  const hunks = (d) => (windows ? d.slice(d.indexOf('\n@@')) : d)
  assert.equal(hunks(r.meta.diff), hunks(`Index: src/a.ts\n${RULE}\n--- src/a.ts\n+++ src/a.ts\n@@ -2,7 +2,7 @@\n \n /** Loads. */\n export function load(p: string) {\n-  return x(p)\n+  return x(p.trim())\n }\n \n export class Config {\n`))
  // A method by its qualified name, given dedented with tabs: two spaces, as the file.
  const m = await call('replace_symbol', { path: 'src/a.ts', symbol: 'Config.get', new_source: 'get(key: string) {\n\treturn key + "!"\n}' })
  assert.equal(m.isError, false, m.text)
  assert.match(slash(m.text), /^Replaced method `Config\.get` in src\/a\.ts \(now lines 9-11\)\. Re-indented new_source to the file: /)
  assert.ok(disk(root, 'src/a.ts').endsWith('  get(key: string) {\r\n    return key + "!"\r\n  }\r\n}\r\n'))
})

test('insert_symbol: before and after, in Python, Rust and Go, re-indented, blank lines as the neighbours', async () => {
  const py = 'class A:\n    def one(self):\n        return 1\n\n    def two(self):\n        return 2\n'
  const rs = '/// Doc.\n#[inline]\nfn a() {}\n\nfn b() {}\n'
  const go = 'package p\n\nfunc A() {\n\treturn\n}\n'
  const { root, call } = latest({ 'a.py': py, 'a.rs': rs, 'a.go': go })
  let r = await call('insert_symbol', { path: 'a.py', symbol: 'A.one', position: 'after', source: 'def mid(self):\n    return 1.5\n' })
  assert.equal(r.text, 'Inserted lines 5-6 after method `A.one` in a.py. Re-indented source to the file: shifted right by 4 spaces.')
  assert.equal(disk(root, 'a.py'), py.replace('return 1\n', 'return 1\n\n    def mid(self):\n        return 1.5\n'))
  r = await call('insert_symbol', { path: 'a.rs', symbol: 'a', position: 'before', source: 'fn z() {}' })
  assert.equal(r.text, 'Inserted lines 1-1 before function `a` in a.rs.', r.text)
  assert.equal(disk(root, 'a.rs'), 'fn z() {}\n\n' + rs)
  r = await call('insert_symbol', { path: 'a.go', symbol: 'A', position: 'after', source: 'func B() {\n    A()\n}' })
  assert.equal(disk(root, 'a.go'), go + '\nfunc B() {\n\tA()\n}\n')
  assert.match(r.text, /4 spaces became a tab, as the file indents/)
})

test('a definition that moved since the read is still the one edited; edits elsewhere survive', async () => {
  const src = 'def a():\n    return 1\n\n\ndef b():\n    return 2\n'
  const { root, call } = latest({ 'm.py': src })
  await call('read_file', { path: 'm.py' })
  // Someone else adds lines above `b` after the model read the file.
  fs.writeFileSync(path.join(root, 'm.py'), '# header\n\n' + src.replace('return 1', 'return 10'))
  const r = await call('replace_symbol', { path: 'm.py', symbol: 'b', new_source: 'def b():\n    return 20\n' })
  assert.equal(r.isError, false, r.text)
  assert.equal(disk(root, 'm.py'), '# header\n\ndef a():\n    return 10\n\n\ndef b():\n    return 20\n')
})

test('errors: no_match names the closest, ambiguous_match lists each, bad input is invalid_input; nothing written', async () => {
  const py = 'class A:\n    def get(self):\n        pass\n\nclass B:\n    def get(self):\n        pass\n'
  const { root, call } = latest({ 'a.py': py, 'notes.md': '# get\n', 'bin.py': Buffer.from([0, 1, 2, 0]) })
  let e = envelope(await call('replace_symbol', { path: 'a.py', symbol: 'gett', new_source: 'def gett(self): pass' }))
  assert.equal(e.error, 'no_match')
  assert.match(e.message, /^No definition of `gett` in a\.py\. Closest definitions: get \(a\.py:2\)/)
  e = envelope(await call('insert_symbol', { path: 'a.py', symbol: 'get', position: 'after', source: 'def x(self): pass' }))
  assert.equal(e.error, 'ambiguous_match')
  assert.match(e.message, /a\.py:2 method A\.get/)
  assert.match(e.message, /a\.py:6 method B\.get/)
  assert.deepEqual(e.matches, ['a.py:2', 'a.py:6'])
  const bad = [
    [{ path: 'a.py', symbol: 'get()', new_source: 'x' }, 'invalid_input'],
    [{ path: 'a.py', symbol: '', new_source: 'x' }, 'invalid_input'],
    [{ path: 'a.py', symbol: 'A.get', new_source: '  \n' }, 'invalid_input'],
    [{ path: 'notes.md', symbol: 'get', new_source: 'x' }, 'invalid_input'],
    [{ path: 'bin.py', symbol: 'get', new_source: 'x' }, 'is_binary'],
    [{ path: 'nope.py', symbol: 'get', new_source: 'x' }, 'not_found'],
    [{ path: '../x.py', symbol: 'get', new_source: 'x' }, 'path_escape'],
  ]
  for (const [args, code] of bad) assert.equal(envelope(await call('replace_symbol', args)).error, code, JSON.stringify(args))
  e = envelope(await call('insert_symbol', { path: 'a.py', symbol: 'A.get', position: 'inside', source: 'x' }))
  assert.equal(e.error, 'invalid_input')
  assert.equal(disk(root, 'a.py'), py)
})

test('the syntax warning when the result no longer parses; an identical source writes nothing', async () => {
  const { root, call } = latest({ 'a.ts': 'function f() {\n  return 1\n}\n' })
  const same = await call('replace_symbol', { path: 'a.ts', symbol: 'f', new_source: 'function f() {\n  return 1\n}' })
  assert.equal(same.text, 'function `f` in a.ts already reads as new_source: nothing written.')
  assert.ok(!('meta' in same))
  const r = await call('replace_symbol', { path: 'a.ts', symbol: 'f', new_source: 'function f( {\n  return 1\n}' })
  assert.match(r.text, /\nwarning: typescript syntax error in a\.ts at line 1/)
  assert.equal(disk(root, 'a.ts'), 'function f( {\n  return 1\n}\n')
})

test('checkpoints record the edits; the guard sees the path; write scope and readOnly apply', async () => {
  const denied = []
  const { root, tools, call } = latest({ 'src/a.rs': 'fn a() {}\n', 'lib/b.rs': 'fn b() {}\n' }, {
    writeScope: ['src'],
    guard: (ctx) => {
      if (ctx.paths.some((p) => p.raw.includes('secret'))) {
        denied.push(ctx.tool)
        return { verdict: 'deny', reason: 'no secrets' }
      }
      return { verdict: 'allow' }
    },
  })
  const id = tools.checkpoint('start')
  assert.equal((await call('replace_symbol', { path: 'src/a.rs', symbol: 'a', new_source: 'fn a() { 1; }' })).isError, false)
  assert.equal((await call('insert_symbol', { path: 'src/a.rs', symbol: 'a', position: 'after', source: 'fn c() {}' })).isError, false)
  assert.equal(disk(root, 'src/a.rs'), 'fn a() { 1; }\n\nfn c() {}\n')
  await tools.restore(id)
  assert.equal(disk(root, 'src/a.rs'), 'fn a() {}\n')
  assert.match(envelope(await call('replace_symbol', { path: 'lib/b.rs', symbol: 'b', new_source: 'fn b() { 2; }' })).message, /outside the write scope/)
  assert.deepEqual(envelope(await call('replace_symbol', { path: 'src/secret.rs', symbol: 'b', new_source: 'fn b() {}' })), { error: 'denied', message: 'no secrets' })
  assert.deepEqual(denied, ['replace_symbol'])
  const ro = latest({}, { readOnly: true }).tools.listTools().map((t) => t.name)
  assert.ok(!ro.includes('replace_symbol') && !ro.includes('insert_symbol'))
})

test('staleWrites: refuse — a definition is replaced only when its lines were read as they are', async () => {
  const src = 'def a():\n    return 1\n\n\ndef b():\n    return 2\n'
  const { root, call } = latest({ 'm.py': src }, { staleWrites: 'refuse' })
  let e = envelope(await call('replace_symbol', { path: 'm.py', symbol: 'b', new_source: 'def b():\n    return 3\n' }))
  assert.equal(e.error, 'stale_write')
  assert.match(e.message, /^function `b` \(m\.py:5-6\) has not been read yet/)
  await call('read_file', { path: 'm.py', offset: 5, limit: 2 })
  assert.equal((await call('replace_symbol', { path: 'm.py', symbol: 'b', new_source: 'def b():\n    return 3\n' })).isError, false)
  // Our own write counts as seen; a change by someone else does not.
  fs.writeFileSync(path.join(root, 'm.py'), disk(root, 'm.py').replace('return 1', 'return 9'))
  e = envelope(await call('replace_symbol', { path: 'm.py', symbol: 'b', new_source: 'def b():\n    return 4\n' }))
  assert.equal(e.error, 'stale_write')
  assert.equal(disk(root, 'm.py'), 'def a():\n    return 9\n\n\ndef b():\n    return 3\n')
  // insert_symbol adds lines and is not checked.
  assert.equal((await call('insert_symbol', { path: 'm.py', symbol: 'b', position: 'after', source: 'def c():\n    pass' })).isError, false)
})

test('titles', () => {
  const { tools } = latest()
  assert.equal(tools.describeCall('replace_symbol', { path: 'src/a.ts', symbol: 'Config.load' }), 'Replace "Config.load" in src/a.ts')
  assert.equal(tools.describeCall('insert_symbol', { path: 'src/a.ts', symbol: 'load', position: 'before' }), 'Insert before "load" in src/a.ts')
})
