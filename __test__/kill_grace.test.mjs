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
