// `clarvis-agent-tools mcp --http`, driven by the MCP SDK's own Streamable HTTP client: list,
// call, cancel, per-session cancellation, the Bearer token (401), 50 concurrent sessions, and
// the refusal to serve a non-loopback address without a token.
import test, { before, after } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { spawn, spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { serveHttp } from '../mcp.mjs'
import { latest, dead, eventually } from './helpers.mjs'
import { noFetch, noSh, noSignals } from './platform.mjs'

const BIN = fileURLToPath(new URL('../bin/clarvis-agent-tools.mjs', import.meta.url))
const TOKEN = 'test-token-0123456789'

let ws
let child
let url

/** Starts the command; resolves to the URL it prints on stderr. */
function start(args, env = {}) {
  const proc = spawn(process.execPath, [BIN, 'mcp', ...args], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  return new Promise((resolve, reject) => {
    let err = ''
    proc.stderr.setEncoding('utf8')
    proc.stderr.on('data', (d) => {
      err += d
      const m = /serving MCP at (\S+)/.exec(err)
      if (m) resolve({ proc, url: m[1] })
    })
    proc.on('exit', (code) => reject(new Error(`exited ${code}: ${err}`)))
  })
}

async function connect(t, token = TOKEN) {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: token === null ? {} : { headers: { Authorization: `Bearer ${token}` } },
  })
  const client = new Client({ name: 'http-test', version: '1.0.0' })
  await client.connect(transport)
  if (t) t.after(() => client.close().catch(() => {}))
  return { client, transport }
}

function text(result) {
  assert.equal(result.content.length, 1)
  return result.content[0].text
}

before(async () => {
  ws = latest({ 'a.txt': 'alpha\n' })
  ;({ proc: child, url } = await start(['--workspace', ws.root, '--http', '127.0.0.1:0'], { CLARVIS_MCP_TOKEN: TOKEN }))
})

after(() => child.kill('SIGTERM'))

test('the endpoint is /mcp on 127.0.0.1; list and call over HTTP', { skip: noFetch }, async (t) => {
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/)
  const { client } = await connect(t)
  const { tools } = await client.listTools()
  assert.deepEqual(tools.map((x) => x.name), ws.tools.listTools().map((x) => x.name))
  assert.deepEqual(tools.find((x) => x.name === 'bash').annotations, ws.tools.listTools().find((x) => x.name === 'bash').annotations)
  assert.equal(text(await client.callTool({ name: 'read_file', arguments: { path: 'a.txt' } })), '     1\talpha')
  const edit = await client.callTool({ name: 'edit_file', arguments: { path: 'a.txt', old_string: 'alpha', new_string: 'beta' } })
  assert.equal(edit.isError, false)
  assert.equal(fs.readFileSync(path.join(ws.root, 'a.txt'), 'utf8'), 'beta\n')
  const missing = await client.callTool({ name: 'read_file', arguments: { path: 'nope' } })
  assert.equal(missing.isError, true)
  assert.equal(JSON.parse(text(missing)).error, 'not_found')
})

