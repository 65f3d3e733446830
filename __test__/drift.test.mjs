// The drift suite (issue 8): a few hundred edits built from real C, JS/TS, Python and Rust
// sources, each with one kind of drift models produce, applied through edit_file/multi_edit.
// Asserts >= 95% correct (exact expected bytes; refusals count only for line-number prefixes
// and ambiguity traps), zero wrong edits, and that no edited Python file stops compiling.
// `node __test__/drift/runner.mjs --verbose` prints the table and every miss.
import test from 'node:test'
import assert from 'node:assert/strict'
import { generate } from './drift/generate.mjs'
import { runCases } from './drift/runner.mjs'

test('drift suite: >= 95% correct, zero wrong edits, Python still compiles', async (t) => {
  const cases = generate()
  assert.ok(cases.length >= 200, `only ${cases.length} cases could be built`)
  const { table, results, pyFailures } = await runCases(cases)
  for (const line of table.split('\n')) t.diagnostic(line)
  const wrong = results.filter((r) => r.outcome === 'wrong')
  assert.deepEqual(wrong.map((r) => `${r.case.category}/${r.case.variant} ${r.case.file}:${r.case.line}`), [])
  const correct = results.filter((r) => r.outcome === 'correct').length
  assert.ok(correct >= 0.95 * results.length, `${correct}/${results.length} correct`)
  assert.ok(pyFailures === null || pyFailures === 0, `${pyFailures} edited Python files no longer compile`)
})
