// apply_patch through the public API: bytes and modes on disk, every error with its fields,
// all-or-nothing commits (a failing last hunk, an injected commit failure), aborts,
// confinement and symlinks. Scenario fixtures live in apply_patch_fixtures.test.mjs.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { workspace, envelope, scratch } from './helpers.mjs'
import { modeAs, native, noSymlinks } from './platform.mjs'

// This suite injects faults through `__testHooks`, which only work with this variable set.
process.env.CLARVIS_AGENT_TOOLS_TEST_HOOKS = '1'

const mode = (p) => fs.statSync(p).mode & 0o777
const read = (root, rel) => fs.readFileSync(path.join(root, rel))

/** Every path under `root` (files and directories), for "nothing changed" checks. */
function listing(root) {
  const out = []
  const walk = (dir, rel) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name
      out.push(e.isDirectory() ? `${r}/` : r)
      if (e.isDirectory()) walk(path.join(dir, e.name), r)
    }
  }
  walk(root, '')
  return out.sort()
}

test('apply_patch is listed with a schema that requires patch', () => {
  const { tools } = workspace()
  const def = tools.listTools().find((t) => t.name === 'apply_patch')
  assert.deepEqual(def.inputSchema.required, ['patch'])
  assert.match(def.description, /patch_failed/)
})

test('a modify keeps the permission bits; a rename keeps them too, with or without edits', async () => {
  const { root, call } = workspace({ 'run.sh': '#!/bin/sh\necho 1\n', 'tool.sh': 'a\nb\n', 'edit.sh': 'x\n' })
  fs.chmodSync(path.join(root, 'run.sh'), 0o750)
  fs.chmodSync(path.join(root, 'tool.sh'), 0o705)
  fs.chmodSync(path.join(root, 'edit.sh'), 0o711)
  const patch = [
    '--- a/run.sh', '+++ b/run.sh', '@@ -2 +2 @@', '-echo 1', '+echo 2',
    'diff --git a/tool.sh b/bin/tool.sh', 'similarity index 100%', 'rename from tool.sh', 'rename to bin/tool.sh',
    '--- a/edit.sh', '+++ b/edited.sh', '@@ -1 +1 @@', '-x', '+y', '',
  ].join('\n')
  const r = await call('apply_patch', { patch })
  assert.equal(r.text, `Applied patch:\n  M run.sh (+1 -1)\n  R tool.sh -> ${native('bin/tool.sh')}\n  R edit.sh -> edited.sh (+1 -1)`)
  assert.equal(read(root, 'run.sh').toString(), '#!/bin/sh\necho 2\n')
  assert.equal(mode(path.join(root, 'run.sh')), modeAs(0o750))
  assert.equal(mode(path.join(root, 'bin/tool.sh')), modeAs(0o705))
  assert.equal(read(root, 'edited.sh').toString(), 'y\n')
  assert.equal(mode(path.join(root, 'edited.sh')), modeAs(0o711))
  assert.deepEqual(listing(root), ['bin/', 'bin/tool.sh', 'edited.sh', 'run.sh'])
})

test('line endings: CRLF, lone CR and a bare last line are kept; created files get LF', async () => {
  const { root, call } = workspace({ 'crlf.txt': 'a\r\nb\r\n', 'cr.txt': 'a\rb\r', 'bare.txt': 'a\nb' })
  const patch = [
    '--- a/crlf.txt', '+++ b/crlf.txt', '@@ -1,2 +1,3 @@', ' a', '+new', ' b',
    '--- a/cr.txt', '+++ b/cr.txt', '@@ -2 +2 @@', '-b', '+B',
    '--- a/bare.txt', '+++ b/bare.txt', '@@ -1,2 +1,2 @@', '-a', '+A', ' b',
    '--- /dev/null', '+++ b/made.txt', '@@ -0,0 +1,2 @@', '+x', '+y', '',
  ].join('\r\n')
  const r = await call('apply_patch', { patch })
  assert.equal(r.isError, false, r.text)
  assert.equal(read(root, 'crlf.txt').toString(), 'a\r\nnew\r\nb\r\n')
  assert.equal(read(root, 'cr.txt').toString(), 'a\rB\r')
  assert.equal(read(root, 'bare.txt').toString(), 'A\nb')
  assert.equal(read(root, 'made.txt').toString(), 'x\ny\n')
})

