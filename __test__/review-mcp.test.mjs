// Review mode through MCP (SPEC §13, "MCP"): `clarvis-agent-tools mcp --review` stages every
// file tool's change, driven by the SDK's stdio client; the host accepts either from its own
// process (a tools object on the same scope: the staging area is shared through the disk,
// both ways) or, with `--review-tools`, through the opt-in review tools the server lists only
// then.
import test from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { createAgentTools, buildConfig, StartupError } from '../index.mjs'
import { ws as stagedWs } from './review-helpers.mjs'

const BIN = fileURLToPath(new URL('../bin/clarvis-agent-tools.mjs', import.meta.url))
const CLAUSE = ' (Staged for review: the change reaches disk when the host accepts it.)'
const REVIEW_TOOLS = ['review_pending', 'review_accept', 'review_reject']

const ws = (files) => stagedWs(files, 'review-mcp-')

async function connect(t, root, args) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', '--workspace', root, ...args],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp' },
    stderr: 'pipe',
  })
  const client = new Client({ name: 'review-mcp-test', version: '1.0.0' })
  await client.connect(transport)
  t.after(() => client.close())
  const call = async (name, args) => {
    const r = await client.callTool({ name, arguments: args })
    return { isError: r.isError, text: r.content.map((c) => c.text).join('') }
  }
  return { client, call }
}

const read = (root, rel) => fs.readFileSync(path.join(root, rel), 'utf8')

test('mcp --review: the model\'s edits are staged; the host accepts from its own process on the same scope, and the server sees it', async (t) => {
  const root = ws({ 'a.txt': 'one\n', 'b.txt': 'bee\n' })
  const { client, call } = await connect(t, root, ['--review-scope', 'task-7'])
  const names = (await client.listTools()).tools.map((x) => x.name)
  // Accepting is the host's decision: no review tool unless the host asks for them.
  for (const n of REVIEW_TOOLS) assert.equal(names.includes(n), false, n)
  assert.equal((await call('review_accept', {})).isError, true)

  const r = await call('edit_file', { path: 'a.txt', old_string: 'one', new_string: 'two' })
  assert.equal(r.isError, false, r.text)
  assert.ok(r.text.endsWith(CLAUSE), r.text)
  assert.equal((await call('write_file', { path: 'new/c.txt', content: 'sea\n' })).isError, false)
  // Disk untouched; the model sees its own work.
  assert.equal(read(root, 'a.txt'), 'one\n')
  assert.equal(fs.existsSync(path.join(root, 'new')), false)
  assert.match((await call('read_file', { path: 'a.txt' })).text, /two/)

  // The host's own tools object on the same scope finds the server's pending changes.
  const host = createAgentTools({ workspaceRoot: root, review: { scope: 'task-7' } })
  const pending = await host.pending()
  assert.deepEqual(pending.map((c) => [c.path, c.kind]), [['a.txt', 'modified'], ['new/c.txt', 'created']])
  assert.match(pending[0].diff, /-one\n\+two/)
  // Another scope sees none of it.
  assert.deepEqual(await createAgentTools({ workspaceRoot: root, review: { scope: 'other' } }).pending(), [])

  // The server stages more after the host opened the scope: the host sees that too.
  assert.equal((await call('remove', { path: 'b.txt' })).isError, false)
  assert.deepEqual((await host.pending()).map((c) => c.path), ['a.txt', 'b.txt', 'new/c.txt'])

  // The host accepts one and rejects one; the server's reads follow.
  assert.deepEqual((await host.accept(['a.txt'])).accepted, [{ path: 'a.txt', kind: 'modified' }])
  assert.deepEqual(await host.reject(['new/c.txt']), { rejected: ['new/c.txt'] })
  assert.equal(read(root, 'a.txt'), 'two\n')
  assert.match((await call('read_file', { path: 'a.txt' })).text, /two/)
  assert.equal((await call('read_file', { path: 'new/c.txt' })).isError, true)
  assert.equal((await call('read_file', { path: 'b.txt' })).isError, true)
  // The server edits the accepted file again: staged against the new disk, no conflict.
  assert.equal((await call('edit_file', { path: 'a.txt', old_string: 'two', new_string: 'three' })).isError, false)
  const last = await host.accept()
  assert.deepEqual(last.conflicts, [])
  assert.deepEqual(last.accepted.map((c) => c.path), ['a.txt', 'b.txt'])
  assert.equal(read(root, 'a.txt'), 'three\n')
  assert.equal(fs.existsSync(path.join(root, 'b.txt')), false)
  assert.deepEqual(await host.pending(), [])
})

