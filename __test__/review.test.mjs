// Review mode through the public API (SPEC §13): the file tools stage, the reads see the
// staged tree, the host accepts or rejects per file, conflicts are reported and never
// clobbered, a symlink swapped in is never written through, scopes are isolated and persisted.
import test from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { createAgentTools, ToolError } from '../index.mjs'
import { scratch, envelope } from './helpers.mjs'
import { ws, tree as filesUnder } from './review-helpers.mjs'
import { noSh, slash, windows } from './platform.mjs'

const CLAUSE = ' (Staged for review: the change reaches disk when the host accepts it.)'

const tree = (root) => filesUnder(root, { modes: true })

const FILES = {
  'src/a.js': 'function a() {\n  return 1\n}\n',
  'src/b.js': 'const b = "old"\nconst c = "old"\n',
  'notes.txt': 'one\r\ntwo\r\n',
  'gone.txt': 'bye\n',
  'old/name.txt': 'moving\n',
}

// One task, as a model would run it: each step reads what the previous ones did.
async function task(tools) {
  const call = async (name, args) => {
    const r = await tools.callTool(name, args)
    assert.equal(r.isError, false, `${name}: ${r.text}`)
    return r
  }
  const results = []
  results.push(await call('edit_file', { path: 'src/a.js', old_string: 'return 1', new_string: 'return 2' }))
  // The agent sees its own work.
  const read = await call('read_file', { path: 'src/a.js' })
  assert.match(read.text, /return 2/)
  results.push(await call('write_file', { path: 'lib/new/c.js', content: 'export const c = 3\n' }))
  results.push(await call('multi_edit', { path: 'src/b.js', edits: [{ old_string: 'const b = "old"', new_string: 'const b = "new"' }] }))
  results.push(
    await call('apply_patch', {
      patch: '*** Begin Patch\n*** Update File: notes.txt\n@@\n-two\n+three\n*** Delete File: gone.txt\n*** End Patch',
    }),
  )
  results.push(await call('move', { source: 'old/name.txt', destination: 'new/name.txt' }))
  results.push(await call('copy', { source: 'lib/new/c.js', destination: 'lib/new/d.js' }))
  results.push(await call('edit_file', { path: 'lib/new/d.js', old_string: 'c = 3', new_string: 'd = 4' }))
  results.push(await call('replace', { pattern: '"old"', replacement: '"older"', path: 'src/b.js', dry_run: false }))
  // grep reads the staged bytes and skips what is staged deleted.
  assert.match(slash((await call('grep', { pattern: 'return 2' })).text), /src\/a\.js/)
  assert.doesNotMatch((await call('grep', { pattern: 'bye' })).text, /gone\.txt/)
  // A deleted file is gone for the reads, a created one is there.
  assert.equal((await tools.callTool('read_file', { path: 'gone.txt' })).isError, true)
  assert.match((await call('read_files', { paths: ['lib/new/d.js', 'new/name.txt'] })).text, /d = 4[\s\S]*moving/)
  assert.match((await call('file_stat', { path: 'lib/new/c.js' })).text, /"type":"file"/)
  return results
}

test('a multi-step task in review mode ends, after accept, with the bytes of direct mode', async () => {
  const direct = ws(FILES)
  const staged = ws(FILES)
  const d = await task(createAgentTools({ workspaceRoot: direct }))
  const before = tree(staged)
  const tools = createAgentTools({ workspaceRoot: staged, review: true })
  const s = await task(tools)
  // Nothing reached the disk, no directory was made.
  assert.deepEqual(tree(staged), before)
  assert.equal(fs.existsSync(path.join(staged, 'lib')), false)
  // Each result is direct mode's plus one clause; meta.diff is unchanged.
  for (let i = 0; i < d.length; i++) {
    assert.equal(s[i].text, d[i].text + CLAUSE)
    assert.deepEqual(s[i].meta, d[i].meta)
  }
  const pending = await tools.pending()
  assert.deepEqual(
    pending.map((c) => [c.path, c.kind, c.from]),
    [
      ['gone.txt', 'deleted', undefined],
      ['lib/new/c.js', 'created', undefined],
      ['lib/new/d.js', 'created', undefined],
      ['new/name.txt', 'moved', 'old/name.txt'],
      ['notes.txt', 'modified', undefined],
      ['src/a.js', 'modified', undefined],
      ['src/b.js', 'modified', undefined],
    ],
  )
  assert.match(pending.find((c) => c.path === 'src/a.js').diff, /-  return 1\n\+  return 2/)
  const report = await tools.accept()
  assert.deepEqual(report.conflicts, [])
  assert.equal(report.accepted.length, 7)
  assert.deepEqual(tree(staged), tree(direct))
  assert.deepEqual(await tools.pending(), [])
})

