// The package as users get it: `npm pack`, then install the tarball into a fresh temporary
// project with no registry and an empty npm cache (so nothing but the tarball can be used),
// and there: ESM import, CommonJS require, the bin, and `tsc --noEmit --strict` of consumer
// code that uses the whole public API. The /ai and /mcp entries are then checked with their
// optional peers present (linked from this repository's devDependencies).
import test, { before } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { scratch } from './helpers.mjs'
import { windows } from './platform.mjs'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { createAgentTools, readOnlyTools, tools as allTools } from '../index.mjs'

const REPO = fileURLToPath(new URL('..', import.meta.url))
const FIXTURES = path.join(REPO, '__test__', 'consumer')
const TSC = path.join(REPO, 'node_modules', 'typescript', 'bin', 'tsc')
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm'
// On Windows npm is a .cmd file, which Node no longer spawns without a shell: run its
// JavaScript entry with this node instead (npm sets npm_execpath; else it sits beside node.exe).
const NPM_CLI = process.env.npm_execpath?.endsWith('.js')
  ? process.env.npm_execpath
  : path.join(path.dirname(process.execPath), 'node_modules', 'npm', 'bin', 'npm-cli.js')
const noNpm = windows && !fs.existsSync(NPM_CLI) && 'npm is not installed beside this node.exe (the Wine lane installs node.exe alone)'
const noShims = noNpm || (windows && "npm's .bin shims and npm exec are .cmd files, which Node spawns only through a shell on Windows")

let tmp
let consumer
let packed

/** npm with no registry it could reach and an empty cache of its own. */
function npm(args, cwd) {
  const [command, argv] = windows ? [process.execPath, [NPM_CLI, ...args]] : [NPM, args]
  return execFileSync(command, argv, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      npm_config_registry: 'http://127.0.0.1:9/',
      npm_config_cache: path.join(tmp, 'npm-cache'),
      npm_config_offline: 'true',
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      npm_config_update_notifier: 'false',
    },
  })
}

/** Runs node in the consumer project; returns stdout, failing the test with stderr otherwise. */
function node(args, input) {
  const r = spawnSync(process.execPath, args, { cwd: consumer, encoding: 'utf8', input })
  assert.equal(r.status, 0, `node ${args.join(' ')} failed:\n${r.stderr}`)
  return r.stdout
}

function tsc(files, extra = []) {
  const r = spawnSync(
    process.execPath,
    [TSC, '--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--lib', 'es2022,dom', ...extra, ...files],
    { cwd: consumer, encoding: 'utf8' },
  )
  assert.equal(r.status, 0, `tsc reported:\n${r.stdout}${r.stderr}`)
}

before(() => {
  if (noNpm) return
  tmp = scratch('cat-pkg-')
  packed = JSON.parse(npm(['pack', '--json', '--ignore-scripts', '--pack-destination', tmp], REPO))[0]
  consumer = path.join(tmp, 'consumer')
  fs.mkdirSync(consumer)
  fs.writeFileSync(path.join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }))
  fs.writeFileSync(path.join(consumer, 'hello.txt'), 'hello\n')
  for (const f of ['usage.mts', 'usage.cts', 'integrations.mts', 'integrations.cts', 'providers.mts', 'providers.cts', 'guard.mts', 'guard.cts']) fs.copyFileSync(path.join(FIXTURES, f), path.join(consumer, f))
  npm(['install', '--ignore-scripts', '--no-package-lock', path.join(tmp, packed.filename)], consumer)
})

