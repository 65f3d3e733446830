// Monitors beyond the original (issue 14): the rolling log bound (`monitorLogMaxBytes`, the
// relay process, `monitor_poll` saying what was dropped), a monitor outliving the host that
// started it, and the bad-input list — each case leaves no process and no stray file.
import test from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { createAgentTools, buildConfig, resolveConfig } from '../index.mjs'
import { latest, envelope, dead, eventually, monitorOfAKilledHost } from './helpers.mjs'
import { noSh, noSignals } from './platform.mjs'

const json = (r) => {
  assert.equal(r.isError, false, r.text)
  return JSON.parse(r.text)
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

function procs() {
  // Windows has no /proc: the tests that start monitors skip there (platform.mjs).
  if (!fs.existsSync('/proc')) return []
  return fs.readdirSync('/proc').filter((n) => /^\d+$/.test(n)).map(Number)
}
function live(pid) {
  try {
    return !/\) [ZX] /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'))
  } catch {
    return false
  }
}
/** Live processes of monitor `id` (its marker) and its relay (any relay under `root` for a null id). */
function leftovers(root, id) {
  const marker = `CLARVIS_CALL_ID=${id}`
  return procs().filter((pid) => {
    if (!live(pid)) return false
    try {
      if (fs.readFileSync(`/proc/${pid}/environ`).toString().split('\0').includes(marker)) return true
      if (fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'clarvis-relay') return false
      return fs.readdirSync(`/proc/${pid}/fd`).some((fd) => {
        try {
          const target = fs.readlinkSync(`/proc/${pid}/fd/${fd}`)
          return target.startsWith(root) && (id === null || target.includes(`monitor-${id}.`))
        } catch {
          return false
        }
      })
    } catch {
      return false
    }
  })
}
/** Nothing of monitor `id` is left: no process that can still run (see `dead`), no file. */
async function assertGone(root, id) {
  await eventually(() => leftovers(root, id).every(dead), `processes of ${id} end`)
  const files = fs.existsSync(path.join(root, '.clarvis')) ? fs.readdirSync(path.join(root, '.clarvis')) : []
  assert.deepEqual(files.filter((n) => n.includes(id)), [], 'stray files')
}
/** Nothing of monitor `id` can run any more the moment monitor_stop has returned (no waiting). */
function assertGoneNow(root, id) {
  assert.deepEqual(leftovers(root, id).filter((pid) => !dead(pid)), [], `processes of ${id} left after monitor_stop`)
}
/** Relays (of any monitor) with a descriptor under `root` that can still run. */
function relaysUnder(root) {
  return leftovers(root, null).filter((pid) => !dead(pid))
}
/** The first poll of `id` (with `args`) for which `pred` holds. */
const pollUntil = (call, id, pred, args = {}) =>
  eventually(async () => {
    const p = json(await call('monitor_poll', { id, ...args }))
    return pred(p) && p
  }, `a poll of ${id} with ${JSON.stringify(args)} meets ${pred}`)

test('monitorLogMaxBytes: option, env var, floor; in the config only when given', () => {
  const { root } = latest()
  assert.equal(resolveConfig({ workspaceRoot: root }).monitorLogMaxBytes, undefined)
  assert.equal(resolveConfig({ workspaceRoot: root, monitorLogMaxBytes: 65536 }).monitorLogMaxBytes, 65536)
  assert.throws(() => resolveConfig({ workspaceRoot: root, monitorLogMaxBytes: 1000 }), /monitorLogMaxBytes/)
  assert.equal(buildConfig(['--workspace', root], { MONITOR_LOG_MAX_BYTES: '1048576' }).monitorLogMaxBytes, 1048576)
  assert.throws(() => buildConfig(['--workspace', root], { MONITOR_LOG_MAX_BYTES: '10' }), /MONITOR_LOG_MAX_BYTES/)
})

test('a monitor that prints fast keeps a rolling log; poll says what was dropped', { skip: noSh || noSignals }, async () => {
  const max = 65536
  const { call, root } = latest({}, { monitorLogMaxBytes: max, maxOutputBytes: 4096 })
  const s = json(await call('monitor_start', { command: 'yes 0123456789abcdef' }))
  const log = path.join(root, `.clarvis/monitor-${s.id}.log`)
  const p = await pollUntil(call, s.id, (p) => p.dropped > 10 * max)
  assert.ok(fs.statSync(log).size <= max, `log is ${fs.statSync(log).size} bytes`)
  const [first, ...lines] = p.output.split('\n')
  assert.match(first, /^\[\.\.\. (\d+) bytes of output dropped: the log keeps only the most recent output; this starts at offset=(\d+) \.\.\.\]$/)
  const [, lost, at] = first.match(/(\d+) bytes.*offset=(\d+)/).map(Number)
  assert.equal(lost, p.dropped)
  assert.equal(at, p.dropped)
  // The window starts on a line; offsets stay those of the whole output.
  assert.equal(lines[0], '0123456789abcdef')
  assert.equal(at % 17, 0)
  assert.ok(p.next_offset > at && p.next_offset <= at + 4096)
  // Reading on from next_offset: no drop line unless the window moved past it meanwhile.
  const q = json(await call('monitor_poll', { id: s.id, offset: p.next_offset, match: 'abc' }))
  if (!q.dropped) assert.ok(q.output.startsWith('0123456789abcdef'), q.output.slice(0, 40))
  assert.equal('dropped' in json(await call('monitor_poll', { id: s.id, offset: 1e15 })), false)
  json(await call('monitor_stop', { id: s.id }))
  assertGoneNow(root, s.id)
  await assertGone(root, s.id)
})

