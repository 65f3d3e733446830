// edit_file: exact bytes on disk after each edit (line endings, BOM, modes), every error
// code with its fields, the tolerant cascade, and concurrent edits of one file.
import test from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { workspace, envelope } from './helpers.mjs'
import { modeAs, noSymlinks } from './platform.mjs'

const bytes = (root, rel) => fs.readFileSync(path.join(root, rel))
const strays = (dir) => fs.readdirSync(dir, { recursive: true }).filter((n) => path.basename(String(n)).startsWith('.clarvis-tmp-'))
const NO_MATCH = 'old_string not found. It must match the file byte-for-byte (whitespace, indentation, and line breaks included) and must NOT include the line-number prefixes shown by read_file. Re-read the exact region and copy the text verbatim.'
const TOLERANT = ' (matched after a whitespace-tolerant search; the matched region — including its leading indentation — was replaced by new_string verbatim, so re-read the file to verify the indentation is correct).'

test('CRLF file: untouched lines keep CRLF, new lines get CRLF', async () => {
  const { root, call } = workspace({ 'w.txt': 'one\r\ntwo\r\nthree\r\n' })
  const r = await call('edit_file', { path: 'w.txt', old_string: 'two\n', new_string: 'TWO\nand a half\n' })
  assert.deepEqual(r, { isError: false, text: 'Replaced 1 occurrence in w.txt.' })
  assert.deepEqual(bytes(root, 'w.txt'), Buffer.from('one\r\nTWO\r\nand a half\r\nthree\r\n'))
  assert.deepEqual(strays(root), [])
})

test('lone CR file stays CR', async () => {
  const { root, call } = workspace({ 'mac.txt': 'a\rb\rc\r' })
  await call('edit_file', { path: 'mac.txt', old_string: 'b', new_string: 'B\nB2' })
  assert.deepEqual(bytes(root, 'mac.txt'), Buffer.from('a\rB\rB2\rc\r'))
})

test('mixed endings: each untouched line keeps its own, changed lines get the dominant one', async () => {
  const { root, call } = workspace({ 'm.txt': 'a\r\nb\nc\r\nd\re\r\n' })
  await call('edit_file', { path: 'm.txt', old_string: 'c', new_string: 'C' })
  assert.deepEqual(bytes(root, 'm.txt'), Buffer.from('a\r\nb\nC\r\nd\re\r\n'))
  await call('edit_file', { path: 'm.txt', old_string: 'b\n', new_string: 'b\nnew\n' })
  assert.deepEqual(bytes(root, 'm.txt'), Buffer.from('a\r\nb\nnew\r\nC\r\nd\re\r\n'))
})

test('BOM is kept and a last line without newline stays without one', async () => {
  const { root, call } = workspace({ 'b.txt': '\uFEFFfirst\nlast' })
  await call('edit_file', { path: 'b.txt', old_string: 'last', new_string: 'LAST' })
  assert.deepEqual(bytes(root, 'b.txt'), Buffer.from('\uFEFFfirst\nLAST'))
  await call('edit_file', { path: 'b.txt', old_string: 'first', new_string: 'FIRST' })
  assert.deepEqual(bytes(root, 'b.txt'), Buffer.from('\uFEFFFIRST\nLAST'))
})

test('mode bits survive the edit and no temp file is left', async () => {
  const { root, call } = workspace({ 'run.sh': '#!/bin/sh\necho a\n' })
  fs.chmodSync(path.join(root, 'run.sh'), 0o755)
  await call('edit_file', { path: 'run.sh', old_string: 'echo a', new_string: 'echo b' })
  assert.equal(fs.statSync(path.join(root, 'run.sh')).mode & 0o7777, modeAs(0o755))
  assert.equal(bytes(root, 'run.sh').toString(), '#!/bin/sh\necho b\n')
  assert.deepEqual(strays(root), [])
})

test('replace_all reports the count', async () => {
  const { root, call } = workspace({ 'r.txt': 'x y x\nx\n' })
  const r = await call('edit_file', { path: 'r.txt', old_string: 'x', new_string: 'z', replace_all: true })
  assert.equal(r.text, 'Replaced 3 occurrences in r.txt.')
  assert.equal(bytes(root, 'r.txt').toString(), 'z y z\nz\n')
})

