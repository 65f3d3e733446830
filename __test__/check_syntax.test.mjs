// check_syntax (LATER §3) and the syntax warnings of the writers (LATER §2.6).
import test from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { latest, workspace, envelope } from './helpers.mjs'
import * as ref from '../bench/syntax-ref.mjs'

const CASES = {
  'ok.ts': 'export const a: number = 1;\n',
  'missing.ts': 'let s = "é😀"; let x = (1;\n',
  'err.go': 'package m\nfunc f() { @@ }\n',
  'bad.py': 'def f(:\n  pass\n',
  'x.c': 'int main(void) { return 0 }\n',
  'k.cpp': 'class A { int x; };\n',
  'r.rb': 'def f\n  1 +\nend\n',
  'p.php': '<?php function f() { echo 1 }\n',
  's.sh': 'if [ 1 ]; then echo; fi\n',
  'c.css': 'a { color: red; }\n}\n',
  'i.ini': '[a]\nb = c\n',
  'w.ps1': 'function F { Write-Host "hi" }\n',
  'j.java': 'class A { void f() { int x = ; } }\n',
  'cs.cs': 'class A { void M() { var x = ; } }\n',
  'rs.rs': 'fn main() { let x = ; }\n',
  'v.jsx': 'const a = <div>;\n',
  'long.js': `let x = [${'1, '.repeat(60)} ;\n`,
}

for (const [name, src] of Object.entries(CASES)) {
  test(`check_syntax ${name}${ref.available ? ' matches the wasm grammars' : ''}`, async (t) => {
    const { call } = latest({ [name]: src })
    const r = await call('check_syntax', { path: name })
    assert.equal(r.isError, false, r.text)
    const v = JSON.parse(r.text)
    assert.deepEqual(Object.keys(v), ['path', 'language', 'ok', 'errors', 'error_count', 'truncated'])
    assert.equal(v.ok, v.errors.length === 0)
    if (!ref.available) return t.skip('@vscode/tree-sitter-wasm not installed')
    assert.equal(r.text, await ref.checkSyntax(name, v.language, src))
  })
}

test('check_syntax: UTF-16 columns, 50-error cap, the example', async () => {
  const { call } = latest({ 'a.ts': 'export const a = 1;\n', 'm.ts': 'let s = "é😀"; let x = (1;\n', 'many.py': 'def f(:\n'.repeat(80) })
  assert.equal((await call('check_syntax', { path: 'a.ts' })).text, '{"path":"a.ts","language":"typescript","ok":true,"errors":[],"error_count":0,"truncated":false}')
  assert.deepEqual(JSON.parse((await call('check_syntax', { path: 'm.ts' })).text).errors, [{ kind: 'missing', line: 1, column: 26, near: ')' }])
  const many = JSON.parse((await call('check_syntax', { path: 'many.py' })).text)
  assert.equal(many.errors.length, 50)
  assert.equal(many.error_count, 50)
  assert.equal(many.truncated, true)
})

test('check_syntax: bad input and pathological files', async () => {
  const { call, root } = latest({
    'a.txt': 'x',
    'zeros.rs': Buffer.alloc(4096),
    'bad8.py': Buffer.concat([Buffer.from("x = '"), Buffer.from([0xff, 0xfe, 0x80]), Buffer.from("'\n")]),
    'deep.js': '['.repeat(200_000) + ']'.repeat(200_000),
    'line.ts': 'a'.repeat(10_000_000),
  })
  fs.mkdirSync(path.join(root, 'd.ts'))
  const e = async (p) => envelope(await call('check_syntax', { path: p }))
  const m = (await e('a.txt')).message
  assert.equal(m, "check_syntax does not support '.txt' files; supported extensions: .bash, .c, .cc, .cjs, .cpp, .cs, .css, .cts, .cxx, .go, .h, .hh, .hpp, .ini, .java, .js, .jsx, .mjs, .mts, .php, .ps1, .psd1, .psm1, .py, .pyi, .rb, .rs, .sh, .ts, .tsx")
  assert.equal((await e('zeros.rs')).error, 'is_binary')
  assert.equal((await e('d.ts')).error, 'not_a_file')
  assert.equal((await e('line.ts')).error, 'too_large')
  assert.equal(JSON.parse((await call('check_syntax', { path: 'bad8.py' })).text).ok, true)
  const deep = await call('check_syntax', { path: 'deep.js' })
  if (deep.isError) assert.ok(['timeout', 'too_large'].includes(JSON.parse(deep.text).error), deep.text)
  else assert.equal(typeof JSON.parse(deep.text).ok, 'boolean')
})

