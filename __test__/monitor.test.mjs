// Monitors (LATER §2.5, §6): start, poll, stop, list, state on disk, processes gone.
import test from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { createAgentTools, sweepMonitors } from '../index.mjs'
import { latest, envelope, dead, eventually } from './helpers.mjs'
import { noSh, noSignals } from './platform.mjs'

const json = (r) => {
  assert.equal(r.isError, false, r.text)
  return JSON.parse(r.text)
}
/** The first poll that says the monitor is no longer running. */
const finished = (call, id) =>
  eventually(async () => {
    const p = json(await call('monitor_poll', { id }))
    return !p.running && p
  }, `monitor ${id} ends`)
const alive = (pid) => {
  try {
    process.kill(pid, 0)
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    return !/\) [ZX] /.test(stat)
  } catch {
    return false
  }
}

test('start without ready_when returns at once; poll reads lines; exit code after a natural exit', { skip: noSh || noSignals }, async () => {
  const { call, root } = latest()
  const s = json(await call('monitor_start', { command: 'echo one; echo two; exit 3' }))
  assert.match(s.id, /^mon_[0-9a-f]{8}$/)
  assert.deepEqual({ ...s, id: 'x' }, { id: 'x', running: true, ready: null, output: '', next_offset: 0 })
  assert.equal(fs.readFileSync(path.join(root, '.clarvis/.gitignore'), 'utf8'), '*\n')
  const side = JSON.parse(fs.readFileSync(path.join(root, `.clarvis/monitor-${s.id}.json`), 'utf8'))
  assert.deepEqual(Object.keys(side), ['id', 'command', 'cwd', 'pid', 'startedAt', 'readyWhen'])
  assert.equal(side.cwd, root)
  const p = await finished(call, s.id)
  assert.deepEqual(p, { running: false, output: 'one\ntwo\n', next_offset: 8, exit_code: 3 })
  const again = json(await call('monitor_poll', { id: s.id, offset: 4 }))
  assert.equal(again.output, 'two\n')
  assert.equal(json(await call('monitor_poll', { id: s.id, offset: 999 })).output, '')
  const m = json(await call('monitor_poll', { id: s.id, match: 'tw' }))
  assert.equal(m.output, 'two')
})

test('ready_when waits for a match; a partial last line is held back while running', { skip: noSh || noSignals }, async () => {
  const { call } = latest()
  const s = json(await call('monitor_start', { command: "printf 'booting\\nlistening on 3000\\npart'; sleep 30", ready_when: 'listening on \\d+' }))
  assert.equal(s.ready, true)
  assert.equal(s.running, true)
  assert.match(s.output, /listening on 3000/)
  assert.equal(s.next_offset, Buffer.byteLength(s.output))
  const p = json(await call('monitor_poll', { id: s.id }))
  assert.equal(p.output, 'booting\nlistening on 3000\n')
  assert.equal(p.next_offset, 26)
  assert.equal(p.exit_code, null)
  json(await call('monitor_stop', { id: s.id }))
})

test('ready_when: the process dying, or the timeout, ends the wait', { skip: noSh || noSignals }, async () => {
  const { call } = latest()
  const died = json(await call('monitor_start', { command: 'echo nope', ready_when: 'never' }))
  assert.deepEqual([died.ready, died.running], [false, false])
  const slow = json(await call('monitor_start', { command: 'sleep 30', ready_when: 'never', ready_timeout_ms: 200 }))
  assert.deepEqual([slow.ready, slow.running], [false, true])
  json(await call('monitor_stop', { id: slow.id }))
})

test('stop ends the whole tree (setsid, double fork, nohup) and removes the state', { skip: noSh || noSignals }, async () => {
  const { call, root } = latest()
  const cmd = 'setsid sleep 300 & (sleep 300 &) ; nohup sleep 300 >/dev/null 2>&1 & sleep 300'
  const s = json(await call('monitor_start', { command: cmd }))
  const marker = `CLARVIS_CALL_ID=${s.id}`
  const marked = () =>
    fs
      .readdirSync('/proc')
      .filter((n) => /^\d+$/.test(n))
      .filter((pid) => {
        try {
          return fs.readFileSync(`/proc/${pid}/environ`).toString().split('\0').includes(marker)
        } catch {
          return false
        }
      })
      .map(Number)
      .filter(alive)
  // The shell and its four sleeps (on a loaded machine they take a moment to start).
  const pids = await eventually(() => marked().length >= 5 && marked(), 'the shell and its four sleeps run')
  assert.deepEqual(json(await call('monitor_stop', { id: s.id })), { stopped: true, id: s.id })
  assert.deepEqual(pids.filter((pid) => !dead(pid)), [], 'monitor_stop returns once every process is killed')
  for (const ext of ['json', 'log', 'exit']) assert.equal(fs.existsSync(path.join(root, `.clarvis/monitor-${s.id}.${ext}`)), false)
  assert.deepEqual(envelope(await call('monitor_stop', { id: s.id })), { error: 'monitor_not_found', message: `No such monitor: ${s.id}`, id: s.id })
})