test('file-level errors win over the argument checks', async () => {
  const big = 'a'.repeat(2000)
  const { root, call } = workspace({
    'bin.dat': Buffer.from([0x61, 0, 0x62]),
    'u16.txt': Buffer.from([0xff, 0xfe, 0x61, 0]),
    'u16be.txt': Buffer.from([0xfe, 0xff, 0, 0x61]),
    'latin1.txt': Buffer.from([0x63, 0x61, 0x66, 0xe9]),
    'big.txt': big,
    'd/x': '',
  }, { maxFileBytes: 1024 })
  const same = { old_string: 'a', new_string: 'a' }
  assert.deepEqual(envelope(await call('edit_file', { path: 'nope.txt', ...same })),
    { error: 'not_found', message: 'No such file: nope.txt', path: 'nope.txt' })
  assert.deepEqual(envelope(await call('edit_file', { path: 'bin.dat', ...same })),
    { error: 'is_binary', message: 'File appears to be binary: bin.dat', path: 'bin.dat' })
  assert.deepEqual(envelope(await call('edit_file', { path: 'u16.txt', ...same })), {
    error: 'is_binary', message: 'Editing utf16le files is not supported (the file would be rewritten as UTF-8): u16.txt',
    path: 'u16.txt', encoding: 'utf16le',
  })
  assert.equal(envelope(await call('edit_file', { path: 'u16be.txt', ...same })).encoding, 'utf16be')
  const l1 = envelope(await call('edit_file', { path: 'latin1.txt', ...same }))
  assert.deepEqual([l1.error, l1.path, l1.encoding], ['is_binary', 'latin1.txt', 'unknown'])
  assert.deepEqual(envelope(await call('edit_file', { path: 'big.txt', ...same })), {
    error: 'too_large', message: 'File is 2000 bytes, exceeding the 1024-byte limit (raise MAX_FILE_BYTES): big.txt',
    path: 'big.txt', size: 2000, limit: 1024,
  })
  assert.deepEqual(envelope(await call('edit_file', { path: 'd', ...same })),
    { error: 'not_a_file', message: 'Path is a directory: d', path: 'd' })
  assert.equal(envelope(await call('edit_file', { path: '../x', ...same })).error, 'path_escape')
  // Nothing was rewritten.
  assert.deepEqual(bytes(root, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9]))
  assert.deepEqual(bytes(root, 'u16.txt'), Buffer.from([0xff, 0xfe, 0x61, 0]))
})

test('argument errors', async () => {
  const { call } = workspace({ 'f.txt': 'abc\n' })
  assert.deepEqual(envelope(await call('edit_file', { path: 'f.txt', old_string: 'abc', new_string: 'abc' })),
    { error: 'invalid_input', message: 'old_string and new_string are identical — nothing to change.' })
  assert.deepEqual(envelope(await call('edit_file', { path: 'f.txt', old_string: '', new_string: 'x' })),
    { error: 'invalid_input', message: 'data/old_string must NOT have fewer than 1 characters' })
})

test('no_match: plain, line-number prefixes, whitespace-only difference', async () => {
  const { root, call } = workspace({ 'f.txt': 'fn a() {\n    b();\n}\n  q\n  q\n' })
  assert.deepEqual(envelope(await call('edit_file', { path: 'f.txt', old_string: 'zzz', new_string: 'y' })),
    { error: 'no_match', message: NO_MATCH })
  assert.deepEqual(envelope(await call('edit_file', { path: 'f.txt', old_string: '     1\tfn a() {\n     2\t    b();', new_string: 'y' })), {
    error: 'no_match',
    message: NO_MATCH + ' It looks like old_string still contains read_file\'s line-number prefixes (e.g. "   12\\t"): drop them so old_string is only the file\'s own text.',
  })
  assert.deepEqual(envelope(await call('edit_file', { path: 'f.txt', old_string: 'b(); ', new_string: 'y', replace_all: true })), {
    error: 'no_match',
    message: NO_MATCH + ' The text is present at line 2 but its leading/trailing whitespace differs from old_string. Re-read that region with read_file and copy the indentation verbatim.',
  })
  assert.match(envelope(await call('edit_file', { path: 'f.txt', old_string: 'q\t', new_string: 'y', replace_all: true })).message,
    / The text is present at lines 4, 5 but its/)
  assert.equal(bytes(root, 'f.txt').toString(), 'fn a() {\n    b();\n}\n  q\n  q\n')
})

