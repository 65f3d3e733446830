// Seeded argument fuzzing across the 0.1 tools and the 0.5 read and file tools: malformed and adversarial argument objects
// (wrong types, nulls, missing and extra keys, huge strings, deep nesting, lone surrogates,
// control characters and NUL bytes, pathological regexes and globs, odd numbers, odd abort
// signals). Every call must resolve to `{ isError, text }` with a documented envelope or a
// success; no rejection, no `internal`, no "internal error" on the warn sink, no hang, and
// nothing outside the workspace read or changed.
//
// FUZZ_COUNT (default 3000) and FUZZ_SEED (default: random, printed; fixed under CI=true so a
// CI run is reproducible — explore new seeds locally) reproduce a run:
//   FUZZ_SEED=1234 FUZZ_COUNT=20000 node --test __test__/fuzz-args.test.mjs
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { runFuzz, fuzzWorkspace } from './fuzz-gen.mjs'
import { unixOnly } from './platform.mjs'

// This suite injects faults through `__testHooks`, which only work with this variable set.
process.env.CLARVIS_AGENT_TOOLS_TEST_HOOKS = '1'

const COUNT = Number(process.env.FUZZ_COUNT || 3000)
const SEED = Number(process.env.FUZZ_SEED || (process.env.CI ? 20261124 : Math.floor(Math.random() * 2 ** 32)))

test(`fuzzed arguments never break the call contract (seed ${SEED}, ${COUNT} calls)`, async (t) => {
  console.log(`fuzz seed: ${SEED} (rerun with FUZZ_SEED=${SEED} FUZZ_COUNT=${COUNT})`)
  const { stats, failures } = await runFuzz({ count: COUNT, seed: SEED, log: (s) => t.diagnostic(s) })
  assert.equal(stats.calls, COUNT)
  assert.deepEqual(failures.slice(0, 20), [], `${failures.length} failures (seed ${SEED})`)
})

test('the checker itself catches an internal error (a deliberate panic is reported)', async () => {
  const { failures } = await runFuzz({ count: 300, seed: 1, options: { __testHooks: { panicIn: 'list_dir' } } })
  assert.ok(failures.some((f) => f.startsWith('internal: ') && f.includes('list_dir')), failures.slice(0, 3).join('\n'))
  assert.ok(failures.some((f) => f.startsWith('warn sink: ') && f.includes('deliberate panic')))
})

test('regressions the fuzzer found: a glob too big to compile', async () => {
  const { tools } = fuzzWorkspace()
  const huge = 'x'.repeat(1 << 20)
  for (const [tool, args] of [['glob', { pattern: huge }], ['grep', { pattern: 'a', glob: huge }]]) {
    const r = await tools.callTool(tool, args)
    assert.equal(r.isError, true)
    const env = JSON.parse(r.text)
    assert.equal(env.error, 'invalid_input')
    assert.match(env.message, /^Invalid glob pattern: /)
  }
})

test('regressions the fuzzer found: a FIFO as the search path or copy source', { skip: unixOnly }, async () => {
  const { tools } = fuzzWorkspace()
  // Opening a FIFO for reading would block until a writer comes: both tools must refuse or skip it.
  assert.equal((await tools.callTool('grep', { pattern: 'a', path: 'fifo' })).text, '(no matches)')
  assert.deepEqual(JSON.parse((await tools.callTool('read_file', { path: 'fifo' })).text), {
    error: 'not_a_file',
    message: 'Not a regular file: fifo',
    path: 'fifo',
  })
  // copy opened its source blocking: a FIFO with no writer hung the call for good.
  assert.deepEqual(JSON.parse((await tools.callTool('copy', { source: 'fifo', destination: 'fifo-copy' })).text), {
    error: 'not_a_file',
    message: 'Not a regular file: fifo',
    path: 'fifo',
  })
})
