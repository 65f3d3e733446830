// The 0.5 file tools (LATER §4): move, copy, mkdir, remove — checks in order, messages,
// bytes and modes on disk, nothing left behind.
import test from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { latest, envelope } from './helpers.mjs'
import { modeAs, noSymlinks, slash } from './platform.mjs'

const leftovers = (root) => fs.readdirSync(root, { recursive: true }).filter((n) => String(n).includes('.clarvis-tmp-'))

test('move: renames with bytes and mode, creates parents, overwrite rules', async () => {
  const { call, root } = latest({ 'a.sh': '#!/bin/sh\r\necho hi\r\n', 'b.txt': 'b' })
  fs.chmodSync(path.join(root, 'a.sh'), 0o755)
  const ino = fs.statSync(path.join(root, 'a.sh')).ino
  const r = await call('move', { source: 'a.sh', destination: 'bin/tools/a.sh' })
  assert.equal(slash(r.text), 'Moved a.sh \u2192 bin/tools/a.sh.')
  const moved = path.join(root, 'bin/tools/a.sh')
  assert.equal(fs.readFileSync(moved, 'utf8'), '#!/bin/sh\r\necho hi\r\n')
  assert.equal(fs.statSync(moved).mode & 0o777, modeAs(0o755))
  assert.equal(fs.statSync(moved).ino, ino)
  assert.equal(fs.existsSync(path.join(root, 'a.sh')), false)
  const exists = envelope(await call('move', { source: 'b.txt', destination: 'bin/tools/a.sh' }))
  assert.deepEqual({ ...exists, message: slash(exists.message), path: slash(exists.path) }, {
    error: 'invalid_input',
    message: 'Destination already exists: bin/tools/a.sh (pass overwrite: true to replace it)',
    path: 'bin/tools/a.sh',
  })
  const o = await call('move', { source: 'b.txt', destination: 'bin/tools/a.sh', overwrite: true })
  assert.equal(slash(o.text), 'Moved b.txt \u2192 bin/tools/a.sh (overwritten).')
  assert.equal(fs.readFileSync(moved, 'utf8'), 'b')
})

test('move/copy: the order of checks', async () => {
  const { call, root } = latest({ 'f.txt': 'f', 'd/x': '' })
  if (!noSymlinks) fs.symlinkSync('f.txt', path.join(root, 'ln'))
  for (const tool of ['move', 'copy']) {
    assert.deepEqual(envelope(await call(tool, { source: 'f.txt', destination: './f.txt' })), {
      error: 'invalid_input',
      message: 'Source and destination are the same: f.txt',
    })
    if (!noSymlinks) {
      const sym = envelope(await call(tool, { source: 'ln', destination: 'g.txt' }))
      assert.deepEqual(sym, { error: 'invalid_input', message: `Refusing to write through a symlink: ${path.join(root, 'ln')}`, path: path.join(root, 'ln') })
    }
    assert.deepEqual(envelope(await call(tool, { source: 'nope', destination: 'g' })), { error: 'not_found', message: 'No such file: nope', path: 'nope' })
    assert.deepEqual(envelope(await call(tool, { source: 'd', destination: 'g' })), {
      error: 'not_a_file',
      message: 'Source is a directory (files only): d',
      path: 'd',
    })
    assert.deepEqual(envelope(await call(tool, { source: 'f.txt', destination: 'd' })), {
      error: 'not_a_file',
      message: 'Destination is a directory: d',
      path: 'd',
    })
    assert.equal(envelope(await call(tool, { source: 'f.txt', destination: '../out' })).error, 'path_escape')
  }
  assert.deepEqual(leftovers(root), [])
})

test('copy: byte-exact (binary too), mode carried, source kept, atomic', async () => {
  const bytes = Buffer.alloc(3 << 20)
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 31) & 0xff
  const { call, root } = latest({ 'big.bin': bytes, 'old.bin': 'old' }, { maxFileBytes: 1024 })
  fs.chmodSync(path.join(root, 'big.bin'), 0o640)
  const r = await call('copy', { source: 'big.bin', destination: 'out/copy.bin' })
  assert.equal(slash(r.text), 'Copied big.bin \u2192 out/copy.bin.')
  assert.ok(fs.readFileSync(path.join(root, 'out/copy.bin')).equals(bytes), 'no maxFileBytes limit, exact bytes')
  assert.equal(fs.statSync(path.join(root, 'out/copy.bin')).mode & 0o777, modeAs(0o640))
  assert.ok(fs.existsSync(path.join(root, 'big.bin')))
  const o = await call('copy', { source: 'big.bin', destination: 'old.bin', overwrite: true })
  assert.equal(o.text, 'Copied big.bin \u2192 old.bin (overwritten).')
  assert.ok(fs.readFileSync(path.join(root, 'old.bin')).equals(bytes))
  assert.deepEqual(leftovers(root), [])
})

