// The symbol index (issue 29): symbols kept beside the trigram postings, persisted in
// .clarvis/index/symbols.idx, never stale. Every answer with the index equals the answer
// without it (searchIndex "off": candidates by a literal scan, parsed on demand) after writes
// by our tools, by other processes, a git checkout, and a restart of the host.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { createAgentTools } from '../index.mjs'
import { latest, eventually, age, gitIn } from './helpers.mjs'

const unixOnly = { skip: process.platform === 'win32' && 'the search index is Unix only' }
const hasGit = spawnSync('git', ['--version']).status === 0
const text = (r) => r.content.map((p) => p.text).join('')

function tree() {
  const files = {}
  for (let i = 0; i < 60; i++) {
    files[`pkg${i % 4}/mod${i}.ts`] = `import { shared } from '../core'\nexport function fn${i}(x: number): number {\n  return shared(x) + ${i}\n}\n`
    files[`py/m${i}.py`] = `from core import shared\n\ndef py_fn${i}(x):\n    return shared(x)\n`
  }
  files['core.ts'] = 'export function shared(x: number): number {\n  return x\n}\nexport class Store {\n  load(): void {}\n}\n'
  files['lib.rs'] = 'pub struct Config { port: u16 }\nimpl Config {\n    pub fn load() -> Config { Config { port: 1 } }\n}\n'
  files['README.md'] = 'shared is documented here\n'
  // Uses `shared` and does not parse: the notes name it. `usedOnly` is called, never defined.
  files['broken.ts'] = 'export function brokenUser() {\n  return shared(\n}\n'
  files['use.ts'] = 'usedOnly(1)\n'
  return files
}

/** The status once the postings and the symbol table are ready (waited for, not timed). */
const symbolsReady = (tools) =>
  eventually(() => {
    const s = tools.searchIndexStatus()
    return s.state === 'ready' && s.symbols.state === 'ready' && s
  }, 'the symbol index is ready')

const QUERIES = [
  ['find_symbol', { name: 'shared' }],
  ['find_symbol', { name: 'fn1', match: 'prefix' }],
  ['find_symbol', { name: 'Config.load' }],
  ['find_symbol', { name: 'Fresh' }],
  ['find_symbol', { name: 'py_fn', match: 'substring', glob: '*.py' }],
  ['find_references', { name: 'shared' }],
  ['find_references', { name: 'Fresh', path: 'pkg1' }],
  ['find_symbol', { name: 'usedOnly' }],
  ['find_references', { name: 'usedOnly' }],
  ['repo_map', {}],
  ['repo_map', { path: 'pkg1' }],
  ['repo_map', { path: 'core.ts' }],
  ['repo_map', { glob: '*.py', max_bytes: 400 }],
]

/** Every query answers as without the index. */
async function same(w, off, note) {
  for (const [tool, args] of QUERIES) {
    assert.equal(text(await w.call(tool, args)), text(await off.callTool(tool, args)), `${note}: ${tool} ${JSON.stringify(args)}`)
  }
}

