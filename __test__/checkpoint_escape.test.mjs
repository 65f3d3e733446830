// Checkpoint restore, MCP checkpoint_restore and `undo` are writers like any other: what a
// command plants between a checkpoint and its restore (the directory renamed away and
// replaced by a symlink to the outside, or moved out whole; a symlink into the workspace
// but out of the write scope) never lets them write, create, delete or read anything
// outside. The sentinel (a secret and a snapshot of everything outside the workspace) is
// the judge, as in escape.test.mjs.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { createAgentTools } from '../index.mjs'
import { createMcpServer } from '../mcp.mjs'
import { scratch } from './helpers.mjs'
import { snapshot, makeSentinel } from './sentinel.mjs'
import { native, noSymlinks, slash } from './platform.mjs'

/** base/ws (src/b.txt, src/c.txt; writeScope src) beside base/outside (the sentinel). */
function setup(options = {}) {
  const base = scratch('cat-ckpt-escape-')
  const root = path.join(base, 'ws')
  const outside = path.join(base, 'outside')
  fs.mkdirSync(path.join(root, 'src'), { recursive: true })
  fs.writeFileSync(path.join(root, 'src', 'b.txt'), 'b0\n')
  fs.writeFileSync(path.join(root, 'src', 'c.txt'), 'c0\n')
  const sentinel = makeSentinel(outside)
  for (const n of ['a.txt', 'b.txt', 'c.txt']) fs.writeFileSync(path.join(outside, n), `${sentinel.secret} ${n}\n`)
  const allow = ['write_file', 'edit_file', 'remove', 'read_file', 'undo']
  const tools = createAgentTools({ workspaceRoot: root, writeScope: ['src'], toolPolicy: { allow }, ...options })
  const outsideSnap = () => snapshot(base, (p) => p === root || p.startsWith(root + path.sep))
  const call = (name, args) => tools.callTool(name, args)
  return { base, root, outside, sentinel, tools, call, outsideSnap }
}

/** The three mutations a checkpoint records: a created, a modified and a deleted file. */
async function mutate(call) {
  for (const [tool, args] of [
    ['write_file', { path: 'src/a.txt', content: 'mine\n' }],
    ['edit_file', { path: 'src/b.txt', old_string: 'b0', new_string: 'b1' }],
    ['remove', { path: 'src/c.txt' }],
  ]) {
    const r = await call(tool, args)
    assert.equal(r.isError, false, `${tool}: ${r.text}`)
  }
}

test('the reproducer: src renamed away and made a symlink to the outside; restore refuses, force or not', { skip: noSymlinks }, async () => {
  const { root, outside, sentinel, tools, call, outsideSnap } = setup()
  const id = tools.checkpoint()
  await mutate(call)
  const before = outsideSnap()
  fs.renameSync(path.join(root, 'src'), path.join(root, 'src-away'))
  fs.symlinkSync(outside, path.join(root, 'src'))
  const changes = await tools.changes(id)
  assert.ok(!JSON.stringify(changes).includes(sentinel.secret), 'changes read the outside')
  const soft = await tools.restore(id)
  assert.deepEqual(soft.restored, [])
  assert.deepEqual(soft.conflicts.map((c) => c.path), ['src/a.txt', 'src/b.txt', 'src/c.txt'].map(native))
  await assert.rejects(tools.restore(id, { force: true }), (e) => {
    assert.equal(e.code, 'path_escape')
    assert.equal(slash(e.message), 'Restore refused; nothing was restored: Path escapes the workspace root: src/a.txt (set ALLOW_OUTSIDE_WORKSPACE=1 to permit)')
    return true
  })
  for (const only of ['src/a.txt', 'src/b.txt', 'src/c.txt']) {
    await assert.rejects(tools.restore(id, { force: true, paths: [only] }), (e) => e.code === 'path_escape', only)
  }
  assert.deepEqual(outsideSnap(), before, 'the outside changed')
  assert.equal(fs.readFileSync(path.join(root, 'src-away', 'a.txt'), 'utf8'), 'mine\n')
  // Put back, the same checkpoint restores as usual.
  fs.unlinkSync(path.join(root, 'src'))
  fs.renameSync(path.join(root, 'src-away'), path.join(root, 'src'))
  const r = await tools.restore(id)
  assert.deepEqual(r.conflicts, [])
  assert.deepEqual(r.restored.map((x) => [x.path, x.kind]), [[native('src/a.txt'), 'created'], [native('src/b.txt'), 'modified'], [native('src/c.txt'), 'deleted']])
  assert.equal(fs.readFileSync(path.join(root, 'src', 'c.txt'), 'utf8'), 'c0\n')
})

