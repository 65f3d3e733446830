import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { workspace, envelope, scratch } from './helpers.mjs'

function setup() {
  const outside = scratch('cat-outside-')
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'secret\n')
  const ws = workspace({ 'in.txt': 'inside\n', '..env': 'dotdot\n' })
  fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(ws.root, 'file-link'))
  fs.symlinkSync(outside, path.join(ws.root, 'dir-link'))
  fs.symlinkSync(path.join(ws.root, 'in.txt'), path.join(ws.root, 'inner-link'))
  return { ...ws, outside }
}

const escape = (input) => ({
  error: 'path_escape',
  message: `Path escapes the workspace root: ${input} (set ALLOW_OUTSIDE_WORKSPACE=1 to permit)`,
  path: input,
})

test('.., absolute paths and symlinks pointing out are refused by the read tools', async () => {
  const { call, outside } = setup()
  const attempts = ['../x', 'a/../../x', path.join(outside, 'secret.txt'), 'file-link', 'dir-link/secret.txt', '/etc/passwd']
  for (const p of attempts) {
    assert.deepEqual(envelope(await call('read_file', { path: p })), escape(p), p)
  }
  assert.deepEqual(envelope(await call('list_dir', { path: 'dir-link' })), escape('dir-link'))
  assert.deepEqual(envelope(await call('list_dir', { path: '..' })), escape('..'))
})

test('symlinks inside the root, and names starting with .., are fine', async () => {
  const { call } = setup()
  assert.equal((await call('read_file', { path: 'inner-link' })).text, '     1\tinside')
  assert.equal((await call('read_file', { path: '..env' })).text, '     1\tdotdot')
  assert.equal((await call('read_file', { path: 'sub/../in.txt' })).text, '     1\tinside')
})

test('confineToWorkspace: false permits outside paths', async () => {
  const outside = scratch('cat-outside-')
  fs.writeFileSync(path.join(outside, 's.txt'), 'ok\n')
  const { call } = workspace({}, { confineToWorkspace: false })
  assert.equal((await call('read_file', { path: path.join(outside, 's.txt') })).text, '     1\tok')
})
