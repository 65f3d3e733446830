// Windows paths and files (issue 34; SPEC §9, Platforms): names Win32 reinterprets (streams,
// trailing dots and spaces, devices, forbidden characters), drive letters, drive-relative,
// UNC, `\\?\` and `\\.\` paths, junctions, case-insensitive names, a file another handle holds
// open, what bash says without Git for Windows' sh, and the search index being off. The
// behaviours that are the same everywhere (display paths, line endings of new files, editing
// a file someone holds open) run on every platform; the rest say why they skip.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { createAgentTools } from '../index.mjs'
import { latest, envelope, scratch } from './helpers.mjs'
import { noJunctions, noSh, wine, windows } from './platform.mjs'

const winOnly = !windows && 'Windows path rules (elsewhere these are ordinary names)'
const escape = (input) => ({
  error: 'path_escape',
  message: `Path escapes the workspace root: ${input} (set ALLOW_OUTSIDE_WORKSPACE=1 to permit)`,
  path: input,
})
const text = (r) => (r.content ? r.content.map((p) => p.text).join('') : r.text)

test('display paths are what path.relative gives (sub\\b.txt on Windows, as the original)', async () => {
  const { call, root } = latest({ 'sub/deep/x.ts': 'needle\n' })
  const shown = (rel) => path.relative(root, path.join(root, rel))
  assert.equal(text(await call('write_file', { path: 'sub/b.txt', content: 'b' })), `Wrote 1 bytes to ${shown('sub/b.txt')} (created).`)
  assert.equal(text(await call('glob', { pattern: '**/*.ts' })), shown('sub/deep/x.ts'))
  assert.equal(text(await call('grep', { pattern: 'needle' })), shown('sub/deep/x.ts'))
  // An absolute path inside the root is shown relative too, whatever case its drive is in.
  const abs = windows ? path.join(root, 'sub', 'c.txt').replace(/^[a-z]:/i, (d) => d.toLowerCase()) : path.join(root, 'sub', 'c.txt')
  assert.equal(text(await call('write_file', { path: abs, content: 'c' })), `Wrote 1 bytes to ${shown('sub/c.txt')} (created).`)
})

test('new files get the content as given: no platform line endings are added', async () => {
  const { call, root } = latest({ 'crlf.txt': 'a\r\nb\r\n' })
  await call('write_file', { path: 'new.txt', content: 'one\ntwo\n' })
  assert.deepEqual(fs.readFileSync(path.join(root, 'new.txt')), Buffer.from('one\ntwo\n'))
  // write_file is verbatim over an existing file too; edits keep the file's own endings.
  await call('edit_file', { path: 'crlf.txt', old_string: 'b', new_string: 'b\nc' })
  assert.deepEqual(fs.readFileSync(path.join(root, 'crlf.txt')), Buffer.from('a\r\nb\r\nc\r\n'))
})

test('a file another handle holds open is edited (Windows: once the hold ends, or with POSIX rename)', async () => {
  const { call, root } = latest({ 'held.txt': 'one\n', 'brief.txt': 'one\n' })
  // A hold that ends while the call waits: editors, indexers and scanners hold files briefly.
  const brief = fs.openSync(path.join(root, 'brief.txt'), 'r')
  setTimeout(() => fs.closeSync(brief), 100)
  const r = await call('edit_file', { path: 'brief.txt', old_string: 'one', new_string: 'two' })
  assert.equal(r.isError, false, text(r))
  assert.equal(fs.readFileSync(path.join(root, 'brief.txt'), 'utf8'), 'two\n')
  // A hold for the whole call: Node opens with FILE_SHARE_DELETE, so Windows 10+ replaces the
  // file (std's POSIX-semantics rename); Wine does not, and the error says what is wrong.
  const fd = fs.openSync(path.join(root, 'held.txt'), 'r')
  try {
    const held = await call('edit_file', { path: 'held.txt', old_string: 'one', new_string: 'two' })
    if (wine) {
      const e = envelope(held)
      assert.equal(e.error, 'io_error')
      assert.match(e.message, /^EACCES: the file is open in another program, and Windows does not let it be replaced or moved while it is \(retried for 2\.3 s\); close it there and try again$/)
      assert.equal(e.path, 'held.txt')
      assert.equal(fs.readFileSync(path.join(root, 'held.txt'), 'utf8'), 'one\n', 'the file is as it was')
    } else {
      assert.equal(held.isError, false, text(held))
      assert.equal(fs.readFileSync(path.join(root, 'held.txt'), 'utf8'), 'two\n')
    }
  } finally {
    fs.closeSync(fd)
  }
  assert.deepEqual(fs.readdirSync(root).filter((n) => n.startsWith('.clarvis-tmp-')), [], 'no temp file is left')
})