test('ambiguous exact match lists every occurrence line', async () => {
  const { call } = workspace({ 'f.txt': 'k = k\nx\nk\n' })
  assert.deepEqual(envelope(await call('edit_file', { path: 'f.txt', old_string: 'k', new_string: 'j' })), {
    error: 'ambiguous_match',
    message: 'old_string matched 3 times (at lines 1, 1, 3); it must be unique. Add surrounding lines to make the match unique, or pass replace_all: true to replace every occurrence.',
  })
})

test('tolerant match: applied when unique, ambiguous with lines otherwise', async () => {
  const { root, call } = workspace({
    'one.py': 'def f():\r\n\tif x:\r\n\t\treturn 1\r\n',
    'two.py': '  f(x)\n  g()\n\n    f(x)\n    g()\n',
  })
  const r = await call('edit_file', { path: 'one.py', old_string: 'if x:\n    return 1', new_string: '\tif y:\n\t\treturn 2' })
  // new_string already uses the file's tabs: written verbatim, the message names the tier.
  assert.equal(r.text, 'Replaced 1 occurrence in one.py' + TOLERANT + ' Matched by tier 2, per-line trimmed.')
  assert.deepEqual(bytes(root, 'one.py'), Buffer.from('def f():\r\n\tif y:\r\n\t\treturn 2\r\n'))
  // A CRLF old_string is matched by the cascade.
  const c = await call('edit_file', { path: 'one.py', old_string: 'def f():\r\n\tif y:', new_string: 'def g():\n\tif y:' })
  assert.equal(c.text, 'Replaced 1 occurrence in one.py' + TOLERANT + " Matched by tier 1, indentation-flexible (old_string's CRLF line endings read as LF).")
  assert.deepEqual(bytes(root, 'one.py'), Buffer.from('def g():\r\n\tif y:\r\n\t\treturn 2\r\n'))
  assert.deepEqual(envelope(await call('edit_file', { path: 'two.py', old_string: 'f(x)\ng()', new_string: 'h()' })), {
    error: 'ambiguous_match',
    message: 'old_string was not found exactly; after whitespace-tolerant matching it matched 2 regions (at lines 1, 4); it must be unique. Add surrounding lines, or correct the whitespace so it matches one region exactly.',
    lines: [1, 4],
  })
})

test('a one-line old_string ending in a newline falls through to the trimmed-substring tier', async () => {
  const { root, call } = workspace({ 'f.txt': 'alpha\n  beta  \ngamma\n' })
  // Inside a line, tier 4 replaces the trimmed text verbatim (the contract).
  fs.writeFileSync(path.join(root, 'g.txt'), 'alpha\n  x beta  y\ngamma\n')
  let r = await call('edit_file', { path: 'g.txt', old_string: ' beta\t', new_string: 'BETA' })
  assert.equal(r.text, 'Replaced 1 occurrence in g.txt' + TOLERANT + ' Matched by tier 4, trimmed substring.')
  assert.equal(bytes(root, 'g.txt').toString(), 'alpha\n  x BETA  y\ngamma\n')
  // Dropping the line break old_string ends with is refused (choice, SPEC.md): which of
  // "keep it" (the contract) and "join the lines" was meant is not decided.
  fs.writeFileSync(path.join(root, 'f.txt'), 'alpha\n  beta  \ngamma\n')
  const e = envelope(await call('edit_file', { path: 'f.txt', old_string: ' beta\n', new_string: 'BETA' }))
  assert.equal(e.error, 'no_match')
  assert.match(e.message, /tier 4, trimmed substring\) found it at line 2, but old_string starts or ends with a line break that new_string does not/)
  assert.equal(e.line, 2)
  assert.equal(bytes(root, 'f.txt').toString(), 'alpha\n  beta  \ngamma\n')
  // Kept, the line is rewritten in the file's whitespace; emptied, it is deleted.
  r = await call('edit_file', { path: 'f.txt', old_string: ' beta\n', new_string: ' bet_a\n' })
  assert.equal(bytes(root, 'f.txt').toString(), 'alpha\n  bet_a  \ngamma\n')
  r = await call('edit_file', { path: 'f.txt', old_string: ' bet_a\n', new_string: '' })
  assert.equal(bytes(root, 'f.txt').toString(), 'alpha\ngamma\n')
})

