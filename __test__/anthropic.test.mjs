// @clarvis/agent-tools/anthropic driven by the real `@anthropic-ai/sdk` client against a local
// server that plays the model: tool_use blocks, then a final answer. We assert what the SDK
// sent (tools, tool_result blocks) and the bytes on disk.
import test from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import Anthropic from '@anthropic-ai/sdk'
import { toAnthropicTools, runAnthropicToolUses } from '../anthropic.mjs'
import { latest, workspace } from './helpers.mjs'
import { fakeModel, PNG_1X1 } from './fake-model.mjs'
import { noSh } from './platform.mjs'

function message(content, stop) {
  return {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'fake',
    content,
    stop_reason: stop,
    stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 },
  }
}

const use = (id, name, input) => ({ type: 'tool_use', id, name, input })

test('Messages API: a full loop edits a file and runs bash through the real SDK client', { skip: noSh }, async (t) => {
  const { root, tools } = latest({ 'lib/x.py': 'print("a")\n' })
  const script = [
    [{ type: 'text', text: 'Let me look.' }, use('t1', 'read_file', { path: 'lib/x.py' }), use('t2', 'grep', { pattern: 'print' })],
    [use('t3', 'edit_file', { path: 'lib/x.py', old_string: '"a"', new_string: '"b"' }), use('t4', 'bash', { command: 'cat lib/x.py > copy.txt; echo ok' })],
    [use('t5', 'edit_file', { path: 'lib/x.py', old_string: 'absent', new_string: 'x' })],
  ]
  const server = await fakeModel((body, i) =>
    i < script.length ? message(script[i], 'tool_use') : message([{ type: 'text', text: 'Done.' }], 'end_turn'),
  )
  t.after(server.close)
  const client = new Anthropic({ apiKey: 'test-key', baseURL: server.url, maxRetries: 0 })
  const messages = [{ role: 'user', content: 'Change a to b' }]
  let reply
  for (let turn = 0; turn < 10; turn++) {
    reply = await client.messages.create({ model: 'fake', max_tokens: 1024, messages, tools: toAnthropicTools(tools) })
    messages.push({ role: 'assistant', content: reply.content })
    if (reply.stop_reason !== 'tool_use') break
    messages.push({ role: 'user', content: await runAnthropicToolUses(tools, reply.content) })
  }
  assert.deepEqual(reply.content, [{ type: 'text', text: 'Done.' }])
  assert.equal(fs.readFileSync(path.join(root, 'lib/x.py'), 'utf8'), 'print("b")\n')
  assert.equal(fs.readFileSync(path.join(root, 'copy.txt'), 'utf8'), 'print("b")\n')

  assert.equal(server.requests.length, 4)
  assert.equal(server.requests[0].path, '/v1/messages')
  const h = server.requests[0].headers
  assert.ok(h['x-api-key'] === 'test-key' || h.authorization === 'Bearer test-key', 'the API key was sent')
  assert.deepEqual(
    server.requests[0].body.tools,
    tools.listTools().map((x) => ({ name: x.name, description: x.description, input_schema: x.inputSchema })),
  )
  const results = (i) => server.requests[i].body.messages.at(-1).content
  assert.deepEqual(results(1), [
    { type: 'tool_result', tool_use_id: 't1', content: '     1\tprint("a")', is_error: false },
    { type: 'tool_result', tool_use_id: 't2', content: 'lib/x.py', is_error: false },
  ])
  const [edit, bash] = results(2)
  assert.equal(edit.tool_use_id, 't3')
  assert.equal(edit.is_error, false)
  assert.equal(bash.tool_use_id, 't4')
  assert.equal(JSON.parse(bash.content).stdout, 'ok\n')
  const [failed] = results(3)
  assert.equal(failed.is_error, true)
  assert.equal(JSON.parse(failed.content).error, 'no_match')
})

test('image parts become image blocks with a base64 source', async () => {
  const { tools } = latest({ 'pic.png': PNG_1X1 })
  const out = await runAnthropicToolUses(tools, [{ type: 'text', text: 'hm' }, use('i', 'read_image', { path: 'pic.png' })])
  assert.deepEqual(out, [
    {
      type: 'tool_result',
      tool_use_id: 'i',
      content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_1X1.toString('base64') } }],
      is_error: false,
    },
  ])
})

test('unknown tools, bad input, read-only surfaces, include, a compat "0.1" AgentTools', async () => {
  const { tools } = latest({ 'a.txt': 'a\n' }, { readOnly: true })
  const out = await runAnthropicToolUses(tools, [use('1', 'write_file', { path: 'a.txt', content: 'b' }), use('2', 'read_file', {})])
  assert.deepEqual(JSON.parse(out[0].content), { error: 'not_found', message: 'Unknown tool: write_file' })
  assert.equal(out[0].is_error, true)
  assert.equal(JSON.parse(out[1].content).error, 'invalid_input')
  assert.ok(toAnthropicTools(tools).every((x) => x.name !== 'write_file'))
  assert.deepEqual(toAnthropicTools(tools, { include: ['glob'] }).map((x) => x.name), ['glob'])
  assert.throws(() => toAnthropicTools(tools, { include: ['bash'] }), /Unknown or hidden tool: bash/)
  assert.throws(() => toAnthropicTools(null), TypeError)
  assert.deepEqual(await runAnthropicToolUses(tools, null), [])
  const old = workspace({ 'a.txt': 'a\n' })
  assert.deepEqual(await runAnthropicToolUses(old.tools, [use('o', 'read_file', { path: 'a.txt' })]), [
    { type: 'tool_result', tool_use_id: 'o', content: '     1\ta', is_error: false },
  ])
})

test('the CommonJS entry exports the same functions', () => {
  const require = createRequire(import.meta.url)
  const cjs = require('../anthropic.js')
  assert.deepEqual(Object.keys(cjs).sort(), ['runAnthropicToolUses', 'toAnthropicTools'])
  assert.equal(cjs.runAnthropicToolUses, runAnthropicToolUses)
})
