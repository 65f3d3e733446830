// Escape attempts against every path-taking tool (the 0.5 file tools too: both ends of move
// and copy, mkdir, remove, replace scopes and globs; the navigation tools' paths and walks): `..` chains, absolute paths, symlinked
// files and directories pointing out, link chains, a link to `/`, `/proc/self/root`, a missing
// tail under a symlinked directory, dangling links, hard links, and a directory swapped for a
// symlink to the outside thousands of times while calls, checkpoint restores and undos run.
// Zero escapes: no output contains the outside secret or an outside-only name, and a
// snapshot of the outside is unchanged.
//
// RACE_MS (default 2500) sets how long the swap race runs; `npm run soak` runs it longer.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { setWarnSink } from '../index.mjs'
import { stubbedTools } from './sentinel.mjs'
import { setup, runRace, shown } from './escape-fixture.mjs'
import { noSymlinks, windows } from './platform.mjs'

const RACE_MS = Number(process.env.RACE_MS || 2500)

// Warn-sink lines: an "internal error" from a tool that is not a stub is a failure.
const warned = []
const sink = (line) => warned.push(line)
setWarnSink(sink)
const internalLines = (stubs) => warned.filter((l) => l.includes('internal error') && ![...stubs].some((s) => l.includes(`${s} is not implemented yet`)))

const O = '<out>' // placeholder for the absolute outside directory

const READ_PATHS = [
  '../outside/secret.txt',
  'dir/../../outside/secret.txt',
  `${O}/secret.txt`,
  'file-link',
  'file-chain',
  'dir-link/secret.txt',
  'chain-a/secret.txt',
  `root-link${O}/secret.txt`,
  'rel-up/outside/secret.txt',
  `/proc/self/root${O}/secret.txt`,
  `proc-root${O}/secret.txt`,
  './/dir//..//..//outside//secret.txt',
  'dir-link/sub/deep.txt',
]
const DIR_PATHS = [
  '..',
  '../outside',
  O,
  'dir-link',
  'chain-a',
  'root-link',
  'rel-up',
  `/proc/self/root${O}`,
  '/',
  'dir-link/sub',
  '/proc/self/cwd',
]
const WRITE_PATHS = [
  '../outside/new.txt',
  `${O}/new.txt`,
  'dir-link/new.txt',
  'dir-link/newdir/deeper/new.txt',
  'dangling-out',
  'dangling-dir/new.txt',
  'file-link',
  'chain-a/new.txt',
  `root-link${O}/new.txt`,
  `/proc/self/root${O}/new.txt`,
  'rel-up/outside/new.txt',
  'dir/../../outside/secret.txt',
]

const patchFor = (from, to, body) => `--- ${from}\n+++ ${to}\n${body}`

