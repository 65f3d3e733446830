// Every operation a model can trigger goes through the surface (toolPolicy, readOnly), the
// validation and the guard — whatever the entry point: callTool, dispatch with the config or a
// copy of it, the registry handlers, the AI SDK / OpenAI / Anthropic adapters, the MCP server
// (in-process, stdio CLI, HTTP) and the checkpoint tools. And a copy of a config behaves as
// the config itself.
import test from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { createAgentTools, dispatch, listTools, resolveConfig, buildConfig, buildGuardContext, tools as registry, StartupError } from '../index.mjs'
import { toAiSdkTools } from '../ai.mjs'
import { runOpenAIToolCalls, runOpenAIResponsesCalls } from '../openai.mjs'
import { runAnthropicToolUses } from '../anthropic.mjs'
import { createMcpServer, serveHttp } from '../mcp.mjs'
import { mcpClient } from './in-process-mcp.mjs'
import { scratch, envelope } from './helpers.mjs'
import { noFetch, slash } from './platform.mjs'

const BIN = fileURLToPath(new URL('../bin/clarvis-agent-tools.mjs', import.meta.url))
const CHECKPOINT_TOOLS = ['checkpoint_create', 'checkpoint_list', 'checkpoint_changes', 'checkpoint_restore', 'checkpoint_drop']

// A workspace with a.txt, a checkpoint taken and a.txt changed since (so a restore would write).
async function setup(options = {}) {
  const root = scratch()
  fs.writeFileSync(path.join(root, 'a.txt'), 'one\n')
  const open = createAgentTools({ workspaceRoot: root, checkpointTools: true })
  const guarded = { seen: [] }
  const tools = createAgentTools({
    workspaceRoot: root,
    checkpointTools: true,
    guard: (ctx) => {
      guarded.seen.push(ctx.tool)
      return { verdict: 'deny', reason: 'nothing today' }
    },
    ...options,
  })
  const id = tools.checkpoint('before')
  await open.callTool('read_file', { path: 'a.txt' })
  // The host's own API changes the file through the guarded tools object's store: a write by
  // the tools is recorded, so use the unguarded object's write and a host-side checkpoint.
  fs.writeFileSync(path.join(root, 'a.txt'), 'two\n')
  return { root, tools, id, guarded }
}

const DENIED = { error: 'denied', message: 'nothing today' }
const bytes = (root) => fs.readFileSync(path.join(root, 'a.txt'), 'utf8')

test('a guard that denies everything stops every entry point, checkpoint tools included', async (t) => {
  const { root, tools, id, guarded } = await setup()
  const calls = [
    ['write_file', { path: 'a.txt', content: 'x' }],
    ['bash', { command: 'echo x > a.txt' }],
    ['checkpoint_restore', { id, force: true }],
    ['checkpoint_drop', { id }],
    ['checkpoint_create', {}],
    ['checkpoint_changes', { id }],
    ['checkpoint_list', {}],
  ]
  for (const [name, args] of calls) {
    assert.deepEqual(envelope(await tools.callTool(name, args)), DENIED, `callTool ${name}`)
    assert.deepEqual(envelope(await dispatch(name, args, tools.config)), DENIED, `dispatch ${name}`)
    assert.deepEqual(envelope(await dispatch(name, args, { ...tools.config })), DENIED, `dispatch copy ${name}`)
  }
  for (const def of registry.filter((d) => d.name === 'write_file')) {
    await assert.rejects(def.handler({ path: 'a.txt', content: 'x' }, tools.config), (e) => e.code === 'denied')
  }
  const ai = toAiSdkTools(tools)
  await assert.rejects(ai.write_file.execute({ path: 'a.txt', content: 'x' }, {}), (e) => e.code === 'denied')
  await assert.rejects(ai.checkpoint_restore.execute({ id, force: true }, {}), (e) => e.code === 'denied')
  const chat = await runOpenAIToolCalls(tools, [{ id: 'c1', type: 'function', function: { name: 'checkpoint_restore', arguments: JSON.stringify({ id, force: true }) } }])
  assert.deepEqual(JSON.parse(chat[0].content), DENIED)
  const resp = await runOpenAIResponsesCalls(tools, [{ type: 'function_call', call_id: 'r1', name: 'write_file', arguments: '{"path":"a.txt","content":"x"}' }])
  assert.deepEqual(JSON.parse(resp[0].output), DENIED)
  const anth = await runAnthropicToolUses(tools, [{ type: 'tool_use', id: 'u1', name: 'checkpoint_restore', input: { id, force: true } }])
  assert.deepEqual(JSON.parse(anth[0].content), DENIED)
  assert.equal(anth[0].is_error, true)
  const client = await mcpClient(t, tools)
  const listed = (await client.listTools()).tools.map((x) => x.name)
  for (const n of CHECKPOINT_TOOLS) assert.ok(listed.includes(n), n)
  for (const name of ['checkpoint_restore', 'write_file']) {
    const r = await client.callTool({ name, arguments: name === 'write_file' ? { path: 'a.txt', content: 'x' } : { id, force: true } })
    assert.equal(r.isError, true)
    assert.deepEqual(JSON.parse(r.content[0].text), DENIED)
  }
  if (noFetch) t.diagnostic(`MCP over HTTP not checked: ${noFetch}`)
  else {
    const served = await serveHttp(tools)
    t.after(() => served.close())
    const http = new Client({ name: 'entry-test', version: '1.0.0' })
    await http.connect(new StreamableHTTPClientTransport(new URL(served.url)))
    t.after(() => http.close())
    const r = await http.callTool({ name: 'checkpoint_restore', arguments: { id, force: true } })
    assert.deepEqual(JSON.parse(r.content[0].text), DENIED)
  }
  // Nothing was restored, written or dropped; the guard saw every call.
  assert.equal(bytes(root), 'two\n')
  assert.deepEqual(tools.checkpoints().map((c) => c.id), [id])
  for (const n of ['write_file', 'bash', ...CHECKPOINT_TOOLS]) assert.ok(guarded.seen.includes(n), n)
})