test('a command that prints 1 GB: log bounded at 16 MiB by default, all of it counted', { skip: noSh || noSignals }, async () => {
  const { call, root } = latest({}, { maxOutputBytes: 1024 })
  const s = json(await call('monitor_start', { command: 'head -c 1000000000 /dev/zero | tr "\\0" "x"; echo; echo end' }))
  const p = await pollUntil(call, s.id, (p) => !p.running, { offset: 1e12 })
  assert.equal(p.exit_code, 0)
  assert.ok(fs.statSync(path.join(root, `.clarvis/monitor-${s.id}.log`)).size <= 16 * 1024 * 1024)
  const tail = json(await call('monitor_poll', { id: s.id, offset: 1000000001 - 10 }))
  assert.equal(tail.output, 'xxxxxxxxx\nend\n')
  assert.equal(tail.next_offset, 1000000005)
  json(await call('monitor_stop', { id: s.id }))
  await assertGone(root, s.id)
})

test('exits at once, never prints, stopped twice: documented results, nothing left', { skip: noSh || noSignals }, async () => {
  const { call, root } = latest()
  const quick = json(await call('monitor_start', { command: 'true' }))
  const done = await pollUntil(call, quick.id, (p) => !p.running)
  assert.deepEqual(done, { running: false, output: '', next_offset: 0, exit_code: 0 })
  // "Not running" comes once the relay is gone too.
  assertGoneNow(root, quick.id)
  const talker = json(await call('monitor_start', { command: 'seq 1 20000' }))
  const said = await pollUntil(call, talker.id, (p) => !p.running, { offset: 108894 - 6 })
  assert.deepEqual(said, { running: false, output: '20000\n', next_offset: 108894, exit_code: 0 })
  assertGoneNow(root, talker.id)
  json(await call('monitor_stop', { id: talker.id }))
  const quiet = json(await call('monitor_start', { command: 'sleep 300' }))
  await sleep(200)
  assert.deepEqual(json(await call('monitor_poll', { id: quiet.id })), { running: true, output: '', next_offset: 0, exit_code: null })
  const stops = await Promise.all([call('monitor_stop', { id: quiet.id }), call('monitor_stop', { id: quiet.id })])
  // Two stops at once: at least one says stopped, the other that or monitor_not_found.
  const outcomes = stops.map((r) => (r.isError ? envelope(r).error : JSON.parse(r.text).stopped)).sort()
  assert.ok(outcomes.includes(true), JSON.stringify(outcomes))
  for (const o of outcomes) assert.ok(o === true || o === 'monitor_not_found', o)
  assert.equal(envelope(await call('monitor_stop', { id: quiet.id })).error, 'monitor_not_found')
  json(await call('monitor_stop', { id: quick.id }))
  assert.equal(envelope(await call('monitor_stop', { id: quick.id })).error, 'monitor_not_found')
  for (const id of ['MON_00000000', 'mon_0000000g', 'mon_1234567', 42]) {
    const r = await call('monitor_stop', { id })
    assert.ok(['monitor_not_found', 'invalid_input'].includes(envelope(r).error), String(id))
  }
  await assertGone(root, quick.id)
  await assertGone(root, quiet.id)
})

test('a monitor outlives the host that started it; a new instance polls and stops it', { skip: noSh || noSignals }, async () => {
  const { root } = latest()
  const id = await monitorOfAKilledHost({ workspaceRoot: root }, 'i=0; while :; do echo tick $i; i=$((i+1)); sleep 0.02; done')
  const other = createAgentTools({ workspaceRoot: root, compat: 'latest' })
  const call = (n, a) => other.callTool(n, a)
  const a = await pollUntil(call, id, (p) => p.output.includes('tick 3'))
  assert.equal(a.running, true)
  const b = await pollUntil(call, id, (p) => p.output.length > 0, { offset: a.next_offset })
  assert.match(b.output, /^tick \d+\n/)
  json(await call('monitor_stop', { id }))
  await assertGone(root, id)
})