test('no token or a wrong token is HTTP 401; other paths are 404', { skip: noFetch }, async () => {
  const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }
  const post = (headers) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(init) })
  const none = await post({})
  assert.equal(none.status, 401)
  assert.equal(none.headers.get('www-authenticate'), 'Bearer')
  assert.equal((await post({ authorization: 'Bearer wrong' })).status, 401)
  assert.equal((await post({ authorization: TOKEN })).status, 401)
  assert.equal((await post({ authorization: `Bearer ${TOKEN}` })).status, 200)
  assert.equal((await fetch(url.replace(/\/mcp$/, '/other'), { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` } })).status, 404)
  await assert.rejects(connect(null, 'wrong'), /401|Unauthorized/)
  await assert.rejects(connect(null, null), /401|Unauthorized/)
})

test('notifications/cancelled aborts the call: a long bash is killed; the session goes on', { skip: noFetch || noSh || noSignals }, async (t) => {
  const { client } = await connect(t)
  const controller = new AbortController()
  const call = client.callTool({ name: 'bash', arguments: { command: 'echo $$ > c.pid; sleep 1000' } }, undefined, { signal: controller.signal })
  const pidFile = path.join(ws.root, 'c.pid')
  await eventually(() => fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8').endsWith('\n'), 'the command started')
  const pid = Number(fs.readFileSync(pidFile, 'utf8'))
  controller.abort()
  await assert.rejects(call)
  await eventually(() => dead(pid), `bash (pid ${pid}) was killed`)
  assert.equal(JSON.parse(text(await client.callTool({ name: 'bash', arguments: { command: 'echo on' } }))).stdout, 'on\n')
})

test('ending a session (DELETE) aborts its running calls, not those of other sessions', { skip: noFetch || noSh || noSignals }, async (t) => {
  const a = await connect(t)
  const b = await connect(t)
  const call = a.client.callTool({ name: 'bash', arguments: { command: 'echo $$ > d.pid; sleep 1000' } }).catch((e) => e)
  const other = b.client.callTool({ name: 'bash', arguments: { command: 'sleep 1; echo survived' } })
  const pidFile = path.join(ws.root, 'd.pid')
  await eventually(() => fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8').endsWith('\n'), 'the command started')
  const pid = Number(fs.readFileSync(pidFile, 'utf8'))
  await a.transport.terminateSession()
  await eventually(() => dead(pid), `bash (pid ${pid}) was killed with its session`)
  assert.equal(JSON.parse(text(await other)).stdout, 'survived\n')
  void call
})

test('50 concurrent sessions each write and read their own file', { skip: noFetch }, async () => {
  const clients = await Promise.all(Array.from({ length: 50 }, () => connect(null)))
  try {
    const results = await Promise.all(
      clients.map(async ({ client }, i) => {
        const w = await client.callTool({ name: 'write_file', arguments: { path: `s/${i}.txt`, content: `session ${i}\n` } })
        assert.equal(w.isError, false, text(w))
        return text(await client.callTool({ name: 'read_file', arguments: { path: `s/${i}.txt` } }))
      }),
    )
    for (let i = 0; i < 50; i++) {
      assert.equal(results[i], `     1\tsession ${i}`)
      assert.equal(fs.readFileSync(path.join(ws.root, 's', `${i}.txt`), 'utf8'), `session ${i}\n`)
    }
  } finally {
    await Promise.all(clients.map(({ client }) => client.close()))
  }
})

test('a non-loopback address without a token is refused (exit 2); serveHttp rejects', { skip: noFetch }, async () => {
  const r = spawnSync(process.execPath, [BIN, 'mcp', '--workspace', ws.root, '--http', '0.0.0.0:0'], {
    env: { PATH: process.env.PATH },
    encoding: 'utf8',
  })
  assert.equal(r.status, 2)
  assert.match(r.stderr, /^clarvis-agent-tools: Refusing to serve on 0\.0\.0\.0, which is not a loopback address, without a token/)
  const bad = spawnSync(process.execPath, [BIN, 'mcp', '--workspace', ws.root, '--http', 'x:y'], { encoding: 'utf8' })
  assert.equal(bad.status, 2)
  assert.match(bad.stderr, /--http expects \[HOST:\]PORT/)
  await assert.rejects(serveHttp(ws.tools, { host: '0.0.0.0' }), TypeError)
  // In-process, without a token on loopback: no Authorization needed.
  const served = await serveHttp(ws.tools)
  try {
    const client = new Client({ name: 'x', version: '1' })
    await client.connect(new StreamableHTTPClientTransport(new URL(served.url)))
    assert.equal(served.sessionCount(), 1)
    assert.ok((await client.listTools()).tools.length > 0)
    await client.close()
  } finally {
    await served.close()
  }
})
