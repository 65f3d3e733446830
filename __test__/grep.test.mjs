// grep through the public API: formats byte for byte, policy, encodings, paging and the scan
// budget, multiline units, context, engines, errors, confinement and abort.
import test from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { execFileSync } from 'node:child_process'
import { workspace, envelope, scratch } from './helpers.mjs'
import { createAgentTools, setWarnSink } from '../index.mjs'
import { noGit, noSymlinks, slash } from './platform.mjs'

const WARNING = '[... search incomplete: the scan hit its output cap; some matching files were not scanned. Narrow the pattern, path, or glob for complete results. ...]'

const grep = async (call, args) => {
  const r = await call('grep', args)
  assert.equal(r.isError, false, r.text)
  return slash(r.text)
}

test('the three output modes, byte for byte', async () => {
  const { call } = workspace({ 'b.txt': 'one\nfoo two\nthree foo foo\n', 'a/x.txt': 'foo\n', 'c.txt': 'nothing\n' })
  assert.equal(await grep(call, { pattern: 'foo' }), 'a/x.txt\nb.txt')
  assert.equal(await grep(call, { pattern: 'foo', output_mode: 'count' }), 'a/x.txt:1\nb.txt:2')
  assert.equal(await grep(call, { pattern: 'foo', output_mode: 'content' }), 'a/x.txt:1:foo\nb.txt:2:foo two\nb.txt:3:three foo foo')
  assert.equal(await grep(call, { pattern: 'absent' }), '(no matches)')
  assert.equal(await grep(call, { pattern: 'FOO', ignore_case: true }), 'a/x.txt\nb.txt')
  assert.equal(await grep(call, { pattern: 'FOO' }), '(no matches)')
})

test('context rows, -- between non-adjacent groups and files, matches inside a window stay matches', async () => {
  const lines = ['l1', 'hit2', 'l3', 'l4', 'l5', 'l6', 'hit7', 'hit8', 'l9', 'l10']
  const { call } = workspace({ 'f.txt': lines.join('\n') + '\n', 'g.txt': 'hit\n' })
  assert.equal(
    await grep(call, { pattern: 'hit', output_mode: 'content', context: 1 }),
    ['f.txt-1-l1', 'f.txt:2:hit2', 'f.txt-3-l3', '--', 'f.txt-6-l6', 'f.txt:7:hit7', 'f.txt:8:hit8', 'f.txt-9-l9', '--', 'g.txt:1:hit'].join('\n'),
  )
  assert.equal(
    await grep(call, { pattern: 'hit', output_mode: 'content', before_context: 2, after_context: 0, head_limit: 1, offset: 1 }),
    ['f.txt-5-l5', 'f.txt-6-l6', 'f.txt:7:hit7', '[... showing 1..2 of 4; call again with offset=2 for more ...]'].join('\n'),
  )
  // Context is added only around the page's matches; hit8 falls in hit7's window.
  assert.equal(
    await grep(call, { pattern: 'hit', output_mode: 'content', after_context: 1, head_limit: 1, offset: 1 }),
    ['f.txt:7:hit7', 'f.txt:8:hit8', '[... showing 1..2 of 4; call again with offset=2 for more ...]'].join('\n'),
  )
})

