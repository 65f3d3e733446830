// guard and elicit (LATER §2.4): called after validation with the default-filled arguments,
// before the handler, for every tool; fail-closed; the analyzer and helpers.
import test from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { analyzeBash, buildGuardContext, withinWorkspace, touchesOutside, commandsIn, ToolError, StartupError, createAgentTools } from '../index.mjs'
import * as guardEntry from '../guard.mjs'
import { latest, envelope, scratch } from './helpers.mjs'
import { home, noSymlinks } from './platform.mjs'

test('the /guard entry exports the same functions as the root', () => {
  for (const k of ['analyzeBash', 'buildGuardContext', 'withinWorkspace', 'touchesOutside', 'commandsIn']) {
    assert.equal(typeof guardEntry[k], 'function', k)
  }
  assert.equal(guardEntry.analyzeBash, analyzeBash)
})

test('analyzeBash: the documented examples', () => {
  const n = (c) => analyzeBash(c).segments.map((s) => s.normalized)
  assert.deepEqual(n('FOO=bar ls -la'), ['ls -la'])
  assert.deepEqual(n('nohup nice node app.js'), ['node app.js'])
  assert.deepEqual(n('timeout --foreground 1.5m npm test'), ['npm test'])
  assert.deepEqual(n('a && b || c; d | e\nf & g'), ['a', 'b', 'c', 'd', 'e', 'f', 'g'])
  assert.deepEqual(n('cmd &> out.log'), ['cmd &> out.log'])
  assert.deepEqual(n("echo 'a; b' \"c && d\""), ['echo a; b c && d'])
  assert.deepEqual(analyzeBash('echo x >/etc/cron.d/x').paths, ['/etc/cron.d/x'])
  assert.deepEqual(analyzeBash('cat /etc/pass*').paths, ['/etc'])
  assert.deepEqual(analyzeBash('cat *.ts /*').paths, ['.', '/'])
  assert.deepEqual(analyzeBash('echo hi >&2').paths, [])
  const sub = analyzeBash('(cat /etc/passwd)')
  assert.equal(sub.undecidable, false)
  assert.deepEqual(sub.paths, ['/etc/passwd'])
  assert.equal(analyzeBash("sed -n '/x/,$p' f.txt").undecidable, false)
  for (const c of ['echo "$HOME"', 'echo $(id)', 'echo `id`', 'eval ls', 'env X=1 ls', 'xargs rm', 'sh -c ls', 'bash -c "ls"', 'diff <(a) b', 'ls ~root', 'cat ../*/x', "echo 'open", 'echo (x'])
    assert.equal(analyzeBash(c).undecidable, true, c)
  assert.deepEqual(analyzeBash('cat $(cat /etc/shadow) a.txt').paths, ['a.txt'])
})

test('helpers are fail-closed', () => {
  const bash = analyzeBash('npm test && git status --short')
  assert.equal(commandsIn(bash, ['npm test', ' git status ']), true)
  assert.equal(commandsIn(bash, ['npm', 'git']), true)
  assert.equal(commandsIn(bash, ['npm']), false)
  assert.equal(commandsIn(bash, ['np']), false)
  assert.equal(commandsIn(analyzeBash('echo $X'), ['echo']), false)
  assert.equal(commandsIn(analyzeBash(''), ['x']), false)
  assert.equal(withinWorkspace({ paths: [] }), false)
  assert.equal(withinWorkspace({ paths: [{ withinWorkspace: true }], bash: { undecidable: true } }), false)
  assert.equal(touchesOutside({ paths: [{ withinWorkspace: true }, { withinWorkspace: false }] }), true)
})