test('a failing hunk in the LAST file leaves every earlier file, and the tree, as it was', async () => {
  const { root, call } = workspace({ 'a.txt': 'a\n', 'b.txt': 'b\n', 'z.txt': 'z\n' })
  const before = listing(root)
  const patch = [
    '--- a/a.txt', '+++ b/a.txt', '@@ -1 +1 @@', '-a', '+A',
    '--- /dev/null', '+++ b/fresh/nested/n.txt', '@@ -0,0 +1 @@', '+n',
    'diff --git a/b.txt b/moved/b.txt', 'rename from b.txt', 'rename to moved/b.txt',
    '--- a/z.txt', '+++ b/z.txt', '@@ -1 +1 @@', '-not z', '+Z', '',
  ].join('\n')
  const e = envelope(await call('apply_patch', { patch }))
  assert.deepEqual(e, { error: 'patch_failed', message: 'Hunk did not apply cleanly in z.txt', file: 'z.txt', hunk: 1 })
  assert.deepEqual(listing(root), before)
  assert.equal(read(root, 'a.txt').toString(), 'a\n')
})

test('an injected commit failure between two renames leaves every file as it was', async () => {
  const { root, call } = workspace({ 'one.txt': '1\n', 'two.txt': '2\n', 'keep.txt': 'k\n' }, { __testHooks: { failCommitAfter: 1 } })
  fs.chmodSync(path.join(root, 'one.txt'), 0o741)
  const before = listing(root)
  const patch = [
    'diff --git a/one.txt b/dir/uno.txt', 'rename from one.txt', 'rename to dir/uno.txt',
    'diff --git a/two.txt b/dos.txt', 'rename from two.txt', 'rename to dos.txt', '',
  ].join('\n')
  const e = envelope(await call('apply_patch', { patch }))
  assert.equal(e.error, 'io_error')
  assert.match(e.message, /^Failed to apply patch: /)
  assert.doesNotMatch(e.message, /rollback could not restore/)
  assert.deepEqual(listing(root), before)
  assert.equal(read(root, 'one.txt').toString(), '1\n')
  assert.equal(mode(path.join(root, 'one.txt')), modeAs(0o741))
})

test('the same patch without the hook commits both renames', async () => {
  const { root, call } = workspace({ 'one.txt': '1\n', 'two.txt': '2\n' })
  const patch = 'diff --git a/one.txt b/dir/uno.txt\nrename from one.txt\nrename to dir/uno.txt\ndiff --git a/two.txt b/dos.txt\nrename from two.txt\nrename to dos.txt\n'
  const r = await call('apply_patch', { patch })
  assert.equal(r.text, `Applied patch:\n  R one.txt -> ${native('dir/uno.txt')}\n  R two.txt -> dos.txt`)
  assert.deepEqual(listing(root), ['dir/', 'dir/uno.txt', 'dos.txt'])
})

test('an aborted call writes nothing', async () => {
  const { root, call } = workspace({ 'a.txt': 'a\n' })
  const ac = new AbortController()
  ac.abort()
  const e = envelope(await call('apply_patch', { patch: '--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+b\n' }, ac.signal))
  assert.equal(e.error, 'aborted')
  assert.equal(read(root, 'a.txt').toString(), 'a\n')
})

test('confinement: a symlinked directory pointing outside is an escape; an absolute path too', { skip: noSymlinks }, async () => {
  const outside = scratch('outside-')
  fs.writeFileSync(path.join(outside, 'secret.txt'), 's\n')
  const { root, call } = workspace({ 'a.txt': 'a\n' })
  fs.symlinkSync(outside, path.join(root, 'link'))
  let e = envelope(await call('apply_patch', { patch: '--- a/link/secret.txt\n+++ b/link/secret.txt\n@@ -1 +1 @@\n-s\n+pwned\n' }))
  assert.deepEqual(e, {
    error: 'path_escape',
    message: 'Path escapes the workspace root: link/secret.txt (set ALLOW_OUTSIDE_WORKSPACE=1 to permit)',
    path: 'link/secret.txt',
  })
  const abs = path.join(outside, 'new.txt')
  e = envelope(await call('apply_patch', { patch: `--- /dev/null\n+++ ${abs}\n@@ -0,0 +1 @@\n+x\n` }))
  assert.equal(e.error, 'path_escape')
  assert.equal(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8'), 's\n')
  assert.equal(fs.existsSync(abs), false)
})

test('writing through a symlink is refused with the absolute path', { skip: noSymlinks }, async () => {
  const { root, call } = workspace({ 'real.txt': 'r\n' })
  fs.symlinkSync('real.txt', path.join(root, 'alias.txt'))
  const e = envelope(await call('apply_patch', { patch: '--- a/alias.txt\n+++ b/alias.txt\n@@ -1 +1 @@\n-r\n+R\n' }))
  const abs = path.join(root, 'alias.txt')
  assert.deepEqual(e, { error: 'invalid_input', message: `Refusing to write through a symlink: ${abs}`, path: abs })
  assert.equal(read(root, 'real.txt').toString(), 'r\n')
})

test('too_large and invalid UTF-8 are refused before any change', async () => {
  const { root, call } = workspace({ 'big.txt': 'x'.repeat(2000) + '\n', 'latin1.txt': Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]) }, { maxFileBytes: 1024 })
  let e = envelope(await call('apply_patch', { patch: '--- a/big.txt\n+++ b/big.txt\n@@ -1 +1 @@\n-x\n+y\n' }))
  assert.deepEqual(e, {
    error: 'too_large',
    message: 'File is 2001 bytes, exceeding the 1024-byte limit (raise MAX_FILE_BYTES): big.txt',
    path: 'big.txt',
    size: 2001,
    limit: 1024,
  })
  e = envelope(await call('apply_patch', { patch: '--- a/latin1.txt\n+++ b/latin1.txt\n@@ -1 +1 @@\n-caf\n+cafe\n' }))
  assert.equal(e.error, 'is_binary')
  assert.equal(e.encoding, 'unknown')
  assert.equal(e.path, 'latin1.txt')
  assert.deepEqual([...read(root, 'latin1.txt')], [0x63, 0x61, 0x66, 0xe9, 0x0a])
})