test('paging footers, no results at offset, page exceeded', async () => {
  const files = {}
  for (const n of ['a', 'b', 'c', 'd', 'e']) files[`${n}.txt`] = 'match\n'
  const { call } = workspace(files)
  assert.equal(await grep(call, { pattern: 'match', head_limit: 2 }), 'a.txt\nb.txt\n[... showing 0..2 of 5; call again with offset=2 for more ...]')
  assert.equal(await grep(call, { pattern: 'match', head_limit: 2, offset: 4 }), 'e.txt')
  assert.equal(await grep(call, { pattern: 'match', offset: 5 }), '(no results at offset 5; 5 total)')
  assert.equal(await grep(call, { pattern: 'match', output_mode: 'content', offset: 9 }), '(no results at offset 9; 5 total)')

  // Row text within the budget, but the prefixes push the page past maxOutputBytes.
  const dir = 'a-rather-long-directory-name/with/several/levels/of/nesting'
  const { call: call2 } = workspace({ [`${dir}/file.txt`]: 'x\n'.repeat(40) }, { maxOutputBytes: 1024 })
  const out = await grep(call2, { pattern: 'x', output_mode: 'content' })
  const row = (i) => `${dir}/file.txt:${i}:x`
  const page = Array.from({ length: 40 }, (_, i) => row(i + 1)).join('\n')
  assert.ok(page.length > 1024)
  assert.equal(out, `${page.slice(0, 1024)}\n[... output truncated: 1024 of ${page.length} bytes shown ...]\n[... page exceeded 1024 bytes and was cut; set or reduce head_limit to page in smaller chunks ...]`)
})

test('the scan budget: sorted prefix kept, warning appended, identical run to run', async () => {
  const files = {}
  const line = 'needle ' + 'y'.repeat(93) // 100 bytes of row text
  for (let i = 0; i < 30; i++) files[`f${String(i).padStart(2, '0')}.txt`] = `${line}\n`
  const { call } = workspace(files, { maxOutputBytes: 1024 })
  const out = await grep(call, { pattern: 'needle' })
  // 11 files reach 1100 bytes > 1024: the 11th is kept whole, the rest not scanned.
  const kept = Array.from({ length: 11 }, (_, i) => `f${String(i).padStart(2, '0')}.txt`)
  assert.equal(out, `${kept.join('\n')}\n${WARNING}`)
  for (let i = 0; i < 5; i++) assert.equal(await grep(call, { pattern: 'needle' }), out)
  const count = await grep(call, { pattern: 'needle', output_mode: 'count' })
  assert.equal(count, `${kept.map((k) => `${k}:1`).join('\n')}\n${WARNING}`)
  // Even an empty page gets the warning.
  assert.equal(await grep(call, { pattern: 'needle', offset: 50 }), `\n${WARNING}`)
  // Under the cap there is no warning.
  assert.equal(await grep(call, { pattern: 'needle', glob: 'f0*.txt' }), Array.from({ length: 10 }, (_, i) => `f0${i}.txt`).join('\n'))
})

test('multiline: a unit is a run of lines holding a spanning match, counted once', async () => {
  const { call } = workspace({ 'm.txt': 'start\nfoo\nbar\nbaz\nend\nbaz\n' })
  assert.equal(
    await grep(call, { pattern: 'foo\\nbar|baz', multiline: true, output_mode: 'content' }),
    'm.txt:2:foo\nbar\nbaz\nm.txt:6:baz',
  )
  assert.equal(await grep(call, { pattern: 'foo\\nbar|baz', multiline: true, output_mode: 'count' }), 'm.txt:2')
  assert.equal(await grep(call, { pattern: 'foo.bar', multiline: true, output_mode: 'count' }), 'm.txt:1')
  assert.equal(await grep(call, { pattern: 'foo.bar', output_mode: 'count' }), '(no matches)')
  assert.equal(await grep(call, { pattern: 'ba.', multiline: true, output_mode: 'count' }), 'm.txt:3')
  assert.equal(
    await grep(call, { pattern: 'foo\\nbar', multiline: true, output_mode: 'content', context: 1 }),
    'm.txt-1-start\nm.txt:2:foo\nbar\nm.txt-4-baz',
  )
})