test('buildGuardContext: path facts per tool, realpath-based, computed even when not confined', { skip: noSymlinks }, () => {
  const root = scratch()
  fs.symlinkSync('/etc', path.join(root, 'out'))
  const config = createAgentTools({ workspaceRoot: root, confineToWorkspace: false }).config
  const ctx = buildGuardContext('read_file', { path: 'out/passwd' }, config)
  assert.deepEqual(ctx.paths, [{ raw: 'out/passwd', resolved: path.join(root, 'out/passwd'), withinWorkspace: false }])
  assert.deepEqual(buildGuardContext('move', { source: 'a', destination: 'b' }, config).paths.map((p) => p.raw), ['a', 'b'])
  assert.deepEqual(buildGuardContext('replace', { pattern: 'x', replacement: 'y' }, config).paths.map((p) => p.raw), ['.'])
  const patch = '--- a/src/x.ts\t2020\n+++ b/src/x.ts\n--- /dev/null\n+++ b/new.ts\n'
  assert.deepEqual(buildGuardContext('apply_patch', { patch }, config).paths.map((p) => p.raw), ['src/x.ts', 'new.ts'])
  assert.deepEqual(buildGuardContext('read_files', { paths: ['a', 3, 'b'] }, config).paths.map((p) => p.raw), ['a', 'b'])
  const b = buildGuardContext('bash', { command: 'cat ~/x /etc/hosts', cwd: 'sub' }, config)
  assert.deepEqual(b.paths.map((p) => [p.raw, p.withinWorkspace]), [['~/x', false], ['/etc/hosts', false], ['sub', true]])
  assert.equal(b.paths[0].resolved, path.join(home, 'x'))
  assert.equal(b.bash.segments[0].normalized, 'cat ~/x /etc/hosts')
  assert.deepEqual(buildGuardContext('monitor_list', {}, config).paths, [])
  assert.equal(buildGuardContext('read_file', { path: '~' }, config).paths[0].withinWorkspace, true)
})

// Windows usually has no HOME; an empty one once made `~` the workspace root, so `rm -rf ~` was
// judged inside. With no home known a `~` path is outside, as given.
test('~ with no home known is outside, never the workspace root', (t) => {
  const root = scratch()
  const config = createAgentTools({ workspaceRoot: root }).config
  const saved = { HOME: process.env.HOME, USERPROFILE: process.env.USERPROFILE }
  t.after(() => {
    for (const [k, v] of Object.entries(saved)) v === undefined ? delete process.env[k] : (process.env[k] = v)
  })
  for (const unset of [(k) => delete process.env[k], (k) => (process.env[k] = '')]) {
    unset('HOME')
    unset('USERPROFILE')
    for (const command of ['ls ~', 'rm -rf ~', 'cat ~/.ssh/id_rsa', 'cd; rm -rf .']) {
      const ctx = buildGuardContext('bash', { command }, config)
      assert.equal(withinWorkspace(ctx), false, command)
      assert.equal(touchesOutside(ctx), true, command)
    }
    const ctx = buildGuardContext('bash', { command: 'rm -rf ~' }, config)
    assert.deepEqual(ctx.paths.filter((p) => p.raw === '~').map((p) => [p.resolved, p.withinWorkspace]), [['~', false]])
  }
})

test('allow runs; deny is `denied` with the reason; the guard sees validated, default-filled args', async () => {
  const seen = []
  const { call, root } = latest({ 'a.txt': 'a\n' }, {
    guard: (ctx) => {
      seen.push(ctx)
      return ctx.tool === 'write_file' ? { verdict: 'deny', reason: 'no writes today' } : { verdict: 'allow' }
    },
  })
  assert.equal((await call('read_file', { path: 'a.txt', limit: '5', junk: 1 })).text, '     1\ta')
  assert.deepEqual(seen[0].args, { path: 'a.txt', limit: 5, junk: 1, offset: 1 })
  assert.equal(seen[0].tool, 'read_file')
  assert.equal(seen[0].config.workspaceRoot, root)
  assert.deepEqual(envelope(await call('write_file', { path: 'a.txt', content: 'x' })), { error: 'denied', message: 'no writes today' })
  assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'a\n')
  // Validation comes first: the guard never sees an invalid call.
  const before = seen.length
  assert.equal(envelope(await call('read_file', {})).error, 'invalid_input')
  assert.equal(envelope(await call('nope', {})).error, 'not_found')
  assert.equal(seen.length, before)
})

