import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import * as api from '../index.mjs'
import { scratch } from './helpers.mjs'
import { noSh } from './platform.mjs'

const { createAgentTools, resolveConfig, buildConfig, StartupError } = api

test('ESM import and CJS require expose the same API', () => {
  const cjs = createRequire(import.meta.url)('../index.js')
  for (const name of [
    'createAgentTools', 'dispatch', 'listTools', 'resolveConfig', 'buildConfig', 'StartupError',
    'ToolError', 'serializeError', 'fsError', 'sweepSpillDir', 'setWarnSink', 'tools',
    'readOnlyTools', 'getTool', 'selectSurface', 'DEFAULT_MAX_OUTPUT_BYTES', 'DEFAULT_MAX_FILE_BYTES',
    'DEFAULT_BASH_TIMEOUT_MS', 'DEFAULT_BASH_TIMEOUT_MAX_MS',
  ]) {
    assert.ok(name in cjs, `cjs lacks ${name}`)
    assert.equal(api[name], cjs[name], `esm/cjs differ on ${name}`)
  }
  assert.equal(api.DEFAULT_MAX_OUTPUT_BYTES, 131072)
  assert.equal(api.DEFAULT_MAX_FILE_BYTES, 20000000)
  assert.equal(api.DEFAULT_BASH_TIMEOUT_MS, 120000)
  assert.equal(api.DEFAULT_BASH_TIMEOUT_MAX_MS, 600000)
})

test('defaults, normalised root and a frozen config', () => {
  const root = scratch()
  const t = createAgentTools({ workspaceRoot: path.join(root, 'x', '..') + '/', probeRipgrep: () => true, compat: '0.1' })
  assert.deepEqual({ ...t.config }, {
    workspaceRoot: root,
    maxOutputBytes: 131072,
    maxFileBytes: 20000000,
    bashTimeoutMs: 120000,
    bashTimeoutMaxMs: 600000,
    ripgrepAvailable: true,
    readOnly: false,
    confineToWorkspace: true,
  })
  assert.ok(Object.isFrozen(t.config))
  assert.throws(() => { 'use strict'; t.config.readOnly = true }, TypeError)
  assert.equal(createAgentTools({ workspaceRoot: root, probeRipgrep: () => false }).config.ripgrepAvailable, false)
})

test('relative workspaceRoot resolves against the process cwd', () => {
  const root = scratch()
  const rel = path.relative(process.cwd(), root)
  assert.equal(resolveConfig({ workspaceRoot: rel }).workspaceRoot, root)
})

function startupMessage(fn) {
  try {
    fn()
  } catch (e) {
    assert.ok(e instanceof StartupError, 'not a StartupError')
    assert.ok(e instanceof Error)
    assert.equal(e.name, 'StartupError')
    return e.message
  }
  assert.fail('did not throw')
}

test('StartupError messages for bad options', () => {
  const root = scratch()
  const file = path.join(root, 'f')
  fs.writeFileSync(file, '')
  assert.equal(startupMessage(() => createAgentTools({})), 'No workspace root: options.workspaceRoot is required.')
  assert.equal(startupMessage(() => createAgentTools()), 'No workspace root: options.workspaceRoot is required.')
  assert.equal(startupMessage(() => createAgentTools({ workspaceRoot: path.join(root, 'nope') })),
    `Workspace root does not exist: ${path.join(root, 'nope')}`)
  assert.equal(startupMessage(() => createAgentTools({ workspaceRoot: file })), `Workspace root is not a directory: ${file}`)
  const cases = [
    [{ maxOutputBytes: 1023 }, 'maxOutputBytes must be an integer >= 1024, got: 1023'],
    [{ maxOutputBytes: 2048.5 }, 'maxOutputBytes must be an integer >= 1024, got: 2048.5'],
    [{ maxOutputBytes: '4096' }, 'maxOutputBytes must be an integer >= 1024, got: 4096'],
    [{ maxFileBytes: 0 }, 'maxFileBytes must be an integer >= 1024, got: 0'],
    [{ bashTimeoutMs: 0 }, 'bashTimeoutMs must be an integer >= 1, got: 0'],
    [{ bashTimeoutMaxMs: Infinity }, 'bashTimeoutMaxMs must be an integer >= 1, got: Infinity'],
    [{ bashTimeoutMs: 500, bashTimeoutMaxMs: 100 }, 'bashTimeoutMaxMs (100) must be >= bashTimeoutMs (500).'],
  ]
  for (const [opts, msg] of cases) {
    assert.equal(startupMessage(() => createAgentTools({ workspaceRoot: root, ...opts })), msg)
  }
  const ok = createAgentTools({ workspaceRoot: root, maxOutputBytes: 1024, bashTimeoutMs: 5, bashTimeoutMaxMs: 5 })
  assert.equal(ok.config.maxOutputBytes, 1024)
})