test('PCRE2 patterns (look-around, backreferences) and bad regexes', async () => {
  const { call } = workspace({ 'p.txt': 'foobar\nfoobaz\nabba\nabcd\n' })
  assert.equal(await grep(call, { pattern: 'foo(?=baz)', output_mode: 'content' }), 'p.txt:2:foobaz')
  assert.equal(await grep(call, { pattern: '(?<!foo)ba', output_mode: 'content' }), 'p.txt:3:abba')
  assert.equal(await grep(call, { pattern: '(b)\\1', output_mode: 'content' }), 'p.txt:3:abba')
  assert.deepEqual(envelope(await call('grep', { pattern: 'foo(' })), {
    error: 'invalid_input',
    message: 'Invalid regex: regex parse error:\n    foo(\n       ^\nerror: unclosed group',
    pattern: 'foo(',
  })
  assert.deepEqual(envelope(await call('grep', { pattern: 'x', glob: '[' })), {
    error: 'invalid_input', message: "Invalid glob pattern: unclosed character class; missing ']'", glob: '[',
  })
})

test('policy: hidden searched, .git/.clarvis skipped, binary and oversized skipped, symlinks not followed', async () => {
  const { root, call } = workspace({
    '.hidden/h.txt': 'tok\n', '.git/HEAD': 'tok\n', '.clarvis/bash-1.stdout.log': 'tok\n', '.clarvis-tmp-1-2': 'tok\n',
    'bin.dat': Buffer.from('tok\0\n'), 'big.txt': 'tok\n' + 'z'.repeat(2000), 'ok.txt': 'tok\n',
  }, { maxFileBytes: 1024 })
  fs.symlinkSync(path.join(root, 'ok.txt'), path.join(root, 'link.txt'))
  assert.equal(await grep(call, { pattern: 'tok' }), '.hidden/h.txt\nok.txt')
  // A single file that is binary or oversized has no matches.
  assert.equal(await grep(call, { pattern: 'tok', path: 'bin.dat' }), '(no matches)')
  assert.equal(await grep(call, { pattern: 'tok', path: 'big.txt' }), '(no matches)')
  assert.equal(await grep(call, { pattern: 'tok', path: 'ok.txt', glob: '*.nomatch' }), 'ok.txt')
})

test('UTF-16 LE/BE files are searched; invalid UTF-8 shows U+FFFD; CRLF lines', async () => {
  const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('first\r\nneedle here\r\n', 'utf16le')])
  const be = Buffer.from(Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('needle\n', 'utf16le').swap16()]))
  const { call } = workspace({ 'le.txt': le, 'be.txt': be, 'latin.txt': Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0x0a]), 'crlf.txt': 'a\r\nneedle\r\n' })
  assert.equal(
    await grep(call, { pattern: 'needle', output_mode: 'content' }),
    'be.txt:1:needle\ncrlf.txt:2:needle\nlatin.txt:1:caf\uFFFD needle\nle.txt:2:needle here',
  )
  // `$` matches before a CRLF line ending.
  assert.equal(await grep(call, { pattern: 'needle$' }), 'be.txt\ncrlf.txt\nlatin.txt')
})

test('gitignore stack in a real repository: nested, negation, info/exclude, parent above the workspace', { skip: noGit }, async () => {
  const repo = scratch()
  execFileSync('git', ['init', '-q', repo])
  const write = (rel, text) => {
    fs.mkdirSync(path.dirname(path.join(repo, rel)), { recursive: true })
    fs.writeFileSync(path.join(repo, rel), text)
  }
  write('.gitignore', '*.gen\n')
  write('.git/info/exclude', 'mine.txt\n')
  write('ws/.gitignore', 'build/\n')
  write('ws/sub/.gitignore', '!keep.gen\nlocal.txt\n')
  for (const f of ['ws/a.gen', 'ws/mine.txt', 'ws/build/out.txt', 'ws/sub/keep.gen', 'ws/sub/drop.gen', 'ws/sub/local.txt', 'ws/ok.txt'])
    write(f, 'tok\n')
  const tools = createAgentTools({ workspaceRoot: path.join(repo, 'ws') })
  const r = await tools.callTool('grep', { pattern: 'tok' })
  assert.equal(r.text, 'ok.txt\nsub/keep.gen')
  // Searching a subdirectory still applies the parents up to the repository root.
  assert.equal((await tools.callTool('grep', { pattern: 'tok', path: 'sub' })).text, 'sub/keep.gen')
})