test('refuses to write through a symlink', { skip: noSymlinks }, async () => {
  const { root, call } = workspace({ 'real.txt': 'hello\n' })
  const abs = path.join(root, 'link.txt')
  fs.symlinkSync('real.txt', abs)
  assert.deepEqual(envelope(await call('edit_file', { path: 'link.txt', old_string: 'hello', new_string: 'bye' })),
    { error: 'invalid_input', message: `Refusing to write through a symlink: ${abs}`, path: abs })
  assert.equal(bytes(root, 'real.txt').toString(), 'hello\n')
})

test('an aborted edit writes nothing', async () => {
  const { root, call } = workspace({ 'f.txt': 'a\n' })
  const ac = new AbortController()
  ac.abort()
  assert.equal(envelope(await call('edit_file', { path: 'f.txt', old_string: 'a', new_string: 'b' }, ac.signal)).error, 'aborted')
  assert.equal(bytes(root, 'f.txt').toString(), 'a\n')
})

test('50 parallel edits of one file all land', async () => {
  const lines = Array.from({ length: 50 }, (_, i) => `line ${i} old`)
  const { root, call } = workspace({ 'many.txt': lines.join('\r\n') + '\r\n' })
  const results = await Promise.all(lines.map((_, i) =>
    call('edit_file', { path: 'many.txt', old_string: `line ${i} old`, new_string: `line ${i} new` })))
  assert.ok(results.every((r) => !r.isError), JSON.stringify(results.find((r) => r.isError)))
  const expected = lines.map((_, i) => `line ${i} new`).join('\r\n') + '\r\n'
  assert.equal(bytes(root, 'many.txt').toString(), expected)
  assert.deepEqual(strays(root), [])
})

test('drift: a dedented block in a CRLF Python file is re-indented, CRLF kept, message names the tier', async () => {
  const { root, call } = workspace({ 'm.py': 'class A:\r\n    def f(self):\r\n        if self.x:\r\n            return 1\r\n        return 0\r\n' })
  const r = await call('edit_file', { path: 'm.py', old_string: 'if self.x:\n    return 1', new_string: 'if self.x:\n    log(self)\n    return 1' })
  assert.equal(r.text, "Replaced 1 occurrence in m.py (matched after a whitespace-tolerant search — tier 1, indentation-flexible; re-indented new_string to the file's indentation (shifted right by 8 spaces); kept 2 lines new_string did not change exactly as in the file).")
  assert.deepEqual(bytes(root, 'm.py'), Buffer.from('class A:\r\n    def f(self):\r\n        if self.x:\r\n            log(self)\r\n            return 1\r\n        return 0\r\n'))
})

test('drift: smart quotes, a dropped blank line and escapes land; prefixes are still refused', async () => {
  const { root, call } = workspace({ 'q.js': 'const a = "x";\n\nconst b = \'y\';\nlog(a, b);\n' })
  const q = await call('edit_file', { path: 'q.js', old_string: 'const a = \u201Cx\u201D;', new_string: 'const a = \u201Cz\u201D;' })
  assert.match(q.text, /tier 5, typographic/)
  const b = await call('edit_file', { path: 'q.js', old_string: "const a = \"z\";\nconst b = 'y';", new_string: "const a = \"z\";\nconst b = 'w';" })
  assert.match(b.text, /tier 6, blank-line-insensitive/)
  const e = await call('edit_file', { path: 'q.js', old_string: 'const b = \\\'w\\\';\\nlog(a, b);', new_string: 'const b = \\\'w\\\';\\nlog(b, a);' })
  assert.match(e.text, /tier 7, escape drift/)
  assert.equal(bytes(root, 'q.js').toString(), 'const a = "z";\n\nconst b = \'w\';\nlog(b, a);\n')
  const p = envelope(await call('edit_file', { path: 'q.js', old_string: '     1\tconst a = "z";\n     2\t', new_string: 'x' }))
  assert.equal(p.error, 'no_match')
  assert.match(p.message, /line-number prefixes/)
})
