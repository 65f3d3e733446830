// Host control (issue 15): structured validation issues, writeScope and @path mentions, through
// the public API, the AI SDK adapter and the MCP server.
import test from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { generateText, stepCountIs } from 'ai'
import { createAgentTools, StartupError } from '../index.mjs'
import { toAiSdkTools } from '../ai.mjs'
import { latest, workspace, envelope, scratch } from './helpers.mjs'
import { scriptedModel, toolResultsIn } from './scripted-model.mjs'
import { mcpClient } from './in-process-mcp.mjs'
import { native, noSymlinks } from './platform.mjs'

test('a schema failure carries issues with JSON-pointer paths; the message is unchanged', async () => {
  const { call } = latest({ 'a.txt': 'a\n' })
  const e = envelope(await call('multi_edit', { path: 'a.txt', edits: [{ old_string: [1], new_string: 'x' }, { new_string: 'y' }] }))
  assert.equal(e.error, 'invalid_input')
  assert.equal(
    e.message,
    "data/edits/0/old_string must be string; data/edits/1 must have required property 'old_string'",
  )
  assert.deepEqual(e.issues, [
    { path: '/edits/0/old_string', expected: 'string', received: 'array', message: 'must be string' },
    { path: '/edits/1/old_string', expected: 'string', received: 'undefined', message: "must have required property 'old_string'" },
  ])
  const r = envelope(await call('read_files', { paths: [] }))
  assert.deepEqual(r.issues, [
    { path: '/paths', expected: 'at least 1 items', received: '0 items', message: 'must NOT have fewer than 1 items' },
  ])
  const g = envelope(await call('grep', { pattern: 'x', output_mode: 'lines' }))
  assert.equal(g.issues[0].path, '/output_mode')
  assert.match(g.issues[0].expected, /^one of \["files_with_matches","content","count"\]/)
  assert.equal(g.issues[0].received, '"lines"')
  // A handler's own invalid_input (not the schema's) has no issues.
  const own = envelope(await call('read_file', { path: 'a.txt', offset: 0 }))
  assert.equal(own.error, 'invalid_input')
  assert.equal(own.issues, undefined)
})

test('under compat "0.1" the envelope stays exactly {error, message}', async () => {
  const { call } = workspace({ 'a.txt': 'a\n' })
  assert.deepEqual(envelope(await call('read_file', { path: 'a.txt', limit: 'x', extra: 1 })), {
    error: 'invalid_input',
    message: 'data must NOT have additional properties; data/limit must be integer',
  })
})

test('issues reach the model through the AI SDK adapter and the MCP server', async (t) => {
  const ws = latest({ 'a.txt': 'x\n' })
  const { model, prompts } = scriptedModel([[['read_file', { path: 'a.txt', offset: 'one' }]]])
  await generateText({ model, tools: toAiSdkTools(ws.tools), prompt: 'go', stopWhen: stepCountIs(3) })
  const seen = toolResultsIn(prompts[1])['call-0-0']
  assert.equal(seen.type, 'error-text')
  assert.deepEqual(JSON.parse(seen.value).issues, [
    { path: '/offset', expected: 'integer', received: 'string', message: 'must be integer' },
  ])
  const client = await mcpClient(t, ws.tools)
  const r = await client.callTool({ name: 'read_file', arguments: { path: 'a.txt', limit: -1 } })
  assert.equal(r.isError, true)
  assert.deepEqual(JSON.parse(r.content[0].text).issues, [{ path: '/limit', expected: '>= 0', received: '-1', message: 'must be >= 0' }])
})

