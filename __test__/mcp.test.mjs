// The `clarvis-agent-tools mcp` command, driven by the MCP SDK's own client over stdio: the
// advertised tools (schemas and annotations), a success, errors mapped to MCP's isError, and
// cancellation reaching the tool as an abort.
import test from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { createMcpServer } from '../mcp.mjs'
import { workspace, latest, dead, eventually } from './helpers.mjs'
import { pendingTools } from './pending.mjs'
import { noSh, noSignals } from './platform.mjs'

const BIN = fileURLToPath(new URL('../bin/clarvis-agent-tools.mjs', import.meta.url))
const { version } = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8'))

/** Starts the server over `root` and connects a client; closes both when the test ends. */
async function connect(t, root, extraArgs = [], env = {}) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', '--workspace', root, ...extraArgs],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', ...env },
    stderr: 'pipe',
  })
  const client = new Client({ name: 'mcp-test', version: '1.0.0' })
  await client.connect(transport)
  t.after(() => client.close())
  return client
}

function text(result) {
  assert.equal(result.content.length, 1)
  assert.equal(result.content[0].type, 'text')
  return result.content[0].text
}

test('tools/list advertises the surface: names, descriptions, JSON Schemas and annotations', async (t) => {
  const { root, tools } = latest()
  const client = await connect(t, root)
  assert.deepEqual(client.getServerVersion(), { name: 'clarvis-agent-tools', version })
  const { tools: listed } = await client.listTools()
  const expected = tools.listTools()
  assert.deepEqual(listed.map((x) => x.name), expected.map((x) => x.name))
  for (const [i, x] of listed.entries()) {
    assert.equal(x.description, expected[i].description)
    assert.deepEqual(x.inputSchema, expected[i].inputSchema)
    assert.deepEqual(x.annotations, expected[i].annotations)
  }
  assert.deepEqual(listed.find((x) => x.name === 'bash').annotations, {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: true,
  })
})

test('--read-only serves only the read tools, and hidden tools are not callable', async (t) => {
  const { root } = workspace({ 'a.txt': 'a\n' })
  const client = await connect(t, root, ['--read-only'])
  const { tools: listed } = await client.listTools()
  assert.deepEqual(listed.map((x) => x.name), latest({}, { readOnly: true }).tools.listTools().map((x) => x.name))
  assert.ok(listed.every((x) => x.annotations.readOnlyHint))
  const r = await client.callTool({ name: 'write_file', arguments: { path: 'a.txt', content: 'b' } })
  assert.equal(r.isError, true)
  assert.deepEqual(JSON.parse(text(r)), { error: 'not_found', message: 'Unknown tool: write_file' })
  assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'a\n')
})

test('a successful call is text content with isError false', async (t) => {
  const { root } = workspace({ 'notes/todo.txt': 'one\ntwo\n' })
  const client = await connect(t, root)
  const r = await client.callTool({ name: 'read_file', arguments: { path: 'notes/todo.txt', offset: 2 } })
  assert.equal(r.isError, false)
  assert.equal(text(r), '     2\ttwo')
  const listing = await client.callTool({ name: 'list_dir', arguments: {} })
  assert.equal(text(listing), 'notes/')
})

test("a tool failure is MCP's isError with the JSON envelope as its text", async (t) => {
  const { root } = workspace()
  const client = await connect(t, root)
  const missing = await client.callTool({ name: 'read_file', arguments: { path: 'nope.txt' } })
  assert.equal(missing.isError, true)
  assert.deepEqual(JSON.parse(text(missing)), { error: 'not_found', message: 'No such file: nope.txt', path: 'nope.txt' })
  const escape = await client.callTool({ name: 'read_file', arguments: { path: '../outside.txt' } })
  assert.equal(escape.isError, true)
  assert.equal(JSON.parse(text(escape)).error, 'path_escape')
  const invalid = await client.callTool({ name: 'read_file', arguments: {} })
  assert.deepEqual(JSON.parse(text(invalid)), {
    error: 'invalid_input',
    message: "data must have required property 'path'",
    issues: [{ path: '/path', expected: 'string', received: 'undefined', message: "must have required property 'path'" }],
  })
  const unknown = await client.callTool({ name: 'rm_rf', arguments: {} })
  assert.deepEqual(JSON.parse(text(unknown)), { error: 'not_found', message: 'Unknown tool: rm_rf' })
})

test('configuration errors exit 2 with the StartupError message on stderr', () => {
  const noRoot = spawnSync(process.execPath, [BIN, 'mcp'], { env: { PATH: process.env.PATH }, encoding: 'utf8' })
  assert.equal(noRoot.status, 2)
  assert.equal(noRoot.stdout, '')
  assert.equal(
    noRoot.stderr,
    'clarvis-agent-tools: No workspace root: pass --workspace <path> or set WORKSPACE_ROOT.\n',
  )
  const badEnv = spawnSync(process.execPath, [BIN, 'mcp', '--workspace', '.'], {
    env: { PATH: process.env.PATH, READ_ONLY: 'maybe' },
    encoding: 'utf8',
  })
  assert.equal(badEnv.status, 2)
  assert.match(badEnv.stderr, /READ_ONLY must be one of 1\/true\/yes\/on or 0\/false\/no\/off, got: maybe/)
  const unknown = spawnSync(process.execPath, [BIN, 'serve'], { encoding: 'utf8' })
  assert.equal(unknown.status, 2)
  assert.match(unknown.stderr, /unknown command: serve/)
  const help = spawnSync(process.execPath, [BIN, '--help'], { encoding: 'utf8' })
  assert.equal(help.status, 0)
  assert.match(help.stdout, /^Usage: clarvis-agent-tools mcp --workspace <dir>/)
})