test('off Windows, colons, trailing dots and device names are ordinary file names', { skip: windows && 'Windows refuses these names' }, async () => {
  const { call, root } = latest()
  for (const name of ['a.txt:secret', 'dot.txt.', 'aux.txt', 'CON']) {
    const r = await call('write_file', { path: name, content: 'x' })
    assert.equal(r.isError, false, text(r))
    assert.equal(fs.readFileSync(path.join(root, name), 'utf8'), 'x', name)
  }
})

/** Every refusal of a name: invalid_input naming the part, nothing created or changed. */
async function refusesName(call, root, tool, args, input, name, why) {
  const before = fs.readdirSync(root).sort()
  const e = envelope(await call(tool, args))
  assert.equal(e.error, 'invalid_input', `${tool} ${input}: ${JSON.stringify(e)}`)
  assert.equal(e.path, input)
  assert.equal(e.name, name)
  assert.match(e.message, why)
  assert.ok(e.message.endsWith(`: ${input}`), e.message)
  assert.deepEqual(fs.readdirSync(root).sort(), before, `${tool} ${input} changed the directory`)
}

test('alternate data streams are refused: a colon in a name is not a file on Windows', { skip: winOnly }, async () => {
  const { call, root } = latest({ 'a.txt': 'visible\n' })
  const stream = /the colon in "a\.txt:secret" selects an alternate data stream/
  await refusesName(call, root, 'write_file', { path: 'a.txt:secret', content: 'payload' }, 'a.txt:secret', 'a.txt:secret', stream)
  await refusesName(call, root, 'read_file', { path: 'a.txt:secret' }, 'a.txt:secret', 'a.txt:secret', stream)
  await refusesName(call, root, 'edit_file', { path: 'a.txt::$DATA', old_string: 'visible', new_string: 'x' }, 'a.txt::$DATA', 'a.txt::$DATA', /alternate data stream/)
  await refusesName(call, root, 'apply_patch', { patch: '--- /dev/null\n+++ b/a.txt:s\n@@ -0,0 +1 @@\n+x\n' }, 'a.txt:s', 'a.txt:s', /alternate data stream/)
  await refusesName(call, root, 'copy', { source: 'a.txt', destination: 'b.txt:s' }, 'b.txt:s', 'b.txt:s', /alternate data stream/)
  assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'visible\n')
})

test('trailing dots and spaces are refused: Windows would drop them and write another file', { skip: winOnly }, async () => {
  const { call, root } = latest()
  await refusesName(call, root, 'write_file', { path: 'dot.txt.', content: 'x' }, 'dot.txt.', 'dot.txt.', /"dot\.txt\." ends in a dot or a space, which Windows drops: it would be "dot\.txt"/)
  await refusesName(call, root, 'write_file', { path: 'space.txt ', content: 'x' }, 'space.txt ', 'space.txt ', /it would be "space\.txt"/)
  await refusesName(call, root, 'write_file', { path: 'dir./x.txt', content: 'x' }, 'dir./x.txt', 'dir.', /it would be "dir"/)
  await refusesName(call, root, 'mkdir', { path: 'made. ' }, 'made. ', 'made. ', /ends in a dot or a space/)
  assert.deepEqual(fs.readdirSync(root), [])
})

