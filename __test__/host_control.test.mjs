// Host control (issue 15): structured validation issues, through the public API, the AI SDK
// adapter and the MCP server.
import test from 'node:test'
import assert from 'node:assert/strict'
import { generateText, stepCountIs } from 'ai'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { toAiSdkTools } from '../ai.mjs'
import { createMcpServer } from '../mcp.mjs'
import { latest, workspace, envelope } from './helpers.mjs'
import { scriptedModel, toolResultsIn } from './scripted-model.mjs'

/** An MCP client connected in-process to a server over `agentTools`. */
export async function mcpClient(t, agentTools) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  const server = createMcpServer(agentTools)
  await server.connect(serverSide)
  const client = new Client({ name: 'host-test', version: '1.0.0' })
  await client.connect(clientSide)
  t.after(() => client.close())
  return client
}

test('a schema failure carries issues with JSON-pointer paths; the message is unchanged', async () => {
  const { call } = latest({ 'a.txt': 'a\n' })
  const e = envelope(await call('multi_edit', { path: 'a.txt', edits: [{ old_string: [1], new_string: 'x' }, { new_string: 'y' }] }))
  assert.equal(e.error, 'invalid_input')
  assert.equal(
    e.message,
    "data/edits/0/old_string must be string; data/edits/1 must have required property 'old_string'",
  )
  assert.deepEqual(e.issues, [
    { path: '/edits/0/old_string', expected: 'string', received: 'array', message: 'must be string' },
    { path: '/edits/1/old_string', expected: 'string', received: 'undefined', message: "must have required property 'old_string'" },
  ])
  const r = envelope(await call('read_files', { paths: [] }))
  assert.deepEqual(r.issues, [
    { path: '/paths', expected: 'at least 1 items', received: '0 items', message: 'must NOT have fewer than 1 items' },
  ])
  const g = envelope(await call('grep', { pattern: 'x', output_mode: 'lines' }))
  assert.equal(g.issues[0].path, '/output_mode')
  assert.match(g.issues[0].expected, /^one of \["files_with_matches","content","count"\]/)
  assert.equal(g.issues[0].received, '"lines"')
  // A handler's own invalid_input (not the schema's) has no issues.
  const own = envelope(await call('read_file', { path: 'a.txt', offset: 0 }))
  assert.equal(own.error, 'invalid_input')
  assert.equal(own.issues, undefined)
})

test('under compat "0.1" the envelope stays exactly {error, message}', async () => {
  const { call } = workspace({ 'a.txt': 'a\n' })
  assert.deepEqual(envelope(await call('read_file', { path: 'a.txt', limit: 'x', extra: 1 })), {
    error: 'invalid_input',
    message: 'data must NOT have additional properties; data/limit must be integer',
  })
})

test('issues reach the model through the AI SDK adapter and the MCP server', async (t) => {
  const ws = latest({ 'a.txt': 'x\n' })
  const { model, prompts } = scriptedModel([[['read_file', { path: 'a.txt', offset: 'one' }]]])
  await generateText({ model, tools: toAiSdkTools(ws.tools), prompt: 'go', stopWhen: stepCountIs(3) })
  const seen = toolResultsIn(prompts[1])['call-0-0']
  assert.equal(seen.type, 'error-text')
  assert.deepEqual(JSON.parse(seen.value).issues, [
    { path: '/offset', expected: 'integer', received: 'string', message: 'must be integer' },
  ])
  const client = await mcpClient(t, ws.tools)
  const r = await client.callTool({ name: 'read_file', arguments: { path: 'a.txt', limit: -1 } })
  assert.equal(r.isError, true)
  assert.deepEqual(JSON.parse(r.content[0].text).issues, [{ path: '/limit', expected: '>= 0', received: '-1', message: 'must be >= 0' }])
})
