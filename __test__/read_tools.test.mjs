// The 0.5 read tools (LATER §3): read_files, read_image, diff, file_stat, tree.
import test from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import v8 from 'node:v8'
import vm from 'node:vm'
import { latest, envelope } from './helpers.mjs'
import { createAgentTools } from '../index.mjs'
import { noSymlinks, slash } from './platform.mjs'

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201e2a1d5a60000000049454e44ae426082', 'hex')

test('read_files: sections, inline errors, empty files, blank-line joins', async () => {
  const { call } = latest({ 'a.txt': 'one\ntwo\n', 'e.txt': '', 'bin.dat': Buffer.from([0, 1, 2]) })
  fs.mkdirSync(path.join(latest().root, 'x'), { recursive: true })
  const r = await call('read_files', { paths: ['a.txt', 'missing.txt', 'e.txt', 'bin.dat', '../out.txt'] })
  assert.equal(r.isError, false)
  assert.equal(
    r.text,
    [
      '==> a.txt <==\n     1\tone\n     2\ttwo',
      '==> missing.txt \u2014 not_found: No such file: missing.txt <==',
      '==> e.txt <==\n(empty file)',
      '==> bin.dat \u2014 is_binary: File appears to be binary: bin.dat <==',
      '==> ../out.txt \u2014 path_escape: Path escapes the workspace root: ../out.txt (set ALLOW_OUTSIDE_WORKSPACE=1 to permit) <==',
    ].join('\n\n'),
  )
})

test('read_files: the shared budget cuts a section and drops the rest', async () => {
  const long = Array.from({ length: 400 }, (_, i) => `line ${i} ${'x'.repeat(20)}`).join('\n') + '\n'
  const { call } = latest({ 'a.txt': long, 'b.txt': 'b\n', 'c.txt': 'c\n' }, { maxOutputBytes: 2048 })
  const r = await call('read_files', { paths: ['a.txt', 'b.txt', 'c.txt'] })
  assert.match(r.text, /^==> a\.txt <==\n     1\tline 0/)
  assert.match(r.text, /\n\[\.\.\. \d+ of 400 lines shown; use read_file for the rest \.\.\.\]\n\n\[\.\.\. 2 more file\(s\) not shown; call read_files with fewer paths \.\.\.\]$/)
})

test('read_files: files far over the budget are cut exactly as a lone read would be, in any order', async () => {
  // Texts past the budget are not held for the whole call: they are read again when their
  // section is reached. The sections must not show it: the first file is cut where the
  // budget ends and every row is read_file's.
  const big = (tag) => Array.from({ length: 5000 }, (_, i) => `${tag} row ${i} ${'y'.repeat(30)}`).join('\n') + '\n'
  const files = {}
  for (let i = 0; i < 12; i++) files[`f${i}.txt`] = big(`f${i}`)
  const { call, root } = latest(files, { maxOutputBytes: 1024 })
  const roomy = createAgentTools({ workspaceRoot: root, maxOutputBytes: 1 << 20 })
  const whole = (await roomy.callTool('read_file', { path: 'f3.txt', limit: 100 })).text.split('\n')
  for (const paths of [Object.keys(files), Object.keys(files).reverse(), ['f3.txt', 'f3.txt', 'f0.txt']]) {
    const r = await call('read_files', { paths })
    assert.equal(r.isError, false)
    const [first, rest] = r.text.split('\n\n')
    const rows = first.split('\n')
    assert.equal(rows[0], `==> ${paths[0]} <==`)
    const shown = rows.length - 2
    assert.ok(shown > 5 && shown < 40, `${shown} rows`)
    const tag = paths[0].replace('.txt', '')
    assert.deepEqual(rows.slice(1, -1), whole.slice(0, shown).map((l) => l.replace('f3 row', `${tag} row`)))
    assert.equal(rows.at(-1), `[... ${shown} of 5000 lines shown; use read_file for the rest ...]`)
    assert.equal(rest, `[... ${paths.length - 1} more file(s) not shown; call read_files with fewer paths ...]`)
  }
})