test('the tarball holds the entry points, types, the bin and this platform\'s addon, nothing else', { skip: noNpm }, () => {
  const files = packed.files.map((f) => f.path).sort()
  const addons = files.filter((f) => f.endsWith('.node'))
  assert.equal(addons.length, 1, `one native addon: ${addons}`)
  assert.match(addons[0], /^clarvis-agent-tools\.[a-z0-9-]+\.node$/)
  assert.deepEqual(
    files.filter((f) => !f.endsWith('.node')),
    [
      'CHANGELOG.md',
      'ai.d.mts',
      'ai.d.ts',
      'ai.js',
      'ai.mjs',
      'anthropic.d.mts',
      'anthropic.d.ts',
      'anthropic.js',
      'anthropic.mjs',
      'bin/clarvis-agent-tools.mjs',
      'binding.d.ts',
      'binding.js',
      'guard.d.mts',
      'guard.d.ts',
      'guard.js',
      'guard.mjs',
      'index.d.ts',
      'index.js',
      'index.mjs',
      'lib/ai-adapter.js',
      'lib/anthropic-adapter.js',
      'lib/guard.js',
      'lib/guard/analyze.js',
      'lib/guard/context.js',
      'lib/guard/expand.js',
      'lib/guard/lex.js',
      'lib/guard/programs.js',
      'lib/guard/sed.js',
      'lib/guard/segments.js',
      'lib/guard/tools.js',
      'lib/guard/walk.js',
      'lib/mcp-http.mjs',
      'lib/openai-adapter.js',
      'lib/standard-schema.js',
      'lib/tool-calls.js',
      'mcp-standalone.mjs',
      'mcp.d.mts',
      'mcp.mjs',
      'openai.d.mts',
      'openai.d.ts',
      'openai.js',
      'openai.mjs',
      'package.json',
      // npm adds these by itself when they exist.
      ...fs.readdirSync(REPO).filter((f) => /^(README|LICEN[CS]E)(\.|$)/i.test(f)),
    ].sort(),
  )
  const manifest = JSON.parse(fs.readFileSync(path.join(consumer, 'node_modules/@clarvis/agent-tools/package.json'), 'utf8'))
  assert.equal(manifest.dependencies, undefined, 'no runtime dependencies to fetch')
  assert.deepEqual(Object.keys(manifest.peerDependenciesMeta).sort(), ['@anthropic-ai/sdk', '@modelcontextprotocol/sdk', 'ai', 'openai', 'zod', 'zod-to-json-schema'])
  assert.equal(fs.existsSync(path.join(consumer, 'node_modules/ai')), false, 'optional peers are not installed')
})

test('ESM import works in the consumer project', { skip: noNpm }, () => {
  const out = node(
    ['--input-type=module', '-e', `
      import { createAgentTools, StartupError, ToolError, buildConfig, listTools } from '@clarvis/agent-tools'
      import whole from '@clarvis/agent-tools'
      const tools = createAgentTools({ workspaceRoot: process.cwd() })
      const read = await tools.callTool('read_file', { path: 'hello.txt' })
      const missing = await tools.callTool('read_file', { path: 'nope' })
      let startup = null
      try { createAgentTools({}) } catch (e) { startup = e instanceof StartupError && e.message }
      const ro = listTools(buildConfig(['--workspace', '.', '--read-only'], {})).map((t) => t.name)
      console.log(JSON.stringify({ read, missing: JSON.parse(missing.text).error, startup, ro,
        same: whole.ToolError === ToolError, frozen: Object.isFrozen(tools.config) }))
    `],
  )
  assert.deepEqual(JSON.parse(out), {
    read: { isError: false, text: '     1\thello', content: [{ type: 'text', text: '     1\thello' }] },
    missing: 'not_found',
    startup: 'No workspace root: options.workspaceRoot is required.',
    ro: readOnlyTools.map((t) => t.name),
    same: true,
    frozen: true,
  })
})

test('CommonJS require works in the consumer project', { skip: noNpm }, () => {
  const out = node(['-e', `
    const m = require('@clarvis/agent-tools')
    const tools = m.createAgentTools({ workspaceRoot: process.cwd(), readOnly: true })
    tools.callTool('list_dir', {}).then((r) => console.log(JSON.stringify({ r, n: tools.listTools().length,
      defaults: [m.DEFAULT_MAX_OUTPUT_BYTES, m.DEFAULT_MAX_FILE_BYTES, m.DEFAULT_BASH_TIMEOUT_MS, m.DEFAULT_BASH_TIMEOUT_MAX_MS] })))
  `])
  const { r, n, defaults } = JSON.parse(out)
  assert.equal(r.isError, false)
  assert.match(r.text, /^hello\.txt\t6$/m)
  assert.equal(n, readOnlyTools.length)
  assert.deepEqual(defaults, [131072, 20000000, 120000, 600000])
})

