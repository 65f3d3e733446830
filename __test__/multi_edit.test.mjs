// multi_edit: sequential all-or-nothing edits, per-edit error prefixes and index, bytes on disk.
import test from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { workspace, envelope } from './helpers.mjs'
import { modeAs } from './platform.mjs'

const bytes = (root, rel) => fs.readFileSync(path.join(root, rel))
const strays = (dir) => fs.readdirSync(dir).filter((n) => n.startsWith('.clarvis-tmp-'))

test('edits apply in order, each on the previous result, preserving CRLF and BOM', async () => {
  const { root, call } = workspace({ 'f.txt': '\uFEFFalpha\r\nbeta\r\ngamma' })
  const r = await call('multi_edit', {
    path: 'f.txt',
    edits: [
      { old_string: 'alpha', new_string: 'ALPHA\nextra' },
      { old_string: 'ALPHA', new_string: 'A' },
      { old_string: 'a', new_string: '4', replace_all: true },
    ],
  })
  assert.deepEqual(r, { isError: false, text: 'Applied 3 edits to f.txt.' })
  assert.deepEqual(bytes(root, 'f.txt'), Buffer.from('\uFEFFA\r\nextr4\r\nbet4\r\ng4mm4'))
  assert.deepEqual(strays(root), [])
})

test('one edit: singular message; tolerant edits are counted in the suffix', async () => {
  const { root, call } = workspace({ 'p.py': 'def f():\n    return 1\n' })
  assert.equal((await call('multi_edit', { path: 'p.py', edits: [{ old_string: 'f()', new_string: 'g()' }] })).text,
    'Applied 1 edit to p.py.')
  const r = await call('multi_edit', {
    path: 'p.py',
    edits: [
      { old_string: 'def g():\n  return 1', new_string: 'def g():\n    return 2' },
      { old_string: 'g', new_string: 'h' },
    ],
  })
  assert.equal(r.text, 'Applied 2 edits to p.py. (1 matched after a whitespace-tolerant search; each such region — including its leading indentation — was replaced verbatim, so re-read to verify.) Matched by: edit[0] tier 2, per-line trimmed.')
  assert.equal(bytes(root, 'p.py').toString(), 'def h():\n    return 2\n')
})

test('a failing edit writes nothing and names its index', async () => {
  const { root, call } = workspace({ 'f.txt': 'one\ntwo\ntwo\n' })
  const before = bytes(root, 'f.txt')
  assert.deepEqual(envelope(await call('multi_edit', {
    path: 'f.txt',
    edits: [{ old_string: 'one', new_string: '1' }, { old_string: 'zzz', new_string: 'y' }],
  })), {
    error: 'no_match',
    message: 'edit[1]: old_string not found. It must match the file byte-for-byte (whitespace, indentation, and line breaks included) and must NOT include the line-number prefixes shown by read_file. Re-read the exact region and copy the text verbatim.',
    index: 1,
  })
  assert.deepEqual(envelope(await call('multi_edit', {
    path: 'f.txt',
    edits: [{ old_string: 'two', new_string: '2' }],
  })), {
    error: 'ambiguous_match',
    message: 'edit[0]: old_string matched 2 times (at lines 2, 3); it must be unique. Add surrounding lines to make the match unique, or pass replace_all: true to replace every occurrence.',
    index: 0,
  })
  assert.deepEqual(envelope(await call('multi_edit', {
    path: 'f.txt',
    edits: [{ old_string: 'one', new_string: '1' }, { old_string: '1', new_string: '1' }],
  })), { error: 'invalid_input', message: 'edit[1]: old_string and new_string are identical — nothing to change.', index: 1 })
  // An edit that only matches text an earlier edit removed fails too.
  const e = envelope(await call('multi_edit', {
    path: 'f.txt',
    edits: [{ old_string: 'one\n', new_string: '' }, { old_string: 'one', new_string: 'x' }],
  }))
  assert.deepEqual([e.error, e.index], ['no_match', 1])
  assert.deepEqual(bytes(root, 'f.txt'), before)
  assert.deepEqual(strays(root), [])
})

