// Bad input to the host-control options (issue 15): whatever a guard, elicit or custom
// handler returns or throws, a call resolves to a documented envelope — never a rejected
// promise, a crash or a write — and malformed options are StartupErrors at construction.
import test from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { createAgentTools, resolveConfig, dispatch, StartupError, ToolError, setWarnSink } from '../index.mjs'
import { latest, envelope, scratch } from './helpers.mjs'

// Internal details go to the warn sink; keep them out of the test output.
setWarnSink(() => {})

const write = { path: 'a.txt', content: 'changed' }
const untouched = (root) => assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'a\n')

test('a guard that returns garbage denies, naming what it returned', async () => {
  const circular = { verdict: 'allow?' }
  circular.self = circular
  const cases = [
    [undefined, 'guard returned an invalid decision: undefined'],
    [null, 'guard returned an invalid decision: null'],
    ['allow', 'guard returned an invalid decision: "allow"'],
    [{ verdict: 'ALLOW' }, 'guard returned an invalid decision: {"verdict":"ALLOW"}'],
    [{ verdict: 'allow ' }, 'guard returned an invalid decision: {"verdict":"allow "}'],
    [[{ verdict: 'allow' }], 'guard returned an invalid decision: [{"verdict":"allow"}]'],
    [{ verdict: 1n }, 'guard returned an invalid decision: [object Object]'],
    [circular, 'guard returned an invalid decision: [object Object]'],
  ]
  for (const [decision, message] of cases) {
    const { call, root } = latest({ 'a.txt': 'a\n' }, { guard: () => decision })
    assert.deepEqual(envelope(await call('write_file', write)), { error: 'denied', message }, String(message))
    untouched(root)
    // Async garbage is the same garbage.
    const later = latest({ 'a.txt': 'a\n' }, { guard: async () => decision })
    assert.deepEqual(envelope(await later.call('write_file', write)), { error: 'denied', message })
  }
  // A decision whose verdict getter throws fails closed as internal.
  const trap = latest({ 'a.txt': 'a\n' }, { guard: () => ({ get verdict() { throw new Error('trap') } }) })
  assert.equal(envelope(await trap.call('write_file', write)).error, 'internal')
  untouched(trap.root)
  // A non-string reason falls back to the default one.
  const odd = latest({}, { guard: () => ({ verdict: 'deny', reason: 42 }) })
  assert.deepEqual(envelope(await odd.call('list_dir', {})), { error: 'denied', message: 'blocked by guard' })
})

test('a guard that throws anything fails closed; a thrown ToolError keeps its code', async () => {
  const hostile = { toString() { throw new Error('no string for you') } }
  for (const thrown of [new Error('boom'), 'a string', null, undefined, 42, Symbol('s'), hostile, Object.create(null)]) {
    const sync = latest({ 'a.txt': 'a\n' }, { guard: () => { throw thrown } })
    assert.deepEqual(envelope(await sync.call('write_file', write)), { error: 'internal', message: 'internal error' })
    untouched(sync.root)
    const rejected = latest({ 'a.txt': 'a\n' }, { guard: () => Promise.reject(thrown) })
    assert.deepEqual(envelope(await rejected.call('write_file', write)), { error: 'internal', message: 'internal error' })
    untouched(rejected.root)
  }
  const coded = latest({ 'a.txt': 'a\n' }, { guard: () => { throw new ToolError('denied', 'policy says no', { rule: 7 }) } })
  assert.deepEqual(envelope(await coded.call('write_file', write)), { error: 'denied', message: 'policy says no', rule: 7 })
  // A ToolError whose fields cannot be serialized still ends as an envelope.
  const unserializable = latest({ 'a.txt': 'a\n' }, { guard: () => { throw new ToolError('denied', 'no', { n: 1n }) } })
  assert.equal(envelope(await unserializable.call('write_file', write)).error, 'internal')
  untouched(unserializable.root)
})

test('elicit: only true runs the call; garbage, throws and rejections deny or fail closed', async () => {
  const ask = () => ({ verdict: 'ask', reason: 'sure?' })
  for (const answer of ['yes', 1, {}, [], null, undefined, 'true']) {
    const { call, root } = latest({ 'a.txt': 'a\n' }, { guard: ask, elicit: () => answer })
    assert.deepEqual(envelope(await call('write_file', write)), { error: 'denied', message: 'sure?' }, String(answer))
    untouched(root)
  }
  for (const thrown of [null, 'x', new Error('ui gone')]) {
    const { call, root } = latest({ 'a.txt': 'a\n' }, { guard: ask, elicit: () => Promise.reject(thrown) })
    assert.equal(envelope(await call('write_file', write)).error, 'internal')
    untouched(root)
  }
})

