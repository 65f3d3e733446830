// customTools (issue 15): the host's JS handlers through the whole pipeline — surface and
// readOnly selection, toolPolicy, validation with defaults, guard, output bounding, the error
// envelope, annotations, the AI SDK adapter and the MCP server.
import test from 'node:test'
import assert from 'node:assert/strict'
import { generateText, stepCountIs } from 'ai'
import { createAgentTools, StartupError, ToolError, setWarnSink, dispatch, resolveConfig } from '../index.mjs'
import { toAiSdkTools } from '../ai.mjs'
import { latest, workspace, envelope, scratch } from './helpers.mjs'
import { scriptedModel, toolResultsIn } from './scripted-model.mjs'
import { mcpClient } from './in-process-mcp.mjs'

const lookup = (seen = []) => ({
  name: 'lookup_ticket',
  description: 'Look a ticket up by id. Errors: not_found (no such ticket).',
  inputSchema: {
    type: 'object',
    properties: {
      id: { type: 'string', pattern: '^T-\\d+$', description: 'T-<number>' },
      verbose: { type: 'boolean', default: false },
    },
    required: ['id'],
  },
  readOnly: true,
  handler: async (args, ctx) => {
    seen.push({ args, ctx })
    if (args.id === 'T-0') throw new ToolError('not_found', 'No ticket T-0', { id: 'T-0' })
    if (args.id === 'T-9') throw new TypeError('db exploded')
    return `ticket ${args.id}${args.verbose ? ' (verbose)' : ''}`
  },
})

const deploy = {
  name: 'deploy',
  description: 'Deploy the app.',
  inputSchema: { type: 'object', properties: { env: { type: 'string', enum: ['staging', 'prod'] } }, required: ['env'] },
  annotations: { openWorldHint: true, title: 'Deploy' },
  handler: ({ env }) => ({ content: [{ type: 'text', text: `deployed to ${env}` }], meta: { url: 'https://x' } }),
}

test('custom tools are listed after ours with their schema and annotations, and run', async () => {
  const seen = []
  const { tools, root } = latest({}, { customTools: [lookup(seen), deploy] })
  const list = tools.listTools()
  assert.deepEqual(list.slice(-2).map((t) => t.name), ['lookup_ticket', 'deploy'])
  const l = list.find((t) => t.name === 'lookup_ticket')
  assert.equal(l.description, lookup().description)
  assert.deepEqual(l.inputSchema, lookup().inputSchema)
  assert.deepEqual(l.annotations, { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false })
  assert.deepEqual(list.find((t) => t.name === 'deploy').annotations, {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: true,
    title: 'Deploy',
  })
  const r = await tools.callTool('lookup_ticket', { id: 'T-1' })
  assert.deepEqual(r, { isError: false, text: 'ticket T-1', content: [{ type: 'text', text: 'ticket T-1' }] })
  // Validation with defaults (and the latest surface's coercion) happened before the handler.
  assert.deepEqual(seen[0].args, { id: 'T-1', verbose: false })
  assert.equal(seen[0].ctx.workspaceRoot, root)
  assert.ok(seen[0].ctx.signal instanceof AbortSignal)
  const d = await tools.callTool('deploy', { env: 'prod' })
  assert.deepEqual(d, { isError: false, text: 'deployed to prod', content: [{ type: 'text', text: 'deployed to prod' }], meta: { url: 'https://x' } })
  assert.deepEqual(tools.config.customTools.map((t) => t.name), ['lookup_ticket', 'deploy'])
})

test('invalid arguments, ToolError and other throws become the usual envelopes', async () => {
  const seen = []
  const { tools } = latest({}, { customTools: [lookup(seen)] })
  const bad = envelope(await tools.callTool('lookup_ticket', { id: 'X' }))
  assert.deepEqual(bad, {
    error: 'invalid_input',
    message: 'data/id must match pattern "^T-\\d+$"',
    issues: [{ path: '/id', expected: 'a match of /^T-\\d+$/', received: '"X"', message: 'must match pattern "^T-\\d+$"' }],
  })
  assert.equal(envelope(await tools.callTool('lookup_ticket', {})).message, "data must have required property 'id'")
  assert.equal(seen.length, 0, 'the handler never saw invalid arguments')
  assert.deepEqual(envelope(await tools.callTool('lookup_ticket', { id: 'T-0' })), { error: 'not_found', message: 'No ticket T-0', id: 'T-0' })
  const lines = []
  setWarnSink((l) => lines.push(l))
  try {
    assert.deepEqual(envelope(await tools.callTool('lookup_ticket', { id: 'T-9' })), { error: 'internal', message: 'internal error' })
  } finally {
    setWarnSink(null)
  }
  assert.match(lines.join(''), /internal error: custom tool lookup_ticket: TypeError: db exploded/)
})

