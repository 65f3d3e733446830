// Checkpoints through the public API: record what the tools change, list it with diffs,
// restore it byte for byte (modes included), refuse to clobber outside edits, and keep two
// tools objects' checkpoint sets apart.
import test from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { createAgentTools, ToolError, StartupError } from '../index.mjs'
import { latest, scratch } from './helpers.mjs'
import { native, noSh } from './platform.mjs'

function tree(root) {
  const out = {}
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name)
      const rel = path.relative(root, p)
      if (rel === '.clarvis' || rel.startsWith('.clarvis' + path.sep)) continue
      if (e.isDirectory()) {
        out[rel + '/'] = fs.statSync(p).mode & 0o7777
        walk(p)
      } else out[rel] = [fs.readFileSync(p, 'latin1'), fs.statSync(p).mode & 0o7777]
    }
  }
  walk(root)
  return out
}

test('every mutating tool is recorded; restore puts the workspace back byte for byte', async () => {
  const { root, tools, call } = latest({ 'a.txt': 'one\r\ntwo\r\n', 'b.txt': 'keep\n', 'gone.txt': 'bye\n' })
  fs.chmodSync(path.join(root, 'b.txt'), 0o750)
  const before = tree(root)
  const id = tools.checkpoint('start')
  assert.match(id, /^cp_\d+$/)
  assert.equal((await call('edit_file', { path: 'a.txt', old_string: 'two', new_string: 'TWO' })).isError, false)
  assert.equal((await call('write_file', { path: 'new/c.txt', content: 'c\n' })).isError, false)
  assert.equal((await call('multi_edit', { path: 'b.txt', edits: [{ old_string: 'keep', new_string: 'kept' }] })).isError, false)
  const patch = '--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n'
  assert.equal((await call('apply_patch', { patch })).isError, false)
  const changes = await tools.changes(id)
  assert.deepEqual(changes.map((c) => [c.path, c.kind]), [
    ['a.txt', 'modified'],
    ['b.txt', 'modified'],
    ['gone.txt', 'deleted'],
    [native('new/c.txt'), 'created'],
  ])
  assert.match(changes[0].diff, /^Index: a\.txt\n={67}\n--- a\.txt\n\+\+\+ a\.txt\n@@ /)
  assert.match(changes[0].diff, /\n-two\r?\n\+TWO\r?\n/)
  const report = await tools.restore(id)
  assert.deepEqual(report.conflicts, [])
  assert.equal(report.restored.length, 4)
  fs.rmdirSync(path.join(root, 'new'))
  assert.deepEqual(tree(root), before)
  assert.deepEqual(await tools.changes(id), [])
})

test('a file edited outside the tools is a conflict, left alone unless force', async () => {
  const { root, tools, call } = latest({ 'a.txt': 'a\n', 'b.txt': 'b\n' })
  const id = tools.checkpoint()
  await call('write_file', { path: 'a.txt', content: 'A\n' })
  await call('write_file', { path: 'b.txt', content: 'B\n' })
  fs.writeFileSync(path.join(root, 'a.txt'), 'by hand, longer\n')
  const r = await tools.restore(id)
  assert.deepEqual(r.restored, [{ path: 'b.txt', kind: 'modified' }])
  assert.equal(r.conflicts.length, 1)
  assert.equal(r.conflicts[0].path, 'a.txt')
  assert.match(r.conflicts[0].reason, /changed outside the tools/)
  assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'by hand, longer\n')
  const forced = await tools.restore(id, { force: true, paths: ['a.txt'] })
  assert.deepEqual(forced.restored, [{ path: 'a.txt', kind: 'modified' }])
  assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'a\n')
})

test('two tools objects on one workspace keep separate checkpoint sets', async () => {
  const { root, tools } = latest({ 'a.txt': 'a\n' })
  const other = createAgentTools({ workspaceRoot: root })
  const id = tools.checkpoint()
  await other.callTool('write_file', { path: 'a.txt', content: 'other\n' })
  assert.deepEqual(await tools.changes(id), [], 'the other object’s write is not this one’s change')
  await assert.rejects(other.changes(id), (e) => e instanceof ToolError && e.code === 'not_found')
  assert.deepEqual(other.checkpoints(), [])
  assert.equal(tools.checkpoints().length, 1)
})

