import { test } from 'node:test'
import assert from 'node:assert/strict'
import { workspace, envelope } from './helpers.mjs'

const lines = (n, f = (i) => `line ${i}`) => Array.from({ length: n }, (_, i) => f(i + 1) + '\n').join('')

test('rows are 6-column right-aligned numbers, a tab, the text; no trailing newline', async () => {
  const { call } = workspace({ 'a.txt': 'alpha\nbeta\n\ngamma' })
  assert.equal((await call('read_file', { path: 'a.txt' })).text, '     1\talpha\n     2\tbeta\n     3\t\n     4\tgamma')
})

test('empty file, checked before the offset', async () => {
  const { call } = workspace({ 'e.txt': '', 'bom.txt': Buffer.from([0xef, 0xbb, 0xbf]) })
  assert.deepEqual(await call('read_file', { path: 'e.txt' }), { isError: false, text: '(empty file)' })
  assert.equal((await call('read_file', { path: 'e.txt', offset: 99 })).text, '(empty file)')
  assert.equal((await call('read_file', { path: 'e.txt', offset: 0 })).text, '(empty file)')
  assert.equal((await call('read_file', { path: 'bom.txt' })).text, '(empty file)')
})

test('paging: limit, continuation hint, negative tail offsets', async () => {
  const { call } = workspace({ 'n.txt': lines(10) })
  assert.equal((await call('read_file', { path: 'n.txt', offset: 3, limit: 2 })).text,
    '     3\tline 3\n     4\tline 4\n[... 2 of 10 lines shown; continue with offset=5 ...]')
  assert.equal((await call('read_file', { path: 'n.txt', offset: -2 })).text, '     9\tline 9\n    10\tline 10')
  assert.equal((await call('read_file', { path: 'n.txt', offset: -100, limit: 1 })).text,
    '     1\tline 1\n[... 1 of 10 lines shown; continue with offset=2 ...]')
  assert.equal((await call('read_file', { path: 'n.txt', offset: 10 })).text, '    10\tline 10')
})

test('offset errors', async () => {
  const { call } = workspace({ 'n.txt': lines(3) })
  assert.deepEqual(envelope(await call('read_file', { path: 'n.txt', offset: 0 })), {
    error: 'invalid_input',
    message: 'offset must be non-zero: use a positive 1-indexed line, or a negative tail offset.',
    path: 'n.txt',
  })
  assert.deepEqual(envelope(await call('read_file', { path: 'n.txt', offset: 4 })), {
    error: 'invalid_input',
    message: 'offset 4 exceeds file line count 3; read from offset 1..3',
    path: 'n.txt',
    line_count: 3,
  })
})

test('default limit is 2000 lines', async () => {
  const { call } = workspace({ 'big.txt': lines(2500, () => 'x') })
  const text = (await call('read_file', { path: 'big.txt' })).text
  assert.ok(text.endsWith('\n[... 2000 of 2500 lines shown; continue with offset=2001 ...]'))
  assert.equal(text.split('\n').length, 2001)
})

test('long lines are cut at 2000 UTF-16 units, never splitting a surrogate pair', async () => {
  const { call } = workspace({ 'l.txt': 'a'.repeat(1999) + '😀' + 'b'.repeat(10) + '\nshort\n' })
  const [first, second] = (await call('read_file', { path: 'l.txt' })).text.split('\n')
  assert.equal(first, '     1\t' + 'a'.repeat(1999) + ' [... line truncated ...]')
  assert.equal(second, '     2\tshort')
})

