// staleWrites: "refuse": whole-file overwrites of a file the model has not seen as it is now
// are refused with stale_write (content hashes, never timestamps); the default changes nothing.
import test from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { createAgentTools, StartupError, buildConfig } from '../index.mjs'
import { toAiSdkTools, ToolCallError } from '../ai.mjs'
import { latest, envelope } from './helpers.mjs'
import { mcpClient } from './in-process-mcp.mjs'
import { native } from './platform.mjs'

const refusing = (files) => latest(files, { staleWrites: 'refuse' })

test('the default ("allow") overwrites an unread file, as the original does', async () => {
  const { root, call, tools } = latest({ 'a.txt': 'theirs\n' })
  assert.equal(tools.config.staleWrites, undefined)
  const r = await call('write_file', { path: 'a.txt', content: 'mine\n' })
  assert.equal(r.isError, false, r.text)
  assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'mine\n')
})

test('an unread file is refused, with the path for the model and meta for the host', async () => {
  const { root, call, tools } = refusing({ 'src/a.txt': 'theirs\n' })
  assert.equal(tools.config.staleWrites, 'refuse')
  const r = await call('write_file', { path: 'src/a.txt', content: 'mine\n' })
  assert.deepEqual(envelope(r), {
    error: 'stale_write',
    // The message and meta show the display path (`src\a.txt` on Windows); `path` is the input.
    message: `${native('src/a.txt')} has not been read in full yet: read it with read_file (every line) before replacing or deleting it, or change part of it with edit_file.`,
    path: 'src/a.txt',
  })
  assert.deepEqual(r.meta, { staleWrite: { path: native('src/a.txt'), reason: 'not_read' } })
  assert.equal(fs.readFileSync(path.join(root, 'src/a.txt'), 'utf8'), 'theirs\n')
  // A new file is not stale.
  assert.equal((await call('write_file', { path: 'src/new.txt', content: 'x' })).isError, false)
})

test('after a full read the write goes through; an external change since is refused until read again', async () => {
  const { root, call } = refusing({ 'a.txt': 'one\ntwo\n' })
  const file = path.join(root, 'a.txt')
  assert.equal((await call('read_file', { path: 'a.txt' })).isError, false)
  assert.equal((await call('write_file', { path: 'a.txt', content: 'v1\n' })).isError, false)
  // Our own write counts as shown: writing again is fine.
  assert.equal((await call('write_file', { path: 'a.txt', content: 'v2\n' })).isError, false)
  // The user saves over it.
  fs.writeFileSync(file, 'the user typed this\n')
  const r = await call('write_file', { path: 'a.txt', content: 'v3\n' })
  assert.equal(envelope(r).error, 'stale_write')
  assert.match(envelope(r).message, /has changed since you last read it .* read it again with read_file/)
  assert.deepEqual(r.meta, { staleWrite: { path: 'a.txt', reason: 'changed' } })
  assert.equal(fs.readFileSync(file, 'utf8'), 'the user typed this\n')
  await call('read_file', { path: 'a.txt' })
  assert.equal((await call('write_file', { path: 'a.txt', content: 'v3\n' })).isError, false)
})

test('a touched but unchanged file is not stale (no timestamps)', async () => {
  const { root, call } = refusing({ 'a.txt': 'same\n' })
  const file = path.join(root, 'a.txt')
  await call('read_file', { path: 'a.txt' })
  const later = new Date(Date.now() + 3_600_000)
  fs.utimesSync(file, later, later)
  fs.writeFileSync(file, 'same\n') // rewritten with identical bytes
  fs.utimesSync(file, later, later)
  assert.equal((await call('write_file', { path: 'a.txt', content: 'new\n' })).isError, false)
})

test('a partial read is not enough; pages that cover every line are', async () => {
  const body = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n') + '\n'
  const { call } = refusing({ 'a.txt': body })
  await call('read_file', { path: 'a.txt', limit: 4 })
  assert.equal(envelope(await call('write_file', { path: 'a.txt', content: 'x' })).error, 'stale_write')
  await call('read_file', { path: 'a.txt', offset: 8 })
  assert.equal(envelope(await call('write_file', { path: 'a.txt', content: 'x' })).error, 'stale_write')
  await call('read_file', { path: 'a.txt', offset: 5, limit: 3 })
  assert.equal((await call('write_file', { path: 'a.txt', content: 'x' })).isError, false)
})