test('the checkpoint tools are tools of the surface: readOnly, toolPolicy and validation apply', async (t) => {
  const root = scratch()
  const names = (o) => createAgentTools({ workspaceRoot: root, ...o }).listTools().map((x) => x.name)
  assert.deepEqual(names({}).filter((n) => n.startsWith('checkpoint_')), [])
  assert.deepEqual(names({ checkpointTools: true }).filter((n) => n.startsWith('checkpoint_')), CHECKPOINT_TOOLS)
  assert.deepEqual(names({ checkpointTools: true, readOnly: true }).filter((n) => n.startsWith('checkpoint_')), ['checkpoint_list', 'checkpoint_changes'])
  assert.deepEqual(names({ checkpointTools: true, toolPolicy: { deny: ['checkpoint_restore', 'checkpoint_drop'] } }).filter((n) => n.startsWith('checkpoint_')), ['checkpoint_create', 'checkpoint_list', 'checkpoint_changes'])
  assert.deepEqual(names({ toolPolicy: { allow: ['read_file', 'checkpoint_list'] } }), ['read_file', 'checkpoint_list'])
  const ro = createAgentTools({ workspaceRoot: root, checkpointTools: true, readOnly: true })
  assert.deepEqual(envelope(await ro.callTool('checkpoint_restore', { id: 'cp_1' })), { error: 'not_found', message: 'Unknown tool: checkpoint_restore' })
  const open = createAgentTools({ workspaceRoot: root, checkpointTools: true })
  assert.equal(envelope(await open.callTool('checkpoint_restore', {})).error, 'invalid_input')
  assert.deepEqual(envelope(await open.callTool('checkpoint_drop', { id: 'cp_9' })), { error: 'not_found', message: 'No such checkpoint: cp_9', id: 'cp_9' })
  // A custom tool cannot take their names.
  assert.throws(() => createAgentTools({ workspaceRoot: root, customTools: [{ name: 'Checkpoint_Restore', description: 'd', inputSchema: { type: 'object' }, handler: () => '' }] }), StartupError)
  // createMcpServer's old `checkpoints: true` needs them on the surface.
  assert.throws(() => createMcpServer(createAgentTools({ workspaceRoot: root }), { checkpoints: true }), /checkpointTools: true/)
  await assert.rejects(serveHttp(createAgentTools({ workspaceRoot: root }), { checkpoints: true }), /checkpointTools: true/)
  assert.ok(createMcpServer(open, { checkpoints: true }))
})