test('check_syntax: the report is of the bytes on disk now, however often the file is checked', async () => {
  const { call, root } = latest({ 'a.py': 'def f():\n    pass\n', 'b.py': 'def f():\n    pass\n' })
  const check = async (f) => JSON.parse((await call('check_syntax', { path: f })).text)
  assert.equal((await check('a.py')).ok, true)
  assert.equal((await check('a.py')).ok, true)
  // Changed behind the tools' back (same size, same mtime second): the next check sees it.
  fs.writeFileSync(path.join(root, 'a.py'), 'def f(: \n    pass\n')
  const bad = await check('a.py')
  assert.equal(bad.ok, false)
  assert.deepEqual(bad.errors[0], { kind: 'missing', line: 1, column: 7, near: ')' })
  // Same bytes as a.py had at first, under another name: its own path in the report.
  assert.deepEqual(await check('b.py'), { path: 'b.py', language: 'python', ok: true, errors: [], error_count: 0, truncated: false })
  fs.writeFileSync(path.join(root, 'a.py'), 'def f():\n    pass\n')
  assert.equal((await check('a.py')).ok, true)
})

test('checkSyntax library call', async () => {
  const { tools } = latest({ 'a.rs': 'fn main() { let x = ; }\n' })
  const v = await tools.checkSyntax('a.rs')
  assert.equal(v.ok, false)
  assert.equal(v.language, 'rust')
  await assert.rejects(tools.checkSyntax('nope.rs'), (e) => e.code === 'not_found')
})

const WARN = '\nwarning: typescript syntax error in a.ts at line 1, column 11 (missing `)`); run check_syntax for details.'

test('warnings: write_file, edit_file, multi_edit', async () => {
  const { call, root } = latest({ 'a.ts': 'let x = (1);\n', 'n.txt': 'x' })
  let r = await call('write_file', { path: 'a.ts', content: 'let x = (1;\n' })
  assert.equal(r.text, 'Wrote 12 bytes to a.ts (overwritten).' + WARN)
  r = await call('write_file', { path: 'n.txt', content: '((((' })
  assert.equal(r.text, 'Wrote 4 bytes to n.txt (overwritten).')
  r = await call('edit_file', { path: 'a.ts', old_string: '(1;', new_string: '(2;' })
  assert.ok(r.text.endsWith(WARN), r.text)
  r = await call('edit_file', { path: 'a.ts', old_string: '(2;', new_string: '(1);' })
  assert.ok(!r.text.includes('warning:'), r.text)
  r = await call('multi_edit', { path: 'a.ts', edits: [{ old_string: '(1);', new_string: '(1;' }] })
  assert.equal(r.text, 'Applied 1 edit to a.ts.' + WARN)
  assert.equal(fs.readFileSync(path.join(root, 'a.ts'), 'utf8'), 'let x = (1;\n')
  r = await call('write_file', { path: 'b.py', content: 'def f(:\n' })
  assert.equal(r.text, 'Wrote 8 bytes to b.py (created).\nwarning: python syntax error in b.py at line 1, column 7 (missing `)`); run check_syntax for details.')
})

test('warnings: apply_patch checks at most 5 eligible files, not deletes', async () => {
  const files = Object.fromEntries(Array.from({ length: 7 }, (_, i) => [`f${i}.ts`, 'let a = 1;\n']))
  const { call } = latest({ ...files, 'notes.txt': 'x\n', 'gone.ts': 'let (\n' })
  let patch = '*** Begin Patch\n*** Update File: notes.txt\n@@\n-x\n+((\n'
  for (let i = 0; i < 7; i++) patch += `*** Update File: f${i}.ts\n@@\n-let a = 1;\n+let a = (1;\n`
  patch += '*** Delete File: gone.ts\n*** End Patch\n'
  const r = await call('apply_patch', { patch })
  assert.equal(r.isError, false, r.text)
  const warnings = r.text.split('\n').filter((l) => l.startsWith('warning:'))
  assert.deepEqual(warnings, [0, 1, 2, 3, 4].map((i) => `warning: typescript syntax error in f${i}.ts at line 1, column 11 (missing \`)\`); run check_syntax for details.`))
})

test('warnings: off with probeTreeSitter false and under compat 0.1; big files skipped', async () => {
  const off = latest({}, { probeTreeSitter: () => false })
  assert.equal((await off.call('write_file', { path: 'a.ts', content: 'let x = (1;\n' })).text, 'Wrote 12 bytes to a.ts (created).')
  const old = workspace({})
  assert.equal((await old.call('write_file', { path: 'a.ts', content: 'let x = (1;\n' })).text, 'Wrote 12 bytes to a.ts (created).')
  const { call } = latest()
  const big = 'let x = (1;\n' + ' '.repeat(1_000_001)
  assert.equal((await call('write_file', { path: 'a.ts', content: big })).text, `Wrote ${big.length} bytes to a.ts (created).`)
})

test('warnings: replace (apply only)', async () => {
  const { call } = latest({ 'a.ts': 'let x = (1);\n', 'b.txt': '(1)\n' })
  const dry = await call('replace', { pattern: '\\(1\\)', replacement: '(1', path: '.' })
  assert.ok(!dry.text.includes('warning:'), dry.text)
  const r = await call('replace', { pattern: '\\(1\\)', replacement: '(1', path: '.', dry_run: false })
  assert.equal(r.isError, false, r.text)
  assert.ok(r.text.endsWith(WARN), r.text)
  assert.equal(r.text.split('warning:').length, 2)
})