test('a tolerant ambiguity keeps its lines field and gains an index', async () => {
  const { call } = workspace({ 'f.txt': ' a\n b\n  a\n  b\n' })
  assert.deepEqual(envelope(await call('multi_edit', { path: 'f.txt', edits: [{ old_string: 'a\nb', new_string: 'c' }] })), {
    error: 'ambiguous_match',
    message: 'edit[0]: old_string was not found exactly; after whitespace-tolerant matching it matched 2 regions (at lines 1, 3); it must be unique. Add surrounding lines, or correct the whitespace so it matches one region exactly.',
    lines: [1, 3],
    index: 0,
  })
})

test('file-level errors are not prefixed and have no index', async () => {
  const { call } = workspace({ 'u16.txt': Buffer.from([0xff, 0xfe, 0x61, 0]) })
  const edits = [{ old_string: 'a', new_string: 'b' }]
  assert.deepEqual(envelope(await call('multi_edit', { path: 'missing.txt', edits })),
    { error: 'not_found', message: 'No such file: missing.txt', path: 'missing.txt' })
  assert.deepEqual(envelope(await call('multi_edit', { path: 'u16.txt', edits })), {
    error: 'is_binary',
    message: 'Editing utf16le files is not supported (the file would be rewritten as UTF-8): u16.txt',
    path: 'u16.txt',
    encoding: 'utf16le',
  })
})

test('schema: at least one edit, no extra keys', async () => {
  const { call } = workspace({ 'f.txt': 'a' })
  assert.deepEqual(envelope(await call('multi_edit', { path: 'f.txt', edits: [] })),
    { error: 'invalid_input', message: 'data/edits must NOT have fewer than 1 items' })
  assert.deepEqual(envelope(await call('multi_edit', { path: 'f.txt', edits: [{ old_string: 'a', new_string: 'b', x: 1 }] })),
    { error: 'invalid_input', message: 'data/edits/0 must NOT have additional properties' })
})

test('mode bits are preserved and an aborted call writes nothing', async () => {
  const { root, call } = workspace({ 'run.sh': 'echo a\n' })
  fs.chmodSync(path.join(root, 'run.sh'), 0o750)
  await call('multi_edit', { path: 'run.sh', edits: [{ old_string: 'a', new_string: 'b' }] })
  assert.equal(fs.statSync(path.join(root, 'run.sh')).mode & 0o7777, modeAs(0o750))
  const ac = new AbortController()
  ac.abort()
  const e = envelope(await call('multi_edit', { path: 'run.sh', edits: [{ old_string: 'b', new_string: 'c' }] }, ac.signal))
  assert.equal(e.error, 'aborted')
  assert.equal(bytes(root, 'run.sh').toString(), 'echo b\n')
})

test('drift is handled per edit, and the suffix says which tier matched each edit and what was adjusted', async () => {
  const { root, call } = workspace({ 'd.rs': 'fn main() {\n    let a = "x";\n    if a.is_empty() {\n        return;\n    }\n}\n' })
  const r = await call('multi_edit', {
    path: 'd.rs',
    edits: [
      { old_string: 'fn main() {', new_string: 'fn main() -> () {' },
      { old_string: 'if a.is_empty() {\n    return;\n}', new_string: 'if a.is_empty() {\n    eprintln!("empty");\n    return;\n}' },
      { old_string: 'let a = \u201Cx\u201D;', new_string: 'let a = \u201Cy\u201D;' },
    ],
  })
  assert.equal(r.text, "Applied 3 edits to d.rs. (2 matched after a whitespace-tolerant search — edit[1] tier 1, indentation-flexible: re-indented new_string to the file's indentation (shifted right by 4 spaces), kept 3 lines new_string did not change exactly as in the file; edit[2] tier 5, typographic: curly quotes, dashes, non-breaking spaces and ellipses read as their ASCII forms: re-indented new_string to the file's indentation (shifted right by 4 spaces), kept the file's own characters in the unchanged parts of 1 changed line.)")
  assert.equal(bytes(root, 'd.rs').toString(), 'fn main() -> () {\n    let a = "y";\n    if a.is_empty() {\n        eprintln!("empty");\n        return;\n    }\n}\n')
})