test('undo after the directory was moved out of the workspace and linked back: refused, nothing outside changes', { skip: noSymlinks }, async () => {
  const { base, root, call, outsideSnap } = setup()
  await call('write_file', { path: 'src/a.txt', content: 'first\n' })
  await call('write_file', { path: 'src/a.txt', content: 'second\n' })
  // The very inode the tools wrote, now outside: to a metadata check it is "unchanged".
  const moved = path.join(base, 'outside', 'moved-src')
  fs.renameSync(path.join(root, 'src'), moved)
  fs.symlinkSync(moved, path.join(root, 'src'))
  const before = outsideSnap()
  const r = await call('undo', {})
  assert.equal(r.isError, true, r.text)
  const env = JSON.parse(r.text)
  assert.equal(env.error, 'path_escape')
  assert.match(slash(env.message), /^Restore refused; nothing was restored: Path escapes the workspace root: src\/a\.txt/)
  assert.deepEqual(outsideSnap(), before, 'undo wrote outside')
  assert.equal(fs.readFileSync(path.join(moved, 'a.txt'), 'utf8'), 'second\n')
})

test('undo and restore through a symlink that stays inside the workspace but leaves the write scope: refused', { skip: noSymlinks }, async () => {
  const { root, tools, call } = setup()
  const id = tools.checkpoint()
  await call('write_file', { path: 'src/a.txt', content: 'one\n' })
  await call('write_file', { path: 'src/a.txt', content: 'two\n' })
  fs.renameSync(path.join(root, 'src'), path.join(root, 'elsewhere'))
  fs.symlinkSync(path.join(root, 'elsewhere'), path.join(root, 'src'))
  const r = await call('undo', {})
  assert.equal(JSON.parse(r.text).error, 'path_escape', r.text)
  assert.match(slash(JSON.parse(r.text).message), /Path is outside the write scope: src\/a\.txt \(writeScope: src\)/)
  await assert.rejects(tools.restore(id), (e) => e.code === 'path_escape' && /outside the write scope/.test(e.message))
  assert.equal(fs.readFileSync(path.join(root, 'elsewhere', 'a.txt'), 'utf8'), 'two\n')
})

test('MCP checkpoint_restore refuses the same way, as an error result', { skip: noSymlinks }, async (t) => {
  const allow = ['write_file', 'edit_file', 'remove', 'read_file', 'checkpoint_create', 'checkpoint_restore']
  const { root, outside, tools, call, outsideSnap } = setup({ checkpointTools: true, toolPolicy: { allow } })
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await createMcpServer(tools, { checkpoints: true }).connect(serverSide)
  const client = new Client({ name: 'ckpt-escape', version: '1.0.0' })
  await client.connect(clientSide)
  t.after(() => client.close())
  const created = await client.callTool({ name: 'checkpoint_create', arguments: {} })
  const { id } = JSON.parse(created.content[0].text)
  await mutate(call)
  const before = outsideSnap()
  fs.renameSync(path.join(root, 'src'), path.join(root, 'src-away'))
  fs.symlinkSync(outside, path.join(root, 'src'))
  const r = await client.callTool({ name: 'checkpoint_restore', arguments: { id, force: true } })
  assert.equal(r.isError, true)
  assert.equal(JSON.parse(r.content[0].text).error, 'path_escape')
  assert.deepEqual(outsideSnap(), before)
})
