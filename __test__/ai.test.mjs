// The Vercel AI SDK adapter, driven by the real `ai` package: generateText with the SDK's mock
// language model scripted to call our tools over a scratch workspace. We assert what reached the
// model (the prompt of the next step), what the SDK reported, and the bytes on disk.
import test from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { generateText, stepCountIs } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import { toAiSdkTools, ToolCallError } from '../ai.mjs'
import { createRequire } from 'node:module'
import { workspace } from './helpers.mjs'
import { pendingTools } from './pending.mjs'
import { native, noSh } from './platform.mjs'

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
}

/**
 * A model that plays `script`: step i returns the tool calls script[i] (an array of
 * [toolName, input]) or, past the end, a final text. Every prompt it was given is recorded.
 */
function scriptedModel(script) {
  const prompts = []
  const model = new MockLanguageModelV3({
    doGenerate: async (options) => {
      prompts.push(options)
      const step = prompts.length - 1
      if (step >= script.length) {
        return { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] }
      }
      return {
        content: script[step].map(([toolName, input], i) => ({
          type: 'tool-call',
          toolCallId: `call-${step}-${i}`,
          toolName,
          input: JSON.stringify(input),
        })),
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage,
        warnings: [],
      }
    },
  })
  return { model, prompts }
}

/** The tool results the model saw in the prompt of `options`, by toolCallId. */
function toolResultsIn(options) {
  const out = {}
  for (const msg of options.prompt) {
    if (msg.role !== 'tool') continue
    for (const part of msg.content) if (part.type === 'tool-result') out[part.toolCallId] = part.output
  }
  return out
}

test('the tool set mirrors listTools(): names, descriptions and JSON Schemas reach the model', async () => {
  const { tools } = workspace({ 'a.txt': 'x\n' })
  const set = toAiSdkTools(tools)
  assert.deepEqual(Object.keys(set), tools.listTools().map((t) => t.name))
  const { model, prompts } = scriptedModel([])
  await generateText({ model, tools: set, prompt: 'hi' })
  const advertised = prompts[0].tools
  assert.equal(advertised.length, 9)
  for (const info of tools.listTools()) {
    const a = advertised.find((t) => t.name === info.name)
    assert.equal(a.type, 'function')
    assert.equal(a.description, info.description)
    assert.deepEqual(a.inputSchema, info.inputSchema)
  }
})

test('a read-only AgentTools gives only the read tools; include picks a subset; unknown names throw', () => {
  const { tools } = workspace({}, { readOnly: true })
  assert.deepEqual(Object.keys(toAiSdkTools(tools)), ['read_file', 'list_dir', 'glob', 'grep'])
  assert.deepEqual(Object.keys(toAiSdkTools(tools, { include: ['grep', 'read_file'] })), ['read_file', 'grep'])
  assert.throws(() => toAiSdkTools(tools, { include: ['bash'] }), /Unknown or hidden tool: bash/)
  assert.throws(() => toAiSdkTools({}), TypeError)
})

test('read_file and list_dir results reach the model as text; a failure as error-text with the envelope', async () => {
  const { tools } = workspace({ 'src/app.js': "const greeting = 'hello'\n", 'README.md': '# hi\n' })
  const { model, prompts } = scriptedModel([
    [
      ['read_file', { path: 'src/app.js' }],
      ['list_dir', {}],
    ],
    [['read_file', { path: 'missing.txt' }]],
  ])
  const result = await generateText({ model, tools: toAiSdkTools(tools), prompt: 'look', stopWhen: stepCountIs(5) })
  assert.equal(result.text, 'done')
  assert.equal(prompts.length, 3)

  const seen1 = toolResultsIn(prompts[1])
  assert.deepEqual(seen1['call-0-0'], { type: 'text', value: "     1\tconst greeting = 'hello'" })
  assert.deepEqual(seen1['call-0-1'], { type: 'text', value: 'src/\nREADME.md\t5' })

  const seen2 = toolResultsIn(prompts[2])
  assert.equal(seen2['call-1-0'].type, 'error-text')
  assert.deepEqual(JSON.parse(seen2['call-1-0'].value), {
    error: 'not_found',
    message: 'No such file: missing.txt',
    path: 'missing.txt',
  })

  // The SDK itself marks the call as failed, with our error object.
  const failed = result.steps[1].content.find((p) => p.type === 'tool-error')
  assert.ok(failed, 'the failing call is a tool-error part')
  assert.ok(failed.error instanceof ToolCallError)
  assert.equal(failed.error.toolName, 'read_file')
  assert.equal(failed.error.code, 'not_found')
  assert.equal(failed.error.toolMessage, 'No such file: missing.txt')
  assert.deepEqual(failed.error.fields, { path: 'missing.txt' })
  assert.equal(result.steps[0].content.filter((p) => p.type === 'tool-result').length, 2)
})