test('the bin is installed; without the MCP SDK installed, mcp serves with the bundled copy', { skip: noShims }, () => {
  const bin = path.join(consumer, 'node_modules', '.bin', 'clarvis-agent-tools')
  assert.equal(execFileSync(bin, ['--version'], { encoding: 'utf8' }), `${packed.version}\n`)
  assert.equal(fs.existsSync(path.join(consumer, 'node_modules/@modelcontextprotocol')), false)
  const init = '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}\n'
  const r = spawnSync(bin, ['mcp', '--workspace', '.'], { cwd: consumer, encoding: 'utf8', input: init, timeout: 30_000 })
  assert.equal(r.status, 0, r.stderr)
  assert.deepEqual(JSON.parse(r.stdout).result.serverInfo, { name: 'clarvis-agent-tools', version: packed.version })
})

test('without the MCP SDK installed, mcp --http serves with the bundled copy (Bearer token)', { skip: noShims }, async (t) => {
  const bin = path.join(consumer, 'node_modules', '.bin', 'clarvis-agent-tools')
  const proc = spawn(bin, ['mcp', '--workspace', '.', '--http', '127.0.0.1:0', '--token', 'tk'], { cwd: consumer, stdio: ['ignore', 'ignore', 'pipe'] })
  t.after(() => proc.kill())
  const url = await new Promise((resolve, reject) => {
    let err = ''
    proc.stderr.on('data', (d) => {
      err += d
      const m = /serving MCP at (\S+)/.exec(err)
      if (m) resolve(m[1])
    })
    proc.on('exit', (code) => reject(new Error(`exited ${code}: ${err}`)))
  })
  const denied = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
  assert.equal(denied.status, 401)
  const client = new Client({ name: 'http', version: '1' })
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: 'Bearer tk' } } }))
  t.after(() => client.close())
  const r = await client.callTool({ name: 'read_file', arguments: { path: 'hello.txt' } })
  assert.deepEqual(r.content, [{ type: 'text', text: '     1\thello' }])
})

test('npx one-liner: `npm exec --package=<tarball> clarvis-agent-tools mcp --workspace .` in an empty directory', { skip: noShims }, async (t) => {
  const empty = path.join(tmp, 'empty')
  fs.mkdirSync(empty)
  const transport = new StdioClientTransport({
    command: NPM,
    args: ['exec', '-y', `--package=${path.join(tmp, packed.filename)}`, '--', 'clarvis-agent-tools', 'mcp', '--workspace', '.'],
    cwd: empty,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? tmp,
      npm_config_registry: 'http://127.0.0.1:9/',
      npm_config_cache: path.join(tmp, 'npx-cache'),
      npm_config_offline: 'true',
      npm_config_update_notifier: 'false',
    },
    stderr: 'pipe',
  })
  const client = new Client({ name: 'npx-test', version: '1.0.0' })
  await client.connect(transport)
  t.after(() => client.close())
  assert.equal(client.getServerVersion().name, 'clarvis-agent-tools')
  const names = (await client.listTools()).tools.map((x) => x.name)
  assert.deepEqual(names, createAgentTools({ workspaceRoot: empty }).listTools().map((x) => x.name))
  const w = await client.callTool({ name: 'write_file', arguments: { path: 'hello.txt', content: 'from npx\n' } })
  assert.equal(w.isError, false)
  assert.equal(fs.readFileSync(path.join(empty, 'hello.txt'), 'utf8'), 'from npx\n')
  // Nothing was installed into the directory itself.
  assert.equal(fs.existsSync(path.join(empty, 'node_modules')), false)
  assert.equal(fs.existsSync(path.join(empty, 'package.json')), false)
})

test('tsc --noEmit --strict accepts a consumer using the whole root API (ESM and CommonJS)', { skip: noNpm }, () => {
  tsc(['usage.mts', 'usage.cts'])
  tsc(['guard.mts', 'guard.cts'])
})

