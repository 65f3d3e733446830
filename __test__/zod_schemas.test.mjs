// customTools with a Zod (3 or 4) or Standard Schema inputSchema (issue 33): converted once to
// JSON Schema for listTools, the adapters and MCP; validated natively with the usual
// invalid_input; then parsed by the schema itself (refinements, transforms) for the handler.
import test from 'node:test'
import assert from 'node:assert/strict'
import { z } from 'zod'
import { z as z3 } from 'zod/v3'
import { StartupError, dispatch } from '../index.mjs'
import { toAiSdkTools, ToolCallError } from '../ai.mjs'
import { latest, workspace, envelope } from './helpers.mjs'
import { mcpClient } from './in-process-mcp.mjs'

function deployTool(zod, seen) {
  return {
    name: 'deploy',
    description: 'Deploys a service.',
    inputSchema: zod
      .object({
        service: zod.string().min(2).describe('the service'),
        replicas: zod.number().int().min(1).max(10).default(1),
        env: zod.enum(['staging', 'prod']),
        tag: zod.string().transform((t) => t.toUpperCase()).optional(),
      })
      .refine((v) => !(v.env === 'prod' && v.replicas < 2), { message: 'prod needs at least 2 replicas', path: ['replicas'] }),
    handler: (args) => {
      seen.push(args)
      return 'deployed'
    },
  }
}

for (const [label, zod] of [
  ['Zod 4', z],
  ['Zod 3', z3],
]) {
  test(`${label}: listed as JSON Schema, validated natively, refined and transformed by the schema`, async () => {
    const seen = []
    const { tools, call } = latest({}, { customTools: [deployTool(zod, seen)] })
    const listed = tools.listTools().find((t) => t.name === 'deploy')
    assert.equal(listed.inputSchema.type, 'object')
    assert.equal(listed.inputSchema.$schema, undefined)
    assert.deepEqual(listed.inputSchema.properties.env.enum, ['staging', 'prod'])
    assert.equal(listed.inputSchema.properties.service.minLength, 2)
    assert.equal(listed.inputSchema.properties.service.description, 'the service')
    assert.deepEqual([...listed.inputSchema.required].sort(), ['env', 'service'])

    // The native validator: the same message and issues as for every tool.
    const bad = envelope(await call('deploy', { service: 'x', env: 'dev' }))
    assert.equal(bad.error, 'invalid_input')
    assert.match(bad.message, /data\/service must NOT have fewer than 2 characters/)
    assert.match(bad.message, /data\/env must be equal to one of the allowed values/)
    assert.deepEqual(bad.issues.map((i) => i.path).sort(), ['/env', '/service'])
    assert.deepEqual(seen, [])

    // The refinement: the schema's own parse, as an invalid_input of the same shape.
    const refined = envelope(await call('deploy', { service: 'api', env: 'prod' }))
    assert.deepEqual(refined, {
      error: 'invalid_input',
      message: 'data/replicas prod needs at least 2 replicas',
      issues: [{ path: '/replicas', expected: 'custom', received: '1', message: 'prod needs at least 2 replicas' }],
    })
    assert.deepEqual(seen, [])

    // Valid: the handler receives the parsed value (default filled, transform applied).
    const ok = await call('deploy', { service: 'api', env: 'staging', tag: 'v1' })
    assert.equal(ok.isError, false, ok.text)
    assert.deepEqual(seen, [{ service: 'api', replicas: 1, env: 'staging', tag: 'V1' }])

    // A copy of the config behaves as the config.
    const copy = await dispatch('deploy', { service: 'api', env: 'prod' }, { ...tools.config })
    assert.match(envelope(copy).message, /prod needs at least 2 replicas/)
  })
}