test('the mcp CLI: --read-only --checkpoints serves only the read checkpoint tools', async (t) => {
  const root = scratch()
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', '--workspace', root, '--read-only', '--checkpoints'],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp' },
    stderr: 'pipe',
  })
  const client = new Client({ name: 'entry-test', version: '1.0.0' })
  await client.connect(transport)
  t.after(() => client.close())
  const listed = (await client.listTools()).tools.map((x) => x.name)
  assert.deepEqual(listed.filter((n) => n.startsWith('checkpoint_')), ['checkpoint_list', 'checkpoint_changes'])
  assert.ok(!listed.includes('write_file') && !listed.includes('bash'))
  const r = await client.callTool({ name: 'checkpoint_restore', arguments: { id: 'cp_1' } })
  assert.equal(r.isError, true)
  assert.equal(JSON.parse(r.content[0].text).error, 'not_found')
  assert.equal(buildConfig(['--workspace', root, '--checkpoints']).checkpointTools, true)
})

test('guard facts: undo and checkpoint_restore list what they would put back; apply_patch every name', async () => {
  const root = scratch()
  fs.mkdirSync(path.join(root, 'src'))
  fs.writeFileSync(path.join(root, 'src/a.txt'), 'a\n')
  const tools = createAgentTools({ workspaceRoot: root, checkpointTools: true, toolPolicy: { allow: ['write_file', 'move', 'undo', 'checkpoint_restore', 'checkpoint_create'] } })
  const id = tools.checkpoint()
  await tools.callTool('write_file', { path: 'src/a.txt', content: 'b\n' })
  await tools.callTool('move', { source: 'src/a.txt', destination: 'src/b.txt' })
  // Paths the records hold are shown as path.relative gives them (`src\a.txt` on Windows).
  const raws = (name, args) => buildGuardContext(name, args, tools.config).paths.map((p) => slash(p.raw))
  assert.deepEqual(raws('undo', {}).sort(), ['src/a.txt', 'src/b.txt'])
  assert.deepEqual(raws('checkpoint_restore', { id }).sort(), ['src/a.txt', 'src/b.txt'])
  assert.deepEqual(raws('checkpoint_restore', { id, paths: ['src/b.txt'] }), ['src/b.txt'])
  assert.deepEqual(raws('checkpoint_restore', { id: 'cp_404' }), [])
  assert.deepEqual(raws('checkpoint_create', {}), [])
  // A guard protecting .env sees a Begin-Patch edit of it, and both ends of a move.
  const patch = '*** Begin Patch\n*** Update File: .env\n@@\n-A=1\n+A=2\n*** Add File: new.txt\n+x\n*** Delete File: old.txt\n*** Update File: src/a.txt\n*** Move to: ../out.txt\n@@\n-a\n+b\n*** End Patch\n'
  const facts = buildGuardContext('apply_patch', { patch }, tools.config).paths
  assert.deepEqual(facts.map((p) => p.raw), ['.env', 'new.txt', 'old.txt', 'src/a.txt', '../out.txt'])
  assert.deepEqual(facts.map((p) => p.withinWorkspace), [true, true, true, true, false])
  const git = 'diff --git a/x.txt b/.env\nsimilarity index 100%\nrename from x.txt\nrename to .env\n'
  assert.ok(raws('apply_patch', { patch: git }).includes('.env'))
  assert.ok(raws('apply_patch', { patch: 'diff --git "a/q x" "b/q y"\nrename from "q x"\nrename to "q\\ty"\n' }).includes('q\ty'))
  // The original's cases still hold.
  assert.deepEqual(raws('apply_patch', { patch: '--- a/src/x.ts\t2020\n+++ b/src/x.ts\n--- /dev/null\n+++ b/new.ts\n' }), ['src/x.ts', 'new.ts'])
  assert.deepEqual(raws('apply_patch', { patch: '--- \n+++ b/only.ts\ncontext line\n' }), ['only.ts'])
  // Every path a tool may touch.
  assert.deepEqual(raws('outline', { path: 'src', paths: ['lib', 3, '../x'] }), ['src', 'lib', '../x'])
  assert.deepEqual(raws('grep', { pattern: 'x' }), ['.'])
  assert.deepEqual(raws('glob', { pattern: '**/*.ts' }), ['.'])
  assert.deepEqual(raws('list_dir', {}), ['.'])
  assert.deepEqual(raws('tree', { path: 'src' }), ['src'])
  assert.deepEqual(raws('multi_edit', { path: 'src/a.txt', edits: [] }), ['src/a.txt'])
  assert.deepEqual(raws('copy', { source: 'a', destination: '/tmp/b' }), ['a', '/tmp/b'])
  // No command: no bash facts (as the original: `bash` undefined), no paths.
  const none = buildGuardContext('bash', {}, tools.config)
  assert.equal(none.bash, undefined)
  assert.ok('bash' in none)
  assert.deepEqual(none.paths, [])
  assert.equal(buildGuardContext('read_file', { path: 'a' }, tools.config).bash, undefined)
})

