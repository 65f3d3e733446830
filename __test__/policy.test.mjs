// toolPolicy (CamelAGI): allow/deny lists applied to the surface, so listTools, dispatch and the
// adapters agree; unknown names are a StartupError.
import test from 'node:test'
import assert from 'node:assert/strict'
import { createAgentTools, StartupError } from '../index.mjs'
import { latest, envelope, scratch } from './helpers.mjs'

test('deny wins; an empty allow means all; hidden tools are unknown to dispatch', async () => {
  const { call, tools } = latest({ 'a.txt': 'a' }, { toolPolicy: { allow: ['read_file', 'bash', 'grep'], deny: ['bash'] } })
  assert.deepEqual(tools.listTools().map((t) => t.name), ['read_file', 'grep'])
  assert.deepEqual(envelope(await call('bash', { command: 'true' })), { error: 'not_found', message: 'Unknown tool: bash' })
  assert.equal((await call('read_file', { path: 'a.txt' })).isError, false)
  const denyOnly = latest({}, { toolPolicy: { deny: ['bash', 'monitor_start'] } }).tools.listTools().map((t) => t.name)
  assert.ok(!denyOnly.includes('bash') && !denyOnly.includes('monitor_start') && denyOnly.includes('write_file'))
  const empty = latest({}, { toolPolicy: { allow: [] } }).tools.listTools().length
  assert.equal(empty, latest().tools.listTools().length)
})

test('unknown names and malformed policies are StartupErrors', () => {
  const root = scratch()
  assert.throws(() => createAgentTools({ workspaceRoot: root, toolPolicy: { allow: ['read_fil'] } }), (e) => {
    assert.ok(e instanceof StartupError)
    assert.match(e.message, /^toolPolicy\.allow names an unknown tool: read_fil \(tools: read_file, /)
    return true
  })
  assert.throws(() => createAgentTools({ workspaceRoot: root, toolPolicy: { deny: 'bash' } }), StartupError)
  assert.throws(() => createAgentTools({ workspaceRoot: root, toolPolicy: ['bash'] }), StartupError)
})

test('undo is opt-in and takes back the last mutating call, once', async () => {
  const fs = await import('node:fs')
  const path = await import('node:path')
  assert.ok(!latest().tools.listTools().some((t) => t.name === 'undo'))
  const { call, root, tools } = latest({ 'a.txt': 'one\n' }, { toolPolicy: { allow: ['undo', 'edit_file', 'write_file', 'read_file'] } })
  assert.deepEqual(tools.listTools().map((t) => t.name), ['read_file', 'write_file', 'edit_file', 'undo'])
  assert.equal(envelope(await call('undo', {})).error, 'invalid_input')
  await call('edit_file', { path: 'a.txt', old_string: 'one', new_string: 'two' })
  await call('write_file', { path: 'b.txt', content: 'new\n' })
  const r = await call('undo', {})
  assert.equal(r.text, 'Undid the last change: 1 path(s) put back.\n  created b.txt')
  assert.equal(fs.existsSync(path.join(root, 'b.txt')), false)
  assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'two\n', 'only the last call')
  assert.equal(envelope(await call('undo', {})).error, 'invalid_input')
  assert.deepEqual(tools.checkpoints(), [], 'the implicit checkpoint is not listed')
})
