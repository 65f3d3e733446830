// bash { session }: a named persistent shell per tools object (issue 33). State carries over;
// each result is exactly its command's output; interruptions end the command and say what
// became of the shell; exit, the limit, idleness and endShellSessions end sessions, and their
// processes are gone.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { latest, workspace, envelope, dead, eventually } from './helpers.mjs'
import { buildGuardContext, probeSandbox } from '../index.mjs'
import { noSh } from './platform.mjs'

const linux = process.platform === 'linux'
const KEYS = ['exit_code', 'signal', 'stderr', 'stdout', 'timed_out']

async function sh(ws, session, command, extra = {}, options) {
  const r = await ws.tools.callTool('bash', { command, session, ...extra }, options)
  return { r, out: r.isError ? null : JSON.parse(r.text) }
}

test('cd, export, a function, an alias and an option carry over; the result keeps its shape', { skip: noSh }, async () => {
  const ws = latest({ 'sub/f.txt': 'x' })
  const first = await sh(ws, 'dev', "cd sub && export GREETING=hi && f() { echo \"f:$1\"; } && alias ll='echo aliased' && set -u && echo one")
  assert.deepEqual(first.out, { exit_code: 0, stdout: 'one\n', stderr: '', signal: null, timed_out: false })
  assert.deepEqual(first.r.meta.session, { name: 'dev', state: 'started', cwd: 'sub' })
  const second = await sh(ws, 'dev', 'pwd; cat f.txt; echo; echo $GREETING; f x; ll; echo ${UNSET_VAR}')
  assert.deepEqual(Object.keys(second.out).sort(), KEYS)
  assert.equal(second.out.stdout, `${fs.realpathSync(path.join(ws.root, 'sub'))}\nx\nhi\nf:x\naliased\n`)
  assert.match(second.out.stderr, /UNSET_VAR: parameter not set/)
  assert.equal(second.r.meta.session.state, 'resumed')
  // Without `session` bash stays stateless, in the root.
  const plain = JSON.parse((await ws.call('bash', { command: 'pwd; echo ${GREETING:-none}' })).text)
  assert.equal(plain.stdout, `${fs.realpathSync(ws.root)}\nnone\n`)
  assert.equal((await ws.call('bash', { command: 'true' })).meta, undefined)
  // `cwd` moves the session there, and it stays.
  const moved = await sh(ws, 'dev', 'pwd', { cwd: '.' })
  assert.equal(moved.out.stdout, `${fs.realpathSync(ws.root)}\n`)
  assert.equal((await sh(ws, 'dev', 'pwd')).out.stdout, `${fs.realpathSync(ws.root)}\n`)
})

test('fake frames, no trailing newline, binary and a syntax error are output like any other', { skip: noSh }, async () => {
  const ws = latest()
  const fake = "printf '%s\\n' 'abc 0 x' / 'abc-pwd' 'export A=1' 'abc-end'; printf 'no-newline'"
  assert.equal((await sh(ws, 's', fake)).out.stdout, 'abc 0 x\n/\nabc-pwd\nexport A=1\nabc-end\nno-newline')
  const both = await sh(ws, 's', 'printf out; printf err >&2; (exit 7)')
  assert.deepEqual([both.out.stdout, both.out.stderr, both.out.exit_code], ['out', 'err', 7])
  assert.equal((await sh(ws, 's', "printf 'a\\000b\\377c'")).out.stdout, 'a\u0000b\ufffdc')
  const bad = await sh(ws, 's', 'if then')
  assert.equal(bad.out.exit_code, 2)
  assert.match(bad.out.stderr, /Syntax error/)
  assert.equal((await sh(ws, 's', 'cat; echo stdin-closed')).out.stdout, 'stdin-closed\n')
  assert.equal((await sh(ws, 's', 'echo still')).r.meta.session.state, 'resumed')
})

test('big output: spilled whole under the ceiling; 10 MB ends the command, the session lives on', { skip: noSh }, async () => {
  const ws = latest()
  await sh(ws, 's', 'X=kept')
  const big = await sh(ws, 's', "head -c 5000000 /dev/zero | tr '\\0' a; echo; echo end")
  assert.match(big.out.stdout, /full output written to \.clarvis\/bash-.*\.stdout\.log/)
  assert.ok(big.out.stdout.endsWith('end\n'))
  const file = big.out.stdout.match(/written to (\S+) \.\.\.\]/)[1]
  assert.equal(fs.statSync(path.join(ws.root, file)).size, 5000005)
  const over = await sh(ws, 's', "head -c 10000000 /dev/zero | tr '\\0' b")
  const e = envelope(over.r)
  assert.equal(e.error, 'output_limit')
  assert.deepEqual(e.session, { name: 's', state: 'kept' })
  assert.equal((await sh(ws, 's', 'echo $X')).out.stdout, 'kept\n')
})

