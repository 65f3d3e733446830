// glob through the public API: ordering, ignore policy, errors, confinement, abort.
import test from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { execFileSync } from 'node:child_process'
import { workspace, envelope } from './helpers.mjs'
import { noGit, noSymlinks, slash, windows } from './platform.mjs'

function touch(root, rel, seconds) {
  fs.utimesSync(path.join(root, rel), seconds, seconds)
}

test('newest first, ties by path in JS order', async () => {
  const { root, call } = workspace({ 'old.ts': '', 'new.ts': '', 'b.ts': '', 'a.ts': '', 'sub/deep.ts': '', 'x.js': '' })
  touch(root, 'old.ts', 1_000_000)
  touch(root, 'new.ts', 3_000_000)
  touch(root, 'a.ts', 2_000_000)
  touch(root, 'b.ts', 2_000_000)
  touch(root, 'sub/deep.ts', 2_000_000)
  const r = await call('glob', { pattern: '**/*.ts' })
  assert.equal(r.isError, false)
  assert.equal(slash(r.text), 'new.ts\na.ts\nb.ts\nsub/deep.ts\nold.ts')
})

test('* stays in one directory, ** spans them, dotfiles match, files only', async () => {
  const { call } = workspace({ 'top.md': '', 'd/inner.md': '', 'd/e/deeper.md': '', '.env.md': '', 'src/x.txt': '' })
  const top = await call('glob', { pattern: '*.md' })
  assert.deepEqual(top.text.split('\n').sort(), ['.env.md', 'top.md'])
  const all = await call('glob', { pattern: '**/*.md' })
  assert.deepEqual(slash(all.text).split('\n').sort(), ['.env.md', 'd/e/deeper.md', 'd/inner.md', 'top.md'])
  // A directory whose name matches is not listed, nor are the files inside it.
  assert.equal((await call('glob', { pattern: 'src' })).text, '(no matches)')
  assert.equal(slash((await call('glob', { pattern: 'd/*' })).text), 'd/inner.md')
})

test('path is the base; output stays relative to the workspace root', async () => {
  const { call } = workspace({ 'pkg/a/x.ts': '', 'pkg/b.ts': '', 'other.ts': '' })
  const r = await call('glob', { pattern: '**/*.ts', path: 'pkg' })
  assert.deepEqual(slash(r.text).split('\n').sort(), ['pkg/a/x.ts', 'pkg/b.ts'])
  assert.equal((await call('glob', { pattern: '../*', path: 'pkg' })).text, '(no matches)')
})

test('respect_gitignore applies the ignore stack and skips .git/.clarvis; false skips nothing', async () => {
  const { root, call } = workspace({
    '.gitignore': 'dist/\n*.log\n',
    'dist/out.js': '', 'keep.js': '', 'x.log': '', '.git/config': '', '.clarvis/bash-1.stdout.log': '',
    '.clarvis-tmp-123': '', 'sub/.gitignore': '!y.log\n', 'sub/y.log': '', 'sub/z.log': '',
  })
  // A link is never listed (where links can be made at all).
  if (!noSymlinks) fs.symlinkSync(path.join(root, 'keep.js'), path.join(root, 'link.js'))
  const on = await call('glob', { pattern: '**/*' })
  assert.deepEqual(slash(on.text).split('\n').sort(), ['.gitignore', 'keep.js', 'sub/.gitignore', 'sub/y.log'])
  const off = await call('glob', { pattern: '**/*', respect_gitignore: false })
  assert.deepEqual(slash(off.text).split('\n').sort(), [
    '.clarvis-tmp-123', '.clarvis/bash-1.stdout.log', '.git/config', '.gitignore', 'dist/out.js',
    'keep.js', 'sub/.gitignore', 'sub/y.log', 'sub/z.log', 'x.log',
  ])
})

test('git repository: .git/info/exclude and a parent .gitignore above the workspace', { skip: noGit }, async () => {
  const { root, call: _unused } = workspace({})
  execFileSync('git', ['init', '-q', root])
  fs.writeFileSync(path.join(root, '.gitignore'), 'secret.txt\n')
  fs.writeFileSync(path.join(root, '.git/info/exclude'), 'local.txt\n')
  const ws = path.join(root, 'ws')
  fs.mkdirSync(ws)
  for (const f of ['secret.txt', 'local.txt', 'ok.txt']) fs.writeFileSync(path.join(ws, f), '')
  const { createAgentTools } = await import('../index.mjs')
  const tools = createAgentTools({ workspaceRoot: ws })
  assert.equal((await tools.callTool('glob', { pattern: '*' })).text, 'ok.txt')
})

test('not a repository: .gitignore files above the workspace root are not read', async () => {
  const { root } = workspace({ '.gitignore': 'a.txt\n', 'ws/a.txt': '', 'ws/.gitignore': 'b.txt\n', 'ws/b.txt': '' })
  const { createAgentTools } = await import('../index.mjs')
  const tools = createAgentTools({ workspaceRoot: path.join(root, 'ws') })
  assert.equal((await tools.callTool('glob', { pattern: '*.txt' })).text, 'a.txt')
})

test('errors: bad pattern, missing base, base is a file, escapes', async () => {
  const { call } = workspace({ 'f.txt': '' })
  assert.deepEqual(envelope(await call('glob', { pattern: 'a[' })), {
    error: 'invalid_input', message: "Invalid glob pattern: unclosed character class; missing ']'", pattern: 'a[',
  })
  assert.deepEqual(envelope(await call('glob', { pattern: '*', path: 'nope' })), {
    error: 'not_found', message: 'No such file: nope', path: 'nope',
  })
  assert.deepEqual(envelope(await call('glob', { pattern: '*', path: 'f.txt' })), {
    error: 'not_a_file', message: 'Not a directory: f.txt', path: 'f.txt',
  })
  const esc = envelope(await call('glob', { pattern: '*', path: '../' }))
  assert.equal(esc.error, 'path_escape')
  assert.equal(esc.path, '../')
  assert.equal(envelope(await call('glob', { pattern: '*', path: '/etc' })).error, 'path_escape')
  assert.equal((await call('glob', { pattern: '*.nothing' })).text, '(no matches)')
})

test('a pre-aborted signal gives aborted', async () => {
  const { call } = workspace({ 'a.txt': '' })
  const r = await call('glob', { pattern: '**/*' }, AbortSignal.abort())
  assert.equal(envelope(r).error, 'aborted')
})

test('a file whose name is not UTF-8 is skipped by glob and grep (a shown path always opens)', { skip: windows && 'Windows names are UTF-16: a name that is not UTF-8 cannot be made' }, async () => {
  const { call, root } = workspace({ 'ok.txt': 'needle\n' })
  const bad = Buffer.concat([Buffer.from(root + '/bad-'), Buffer.from([0xff, 0xfe]), Buffer.from('.txt')])
  fs.writeFileSync(bad, 'needle\n')
  const dir = Buffer.concat([Buffer.from(root + '/d-'), Buffer.from([0xc3])])
  fs.mkdirSync(dir)
  fs.writeFileSync(Buffer.concat([dir, Buffer.from('/in.txt')]), 'needle\n')
  assert.equal((await call('glob', { pattern: '**/*.txt' })).text, 'ok.txt')
  assert.equal((await call('grep', { pattern: 'needle' })).text, 'ok.txt')
})
