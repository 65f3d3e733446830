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