test('READ_ONLY from the environment is honoured like the flag', async (t) => {
  const { root } = workspace()
  const client = await connect(t, root, [], { READ_ONLY: 'yes' })
  const { tools: listed } = await client.listTools()
  assert.equal(listed.length, latest({}, { readOnly: true }).tools.listTools().length)
  assert.ok(listed.every((x) => x.annotations.readOnlyHint))
})

test('createMcpServer passes the request signal to callTool, aborted by notifications/cancelled', async (t) => {
  const { tools } = workspace({ 'a.txt': 'x\n' })
  let seen = null
  let release
  const aborted = new Promise((r) => (release = r))
  // An AgentTools whose call waits for its signal, then lets the real call see it aborted.
  const spy = {
    listTools: () => tools.listTools(),
    async callTool(name, args, signal) {
      seen = signal
      signal.addEventListener('abort', release, { once: true })
      await aborted
      return tools.callTool(name, args, signal)
    },
  }
  const server = createMcpServer(spy)
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await server.connect(serverSide)
  const client = new Client({ name: 'mcp-test', version: '1.0.0' })
  await client.connect(clientSide)
  t.after(() => client.close())
  const controller = new AbortController()
  const call = client.callTool({ name: 'read_file', arguments: { path: 'a.txt' } }, undefined, {
    signal: controller.signal,
  })
  while (seen === null) await new Promise((r) => setTimeout(r, 5))
  assert.equal(seen.aborted, false)
  controller.abort()
  await assert.rejects(call)
  await aborted
  assert.equal(seen.aborted, true)
  // createMcpServer over a real AgentTools (no spy) answers a plain call.
  const spyFree = createMcpServer(tools)
  const [c2, s2] = InMemoryTransport.createLinkedPair()
  await spyFree.connect(s2)
  const client2 = new Client({ name: 'mcp-test', version: '1.0.0' })
  await client2.connect(c2)
  t.after(() => client2.close())
  const ok = await client2.callTool({ name: 'read_file', arguments: { path: 'a.txt' } })
  assert.equal(text(ok), '     1\tx')
})

// Needs the bash tool (another helper's branch); skips while it is a stub.
test('cancelling a request (notifications/cancelled) aborts the tool: a long bash is killed', { skip: noSh || noSignals }, async (t) => {
  const pending = await pendingTools(['bash'])
  if (pending.length) return t.skip('bash is not implemented on this branch yet')
  const { root } = workspace()
  const client = await connect(t, root)
  const controller = new AbortController()
  const call = client.callTool(
    { name: 'bash', arguments: { command: 'echo $$ > sleeper.pid; sleep 1000' } },
    undefined,
    { signal: controller.signal },
  )
  const pidFile = path.join(root, 'sleeper.pid')
  await eventually(() => fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8').endsWith('\n'), 'the command started')
  const pid = Number(fs.readFileSync(pidFile, 'utf8'))
  controller.abort()
  await assert.rejects(call)
  // The server kills the process group when the cancellation reaches it; left alone, the
  // shell would outlive the wait by far.
  await eventually(() => dead(pid), `bash's shell (pid ${pid}) was killed after the cancellation`)
  // The server is still serving.
  const after = await client.callTool({ name: 'bash', arguments: { command: 'echo still here' } })
  assert.equal(JSON.parse(text(after)).stdout, 'still here\n')
})

test('mcp --checkpoints: the client can checkpoint, list changes and restore', async (t) => {
  const { root } = latest({ 'a.txt': 'one\n' })
  const client = await connect(t, root, ['--checkpoints'])
  const names = (await client.listTools()).tools.map((x) => x.name)
  for (const n of ['checkpoint_create', 'checkpoint_list', 'checkpoint_changes', 'checkpoint_restore', 'checkpoint_drop']) {
    assert.ok(names.includes(n), n)
  }
  const { id } = JSON.parse(text(await client.callTool({ name: 'checkpoint_create', arguments: { label: 'x' } })))
  await client.callTool({ name: 'edit_file', arguments: { path: 'a.txt', old_string: 'one', new_string: 'two' } })
  const changes = JSON.parse(text(await client.callTool({ name: 'checkpoint_changes', arguments: { id } })))
  assert.deepEqual(changes.map((c) => [c.path, c.kind]), [['a.txt', 'modified']])
  const r = await client.callTool({ name: 'checkpoint_restore', arguments: { id } })
  assert.equal(r.isError, false)
  assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'one\n')
  const bad = await client.callTool({ name: 'checkpoint_restore', arguments: { id: 'cp_99' } })
  assert.equal(bad.isError, true)
  assert.equal(JSON.parse(text(bad)).error, 'not_found')
  const plain = await connect(t, root)
  assert.ok(!(await plain.listTools()).tools.some((x) => x.name.startsWith('checkpoint_')))
})
