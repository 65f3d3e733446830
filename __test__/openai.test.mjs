// @clarvis/agent-tools/openai driven by the real `openai` SDK client against a local server
// that plays the model: it returns tool calls, then a final answer. We assert what the SDK
// sent (tools, tool messages, function_call_output items) and the bytes on disk.
import test from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import OpenAI from 'openai'
import { toOpenAITools, toOpenAIResponsesTools, runOpenAIToolCalls, runOpenAIResponsesCalls } from '../openai.mjs'
import { latest, workspace } from './helpers.mjs'
import { fakeModel, PNG_1X1 } from './fake-model.mjs'
import { noSh } from './platform.mjs'

function chatAnswer(message, finish) {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 0,
    model: 'fake',
    choices: [{ index: 0, message: { role: 'assistant', content: null, refusal: null, ...message }, finish_reason: finish, logprobs: null }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  }
}

function toolCall(id, name, args) {
  return { id, type: 'function', function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) } }
}

/** The agent loop an application writes with the SDK and this entry. */
async function chatLoop(client, agent, prompt) {
  const messages = [{ role: 'user', content: prompt }]
  for (let turn = 0; turn < 10; turn++) {
    const completion = await client.chat.completions.create({ model: 'fake', messages, tools: toOpenAITools(agent) })
    const message = completion.choices[0].message
    messages.push(message)
    if (!message.tool_calls || message.tool_calls.length === 0) return { text: message.content, messages }
    messages.push(...(await runOpenAIToolCalls(agent, message.tool_calls)))
  }
  throw new Error('the loop did not end')
}

test('Chat Completions: a full loop edits a file and runs bash through the real SDK client', { skip: noSh }, async (t) => {
  const { root, tools } = latest({ 'src/app.js': "const greeting = 'hello'\n" })
  const script = [
    [toolCall('c1', 'read_file', { path: 'src/app.js' }), toolCall('c2', 'list_dir', {})],
    [toolCall('c3', 'edit_file', { path: 'src/app.js', old_string: "'hello'", new_string: "'hi there'" })],
    [toolCall('c4', 'bash', { command: 'cat src/app.js; printf done > out.txt' }), toolCall('c5', 'read_file', { path: 'nope.txt' })],
  ]
  const server = await fakeModel((body, i) =>
    i < script.length ? chatAnswer({ tool_calls: script[i] }, 'tool_calls') : chatAnswer({ content: 'all done' }, 'stop'),
  )
  t.after(server.close)
  const client = new OpenAI({ apiKey: 'test-key', baseURL: `${server.url}/v1`, maxRetries: 0 })
  const { text } = await chatLoop(client, tools, 'Change the greeting')
  assert.equal(text, 'all done')
  assert.equal(fs.readFileSync(path.join(root, 'src/app.js'), 'utf8'), "const greeting = 'hi there'\n")
  assert.equal(fs.readFileSync(path.join(root, 'out.txt'), 'utf8'), 'done')

  assert.equal(server.requests.length, 4)
  const first = server.requests[0]
  assert.equal(first.path, '/v1/chat/completions')
  assert.equal(first.headers.authorization, 'Bearer test-key')
  assert.deepEqual(
    first.body.tools,
    tools.listTools().map((x) => ({ type: 'function', function: { name: x.name, description: x.description, parameters: x.inputSchema } })),
  )
  const toolMessages = (i) => server.requests[i].body.messages.filter((m) => m.role === 'tool')
  assert.deepEqual(toolMessages(1), [
    { role: 'tool', tool_call_id: 'c1', content: "     1\tconst greeting = 'hello'" },
    { role: 'tool', tool_call_id: 'c2', content: 'src/' },
  ])
  const last = toolMessages(3).slice(-2)
  assert.equal(last[0].tool_call_id, 'c4')
  const bash = JSON.parse(last[0].content)
  assert.equal(bash.stdout, "const greeting = 'hi there'\n")
  assert.equal(bash.exit_code, 0)
  assert.deepEqual(last[1], {
    role: 'tool',
    tool_call_id: 'c5',
    content: JSON.stringify({ error: 'not_found', message: 'No such file: nope.txt', path: 'nope.txt' }),
  })
})