test('per-file accept and reject; the rest stays pending and visible', async () => {
  const root = ws({ 'a.txt': 'a\n', 'b.txt': 'b\n' })
  const tools = createAgentTools({ workspaceRoot: root, review: true })
  await tools.callTool('write_file', { path: 'a.txt', content: 'A\n' })
  await tools.callTool('write_file', { path: 'b.txt', content: 'B\n' })
  await tools.callTool('remove', { path: 'b.txt' })
  assert.deepEqual((await tools.accept(['a.txt'])).accepted, [{ path: 'a.txt', kind: 'modified' }])
  assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'A\n')
  assert.equal(fs.readFileSync(path.join(root, 'b.txt'), 'utf8'), 'b\n')
  assert.deepEqual((await tools.pending()).map((c) => [c.path, c.kind]), [['b.txt', 'deleted']])
  assert.equal((await tools.callTool('read_file', { path: 'b.txt' })).isError, true)
  assert.deepEqual(await tools.reject(['b.txt']), { rejected: ['b.txt'] })
  assert.match((await tools.callTool('read_file', { path: 'b.txt' })).text, /b/)
  // A path with nothing staged is a ToolError, not a silent no-op.
  await assert.rejects(tools.accept(['nothing.txt']), (e) => e instanceof ToolError && e.code === 'not_found')
})

test('a file changed on disk since staging is a conflict: nothing is applied unless forced', async () => {
  const root = ws({ 'a.txt': 'a\n', 'b.txt': 'b\n' })
  const tools = createAgentTools({ workspaceRoot: root, review: true })
  await tools.callTool('write_file', { path: 'a.txt', content: 'A\n' })
  await tools.callTool('write_file', { path: 'b.txt', content: 'B\n' })
  fs.writeFileSync(path.join(root, 'a.txt'), 'user edit\n')
  const r = await tools.accept()
  assert.deepEqual(r, { accepted: [], conflicts: [{ path: 'a.txt', reason: 'changed on disk since it was staged' }] })
  // All or nothing: b.txt was not applied either.
  assert.equal(fs.readFileSync(path.join(root, 'b.txt'), 'utf8'), 'b\n')
  const forced = await tools.accept(undefined, { force: true })
  assert.equal(forced.accepted.length, 2)
  assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'A\n')
})

test('a staged file replaced by a symlink is a conflict, never a write through the link', { skip: windows && 'symlinks need a privilege on Windows' }, async () => {
  const root = ws({ 'a.txt': 'a\n' })
  const outside = scratch('review-out-')
  fs.writeFileSync(path.join(outside, 'secret'), 'keep\n')
  const tools = createAgentTools({ workspaceRoot: root, review: true })
  await tools.callTool('write_file', { path: 'a.txt', content: 'A\n' })
  fs.rmSync(path.join(root, 'a.txt'))
  fs.symlinkSync(path.join(outside, 'secret'), path.join(root, 'a.txt'))
  for (const force of [false, true]) {
    const r = await tools.accept(undefined, { force })
    assert.deepEqual(r.accepted, [])
    assert.equal(r.conflicts[0].path, 'a.txt')
    assert.match(r.conflicts[0].reason, /symlink/)
  }
  assert.equal(fs.readFileSync(path.join(outside, 'secret'), 'utf8'), 'keep\n')
  assert.equal(fs.lstatSync(path.join(root, 'a.txt')).isSymbolicLink(), true)
})