test('read_files: a large ASCII result (an external string) keeps its text through collections', async () => {
  // From 128 KiB an ASCII result crosses without a copy: V8 reads the addon's buffer until it
  // collects the string. Several results alive at once, garbage and forced collections in
  // between: each must still read exactly as the same files read one by one.
  v8.setFlagsFromString('--expose-gc')
  const gc = vm.runInNewContext('gc')
  const files = {}
  for (let i = 0; i < 12; i++) files[`m${i}.js`] = Array.from({ length: 300 }, (_, n) => `export const v${i}_${n} = ${n * i} // ${'pad'.repeat(5)}`).join('\n') + '\n'
  const { call } = latest(files, { maxOutputBytes: 1 << 24 })
  const paths = Object.keys(files)
  const expected = []
  for (const p of paths) expected.push(`==> ${p} <==\n${(await call('read_file', { path: p })).text}`)
  const want = expected.join('\n\n')
  assert.ok(want.length > 128 * 1024)
  const kept = []
  for (let round = 0; round < 6; round++) {
    kept.push((await call('read_files', { paths })).text)
    let junk = []
    for (let k = 0; k < 2000; k++) junk.push('x'.repeat(k % 300) + k)
    junk = null
    gc()
  }
  for (const text of kept) assert.equal(text, want)
  kept.length = 0
  gc()
  assert.equal((await call('read_files', { paths })).text, want)
})

test('read_files: a large non-ASCII result (external UTF-16, surrogate pairs) reads as the UTF-8 path gives it', async () => {
  // Each file alone stays under 128 KiB (read_file's text crosses as UTF-8, decoded by V8);
  // together they pass it and cross converted to UTF-16 by the addon.
  v8.setFlagsFromString('--expose-gc')
  const gc = vm.runInNewContext('gc')
  const files = {}
  for (let i = 0; i < 24; i++) files[`u${i}.txt`] = Array.from({ length: 400 }, (_, n) => `é ${i}/${n} \u{1f600} ½ ─│ ${'ü'.repeat(n % 7)}`).join('\n') + '\n'
  const { call } = latest(files, { maxOutputBytes: 1 << 24 })
  const paths = Object.keys(files)
  const parts = []
  for (const p of paths) parts.push(`==> ${p} <==\n${(await call('read_file', { path: p })).text}`)
  const want = parts.join('\n\n')
  assert.ok(Buffer.byteLength(want) > 160 * 1024)
  const first = (await call('read_files', { paths })).text
  gc()
  assert.equal(first, want)
  assert.equal(first.length, want.length)
  assert.ok(first.includes('\u{1f600} ½ ─│'))
})

test('read_files: schema limits', async () => {
  const { call } = latest()
  assert.equal(envelope(await call('read_files', { paths: [] })).message, 'data/paths must NOT have fewer than 1 items')
  const many = Array.from({ length: 65 }, (_, i) => `f${i}`)
  assert.equal(envelope(await call('read_files', { paths: many })).message, 'data/paths must NOT have more than 64 items')
  assert.equal(envelope(await call('read_files', {})).message, "data must have required property 'paths'")
})

test('read_image: an image part only; errors', async () => {
  const { call } = latest({ 'p.png': PNG, 'not.png': 'text', 'big.png': Buffer.concat([PNG, Buffer.alloc(3000)]) }, { maxImageBytes: 2048 })
  const r = await call('read_image', { path: 'p.png' })
  assert.deepEqual(r, { isError: false, text: '', content: [{ type: 'image', data: PNG.toString('base64'), mimeType: 'image/png' }] })
  assert.deepEqual(envelope(await call('read_image', { path: 'not.png' })), {
    error: 'not_an_image',
    message: 'Not a supported image (expected png, jpeg, gif, or webp): not.png',
    path: 'not.png',
  })
  const big = envelope(await call('read_image', { path: 'big.png' }))
  assert.equal(big.error, 'too_large')
  assert.equal(big.message, `File is ${PNG.length + 3000} bytes, exceeding the 2048-byte limit (raise MAX_IMAGE_BYTES): big.png`)
  assert.equal(big.limit, 2048)
  assert.equal(envelope(await call('read_image', { path: 'nope.png' })).error, 'not_found')
  assert.equal(envelope(await call('read_image', { path: '.' })).error, 'not_a_file')
})