/** Every attempt: [tool, args, expectation]; `escape` means the result must be path_escape. */
function attempts() {
  const list = []
  for (const p of READ_PATHS) {
    list.push(['read_file', { path: p }, 'escape'])
    list.push(['grep', { pattern: 'SECRET', path: p }, 'escape'])
  }
  for (const p of READ_PATHS) {
    list.push(['find_symbol', { name: 'SECRET', path: p }, 'escape'])
    list.push(['find_references', { name: 'SECRET', path: p }, 'escape'])
    list.push(['repo_map', { path: p }, 'escape'])
  }
  for (const p of READ_PATHS) {
    list.push(['file_stat', { path: p }, 'escape'])
    list.push(['read_image', { path: p }, 'escape'])
    list.push(['diff', { from: p, to: 'in.txt' }, 'escape'])
    list.push(['diff', { from: 'in.txt', to: p }, 'escape'])
    // read_files reports an escaping entry inline and still reads the others.
    list.push(['read_files', { paths: ['in.txt', p, 'dir/a.txt'] }, 'inline-escape'])
  }
  for (const p of ['image-link', 'dir-link/secret.png', '../outside/secret.png', `${O}/secret.png`, `root-link${O}/secret.png`]) {
    list.push(['read_image', { path: p }, 'escape'])
    list.push(['file_stat', { path: p }, 'escape'])
  }
  list.push(['read_files', { paths: READ_PATHS }, 'inline-escape'])
  for (const p of READ_PATHS.slice(0, 8)) {
    list.push(['edit_file', { path: p, old_string: 'tick', new_string: 'TOCK' }, 'escape'])
    list.push(['multi_edit', { path: p, edits: [{ old_string: 'tick', new_string: 'TOCK' }] }, 'escape'])
  }
  for (const p of DIR_PATHS) {
    list.push(['list_dir', { path: p }, 'escape'])
    list.push(['glob', { pattern: '**/*', path: p }, 'escape'])
    list.push(['grep', { pattern: 'SECRET', path: p }, 'escape'])
    list.push(['bash', { command: 'cat secret.txt; ls', cwd: p, timeout_ms: 5000 }, 'escape'])
    list.push(['tree', { path: p }, 'escape'])
    list.push(['tree', { path: p, respect_gitignore: false, depth: 20 }, 'escape'])
    list.push(['file_stat', { path: p }, 'escape'])
    list.push(['find_symbol', { name: 'SECRET', path: p }, 'escape'])
    list.push(['find_references', { name: 'SECRET', path: p }, 'escape'])
    list.push(['repo_map', { path: p }, 'escape'])
  }
  for (const p of WRITE_PATHS) {
    list.push(['write_file', { path: p, content: 'PWNED\n' }, 'escape'])
    list.push(['apply_patch', { patch: patchFor('/dev/null', `b/${p}`, '@@ -0,0 +1 @@\n+PWNED\n') }, 'refused'])
  }
  for (const p of READ_PATHS.slice(0, 8)) {
    list.push(['apply_patch', { patch: patchFor(`a/${p}`, `b/${p}`, '@@ -2 +2 @@\n-tick tock\n+PWNED\n') }, 'refused'])
    list.push(['apply_patch', { patch: patchFor(`a/${p}`, '/dev/null', '@@ -1,2 +0,0 @@\n-x\n-tick tock\n') }, 'refused'])
  }
  // The 0.5 file tools: both ends of move and copy, mkdir, remove, replace scopes and globs.
  for (const p of READ_PATHS) {
    list.push(['move', { source: p, destination: 'stolen.txt' }, 'escape'])
    list.push(['copy', { source: p, destination: 'stolen.txt' }, 'escape'])
    list.push(['remove', { path: p }, 'escape'])
    list.push(['replace', { pattern: 'tick', replacement: 'PWNED', path: p, dry_run: false }, 'escape'])
    list.push(['replace', { pattern: 'SECRET', replacement: 'x', path: p }, 'escape'])
  }
  for (const p of WRITE_PATHS) {
    list.push(['move', { source: 'in.txt', destination: p, overwrite: true }, 'escape'])
    list.push(['copy', { source: 'in.txt', destination: p, overwrite: true }, 'escape'])
    list.push(['mkdir', { path: p }, 'escape'])
    list.push(['mkdir', { path: `${p}/sub` }, 'escape'])
  }
  for (const p of DIR_PATHS) {
    list.push(['mkdir', { path: `${p}/made` }, 'escape'])
    list.push(['remove', { path: p }, 'escape'])
    list.push(['replace', { pattern: 'tick', replacement: 'PWNED', path: p, glob: '**/*', dry_run: false }, 'escape'])
  }
  // A glob cannot lead a replace out of its scope: these find nothing outside, change nothing.
  for (const g of ['../outside/*', '../**/*', `${O}/*`, 'dir-link/*', 'dir-link/**', 'root-link/**/secret.txt', 'rel-up/outside/*', '**/secret.txt']) {
    list.push(['replace', { pattern: 'tick|SECRET', replacement: 'PWNED', glob: g, dry_run: false }, 'no-match'])
  }
  // Renames across the boundary, both ways.
  list.push(['apply_patch', { patch: 'diff --git a/in.txt b/../outside/moved.txt\nrename from in.txt\nrename to ../outside/moved.txt\n' }, 'refused'])
  list.push(['apply_patch', { patch: 'diff --git a/dir-link/secret.txt b/stolen.txt\nrename from dir-link/secret.txt\nrename to stolen.txt\n' }, 'refused'])
  list.push(['apply_patch', { patch: patchFor('a/in.txt', 'b/dir-link/moved.txt', '@@ -1 +1 @@\n-inside\n+PWNED\n') }, 'refused'])
  return list
}

const CODES = new Set(['invalid_input', 'not_found', 'not_a_file', 'is_binary', 'not_an_image', 'no_match', 'ambiguous_match', 'patch_failed', 'io_error', 'timeout', 'aborted', 'output_limit', 'too_large', 'path_escape'])