test('the symbol index is built after the postings, persisted, and answers as the scan', unixOnly, async () => {
  const w = latest(tree(), { searchIndex: 'on' })
  age(w.root)
  const off = createAgentTools({ workspaceRoot: w.root, searchIndex: 'off' })
  // Without the index yet: answered by the scan (which starts the build).
  assert.match(text(await w.call('find_symbol', { name: 'shared' })), /^core\.ts:1:17  function  shared/)
  const s = await symbolsReady(w.tools)
  assert.equal(s.symbols.files, s.files)
  assert.ok(s.symbols.bytes > 0)
  await eventually(() => fs.existsSync(path.join(w.root, '.clarvis/index/symbols.idx')), 'the table is written')
  await same(w, off, 'ready')
  // The index decodes only the records a query needs: the file with errors still counts for
  // the note, and a name without definitions is still found used.
  assert.match(text(await w.call('find_symbol', { name: 'shared' })), /syntax errors in broken\.ts/)
  assert.match(text(await w.call('find_symbol', { name: 'usedOnly' })), /`usedOnly` is used as code in 1 file/)

  // Writes by our tools.
  const ok = (r) => assert.ok(!r.isError, text(r))
  ok(await w.call('write_file', { path: 'pkg1/fresh.ts', content: 'export class Fresh {}\n' }))
  ok(await w.call('edit_file', { path: 'core.ts', old_string: 'export function shared(x: number): number {', new_string: 'export function renamed(x: number): number {' }))
  ok(await w.call('replace_symbol', { path: 'lib.rs', symbol: 'Config.load', new_source: 'fn load() -> Config { Config { port: Fresh } }' }))
  await same(w, off, 'after our writes')
  assert.match(text(await w.call('find_symbol', { name: 'Fresh' })), /^pkg1\/fresh\.ts:1:14  class  Fresh/)
  assert.match(text(await w.call('find_symbol', { name: 'shared' })), /^\(no definition of `shared` found\)/)

  // Writes by other processes: in place, a new file, a deletion, a rename.
  fs.writeFileSync(path.join(w.root, 'core.ts'), 'export function shared(x: number): number {\n  return Fresh\n}\n')
  fs.writeFileSync(path.join(w.root, 'pkg2/other.ts'), 'export const Fresh = 1\n')
  fs.rmSync(path.join(w.root, 'pkg1/fresh.ts'))
  fs.renameSync(path.join(w.root, 'py/m3.py'), path.join(w.root, 'py/moved.py'))
  const child = spawnSync(process.execPath, ['-e', `require('fs').appendFileSync(${JSON.stringify(path.join(w.root, 'pkg1/mod1.ts'))}, 'function Fresh() {}\\n')`])
  assert.equal(child.status, 0)
  await same(w, off, 'after other processes')
  assert.equal(text(await w.call('find_symbol', { name: 'Fresh' })).split('\n').length, 2)
  assert.equal(w.tools.searchIndexStatus().symbols.state, 'ready')
})

