// grep's trigram index (issue 18): the option, searchIndexStatus(), identical results with and
// without the index, and freshness after writes by our tools and by other processes.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { createAgentTools, StartupError } from '../index.mjs'
import { latest, scratch, eventually, age, gitIn } from './helpers.mjs'

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

/** The status once the background build is done (waited for, not timed). */
const ready = (tools) =>
  eventually(() => tools.searchIndexStatus().state === 'ready' && tools.searchIndexStatus(), 'the index is ready')

const text = (r) => r.content.map((p) => p.text).join('')

/** grep `q` with the index (workspace `w`) and without it (`off`): asserts both answer the
 * same, and returns the answer's lines, sorted. */
async function sameLines(w, off, q) {
  const got = text(await w.call('grep', q))
  assert.equal(got, text(await off.callTool('grep', q)), JSON.stringify(q))
  return got === '(no matches)' ? [] : got.split('\n').sort()
}

test('searchIndex: "on" builds in the background; results equal the scan', unixOnly, async () => {
  const on = latest(tree(), { searchIndex: 'on' })
  const off = createAgentTools({ workspaceRoot: on.root, searchIndex: 'off' })
  assert.deepEqual(off.searchIndexStatus(), { state: 'off', files: 0, bytes: 0, buildMs: 0, updatedAt: null, symbols: { state: 'off', files: 0, bytes: 0, buildMs: 0 } })
  // The first grep never waits for the build.
  const first = await on.call('grep', { pattern: 'RareNeedle' })
  assert.equal(text(first), 'pkg3/needle.ts')
  const s = await ready(on.tools)
  assert.equal(s.files, 122)
  assert.ok(s.bytes > 0 && Number.isInteger(s.buildMs) && s.updatedAt > 0)
  // Ready from memory; the image reaches the disk right after (written on another thread).
  const image = path.join(on.root, '.clarvis/index/grep.idx')
  await eventually(() => fs.existsSync(image), 'the image is written')
  assert.ok(fs.statSync(image).isFile())
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

const hasGit = spawnSync('git', ['--version']).status === 0

test('a workspace opened through a symlink: indexed answers equal the scan, edits are found', unixOnly, async () => {
  // macOS's /tmp, a linked checkout: the root is reached through a link. The index once
  // took the link for a directory swapped for a symlink and answered "(no matches)".
  const real = latest(tree()).root
  age(real)
  const link = path.join(scratch('link-'), 'ws')
  fs.symlinkSync(real, link)
  const on = createAgentTools({ workspaceRoot: link, searchIndex: 'on' })
  const off = createAgentTools({ workspaceRoot: link, searchIndex: 'off' })
  await on.callTool('grep', { pattern: 'x' })
  assert.equal((await ready(on)).files, 122)
  for (const q of [{ pattern: 'RareNeedle' }, { pattern: '(Type|Range)Error', output_mode: 'count' }, { pattern: 'v1\\d', path: 'pkg1' }]) {
    assert.equal(text(await on.callTool('grep', q)), text(await off.callTool('grep', q)), JSON.stringify(q))
  }
  assert.equal(text(await on.callTool('grep', { pattern: 'RareNeedle' })), 'pkg3/needle.ts')
  for (const [i, rel] of ['top.ts', 'pkg2/mod2.ts', 'pkg4/new/deep.ts'].entries()) {
    fs.mkdirSync(path.dirname(path.join(real, rel)), { recursive: true })
    fs.writeFileSync(path.join(real, rel), `const LinkedFresh${i} = 1\n`)
    assert.equal(text(await on.callTool('grep', { pattern: `LinkedFresh${i}` })), rel)
  }
  await on.callTool('write_file', { path: 'pkg5/mod5.ts', content: 'const LinkedWrite = 1\n' })
  assert.equal(text(await on.callTool('grep', { pattern: 'LinkedWrite' })), 'pkg5/mod5.ts')
})


test('duplicate files: editing any copy, the representative included, never hides the others', unixOnly, async () => {
  // The build extracts one copy of a text and posts it for every copy (SPEC.md, the index):
  // five identical files in different directories, then each edited in turn, by write_file
  // and by another writer; after each edit the old text is in exactly the copies not yet
  // edited and the new text in exactly the edited ones, with and without the index.
  const files = tree()
  const copies = ['pkg0/dup.ts', 'pkg4/deep/dup.ts', 'lib/other.ts', 'dup.ts', 'pkg2/a/b/c.ts']
  for (const rel of copies) files[rel] = 'export const SharedDupToken = 1\n'
  const w = latest(files, { searchIndex: 'on' })
  age(w.root)
  await w.call('grep', { pattern: 'x' })
  await ready(w.tools)
  const off = createAgentTools({ workspaceRoot: w.root, searchIndex: 'off' })
  const lines = (q) => sameLines(w, off, q)
  assert.deepEqual(await lines({ pattern: 'SharedDupToken' }), [...copies].sort())
  for (const [i, rel] of copies.entries()) {
    if (i % 2) await w.call('write_file', { path: rel, content: `export const EditedDupToken${i} = 1\n` })
    else fs.writeFileSync(path.join(w.root, rel), `export const EditedDupToken${i} = 1\n`)
    assert.deepEqual(await lines({ pattern: 'SharedDupToken' }), copies.slice(i + 1).sort(), `after editing ${rel}`)
    assert.deepEqual(await lines({ pattern: 'EditedDupToken\\d' }), copies.slice(0, i + 1).sort())
    assert.deepEqual(await lines({ pattern: `EditedDupToken${i}`, output_mode: 'content' }), [`${rel}:1:export const EditedDupToken${i} = 1`])
    assert.deepEqual(await lines({ pattern: 'shareddup', ignore_case: true, output_mode: 'count' }), copies.slice(i + 1).map((f) => `${f}:1`).sort())
  }
  assert.equal(w.tools.searchIndexStatus().state, 'ready')
})


test('git checkout between branches: grep sees exactly the checked-out content', { skip: (!hasGit && 'no git') || unixOnly.skip }, async () => {
  const files = {}
  for (let i = 0; i < 80; i++) files[`pkg${i % 5}/m${i}.ts`] = `export const v${i} = ${i}\n`
  for (let i = 0; i < 4; i++) files[`gone/g${i}.ts`] = `MainOnlyToken ${i}\n`
  const w = latest(files, { searchIndex: 'on' })
  const git = gitIn(w.root, { init: true })
  // The other branch: 40 files changed in place, a directory deleted, a new deep one.
  git('checkout', '-q', '-b', 'other')
  const changed = []
  for (let i = 0; i < 80; i += 2) {
    changed.push(`pkg${i % 5}/m${i}.ts`)
    fs.appendFileSync(path.join(w.root, changed.at(-1)), 'BranchOnlyToken\n')
  }
  fs.rmSync(path.join(w.root, 'gone'), { recursive: true })
  fs.mkdirSync(path.join(w.root, 'fresh/deep'), { recursive: true })
  fs.writeFileSync(path.join(w.root, 'fresh/deep/n.ts'), 'BranchOnlyToken too\n')
  changed.push('fresh/deep/n.ts')
  git('add', '-A')
  git('commit', '-q', '-m', 'other')
  git('checkout', '-q', 'main')
  age(w.root)
  await w.call('grep', { pattern: 'v1' })
  await ready(w.tools)
  const off = createAgentTools({ workspaceRoot: w.root, searchIndex: 'off' })
  const lines = (q) => sameLines(w, off, q)
  const mainOnly = [0, 1, 2, 3].map((i) => `gone/g${i}.ts`)
  for (let round = 0; round < 3; round++) {
    git('checkout', '-q', 'other')
    assert.deepEqual(await lines({ pattern: 'BranchOnlyToken' }), changed.sort())
    assert.deepEqual(await lines({ pattern: 'MainOnlyToken' }), [])
    assert.deepEqual(await lines({ pattern: 'branchonlytoken', ignore_case: true, output_mode: 'count' }), changed.map((f) => `${f}:1`).sort())
    git('checkout', '-q', 'main')
    assert.deepEqual(await lines({ pattern: 'BranchOnlyToken' }), [])
    assert.deepEqual(await lines({ pattern: 'MainOnlyToken' }), mainOnly)
    // glob answers from the index's file list: the same files, newest first, as the walk.
    for (const pattern of ['**/*.ts', 'gone/*', 'fresh/**']) {
      assert.equal(text(await w.call('glob', { pattern })), text(await off.callTool('glob', { pattern })), pattern)
    }
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