test('ask goes to elicit; no elicit, a false answer, a throw or garbage denies', async () => {
  const ask = () => ({ verdict: 'ask', reason: 'confirm' })
  const yes = latest({ 'a.txt': 'a' }, { guard: ask, elicit: async (req) => req.tool === 'read_file' })
  assert.equal((await yes.call('read_file', { path: 'a.txt' })).isError, false)
  assert.deepEqual(envelope(await yes.call('list_dir', {})), { error: 'denied', message: 'confirm' })
  const none = latest({}, { guard: ask })
  assert.deepEqual(envelope(await none.call('list_dir', {})), { error: 'denied', message: 'confirm' })
  const dflt = latest({}, { guard: () => ({ verdict: 'deny' }) })
  assert.deepEqual(envelope(await dflt.call('list_dir', {})), { error: 'denied', message: 'blocked by guard' })
  const throwsTool = latest({}, { guard: () => { throw new ToolError('path_escape', 'nope') } })
  assert.deepEqual(envelope(await throwsTool.call('list_dir', {})), { error: 'path_escape', message: 'nope' })
  const throws = latest({}, { guard: async () => { throw new Error('boom') } })
  assert.equal(envelope(await throws.call('list_dir', {})).error, 'internal')
  const garbage = latest({}, { guard: () => 'yes' })
  assert.equal(envelope(await garbage.call('list_dir', {})).error, 'denied')
  const elicitThrows = latest({}, { guard: ask, elicit: () => { throw new Error('ui gone') } })
  assert.equal(envelope(await elicitThrows.call('list_dir', {})).error, 'internal')
})

test('a guard that never answers: guardTimeoutMs denies, an abort ends the call with aborted', async () => {
  const never = () => new Promise(() => {})
  const timed = latest({}, { guard: never, guardTimeoutMs: 50 })
  assert.deepEqual(envelope(await timed.call('list_dir', {})), { error: 'denied', message: 'guard did not answer within 50 ms' })
  const { call } = latest({}, { guard: () => ({ verdict: 'ask' }), elicit: never })
  const ac = new AbortController()
  setTimeout(() => ac.abort(), 50)
  const r = await call('bash', { command: 'echo hi' }, ac.signal)
  assert.deepEqual(envelope(r), { error: 'aborted', message: 'Command aborted (run cancelled)', stdout: '', stderr: '' })
  assert.throws(() => createAgentTools({ workspaceRoot: scratch(), guard: () => ({}), guardTimeoutMs: 0 }), StartupError)
})

test('200 concurrent calls with an async guard neither deadlock nor block', async () => {
  const files = {}
  for (let i = 0; i < 20; i++) files[`f${i}.txt`] = `${i}\n`
  let calls = 0
  const { call } = latest(files, {
    guard: async () => {
      calls++
      await new Promise((r) => setTimeout(r, 1))
      return { verdict: 'allow' }
    },
  })
  const results = await Promise.all(Array.from({ length: 200 }, (_, i) => call('read_file', { path: `f${i % 20}.txt` })))
  assert.ok(results.every((r) => !r.isError))
  assert.equal(calls, 200)
})

test('the config carries guard and elicit', () => {
  const guard = () => ({ verdict: 'allow' })
  const elicit = () => true
  const t = createAgentTools({ workspaceRoot: scratch(), guard, elicit })
  assert.equal(t.config.guard, guard)
  assert.equal(t.config.elicit, elicit)
})

