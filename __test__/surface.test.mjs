// The latest (0.5) surface and the compatibility switch: result shape, registry order,
// relaxed validation (coercion, unknown keys, 0 = default) and `compat: "0.1"`.
import test from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { createAgentTools, contentText, buildConfig, dispatch, resolveConfig, StartupError, tools } from '../index.mjs'
import { latest, workspace, envelope, scratch } from './helpers.mjs'
import { noSh } from './platform.mjs'

// The original's registry order (LATER.md §1); tools this build has keep this relative order.
const REGISTRY = [
  'read_file', 'read_image', 'read_files', 'write_file', 'edit_file', 'multi_edit', 'apply_patch', 'replace',
  'list_dir', 'glob', 'grep', 'diff', 'bash', 'monitor_start', 'monitor_poll', 'monitor_stop', 'monitor_list',
  'monitor_write', 'monitor_screen',
  'move', 'copy', 'mkdir', 'remove', 'file_stat', 'tree', 'outline', 'check_syntax',
  // Ours (issue 29), after the original's.
  'find_symbol', 'find_references', 'repo_map', 'replace_symbol', 'insert_symbol',
]
const V01 = ['read_file', 'write_file', 'edit_file', 'multi_edit', 'apply_patch', 'list_dir', 'glob', 'grep', 'bash']

test('latest: listTools follows the original registry order and includes the nine', () => {
  const names = latest().tools.listTools().map((t) => t.name)
  assert.deepEqual(names, REGISTRY.filter((n) => names.includes(n)))
  for (const n of V01) assert.ok(names.includes(n), n)
  assert.deepEqual(tools.map((t) => t.name), names)
})

test('compat 0.1: the nine tools in 0.1 order with strict schemas', () => {
  const listed = workspace({}, { compat: '0.1' }).tools.listTools()
  assert.deepEqual(listed.map((t) => t.name), V01)
  for (const t of listed) assert.equal(t.inputSchema.additionalProperties, false, t.name)
  const byName = Object.fromEntries(listed.map((t) => [t.name, t.inputSchema]))
  assert.equal(byName.read_file.properties.limit.minimum, 1)
  assert.equal(byName.multi_edit.properties.edits.items.properties.old_string.minLength, 1)
})

test('latest schemas: no additionalProperties:false, minimum 0 for the relaxed limits', () => {
  const byName = Object.fromEntries(latest().tools.listTools().map((t) => [t.name, t.inputSchema]))
  assert.ok(!JSON.stringify(byName).includes('"additionalProperties":false'))
  assert.equal(byName.read_file.properties.limit.minimum, 0)
  assert.equal(byName.grep.properties.head_limit.minimum, 0)
  assert.equal(byName.bash.properties.timeout_ms.minimum, 0)
  assert.equal(byName.multi_edit.properties.edits.items.properties.old_string.minLength, undefined)
})

test('results: { isError, text, content } by default, exactly { isError, text } under compat 0.1', async () => {
  const files = { 'a.txt': 'hi\n' }
  const r = await latest(files).call('read_file', { path: 'a.txt' })
  assert.deepEqual(r, { isError: false, text: '     1\thi', content: [{ type: 'text', text: '     1\thi' }] })
  const e = await latest(files).call('read_file', { path: 'nope' })
  assert.equal(e.isError, true)
  assert.deepEqual(e.content, [{ type: 'text', text: e.text }])
  assert.deepEqual(JSON.parse(e.text), { error: 'not_found', message: 'No such file: nope', path: 'nope' })
  assert.ok(!('meta' in r), 'meta is absent unless a tool sets it')
  const old = await workspace(files, { compat: '0.1' }).call('read_file', { path: 'a.txt' })
  assert.deepEqual(old, { isError: false, text: '     1\thi' })
  const { root } = workspace(files)
  assert.deepEqual(Object.keys(await dispatch('read_file', { path: 'a.txt' }, resolveConfig({ workspaceRoot: root }))), [
    'isError',
    'text',
    'content',
  ])
})

test('contentText joins text parts; image parts count as ""', () => {
  assert.equal(contentText([{ type: 'text', text: 'a' }, { type: 'image', data: 'AA==', mimeType: 'image/png' }, { type: 'text', text: 'b' }]), 'ab')
  assert.equal(contentText([]), '')
  assert.equal(contentText(undefined), '')
})