test('results are bounded to maxOutputBytes; odd return values are JSON or internal', async () => {
  const big = { name: 'big', description: 'd', inputSchema: { type: 'object' }, readOnly: true, handler: () => 'x'.repeat(5000) }
  const obj = { name: 'obj', description: 'd', inputSchema: { type: 'object' }, readOnly: true, handler: () => ({ a: 1 }) }
  const none = { name: 'none', description: 'd', inputSchema: { type: 'object' }, readOnly: true, handler: () => undefined }
  const badParts = { name: 'bad_parts', description: 'd', inputSchema: { type: 'object' }, readOnly: true, handler: () => ({ content: [{ type: 'video' }] }) }
  const { tools } = latest({}, { maxOutputBytes: 1024, customTools: [big, obj, none, badParts] })
  const r = await tools.callTool('big', {})
  assert.equal(r.isError, false)
  assert.match(r.text, /^x{1024}\n\[\.\.\. output truncated: 1024 of 5000 bytes shown \.\.\.\]$/)
  assert.equal((await tools.callTool('obj', {})).text, '{"a":1}')
  assert.equal((await tools.callTool('none', {})).text, '')
  setWarnSink(() => {})
  try {
    assert.equal(envelope(await tools.callTool('bad_parts', {})).error, 'internal')
  } finally {
    setWarnSink(null)
  }
})

test('readOnly keeps only read-only custom tools; toolPolicy can name them; the guard sees them', async () => {
  const ro = latest({}, { readOnly: true, customTools: [lookup(), deploy] })
  const names = ro.tools.listTools().map((t) => t.name)
  assert.ok(names.includes('lookup_ticket') && !names.includes('deploy'))
  assert.deepEqual(envelope(await ro.tools.callTool('deploy', { env: 'prod' })), { error: 'not_found', message: 'Unknown tool: deploy' })
  const pol = latest({}, { toolPolicy: { allow: ['read_file', 'deploy'] }, customTools: [lookup(), deploy] })
  assert.deepEqual(pol.tools.listTools().map((t) => t.name), ['read_file', 'deploy'])
  assert.equal(envelope(await pol.tools.callTool('lookup_ticket', { id: 'T-1' })).error, 'not_found')
  const asked = []
  const g = latest({}, {
    customTools: [lookup(), deploy],
    guard: (ctx) => {
      asked.push(ctx)
      return ctx.tool === 'deploy' && ctx.args.env === 'prod' ? { verdict: 'deny', reason: 'no prod deploys' } : { verdict: 'allow' }
    },
  })
  assert.deepEqual(envelope(await g.tools.callTool('deploy', { env: 'prod' })), { error: 'denied', message: 'no prod deploys' })
  assert.equal((await g.tools.callTool('deploy', { env: 'staging' })).text, 'deployed to staging')
  assert.equal((await g.tools.callTool('lookup_ticket', { id: 'T-2' })).text, 'ticket T-2')
  assert.deepEqual(asked[2].args, { id: 'T-2', verbose: false })
  // Under compat 0.1 they are there too, with 0.1's result shape.
  const old = workspace({}, { customTools: [lookup()] })
  assert.deepEqual(await old.tools.callTool('lookup_ticket', { id: 'T-3' }), { isError: false, text: 'ticket T-3' })
})

test('an abort ends the call with aborted; the handler gets the signal', async () => {
  let gotSignal = null
  const slow = {
    name: 'slow',
    description: 'd',
    inputSchema: { type: 'object' },
    readOnly: true,
    handler: (args, { signal }) => {
      gotSignal = signal
      return new Promise(() => {})
    },
  }
  const { tools } = latest({}, { customTools: [slow] })
  const c = new AbortController()
  const p = tools.callTool('slow', {}, c.signal)
  setTimeout(() => c.abort(), 20)
  assert.deepEqual(envelope(await p), { error: 'aborted', message: 'Operation aborted (run cancelled)' })
  assert.equal(gotSignal, c.signal)
  assert.equal(envelope(await tools.callTool('slow', {}, AbortSignal.abort())).error, 'aborted')
})

