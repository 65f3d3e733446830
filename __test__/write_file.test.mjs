// write_file: bytes on disk, created/overwritten messages, parents, modes, refusals.
import test from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { workspace, envelope } from './helpers.mjs'
import { modeAs, noModes, noSymlinks, slash } from './platform.mjs'

/** Names of leftover temp files anywhere under `dir`. */
function strays(dir) {
  return fs.readdirSync(dir, { recursive: true }).filter((n) => path.basename(String(n)).startsWith('.clarvis-tmp-'))
}

test('creates a file and its missing parents, content verbatim', async () => {
  const { root, call } = workspace()
  const r = await call('write_file', { path: 'a/b/c.txt', content: 'x\r\ny\rz' })
  assert.deepEqual({ ...r, text: slash(r.text) }, { isError: false, text: 'Wrote 6 bytes to a/b/c.txt (created).' })
  assert.deepEqual(fs.readFileSync(path.join(root, 'a/b/c.txt')), Buffer.from('x\r\ny\rz'))
  assert.deepEqual(strays(root), [])
})

test('overwrites verbatim: no EOL or BOM carried over, byte count is UTF-8', async () => {
  const { root, call } = workspace({ 'f.txt': '\uFEFFold\r\nlines\r\n' })
  const r = await call('write_file', { path: './f.txt', content: 'héllo\n' })
  assert.equal(r.text, 'Wrote 7 bytes to f.txt (overwritten).')
  assert.deepEqual(fs.readFileSync(path.join(root, 'f.txt')), Buffer.from('héllo\n'))
})

test('keeps the permission bits of the file it replaces', async () => {
  const { root, call } = workspace({ 'run.sh': '#!/bin/sh\n' })
  fs.chmodSync(path.join(root, 'run.sh'), 0o755)
  assert.equal((await call('write_file', { path: 'run.sh', content: '#!/bin/sh\necho hi\n' })).isError, false)
  assert.equal(fs.statSync(path.join(root, 'run.sh')).mode & 0o7777, modeAs(0o755))
  assert.deepEqual(strays(root), [])
})

test('a directory target is not_a_file', async () => {
  const { root, call } = workspace({ 'd/x': '' })
  assert.deepEqual(envelope(await call('write_file', { path: 'd', content: 'z' })), {
    error: 'not_a_file', message: 'Path is a directory: d', path: 'd',
  })
  assert.ok(fs.statSync(path.join(root, 'd')).isDirectory())
})

test('a file used as a directory component is not_a_file', async () => {
  const { root, call } = workspace({ 'f.txt': 'keep' })
  assert.deepEqual(envelope(await call('write_file', { path: 'f.txt/x/y.txt', content: 'z' })), {
    error: 'not_a_file', message: 'Not a directory: f.txt/x/y.txt', path: 'f.txt/x/y.txt',
  })
  assert.equal(fs.readFileSync(path.join(root, 'f.txt'), 'utf8'), 'keep')
})

test('refuses to write through a symlink, naming the absolute path', { skip: noSymlinks }, async () => {
  const { root, call } = workspace({ 'real.txt': 'real' })
  fs.symlinkSync(path.join(root, 'real.txt'), path.join(root, 'link.txt'))
  const abs = path.join(root, 'link.txt')
  assert.deepEqual(envelope(await call('write_file', { path: 'link.txt', content: 'new' })), {
    error: 'invalid_input', message: `Refusing to write through a symlink: ${abs}`, path: abs,
  })
  assert.equal(fs.readFileSync(path.join(root, 'real.txt'), 'utf8'), 'real')
  assert.ok(fs.lstatSync(abs).isSymbolicLink())
})

test('paths outside the workspace are refused', async () => {
  const { call } = workspace()
  const e = envelope(await call('write_file', { path: '../escape.txt', content: 'z' }))
  assert.equal(e.error, 'path_escape')
  assert.equal(e.path, '../escape.txt')
})

test('an aborted call writes nothing', async () => {
  const { root, call } = workspace({ 'f.txt': 'old' })
  const ac = new AbortController()
  ac.abort()
  const e = envelope(await call('write_file', { path: 'f.txt', content: 'new' }, ac.signal))
  assert.equal(e.error, 'aborted')
  assert.equal(fs.readFileSync(path.join(root, 'f.txt'), 'utf8'), 'old')
  assert.equal((await call('write_file', { path: 'n/new.txt', content: 'x' }, ac.signal)).isError, true)
  assert.equal(fs.existsSync(path.join(root, 'n')), false)
})

test('an unwritable directory is io_error with the errno', { skip: noModes || process.getuid?.() === 0 && 'root ignores permissions' }, async () => {
  const { root, call } = workspace({ 'ro/f.txt': 'x' })
  fs.chmodSync(path.join(root, 'ro'), 0o555)
  const e = envelope(await call('write_file', { path: 'ro/f.txt', content: 'y' }))
  fs.chmodSync(path.join(root, 'ro'), 0o755)
  assert.deepEqual(e, { error: 'io_error', message: 'EACCES: permission denied', path: 'ro/f.txt' })
})
