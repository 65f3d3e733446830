// Cancellation plumbing across the surface: pre-aborted signals, signals that are not
// AbortSignals, and listener hygiene on a long-lived signal shared by many calls.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { getEventListeners } from 'node:events'
import { workspace } from './helpers.mjs'
import { dispatch } from '../index.mjs'
import { noSh } from './platform.mjs'

const OPERATION_ABORTED = '{"error":"aborted","message":"Operation aborted (run cancelled)"}'

test('a pre-aborted signal stops read_file and list_dir before they run', async () => {
  const ws = workspace({ 'a.txt': 'hello\n' })
  const signal = AbortSignal.abort()
  assert.deepEqual(await ws.call('read_file', { path: 'a.txt' }, signal), { isError: true, text: OPERATION_ABORTED })
  assert.deepEqual(await ws.call('list_dir', {}, signal), { isError: true, text: OPERATION_ABORTED })
  assert.deepEqual(await dispatch('list_dir', {}, ws.tools.config, signal), { isError: true, text: OPERATION_ABORTED })
})

test('a pre-aborted signal still reports bad input and unknown tools first', async () => {
  const ws = workspace()
  const signal = AbortSignal.abort()
  assert.equal(JSON.parse((await ws.call('nope', {}, signal)).text).error, 'not_found')
  assert.equal(JSON.parse((await ws.call('read_file', {}, signal)).text).error, 'invalid_input')
})

test('no signal, or a value that is not an AbortSignal, means the call just runs', async () => {
  const ws = workspace({ 'a.txt': 'x' })
  for (const signal of [undefined, null, {}, 'abort', 42]) {
    const r = await ws.call('read_file', { path: 'a.txt' }, signal)
    assert.deepEqual(r, { isError: false, text: '     1\tx' }, String(signal))
  }
})

test('aborting after a call finished changes nothing; other calls keep their own signal', async () => {
  const ws = workspace({ 'a.txt': 'x' })
  const ac = new AbortController()
  const done = await ws.call('read_file', { path: 'a.txt' }, ac.signal)
  ac.abort()
  assert.equal(done.isError, false)
  assert.equal((await ws.call('read_file', { path: 'a.txt' }, new AbortController().signal)).isError, false)
})

test('10,000 calls on one long-lived signal leave no listener behind and no warning', async () => {
  const ws = workspace()
  const warnings = []
  const onWarning = (w) => warnings.push(w)
  process.on('warning', onWarning)
  try {
    const ac = new AbortController()
    // Batches of concurrent calls, as a host running parallel tool calls under one run signal.
    for (let batch = 0; batch < 100; batch++) {
      const results = await Promise.all(Array.from({ length: 100 }, () => ws.call('list_dir', {}, ac.signal)))
      for (const r of results) assert.deepEqual(r, { isError: false, text: '(empty directory)' })
      assert.equal(getEventListeners(ac.signal, 'abort').length, 0)
    }
    // Let any deferred warning be emitted before looking.
    await new Promise((r) => setImmediate(r))
    const leaks = warnings.filter((w) => w.name === 'MaxListenersExceededWarning' && /abort/i.test(w.message))
    assert.deepEqual(leaks.map(String), [])
    // The signal still works for the next call.
    ac.abort()
    assert.deepEqual(await ws.call('list_dir', {}, ac.signal), { isError: true, text: OPERATION_ABORTED })
  } finally {
    process.off('warning', onWarning)
  }
})

test('one abort reaches every call that shares the signal', { skip: noSh }, async () => {
  const ws = workspace()
  const ac = new AbortController()
  const calls = Array.from({ length: 20 }, () => ws.call('bash', { command: 'sleep 30' }, ac.signal))
  setTimeout(() => ac.abort(), 100)
  const results = await Promise.all(calls)
  for (const r of results) assert.equal(JSON.parse(r.text).error, 'aborted')
  assert.equal(getEventListeners(ac.signal, 'abort').length, 0)
})