test('the glob filter and the ignore stack both apply, in either order (negations, anchored globs, ignored directories)', async () => {
  const { call } = workspace({
    '.gitignore': '*.ts\n!keep.ts\ngen/\n',
    'a.ts': 'tok\n',
    'keep.ts': 'tok\n',
    'b.js': 'tok\n',
    'src/keep.ts': 'tok\n',
    'src/c.ts': 'tok\n',
    'src/d.rs': 'tok\n',
    'gen/keep.ts': 'tok\n',
    'src/sub/keep.ts': 'tok\n',
  })
  assert.equal(await grep(call, { pattern: 'tok', glob: '*.ts' }), 'keep.ts\nsrc/keep.ts\nsrc/sub/keep.ts')
  assert.equal(await grep(call, { pattern: 'tok', glob: 'src/**/*.ts' }), 'src/keep.ts\nsrc/sub/keep.ts')
  assert.equal(await grep(call, { pattern: 'tok', glob: '*.{rs,js}', output_mode: 'count' }), 'b.js:1\nsrc/d.rs:1')
  assert.equal(await grep(call, { pattern: 'tok', glob: 'sub/*.ts', path: 'src' }), 'src/sub/keep.ts')
  // A directory name matching the glob is still only a directory: its files must match too.
  assert.equal(await grep(call, { pattern: 'tok', glob: 'src' }), '(no matches)')
})

test('global excludes file ($XDG_CONFIG_HOME/git/ignore) applies, even outside a repository', async () => {
  const xdg = scratch()
  fs.mkdirSync(path.join(xdg, 'git'))
  fs.writeFileSync(path.join(xdg, 'git/ignore'), '*.secret\n')
  const before = process.env.XDG_CONFIG_HOME
  process.env.XDG_CONFIG_HOME = xdg
  try {
    const { call } = workspace({ 'a.secret': 'tok\n', 'b.txt': 'tok\n' })
    assert.equal(await grep(call, { pattern: 'tok' }), 'b.txt')
  } finally {
    if (before === undefined) delete process.env.XDG_CONFIG_HOME
    else process.env.XDG_CONFIG_HOME = before
  }
})

test('an unreadable .gitignore is reported to the warn sink', { skip: noSymlinks }, async () => {
  const { root, call } = workspace({ 'a.txt': 'tok\n' })
  fs.symlinkSync('.gitignore', path.join(root, '.gitignore')) // a loop: ELOOP on read
  const lines = []
  setWarnSink((l) => lines.push(l))
  try {
    assert.equal(await grep(call, { pattern: 'tok' }), 'a.txt')
  } finally {
    setWarnSink(null)
  }
  assert.deepEqual(lines, ['clarvis-agent-tools: warning: cannot read .gitignore\n'])
})

test('missing path, confinement', async () => {
  const { root, call } = workspace({ 'a.txt': 'x\n' })
  const abs = path.join(root, 'nope')
  assert.deepEqual(envelope(await call('grep', { pattern: 'x', path: 'nope' })), { error: 'not_found', message: `No such file: ${abs}`, path: abs })
  const e = envelope(await call('grep', { pattern: 'x', path: '../' }))
  assert.equal(e.error, 'path_escape')
  assert.equal(e.path, '../')
  assert.equal(envelope(await call('grep', { pattern: 'x', path: '/etc' })).error, 'path_escape')
})

