// bash: after a timeout, an abort or an output_limit, no process the call started survives —
// including ones that left the process group (setsid, double fork, nohup) or scrubbed their
// environment. Survivors are found by a marker in their command line, independently of the
// CLARVIS_CALL_ID mechanism the implementation uses.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import fs from 'node:fs'
import { workspace, envelope } from './helpers.mjs'

// `sleep 300.<digits>` is a valid duration that no other process on the machine will carry.
const marker = () => `300.${crypto.randomInt(1e8, 1e9)}`
const used = []

/** The pids of live (non-zombie) processes whose command line contains `mark`. */
function survivors(mark) {
  const pids = []
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const cmd = fs.readFileSync(`/proc/${name}/cmdline`, 'latin1')
      if (!cmd.split('\0').includes(mark)) continue
      if (/^\S+ \(.*\) Z/.test(fs.readFileSync(`/proc/${name}/stat`, 'latin1'))) continue
      pids.push(Number(name))
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return pids
}

/** Survivors after giving the kernel a moment to reap what was killed (up to 2 s). */
async function settled(mark) {
  let left = survivors(mark)
  for (let i = 0; i < 40 && left.length > 0; i++) {
    await new Promise((r) => setTimeout(r, 50))
    left = survivors(mark)
  }
  return left
}

// Every way a command can leave its process group (or its marker environment) behind.
const ESCAPES = {
  setsid: (m) => `setsid sleep ${m} > /dev/null 2>&1 &`,
  'double fork': (m) => `(sleep ${m} > /dev/null 2>&1 &) &`,
  nohup: (m) => `nohup sleep ${m} > /dev/null 2>&1 &`,
  'setsid + double fork': (m) => `(setsid sh -c 'sleep ${m} & sleep ${m}' > /dev/null 2>&1 &) &`,
  'setsid + scrubbed environment': (m) => `(setsid env -i /bin/sh -c 'sleep ${m}' > /dev/null 2>&1 &) &`,
  'plain child': (m) => `sleep ${m} &`,
}

// Each ending, with the command that provokes it once the escapees are started.
const ENDINGS = {
  timeout: { run: 'sleep 30', args: { timeout_ms: 600 }, code: 'timeout' },
  abort: { run: 'sleep 30', abortAfter: 600, code: 'aborted' },
  output_limit: { run: 'sleep 0.3; yes', code: 'output_limit' },
}

for (const [ending, how] of Object.entries(ENDINGS)) {
  test(`after ${ending}, no process the call started survives`, async () => {
    const ws = workspace()
    const marks = {}
    const starts = Object.entries(ESCAPES).map(([kind, start]) => {
      marks[kind] = marker()
      used.push(marks[kind])
      return start(marks[kind])
    })
    const signal = how.abortAfter ? AbortSignal.timeout(how.abortAfter) : undefined
    const command = `${starts.join('\n')}\n${how.run}`
    const started = Date.now()
    const e = envelope(await ws.call('bash', { command, ...how.args }, signal))
    assert.equal(e.error, how.code, e.message)
    assert.ok(Date.now() - started < 20_000, 'the call returns promptly')
    for (const [kind, m] of Object.entries(marks)) {
      assert.deepEqual(await settled(m), [], `${kind} survived the ${ending}`)
    }
  })
}

test('a normal exit leaves backgrounded processes running (servers are started that way)', async () => {
  const ws = workspace()
  const m = marker()
  used.push(m)
  const r = await ws.call('bash', { command: `setsid sleep ${m} > /dev/null 2>&1 &` })
  assert.equal(r.isError, false, r.text)
  // The backgrounded process may still be exec'ing when the shell returns (loaded machine).
  let left = survivors(m)
  for (let i = 0; i < 100 && left.length === 0; i++) {
    await new Promise((res) => setTimeout(res, 20))
    left = survivors(m)
  }
  assert.equal(left.length, 1, 'the server-like process is still running')
  for (const pid of left) process.kill(pid, 'SIGKILL')
})

after(async () => {
  // Never leave a sleeper behind, whatever happened above.
  for (const m of used) for (const pid of survivors(m)) process.kill(pid, 'SIGKILL')
})