test('bad input: unknown ids, a zero budget, a changed shape', async () => {
  const { root, tools, call } = latest({ 'a.txt': 'a\n' })
  await assert.rejects(tools.restore('cp_404'), (e) => {
    assert.ok(e instanceof ToolError)
    assert.equal(e.code, 'not_found')
    assert.equal(e.message, 'No such checkpoint: cp_404')
    return true
  })
  assert.throws(() => tools.dropCheckpoint('cp_404'), ToolError)
  const zero = createAgentTools({ workspaceRoot: scratch(), checkpointBytes: 0 })
  assert.throws(() => zero.checkpoint(), (e) => e instanceof ToolError && e.code === 'invalid_input')
  assert.throws(() => createAgentTools({ workspaceRoot: root, checkpointBytes: -1 }), StartupError)
  const id = tools.checkpoint()
  await call('write_file', { path: 'a.txt', content: 'b\n' })
  await call('write_file', { path: 'x/y.txt', content: 'y\n' })
  fs.rmSync(path.join(root, 'a.txt'))
  fs.mkdirSync(path.join(root, 'a.txt'))
  await assert.rejects(tools.restore(id, { force: true }), (e) => e.code === 'invalid_input' && /is a directory now/.test(e.message))
  assert.equal(fs.readFileSync(path.join(root, 'x/y.txt'), 'utf8'), 'y\n', 'nothing was restored')
  tools.dropCheckpoint(id)
  assert.deepEqual(tools.checkpoints(), [])
})

test('a checkpoint costs nothing until a file changes; contents live under .clarvis/checkpoints', async () => {
  const { root, tools, call } = latest({ 'a.txt': 'a\n' })
  tools.checkpoint()
  assert.equal(fs.existsSync(path.join(root, '.clarvis/checkpoints')), false)
  await call('write_file', { path: 'a.txt', content: 'b\n' })
  const stores = fs.readdirSync(path.join(root, '.clarvis/checkpoints'))
  assert.equal(stores.length, 1)
  assert.equal(fs.readdirSync(path.join(root, '.clarvis/checkpoints', stores[0], 'objects')).length, 1)
  assert.equal(fs.readFileSync(path.join(root, '.clarvis/.gitignore'), 'utf8'), '*\n')
  const g = await call('grep', { pattern: 'a', path: '.' })
  assert.ok(!g.text.includes('.clarvis'), 'the ignore policy hides the store')
})

test('a live checkpoint store does not keep the workspace from being deleted', async () => {
  // On Windows a directory some process holds open cannot be removed: the store must not
  // keep its objects directory open between calls (Wine left it behind, ENOTEMPTY).
  const { root, tools, call } = latest({ 'a.txt': 'a\n' })
  const id = tools.checkpoint()
  await call('write_file', { path: 'a.txt', content: 'b\n' })
  assert.equal((await tools.changes(id)).length, 1)
  fs.rmSync(root, { recursive: true })
  assert.equal(fs.existsSync(root), false, 'the workspace is gone')
})

test('checkpointBash: what a command creates, changes and deletes is recorded and restored', { skip: noSh }, async () => {
  const files = { 'a.txt': 'a\n', 'b.txt': 'b\n', 'ignored/x.log': 'x\n', '.gitignore': 'ignored/\n' }
  const { root, tools, call } = latest(files, { checkpointBash: true })
  assert.equal(tools.config.checkpointBash, true)
  const id = tools.checkpoint()
  const r = await call('bash', { command: 'echo A > a.txt; rm b.txt; echo c > c.txt; echo y > ignored/x.log' })
  assert.equal(JSON.parse(r.text).exit_code, 0)
  const changes = await tools.changes(id)
  assert.deepEqual(changes.map((c) => [c.path, c.kind]), [
    ['a.txt', 'modified'],
    ['b.txt', 'deleted'],
    ['c.txt', 'created'],
  ])
  const report = await tools.restore(id)
  assert.deepEqual(report.conflicts, [])
  assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'a\n')
  assert.equal(fs.readFileSync(path.join(root, 'b.txt'), 'utf8'), 'b\n')
  assert.equal(fs.existsSync(path.join(root, 'c.txt')), false)
})

test('checkpointBash: content over the budget is reported as unrecoverable, never silently skipped', { skip: noSh }, async () => {
  const big = 'z'.repeat(4096) + '\n'
  const { root, tools, call } = latest({ 'big.txt': big, 'small.txt': 's\n' }, { checkpointBash: true, checkpointBytes: 1024 })
  const id = tools.checkpoint()
  await call('bash', { command: 'echo changed > big.txt; echo t > small.txt' })
  const report = await tools.restore(id)
  assert.deepEqual(report.restored, [{ path: 'small.txt', kind: 'modified' }])
  assert.equal(report.conflicts.length, 1)
  assert.equal(report.conflicts[0].path, 'big.txt')
  assert.match(report.conflicts[0].reason, /unrecoverable/)
  assert.equal(fs.readFileSync(path.join(root, 'big.txt'), 'utf8'), 'changed\n')
})

test('without checkpointBash a command’s changes are outside changes', { skip: noSh }, async () => {
  const { root, tools, call } = latest({ 'a.txt': 'a\n' })
  const id = tools.checkpoint()
  await call('write_file', { path: 'a.txt', content: 'tool\n' })
  await call('bash', { command: 'echo shell > a.txt' })
  const r = await tools.restore(id)
  assert.equal(r.conflicts.length, 1)
  assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'shell\n')
})