test('a copy of the config is the config: dispatch({ ...tools.config }) keeps every setting', async () => {
  const root = scratch()
  fs.mkdirSync(path.join(root, 'src'))
  const guard = (ctx) => (ctx.tool === 'list_dir' ? { verdict: 'deny', reason: 'no listing' } : { verdict: 'allow' })
  const tools = createAgentTools({ workspaceRoot: root, toolPolicy: { deny: ['bash'] }, writeScope: ['src'], guard, guardTimeoutMs: 5000, redactSecrets: true, checkpointTools: true })
  const copy = { ...tools.config }
  assert.deepEqual(copy.toolPolicy, { deny: ['bash'] })
  assert.equal(copy.guardTimeoutMs, 5000)
  assert.deepEqual(envelope(await dispatch('bash', { command: 'echo hi' }, copy)), { error: 'not_found', message: 'Unknown tool: bash' })
  assert.equal(envelope(await dispatch('write_file', { path: 'x.txt', content: 'x' }, copy)).error, 'path_escape')
  assert.deepEqual(envelope(await dispatch('list_dir', {}, copy)), { error: 'denied', message: 'no listing' })
  assert.equal((await dispatch('write_file', { path: 'src/k.env', content: 'TOKEN=abc123secret\n' }, copy)).isError, false)
  assert.match((await dispatch('read_file', { path: 'src/k.env' }, copy)).text, /REDACTED/)
  assert.deepEqual(listTools(copy), tools.listTools())
  // A modified copy is a hand-built config: it still carries every setting it shows.
  const edited = { ...tools.config, maxOutputBytes: 4096 }
  assert.deepEqual(envelope(await dispatch('bash', { command: 'echo hi' }, edited)), { error: 'not_found', message: 'Unknown tool: bash' })
  assert.equal(envelope(await dispatch('write_file', { path: 'y.txt', content: 'y' }, edited)).error, 'path_escape')
  assert.deepEqual(envelope(await dispatch('list_dir', {}, edited)), { error: 'denied', message: 'no listing' })
  // compat "0.1": exactly 0.1's eight fields, and a copy is still 0.1 (nine tools, strict schemas).
  const old = createAgentTools({ workspaceRoot: root, compat: '0.1' })
  assert.deepEqual(Object.keys(old.config), ['workspaceRoot', 'maxOutputBytes', 'maxFileBytes', 'bashTimeoutMs', 'bashTimeoutMaxMs', 'ripgrepAvailable', 'readOnly', 'confineToWorkspace'])
  assert.equal(listTools({ ...old.config }).length, 9)
  assert.deepEqual(await dispatch('read_file', { path: 'nope', junk: 1 }, { ...old.config }), await old.callTool('read_file', { path: 'nope', junk: 1 }))
  // With a newer option, a 0.1 config says so, so even a modified copy stays 0.1.
  const scoped = createAgentTools({ workspaceRoot: root, compat: '0.1', writeScope: ['src'], readOnly: true })
  assert.equal(scoped.config.compat, '0.1')
  assert.deepEqual(scoped.config.writeScope, ['src'])
  assert.deepEqual(listTools({ ...scoped.config, maxOutputBytes: 4096 }).map((x) => x.name), ['read_file', 'list_dir', 'glob', 'grep'])
  // Custom tools and the search index options travel too.
  const custom = createAgentTools({ workspaceRoot: root, searchIndex: 'off', searchIndexThreshold: 7, customTools: [{ name: 'ping', description: 'd', inputSchema: { type: 'object' }, handler: () => 'pong' }], toolPolicy: { allow: ['ping', 'read_file'] } })
  assert.equal(custom.config.searchIndex, 'off')
  assert.equal(custom.config.searchIndexThreshold, 7)
  assert.equal((await dispatch('ping', {}, { ...custom.config, maxOutputBytes: 2048 })).text, 'pong')
  assert.deepEqual(listTools({ ...custom.config, maxOutputBytes: 2048 }).map((x) => x.name), ['read_file', 'ping'])
  assert.deepEqual(resolveConfig({ ...custom.config }), custom.config)
})
