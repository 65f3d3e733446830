// bash: after a timeout, an abort or an output_limit, no process the call started survives —
// including ones that left the process group (setsid, double fork, nohup) or scrubbed their
// environment. Survivors are found by a marker in their command line, independently of the
// CLARVIS_CALL_ID mechanism the implementation uses.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { workspace, envelope, dead, eventually } from './helpers.mjs'
import { noSh, noSignals } from './platform.mjs'

// `sleep 300.<digits>` is a valid duration that no other process on the machine will carry.
const marker = () => `300.${crypto.randomInt(1e8, 1e9)}`
const used = []

/** The pids of live (non-zombie) processes whose command line contains `mark`. */
function survivors(mark) {
  const pids = []
  if (!fs.existsSync('/proc')) return pids // Windows: the tests skip there (platform.mjs)
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

/** Survivors that can still run: not dead, not exiting, no SIGKILL pending (see `dead`). */
const undead = (mark) => survivors(mark).filter((pid) => !dead(pid))

// Every way a command can leave its process group (or its marker environment) behind.
const ESCAPES = {
  setsid: (m) => `setsid sleep ${m} > /dev/null 2>&1 &`,
  'double fork': (m) => `(sleep ${m} > /dev/null 2>&1 &) &`,
  nohup: (m) => `nohup sleep ${m} > /dev/null 2>&1 &`,
  'setsid + double fork': (m) => `(setsid sh -c 'sleep ${m} & sleep ${m}' > /dev/null 2>&1 &) &`,
  'setsid + scrubbed environment': (m) => `(setsid env -i /bin/sh -c 'sleep ${m}' > /dev/null 2>&1 &) &`,
  'plain child': (m) => `sleep ${m} &`,
}

// Each ending, with the command that provokes it once every escapee runs: the command waits
// for the file `go`, which the test creates once it has seen them all in /proc, then prints
// `ready`. The abort is sent on `ready`; the output ceiling comes only after it. A timeout
// starts at spawn and may fire first on a loaded machine: that run proves nothing, so it is
// repeated with four times the timeout.
const ENDINGS = {
  timeout: { run: 'sleep 30', timeoutMs: 600, code: 'timeout' },
  abort: { run: 'sleep 30', abort: true, code: 'aborted' },
  output_limit: { run: 'yes', code: 'output_limit' },
}
// How many `sleep <mark>` processes each escape starts.
const SLEEPERS = { 'setsid + double fork': 2 }

for (const [ending, how] of Object.entries(ENDINGS)) {
  test(`after ${ending}, no process the call started survives`, { skip: noSh || noSignals }, async () => {
    for (let timeoutMs = how.timeoutMs ?? 600_000; ; timeoutMs *= 4) {
      const ws = workspace()
      const marks = {}
      const starts = Object.entries(ESCAPES).map(([kind, start]) => {
        marks[kind] = marker()
        used.push(marks[kind])
        return start(marks[kind])
      })
      const command = `${starts.join('\n')}\nuntil [ -f go ]; do sleep 0.01; done; echo ready\n${how.run}`
      const ac = new AbortController()
      let ended = false
      const call = ws.call('bash', { command, timeout_ms: timeoutMs }, {
        signal: ac.signal,
        onOutput: ({ text }) => { if (how.abort && text.includes('ready')) ac.abort() },
      }).finally(() => { ended = true })
      const running = () => Object.entries(marks).every(([kind, m]) => survivors(m).length === (SLEEPERS[kind] ?? 1))
      await eventually(() => ended || running(), 'every escapee runs')
      fs.writeFileSync(path.join(ws.root, 'go'), '')
      const e = envelope(await call)
      if (how.timeoutMs && !e.stdout.includes('ready') && timeoutMs < 100_000) continue
      assert.equal(e.error, how.code, e.message)
      assert.equal(e.stdout.split('\n')[0], 'ready')
      // Killed means dead at once (SIGKILL pending at the least), not after some delay.
      for (const [kind, m] of Object.entries(marks)) assert.deepEqual(undead(m), [], `${kind} survived the ${ending}`)
      return
    }
  })
}

test('a normal exit leaves backgrounded processes running (servers are started that way)', { skip: noSh || noSignals }, async () => {
  const ws = workspace()
  const m = marker()
  used.push(m)
  const r = await ws.call('bash', { command: `setsid sleep ${m} > /dev/null 2>&1 &` })
  assert.equal(r.isError, false, r.text)
  // The backgrounded process may still be exec'ing when the shell returns (loaded machine).
  const left = await eventually(() => survivors(m).length > 0 && survivors(m), 'the server-like process runs')
  assert.equal(left.length, 1, 'the server-like process is still running')
  for (const pid of left) process.kill(pid, 'SIGKILL')
})

after(async () => {
  // Never leave a sleeper behind, whatever happened above.
  for (const m of used) for (const pid of survivors(m)) process.kill(pid, 'SIGKILL')
})