test('buildConfig reads flags and environment, flags win', () => {
  const root = scratch()
  const other = scratch()
  let c = buildConfig(['--workspace', root, '--read-only'], { WORKSPACE_ROOT: other, READ_ONLY: 'off' }, () => false)
  assert.equal(c.workspaceRoot, root)
  assert.equal(c.readOnly, true)
  assert.equal(c.ripgrepAvailable, false)
  assert.ok(Object.isFrozen(c))
  c = buildConfig([`--workspace=${root}`], {
    ALLOW_OUTSIDE_WORKSPACE: ' TRUE ', MAX_OUTPUT_BYTES: '2048', MAX_FILE_BYTES: '', BASH_TIMEOUT_MS: '10', BASH_TIMEOUT_MAX_MS: '20',
  })
  assert.equal(c.confineToWorkspace, false)
  assert.equal(c.maxOutputBytes, 2048)
  assert.equal(c.maxFileBytes, 20000000)
  assert.equal(c.bashTimeoutMs, 10)
  assert.equal(c.bashTimeoutMaxMs, 20)
  c = buildConfig(['--allow-outside-workspace'], { WORKSPACE_ROOT: root, ALLOW_OUTSIDE_WORKSPACE: '0' })
  assert.equal(c.confineToWorkspace, false)

  const env = { WORKSPACE_ROOT: root }
  assert.equal(startupMessage(() => buildConfig(['--workspace'], {})), '--workspace requires a path argument')
  assert.equal(startupMessage(() => buildConfig(['--workspace', '--read-only'], {})), '--workspace requires a path argument')
  assert.equal(startupMessage(() => buildConfig(['--workspace='], {})), '--workspace requires a path argument')
  assert.equal(startupMessage(() => buildConfig([], {})), 'No workspace root: pass --workspace <path> or set WORKSPACE_ROOT.')
  assert.equal(startupMessage(() => buildConfig([], { ...env, READ_ONLY: 'maybe' })),
    'READ_ONLY must be one of 1/true/yes/on or 0/false/no/off, got: maybe')
  assert.equal(startupMessage(() => buildConfig([], { ...env, ALLOW_OUTSIDE_WORKSPACE: '2' })),
    'ALLOW_OUTSIDE_WORKSPACE must be one of 1/true/yes/on or 0/false/no/off, got: 2')
  for (const raw of [' 100 ', '12.5', '-5', 'abc']) {
    assert.equal(startupMessage(() => buildConfig([], { ...env, MAX_OUTPUT_BYTES: raw })),
      `MAX_OUTPUT_BYTES must be a positive integer, got: ${raw}`)
  }
  assert.equal(startupMessage(() => buildConfig([], { ...env, MAX_FILE_BYTES: '1000' })), 'MAX_FILE_BYTES must be an integer >= 1024, got: 1000')
  assert.equal(startupMessage(() => buildConfig([], { ...env, BASH_TIMEOUT_MS: '0' })), 'BASH_TIMEOUT_MS must be an integer >= 1, got: 0')
  assert.equal(startupMessage(() => buildConfig([], { ...env, BASH_TIMEOUT_MS: '50', BASH_TIMEOUT_MAX_MS: '40' })),
    'BASH_TIMEOUT_MAX_MS (40) must be >= BASH_TIMEOUT_MS (50).')
})

test('a budget past V8\'s longest string acts as the ceiling', () => {
  // V8 has no string longer than 2^29 - 24 UTF-16 units; the ceiling leaves 1 MiB of it for
  // footers, and the largest image's base64 fits it.
  const ceiling = 2 ** 29 - 24 - 2 ** 20
  const root = scratch()
  const t = createAgentTools({ workspaceRoot: root, maxOutputBytes: 2 ** 30, maxImageBytes: 2 ** 30 })
  assert.equal(t.config.maxOutputBytes, ceiling)
  assert.equal(t.config.maxImageBytes, Math.floor(ceiling / 4) * 3)
  assert.equal(createAgentTools({ workspaceRoot: root, maxOutputBytes: ceiling - 1 }).config.maxOutputBytes, ceiling - 1)
})

test('a result longer than V8 can hold is an output_limit error, not internal', { skip: noSh }, async () => {
  // 100 MB of control bytes within a 200 MB budget: bash's JSON escapes each as \u0001, a
  // 600 MB string, which used to fail to cross and end the call `internal`.
  const t = createAgentTools({ workspaceRoot: scratch(), maxOutputBytes: 200e6 })
  const r = await t.callTool('bash', { command: "head -c 100000000 /dev/zero | tr '\\0' '\\1'" })
  assert.equal(r.isError, true)
  const e = JSON.parse(r.content[0].text)
  assert.equal(e.error, 'output_limit')
  assert.equal(e.limit, 2 ** 29 - 24)
  assert.ok(e.size > 600e6, `${e.size}`)
  assert.match(e.message, /^The result is \d+ bytes, longer than the longest string JavaScript can hold \(536870888 UTF-16 units\): ask for less at a time$/)
})
