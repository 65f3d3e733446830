// Special files (a FIFO, a Unix socket, and a character device when the process may make
// one): every writer refuses them as its target or source with `not_a_file` `Not a regular
// file: <path>` and leaves them as they are; every read tool answers at once (a FIFO with no
// writer never blocks a call). Checkpoint restore and `undo` refuse them too.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { execFileSync } from 'node:child_process'
import { latest, envelope } from './helpers.mjs'
import { unixOnly } from './platform.mjs'

/** Makes the special files in `dir` and returns their names (and a closer for the socket). */
async function specials(dir) {
  const names = ['fifo']
  execFileSync('mkfifo', [path.join(dir, 'fifo')])
  const server = net.createServer()
  await new Promise((resolve) => server.listen(path.join(dir, 'sock'), resolve))
  server.unref()
  names.push('sock')
  try {
    // Root only: the same numbers as /dev/null.
    execFileSync('mknod', [path.join(dir, 'null'), 'c', '1', '3'], { stdio: 'ignore' })
    names.push('null')
  } catch {}
  return { names, close: () => server.close() }
}

const kind = (p) => {
  const s = fs.lstatSync(p)
  return s.isFIFO() ? 'fifo' : s.isSocket() ? 'socket' : s.isCharacterDevice() ? 'char' : s.isFile() ? 'file' : 'other'
}

/** Every writer, with `s` (a special file) as its target or source. */
function writes(s) {
  const git = (body) => ({ patch: body })
  const codex = (body) => ({ patch: `*** Begin Patch\n${body}\n*** End Patch` })
  return [
    ['write_file', { path: s, content: 'x\n' }],
    ['edit_file', { path: s, old_string: 'a', new_string: 'b' }],
    ['multi_edit', { path: s, edits: [{ old_string: 'a', new_string: 'b' }] }],
    ['apply_patch', git(`--- a/${s}\n+++ b/${s}\n@@ -1 +1 @@\n-a\n+b\n`)],
    ['apply_patch', git(`--- a/${s}\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n`)],
    ['apply_patch', git(`--- /dev/null\n+++ b/${s}\n@@ -0,0 +1 @@\n+a\n`)],
    ['apply_patch', git(`diff --git a/${s} b/moved\nrename from ${s}\nrename to moved\n`)],
    ['apply_patch', codex(`*** Add File: ${s}\n+a`)],
    ['apply_patch', codex(`*** Update File: ${s}\n@@\n-a\n+b`)],
    ['apply_patch', codex(`*** Delete File: ${s}`)],
    ['apply_patch', codex(`*** Update File: ${s}\n*** Move to: moved\n@@\n-a\n+b`)],
    ['replace', { pattern: 'a', replacement: 'b', path: s, dry_run: false }],
    ['replace', { pattern: 'a', replacement: 'b', path: s }],
    ['move', { source: s, destination: 'moved' }],
    ['move', { source: 'reg.txt', destination: s, overwrite: true }],
    ['copy', { source: s, destination: 'copied' }],
    ['copy', { source: 'reg.txt', destination: s, overwrite: true }],
    ['remove', { path: s }],
  ]
}

test('every writer refuses a FIFO, a socket and a device with not_a_file, and leaves it', { timeout: 60000, skip: unixOnly }, async () => {
  const { root, call } = latest({ 'reg.txt': 'a\n' })
  const { names, close } = await specials(root)
  let n = 0
  for (const s of names) {
    const was = kind(path.join(root, s))
    for (const [tool, args] of writes(s)) {
      const what = `${tool} ${JSON.stringify(args)}`
      const env = envelope(await call(tool, args))
      assert.deepEqual(env, { error: 'not_a_file', message: `Not a regular file: ${s}`, path: s }, what)
      assert.equal(kind(path.join(root, s)), was, `${what} changed the ${was}`)
      assert.equal(fs.readFileSync(path.join(root, 'reg.txt'), 'utf8'), 'a\n', what)
      assert.ok(!fs.existsSync(path.join(root, 'moved')) && !fs.existsSync(path.join(root, 'copied')), what)
      n++
    }
  }
  close()
  assert.ok(n >= 36, `${n} refusals`)
})

test('read tools answer at once on a FIFO with no writer, and on a socket or device', { timeout: 60000, skip: unixOnly }, async () => {
  const { root, call } = latest({ 'reg.txt': 'a\n', 'dir/x.txt': 'x\n' })
  const { names, close } = await specials(root)
  for (const s of names) {
    for (const [tool, args] of [
      ['read_file', { path: s }],
      ['diff', { from: s, to: 'reg.txt' }],
      ['diff', { from: 'reg.txt', to: s }],
      ['read_image', { path: s }],
    ]) {
      assert.deepEqual(envelope(await call(tool, args)), { error: 'not_a_file', message: `Not a regular file: ${s}`, path: s }, `${tool} ${JSON.stringify(args)}`)
    }
    const files = await call('read_files', { paths: [s, 'reg.txt'] })
    assert.ok(files.text.startsWith(`==> ${s} \u2014 not_a_file: Not a regular file: ${s} <==`), files.text)
    assert.ok(files.text.includes('==> reg.txt <==\n     1\ta'), files.text)
    assert.equal((await call('grep', { pattern: 'a', path: s })).text, '(no matches)')
    const stat = JSON.parse((await call('file_stat', { path: s })).text)
    assert.equal(stat.type, 'other')
  }
  // Walks meet regular files only.
  assert.equal((await call('grep', { pattern: 'a', output_mode: 'files_with_matches' })).text, 'reg.txt')
  assert.equal((await call('replace', { pattern: 'a', replacement: 'b', path: '.' })).text.split('\n')[0], '1 replacement(s) across 1 file(s); 2 scanned (dry run \u2014 pass dry_run: false to apply)')
  close()
})

test('checkpoint restore refuses a special file put where a file was; undo leaves it alone', { timeout: 60000, skip: unixOnly }, async () => {
  const { root, tools, call } = latest({ 'a.txt': 'a0\n', 'spare/.keep': '' }, { toolPolicy: { allow: ['write_file', 'undo'] } })
  const spare = path.join(root, 'spare')
  const { names, close } = await specials(spare)
  for (const s of names) {
    for (const target of ['a.txt', 'n.txt']) {
      const id = tools.checkpoint()
      const p = path.join(root, target)
      const existed = fs.existsSync(p)
      const keep = existed ? fs.readFileSync(p) : null
      await call('write_file', { path: target, content: 'changed\n' })
      fs.rmSync(p)
      fs.renameSync(path.join(spare, s), p)
      await assert.rejects(tools.restore(id, { force: true }), (e) => {
        assert.equal(e.code, 'not_a_file', e.message)
        assert.equal(e.message, `Restore refused; nothing was restored: Not a regular file: ${target}`)
        return true
      })
      // undo never forces: the special file is an outside change, reported and left alone.
      const undone = await call('undo', {})
      assert.equal(undone.isError, false, undone.text)
      assert.match(undone.text, new RegExp(`left alone: ${target.replace('.', '\\.')} \\(changed outside the tools`))
      assert.notEqual(kind(p), 'file', `${s} at ${target} was replaced`)
      fs.renameSync(p, path.join(spare, s))
      if (existed) fs.writeFileSync(p, keep)
      tools.dropCheckpoint(id)
    }
  }
  close()
})