test('the AI SDK adapter and MCP see the converted schema and the same refusals', async (t) => {
  const seen = []
  const { tools } = latest({}, { customTools: [deployTool(z, seen)] })
  const set = toAiSdkTools(tools)
  const schema = await set.deploy.inputSchema.jsonSchema
  assert.deepEqual(schema.properties.env.enum, ['staging', 'prod'])
  await assert.rejects(
    set.deploy.execute({ service: 'api', env: 'prod' }, { toolCallId: 'c', messages: [] }),
    (e) => e instanceof ToolCallError && e.code === 'invalid_input' && /prod needs at least 2 replicas/.test(e.message),
  )
  const client = await mcpClient(t, tools)
  const listed = (await client.listTools()).tools.find((x) => x.name === 'deploy')
  assert.equal(listed.inputSchema.properties.replicas.type, 'integer')
  const r = await client.callTool({ name: 'deploy', arguments: { service: 'api', env: 'prod', replicas: 3 } })
  assert.notEqual(r.isError, true)
  assert.equal(r.content[0].text, 'deployed')
  assert.deepEqual(seen, [{ service: 'api', replicas: 3, env: 'prod' }])
})

test('any Standard Schema that carries its JSON Schema works; one without is a StartupError', async () => {
  const seen = []
  const standard = {
    '~standard': {
      version: 1,
      vendor: 'hand-made',
      validate: (v) => (v.n % 2 === 0 ? { value: { n: v.n, half: v.n / 2 } } : { issues: [{ message: 'must be even', path: ['n'] }] }),
      jsonSchema: { input: () => ({ type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] }) },
    },
  }
  const tool = { name: 'halve', description: 'Halves.', inputSchema: standard, handler: (a) => (seen.push(a), 'ok') }
  const { call } = latest({}, { customTools: [tool] })
  assert.equal(envelope(await call('halve', { n: 'x' })).message, 'data/n must be integer')
  assert.deepEqual(envelope(await call('halve', { n: 3 })).issues, [{ path: '/n', expected: 'a valid value', received: '3', message: 'must be even' }])
  assert.equal((await call('halve', { n: 4 })).isError, false)
  assert.deepEqual(seen, [{ n: 4, half: 2 }])
  const bare = { '~standard': { version: 1, vendor: 'x', validate: (v) => ({ value: v }) } }
  assert.throws(
    () => latest({}, { customTools: [{ ...tool, inputSchema: bare }] }),
    (e) => e instanceof StartupError && /^customTools\[0\]\.inputSchema \(tool 'halve'\): the schema cannot be converted to JSON Schema: a Standard Schema without ~standard\.jsonSchema/.test(e.message),
  )
})

test('a schema that cannot be converted is a StartupError naming the tool and the field', () => {
  const base = { name: 'hook', description: 'x', handler: () => 'ok' }
  for (const [label, schema] of [
    ['Zod 4 function', z.object({ ok: z.string(), cb: z.function() })],
    ['Zod 4 custom', z.object({ ok: z.string(), cb: z.custom((v) => typeof v === 'function') })],
    ['Zod 3 function', z3.object({ ok: z3.string(), cb: z3.function() })],
    ['Zod 3 date', z3.object({ ok: z3.string(), cb: z3.date() })],
  ]) {
    assert.throws(
      () => latest({}, { customTools: [{ ...base, inputSchema: schema }] }),
      (e) => e instanceof StartupError && /^customTools\[0\]\.inputSchema \(tool 'hook'\): field 'cb' cannot be converted to JSON Schema: /.test(e.message),
      label,
    )
  }
  assert.throws(
    () => latest({}, { customTools: [{ ...base, inputSchema: z.string() }] }),
    (e) => e instanceof StartupError && /the schema must describe an object/.test(e.message),
  )
  // A transform with no input type of its own cannot describe its arguments.
  assert.throws(
    () => latest({}, { customTools: [{ ...base, inputSchema: z.object({ x: z.transform((v) => String(v)) }) }] }),
    (e) => e instanceof StartupError && /field 'x' cannot be converted/.test(e.message),
  )
})

test('under compat "0.1" a refusal of the schema is exactly { error, message }', async () => {
  const { call } = workspace({}, { customTools: [deployTool(z, [])] })
  const r = await call('deploy', { service: 'api', env: 'prod' })
  assert.deepEqual(Object.keys(r), ['isError', 'text'])
  assert.deepEqual(JSON.parse(r.text), { error: 'invalid_input', message: 'data/replicas prod needs at least 2 replicas' })
})