test('a guard that never answers: an already fired signal, a later abort, guardTimeoutMs', async () => {
  const never = () => new Promise(() => {})
  const { call, root } = latest({ 'a.txt': 'a\n' }, { guard: never, guardTimeoutMs: 30 })
  assert.equal(envelope(await call('write_file', write, AbortSignal.abort())).error, 'aborted')
  const ac = new AbortController()
  setTimeout(() => ac.abort(), 20)
  const noTimeout = latest({ 'a.txt': 'a\n' }, { guard: never })
  assert.equal(envelope(await noTimeout.call('read_file', { path: 'a.txt' }, ac.signal)).error, 'aborted')
  assert.deepEqual(envelope(await call('write_file', write)), { error: 'denied', message: 'guard did not answer within 30 ms' })
  untouched(root)
  // Many stuck calls time out together; none runs.
  const results = await Promise.all(Array.from({ length: 50 }, () => call('write_file', write)))
  assert.ok(results.every((r) => JSON.parse(r.text).error === 'denied'))
  untouched(root)
})

test('malformed guard, elicit and guardTimeoutMs are StartupErrors, through every entry point', () => {
  const root = scratch()
  const bad = (opts, re) => {
    for (const make of [() => createAgentTools({ workspaceRoot: root, ...opts }), () => resolveConfig({ workspaceRoot: root, ...opts })]) {
      assert.throws(make, (e) => {
        assert.ok(e instanceof StartupError, String(e))
        assert.match(e.message, re)
        return true
      })
    }
  }
  bad({ guard: 'allow' }, /^guard must be a function \(ctx\) => \{ verdict, reason\? \}, got: string$/)
  bad({ guard: { verdict: 'allow' } }, /^guard must be a function .*got: object$/)
  bad({ guard: () => ({ verdict: 'allow' }), elicit: true }, /^elicit must be a function \(request\) => boolean, got: boolean$/)
  for (const t of [0, -1, 1.5, '100', NaN, Infinity]) bad({ guard: () => ({}), guardTimeoutMs: t }, /^guardTimeoutMs must be an integer >= 1, got: /)
  // Absent hooks (undefined, null, false) mean no guard.
  for (const none of [undefined, null, false]) createAgentTools({ workspaceRoot: root, guard: none, elicit: none })
})

test('dispatch(config) with a hand-built config carrying a bad guard answers, never throws', async () => {
  const root = scratch()
  const config = { ...resolveConfig({ workspaceRoot: root }), guard: 'nope' }
  const r = await dispatch('list_dir', {}, config)
  assert.equal(r.isError, true)
  assert.equal(JSON.parse(r.text).error, 'invalid_input')
  assert.match(JSON.parse(r.text).message, /^Invalid config: guard must be a function/)
})

test('custom tool handlers that throw anything or return garbage answer an envelope', async () => {
  const hostile = { toString() { throw new Error('nope') } }
  const throwing = (thrown) => ({ name: 'boom', description: 'd', inputSchema: { type: 'object' }, readOnly: true, handler: () => { throw thrown } })
  for (const thrown of [null, undefined, 'x', hostile, Symbol('s'), Object.create(null)]) {
    const tools = createAgentTools({ workspaceRoot: scratch(), customTools: [throwing(thrown)] })
    assert.deepEqual(envelope(await tools.callTool('boom', {})), { error: 'internal', message: 'internal error' })
  }
  const returning = (value) => ({ name: 'odd', description: 'd', inputSchema: { type: 'object' }, readOnly: true, handler: () => value })
  const circular = {}
  circular.self = circular
  for (const value of [circular, { content: [{ type: 'text', text: 5 }] }, { content: [], meta: 7 }, 10n, Symbol('s'), () => 1]) {
    const tools = createAgentTools({ workspaceRoot: scratch(), customTools: [returning(value)] })
    const r = await tools.callTool('odd', {})
    assert.equal(r.isError, true, String(r.text))
    assert.deepEqual(envelope(r), { error: 'internal', message: 'internal error' })
  }
})

test('redactSecrets: a mutating custom tool is refused a placeholder; a read-only one is not', async () => {
  let ran = 0
  const tool = (name, readOnly) => ({ name, description: 'd', inputSchema: { type: 'object', properties: { note: { type: 'string' } } }, readOnly, handler: ({ note }) => { ran++; return note } })
  const tools = createAgentTools({ workspaceRoot: scratch(), redactSecrets: true, customTools: [tool('save', false), tool('echo', true)] })
  const refused = envelope(await tools.callTool('save', { note: 'key=[REDACTED:github_token]' }))
  assert.equal(refused.error, 'invalid_input')
  assert.equal(refused.at, '/note')
  assert.equal(ran, 0)
  // The read-only one runs, and what it echoes is a placeholder, not a secret.
  assert.equal((await tools.callTool('echo', { note: 'key=[REDACTED:github_token]' })).text, 'key=[REDACTED:github_token]')
})
