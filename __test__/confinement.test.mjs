import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { workspace, envelope, scratch } from './helpers.mjs'
import { noSymlinks } from './platform.mjs'

function setup() {
  const outside = scratch('cat-outside-')
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'secret\n')
  const ws = workspace({ 'in.txt': 'inside\n', '..env': 'dotdot\n' })
  if (!noSymlinks) {
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(ws.root, 'file-link'))
    fs.symlinkSync(outside, path.join(ws.root, 'dir-link'))
    fs.symlinkSync(path.join(ws.root, 'in.txt'), path.join(ws.root, 'inner-link'))
  }
  return { ...ws, outside }
}

const escape = (input) => ({
  error: 'path_escape',
  message: `Path escapes the workspace root: ${input} (set ALLOW_OUTSIDE_WORKSPACE=1 to permit)`,
  path: input,
})

test('.. and absolute paths pointing out are refused by the read tools', async () => {
  const { call, outside } = setup()
  for (const p of ['../x', 'a/../../x', path.join(outside, 'secret.txt'), '/etc/passwd']) {
    assert.deepEqual(envelope(await call('read_file', { path: p })), escape(p), p)
  }
  assert.deepEqual(envelope(await call('list_dir', { path: '..' })), escape('..'))
})

test('symlinks pointing out are refused by the read tools', { skip: noSymlinks }, async () => {
  const { call } = setup()
  for (const p of ['file-link', 'dir-link/secret.txt']) {
    assert.deepEqual(envelope(await call('read_file', { path: p })), escape(p), p)
  }
  assert.deepEqual(envelope(await call('list_dir', { path: 'dir-link' })), escape('dir-link'))
})

test('symlinks inside the root are fine', { skip: noSymlinks }, async () => {
  const { call } = setup()
  assert.equal((await call('read_file', { path: 'inner-link' })).text, '     1\tinside')
})

test('names starting with .. are fine', async () => {
  const { call } = setup()
  assert.equal((await call('read_file', { path: '..env' })).text, '     1\tdotdot')
  assert.equal((await call('read_file', { path: 'sub/../in.txt' })).text, '     1\tinside')
})

test('confineToWorkspace: false permits outside paths', async () => {
  const outside = scratch('cat-outside-')
  fs.writeFileSync(path.join(outside, 's.txt'), 'ok\n')
  const { call } = workspace({}, { confineToWorkspace: false })
  assert.equal((await call('read_file', { path: path.join(outside, 's.txt') })).text, '     1\tok')
})
