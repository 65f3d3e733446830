// Live output (issue 14): `callTool(name, args, { signal?, onOutput? })` hands a running
// bash's output to the host as it arrives — in order, UTF-8-safe, never after the result, a
// throwing callback harmless — and the AI SDK adapter (preliminary tool results, through the
// real `ai` streamText) and the MCP server (`notifications/progress`, through the real MCP
// client) pass it on.
//
// "Live" is shown without timing: the command waits for a file that only the host's
// callback creates once it saw the first line, so a callback that fired only at the end would
// leave the command waiting until its timeout.
import test from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { streamText, simulateReadableStream, stepCountIs } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { toAiSdkTools } from '../ai.mjs'
import { workspace, latest, envelope, beforeTheTimeout } from './helpers.mjs'
import { noSh } from './platform.mjs'

const BIN = fileURLToPath(new URL('../bin/clarvis-agent-tools.mjs', import.meta.url))

// Prints `one`, waits (up to the timeout) for the host to create `go`, then prints `two`.
const HANDSHAKE = 'echo one; while [ ! -f go ]; do sleep 0.02; done; echo two'

test('onOutput is called while bash runs, in order, and the result is unchanged', { skip: noSh }, async () => {
  const { root, tools } = latest()
  const chunks = []
  const r = await tools.callTool(
    'bash',
    { command: `${HANDSHAKE}; echo err >&2`, timeout_ms: 60000 },
    {
      onOutput: (c) => {
        chunks.push(c)
        if (c.text.includes('one')) fs.writeFileSync(path.join(root, 'go'), '')
      },
    },
  )
  const out = JSON.parse(r.text)
  assert.equal(r.isError, false, r.text)
  assert.deepEqual(out, { exit_code: 0, stdout: 'one\ntwo\n', stderr: 'err\n', signal: null, timed_out: false })
  const joined = (s) => chunks.filter((c) => c.stream === s).map((c) => c.text).join('')
  assert.equal(joined('stdout'), 'one\ntwo\n')
  assert.equal(joined('stderr'), 'err\n')
  for (const c of chunks) assert.deepEqual(Object.keys(c).sort(), ['stream', 'text'])
})

test('chunks never split a character, and none arrives after the result', { skip: noSh }, async () => {
  const { tools } = latest()
  const chunks = []
  let resolved = false
  let late = 0
  // "é" and "😀" written byte by byte with pauses, then 200 kB in a burst.
  const command =
    "printf '\\303'; sleep 0.1; printf '\\251\\360\\237'; sleep 0.1; printf '\\230\\200\\n'; " +
    "head -c 200000 /dev/zero | tr '\\0' 'x'"
  const r = await tools.callTool('bash', { command }, {
    onOutput: (c) => {
      if (resolved) late++
      chunks.push(c.text)
    },
  })
  resolved = true
  assert.equal(r.isError, false, r.text)
  const all = chunks.join('')
  assert.equal(all, 'é😀\n' + 'x'.repeat(200000))
  for (const c of chunks) assert.ok(!c.includes('\uFFFD'), JSON.stringify(c.slice(0, 20)))
  await new Promise((resolve) => setTimeout(resolve, 300))
  assert.equal(late, 0)
})

test('a throwing or rejecting callback does not disturb the call', { skip: noSh }, async () => {
  const { tools } = latest()
  let calls = 0
  const unhandled = []
  const onUnhandled = (e) => unhandled.push(e)
  process.on('unhandledRejection', onUnhandled)
  try {
    const a = await tools.callTool('bash', { command: 'echo a; echo b >&2' }, {
      onOutput: () => {
        calls++
        throw new Error('host bug')
      },
    })
    assert.deepEqual(JSON.parse(a.text).stdout, 'a\n')
    const b = await tools.callTool('bash', { command: 'echo c' }, {
      onOutput: async () => {
        calls++
        throw new Error('async host bug')
      },
    })
    assert.deepEqual(JSON.parse(b.text).stdout, 'c\n')
    await new Promise((resolve) => setTimeout(resolve, 50))
  } finally {
    process.off('unhandledRejection', onUnhandled)
  }
  assert.ok(calls >= 3)
  assert.deepEqual(unhandled, [])
})

test('the third argument: an AbortSignal as before, or { signal, onOutput }; 0.1 too', { skip: noSh }, async () => {
  const { root, call } = workspace()
  const c1 = new AbortController()
  const pending = call('bash', { command: 'sleep 30' }, c1.signal)
  setTimeout(() => c1.abort(), 100)
  assert.equal(envelope(await pending).error, 'aborted')

  const c2 = new AbortController()
  const seen = []
  const p2 = call('bash', { command: 'echo started; sleep 30' }, {
    signal: c2.signal,
    onOutput: (c) => {
      seen.push(c.text)
      c2.abort()
    },
  })
  const e = envelope(await p2)
  assert.equal(e.error, 'aborted')
  assert.equal(e.stdout, 'started\n')
  assert.deepEqual(seen, ['started\n'])
  // No options at all, or an empty object.
  assert.equal(JSON.parse((await call('bash', { command: 'echo x' }, {})).text).stdout, 'x\n')
  assert.equal(fs.readdirSync(root).length, 0)
})