test('abort: pre-aborted, and during a search of a few thousand files', async () => {
  const { root, call } = workspace({ 'a.txt': 'x\n' })
  assert.equal(envelope(await call('grep', { pattern: 'x' }, AbortSignal.abort())).error, 'aborted')
  const body = 'some text line with a needle in it\n'.repeat(600)
  for (let d = 0; d < 40; d++) {
    fs.mkdirSync(path.join(root, `d${d}`))
    for (let f = 0; f < 100; f++) fs.writeFileSync(path.join(root, `d${d}`, `f${f}.txt`), body)
  }
  const ac = new AbortController()
  const pending = call('grep', { pattern: 'needle', output_mode: 'content' }, ac.signal)
  setImmediate(() => ac.abort())
  assert.equal(envelope(await pending).error, 'aborted')
})

test('a file too big to keep in memory is searched again for the page it must show', async () => {
  const lines = Array.from({ length: 300 }, (_, i) => `row ${String(i + 1).padStart(4, '0')}`)
  const { call } = workspace({ 'big.txt': lines.join('\n') + '\n' }, { maxOutputBytes: 1024 })
  // Every line matches: the neighbours inside the context window are matches too.
  const out = await grep(call, { pattern: 'row', output_mode: 'content', offset: 250, head_limit: 2, context: 1 })
  assert.equal(out, `big.txt:250:row 0250\nbig.txt:251:row 0251\nbig.txt:252:row 0252\nbig.txt:253:row 0253\n${WARNING}`)
})