test('scopes stage independently, persist across tools objects, and the second accept of a path conflicts', async () => {
  const root = ws({ 'a.txt': 'a\n' })
  const one = createAgentTools({ workspaceRoot: root, review: { scope: 'one' } })
  const two = createAgentTools({ workspaceRoot: root, review: { scope: 'two' } })
  await one.callTool('write_file', { path: 'a.txt', content: 'from one\n' })
  await two.callTool('write_file', { path: 'a.txt', content: 'from two\n' })
  await one.callTool('write_file', { path: 'only-one.txt', content: '1\n' })
  assert.match((await one.callTool('read_file', { path: 'a.txt' })).text, /from one/)
  assert.match((await two.callTool('read_file', { path: 'a.txt' })).text, /from two/)
  assert.equal((await two.callTool('read_file', { path: 'only-one.txt' })).isError, true)
  // A new tools object (a restarted host) finds scope one's changes.
  const again = createAgentTools({ workspaceRoot: root, review: { scope: 'one' } })
  assert.deepEqual((await again.pending()).map((c) => c.path), ['a.txt', 'only-one.txt'])
  assert.equal((await again.accept()).accepted.length, 2)
  assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'from one\n')
  const second = await two.accept()
  assert.deepEqual(second.conflicts, [{ path: 'a.txt', reason: 'changed on disk since it was staged' }])
  assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'from one\n')
  assert.ok(fs.existsSync(path.join(root, '.clarvis/review/two/manifest.json')))
})

test('reviewBytes bounds the staging area with a clear error', async () => {
  const root = ws({})
  const tools = createAgentTools({ workspaceRoot: root, review: true, reviewBytes: 10 })
  assert.equal((await tools.callTool('write_file', { path: 'a', content: '12345' })).isError, false)
  const e = envelope(await tools.callTool('write_file', { path: 'b', content: '1234567890' }))
  assert.equal(e.error, 'invalid_input')
  assert.match(e.message, /Review staging is full: .*reviewBytes 10/)
  assert.deepEqual((await tools.pending()).map((c) => c.path), ['a'])
})

test('commands are refused in review mode unless the host says direct; the guard is told', { skip: noSh }, async () => {
  const root = ws({ 'a.txt': 'a\n' })
  const seen = []
  const guard = (ctx) => {
    seen.push([ctx.tool, ctx.staged, ctx.review])
    return { verdict: 'allow' }
  }
  const tools = createAgentTools({ workspaceRoot: root, review: true, guard })
  const e = envelope(await tools.callTool('bash', { command: 'echo hi > b.txt' }))
  assert.equal(e.error, 'invalid_input')
  assert.match(e.message, /^bash is not available in review mode/)
  assert.equal(fs.existsSync(path.join(root, 'b.txt')), false)
  await tools.callTool('edit_file', { path: 'a.txt', old_string: 'a', new_string: 'b' })
  assert.deepEqual(seen.at(-1), ['edit_file', true, { scope: 'default', commands: 'refuse' }])
  const direct = createAgentTools({ workspaceRoot: root, review: { commands: 'direct' }, guard })
  const r = await direct.callTool('bash', { command: 'echo hi > b.txt' })
  assert.equal(r.isError, false, r.text)
  assert.deepEqual(seen.at(-1), ['bash', undefined, { scope: 'default', commands: 'direct' }])
  assert.equal(fs.readFileSync(path.join(root, 'b.txt'), 'utf8'), 'hi\n')
})