// Issue 31: tree-sitter sees a file as read_file shows it — BOM stripped, UTF-16 decoded, every
// line ending read as `\n` — so its lines and columns are read_file's, in every reader and
// in every writer's warning.
const SRC = '// ünïcode\nlet s = "é😀"; let x = (1;\nclass A {\n  m() {}\n}\n'
const utf16 = (text, be) => {
  const body = Buffer.from(text, 'utf16le')
  return be ? Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(body).swap16()]) : Buffer.concat([Buffer.from([0xff, 0xfe]), body])
}
const bom = (text) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)])
const ENCODED = {
  'bom.ts': bom(SRC),
  'le.ts': utf16(SRC),
  'be.ts': utf16(SRC, true),
  'le-crlf.ts': utf16(SRC.replace(/\n/g, '\r\n')),
  'be-cr.ts': utf16(SRC.replace(/\n/g, '\r'), true),
  'bom-crlf.ts': bom(SRC.replace(/\n/g, '\r\n')),
  'cr.ts': SRC.replace(/\n/g, '\r'),
}
const AT = { kind: 'missing', line: 2, column: 26, near: ')' }
const warnAt = (rel) => `\nwarning: typescript syntax error in ${rel} at line 2, column 26 (missing \`)\`); run check_syntax for details.`

test('check_syntax parses a UTF-16 file after decoding (the original\'s test), LE and BE', async () => {
  const { call } = latest({ 'u16.ts': utf16('const x = 1;\n'), 'u16be.ts': utf16('const x = 1;\n', true) })
  for (const p of ['u16.ts', 'u16be.ts']) {
    const r = await call('check_syntax', { path: p })
    assert.equal(r.isError, false, r.text)
    assert.equal(JSON.parse(r.text).ok, true, r.text)
  }
})

test('check_syntax and outline: UTF-8 BOM, UTF-16 LE/BE, CRLF and CR give the plain file\'s report, at read_file\'s positions', async () => {
  const { call, tools } = latest({ 'plain.ts': SRC, ...ENCODED })
  const plain = await call('outline', { path: 'plain.ts' })
  assert.match(plain.text, /^plain\.ts — typescript, 6 lines\n {2}class A \(3-5\)\n {4}m\(\) \{\} \(4-4\)\n/)
  for (const p of ['plain.ts', ...Object.keys(ENCODED)]) {
    const v = JSON.parse((await call('check_syntax', { path: p })).text)
    assert.deepEqual(v.errors, [AT], p)
    assert.equal((await call('outline', { path: p })).text, plain.text.replace('plain.ts', p), p)
    assert.equal((await tools.outlineOf(p)).lines, 6, p)
    assert.deepEqual((await tools.checkSyntax(p)).errors, [AT], p)
    // The line and column name the text read_file shows there.
    const row = (await call('read_file', { path: p, offset: 2, limit: 1 })).text.split('\n')[0].split('\t')[1]
    assert.equal(row.slice(AT.column - 1), ';', p)
  }
  // Several files at once (outline's `paths`) read them the same way.
  const many = await call('outline', { path: 'le.ts', paths: ['be.ts', 'cr.ts'] })
  assert.equal(many.text, ['le.ts', 'be.ts', 'cr.ts'].map((p) => plain.text.replace('plain.ts', p)).join('\n\n'))
})

test('warnings: every writer reports the position in the file as read_file shows it (BOM, CRLF, CR)', async () => {
  const ok = SRC.replace('(1;', '(1);')
  const { call } = latest({
    'e.ts': bom(ok.replace(/\n/g, '\r\n')),
    'm.ts': ok.replace(/\n/g, '\r'),
    'p.ts': bom(ok.replace(/\n/g, '\r\n')),
    'r.ts': bom(ok),
  })
  let r = await call('write_file', { path: 'w.ts', content: '\uFEFF' + SRC.replace(/\n/g, '\r\n') })
  assert.ok(r.text.endsWith(warnAt('w.ts')), r.text)
  r = await call('write_file', { path: 'wcr.ts', content: SRC.replace(/\n/g, '\r') })
  assert.ok(r.text.endsWith(warnAt('wcr.ts')), r.text)
  r = await call('edit_file', { path: 'e.ts', old_string: '(1);', new_string: '(1;' })
  assert.ok(r.text.endsWith(warnAt('e.ts')), r.text)
  r = await call('multi_edit', { path: 'm.ts', edits: [{ old_string: '(1);', new_string: '(1;' }] })
  assert.ok(r.text.endsWith(warnAt('m.ts')), r.text)
  r = await call('apply_patch', { patch: '*** Begin Patch\n*** Update File: p.ts\n@@\n-let s = "é😀"; let x = (1);\n+let s = "é😀"; let x = (1;\n*** End Patch\n' })
  assert.equal(r.isError, false, r.text)
  assert.ok(r.text.endsWith(warnAt('p.ts')), r.text)
  r = await call('replace', { pattern: '\\(1\\);', replacement: '(1;', path: 'r.ts', dry_run: false })
  assert.equal(r.isError, false, r.text)
  assert.ok(r.text.endsWith(warnAt('r.ts')), r.text)
})