test('bad input: ids, regexes, cwd', async () => {
  const { call, root } = latest({ 'f.txt': 'x' })
  for (const id of ['mon_00000000', '../../etc/passwd', 'mon_../x', '']) {
    assert.equal(envelope(await call('monitor_poll', { id })).error, 'monitor_not_found', id)
  }
  fs.mkdirSync(path.join(root, '.clarvis'), { recursive: true })
  fs.writeFileSync(path.join(root, '.clarvis/monitor-mon_deadbeef.json'), '{corrupt')
  assert.equal(envelope(await call('monitor_poll', { id: 'mon_deadbeef' })).error, 'monitor_not_found')
  const bad = envelope(await call('monitor_start', { command: 'true', ready_when: '(' }))
  assert.equal(bad.error, 'invalid_input')
  assert.match(bad.message, /^Invalid ready_when regex: /)
  assert.equal(bad.ready_when, '(')
  assert.equal(envelope(await call('monitor_start', { command: 'true', cwd: 'nope' })).error, 'not_found')
  assert.equal(envelope(await call('monitor_start', { command: 'true', cwd: 'f.txt' })).error, 'not_a_file')
  assert.equal(envelope(await call('monitor_start', { command: 'true', cwd: '..' })).error, 'path_escape')
})

test('a bad match regex on a running monitor', { skip: noSh || noSignals }, async () => {
  const { call } = latest({ 'f.txt': 'x' })
  const s = json(await call('monitor_start', { command: 'sleep 30' }))
  assert.match(envelope(await call('monitor_poll', { id: s.id, match: '[' })).message, /^Invalid match regex: /)
  json(await call('monitor_stop', { id: s.id }))
})

test('maxMonitors holds under 100 concurrent starts; list is newest first', { skip: noSh || noSignals }, async () => {
  const { call, root } = latest({}, { maxMonitors: 3 })
  const results = await Promise.all(Array.from({ length: 100 }, () => call('monitor_start', { command: 'sleep 30' })))
  const ok = results.filter((r) => !r.isError).map(json)
  assert.equal(ok.length, 3)
  const refused = results.filter((r) => r.isError).map(envelope)
  assert.deepEqual(refused[0], { error: 'too_many_monitors', message: 'Too many live monitors (3/3); stop some with monitor_stop first', limit: 3 })
  const listed = json(await call('monitor_list', {})).monitors
  assert.equal(listed.length, 3)
  assert.deepEqual(Object.keys(listed[0]), ['id', 'command', 'running', 'started_at', 'cwd'])
  for (const m of ok) json(await call('monitor_stop', { id: m.id }))
  assert.deepEqual(fs.readdirSync(path.join(root, '.clarvis')).filter((n) => n.startsWith('monitor-')), [])
})

test('a new tools object sees, polls and stops a monitor; sweepMonitors removes finished ones', { skip: noSh || noSignals }, async () => {
  const { call, root } = latest()
  const s = json(await call('monitor_start', { command: 'echo hi; sleep 30' }))
  const done = json(await call('monitor_start', { command: 'true' }))
  const other = createAgentTools({ workspaceRoot: root })
  await finished(call, done.id)
  await eventually(async () => json(await call('monitor_poll', { id: s.id })).output === 'hi\n', 'hi is logged')
  const ids = JSON.parse((await other.callTool('monitor_list', {})).text).monitors.map((m) => m.id)
  assert.ok(ids.includes(s.id) && ids.includes(done.id))
  await sweepMonitors(root)
  assert.equal(fs.existsSync(path.join(root, `.clarvis/monitor-${done.id}.json`)), false)
  assert.equal(JSON.parse((await other.callTool('monitor_poll', { id: s.id })).text).output, 'hi\n')
  assert.equal((await other.callTool('monitor_stop', { id: s.id })).isError, false)
})

test('a page larger than maxOutputBytes ends with the more-output footer', { skip: noSh || noSignals }, async () => {
  const { call } = latest({}, { maxOutputBytes: 1024 })
  const s = json(await call('monitor_start', { command: "i=0; while [ $i -lt 300 ]; do echo 123456789; i=$((i+1)); done" }))
  const p = await finished(call, s.id)
  assert.equal(p.next_offset, 1024)
  assert.ok(p.output.endsWith('\n[... more output buffered; continue with offset=1024 ...]'), p.output.slice(-80))
  const rest = json(await call('monitor_poll', { id: s.id, offset: p.next_offset }))
  assert.equal(rest.next_offset, 1024 * 2)
})
