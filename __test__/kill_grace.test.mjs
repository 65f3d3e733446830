import test from 'node:test'
import assert from 'node:assert/strict'
import { latest } from './helpers.mjs'

const TRAP = "trap 'echo trapped; exit 0' TERM; echo up; while :; do sleep 0.05; done"

test('killGraceMs: a SIGTERM trap runs within the grace and the error names SIGTERM', async () => {
  const { tools } = latest({}, { killGraceMs: 5000 })
  const r = await tools.callTool('bash', { command: TRAP, timeout_ms: 400 })
  assert.equal(r.isError, true)
  const e = JSON.parse(r.text)
  assert.equal(e.error, 'timeout')
  const body = e
  assert.equal(body.stdout, 'up\ntrapped\n')
  assert.equal(body.signal, 'SIGTERM')
})

test('killGraceMs unset: immediate SIGKILL, no trap, no signal field', async () => {
  const { tools } = latest({})
  const r = await tools.callTool('bash', { command: TRAP, timeout_ms: 400 })
  const e = JSON.parse(r.text)
  const body = e
  assert.equal(body.stdout, 'up\n')
  assert.equal('signal' in body, false)
})

test('killGraceMs applies to an abort too: the trap runs, the error names SIGTERM', async () => {
  const { tools } = latest({}, { killGraceMs: 5000 })
  const ac = new AbortController()
  const r = tools.callTool('bash', { command: TRAP, timeout_ms: 60000 }, {
    signal: ac.signal,
    onOutput: ({ text }) => { if (text.includes('up')) ac.abort() },
  })
  const e = JSON.parse((await r).text)
  assert.equal(e.error, 'aborted')
  assert.equal(e.stdout, 'up\ntrapped\n')
  assert.equal(e.signal, 'SIGTERM')
})

test('killGraceMs applies at the output ceiling: the trap runs, the error names SIGTERM', async () => {
  const { tools } = latest({}, { killGraceMs: 5000 })
  const command = "trap 'echo trapped >&2; exit 0' TERM; yes | head -c 100000000; sleep 30"
  const e = JSON.parse((await tools.callTool('bash', { command, timeout_ms: 60000 })).text)
  assert.equal(e.error, 'output_limit')
  assert.match(e.stderr, /trapped\n$/)
  assert.equal(e.signal, 'SIGTERM')
})