test('blocks are checked in order: the first failing block decides the error', async () => {
  const { call } = workspace({ 'a.txt': 'a\n' })
  const patch = '--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-zzz\n+b\n--- a/missing.txt\n+++ b/missing.txt\n@@ -1 +1 @@\n-a\n+b\n'
  assert.equal(envelope(await call('apply_patch', { patch })).error, 'patch_failed')
  const swapped = '--- a/missing.txt\n+++ b/missing.txt\n@@ -1 +1 @@\n-a\n+b\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-zzz\n+b\n'
  assert.equal(envelope(await call('apply_patch', { patch: swapped })).error, 'not_found')
})

test('a rename onto a file that is the same file is a plain modify', async () => {
  const { root, call } = workspace({ 'dir/f.txt': 'f\n' })
  const r = await call('apply_patch', { patch: '--- a/dir/../dir/f.txt\n+++ b/dir/f.txt\n@@ -1 +1 @@\n-f\n+F\n' })
  assert.equal(r.text, `Applied patch:\n  M ${native('dir/f.txt')} (+1 -1)`)
  assert.equal(read(root, 'dir/f.txt').toString(), 'F\n')
})

test('concurrent patches to one file both land (path locks)', async () => {
  const lines = Array.from({ length: 40 }, (_, i) => `line ${i}`)
  const { root, call } = workspace({ 'c.txt': lines.join('\n') + '\n' })
  const patches = lines.map((l, i) => `--- a/c.txt\n+++ b/c.txt\n@@ -${i + 1} +${i + 1} @@\n-${l}\n+${l} changed\n`)
  const results = await Promise.all(patches.map((patch) => call('apply_patch', { patch })))
  assert.ok(results.every((r) => !r.isError), results.find((r) => r.isError)?.text)
  assert.equal(read(root, 'c.txt').toString(), lines.map((l) => `${l} changed`).join('\n') + '\n')
})

test('the *** Begin Patch format creates, edits with an anchor, and refuses a truncated patch', async () => {
  const { root, call } = workspace({ 'm.py': 'def a():\n    return 0\n\ndef b():\n    return 0\n' })
  const r = await call('apply_patch', {
    patch: '*** Begin Patch\n*** Update File: m.py\n@@ def b():\n-    return 0\n+    return 1\n*** Add File: pkg/__init__.py\n+x = 1\n*** End Patch',
  })
  assert.equal(r.text, `Applied patch:\n  M m.py (+1 -1)\n  A ${native('pkg/__init__.py')} (+1 -0)`)
  assert.equal(read(root, 'm.py').toString(), 'def a():\n    return 0\n\ndef b():\n    return 1\n')
  assert.equal(read(root, 'pkg/__init__.py').toString(), 'x = 1\n')
  const e = envelope(await call('apply_patch', { patch: '*** Begin Patch\n*** Add File: t.txt\n+x\n' }))
  assert.deepEqual(e, { error: 'invalid_input', message: 'Malformed patch: the patch does not end with "*** End Patch"' })
  assert.equal(fs.existsSync(path.join(root, 't.txt')), false)
})

test('schema: patch must be a string', async () => {
  const { call } = workspace()
  assert.deepEqual(envelope(await call('apply_patch', {})), { error: 'invalid_input', message: "data must have required property 'patch'" })
})

test('drop-in messages: a lone --- header is malformed; /dev/null on both sides without hunks applies nothing', async () => {
  const { call } = workspace({ 'f': 'x\n' })
  for (const patch of ['--- a/f', '--- a/f\n', '--- a/f\ntext\n']) {
    const e = JSON.parse((await call('apply_patch', { patch })).text)
    assert.equal(e.error, 'invalid_input')
    assert.match(e.message, /^Malformed patch/, patch)
  }
  assert.deepEqual(JSON.parse((await call('apply_patch', { patch: '--- /dev/null\n+++ /dev/null\n' })).text), {
    error: 'invalid_input',
    message: 'Patch contains no applicable hunks',
  })
})