test('with the optional peers installed, /ai and /mcp load (ESM and CJS) and type-check', { skip: noNpm }, () => {
  fs.symlinkSync(path.join(REPO, 'node_modules', 'ai'), path.join(consumer, 'node_modules', 'ai'), 'dir')
  fs.mkdirSync(path.join(consumer, 'node_modules', '@modelcontextprotocol'))
  fs.symlinkSync(
    path.join(REPO, 'node_modules', '@modelcontextprotocol', 'sdk'),
    path.join(consumer, 'node_modules', '@modelcontextprotocol', 'sdk'),
    'dir',
  )
  const esm = node(['--input-type=module', '-e', `
    import { createAgentTools } from '@clarvis/agent-tools'
    import { toAiSdkTools, ToolCallError } from '@clarvis/agent-tools/ai'
    import { createMcpServer } from '@clarvis/agent-tools/mcp'
    const agent = createAgentTools({ workspaceRoot: process.cwd() })
    const set = toAiSdkTools(agent)
    const text = await set.read_file.execute({ path: 'hello.txt' }, { toolCallId: '1', messages: [] })
    const err = await set.read_file.execute({ path: 'nope' }, { toolCallId: '2', messages: [] }).catch((e) => e)
    const server = createMcpServer(agent)
    console.log(JSON.stringify({ keys: Object.keys(set).length, text, code: err instanceof ToolCallError && err.code,
      server: typeof server.connect }))
  `])
  assert.deepEqual(JSON.parse(esm), { keys: allTools.length, text: '     1\thello', code: 'not_found', server: 'function' })
  const cjs = node(['-e', `
    const { toAiSdkTools } = require('@clarvis/agent-tools/ai')
    const { createAgentTools } = require('@clarvis/agent-tools')
    console.log(Object.keys(toAiSdkTools(createAgentTools({ workspaceRoot: '.', readOnly: true }))).join(','))
  `])
  assert.equal(cjs.trim(), readOnlyTools.map((t) => t.name).join(','))
  const init = '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}\n'
  const served = spawnSync(path.join(consumer, 'node_modules', '.bin', 'clarvis-agent-tools'), ['mcp', '--workspace', '.'], {
    cwd: consumer,
    encoding: 'utf8',
    input: init,
    timeout: 30_000,
  })
  assert.equal(served.status, 0, served.stderr)
  assert.equal(JSON.parse(served.stdout).result.serverInfo.name, 'clarvis-agent-tools')
  // skipLibCheck as real projects set it: ai's own declarations need @types/node and
  // @types/json-schema, which a consumer without them cannot check. integrations.mts holds
  // @ts-expect-error lines that fail if our declarations silently degraded to `any`.
  tsc(['integrations.mts', 'integrations.cts'], ['--skipLibCheck'])
})

test('/openai and /anthropic load without their SDKs (ESM and CJS), and type-check with them installed', { skip: noNpm }, () => {
  const esm = node(['--input-type=module', '-e', `
    import { createAgentTools } from '@clarvis/agent-tools'
    import { toOpenAITools, runOpenAIToolCalls } from '@clarvis/agent-tools/openai'
    import { toAnthropicTools, runAnthropicToolUses } from '@clarvis/agent-tools/anthropic'
    const agent = createAgentTools({ workspaceRoot: process.cwd() })
    const [m] = await runOpenAIToolCalls(agent, [{ id: 'a', type: 'function', function: { name: 'read_file', arguments: '{"path":"hello.txt"}' } }])
    const [b] = await runAnthropicToolUses(agent, [{ type: 'tool_use', id: 'b', name: 'read_file', input: { path: 'nope' } }])
    console.log(JSON.stringify({ n: toOpenAITools(agent).length, a: toAnthropicTools(agent).length, m, b: JSON.parse(b.content).error, e: b.is_error }))
  `])
  assert.deepEqual(JSON.parse(esm), {
    n: allTools.length,
    a: allTools.length,
    m: { role: 'tool', tool_call_id: 'a', content: '     1\thello' },
    b: 'not_found',
    e: true,
  })
  const cjs = node(['-e', `
    const { toOpenAIResponsesTools } = require('@clarvis/agent-tools/openai')
    const { toAnthropicTools } = require('@clarvis/agent-tools/anthropic')
    const agent = require('@clarvis/agent-tools').createAgentTools({ workspaceRoot: '.', readOnly: true })
    console.log(toOpenAIResponsesTools(agent).map((t) => t.name).join(',') === toAnthropicTools(agent).map((t) => t.name).join(','))
  `])
  assert.equal(cjs.trim(), 'true')
  for (const dep of ['openai', '@anthropic-ai/sdk']) {
    const target = path.join(consumer, 'node_modules', dep)
    fs.mkdirSync(path.dirname(target), { recursive: true })
    if (!fs.existsSync(target)) fs.symlinkSync(path.join(REPO, 'node_modules', dep), target, 'dir')
  }
  tsc(['providers.mts', 'providers.cts'], ['--skipLibCheck'])
})