test('a timeout mid-session ends the command and what it started; the next call runs in the same shell', { skip: noSh }, async () => {
  const ws = latest()
  const pid = Number((await sh(ws, 's', 'f() { echo fn; }; echo $$')).out.stdout)
  const t = await sh(ws, 's', 'sleep 1000 & echo $! > bg.pid; echo up; sleep 1000', { timeout_ms: 1500 })
  const e = envelope(t.r)
  assert.equal(e.error, 'timeout')
  assert.equal(e.stdout, 'up\n')
  assert.deepEqual(e.session, { name: 's', state: 'kept' })
  assert.match(e.message, /^Command exceeded 1500ms \(session "s" kept/)
  const bg = Number(fs.readFileSync(path.join(ws.root, 'bg.pid'), 'utf8'))
  await eventually(() => dead(bg), 'the background sleep of the timed-out call is gone')
  const next = await sh(ws, 's', 'f; echo $$')
  assert.equal(next.out.stdout, `fn\n${pid}\n`)
})

test('a shell that cannot be interrupted is restarted with its cwd and exported variables', { skip: noSh }, async () => {
  const ws = latest({ 'd/x': '' })
  await sh(ws, 's', "cd d; export E='a b'; g() { :; }")
  const e = envelope((await sh(ws, 's', 'while :; do :; done', { timeout_ms: 300 })).r)
  assert.deepEqual(e.session, { name: 's', state: 'restarted' })
  assert.match(e.message, /restarted: working directory and exported variables restored/)
  const next = await sh(ws, 's', 'pwd; echo "$E"; command -v g || echo no-g')
  assert.equal(next.out.stdout, `${fs.realpathSync(path.join(ws.root, 'd'))}\na b\nno-g\n`)
})

test('an abort mid-session ends the command; the session goes on', { skip: noSh }, async () => {
  const ws = latest()
  await sh(ws, 's', 'Y=1')
  const ac = new AbortController()
  const pending = sh(ws, 's', 'echo up > up; sleep 1000', {}, { signal: ac.signal })
  await eventually(() => fs.existsSync(path.join(ws.root, 'up')), 'the command started')
  ac.abort()
  const e = envelope((await pending).r)
  assert.equal(e.error, 'aborted')
  assert.equal(e.session.name, 's')
  assert.equal((await sh(ws, 's', 'echo $Y')).out.stdout, '1\n')
})

test('exit ends that session only; the next call with its name starts afresh', { skip: noSh }, async () => {
  const ws = latest({ 'd/x': '' })
  const other = (await sh(ws, 'other', 'echo $$')).out.stdout
  const pid = Number((await sh(ws, 's', 'cd d; V=1; sleep 1000 & echo $$')).out.stdout)
  const bye = await sh(ws, 's', 'echo bye; exit 4')
  assert.deepEqual([bye.out.exit_code, bye.out.stdout], [4, 'bye\n'])
  assert.equal(bye.r.meta.session.state, 'ended')
  await eventually(() => dead(pid), 'the exited shell is gone')
  const fresh = await sh(ws, 's', 'pwd; echo ${V:-unset}')
  assert.equal(fresh.out.stdout, `${fs.realpathSync(ws.root)}\nunset\n`)
  assert.equal(fresh.r.meta.session.state, 'started')
  assert.equal((await sh(ws, 'other', 'echo $$')).out.stdout, other)
})

test('maxShellSessions: a new name ends the least recently used idle session', { skip: noSh }, async () => {
  const ws = latest({}, { maxShellSessions: 2 })
  assert.equal(ws.tools.config.maxShellSessions, 2)
  const a = (await sh(ws, 'a', 'echo $$')).out.stdout
  const b = Number((await sh(ws, 'b', 'echo $$')).out.stdout)
  await sh(ws, 'a', 'true')
  await sh(ws, 'c', 'true')
  await eventually(() => dead(b), 'b, the least recently used, ended')
  assert.equal((await sh(ws, 'a', 'echo $$')).out.stdout, a)
})

test('shellSessionIdleMs: an idle session ends', { skip: noSh }, async () => {
  const ws = latest({}, { shellSessionIdleMs: 100 })
  const pid = Number((await sh(ws, 's', 'echo $$')).out.stdout)
  await eventually(() => dead(pid), 'the idle shell ended')
  assert.equal((await sh(ws, 's', 'true')).r.meta.session.state, 'started')
})

test('endShellSessions ends every shell and what it started', { skip: noSh }, async () => {
  const ws = latest()
  const [shell, bg] = (await sh(ws, 's', 'sleep 1000 >/dev/null 2>&1 & echo $$ $!')).out.stdout.trim().split(' ').map(Number)
  const other = Number((await sh(ws, 't', 'echo $$')).out.stdout)
  assert.equal(await ws.tools.endShellSessions(), 2)
  for (const pid of [shell, bg, other]) assert.ok(dead(pid), `${pid} is gone when endShellSessions resolves`)
  assert.equal((await sh(ws, 's', 'true')).r.meta.session.state, 'started')
})

test('dropping the tools object ends its shells (no orphans)', { skip: !linux && 'Linux only' }, () => {
  const here = path.dirname(fileURLToPath(import.meta.url))
  const ws = latest()
  const script = `
    const { createAgentTools } = require(${JSON.stringify(path.join(here, '..', 'index.js'))})
    ;(async () => {
      let tools = createAgentTools({ workspaceRoot: ${JSON.stringify(ws.root)} })
      const r = await tools.callTool('bash', { command: 'sleep 1000 >/dev/null 2>&1 & echo $$ $!', session: 's' })
      process.stdout.write(JSON.parse(r.text).stdout)
      tools = null
      for (let i = 0; i < 20; i++) { global.gc(); await new Promise((d) => setTimeout(d, 50)) }
    })()`
  const child = spawnSync(process.execPath, ['--expose-gc', '-e', script], { encoding: 'utf8' })
  assert.equal(child.status, 0, child.stderr)
  const pids = child.stdout.trim().split(' ').map(Number)
  assert.equal(pids.length, 2)
  return eventually(() => pids.every(dead), 'the shell and its background sleep are gone')
})

test('compat 0.1 does not know sessions; the latest schema has it', async () => {
  const old = workspace()
  const schema01 = old.tools.listTools().find((t) => t.name === 'bash').inputSchema
  assert.equal(schema01.properties.session, undefined)
  assert.equal(envelope(await old.call('bash', { command: 'true', session: 's' })).error, 'invalid_input')
  const ws = latest()
  const schema = ws.tools.listTools().find((t) => t.name === 'bash').inputSchema
  assert.deepEqual(Object.keys(schema.properties), ['command', 'cwd', 'timeout_ms', 'session'])
  assert.equal(schema.properties.session.type, 'string')
  assert.equal(envelope(await ws.call('bash', { command: 'true', session: '' })).error, 'invalid_input')
})

test('the guard sees the session and resolves paths from its directory; titles name it', { skip: noSh }, async () => {
  const seen = []
  const ws = latest({ 'sub/a.txt': 'a' }, { guard: (ctx) => { seen.push(ctx); return { verdict: 'allow' } } })
  await sh(ws, 's', 'cd sub')
  await sh(ws, 's', 'cat a.txt')
  const ctx = seen[1]
  assert.deepEqual(ctx.session, { name: 's', cwd: fs.realpathSync(path.join(ws.root, 'sub')) })
  assert.ok(ctx.paths.some((p) => p.raw === 'a.txt' && p.resolved === path.join(fs.realpathSync(ws.root), 'sub', 'a.txt')), JSON.stringify(ctx.paths))
  assert.equal(ctx.title, 'Run cat a.txt (session s)')
  assert.equal(buildGuardContext('bash', { command: 'ls', session: 'none' }, ws.tools.config).session.cwd, null)
})

test('onOutput streams a session command, and redaction applies', { skip: noSh }, async () => {
  const ws = latest({}, { redactSecrets: true })
  const chunks = []
  const key = 'AKIA' + 'ABCDEFGHIJKLMNOP'
  const { out } = await sh(ws, 's', `echo live; echo ${key} >&2`, {}, { onOutput: (c) => chunks.push(c) })
  assert.equal(out.stdout, 'live\n')
  assert.ok(!out.stderr.includes(key), out.stderr)
  assert.equal(chunks.filter((c) => c.stream === 'stdout').map((c) => c.text).join(''), 'live\n')
})

const sandboxed = linux && probeSandbox().mechanisms?.landlockAbi >= 1
test('with the sandbox on, the session shell itself is confined', { skip: !sandboxed && 'no sandbox here' }, async () => {
  const ws = latest({}, { sandbox: true })
  // Not under /tmp: the sandbox shows the command a private /tmp.
  const outside = path.join(path.dirname(fileURLToPath(import.meta.url)), `outside-${process.pid}-${Date.now()}`)
  const first = await sh(ws, 's', `export K=v; echo in > in.txt; echo x > ${outside}; echo $?`)
  assert.equal(first.out.stdout.trim().split('\n').pop() !== '0', true, first.out.stdout)
  assert.equal(fs.existsSync(outside), false)
  assert.equal(fs.readFileSync(path.join(ws.root, 'in.txt'), 'utf8'), 'in\n')
  assert.equal((await sh(ws, 's', 'echo $K')).out.stdout, 'v\n')
  await ws.tools.endShellSessions()
})