test('multiline: a million one-character matches on one line stay linear (fuzzer regression)', async () => {
  const { call } = workspace({ 'x.txt': 'x'.repeat(1 << 20) + '\nend\n' })
  const r = await call('grep', { pattern: '(?s).', multiline: true, ignore_case: true, output_mode: 'count' })
  // The file is kept whole; its 1 MB line passes the scan budget, hence the warning.
  assert.match(r.text, /^x\.txt:2\n\[\.\.\. search incomplete/)
})

// A pattern that is one plain literal is looked for in each file's raw bytes before the file
// is prepared (BOM, UTF-16, line endings) and searched; files without it are skipped. The
// answers must be exactly those of the full path, which an alternation (not a plain
// literal, so never pre-filtered) takes.
test('the plain-literal pre-filter changes no answer: encodings, line endings, binary, case, multiline', async () => {
  const utf16 = (text, be) => {
    const body = Buffer.from(text, 'utf16le')
    return Buffer.concat([Buffer.from(be ? [0xfe, 0xff] : [0xff, 0xfe]), be ? Buffer.from(body).swap16() : body])
  }
  const files = {
    'crlf.txt': 'a\r\nneedle\r\nb\rneedle x\r',
    'bom.txt': '\uFEFFneedle first\nsecond\n',
    'le.txt': utf16('first\r\nneedle here\r\n café needle\n'),
    'be.txt': utf16('needle\n', true),
    'latin.txt': Buffer.concat([Buffer.from('caf'), Buffer.from([0xe9, 0x20, 0xff, 0xfe]), Buffer.from('needle\n')]),
    'uni.txt': 'café needle\n',
    'bin.dat': Buffer.from('needle\0\n'),
    'late-nul.txt': 'x'.repeat(9000) + '\0' + 'x'.repeat(9000) + '\nneedle\n',
    'split.txt': 'nee\r\ndle\n',
    'caps.txt': 'NEEDLE\nNeedle\n',
    'none.txt': 'nothing here\n',
    'empty.txt': '',
  }
  const { call } = workspace(files)
  const same = async (literal, control, extra, expected) => {
    for (const output_mode of ['files_with_matches', 'content', 'count']) {
      const a = await grep(call, { pattern: literal, output_mode, ...extra })
      const b = await grep(call, { pattern: control, output_mode, ...extra })
      assert.equal(a, b, `${literal} vs ${control} (${output_mode}, ${JSON.stringify(extra)})`)
      if (output_mode === 'files_with_matches') assert.equal(a, expected)
    }
  }
  const NEVER = '|\\bzq9never\\b'
  await same('needle', 'needle' + NEVER, {}, 'be.txt\nbom.txt\ncrlf.txt\nlate-nul.txt\nlatin.txt\nle.txt\nuni.txt')
  await same('needle', 'needle' + NEVER, { context: 1 }, 'be.txt\nbom.txt\ncrlf.txt\nlate-nul.txt\nlatin.txt\nle.txt\nuni.txt')
  // Non-ASCII: the UTF-8 bytes of é, not the Latin-1 byte; the UTF-16 file is transcoded first.
  await same('café', 'café' + NEVER, {}, 'le.txt\nuni.txt')
  assert.equal(await grep(call, { pattern: 'café needle', output_mode: 'content' }), 'le.txt:3: café needle\nuni.txt:1:café needle')
  // Case-insensitive and multiline searches are never pre-filtered.
  await same('needle', 'needle' + NEVER, { ignore_case: true }, 'be.txt\nbom.txt\ncaps.txt\ncrlf.txt\nlate-nul.txt\nlatin.txt\nle.txt\nuni.txt')
  await same('needle', 'needle' + NEVER, { multiline: true }, 'be.txt\nbom.txt\ncrlf.txt\nlate-nul.txt\nlatin.txt\nle.txt\nuni.txt')
  // A match across a CRLF only exists after the line endings are normalised.
  assert.equal(await grep(call, { pattern: 'nee\\ndle', multiline: true, output_mode: 'content' }), 'split.txt:1:nee\ndle')
  // A literal carriage return never survives normalisation: no file matches, pre-filter or not.
  assert.equal(await grep(call, { pattern: '\\r' }), '(no matches)')
  // A single file given as the path goes through the same filter.
  assert.equal(await grep(call, { pattern: 'needle', path: 'le.txt', output_mode: 'count' }), 'le.txt:2')
  assert.equal(await grep(call, { pattern: 'needle', path: 'bin.dat' }), '(no matches)')
})

test('files that change size between searches are read as they are now', async () => {
  const { root, call } = workspace({ 'a.txt': 'needle\n', 'b.txt': 'nothing\n', 'c.txt': 'needle\n' }, { maxFileBytes: 1024 })
  assert.equal(await grep(call, { pattern: 'needle' }), 'a.txt\nc.txt')
  fs.writeFileSync(path.join(root, 'a.txt'), 'gone\n'.repeat(100)) // grows, loses the literal
  fs.writeFileSync(path.join(root, 'b.txt'), 'needle') // shrinks, gains it (no final newline)
  fs.writeFileSync(path.join(root, 'c.txt'), 'needle\n' + 'z'.repeat(2000)) // grows past maxFileBytes
  assert.equal(await grep(call, { pattern: 'needle', output_mode: 'content' }), 'b.txt:1:needle')
  fs.truncateSync(path.join(root, 'b.txt'), 3)
  assert.equal(await grep(call, { pattern: 'needle' }), '(no matches)')
})

test('a PCRE2 pattern that hits the match limit on a file: the file is cut short and the host is told', async () => {
  const { call } = workspace({ 'a.txt': 'ok line b\n' + 'a'.repeat(40) + 'c\nlast b\n', 'b.txt': 'b\n' })
  const lines = []
  setWarnSink((l) => lines.push(l))
  try {
    // rg -P says `a.txt: PCRE2: error matching: match limit exceeded` and goes on, as we do.
    assert.equal(await grep(call, { pattern: '(a|aa)+(?=b)|^b$', output_mode: 'content' }), 'b.txt:1:b')
    assert.equal(await grep(call, { pattern: '(a|aa)+(?=b)|^b$', output_mode: 'content', multiline: true }), 'b.txt:1:b')
  } finally {
    setWarnSink(null)
  }
  const cut = 'clarvis-agent-tools: warning: grep stopped searching a.txt early: PCRE2: error matching: match limit exceeded\n'
  assert.deepEqual(lines, [cut, cut])
})