test('collisions, invalid schemas and missing handlers are StartupErrors', () => {
  const root = scratch()
  const bad = (customTools, re) =>
    assert.throws(() => createAgentTools({ workspaceRoot: root, customTools }), (e) => {
      assert.ok(e instanceof StartupError, String(e))
      assert.match(e.message, re)
      return true
    })
  const base = { description: 'd', inputSchema: { type: 'object' }, handler: () => '' }
  bad([{ ...base, name: 'read_file' }], /^customTools\[0\]\.name collides with a built-in tool: read_file$/)
  bad([{ ...base, name: 'a' }, { ...base, name: 'a' }], /^customTools\[1\]\.name is used twice: a$/)
  // A name that differs only in case is the same tool to a model.
  for (const name of ['Bash', 'READ_FILE', 'Apply_Patch', 'Undo'])
    bad([{ ...base, name }], new RegExp(`^customTools\\[0\\]\\.name collides with a built-in tool: ${name} differs from ${name.toLowerCase()} only in case$`))
  bad([{ ...base, name: 'deploy' }, { ...base, name: 'DePloy' }], /^customTools\[1\]\.name is used twice: DePloy differs from customTools\[0\]\.name deploy only in case$/)
  bad([{ ...base, name: 'has space' }], /^customTools\[0\]\.name must match/)
  bad([{ ...base, name: 'x', inputSchema: { type: 'array' } }], /^customTools\[0\]\.inputSchema must have type "object"$/)
  bad([{ ...base, name: 'x', inputSchema: { type: 'object', properties: { a: { anyOf: [] } } } }], /unsupported keyword 'anyOf'/)
  bad([{ ...base, name: 'x', inputSchema: { type: 'object', properties: { a: { type: 'string', pattern: '[' } } } }], /pattern is not a valid regex/)
  bad([{ ...base, name: 'x', handler: 'nope' }], /^customTools\[0\]\.handler must be a function/)
  bad({ name: 'x' }, /^customTools must be an array/)
  bad([{ ...base, name: 'x', description: '' }], /description must be a non-empty string/)
  assert.throws(() => createAgentTools({ workspaceRoot: root, toolPolicy: { deny: ['nope'] }, customTools: [{ ...base, name: 'x' }] }), StartupError)
})

test('custom tools through dispatch(config), the AI SDK adapter and the MCP server', async (t) => {
  const root = scratch()
  const config = resolveConfig({ workspaceRoot: root, customTools: [lookup(), deploy] })
  assert.equal((await dispatch('lookup_ticket', { id: 'T-4' }, config)).text, 'ticket T-4')
  const tools = createAgentTools({ workspaceRoot: root, customTools: [lookup(), deploy] })
  const set = toAiSdkTools(tools)
  assert.ok(set.lookup_ticket && set.deploy)
  const { model, prompts } = scriptedModel([[['lookup_ticket', { id: 'T-5' }], ['lookup_ticket', { id: 'T-0' }], ['deploy', { env: 'dev' }]]])
  await generateText({ model, tools: set, prompt: 'go', stopWhen: stepCountIs(3) })
  const advertised = prompts[0].tools.find((x) => x.name === 'lookup_ticket')
  assert.deepEqual(advertised.inputSchema, lookup().inputSchema)
  const seen = toolResultsIn(prompts[1])
  assert.deepEqual(seen['call-0-0'], { type: 'text', value: 'ticket T-5' })
  assert.deepEqual(JSON.parse(seen['call-0-1'].value), { error: 'not_found', message: 'No ticket T-0', id: 'T-0' })
  assert.equal(JSON.parse(seen['call-0-2'].value).error, 'invalid_input')
  const client = await mcpClient(t, tools)
  const { tools: listed } = await client.listTools()
  const d = listed.find((x) => x.name === 'deploy')
  assert.equal(d.annotations.openWorldHint, true)
  const ok = await client.callTool({ name: 'lookup_ticket', arguments: { id: 'T-6', verbose: true } })
  assert.deepEqual(ok, { content: [{ type: 'text', text: 'ticket T-6 (verbose)' }], isError: false })
  const err = await client.callTool({ name: 'lookup_ticket', arguments: { id: 'T-0' } })
  assert.equal(err.isError, true)
  assert.equal(JSON.parse(err.content[0].text).error, 'not_found')
})