test('the escape battery: every path-taking tool refuses every way out, and nothing leaks', async (t) => {
  const { outside, sentinel, tools, outsideSnap } = setup()
  const stubs = await stubbedTools(tools, setWarnSink, sink)
  const before = outsideSnap()
  // Where links cannot be made (Wine), the attempts through them are left out; on Windows the
  // /proc ones too (windows_paths.test.mjs has the Windows ways out: drives, UNC, devices).
  const LINKS = /link|chain|rel-up|dangling|proc-root/
  const possible = ([, args]) => {
    const text = JSON.stringify(args)
    // `root-link<out>` is `root-linkC:\…` on Windows: a colon in a name, refused as such.
    return !(noSymlinks && LINKS.test(text)) && !(windows && (text.includes('/proc') || text.includes(`root-link${O}`)))
  }
  const out = JSON.stringify(outside).slice(1, -1) // as it appears inside a JSON string
  const list = attempts()
    .filter(possible)
    .map(([tool, args, want]) => [tool, JSON.parse(JSON.stringify(args).replaceAll(O, out)), want])
  let tried = 0
  let refused = 0
  for (const [tool, args, want] of list) {
    const what = `${tool} ${JSON.stringify(args)}`
    const r = await tools.callTool(tool, args)
    assert.ok(!shown(r).includes(sentinel.secret), `secret leaked: ${what}`)
    if (stubs.has(tool)) continue
    tried++
    if (want === 'no-match') {
      assert.equal(r.text, '(no matches)', `${what} -> ${r.text}`)
      refused++
      continue
    }
    if (want === 'inline-escape') {
      // Every escaping entry is its own inline path_escape line; the inside files are read.
      assert.equal(r.isError, false, `${what} -> ${r.text}`)
      for (const p of args.paths) {
        if (p === 'in.txt' || p === 'dir/a.txt') assert.ok(r.text.includes(`==> ${p} <==\n`), `${what}: ${p} not read`)
        else assert.ok(r.text.includes(`==> ${p} \u2014 path_escape: `), `${what}: ${p} not refused -> ${r.text}`)
      }
      refused++
      continue
    }
    assert.equal(r.isError, true, `succeeded: ${what} -> ${r.text}`)
    const env = JSON.parse(r.text)
    assert.ok(CODES.has(env.error), `bad code ${env.error}: ${what}`)
    if (want === 'escape') assert.equal(env.error, 'path_escape', `${what} -> ${r.text}`)
    refused++
  }
  assert.deepEqual(outsideSnap(), before, 'the outside changed')
  assert.deepEqual(internalLines(stubs), [])
  assert.ok(list.length >= 40)
  t.diagnostic(`escape attempts: ${list.length} generated, ${tried} against implemented tools, ${refused} refused, 0 escaped; stubbed: ${[...stubs].join(',') || 'none'}`)
})

test('walking tools never follow a link out: grep, glob, list_dir and tree over the root', async () => {
  const { sentinel, tools, outsideSnap } = setup()
  const stubs = await stubbedTools(tools, setWarnSink, sink)
  const before = outsideSnap()
  const calls = [
    ['grep', { pattern: 'SECRET', output_mode: 'content' }],
    ['grep', { pattern: 'SECRET', glob: '**/*.txt', output_mode: 'count' }],
    ['grep', { pattern: '.', path: '.', output_mode: 'files_with_matches' }],
    ['glob', { pattern: '**/*' }],
    ['glob', { pattern: '**/*', respect_gitignore: false }],
    ['glob', { pattern: '../**/*' }],
    ['list_dir', {}],
    ['list_dir', { path: 'dir' }],
    ['tree', {}],
    ['tree', { depth: 20, respect_gitignore: false }],
    // The navigation tools walk as grep does; their notes name the files holding the name.
    ['find_symbol', { name: 'SECRET' }],
    ['find_symbol', { name: 'secret', match: 'substring' }],
    ['find_references', { name: 'SECRET' }],
    ['repo_map', {}],
    ['read_files', { paths: ['in.txt', 'dir-link', 'chain-a', 'root-link', 'rel-up'] }],
    ['replace', { pattern: 'SECRET|tick', replacement: 'PWNED', path: '.' }],
    ['replace', { pattern: 'SECRET', replacement: 'PWNED', glob: '**/*', dry_run: false }],
  ]
  for (const [tool, args] of calls) {
    if (stubs.has(tool)) continue
    const r = await tools.callTool(tool, args)
    assert.ok(!r.text.includes(sentinel.secret), `${tool} leaked the secret`)
    assert.ok(!r.text.includes(sentinel.onlyName), `${tool} listed an outside name: ${r.text}`)
    assert.ok(!r.text.includes('deep.txt'), `${tool} walked into the outside: ${r.text}`)
  }
  assert.deepEqual(outsideSnap(), before)
})

test('hard links: confinement is path-based, so a hard link inside IS the outside inode (documented in SECURITY.md)', async () => {
  const { root, outside, tools } = setup()
  const r = await tools.callTool('read_file', { path: 'hard' })
  assert.equal(r.text, '     1\tHARDLINKED')
  assert.equal(fs.statSync(path.join(root, 'hard')).ino, fs.statSync(path.join(outside, 'hard-src.txt')).ino)
})

test('a directory swapped for a symlink to the outside while calls run: zero escapes', { skip: noSymlinks }, async (t) => {
  const { leaks, before, after, stats, restores, flips } = await runRace(RACE_MS, (s) => t.diagnostic(s), sink)
  assert.deepEqual(leaks, [])
  assert.deepEqual(after, before, 'something outside was written')
  // The race must actually have raced: many flips, many calls, both outcomes seen.
  assert.ok(flips > 100, `only ${flips} flips`)
  assert.ok(stats.calls > 100 && stats.ok > 0, JSON.stringify(stats))
  assert.ok(restores.ok + restores.refused > 10, JSON.stringify(restores))
})
