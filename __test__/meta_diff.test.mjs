// meta.diff (LATER §2.2): jsdiff createTwoFilesPatch of the decoded, LF-normalised text, for
// the client only — never in the text the model reads.
import test from 'node:test'
import assert from 'node:assert/strict'
import { latest, workspace } from './helpers.mjs'
import { native } from './platform.mjs'

const RULE = '='.repeat(67)

test('edit_file sets meta.diff; the text is unchanged', async () => {
  const { call } = latest({ 'a.ts': 'x\r\ny\r\nz\r\n' })
  const r = await call('edit_file', { path: 'a.ts', old_string: 'y', new_string: 'Y' })
  assert.equal(r.text, 'Replaced 1 occurrence in a.ts.')
  assert.deepEqual(r.content, [{ type: 'text', text: r.text }])
  assert.equal(r.meta.diff, `Index: a.ts\n${RULE}\n--- a.ts\n+++ a.ts\n@@ -1,3 +1,3 @@\n x\n-y\n+Y\n z\n`)
})

test('multi_edit sets one diff for all its edits; a missing final newline is marked', async () => {
  const { call } = latest({ 'dir/b.txt': 'one\ntwo\nthree' })
  const r = await call('multi_edit', { path: 'dir/b.txt', edits: [{ old_string: 'one', new_string: '1' }, { old_string: 'three', new_string: '3' }] })
  // jsdiff quotes a name with a backslash (Windows' display form) C-style.
  const name = native('dir/b.txt')
  const q = name.includes('\\') ? JSON.stringify(name) : name
  assert.equal(r.meta.diff, `Index: ${name}\n${RULE}\n--- ${q}\n+++ ${q}\n@@ -1,3 +1,3 @@\n-one\n+1\n two\n-three\n\\ No newline at end of file\n+3\n\\ No newline at end of file\n`)
})

test('write_file: a diff on overwrite only, none when new or unchanged or not UTF-8', async () => {
  const { call } = latest({ 'a.txt': '\uFEFFold\r\n', 'same.txt': 'same\n', 'u16.txt': Buffer.from([0xff, 0xfe, 0x61, 0x00]) })
  const over = await call('write_file', { path: 'a.txt', content: 'new\n' })
  assert.equal(over.text, 'Wrote 4 bytes to a.txt (overwritten).')
  assert.equal(over.meta.diff, `Index: a.txt\n${RULE}\n--- a.txt\n+++ a.txt\n@@ -1,1 +1,1 @@\n-old\n+new\n`)
  const created = await call('write_file', { path: 'n.txt', content: 'x\n' })
  assert.ok(!('meta' in created))
  assert.ok(!('meta' in (await call('write_file', { path: 'same.txt', content: 'same\n' }))))
  assert.ok(!('meta' in (await call('write_file', { path: 'u16.txt', content: 'a' }))))
})

test('compat 0.1 results carry no meta', async () => {
  const { call } = workspace({ 'a.ts': 'x\n' })
  assert.deepEqual(Object.keys(await call('edit_file', { path: 'a.ts', old_string: 'x', new_string: 'y' })), ['isError', 'text'])
})