test('read_files counts for the files it showed whole, not for a cut one', async () => {
  const big = 'y'.repeat(200) + '\n'
  const { call } = latest(
    { 'a.txt': 'a\n', 'b.txt': big.repeat(40) },
    { staleWrites: 'refuse', maxOutputBytes: 2048 },
  )
  const r = await call('read_files', { paths: ['a.txt', 'b.txt'] })
  assert.match(r.text, /lines shown; use read_file for the rest/)
  assert.equal((await call('write_file', { path: 'a.txt', content: 'x' })).isError, false)
  assert.equal(envelope(await call('write_file', { path: 'b.txt', content: 'x' })).error, 'stale_write')
})

test('edit_file stays allowed, and its own write makes a later overwrite fresh', async () => {
  const { call } = refusing({ 'a.txt': 'alpha\nbeta\n' })
  assert.equal((await call('edit_file', { path: 'a.txt', old_string: 'beta', new_string: 'gamma' })).isError, false)
  assert.equal((await call('write_file', { path: 'a.txt', content: 'all new\n' })).isError, false)
})

test('apply_patch: a delete or a whole replacement of a changed or unread file is refused; hunks are not', async () => {
  const { root, call } = refusing({ 'gone.txt': 'x\n', 'keep.txt': 'a\nb\nc\n', 'all.txt': 'p\nq\n' })
  const del = '*** Begin Patch\n*** Delete File: gone.txt\n*** End Patch'
  let r = await call('apply_patch', { patch: del })
  assert.deepEqual(envelope(r).error, 'stale_write')
  assert.deepEqual(r.meta, { staleWrite: { path: 'gone.txt', reason: 'not_read' } })
  assert.ok(fs.existsSync(path.join(root, 'gone.txt')))
  // A hunk edit anchors on the file's own lines: allowed unread.
  const hunk = '*** Begin Patch\n*** Update File: keep.txt\n@@\n a\n-b\n+B\n c\n*** End Patch'
  assert.equal((await call('apply_patch', { patch: hunk })).isError, false)
  // Removing every line replaces the whole file.
  const whole = '--- a/all.txt\n+++ b/all.txt\n@@ -1,2 +1,1 @@\n-p\n-q\n+r\n'
  assert.equal(envelope(await call('apply_patch', { patch: whole })).error, 'stale_write')
  await call('read_file', { path: 'all.txt' })
  assert.equal((await call('apply_patch', { patch: whole })).isError, false)
  await call('read_file', { path: 'gone.txt' })
  assert.equal((await call('apply_patch', { patch: del })).isError, false)
  assert.ok(!fs.existsSync(path.join(root, 'gone.txt')))
})

test('a bad value is a StartupError', () => {
  const { root } = latest()
  assert.throws(() => createAgentTools({ workspaceRoot: root, staleWrites: 'yes' }), (e) => e instanceof StartupError && e.message === 'staleWrites must be "refuse" or "allow", got: yes')
  assert.equal(createAgentTools({ workspaceRoot: root, staleWrites: 'allow' }).config.staleWrites, undefined)
})

test('the same refusal through MCP and the AI SDK adapter', async (t) => {
  const { root, tools } = refusing({ 'a.txt': 'theirs\n' })
  const client = await mcpClient(t, tools)
  const r = await client.callTool({ name: 'write_file', arguments: { path: 'a.txt', content: 'mine' } })
  assert.equal(r.isError, true)
  assert.equal(JSON.parse(r.content[0].text).error, 'stale_write')
  const set = toAiSdkTools(tools)
  await assert.rejects(set.write_file.execute({ path: 'a.txt', content: 'mine' }, { toolCallId: 'c', messages: [] }), (e) => e instanceof ToolCallError && e.code === 'stale_write' && e.fields.path === 'a.txt')
  assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'theirs\n')
})

test('the CLI: --refuse-stale-writes or STALE_WRITES=refuse turns it on (the flag wins)', () => {
  const { root } = latest()
  assert.equal(buildConfig(['--workspace', root, '--refuse-stale-writes'], {}).staleWrites, 'refuse')
  assert.equal(buildConfig(['--workspace', root], { STALE_WRITES: 'refuse' }).staleWrites, 'refuse')
  assert.equal(buildConfig(['--workspace', root], { STALE_WRITES: 'allow' }).staleWrites, undefined)
  assert.equal(buildConfig(['--workspace', root, '--refuse-stale-writes'], { STALE_WRITES: 'allow' }).staleWrites, 'refuse')
  assert.equal(buildConfig(['--workspace', root], {}).staleWrites, undefined)
  assert.throws(() => buildConfig(['--workspace', root], { STALE_WRITES: 'on' }), (e) => e instanceof StartupError && /staleWrites must be "refuse" or "allow", got: on/.test(e.message))
})
