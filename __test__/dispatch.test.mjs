import { test } from 'node:test'
import assert from 'node:assert/strict'
import {
  createAgentTools, dispatch, listTools, resolveConfig, tools, readOnlyTools, getTool, selectSurface,
  ToolError, serializeError, fsError, setWarnSink,
} from '../index.mjs'
import { workspace, envelope, scratch } from './helpers.mjs'
import fs from 'node:fs'
import path from 'node:path'

// This suite injects faults through `__testHooks`, which only work with this variable set.
process.env.CLARVIS_AGENT_TOOLS_TEST_HOOKS = '1'

const ALL = ['read_file', 'write_file', 'edit_file', 'multi_edit', 'apply_patch', 'list_dir', 'glob', 'grep', 'bash']
const READ = ['read_file', 'list_dir', 'glob', 'grep']

test('compat 0.1 surface: the nine tools in 0.1 order, or the four read tools in read-only mode', async () => {
  const rw = workspace()
  assert.deepEqual(rw.tools.listTools().map((t) => t.name), ALL)
  const ro = workspace({ 'a.txt': 'x' }, { readOnly: true })
  assert.deepEqual(ro.tools.listTools().map((t) => t.name), READ)
  assert.deepEqual(envelope(await ro.call('write_file', { path: 'b', content: '' })),
    { error: 'not_found', message: 'Unknown tool: write_file' })
  assert.deepEqual(envelope(await rw.call('no_such_tool', {})), { error: 'not_found', message: 'Unknown tool: no_such_tool' })
  // The exported registry is the latest surface: the nine keep their relative order in it.
  assert.deepEqual(tools.map((t) => t.name).filter((n) => ALL.includes(n)), ALL)
  assert.deepEqual(readOnlyTools.map((t) => t.name).filter((n) => READ.includes(n)), READ)
  assert.equal(selectSurface(true), readOnlyTools)
  assert.equal(selectSurface(false), tools)
  assert.equal(getTool('bash').name, 'bash')
  assert.equal(getTool('bash', readOnlyTools), undefined)
  assert.deepEqual(listTools(ro.tools.config).map((t) => t.name), READ)
})

test('every advertised schema is a closed object schema with a description', () => {
  for (const t of workspace().tools.listTools()) {
    assert.equal(t.inputSchema.type, 'object')
    assert.equal(t.inputSchema.additionalProperties, false)
    assert.ok(t.description.length > 80, `${t.name} description too thin`)
  }
})

test('listTools returns a fresh copy each time', () => {
  const { tools: t } = workspace()
  const a = t.listTools()
  a[0].inputSchema.properties = {}
  assert.notDeepEqual(t.listTools()[0].inputSchema.properties, {})
})

test('validation: ajv wording, all errors, schema order', async () => {
  const { call } = workspace({ 'a.txt': 'x' })
  assert.deepEqual(envelope(await call('read_file', {})),
    { error: 'invalid_input', message: "data must have required property 'path'" })
  assert.deepEqual(envelope(await call('read_file', { path: 1, extra: true, limit: 0 })), {
    error: 'invalid_input',
    message: 'data must NOT have additional properties; data/path must be string; data/limit must be >= 1',
  })
  assert.equal(envelope(await call('read_file', { path: 'a.txt', offset: 1.5 })).message, 'data/offset must be integer')
  assert.equal(envelope(await call('read_file', null)).message, 'data must be object')
  assert.equal(envelope(await call('read_file', [])).message, 'data must be object')
  assert.equal(envelope(await call('grep', { pattern: 'x', output_mode: 'lines' })).message,
    'data/output_mode must be equal to one of the allowed values')
  assert.equal(envelope(await call('multi_edit', { path: 'a.txt', edits: [] })).message,
    'data/edits must NOT have fewer than 1 items')
  assert.equal(envelope(await call('multi_edit', { path: 'a.txt', edits: [{ old_string: 1, new_string: 'y' }] })).message,
    'data/edits/0/old_string must be string')
  assert.equal(envelope(await call('edit_file', { path: 'a.txt', old_string: '', new_string: 'y' })).message,
    'data/old_string must NOT have fewer than 1 characters')
  assert.equal(envelope(await call('grep', { pattern: 'x', head_limit: 0 })).message, 'data/head_limit must be >= 1')
})

test("defaults are filled on a copy: the caller's object is never mutated", async () => {
  const { call } = workspace({ 'a.txt': 'x\n' })
  const args = { path: 'a.txt' }
  const frozen = Object.freeze({ path: 'a.txt' })
  assert.equal((await call('read_file', args)).text, '     1\tx')
  assert.deepEqual(args, { path: 'a.txt' })
  assert.equal((await call('read_file', frozen)).isError, false)
})

test('arguments that are not plain JSON are invalid_input, never a rejection', async () => {
  const { call } = workspace({ 'a.txt': 'x' })
  const cyclic = { path: 'a.txt' }
  cyclic.self = cyclic
  for (const args of [{ path: () => 1 }, { path: Symbol('s') }, { path: 10n }, cyclic, () => {}]) {
    const r = await call('read_file', args)
    assert.equal(envelope(r).error, 'invalid_input')
  }
  // undefined arguments mean {}
  assert.equal(envelope(await call('read_file')).message, "data must have required property 'path'")
})

test('output is bounded with the exact marker', async () => {
  const names = {}
  for (let i = 0; i < 200; i++) names[`file-with-a-long-name-${String(i).padStart(3, '0')}.txt`] = ''
  const { call } = workspace(names, { maxOutputBytes: 1024 })
  const r = await call('list_dir', {})
  assert.equal(r.isError, false)
  const m = r.text.match(/\n\[\.\.\. output truncated: (\d+) of (\d+) bytes shown \.\.\.\]$/)
  assert.ok(m, r.text.slice(-200))
  assert.equal(Number(m[1]), 1024)
  assert.equal(Buffer.byteLength(r.text.slice(0, m.index)), 1024)
  assert.ok(Number(m[2]) > 1024)
})