test('mcp --review-tools: review_pending / review_accept / review_reject are listed and act on the server\'s scope', async (t) => {
  const root = ws({ 'a.txt': 'one\n', 'b.txt': 'bee\n' })
  const { client, call } = await connect(t, root, ['--review-tools'])
  const listed = (await client.listTools()).tools
  const byName = Object.fromEntries(listed.map((x) => [x.name, x]))
  for (const n of REVIEW_TOOLS) assert.ok(byName[n], n)
  assert.equal(byName.review_pending.annotations.readOnlyHint, true)
  assert.equal(byName.review_accept.annotations.destructiveHint, true)

  await call('edit_file', { path: 'a.txt', old_string: 'one', new_string: 'two' })
  await call('edit_file', { path: 'b.txt', old_string: 'bee', new_string: 'BEE' })
  const pending = JSON.parse((await call('review_pending', {})).text)
  assert.deepEqual(pending.map((c) => [c.path, c.kind]), [['a.txt', 'modified'], ['b.txt', 'modified']])
  assert.match(pending[0].diff, /-one\n\+two/)
  assert.equal(read(root, 'a.txt'), 'one\n')

  // A conflict through the tool: nothing applied.
  fs.writeFileSync(path.join(root, 'b.txt'), 'user\n')
  const conflicted = JSON.parse((await call('review_accept', {})).text)
  assert.deepEqual(conflicted, { accepted: [], conflicts: [{ path: 'b.txt', reason: 'changed on disk since it was staged' }] })
  assert.equal(read(root, 'a.txt'), 'one\n')

  const accepted = JSON.parse((await call('review_accept', { paths: ['a.txt'] })).text)
  assert.deepEqual(accepted, { accepted: [{ path: 'a.txt', kind: 'modified' }], conflicts: [] })
  assert.equal(read(root, 'a.txt'), 'two\n')
  assert.deepEqual(JSON.parse((await call('review_reject', {})).text), { rejected: ['b.txt'] })
  assert.deepEqual(JSON.parse((await call('review_pending', {})).text), [])
  assert.equal(read(root, 'b.txt'), 'user\n')
  // A path with nothing staged: the not_found envelope.
  const missing = await call('review_accept', { paths: ['a.txt'] })
  assert.equal(missing.isError, true)
  assert.equal(JSON.parse(missing.text).error, 'not_found')
})

test('the command line\'s review options: flags, CLARVIS_REVIEW, and their refusals', () => {
  const root = ws({})
  const cfg = (argv, env = {}) => buildConfig(['--workspace', root, ...argv], env)
  assert.equal(cfg([]).review, undefined)
  assert.deepEqual(cfg(['--review']).review, { scope: 'default', commands: 'refuse' })
  assert.deepEqual(cfg(['--review-scope=t1', '--review-commands', 'direct']).review, { scope: 't1', commands: 'direct' })
  assert.deepEqual(cfg(['--review-tools']).review, { scope: 'default', commands: 'refuse', tools: true })
  assert.deepEqual(cfg([], { CLARVIS_REVIEW: '1' }).review, { scope: 'default', commands: 'refuse' })
  assert.deepEqual(cfg(['--review-scope', 'x'], { CLARVIS_REVIEW: '{"scope":"env","commands":"direct"}' }).review, { scope: 'x', commands: 'direct' })
  assert.equal(cfg(['--review-tools']).review.tools, true)
  assert.equal(createAgentTools(cfg(['--review-tools'])).listTools().filter((x) => REVIEW_TOOLS.includes(x.name)).length, 3)
  assert.equal(createAgentTools(cfg(['--review'])).listTools().filter((x) => REVIEW_TOOLS.includes(x.name)).length, 0)
  for (const [argv, message] of [
    [['--review-scope', '../up'], /review\.scope must be/],
    [['--review-scope'], /--review-scope requires an argument/],
    [['--review-commands', 'sometimes'], /review\.commands must be/],
  ]) {
    assert.throws(() => cfg(argv), (e) => e instanceof StartupError && message.test(e.message))
  }
  assert.throws(() => cfg([], { CLARVIS_REVIEW: 'maybe' }), StartupError)
})