test('invalid arguments from the model are our invalid_input envelope, not an SDK exception', async () => {
  const { tools } = workspace({ 'a.txt': 'x\n' })
  const { model, prompts } = scriptedModel([[['read_file', { path: 'a.txt', offset: 'one' }]]])
  await generateText({ model, tools: toAiSdkTools(tools), prompt: 'go', stopWhen: stepCountIs(3) })
  const seen = toolResultsIn(prompts[1])['call-0-0']
  assert.equal(seen.type, 'error-text')
  assert.deepEqual(JSON.parse(seen.value), { error: 'invalid_input', message: 'data/offset must be integer' })
})

test("execute forwards the SDK's abortSignal to callTool", async () => {
  const ws = workspace({ 'a.txt': 'x\n' })
  const controller = new AbortController()
  const observed = []
  // An AgentTools that aborts the run from inside the call, then lets the real call see it.
  const spy = {
    listTools: () => ws.tools.listTools(),
    async callTool(name, args, signal) {
      observed.push({ before: signal?.aborted })
      controller.abort()
      observed.push({ after: signal?.aborted })
      const r = await ws.tools.callTool(name, args, signal)
      observed.push({ result: JSON.parse(r.text).error })
      return r
    },
  }
  const { model } = scriptedModel([[['read_file', { path: 'a.txt' }]]])
  await generateText({
    model,
    tools: toAiSdkTools(spy),
    prompt: 'go',
    stopWhen: stepCountIs(3),
    abortSignal: controller.signal,
  }).catch(() => {})
  assert.deepEqual(observed, [{ before: false }, { after: true }, { result: 'aborted' }])
})

test('the CommonJS entry exports the same adapter', () => {
  const cjs = createRequire(import.meta.url)('../ai.js')
  const { tools } = workspace()
  assert.equal(typeof cjs.toAiSdkTools, 'function')
  assert.equal(cjs.ToolCallError, ToolCallError)
  assert.deepEqual(Object.keys(cjs.toAiSdkTools(tools)), Object.keys(toAiSdkTools(tools)))
})

// Needs edit_file and bash (other helpers' branches); skips while they are stubs.
test('a scripted session: read, edit, a failing edit and bash, over a scratch workspace', { skip: noSh }, async (t) => {
  const pending = await pendingTools(['edit_file', 'bash'])
  if (pending.length) return t.skip(`not implemented on this branch yet: ${pending.join(', ')}`)
  const { root, tools } = workspace({ 'src/app.js': "const greeting = 'hello'\n" })
  const { model, prompts } = scriptedModel([
    [['read_file', { path: 'src/app.js' }]],
    [['edit_file', { path: 'src/app.js', old_string: "'hello'", new_string: "'hello, world'" }]],
    [['edit_file', { path: 'src/app.js', old_string: 'no such text', new_string: 'x' }]],
    [['bash', { command: 'cat src/app.js; echo checked >&2' }]],
  ])
  const result = await generateText({ model, tools: toAiSdkTools(tools), prompt: 'edit', stopWhen: stepCountIs(10) })
  assert.equal(prompts.length, 5)
  assert.equal(fs.readFileSync(path.join(root, 'src/app.js'), 'utf8'), "const greeting = 'hello, world'\n")

  assert.deepEqual(toolResultsIn(prompts[1])['call-0-0'], { type: 'text', value: "     1\tconst greeting = 'hello'" })
  assert.deepEqual(toolResultsIn(prompts[2])['call-1-0'], { type: 'text', value: `Replaced 1 occurrence in ${native('src/app.js')}.` })
  const failed = toolResultsIn(prompts[3])['call-2-0']
  assert.equal(failed.type, 'error-text')
  assert.equal(JSON.parse(failed.value).error, 'no_match')
  assert.match(JSON.parse(failed.value).message, /^old_string not found\./)
  const ran = toolResultsIn(prompts[4])['call-3-0']
  assert.equal(ran.type, 'text')
  assert.deepEqual(JSON.parse(ran.value), {
    exit_code: 0,
    stdout: "const greeting = 'hello, world'\n",
    stderr: 'checked\n',
    signal: null,
    timed_out: false,
  })
  const errors = result.steps.flatMap((s) => s.content.filter((p) => p.type === 'tool-error'))
  assert.deepEqual(errors.map((e) => [e.toolName, e.error.code]), [['edit_file', 'no_match']])
})