test('reserved device names are refused, with or without an extension, in any case', { skip: winOnly }, async () => {
  const { call, root } = latest()
  for (const [input, name, dev] of [
    ['CON', 'CON', 'CON'], ['nul', 'nul', 'NUL'], ['aux.txt', 'aux.txt', 'AUX'], ['COM1.log', 'COM1.log', 'COM1'],
    ['sub/nul.tar.gz', 'nul.tar.gz', 'NUL'], ['lpt9', 'lpt9', 'LPT9'], ['prn.md', 'prn.md', 'PRN'], ['conin$', 'conin$', 'CONIN$'],
  ]) {
    await refusesName(call, root, 'write_file', { path: input, content: 'x' }, input, name, new RegExp(`is the reserved Windows device name ${dev.replace('$', '\\$')}`))
  }
  // Reading one would open the console or a serial port: refused before any open.
  await refusesName(call, root, 'read_file', { path: 'CON' }, 'CON', 'CON', /device name CON/)
  await refusesName(call, root, 'list_dir', { path: 'com2' }, 'com2', 'com2', /device name COM2/)
  // Names that only start like a device are fine.
  for (const ok of ['console.log', 'auxiliary.txt', 'nullable.rs', 'com10']) {
    assert.equal((await call('write_file', { path: ok, content: 'x' })).isError, false, ok)
  }
})

test('characters Windows forbids in names are refused by name', { skip: winOnly }, async () => {
  const { call, root } = latest()
  for (const [input, ch] of [['a<b.txt', '<'], ['what?.txt', '?'], ['star*.rs', '*'], ['pipe|x', '|'], ['q"uote', '"']]) {
    await refusesName(call, root, 'write_file', { path: input, content: 'x' }, input, input, new RegExp(`'\\${ch}' in "`))
  }
})

test('drive letters: the root in any case is inside; other folders and drives are escapes', { skip: winOnly }, async () => {
  const { call, root } = latest({ 'f.txt': 'inside\n' })
  const upper = root.toUpperCase()
  assert.equal(text(await call('read_file', { path: path.join(upper, 'f.txt') })), '     1\tinside')
  const drive = root.slice(0, 2)
  for (const p of [`${drive}\\windows\\win.ini`, `${drive}/windows/win.ini`, path.join(root, '..', 'other.txt'), 'Q:\\x.txt', '\\windows\\win.ini']) {
    assert.deepEqual(envelope(await call('read_file', { path: p })), escape(p), p)
  }
  assert.deepEqual(envelope(await call('write_file', { path: 'Q:\\x.txt', content: 'x' })), escape('Q:\\x.txt'))
})

test('drive-relative paths (C:x) are escapes: they follow a current directory the tools cannot see', { skip: winOnly }, async () => {
  const { call, root } = latest({ 'f.txt': 'inside\n' })
  const drive = root.slice(0, 2)
  for (const p of [`${drive}f.txt`, `${drive}windows\\win.ini`, `${drive}..\\x`, 'Q:x']) {
    assert.deepEqual(envelope(await call('read_file', { path: p })), escape(p), p)
    assert.deepEqual(envelope(await call('write_file', { path: p, content: 'x' })), escape(p), p)
  }
  assert.deepEqual(fs.readdirSync(root), ['f.txt'])
})

test('UNC, device and verbatim paths: only the root\'s own volume, never another server', { skip: winOnly }, async () => {
  const { call, root } = latest({ 'f.txt': 'inside\n' })
  const rest = root.slice(3) // without `C:\`
  const drive = root[0]
  for (const p of [
    `\\\\localhost\\${drive.toLowerCase()}$\\${rest}\\f.txt`,
    '\\\\evil.invalid\\share\\x.txt',
    '//evil.invalid/share/x.txt',
    '\\\\?\\UNC\\evil.invalid\\share\\x.txt',
    `\\\\.\\${root}\\f.txt`,
    '\\\\.\\PhysicalDrive0',
    '\\\\?\\GLOBALROOT\\Device\\HarddiskVolume1\\x',
  ]) {
    assert.deepEqual(envelope(await call('read_file', { path: p })), escape(p), p)
  }
  // `\\?\` + the root is the root itself (Win32 only skips its normalisation).
  assert.equal(text(await call('read_file', { path: `\\\\?\\${root}\\f.txt` })), '     1\tinside')
})