test('Responses API: a full loop edits a file and runs bash through the real SDK client', { skip: noSh }, async (t) => {
  const { root, tools } = latest({ 'notes.txt': 'one\ntwo\n' })
  const script = [
    [['edit_file', { path: 'notes.txt', old_string: 'two', new_string: 'three' }]],
    [['bash', { command: 'wc -l < notes.txt' }], ['read_file', { path: 'notes.txt' }]],
  ]
  const answer = (i) => ({
    id: `resp_${i}`,
    object: 'response',
    created_at: 0,
    status: 'completed',
    model: 'fake',
    output:
      i < script.length
        ? [
            { type: 'reasoning', id: `rs_${i}`, summary: [] },
            ...script[i].map(([name, args], k) => ({
              type: 'function_call',
              id: `fc_${i}_${k}`,
              call_id: `call_${i}_${k}`,
              name,
              arguments: JSON.stringify(args),
              status: 'completed',
            })),
          ]
        : [{ type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'finished', annotations: [] }] }],
    parallel_tool_calls: true,
    tool_choice: 'auto',
    tools: [],
  })
  const server = await fakeModel((body, i) => answer(i))
  t.after(server.close)
  const client = new OpenAI({ apiKey: 'k', baseURL: `${server.url}/v1`, maxRetries: 0 })
  let input = [{ role: 'user', content: 'go' }]
  let response
  for (let turn = 0; turn < 5; turn++) {
    response = await client.responses.create({ model: 'fake', input, tools: toOpenAIResponsesTools(tools) })
    const outputs = await runOpenAIResponsesCalls(tools, response.output)
    if (outputs.length === 0) break
    input = [...input, ...response.output, ...outputs]
  }
  assert.equal(response.output_text, 'finished')
  assert.equal(fs.readFileSync(path.join(root, 'notes.txt'), 'utf8'), 'one\nthree\n')
  assert.equal(server.requests[0].path, '/v1/responses')
  const sentTools = server.requests[0].body.tools
  assert.equal(sentTools.length, tools.listTools().length)
  assert.deepEqual(sentTools[0], {
    type: 'function',
    name: 'read_file',
    description: tools.listTools()[0].description,
    parameters: tools.listTools()[0].inputSchema,
    strict: false,
  })
  const outputs = server.requests[2].body.input.filter((x) => x.type === 'function_call_output')
  assert.deepEqual(outputs[0], { type: 'function_call_output', call_id: 'call_0_0', output: outputs[0].output })
  assert.equal(JSON.parse(outputs[1].output).stdout.trim(), '2')
  assert.deepEqual(outputs[2], { type: 'function_call_output', call_id: 'call_1_1', output: '     1\tone\n     2\tthree' })
})