test('onPending hears each staged change; compat "0.1" keeps review off; without review, pending() throws', async () => {
  const root = ws({ 'a.txt': 'a\n' })
  const heard = []
  const tools = createAgentTools({ workspaceRoot: root, review: true, onPending: (c) => heard.push([c.path, c.kind]) })
  await tools.callTool('write_file', { path: 'a.txt', content: 'A\n' })
  await tools.callTool('read_file', { path: 'a.txt' })
  await tools.callTool('write_file', { path: 'n.txt', content: 'n\n' })
  assert.deepEqual(heard, [['a.txt', 'modified'], ['n.txt', 'created']])
  const old = createAgentTools({ workspaceRoot: root, compat: '0.1', review: true })
  const r = await old.callTool('write_file', { path: 'a.txt', content: 'direct\n' })
  assert.deepEqual(r, { isError: false, text: 'Wrote 7 bytes to a.txt (overwritten).' })
  assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'direct\n')
  await assert.rejects(createAgentTools({ workspaceRoot: root }).pending(), (e) => e instanceof ToolError && e.code === 'invalid_input')
})

test('the symbol edits stage like every writer: same result plus the clause, same meta.diff, disk untouched until accept', async () => {
  const FILES = {
    'src/a.ts': 'export function load(p: string) {\n  return x(p)\n}\n\nclass Config {\n  get(key: string) {\n    return key\n  }\n}\n',
    'a.py': 'class A:\n    def one(self):\n        return 1\n',
  }
  const run = async (tools) => {
    const out = []
    for (const [name, args] of [
      ['replace_symbol', { path: 'src/a.ts', symbol: 'load', new_source: 'function load(p: string) {\n  return x(p.trim())\n}\n' }],
      ['insert_symbol', { path: 'src/a.ts', symbol: 'Config.get', position: 'after', source: 'has(key: string) {\n  return true\n}' }],
      ['insert_symbol', { path: 'a.py', symbol: 'A.one', position: 'before', source: 'def zero(self):\n    return 0\n' }],
      // Each step sees the previous one: the inserted method is there to be replaced.
      ['replace_symbol', { path: 'src/a.ts', symbol: 'Config.has', new_source: 'has(key: string) {\n  return key.length > 0\n}' }],
    ]) {
      const r = await tools.callTool(name, args)
      assert.equal(r.isError, false, `${name}: ${r.text}`)
      out.push(r)
    }
    return out
  }
  const direct = ws(FILES)
  const staged = ws(FILES)
  const d = await run(createAgentTools({ workspaceRoot: direct }))
  const tools = createAgentTools({ workspaceRoot: staged, review: true })
  const s = await run(tools)
  assert.deepEqual(tree(staged), tree(ws(FILES)))
  for (let i = 0; i < d.length; i++) {
    assert.equal(s[i].text, d[i].text + CLAUSE)
    assert.deepEqual(s[i].meta, d[i].meta)
  }
  assert.deepEqual((await tools.pending()).map((c) => [c.path, c.kind]), [['a.py', 'modified'], ['src/a.ts', 'modified']])
  assert.equal((await tools.accept()).accepted.length, 2)
  assert.deepEqual(tree(staged), tree(direct))
})

test('bash sessions and terminal monitors are refused in review mode like bash; direct lets a session run', { skip: noSh }, async () => {
  const root = ws({ 'a.txt': 'a\n' })
  const tools = createAgentTools({ workspaceRoot: root, review: true })
  for (const [name, args] of [
    ['bash', { command: 'echo hi > s.txt', session: 'dev' }],
    ['monitor_start', { command: 'echo hi > m.txt' }],
    ['monitor_start', { command: 'sh', tty: true }],
    ['monitor_write', { id: 'm1', input: 'echo hi > w.txt\r' }],
  ]) {
    const e = envelope(await tools.callTool(name, args))
    assert.equal(e.error, 'invalid_input', name)
    assert.match(e.message, new RegExp(`^${name} is not available in review mode`))
  }
  assert.deepEqual(fs.readdirSync(root).filter((n) => n !== '.clarvis').sort(), ['a.txt'])
  const direct = createAgentTools({ workspaceRoot: root, review: { commands: 'direct' } })
  try {
    const r = await direct.callTool('bash', { command: 'echo hi > s.txt', session: 'dev' })
    assert.equal(r.isError, false, r.text)
    assert.equal(fs.readFileSync(path.join(root, 's.txt'), 'utf8'), 'hi\n')
  } finally {
    await direct.endShellSessions()
  }
})
