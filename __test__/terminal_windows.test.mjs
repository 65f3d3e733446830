// Terminal monitors on Windows (issue 30): `monitor_start { tty }` runs `sh -c` on a pseudo
// console (ConPTY) in a Job Object. These run on a Windows with Git for Windows' sh — the
// release workflow's windows-latest runners; under Wine (no sh.exe) only the refusal and the
// start path run, and the ConPTY layer itself is tested by the Rust tests of
// src/terminal/conpty.rs (SPEC §9, Platforms). The Unix terminal tests are terminal.test.mjs.
import test from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { envelope, eventually } from './helpers.mjs'
import { json, LONG, stoppingAfter } from './terminal-helpers.mjs'
import { noConpty, noSh, windows } from './platform.mjs'

const latest = stoppingAfter()

/** Sends `args`, then waits (without sending again) until the output since matches `until`. */
async function turn(call, id, args, until) {
  const first = json(await call('monitor_write', { id, wait_ms: LONG, until, ...args }))
  if (first.matched || !first.running) return first
  let output = first.output
  const re = new RegExp(until)
  await eventually(async () => {
    const more = json(await call('monitor_write', { id, wait_ms: LONG, until }))
    output += more.output
    return re.test(output) || !more.running
  }, `${id} answers ${until}`)
  return { ...first, output, matched: re.test(output) }
}

const finished = (call, id) =>
  eventually(async () => {
    const p = json(await call('monitor_poll', { id }))
    return !p.running && p
  }, `monitor ${id} ends`)

const start = async (call, args) => json(await call('monitor_start', { ready_timeout_ms: 120000, ...args }))

test('Windows: a stdin pipe is refused before anything starts; tty is not refused', { skip: !windows && 'Windows only' }, async () => {
  const { call } = latest()
  const e = envelope(await call('monitor_start', { command: 'cat', stdin: true }))
  assert.equal(e.error, 'invalid_input')
  assert.equal(e.platform, 'windows')
  assert.match(e.message, /^stdin monitors are not supported on windows \(a pipe to a monitor's stdin needs the Unix log relay\); use tty: true, which works here$/)
  assert.deepEqual(JSON.parse((await call('monitor_list', {})).text), { monitors: [] })
  const r = await call('monitor_start', { command: 'exit 0', tty: true })
  if (noSh) {
    // Under Wine: no sh.exe, so nothing starts — but for that reason, not as unsupported.
    assert.match(envelope(r).message, /no sh\.exe found/)
  } else {
    assert.equal(r.isError, false, r.text)
  }
})

test('a prompt answered on a pseudo console: TERM, COLUMNS, LINES, the screen, a resize the program sees', { skip: noConpty }, async () => {
  const { call, root } = latest()
  const s = await start(call, {
    command: 'echo "term=$TERM cols=$COLUMNS lines=$LINES"; printf "Name? "; read n; echo "hello $n"; stty size; read x; stty size',
    tty: { cols: 100, rows: 30 },
    ready_when: 'Name\\? ',
  })
  assert.equal(s.ready, true, JSON.stringify(s))
  const side = JSON.parse(fs.readFileSync(path.join(root, `.clarvis/monitor-${s.id}.json`), 'utf8'))
  assert.deepEqual([side.tty.cols, side.tty.rows], [100, 30])
  const hello = await turn(call, s.id, { input: 'ada\r' }, 'hello ada[\\s\\S]*30 100')
  assert.equal(hello.matched, true, hello.output)
  assert.doesNotMatch(hello.output, /\x1b/)
  const screen = json(await call('monitor_screen', { id: s.id }))
  assert.deepEqual(screen.size, { cols: 100, rows: 30 })
  assert.ok(screen.rows.some((r) => r.includes('term=xterm-256color cols=100 lines=30')), screen.rows.join('\n'))
  assert.ok(screen.rows.some((r) => r.startsWith('hello ada')), screen.rows.join('\n'))
  const resized = await turn(call, s.id, { resize: { cols: 90, rows: 25 }, input: '\r' }, '25 90')
  assert.equal(resized.matched, true, resized.output)
  const p = await finished(call, s.id)
  assert.equal(p.exit_code, 0)
})

test('Ctrl-C ends a running program; close sends Ctrl-D, end of file to an MSYS program', { skip: noConpty }, async () => {
  const { call } = latest()
  const c = await start(call, { command: 'cat; echo cat-done', tty: true })
  const echo = await turn(call, c.id, { input: 'hello\r' }, 'hello[\\s\\S]*hello')
  assert.equal(echo.matched, true, echo.output)
  const eof = await turn(call, c.id, { close: true }, 'cat-done')
  assert.equal(eof.matched, true, eof.output)
  assert.equal((await finished(call, c.id)).exit_code, 0)

  const k = await start(call, { command: 'echo sleeping; sleep 300', tty: true, ready_when: 'sleeping' })
  await turn(call, k.id, { keys: ['ctrl-c'] }, '^never$')
  const p = await finished(call, k.id)
  assert.equal(p.running, false)
})

test('stop ends the whole tree of a terminal monitor (its Job Object)', { skip: noConpty }, async () => {
  const { call } = latest()
  const s = await start(call, { command: 'sleep 301 & echo "child=$!"; sleep 302', tty: true, ready_when: 'child=\\d+' })
  const child = json(await call('monitor_poll', { id: s.id, offset: 0 })).output.match(/child=(\d+)/)[1]
  // MSYS pids are shared by every process of one Git for Windows: `kill -0` from `bash` sees them.
  const probe = async () => (await call('bash', { command: `kill -0 ${child} 2>/dev/null && echo alive || echo gone` })).text
  assert.match(await probe(), /alive/)
  assert.deepEqual(json(await call('monitor_stop', { id: s.id })), { stopped: true, id: s.id })
  assert.match(await probe(), /gone/)
  assert.equal(envelope(await call('monitor_write', { id: s.id, input: 'x' })).error, 'monitor_not_found')
})

test('the rolling log bound holds on a pseudo console', { skip: noConpty }, async () => {
  const { call, root } = latest({}, { monitorLogMaxBytes: 65536 })
  const s = await start(call, {
    command: 'i=0; while [ $i -lt 3000 ]; do echo "line $i xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"; i=$((i+1)); done; echo flood-end',
    tty: true,
  })
  const p = await finished(call, s.id)
  assert.equal(p.exit_code, 0)
  assert.ok(fs.statSync(path.join(root, `.clarvis/monitor-${s.id}.log`)).size <= 65536)
  const from0 = json(await call('monitor_poll', { id: s.id, offset: 0 }))
  assert.ok(from0.dropped > 0, JSON.stringify(from0).slice(0, 300))
  const screen = json(await call('monitor_screen', { id: s.id }))
  assert.ok(screen.rows.some((r) => r.includes('flood-end')), screen.rows.join('\n'))
})
