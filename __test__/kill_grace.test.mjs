// killGraceMs: a killed command (timeout, abort, output ceiling) gets SIGTERM, a grace to run
// its traps, then SIGKILL. Nothing here depends on timing: the timeout cases judge only a run
// in which the trap was set before the timer fired (`beforeTheTimeout`), the abort waits for
// the command's own line, and the ceiling can only be reached once the trap is set.
import test from 'node:test'
import assert from 'node:assert/strict'
import { latest, beforeTheTimeout } from './helpers.mjs'
import { noSh, noSignals } from './platform.mjs'

// `up` is printed once the trap is set. The loop's short sleeps are the shell's foreground
// commands: a trap waits for the running one (POSIX), at most 50 ms.
const TRAP = "trap 'echo trapped; exit 0' TERM; echo up; while :; do sleep 0.05; done"
// A grace far beyond any load: a shell that exits in time ends it early, so it costs nothing.
const GRACE = 60_000
const armed = (r) => JSON.parse(r.text).stdout.startsWith('up\n')

test('killGraceMs: a SIGTERM trap runs within the grace and the error names SIGTERM', { skip: noSh || noSignals }, async () => {
  const { tools } = latest({}, { killGraceMs: GRACE })
  const r = await beforeTheTimeout((ms) => tools.callTool('bash', { command: TRAP, timeout_ms: ms }), armed)
  assert.equal(r.isError, true)
  const e = JSON.parse(r.text)
  assert.equal(e.error, 'timeout')
  assert.equal(e.stdout, 'up\ntrapped\n')
  assert.equal(e.signal, 'SIGTERM')
})

test('killGraceMs unset: immediate SIGKILL, no trap, no signal field', { skip: noSh || noSignals }, async () => {
  const { tools } = latest({})
  const r = await beforeTheTimeout((ms) => tools.callTool('bash', { command: TRAP, timeout_ms: ms }), armed)
  const e = JSON.parse(r.text)
  assert.equal(e.error, 'timeout')
  assert.equal(e.stdout, 'up\n')
  assert.equal('signal' in e, false)
})

test('killGraceMs applies to an abort too: the trap runs, the error names SIGTERM', { skip: noSh || noSignals }, async () => {
  const { tools } = latest({}, { killGraceMs: GRACE })
  const ac = new AbortController()
  const r = tools.callTool('bash', { command: TRAP, timeout_ms: 600_000 }, {
    signal: ac.signal,
    onOutput: ({ text }) => { if (text.includes('up')) ac.abort() },
  })
  const e = JSON.parse((await r).text)
  assert.equal(e.error, 'aborted')
  assert.equal(e.stdout, 'up\ntrapped\n')
  assert.equal(e.signal, 'SIGTERM')
})

// The shell waits on a pipeline that never ends by itself, so the kill always finds it there,
// whatever the load. It has the SIGTERM before any member of the pipeline dies (the whole
// group is signalled at once), so after reaping them it runs the trap instead of going on.
// Issue 31: when the children were signalled first, the shell could reap them and start its
// next command (`sleep 30`) before its own signal came, and the trap waited past the grace.
test('killGraceMs applies at the output ceiling: the trap runs, the error names SIGTERM', { skip: noSh || noSignals }, async () => {
  const { tools } = latest({}, { killGraceMs: GRACE })
  const command = "trap 'echo trapped >&2; exit 0' TERM; yes | cat; sleep 30"
  const e = JSON.parse((await tools.callTool('bash', { command, timeout_ms: 600_000 })).text)
  assert.equal(e.error, 'output_limit')
  assert.match(e.stderr, /trapped\n$/)
  assert.equal(e.signal, 'SIGTERM')
})

// A trap's clean-up commands start after the SIGTERM was sent: they are not signalled, and
// what the trap prints before the shell exits is in the result, however late it is read.
// `up` comes from the foreground command itself, so the abort finds the shell waiting on it:
// a SIGTERM that reached the shell between two commands would be held, by the shell, until
// the next one ended (SPEC, killGraceMs).
test('a trap can run commands of its own within the grace; their output is kept', { skip: noSh || noSignals }, async () => {
  const { tools } = latest({}, { killGraceMs: GRACE })
  const command = "trap 'sleep 0.2; echo cleaned; exit 0' TERM; sh -c 'echo up; exec sleep 1000'"
  const ac = new AbortController()
  const r = await tools.callTool('bash', { command, timeout_ms: 600_000 }, {
    signal: ac.signal,
    onOutput: ({ text }) => { if (text.includes('up')) ac.abort() },
  })
  const e = JSON.parse(r.text)
  assert.equal(e.error, 'aborted')
  assert.equal(e.stdout, 'up\ncleaned\n')
  assert.equal(e.signal, 'SIGTERM')
})