test('rows stop at maxOutputBytes; the footer is not counted; at least one row', async () => {
  const { call } = workspace({ 'n.txt': lines(500), 'wide.txt': 'z'.repeat(1900) + '\nnext\n' }, { maxOutputBytes: 1024 })
  const text = (await call('read_file', { path: 'n.txt' })).text
  const idx = text.lastIndexOf('\n[... ')
  assert.ok(Buffer.byteLength(text.slice(0, idx)) + 1 <= 1024)
  const shown = text.slice(0, idx).split('\n').length
  assert.ok(text.endsWith(`[... ${shown} of 500 lines shown; continue with offset=${shown + 1} ...]`))
  const wide = (await call('read_file', { path: 'wide.txt' })).text
  const [row, footer] = wide.split('\n')
  assert.ok(Buffer.byteLength(row) <= 1024)
  assert.ok(row.endsWith(' [... line truncated ...]'))
  assert.equal(footer, '[... 1 of 2 lines shown; continue with offset=2 ...]')
})

test('line endings: CRLF and lone CR read as lines', async () => {
  const { call } = workspace({ 'w.txt': 'a\r\nb\rc\n' })
  assert.equal((await call('read_file', { path: 'w.txt' })).text, '     1\ta\n     2\tb\n     3\tc')
})

test('encodings: UTF-8 BOM stripped, UTF-16 LE/BE decoded, invalid UTF-8 shown with U+FFFD', async () => {
  const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('héllo\r\nwörld\n', 'utf16le')])
  const be = Buffer.from(le)
  be.swap16()
  be[0] = 0xfe
  be[1] = 0xff
  const { call } = workspace({
    'bom.txt': Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('x\n')]),
    'le.txt': le,
    'be.txt': Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('héllo\r\nwörld\n', 'utf16le').swap16()]),
    'latin1.txt': Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]),
  })
  assert.equal((await call('read_file', { path: 'bom.txt' })).text, '     1\tx')
  assert.equal((await call('read_file', { path: 'le.txt' })).text, '     1\théllo\n     2\twörld')
  assert.equal((await call('read_file', { path: 'be.txt' })).text, '     1\théllo\n     2\twörld')
  assert.equal((await call('read_file', { path: 'latin1.txt' })).text, '     1\tcaf\uFFFD')
})

test('binary, too_large, not_found, not_a_file', async () => {
  const tail = Buffer.alloc(20000, 0x61)
  tail[19990] = 0
  const middle = Buffer.alloc(20000, 0x61)
  middle[10000] = 0
  const { call } = workspace({ 'bin': Buffer.from('ab\0cd'), 'tail.bin': tail, 'mid.txt': middle, 'big.txt': 'y'.repeat(3000), 'd/x': '' },
    { maxFileBytes: 2048, maxOutputBytes: 65536 })
  assert.deepEqual(envelope(await call('read_file', { path: 'bin' })),
    { error: 'is_binary', message: 'File appears to be binary: bin', path: 'bin' })
  assert.equal(envelope(await call('read_file', { path: 'tail.bin' })).error, 'too_large')
  assert.deepEqual(envelope(await call('read_file', { path: 'big.txt' })), {
    error: 'too_large',
    message: 'File is 3000 bytes, exceeding the 2048-byte limit (raise MAX_FILE_BYTES): big.txt',
    path: 'big.txt',
    size: 3000,
    limit: 2048,
  })
  assert.deepEqual(envelope(await call('read_file', { path: './nope.txt' })),
    { error: 'not_found', message: 'No such file: ./nope.txt', path: './nope.txt' })
  assert.deepEqual(envelope(await call('read_file', { path: 'd' })),
    { error: 'not_a_file', message: 'Path is a directory: d', path: 'd' })
  assert.deepEqual(envelope(await call('read_file', { path: 'd/x/y' })),
    { error: 'not_a_file', message: 'Not a directory: d/x/y', path: 'd/x/y' })
})

test('binary sniffing looks at the first and last 8000 bytes only', async () => {
  const tail = Buffer.alloc(20000, 0x61)
  tail[19990] = 0
  const middle = Buffer.alloc(20000, 0x61)
  middle[10000] = 0
  const { call } = workspace({ 'tail.bin': tail, 'mid.txt': middle })
  assert.equal(envelope(await call('read_file', { path: 'tail.bin' })).error, 'is_binary')
  assert.equal((await call('read_file', { path: 'mid.txt' })).isError, false)
})
