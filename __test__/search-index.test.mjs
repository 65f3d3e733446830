// grep's trigram index (issue 18): the option, searchIndexStatus(), identical results with and
// without the index, and freshness after writes by our tools and by other processes.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { createAgentTools, StartupError } from '../index.mjs'
import { latest, scratch } from './helpers.mjs'

// The index is Unix only (SPEC.md, Platforms); elsewhere searchIndex is always off.
const unixOnly = { skip: process.platform === 'win32' && 'the search index is Unix only' }

function tree() {
  const files = {}
  for (let i = 0; i < 120; i++) {
    files[`pkg${i % 6}/mod${i}.ts`] = `export const v${i} = ${i}\nthrow new ${i % 2 ? 'TypeError' : 'RangeError'}('x')\n`
  }
  files['pkg3/needle.ts'] = 'const RareNeedle = 1\r\n'
  files['.gitignore'] = 'dist/\n'
  files['dist/out.ts'] = 'RareNeedle in an ignored file\n'
  return files
}

async function ready(tools) {
  for (let i = 0; i < 600; i++) {
    const s = tools.searchIndexStatus()
    if (s.state === 'ready') return s
    await new Promise((r) => setTimeout(r, 50))
  }
  assert.fail(`index not ready: ${JSON.stringify(tools.searchIndexStatus())}`)
}

const text = (r) => r.content.map((p) => p.text).join('')

test('searchIndex: "on" builds in the background; results equal the scan', unixOnly, async () => {
  const on = latest(tree(), { searchIndex: 'on' })
  const off = createAgentTools({ workspaceRoot: on.root, searchIndex: 'off' })
  assert.deepEqual(off.searchIndexStatus(), { state: 'off', files: 0, bytes: 0, buildMs: 0, updatedAt: null })
  // The first grep never waits for the build.
  const first = await on.call('grep', { pattern: 'RareNeedle' })
  assert.equal(text(first), 'pkg3/needle.ts')
  const s = await ready(on.tools)
  assert.equal(s.files, 122)
  assert.ok(s.bytes > 0 && Number.isInteger(s.buildMs) && s.updatedAt > 0)
  assert.ok(fs.statSync(path.join(on.root, '.clarvis/index/grep.idx')).isFile())
  const queries = [
    { pattern: 'RareNeedle' },
    { pattern: 'rareneedle', ignore_case: true, output_mode: 'content' },
    { pattern: '(Type|Range)Error', output_mode: 'count' },
    { pattern: 'TypeError', output_mode: 'content', context: 1, head_limit: 5, offset: 3 },
    { pattern: 'v1\\d', glob: 'pkg1/**' },
    { pattern: 'Needle$', output_mode: 'content' },
    { pattern: '\\w+Error', path: 'pkg2' },
  ]
  for (const q of queries) {
    assert.equal(text(await on.call('grep', q)), text(await off.callTool('grep', q)), JSON.stringify(q))
  }
})

test('an edit followed by a grep for the new text finds it, every time', unixOnly, async () => {
  const w = latest(tree(), { searchIndex: 'on' })
  await w.call('grep', { pattern: 'x' })
  await ready(w.tools)
  for (let i = 0; i < 40; i++) {
    const word = `Fresh${i}Word`
    const rel = `pkg${i % 6}/mod${i}.ts`
    if (i % 2) {
      await w.call('write_file', { path: rel, content: `const ${word} = 1\n` })
    } else {
      // Another process, in place, same length as the old text's first line would not matter.
      fs.writeFileSync(path.join(w.root, rel), `let ${word}\n`)
    }
    assert.equal(text(await w.call('grep', { pattern: word })), rel, word)
    const created = `pkg${i % 6}/new/n${i}.ts`
    fs.mkdirSync(path.dirname(path.join(w.root, created)), { recursive: true })
    fs.writeFileSync(path.join(w.root, created), `${word}Created\n`)
    assert.equal(text(await w.call('grep', { pattern: `${word}Created` })), created)
  }
  assert.equal(w.tools.searchIndexStatus().state, 'ready')
})

test('searchIndex option: bad values are a StartupError; auto stays off on small trees', async () => {
  const root = scratch()
  assert.throws(() => createAgentTools({ workspaceRoot: root, searchIndex: 'yes' }), (e) => {
    assert.ok(e instanceof StartupError)
    assert.equal(e.message, 'searchIndex must be "auto", "on" or "off", got: yes')
    return true
  })
  assert.throws(() => createAgentTools({ workspaceRoot: root, searchIndexThreshold: 0 }), StartupError)
  const w = latest({ 'a.txt': 'hello\n' })
  await w.call('grep', { pattern: 'hello' })
  assert.equal(w.tools.searchIndexStatus().state, 'off')
  assert.equal(fs.existsSync(path.join(w.root, '.clarvis/index')), false)
})