test('junctions: one pointing out is an escape, one pointing in is fine', { skip: winOnly || noJunctions }, async () => {
  const outside = scratch('cat-outside-')
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'SECRET\n')
  const { call, root } = latest({ 'in/a.txt': 'a\n' })
  fs.symlinkSync(outside, path.join(root, 'out-j'), 'junction')
  fs.symlinkSync(path.join(root, 'in'), path.join(root, 'in-j'), 'junction')
  for (const [tool, args, p] of [
    ['read_file', { path: 'out-j\\secret.txt' }, 'out-j\\secret.txt'],
    ['list_dir', { path: 'out-j' }, 'out-j'],
    ['write_file', { path: 'out-j\\new.txt', content: 'x' }, 'out-j\\new.txt'],
    ['bash', { command: 'true', cwd: 'out-j' }, 'out-j'],
  ]) {
    assert.deepEqual(envelope(await call(tool, args)), escape(p), `${tool} ${p}`)
  }
  assert.equal(fs.existsSync(path.join(outside, 'new.txt')), false)
  assert.ok(!text(await call('grep', { pattern: 'SECRET' })).includes('SECRET'), 'a walk never enters a junction out')
  assert.equal(text(await call('read_file', { path: 'in-j\\a.txt' })), '     1\ta')
})

test('names are case-insensitive: one file, one lock, whatever the case', { skip: winOnly }, async () => {
  const { call, root } = latest({ 'Readme.md': 'one\n' })
  const r = await call('edit_file', { path: 'README.MD', old_string: 'one', new_string: 'two' })
  assert.equal(r.isError, false, text(r))
  assert.deepEqual(fs.readdirSync(root), ['Readme.md'], 'the file keeps its name')
  assert.equal(fs.readFileSync(path.join(root, 'Readme.md'), 'utf8'), 'two\n')
  // Concurrent edits through different spellings serialise on one lock: none is lost.
  const lines = Array.from({ length: 12 }, (_, i) => `line ${i}`)
  fs.writeFileSync(path.join(root, 'many.txt'), lines.join('\n') + '\n')
  const spellings = ['many.txt', 'MANY.TXT', 'Many.Txt']
  const results = await Promise.all(lines.map((l, i) => call('edit_file', { path: spellings[i % 3], old_string: `${l}\n`, new_string: `${l} done\n` })))
  assert.ok(results.every((x) => !x.isError), results.map(text).join('\n'))
  assert.equal(fs.readFileSync(path.join(root, 'many.txt'), 'utf8'), lines.map((l) => `${l} done`).join('\n') + '\n')
})

test('the search index is off on Windows, whatever searchIndex says; grep scans', { skip: !windows && 'the index runs on Unix' }, async () => {
  const root = scratch()
  fs.writeFileSync(path.join(root, 'a.ts'), 'const Needle = 1\n')
  const tools = createAgentTools({ workspaceRoot: root, searchIndex: 'on' })
  assert.equal(tools.searchIndexStatus().state, 'off')
  assert.equal(text(await tools.callTool('grep', { pattern: 'Needle' })), 'a.ts')
  assert.equal(tools.searchIndexStatus().state, 'off')
  assert.equal(fs.existsSync(path.join(root, '.clarvis', 'index')), false)
})

test('without sh, bash and monitor_start say Git for Windows is needed and how to get it', { skip: !noSh && 'a shell is available here' }, async () => {
  const { call, root } = latest()
  const e = envelope(await call('bash', { command: 'echo hi' }))
  assert.equal(e.error, 'io_error')
  assert.match(e.message, /^Failed to spawn command: no sh\.exe found: bash and monitors run commands with a POSIX sh, which Windows gets from Git for Windows/)
  assert.match(e.message, /winget install --id Git\.Git -e/)
  assert.match(e.message, /C:\\Program Files\\Git\\bin\) to PATH$/)
  const m = envelope(await call('monitor_start', { command: 'echo hi' }))
  assert.equal(m.error, 'io_error')
  assert.match(m.message, /^Failed to spawn monitor: ENOENT: no sh\.exe found: .*Git for Windows/)
  const files = fs.existsSync(path.join(root, '.clarvis')) ? fs.readdirSync(path.join(root, '.clarvis')) : []
  assert.deepEqual(files.filter((n) => n.startsWith('monitor-')), [], 'a monitor that cannot start leaves nothing')
})
