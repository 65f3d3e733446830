// Scenario fixtures for apply_patch, one directory per behaviour (codex apply-patch style):
//   fixtures/patch/NNN_name/input/           the workspace before (absent = empty)
//   fixtures/patch/NNN_name/patch.txt        the `patch` argument
//   fixtures/patch/NNN_name/expected/        the workspace after, byte for byte
//   fixtures/patch/NNN_name/expected_error.json  or: the error envelope ($ROOT = workspace
//                                            root); the workspace must then be unchanged
//   fixtures/patch/NNN_name/expected_output.txt  optional: the exact success text
// Paths in the expectations are written with `/`; on Windows the tools display them with `\`
// (path.relative's form), except a path_escape, which quotes the patch's own path.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { createAgentTools } from '../index.mjs'
import { scratch } from './helpers.mjs'
import { windows } from './platform.mjs'

const here = path.dirname(fileURLToPath(import.meta.url))
const fixtures = path.join(here, 'fixtures', 'patch')

/** Every entry under `dir` as { 'rel/path': Buffer } for files and { 'rel/dir/': null }. */
function tree(dir, { dirs = true } = {}) {
  const out = {}
  if (!fs.existsSync(dir)) return out
  const walk = (abs, rel) => {
    for (const name of fs.readdirSync(abs).sort()) {
      const a = path.join(abs, name)
      const r = rel ? `${rel}/${name}` : name
      if (fs.statSync(a).isDirectory()) {
        if (dirs) out[`${r}/`] = null
        walk(a, r)
      } else out[r] = fs.readFileSync(a)
    }
  }
  walk(dir, '')
  return out
}

for (const name of fs.readdirSync(fixtures).filter((n) => /^\d{3}_/.test(n)).sort()) {
  test(`fixture ${name}`, async () => {
    const dir = path.join(fixtures, name)
    const root = scratch('patch-fixture-')
    if (fs.existsSync(path.join(dir, 'input'))) fs.cpSync(path.join(dir, 'input'), root, { recursive: true })
    const before = tree(root)
    const tools = createAgentTools({ workspaceRoot: root })
    const patch = fs.readFileSync(path.join(dir, 'patch.txt'), 'utf8')
    const result = await tools.callTool('apply_patch', { patch })
    const errorFile = path.join(dir, 'expected_error.json')
    if (fs.existsSync(errorFile)) {
      assert.equal(result.isError, true, `expected an error, got: ${result.text}`)
      const expected = JSON.parse(fs.readFileSync(errorFile, 'utf8'))
      for (const key of ['message', 'path']) {
        if (typeof expected[key] !== 'string') continue
        if (windows && expected.error !== 'path_escape') expected[key] = expected[key].replaceAll('/', '\\')
        expected[key] = expected[key].replaceAll('$ROOT', root)
      }
      assert.deepEqual(JSON.parse(result.text), expected)
      assert.deepEqual(tree(root), before, 'a failed patch changes nothing')
    } else {
      assert.equal(result.isError, false, result.text)
      assert.deepEqual(tree(root, { dirs: false }), tree(path.join(dir, 'expected'), { dirs: false }))
      const outFile = path.join(dir, 'expected_output.txt')
      const output = (t) => (windows ? t.replaceAll('/', '\\') : t)
      if (fs.existsSync(outFile)) assert.equal(result.text, output(fs.readFileSync(outFile, 'utf8')))
    }
    const leftovers = Object.keys(tree(root)).filter((p) => p.split('/').some((c) => c.startsWith('.clarvis-tmp-')))
    assert.deepEqual(leftovers, [])
  })
}