test('a restart loads the persisted table; files changed meanwhile are parsed again', unixOnly, async () => {
  const w = latest(tree(), { searchIndex: 'on' })
  age(w.root)
  await w.call('find_symbol', { name: 'shared' })
  await symbolsReady(w.tools)
  const table = path.join(w.root, '.clarvis/index/symbols.idx')
  await eventually(() => fs.existsSync(table), 'the table is written')
  const written = fs.readFileSync(table)
  // While the host is down: a file changes, one appears, one goes.
  fs.writeFileSync(path.join(w.root, 'pkg0/mod0.ts'), 'export function afterRestart() {}\n')
  fs.writeFileSync(path.join(w.root, 'new.py'), 'def shared():\n    pass\n')
  fs.rmSync(path.join(w.root, 'lib.rs'))
  const again = createAgentTools({ workspaceRoot: w.root, searchIndex: 'on' })
  const off = createAgentTools({ workspaceRoot: w.root, searchIndex: 'off' })
  await again.callTool('find_symbol', { name: 'shared' })
  await symbolsReady(again)
  assert.deepEqual(fs.readFileSync(table), written, 'the persisted table was used, not rebuilt')
  await same({ call: (t, a) => again.callTool(t, a) }, off, 'after a restart')
  assert.match(text(await again.callTool('find_symbol', { name: 'afterRestart' })), /^pkg0\/mod0\.ts:1:17  function/)
  assert.match(text(await again.callTool('find_symbol', { name: 'Config' })), /^\(no definition/)
})

test('git checkout between branches: the symbols are the checked-out ones', { skip: (!hasGit && 'no git') || unixOnly.skip }, async () => {
  const w = latest(tree(), { searchIndex: 'on' })
  const git = gitIn(w.root, { init: true })
  git('checkout', '-q', '-b', 'other')
  for (let i = 0; i < 60; i += 3) fs.appendFileSync(path.join(w.root, `pkg${i % 4}/mod${i}.ts`), `export function Fresh${i}() {}\n`)
  fs.rmSync(path.join(w.root, 'py'), { recursive: true })
  fs.mkdirSync(path.join(w.root, 'pkg1/deep'), { recursive: true })
  fs.writeFileSync(path.join(w.root, 'pkg1/deep/Fresh.ts'), 'export class Fresh {}\n')
  git('add', '-A')
  git('commit', '-q', '-m', 'other')
  git('checkout', '-q', 'main')
  age(w.root)
  await w.call('find_symbol', { name: 'shared' })
  await symbolsReady(w.tools)
  const off = createAgentTools({ workspaceRoot: w.root, searchIndex: 'off' })
  for (let round = 0; round < 2; round++) {
    git('checkout', '-q', 'other')
    await same(w, off, `other, round ${round}`)
    assert.equal(text(await w.call('find_symbol', { name: 'Fresh', match: 'prefix' })).split('\n').length, 21)
    git('checkout', '-q', 'main')
    await same(w, off, `main, round ${round}`)
    assert.match(text(await w.call('find_symbol', { name: 'Fresh', match: 'prefix' })), /^\(no definition/)
  }
})

test('searchIndex "off": no symbol table, the tools answer as before', unixOnly, async () => {
  const w = latest(tree(), { searchIndex: 'off' })
  assert.match(text(await w.call('find_symbol', { name: 'shared' })), /^core\.ts:1:17  function  shared/)
  assert.equal(w.tools.searchIndexStatus().symbols.state, 'off')
  assert.equal(fs.existsSync(path.join(w.root, '.clarvis/index')), false)
})

test('repo_map: the ranking is kept per image and persisted; a write by the tools or by another process shows at once', unixOnly, async () => {
  const w = latest(tree(), { searchIndex: 'on' })
  age(w.root)
  const off = createAgentTools({ workspaceRoot: w.root, searchIndex: 'off' })
  await w.call('find_symbol', { name: 'shared' })
  await symbolsReady(w.tools)
  const before = text(await w.call('repo_map', {}))
  assert.match(before, /^core\.ts\n {2}1: export function shared/)
  assert.equal(before, text(await off.callTool('repo_map', {})))
  const persisted = path.join(w.root, '.clarvis/index/repomap.idx')
  await eventually(() => fs.existsSync(persisted), 'the ranking is written beside symbols.idx')

  // Our write, then the map at once.
  const ok = (r) => assert.ok(!r.isError, text(r))
  ok(await w.call('write_file', { path: 'pkg3/usesStore.ts', content: "import { Store } from '../core'\nexport function makeStore() { return new Store() }\n" }))
  const ours = text(await w.call('repo_map', {}))
  assert.match(ours, /^pkg3\/usesStore\.ts\n {2}2: export function makeStore\(\) \{ return new Store\(\) \}$/m)
  assert.equal(ours, text(await off.callTool('repo_map', {})))
  // Another process's write, then the map at once.
  const child = spawnSync(process.execPath, ['-e', `require('fs').writeFileSync(${JSON.stringify(path.join(w.root, 'core.ts'))}, 'export function shared(x: number): number {\\n  return x\\n}\\nexport function byAnother() {}\\n')`])
  assert.equal(child.status, 0)
  const theirs = text(await w.call('repo_map', {}))
  assert.match(theirs, /^ {2}4: export function byAnother\(\) \{\}$/m)
  assert.doesNotMatch(theirs, /class Store/)
  assert.equal(theirs, text(await off.callTool('repo_map', {})))

  // A restart (the ranking is loaded from disk: src/symbols/repomap/tests.rs checks that)
  // still shows the changes.
  const again = createAgentTools({ workspaceRoot: w.root, searchIndex: 'on' })
  await again.callTool('find_symbol', { name: 'shared' })
  await symbolsReady(again)
  assert.equal(text(await again.callTool('repo_map', {})), theirs)
})
