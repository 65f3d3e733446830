import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { workspace, envelope } from './helpers.mjs'
import { noSymlinks } from './platform.mjs'

test('directories first, then files with sizes, each in JS string order; dotfiles included', async () => {
  const { root, call } = workspace({ 'b.txt': 'abc', 'A.txt': '', '.env': 'k=v\n', 'zdir/x': '', 'Adir/y': '', '.git/HEAD': 'r' })
  // Links are listed by what they point at (where links can be made at all).
  const links = !noSymlinks
  if (links) {
    fs.symlinkSync(path.join(root, 'zdir'), path.join(root, 'link-to-dir'))
    fs.symlinkSync(path.join(root, 'b.txt'), path.join(root, 'link-to-file'))
    fs.symlinkSync(path.join(root, 'missing'), path.join(root, 'broken'))
  }
  assert.equal((await call('list_dir', {})).text, [
    '.git/', 'Adir/', ...(links ? ['link-to-dir/'] : []), 'zdir/',
    '.env\t4', 'A.txt\t0', 'b.txt\t3', ...(links ? ['broken\t0', 'link-to-file\t3'] : []),
  ].join('\n'))
  assert.equal((await call('list_dir', { path: 'zdir' })).text, 'x\t0')
  assert.equal((await call('list_dir', { path: '' })).text.split('\n')[0], '.git/')
})

test('empty directory sentinel; errors', async () => {
  const { root, call } = workspace({ 'f.txt': '' })
  fs.mkdirSync(path.join(root, 'empty'))
  assert.deepEqual(await call('list_dir', { path: 'empty' }), { isError: false, text: '(empty directory)' })
  assert.deepEqual(envelope(await call('list_dir', { path: 'nope' })),
    { error: 'not_found', message: 'No such file: nope', path: 'nope' })
  assert.deepEqual(envelope(await call('list_dir', { path: 'f.txt' })),
    { error: 'not_a_file', message: 'Not a directory: f.txt', path: 'f.txt' })
})