test('copy: an aborted copy writes nothing', async () => {
  const { call, root } = latest({ 'a.txt': 'x'.repeat(1000) })
  const ac = new AbortController()
  ac.abort()
  const r = await call('copy', { source: 'a.txt', destination: 'new/b.txt' }, ac.signal)
  assert.equal(envelope(r).error, 'aborted')
  assert.equal(fs.existsSync(path.join(root, 'new')), false)
})

test('mkdir: creates parents, idempotent, refuses files in the way', async () => {
  const { call, root } = latest({ 'f.txt': 'f' })
  assert.equal(slash((await call('mkdir', { path: 'a/b/c' })).text), 'Created directory a/b/c.')
  assert.ok(fs.statSync(path.join(root, 'a/b/c')).isDirectory())
  assert.equal(slash((await call('mkdir', { path: 'a/b/c' })).text), 'Directory already exists: a/b/c.')
  assert.deepEqual(envelope(await call('mkdir', { path: 'f.txt' })), {
    error: 'not_a_file',
    message: 'Path exists and is not a directory: f.txt',
    path: 'f.txt',
  })
  const under = envelope(await call('mkdir', { path: 'f.txt/sub' }))
  assert.deepEqual({ ...under, message: slash(under.message), path: slash(under.path) }, { error: 'not_a_file', message: 'Not a directory: f.txt/sub', path: 'f.txt/sub' })
  assert.equal(envelope(await call('mkdir', { path: '../escape' })).error, 'path_escape')
})

test('remove: deletes a file; refuses directories, symlinks and missing paths', async () => {
  const { call, root } = latest({ 'a.txt': 'a', 'd/x': '' })
  if (!noSymlinks) fs.symlinkSync('a.txt', path.join(root, 'ln'))
  assert.equal((await call('remove', { path: 'a.txt' })).text, 'Removed a.txt.')
  assert.equal(fs.existsSync(path.join(root, 'a.txt')), false)
  assert.deepEqual(envelope(await call('remove', { path: 'a.txt' })), { error: 'not_found', message: 'No such file: a.txt', path: 'a.txt' })
  assert.deepEqual(envelope(await call('remove', { path: 'd' })), { error: 'not_a_file', message: 'Path is a directory (files only): d', path: 'd' })
  if (!noSymlinks) {
    assert.equal(envelope(await call('remove', { path: 'ln' })).error, 'invalid_input')
    assert.ok(fs.lstatSync(path.join(root, 'ln')).isSymbolicLink(), 'the link is neither followed nor removed')
  }
  assert.deepEqual(leftovers(root), [])
})

test('the file tools are recorded by checkpoints', async () => {
  const { call, root, tools } = latest({ 'a.txt': 'a\n', 'b.txt': 'b\n' })
  const id = tools.checkpoint()
  await call('move', { source: 'a.txt', destination: 'moved/a.txt' })
  await call('copy', { source: 'b.txt', destination: 'c.txt' })
  await call('remove', { path: 'b.txt' })
  await call('mkdir', { path: 'made' })
  const changes = await tools.changes(id)
  assert.deepEqual(changes.map((c) => [slash(c.path), c.kind, c.from]), [
    ['a.txt', 'deleted', undefined],
    ['b.txt', 'deleted', undefined],
    ['c.txt', 'created', undefined],
    ['made', 'created', undefined],
    ['moved/a.txt', 'moved', 'a.txt'],
  ])
  const r = await tools.restore(id)
  assert.deepEqual(r.conflicts, [])
  assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'a\n')
  assert.equal(fs.readFileSync(path.join(root, 'b.txt'), 'utf8'), 'b\n')
  assert.equal(fs.existsSync(path.join(root, 'c.txt')), false)
  assert.equal(fs.existsSync(path.join(root, 'made')), false)
  assert.equal(fs.existsSync(path.join(root, 'moved/a.txt')), false)
})
