// replace (LATER §5): JavaScript regex find/replace, dry run by default, all-or-nothing apply.
import test from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { latest, envelope } from './helpers.mjs'
import { slash } from './platform.mjs'

const RULE = '='.repeat(67)

test('dry run: counts, scanned, one patch per file; nothing written', async () => {
  const files = { 'src/a.ts': 'const oldName = 1\nuse(oldName)\n', 'src/b.ts': 'oldName\n', 'src/c.md': 'oldName\n', 'src/none.ts': 'x\n' }
  const { call, root } = latest(files)
  const r = await call('replace', { pattern: 'oldName', replacement: 'newName', path: 'src', glob: '*.ts' })
  assert.equal(
    slash(r.text).replaceAll('"src//a.ts"', 'src/a.ts').replaceAll('"src//b.ts"', 'src/b.ts'),
    `3 replacement(s) across 2 file(s); 3 scanned (dry run \u2014 pass dry_run: false to apply)\n\n` +
      `Index: src/a.ts\n${RULE}\n--- src/a.ts\n+++ src/a.ts\n@@ -1,2 +1,2 @@\n-const oldName = 1\n-use(oldName)\n+const newName = 1\n+use(newName)\n` +
      `\nIndex: src/b.ts\n${RULE}\n--- src/b.ts\n+++ src/b.ts\n@@ -1,1 +1,1 @@\n-oldName\n+newName\n`,
  )
  assert.ok(!('meta' in r))
  assert.equal(fs.readFileSync(path.join(root, 'src/a.ts'), 'utf8'), files['src/a.ts'])
})

test('apply: JS replacement syntax, EOL and BOM kept, meta.diff, summary lines', async () => {
  const { call, root } = latest({ 'a.js': '\uFEFFfoo(1)\r\nfoo(22)\r\n', 'b.js': 'foo(3)' })
  const r = await call('replace', { pattern: 'foo\\((?<n>\\d+)\\)', replacement: 'bar($<n>, $&, $$)', glob: '*.js', dry_run: false })
  assert.equal(r.text, 'Replaced 3 occurrence(s) in 2 file(s):\n  M a.js (2 replacements)\n  M b.js (1 replacement)')
  assert.equal(fs.readFileSync(path.join(root, 'a.js'), 'utf8'), '\uFEFFbar(1, foo(1), $)\r\nbar(22, foo(22), $)\r\n')
  assert.equal(fs.readFileSync(path.join(root, 'b.js'), 'utf8'), 'bar(3, foo(3), $)')
  assert.match(r.meta.diff, /^Index: a\.js\n/)
  assert.match(r.meta.diff, /\nIndex: b\.js\n/)
})

test('flags: ignore_case and multiline', async () => {
  const { call, root } = latest({ 'a.txt': 'Foo\nfoo\nbar\n' })
  await call('replace', { pattern: '^foo$', replacement: 'x', path: 'a.txt', ignore_case: true, multiline: true, dry_run: false })
  assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'x\nx\nbar\n')
})

test('validation and scope errors, in order', async () => {
  const { call } = latest({ 'a.txt': 'a' })
  assert.deepEqual(envelope(await call('replace', { pattern: 'a', replacement: 'b' })), {
    error: 'invalid_input',
    message: 'Provide `path` or `glob` to scope the replacement.',
  })
  assert.equal(envelope(await call('replace', { pattern: 'a', replacement: 'b', path: '' })).message, 'Provide `path` or `glob` to scope the replacement.')
  const bad = envelope(await call('replace', { pattern: '(', replacement: 'b', path: '.' }))
  assert.equal(bad.error, 'invalid_input')
  assert.match(bad.message, /^Invalid regex: /)
  assert.equal(bad.pattern, '(')
  assert.deepEqual(envelope(await call('replace', { pattern: 'x*', replacement: 'b', path: '.' })), {
    error: 'invalid_input',
    message: 'pattern matches the empty string; refusing to insert the replacement between every character.',
  })
  assert.equal(envelope(await call('replace', { pattern: 'a', replacement: 'b', path: 'nope' })).error, 'not_found')
  assert.equal(envelope(await call('replace', { pattern: 'a', replacement: 'b', path: '../x' })).error, 'path_escape')
  assert.equal((await call('replace', { pattern: 'zzz', replacement: 'b', path: '.' })).text, '(no matches)')
  assert.equal((await call('replace', { pattern: 'a', replacement: 'a', path: '.' })).text, '(no matches)')
})