test('guardTimeoutMs covers the whole guard + elicit exchange; late answers are ignored', { timeout: 20000 }, async () => {
  const never = () => new Promise(() => {})
  const hang = latest({ 'a.txt': 'a\n' }, { guard: () => ({ verdict: 'ask', reason: 'confirm' }), elicit: never, guardTimeoutMs: 50 })
  assert.deepEqual(envelope(await hang.call('write_file', { path: 'a.txt', content: 'x' })), { error: 'denied', message: 'elicit did not answer within 50 ms' })
  assert.equal(fs.readFileSync(path.join(hang.root, 'a.txt'), 'utf8'), 'a\n')
  // One deadline for both: a guard using 80% of it and an elicit using 50% overrun it together
  // (timers fire in expiry order, so this holds on a loaded machine too).
  const after = (ms, v) => () => new Promise((r) => setTimeout(() => r(v), ms))
  const split = latest({}, { guard: after(160, { verdict: 'ask' }), elicit: after(100, true), guardTimeoutMs: 200 })
  assert.deepEqual(envelope(await split.call('list_dir', {})), { error: 'denied', message: 'elicit did not answer within 200 ms' })
  // An answer after the deadline changes nothing.
  let answer
  const late = latest({ 'a.txt': 'a\n' }, { guard: () => ({ verdict: 'ask' }), elicit: () => new Promise((r) => { answer = r }), guardTimeoutMs: 30 })
  assert.equal(envelope(await late.call('write_file', { path: 'a.txt', content: 'x' })).error, 'denied')
  answer(true)
  await new Promise((r) => setTimeout(r, 50))
  assert.equal(fs.readFileSync(path.join(late.root, 'a.txt'), 'utf8'), 'a\n')
  // A custom tool's exchange has the same deadline.
  const custom = latest({}, {
    guard: () => ({ verdict: 'ask' }),
    elicit: never,
    guardTimeoutMs: 40,
    customTools: [{ name: 'ping', description: 'd', inputSchema: { type: 'object' }, handler: () => 'pong' }],
  })
  assert.deepEqual(envelope(await custom.call('ping', {})), { error: 'denied', message: 'elicit did not answer within 40 ms' })
})

test('a guard or elicit that throws or rejects, and an abort during the exchange, end the call', { timeout: 20000 }, async () => {
  const ask = () => ({ verdict: 'ask' })
  const cases = [
    [{ guard: () => Promise.reject(new ToolError('io_error', 'policy store down')) }, { error: 'io_error', message: 'policy store down' }],
    [{ guard: () => Promise.reject(new Error('x')) }, { error: 'internal', message: 'internal error' }],
    [{ guard: () => ({ then: () => { throw new Error('bad thenable') } }) }, { error: 'internal', message: 'internal error' }],
    [{ guard: ask, elicit: () => Promise.reject(new ToolError('denied', 'user closed the dialog')) }, { error: 'denied', message: 'user closed the dialog' }],
    [{ guard: ask, elicit: async () => { throw 'a string' } }, { error: 'internal', message: 'internal error' }],
    [{ guard: () => ({ get verdict() { throw new Error('getter') } }) }, { error: 'internal', message: 'internal error' }],
  ]
  for (const [hooks, expected] of cases) {
    const { call, root } = latest({ 'a.txt': 'a\n' }, hooks)
    assert.deepEqual(envelope(await call('write_file', { path: 'a.txt', content: 'x' })), expected)
    assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'a\n')
  }
  // An abort while the guard or elicit is pending ends the call with the tool's aborted error,
  // and nothing runs when the host answers later.
  const never = () => new Promise(() => {})
  for (const hooks of [{ guard: never }, { guard: ask, elicit: never }]) {
    const { call, root } = latest({ 'a.txt': 'a\n' }, hooks)
    const ac = new AbortController()
    const p = call('write_file', { path: 'a.txt', content: 'x' }, ac.signal)
    setTimeout(() => ac.abort(), 20)
    assert.equal(envelope(await p).error, 'aborted')
    assert.equal(envelope(await call('write_file', { path: 'a.txt', content: 'x' }, AbortSignal.abort())).error, 'aborted')
    assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'a\n')
  }
})