test('a panic inside a tool becomes internal; the process survives; the detail goes to the warn sink', async () => {
  const root = scratch()
  const t = createAgentTools({ workspaceRoot: root, compat: '0.1', __testHooks: { panicIn: 'list_dir' } })
  const lines = []
  setWarnSink((l) => lines.push(l))
  try {
    const r = await t.callTool('list_dir', {})
    assert.deepEqual(r, { isError: true, text: '{"error":"internal","message":"internal error"}' })
    assert.equal(lines.length, 1)
    assert.match(lines[0], /^clarvis-agent-tools: internal error: .*deliberate panic in list_dir.*\n$/s)
    // Still alive and working afterwards.
    assert.equal((await t.callTool('read_file', { path: 'nope' })).isError, true)
  } finally {
    setWarnSink(null)
  }
})

test('read_file, which runs its whole pipeline on one pool thread, reports a panic the same way', async () => {
  const root = scratch()
  fs.writeFileSync(path.join(root, 'a.txt'), 'hi\n')
  const t = createAgentTools({ workspaceRoot: root, __testHooks: { panicIn: 'read_file' } })
  const lines = []
  setWarnSink((l) => lines.push(l))
  try {
    const r = await t.callTool('read_file', { path: 'a.txt' })
    assert.deepEqual(r, {
      isError: true,
      text: '{"error":"internal","message":"internal error"}',
      content: [{ type: 'text', text: '{"error":"internal","message":"internal error"}' }],
    })
    assert.equal(lines.length, 1)
    assert.match(lines[0], /^clarvis-agent-tools: internal error: panic in read_file: test hook: deliberate panic in read_file\n$/)
    // Validation still comes first, and other tools are unaffected.
    assert.equal(JSON.parse((await t.callTool('read_file', {})).text).error, 'invalid_input')
    assert.equal((await t.callTool('list_dir', {})).isError, false)
  } finally {
    setWarnSink(null)
  }
})

test('dispatch(name, args, config) works with a resolved or a hand-built config', async () => {
  const { root } = workspace({ 'a.txt': 'hi\n' })
  const config = resolveConfig({ workspaceRoot: root, compat: '0.1' })
  assert.deepEqual(await dispatch('read_file', { path: 'a.txt' }, config), { isError: false, text: '     1\thi' })
  const handmade = { ...config, readOnly: true }
  assert.equal(JSON.parse((await dispatch('bash', { command: 'true' }, handmade)).text).error, 'not_found')
})

test('registry handlers resolve to text or throw ToolError', async () => {
  const { root } = workspace({ 'a.txt': 'hi\n' })
  const config = resolveConfig({ workspaceRoot: root, compat: '0.1' })
  assert.equal(await getTool('read_file').handler({ path: 'a.txt' }, config), '     1\thi')
  await assert.rejects(getTool('read_file').handler({ path: 'zz' }, config), (e) => {
    assert.ok(e instanceof ToolError)
    assert.equal(e.code, 'not_found')
    assert.deepEqual(e.fields, { path: 'zz' })
    return true
  })
})

test('serializeError and fsError', () => {
  assert.equal(serializeError(new ToolError('no_match', 'nope', { index: 2 })), '{"error":"no_match","message":"nope","index":2}')
  const lines = []
  setWarnSink((l) => lines.push(l))
  try {
    assert.equal(serializeError(new Error('boom')), '{"error":"internal","message":"internal error"}')
    assert.match(lines[0], /^clarvis-agent-tools: internal error: Error: boom/)
  } finally {
    setWarnSink(null)
  }
  const enoent = Object.assign(new Error("ENOENT: no such file or directory, open 'x'"), { code: 'ENOENT' })
  assert.deepEqual({ ...fsError(enoent, './x') }, { name: 'ToolError', code: 'not_found', fields: { path: './x' } })
  assert.equal(fsError(enoent, './x').message, 'No such file: ./x')
  const eacces = Object.assign(new Error("EACCES: permission denied, open 'x'"), { code: 'EACCES' })
  assert.equal(fsError(eacces, 'x').message, 'EACCES: permission denied')
  assert.equal(fsError({ code: 'EISDIR' }, 'd').code, 'not_a_file')
  assert.equal(fsError({ code: 'ENOTDIR' }, 'd').message, 'Not a directory: d')
})

test('50 parallel calls on one AgentTools all succeed', async () => {
  const files = {}
  for (let i = 0; i < 50; i++) files[`f${i}.txt`] = `line ${i}\n`
  const { call } = workspace(files)
  const results = await Promise.all(
    Array.from({ length: 50 }, (_, i) => (i % 2 ? call('read_file', { path: `f${i}.txt` }) : call('list_dir', {}))),
  )
  results.forEach((r, i) => {
    assert.equal(r.isError, false)
    if (i % 2) assert.equal(r.text, `     1\tline ${i}`)
  })
})

test('__testHooks are ignored unless CLARVIS_AGENT_TOOLS_TEST_HOOKS=1', async () => {
  const root = scratch()
  delete process.env.CLARVIS_AGENT_TOOLS_TEST_HOOKS
  try {
    const t = createAgentTools({ workspaceRoot: root, compat: '0.1', __testHooks: { panicIn: 'list_dir' } })
    assert.deepEqual(await t.callTool('list_dir', {}), { isError: false, text: '(empty directory)' })
  } finally {
    process.env.CLARVIS_AGENT_TOOLS_TEST_HOOKS = '1'
  }
})