test('writeScope: every mutating tool refuses a target outside the scope, by real location', async () => {
  const { call, root } = latest(
    { 'src/a.ts': 'one\n', 'docs/d.md': 'doc\n', 'top.txt': 'top\n' },
    { writeScope: ['src', 'gen/'] },
  )
  if (!noSymlinks) fs.symlinkSync(path.join(root, 'docs'), path.join(root, 'src', 'docs-link'))
  const outside = (r, p) => {
    const e = envelope(r)
    assert.equal(e.error, 'path_escape', JSON.stringify(e))
    assert.equal(e.message, `Path is outside the write scope: ${p} (writeScope: src, gen). Write only under those directories.`)
    assert.equal(e.path, p)
    assert.deepEqual(e.writeScope, ['src', 'gen'])
  }
  outside(await call('write_file', { path: 'top.txt', content: 'x' }), 'top.txt')
  if (!noSymlinks) outside(await call('write_file', { path: 'src/docs-link/x.md', content: 'x' }), 'src/docs-link/x.md')
  outside(await call('edit_file', { path: 'docs/d.md', old_string: 'doc', new_string: 'x' }), 'docs/d.md')
  outside(await call('multi_edit', { path: 'top.txt', edits: [{ old_string: 'top', new_string: 'x' }] }), 'top.txt')
  outside(await call('mkdir', { path: 'lib' }), 'lib')
  outside(await call('remove', { path: 'top.txt' }), 'top.txt')
  outside(await call('copy', { source: 'src/a.ts', destination: 'docs/a.ts' }), 'docs/a.ts')
  outside(await call('move', { source: 'src/a.ts', destination: 'b.ts' }), 'b.ts')
  outside(await call('move', { source: 'top.txt', destination: 'src/top.txt' }), 'top.txt')
  const patch = '--- a/top.txt\n+++ b/top.txt\n@@ -1 +1 @@\n-top\n+x\n'
  assert.equal(envelope(await call('apply_patch', { patch })).error, 'path_escape')
  // A file the walk found is named as shown (path.relative's form).
  outside(await call('replace', { pattern: 'doc', replacement: 'x', path: 'docs', dry_run: false }), native('docs/d.md'))
  // Nothing changed outside.
  assert.equal(fs.readFileSync(path.join(root, 'top.txt'), 'utf8'), 'top\n')
  assert.equal(fs.readFileSync(path.join(root, 'docs/d.md'), 'utf8'), 'doc\n')
  assert.ok(fs.existsSync(path.join(root, 'src/a.ts')))
  // Inside the scope everything works, including a scope that did not exist yet.
  assert.equal((await call('write_file', { path: 'gen/out.ts', content: 'x' })).isError, false)
  assert.equal((await call('edit_file', { path: 'src/a.ts', old_string: 'one', new_string: 'two' })).isError, false)
  assert.equal((await call('copy', { source: 'docs/d.md', destination: 'src/d.md' })).isError, false)
  // Reads are not scoped.
  assert.equal((await call('read_file', { path: 'top.txt' })).isError, false)
})

test('writeScope: escaping or malformed scopes are StartupErrors; overlapping ones are fine', () => {
  const root = scratch()
  fs.writeFileSync(path.join(root, 'f'), '')
  const bad = (writeScope, message) =>
    assert.throws(() => createAgentTools({ workspaceRoot: root, writeScope }), (e) => {
      assert.ok(e instanceof StartupError)
      assert.equal(e.message, message)
      return true
    })
  bad(['../x'], 'writeScope entry escapes the workspace root: ../x')
  bad(['/etc'], 'writeScope entries must be workspace-relative directories, got: /etc')
  bad('src', 'writeScope must be an array of workspace-relative directories, got: src')
  bad([], 'writeScope must name at least one directory (use readOnly: true to forbid every write).')
  bad([7], 'writeScope entries must be non-empty strings, got: 7')
  bad(['f'], 'writeScope entry is not a directory: f')
  const t = createAgentTools({ workspaceRoot: root, writeScope: ['src', 'src/inner', 'src'] })
  assert.deepEqual(t.config.writeScope, ['src', native('src/inner'), 'src'], 'normalised as path.normalize does')
})

test('writeScope holds through the MCP server and the AI SDK adapter', async (t) => {
  const ws = latest({ 'src/a.ts': 'a\n' }, { writeScope: ['src'] })
  const client = await mcpClient(t, ws.tools)
  const r = await client.callTool({ name: 'write_file', arguments: { path: 'x.txt', content: 'x' } })
  assert.equal(r.isError, true)
  assert.equal(JSON.parse(r.content[0].text).error, 'path_escape')
  const { model, prompts } = scriptedModel([[['write_file', { path: 'y.txt', content: 'y' }], ['write_file', { path: 'src/y.txt', content: 'y' }]]])
  await generateText({ model, tools: toAiSdkTools(ws.tools), prompt: 'go', stopWhen: stepCountIs(3) })
  const seen = toolResultsIn(prompts[1])
  assert.equal(JSON.parse(seen['call-0-0'].value).error, 'path_escape')
  assert.equal(seen['call-0-1'].type, 'text')
  assert.ok(!fs.existsSync(path.join(ws.root, 'x.txt')) && !fs.existsSync(path.join(ws.root, 'y.txt')))
  assert.ok(fs.existsSync(path.join(ws.root, 'src/y.txt')))
})

test('@path mentions resolve without the @ for every tool, unless a file named so exists', async () => {
  const { call, root } = latest({ 'src/a.ts': 'alpha\n', '@literal.txt': 'literal\n', 'literal.txt': 'plain\n' })
  assert.match((await call('read_file', { path: '@src/a.ts' })).text, /alpha/)
  assert.match((await call('read_file', { path: '@literal.txt' })).text, /literal/)
  assert.equal((await call('edit_file', { path: '@src/a.ts', old_string: 'alpha', new_string: 'beta' })).isError, false)
  assert.equal(fs.readFileSync(path.join(root, 'src/a.ts'), 'utf8'), 'beta\n')
  assert.equal((await call('write_file', { path: '@src/new.ts', content: 'n' })).isError, false)
  assert.ok(fs.existsSync(path.join(root, 'src/new.ts')))
  assert.match((await call('list_dir', { path: '@src' })).text, /a\.ts/)
  assert.match((await call('grep', { pattern: 'beta', path: '@src' })).text, /a\.ts/)
  assert.equal(envelope(await call('read_file', { path: '@../x' })).error, 'path_escape')
})