test('latest validation coerces scalars like ajv coerceTypes and ignores unknown keys', async () => {
  const lines = Array.from({ length: 10 }, (_, i) => `l${i + 1}`).join('\n') + '\n'
  const { call } = latest({ 'a.txt': lines })
  const r = await call('read_file', { path: 'a.txt', offset: '3', limit: '2', bogus: { x: 1 } })
  assert.equal(r.isError, false)
  assert.match(r.text, /^     3\tl3\n     4\tl4\n\[\.\.\. 2 of 10 lines shown; continue with offset=5 \.\.\.\]$/)
  const g = await call('grep', { pattern: 'l1', output_mode: 'count', ignore_case: 'true' })
  assert.equal(g.text, 'a.txt:2')
  const bad = envelope(await call('read_file', { path: 'a.txt', limit: 'ten' }))
  assert.deepEqual(bad, {
    error: 'invalid_input',
    message: 'data/limit must be integer',
    issues: [{ path: '/limit', expected: 'integer', received: 'string', message: 'must be integer' }],
  })
  const notInt = envelope(await call('read_file', { path: 'a.txt', limit: '2.5' }))
  assert.equal(notInt.message, 'data/limit must be integer')
  const num = await call('write_file', { path: 'n.txt', content: 42 })
  assert.equal(num.text, 'Wrote 2 bytes to n.txt (created).')
  const strict = envelope(await workspace({ 'a.txt': 'x' }, { compat: '0.1' }).call('read_file', { path: 'a.txt', limit: '2' }))
  assert.equal(strict.message, 'data/limit must be integer')
})

test('0 means the default for read_file.limit and grep.head_limit', async () => {
  const many = Array.from({ length: 2500 }, (_, i) => `x${i}`).join('\n') + '\n'
  const { call } = latest({ 'big.txt': many, 'a.txt': 'k\n', 'b.txt': 'k\n', 'c.txt': 'k\n' })
  const r = await call('read_file', { path: 'big.txt', limit: 0 })
  assert.match(r.text, /\[\.\.\. 2000 of 2500 lines shown; continue with offset=2001 \.\.\.\]$/)
  const g = await call('grep', { pattern: '^k$', head_limit: 0 })
  assert.equal(g.text, 'a.txt\nb.txt\nc.txt')
})

test('0 means the default for bash.timeout_ms', { skip: noSh }, async () => {
  const { call } = latest()
  const b = await call('bash', { command: 'echo ok', timeout_ms: 0 })
  assert.equal(JSON.parse(b.text).stdout, 'ok\n')
})

test('multi_edit: an empty old_string is refused at run time with its index, nothing written', async () => {
  const { call, root } = latest({ 'a.txt': 'one two\n' })
  const e = envelope(await call('multi_edit', { path: 'a.txt', edits: [{ old_string: 'one', new_string: '1' }, { old_string: '', new_string: 'x' }] }))
  assert.deepEqual(e, { error: 'invalid_input', message: 'edit[1]: old_string must not be empty.', index: 1 })
  assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'one two\n')
})

test('compat option: bad values are a StartupError; buildConfig takes --compat and AGENT_TOOLS_COMPAT', () => {
  const root = scratch()
  assert.throws(() => createAgentTools({ workspaceRoot: root, compat: '0.3' }), (e) => {
    assert.ok(e instanceof StartupError)
    assert.equal(e.message, 'compat must be "0.1" or "0.5", got: 0.3')
    return true
  })
  assert.equal(createAgentTools({ workspaceRoot: root, compat: '0.5' }).listTools().length, tools.length)
  assert.deepEqual(Object.keys(buildConfig(['--workspace', root, '--compat', '0.1'], {})).includes('treeSitterAvailable'), false)
  assert.equal(buildConfig(['--workspace', root], { AGENT_TOOLS_COMPAT: '0.1' }).treeSitterAvailable, undefined)
  assert.equal(buildConfig(['--workspace', root], {}).treeSitterAvailable, true)
})

test('probeTreeSitter: false turns treeSitterAvailable off; a throwing probe counts as false', () => {
  const root = scratch()
  assert.equal(createAgentTools({ workspaceRoot: root }).config.treeSitterAvailable, true)
  assert.equal(createAgentTools({ workspaceRoot: root, probeTreeSitter: () => false }).config.treeSitterAvailable, false)
  const throwing = () => {
    throw new Error('no grammars')
  }
  assert.equal(createAgentTools({ workspaceRoot: root, probeTreeSitter: throwing }).config.treeSitterAvailable, false)
  assert.equal(buildConfig(['--workspace', root], {}, undefined, () => false).treeSitterAvailable, false)
  for (const name of ['outline', 'check_syntax', 'find_symbol', 'find_references', 'repo_map', 'replace_symbol', 'insert_symbol']) {
    const names = createAgentTools({ workspaceRoot: root, probeTreeSitter: () => false }).listTools().map((t) => t.name)
    assert.ok(!names.includes(name), name)
  }
})