test('diff: unified diff between two files; CRLF-only differences are none', async () => {
  const { call } = latest({ 'a.ts': 'x\ny\nz\n', 'b.ts': 'x\nY\nz\n', 'c.ts': 'x\r\ny\r\nz\r\n' })
  const r = await call('diff', { from: 'a.ts', to: 'b.ts' })
  assert.equal(r.text, `${'='.repeat(67)}\n--- a.ts\n+++ b.ts\n@@ -1,3 +1,3 @@\n x\n-y\n+Y\n z\n`)
  assert.equal((await call('diff', { from: 'a.ts', to: 'c.ts' })).text, '(no differences)')
  assert.equal(envelope(await call('diff', { from: 'a.ts', to: 'zz' })).error, 'not_found')
})

test('file_stat: keys in order for a file, a directory and a symlink', async () => {
  const { call, root } = latest({ 'a.txt': 'hello', 'p.png': PNG, 'd/x': '' })
  fs.chmodSync(path.join(root, 'a.txt'), 0o644)
  if (!noSymlinks) fs.symlinkSync('a.txt', path.join(root, 'ln'))
  const f = JSON.parse((await call('file_stat', { path: 'a.txt' })).text)
  assert.deepEqual(Object.keys(f), ['path', 'type', 'size', 'mtime', 'mode', 'binary', 'mime'])
  assert.equal(f.type, 'file')
  assert.equal(f.size, 5)
  assert.equal(f.mode, '0644')
  assert.match(f.mtime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
  assert.equal(f.mtime, fs.statSync(path.join(root, 'a.txt')).mtime.toISOString())
  assert.deepEqual([f.binary, f.mime], [false, null])
  const img = JSON.parse((await call('file_stat', { path: 'p.png' })).text)
  assert.deepEqual([img.binary, img.mime], [true, 'image/png'])
  const d = JSON.parse((await call('file_stat', { path: 'd' })).text)
  assert.deepEqual(Object.keys(d), ['path', 'type', 'size', 'mtime', 'mode'])
  assert.equal(d.type, 'directory')
  if (!noSymlinks) {
    const l = JSON.parse((await call('file_stat', { path: 'ln' })).text)
    assert.deepEqual([l.type, l.symlink_target], ['symlink', 'a.txt'])
  }
  assert.equal(envelope(await call('file_stat', { path: 'nope' })).error, 'not_found')
})

test('tree: box drawing, directories first, sizes, symlinks, depth and ignores', async () => {
  const { call, root } = latest({ 'src/a.ts': 'ab', 'b.txt': 'x', 'src/deep/er/f': '', '.gitignore': 'ignored/\n', 'ignored/x': '' })
  // A link is shown, never followed (where links can be made at all).
  const link = !noSymlinks
  if (link) fs.symlinkSync('src', path.join(root, 'link'))
  const last = (rows) => (link ? [...rows, '└── link@'] : [...rows.slice(0, -1), rows.at(-1).replace('├', '└')])
  const r = await call('tree', {})
  assert.equal(
    r.text,
    last(['.', '├── src/', '│   ├── deep/', '│   │   └── er/', '│   │       └── f\t0', '│   └── a.ts\t2', '├── .gitignore\t9', '├── b.txt\t1']).join('\n'),
  )
  const shallow = await call('tree', { depth: 1 })
  assert.equal(shallow.text, last(['.', '├── src/', '├── .gitignore\t9', '├── b.txt\t1']).join('\n'))
  const all = await call('tree', { depth: 1, respect_gitignore: false })
  assert.ok(all.text.includes('ignored/'))
  assert.equal(slash((await call('tree', { path: 'src/deep/er/f'.slice(0, 12) })).text), 'src/deep/er\n└── f\t0')
  fs.mkdirSync(path.join(root, 'empty'))
  assert.equal((await call('tree', { path: 'empty' })).text, 'empty\n(no entries)')
  assert.equal(envelope(await call('tree', { path: 'b.txt' })).error, 'not_a_file')
  assert.equal(envelope(await call('tree', { path: 'nope' })).error, 'not_found')
})