test('bad cwd and bad regexes start nothing and leave no file', async () => {
  const { call, root } = latest({ 'f.txt': 'x' })
  const before = relaysUnder(root)
  for (const args of [
    { command: 'echo hi', cwd: 'nope' },
    { command: 'echo hi', cwd: 'f.txt' },
    { command: 'echo hi', cwd: '../..' },
    { command: 'echo hi', ready_when: '(' },
    { command: 'echo hi', ready_when: '[a-' },
  ]) {
    const e = envelope(await call('monitor_start', args))
    assert.ok(['not_found', 'not_a_file', 'path_escape', 'invalid_input'].includes(e.error), JSON.stringify(e))
  }
  const dir = path.join(root, '.clarvis')
  const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((n) => n.startsWith('monitor-')) : []
  assert.deepEqual(files, [])
  assert.deepEqual(relaysUnder(root), before)
})

test('start-then-stop leaves nothing, a bad match regex neither', { skip: noSh || noSignals }, async () => {
  const { call, root } = latest({ 'f.txt': 'x' })
  const dir = path.join(root, '.clarvis')
  // Stopped the instant it started (the relay may not have run yet): nothing survives the call.
  for (let i = 0; i < 5; i++) {
    const s = json(await call('monitor_start', { command: 'yes' }))
    json(await call('monitor_stop', { id: s.id }))
    assertGoneNow(root, s.id)
  }
  const m = json(await call('monitor_start', { command: 'sleep 30' }))
  const e = envelope(await call('monitor_poll', { id: m.id, match: '(' }))
  assert.equal(e.error, 'invalid_input')
  json(await call('monitor_stop', { id: m.id }))
  assertGoneNow(root, m.id)
  assert.deepEqual(fs.readdirSync(dir).filter((n) => n.startsWith('monitor-')), [])
})

test('monitor_stop is graceful: SIGTERM, a grace period (400 ms, or killGraceMs), then SIGKILL', { skip: noSh || noSignals }, async () => {
  // The trap needs 500 ms at the least: longer than the default grace, well within a
  // killGraceMs far beyond any load (the stop returns as soon as the shell is gone).
  const command = "trap 'sleep 0.5; echo trapped > done.txt; exit 0' TERM; echo up; while :; do sleep 0.05; done"
  for (const [options, runs] of [
    [{}, false],
    [{ killGraceMs: 60_000 }, true],
  ]) {
    const { call, root } = latest({}, options)
    const s = json(await call('monitor_start', { command, ready_when: '^up' }))
    assert.equal(s.ready, true)
    // Stopped once its trap is set (it says so), not after a guessed delay.
    const quick = json(await call('monitor_start', { command: "trap 'echo t > quick.txt; exit 0' TERM; echo armed; while :; do sleep 0.05; done", ready_when: '^armed' }))
    assert.equal(quick.ready, true)
    json(await call('monitor_stop', { id: quick.id }))
    assert.equal(fs.readFileSync(path.join(root, 'quick.txt'), 'utf8'), 't\n', 'a quick trap runs within any grace')
    json(await call('monitor_stop', { id: s.id }))
    assertGoneNow(root, s.id)
    assert.equal(fs.existsSync(path.join(root, 'done.txt')), runs, JSON.stringify(options))
  }
})

test('100 concurrent starts against maxMonitors: the refused ones leave no process and no file', { skip: noSh || noSignals }, async () => {
  const { call, root } = latest({}, { maxMonitors: 4 })
  const results = await Promise.all(Array.from({ length: 100 }, () => call('monitor_start', { command: 'echo hi; sleep 30' })))
  const ok = results.filter((r) => !r.isError).map(json)
  assert.equal(ok.length, 4)
  for (const r of results.filter((r) => r.isError)) assert.equal(envelope(r).error, 'too_many_monitors')
  const dir = path.join(root, '.clarvis')
  const mine = (n) => n.startsWith('monitor-')
  // Exactly the started monitors' files (json, log, state), and one relay each.
  assert.deepEqual(
    fs.readdirSync(dir).filter(mine).sort(),
    ok.flatMap((m) => ['json', 'log', 'state'].map((e) => `monitor-${m.id}.${e}`)).sort(),
  )
  // A relay is recognised by the name it gives itself just after it starts.
  await eventually(() => relaysUnder(root).length >= 4, 'the four relays run')
  assert.equal(relaysUnder(root).length, 4)
  for (const m of ok) {
    json(await call('monitor_stop', { id: m.id }))
    assertGoneNow(root, m.id)
  }
  assert.deepEqual(relaysUnder(root), [])
  assert.deepEqual(fs.readdirSync(dir).filter(mine), [])
})

test('offsets count the log bytes even when the output is not UTF-8', { skip: noSh || noSignals }, async () => {
  const { call, root } = latest()
  // a, 0xFF, b, newline, then a partial line while it runs.
  const s = json(await call('monitor_start', { command: "printf 'a\\377b\\nc'; sleep 30", ready_when: 'c' }))
  assert.equal(s.output, 'a\uFFFDb\nc')
  assert.equal(s.next_offset, 5)
  // The partial line is held back: next_offset is the byte after the newline.
  const p = json(await call('monitor_poll', { id: s.id }))
  assert.deepEqual(p, { running: true, output: 'a\uFFFDb\n', next_offset: 4, exit_code: null })
  json(await call('monitor_stop', { id: s.id }))
  assertGoneNow(root, s.id)
})