test('image parts: a user message with data URLs (Chat), input_image parts (Responses)', async () => {
  const { tools } = latest({ 'pic.png': PNG_1X1 })
  const b64 = PNG_1X1.toString('base64')
  const chat = await runOpenAIToolCalls(tools, [toolCall('i1', 'read_image', { path: 'pic.png' }), toolCall('i2', 'read_file', { path: 'pic.png' })])
  assert.equal(chat.length, 3)
  assert.deepEqual(chat[0], { role: 'tool', tool_call_id: 'i1', content: '[The image of this result follows in the next user message.]' })
  assert.equal(chat[1].tool_call_id, 'i2')
  assert.deepEqual(chat[2], {
    role: 'user',
    content: [
      { type: 'text', text: 'Image 1 of 1 from tool call i1 (read_image):' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${b64}` } },
    ],
  })
  const responses = await runOpenAIResponsesCalls(tools, [{ type: 'function_call', call_id: 'x', name: 'read_image', arguments: '{"path":"pic.png"}' }])
  assert.deepEqual(responses, [{ type: 'function_call_output', call_id: 'x', output: [{ type: 'input_image', image_url: `data:image/png;base64,${b64}` }] }])
})

test('read-only calls run concurrently, the others in order, results in call order', async () => {
  const { tools } = latest({ 'a.txt': 'a\n' })
  const log = []
  let active = 0
  let maxActive = 0
  const spy = {
    listTools: () => tools.listTools(),
    async callTool(name, args) {
      active++
      maxActive = Math.max(maxActive, active)
      log.push(`start ${name} ${args.tag}`)
      await new Promise((r) => setTimeout(r, 30))
      log.push(`end ${name} ${args.tag}`)
      active--
      return { isError: false, text: `${name} ${args.tag}`, content: [{ type: 'text', text: `${name} ${args.tag}` }] }
    },
  }
  const calls = [
    toolCall('1', 'read_file', { tag: 1 }),
    toolCall('2', 'grep', { tag: 2 }),
    toolCall('3', 'write_file', { tag: 3 }),
    toolCall('4', 'bash', { tag: 4 }),
    toolCall('5', 'glob', { tag: 5 }),
    toolCall('6', 'list_dir', { tag: 6 }),
  ]
  const out = await runOpenAIToolCalls(spy, calls)
  assert.deepEqual(out.map((m) => m.content), ['read_file 1', 'grep 2', 'write_file 3', 'bash 4', 'glob 5', 'list_dir 6'])
  assert.deepEqual(log.slice(0, 2).sort(), ['start grep 2', 'start read_file 1'])
  const at = (s) => log.indexOf(s)
  assert.ok(at('start write_file 3') > at('end read_file 1') && at('start write_file 3') > at('end grep 2'))
  assert.equal(at('start bash 4'), at('end write_file 3') + 1)
  assert.ok(at('start glob 5') > at('end bash 4'))
  assert.ok(at('start list_dir 6') < at('end glob 5'), 'the trailing reads overlap')
  assert.equal(maxActive, 2)
})

test('bad arguments, unknown tools and non-function calls answer in place; include; TypeErrors', async () => {
  const { tools } = latest({ 'a.txt': 'a\n' })
  const out = await runOpenAIToolCalls(tools, [
    toolCall('1', 'read_file', '{"path": '),
    toolCall('2', 'rm_rf', {}),
    { id: '3', type: 'custom', custom: { name: 'x', input: 'y' } },
    toolCall('4', 'read_file', ''),
  ])
  assert.equal(JSON.parse(out[0].content).error, 'invalid_input')
  assert.match(JSON.parse(out[0].content).message, /^The arguments are not valid JSON: /)
  assert.deepEqual(JSON.parse(out[1].content), { error: 'not_found', message: 'Unknown tool: rm_rf' })
  assert.equal(JSON.parse(out[2].content).error, 'invalid_input')
  assert.equal(JSON.parse(out[3].content).error, 'invalid_input')
  assert.deepEqual(await runOpenAIToolCalls(tools, undefined), [])
  assert.deepEqual(toOpenAITools(tools, { include: ['grep'] }).map((x) => x.function.name), ['grep'])
  assert.throws(() => toOpenAITools(tools, { include: ['nope'] }), /Unknown or hidden tool: nope/)
  assert.throws(() => toOpenAIResponsesTools({}), TypeError)
  await assert.rejects(runOpenAIResponsesCalls(null, []), TypeError)
  // A compat "0.1" AgentTools (results without content) works too.
  const old = workspace({ 'a.txt': 'a\n' })
  const r = await runOpenAIResponsesCalls(old.tools, [{ type: 'function_call', call_id: 'o', name: 'read_file', arguments: '{"path":"a.txt"}' }])
  assert.deepEqual(r, [{ type: 'function_call_output', call_id: 'o', output: '     1\ta' }])
})

test('the signal reaches callTool: an aborted batch kills bash and reports aborted', { skip: noSh }, async () => {
  const { tools } = latest()
  const controller = new AbortController()
  // Whether bash is running yet or not when the abort comes, the answer is aborted; left
  // alone, `sleep 1000` would end the call with a success much later.
  setTimeout(() => controller.abort(), 300)
  const [m] = await runOpenAIToolCalls(tools, [toolCall('s', 'bash', { command: 'sleep 1000' })], { signal: controller.signal })
  assert.equal(JSON.parse(m.content).error, 'aborted')
})

test('the CommonJS entry exports the same functions', () => {
  const require = createRequire(import.meta.url)
  const cjs = require('../openai.js')
  assert.deepEqual(Object.keys(cjs).sort(), ['runOpenAIResponsesCalls', 'runOpenAIToolCalls', 'toOpenAIResponsesTools', 'toOpenAITools'])
  assert.equal(cjs.toOpenAITools, toOpenAITools)
})