test("a command killed at the capture ceiling streams at most the ceiling", { skip: noSh }, async () => {
  const { tools } = latest()
  let stdout = 0
  const r = await tools.callTool('bash', { command: 'yes' }, { onOutput: (c) => (stdout += c.text.length) })
  assert.equal(envelope(r).error, 'output_limit')
  assert.equal(stdout, 8 * 1024 * 1024)
})

function usage() {
  return {
    inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 1, text: 1, reasoning: undefined },
  }
}

/** A streaming model that calls `bash` with `input` once, then answers "done". */
function bashThenDone(input) {
  let step = 0
  return new MockLanguageModelV3({
    doStream: async () => {
      const chunks =
        step++ === 0
          ? [
              { type: 'tool-call', toolCallId: 'call-1', toolName: 'bash', input: JSON.stringify(input) },
              { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: usage() },
            ]
          : [
              { type: 'text-start', id: 't' },
              { type: 'text-delta', id: 't', delta: 'done' },
              { type: 'text-end', id: 't' },
              { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: usage() },
            ]
      return { stream: simulateReadableStream({ chunks }) }
    },
  })
}

test('AI SDK: bash streams preliminary tool results, then the final result reaches the model', { skip: noSh }, async () => {
  const { root, tools } = latest()
  const model = bashThenDone({ command: HANDSHAKE, timeout_ms: 60000 })
  const result = streamText({ model, tools: toAiSdkTools(tools), prompt: 'go', stopWhen: stepCountIs(3) })
  const results = []
  for await (const part of result.fullStream) {
    if (part.type !== 'tool-result') continue
    results.push(part)
    if (part.preliminary && typeof part.output === 'object' && part.output.stdout.includes('one')) {
      fs.writeFileSync(path.join(root, 'go'), '')
    }
  }
  const prelim = results.filter((p) => p.preliminary && typeof p.output === 'object')
  assert.ok(prelim.length >= 1, JSON.stringify(results))
  assert.deepEqual(prelim[0].output, { status: 'running', stdout: 'one\n', stderr: '' })
  const final = results.filter((p) => !p.preliminary)
  assert.equal(final.length, 1)
  assert.equal(JSON.parse(final[0].output).stdout, 'one\ntwo\n')
  assert.equal(await result.text, 'done')
  // The model got the final result only.
  const steps = await result.steps
  assert.equal(JSON.parse(steps[0].toolResults[0].output).stdout, 'one\ntwo\n')
})

test('AI SDK: a failing bash under streaming is still a tool error with the envelope', { skip: noSh }, async () => {
  const { tools } = latest()
  // A run whose timer fired before `echo partial` (a loaded machine) is retried.
  const errors = await beforeTheTimeout(async (ms) => {
    const model = bashThenDone({ command: 'echo partial; sleep 1000', timeout_ms: ms })
    const result = streamText({ model, tools: toAiSdkTools(tools), prompt: 'go', stopWhen: stepCountIs(3) })
    const errors = []
    for await (const part of result.fullStream) if (part.type === 'tool-error') errors.push(part)
    return errors
  }, (errors) => errors[0]?.error.fields?.stdout !== '', 300)
  assert.equal(errors.length, 1)
  assert.equal(errors[0].error.code, 'timeout')
  assert.equal(errors[0].error.fields.stdout, 'partial\n')
})

test('MCP: a client with a progress token gets the output as notifications/progress before the result', { skip: noSh }, async (t) => {
  const { root } = latest()
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', '--workspace', root],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp' },
    stderr: 'pipe',
  })
  const client = new Client({ name: 'live-test', version: '1.0.0' })
  await client.connect(transport)
  t.after(() => client.close())
  const progress = []
  let resolved = false
  const bySteam = (s) => progress.filter((p) => p._meta?.['clarvis/stream'] === s).map((p) => p.message).join('')
  // The command waits until the client has seen both streams' first output as progress, so
  // that output provably arrived while the call ran.
  const result = await client.callTool(
    { name: 'bash', arguments: { command: `echo e >&2; ${HANDSHAKE}`, timeout_ms: 60000 } },
    undefined,
    {
      onprogress: (p) => {
        assert.equal(resolved, false)
        progress.push(p)
        if (bySteam('stdout').includes('one') && bySteam('stderr') === 'e\n') fs.writeFileSync(path.join(root, 'go'), '')
      },
    },
  )
  resolved = true
  assert.equal(result.isError, false)
  assert.equal(JSON.parse(result.content[0].text).stdout, 'one\ntwo\n')
  assert.equal(bySteam('stderr'), 'e\n')
  // The SDK client handles a notification a microtask after a response read in the same
  // chunk, so it may drop the last one; the server holds the response briefly to make that
  // rare (SPEC §9), and what arrived is always the output's start, in order.
  assert.ok(['one\n', 'one\ntwo\n'].includes(bySteam('stdout')), bySteam('stdout'))
  for (let i = 1; i < progress.length; i++) assert.ok(progress[i].progress > progress[i - 1].progress)

  // Without a progress token nothing is sent, and the call works as before.
  const plain = await client.callTool({ name: 'bash', arguments: { command: 'echo quiet' } })
  assert.equal(JSON.parse(plain.content[0].text).stdout, 'quiet\n')
})