test('skips binary, UTF-16 and ignored files; a file scope ignores glob and ignores', async () => {
  const { call } = latest({
    'bin.dat': Buffer.from('foo\0foo'),
    'u16.txt': Buffer.from('\uFEFFfoo', 'utf16le'),
    '.gitignore': 'ignored.txt\n',
    'ignored.txt': 'foo\n',
    '.hidden': 'foo\n',
    'ok.txt': 'foo\n',
  })
  const r = await call('replace', { pattern: 'foo', replacement: 'bar', path: '.' })
  assert.match(r.text, /^2 replacement\(s\) across 2 file\(s\); 3 scanned/)
  assert.match(r.text, /Index: \.hidden\n/)
  const one = await call('replace', { pattern: 'foo', replacement: 'bar', path: 'ignored.txt', glob: '*.none' })
  assert.match(one.text, /^1 replacement\(s\) across 1 file\(s\); 1 scanned/)
})

test('apply is all or nothing, and recorded by checkpoints', async () => {
  const { call, root, tools } = latest({ 'a.txt': 'foo\n', 'b.txt': 'foo\n' })
  const id = tools.checkpoint()
  await call('replace', { pattern: 'foo', replacement: 'bar', path: '.', dry_run: false })
  assert.deepEqual((await tools.changes(id)).map((c) => c.path), ['a.txt', 'b.txt'])
  await tools.restore(id)
  assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'foo\n')
})

test('a commit that fails midway rolls every file back (io_error)', async () => {
  process.env.CLARVIS_AGENT_TOOLS_TEST_HOOKS = '1'
  try {
    const { call, root } = latest({ 'a.txt': 'foo\n', 'b.txt': 'foo\n', 'c.txt': 'foo\n' }, { __testHooks: { failCommitAfter: 1 } })
    const e = envelope(await call('replace', { pattern: 'foo', replacement: 'bar', path: '.', dry_run: false }))
    assert.equal(e.error, 'io_error')
    assert.match(e.message, /^Failed to apply replacement: /)
    for (const f of ['a.txt', 'b.txt', 'c.txt']) assert.equal(fs.readFileSync(path.join(root, f), 'utf8'), 'foo\n')
  } finally {
    delete process.env.CLARVIS_AGENT_TOOLS_TEST_HOOKS
  }
})

test('a catastrophic pattern ends: invalid_input naming the file, nothing written; an abort is aborted', async () => {
  const bomb = `${'a'.repeat(40)}!\n`
  const { call, tools, root } = latest({ 'src/ok.txt': 'aaa\n', 'src/bomb.txt': bomb })
  for (const dry_run of [true, false]) {
    const e = envelope(await call('replace', { pattern: '(a+)+$', replacement: 'x', path: 'src', dry_run }))
    assert.equal(e.error, 'invalid_input')
    assert.match(slash(e.message), /^Regular expression too complex: it backtracked past its limit on src\/bomb\.txt; nothing was changed\./)
    assert.equal(e.pattern, '(a+)+$')
    assert.equal(slash(e.path), 'src/bomb.txt')
    assert.equal(fs.readFileSync(path.join(root, 'src/ok.txt'), 'utf8'), 'aaa\n')
    assert.equal(fs.readFileSync(path.join(root, 'src/bomb.txt'), 'utf8'), bomb)
  }
  // Cancellation reaches a search in progress (a budget that would take far longer).
  fs.writeFileSync(path.join(root, 'src/big.txt'), `${'a'.repeat(30)}!\n`.repeat(100000))
  const ac = new AbortController()
  setTimeout(() => ac.abort(), 50)
  const r = await tools.callTool('replace', { pattern: '(a|aa)+$', replacement: 'x', path: 'src/big.txt' }, ac.signal)
  assert.equal(envelope(r).error, 'aborted')
})
