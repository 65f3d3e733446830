// Review mode's commands (SPEC §13 "Commands"): under `sandbox: true` on Linux, a stateless
// bash call sees the staged tree and what it writes is staged, never written to disk, until
// the host accepts it. Skipped where this machine cannot capture (no mount namespace or no
// unprivileged overlayfs, non-Linux, Wine): there bash stays refused (review.test.mjs).
import test from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { createAgentTools } from '../index.mjs'
import { envelope, put, walkTree } from './helpers.mjs'

// Not under /tmp: the sandbox gives a command its own /tmp, and the overlay's scratch
// directories need a filesystem with user extended attributes.
const target = path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'target')
fs.mkdirSync(target, { recursive: true })
const base = fs.realpathSync(fs.mkdtempSync(path.join(fs.realpathSync(target), 'review-cmd-')))
process.on('exit', () => fs.rmSync(base, { recursive: true, force: true }))
let n = 0

function ws(files) {
  const root = path.join(base, `ws${n++}`)
  put(root, files)
  return root
}

// Every entry under root but .clarvis/: a file's bytes, a link's target, a directory.
function tree(root) {
  return walkTree(root, (rel, p, e) => {
    if (e.isSymbolicLink()) return ['link', fs.readlinkSync(p)]
    return e.isDirectory() ? 'dir' : fs.readFileSync(p, 'latin1')
  })
}

const FILES = { 'a.txt': 'one\ntwo\n', 'src/b.js': 'const b = 1\n', 'gone.txt': 'bye\n', '.git/config': '[core]\n' }

function open(root, extra = {}) {
  return createAgentTools({ workspaceRoot: root, review: true, sandbox: true, ...extra })
}

// A tools object on root, and the tree as the host sees it once the sandbox is up (it makes
// empty placeholders of missing protected paths such as .bashrc, removed with it).
async function opened(root) {
  const tools = open(root)
  await tools.callTool('bash', { command: 'true' })
  return { tools, before: tree(root) }
}

// Whether this machine captures commands: the first call says (refused with the reason
// where it cannot).
const probe = await (async () => {
  if (process.platform !== 'linux') return 'not Linux'
  const root = ws({ 'x.txt': 'x\n' })
  try {
    const r = await open(root).callTool('bash', { command: 'true' })
    return r.isError ? envelope(r).message : null
  } catch (e) {
    return String(e.message || e)
  }
})()
const skip = probe ? `commands cannot be captured here: ${probe}` : false

async function bash(tools, command) {
  const r = await tools.callTool('bash', { command })
  assert.equal(r.isError, false, r.text)
  return JSON.parse(r.text)
}

test('sed -i is staged, not written: pending() shows the diff, accept applies it', { skip }, async () => {
  const root = ws(FILES)
  const { tools, before } = await opened(root)
  const out = await bash(tools, "sed -i 's/two/TWO/' a.txt && cat a.txt")
  assert.equal(out.exit_code, 0)
  assert.equal(out.stdout, 'one\nTWO\n')
  assert.match(out.stderr, /^\[review: 1 file change staged for review/)
  assert.deepEqual(tree(root), before)
  const pending = await tools.pending()
  assert.deepEqual(pending.map((c) => [c.path, c.kind]), [['a.txt', 'modified']])
  assert.match(pending[0].diff, /-two\n\+TWO/)
  // The agent sees its own work through the file tools too.
  assert.match((await tools.callTool('read_file', { path: 'a.txt' })).text, /TWO/)
  assert.deepEqual((await tools.accept()).accepted.map((c) => c.path), ['a.txt'])
  assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'one\nTWO\n')
})

test('a command sees what the file tools staged, and stages over it; rm stages a deletion', { skip }, async () => {
  const root = ws(FILES)
  const { tools, before } = await opened(root)
  const w = await tools.callTool('write_file', { path: 'src/new.js', content: 'staged bytes\n' })
  assert.equal(w.isError, false, w.text)
  await tools.callTool('remove', { path: 'src/b.js' })
  const out = await bash(tools, 'cat src/new.js; ls src; echo more >> src/new.js; rm gone.txt')
  assert.equal(out.stdout, 'staged bytes\nnew.js\n')
  assert.match(out.stderr, /\[review: 2 file changes staged/)
  assert.deepEqual(tree(root), before)
  const pending = await tools.pending()
  assert.deepEqual(
    pending.map((c) => [c.path, c.kind]),
    [['gone.txt', 'deleted'], ['src/b.js', 'deleted'], ['src/new.js', 'created']],
  )
  assert.equal((await tools.callTool('read_file', { path: 'src/new.js' })).text.includes('more'), true)
  await tools.accept(['gone.txt'])
  assert.equal(fs.existsSync(path.join(root, 'gone.txt')), false)
  assert.equal(fs.existsSync(path.join(root, 'src/new.js')), false)
})

test('a protected path stays denied; a symlink is reported, not staged; a session stays refused', { skip }, async () => {
  const root = ws(FILES)
  const { tools, before } = await opened(root)
  const git = await bash(tools, 'echo evil >> .git/config')
  assert.notEqual(git.exit_code, 0)
  const link = await bash(tools, 'ln -s a.txt link.txt; mkdir newdir')
  assert.equal(link.exit_code, 0)
  assert.match(link.stderr, /\[review: no file change staged; kept as it was: link\.txt \(a symbolic link \(to a\.txt\): not staged\)\]/)
  assert.deepEqual(await tools.pending(), [])
  assert.deepEqual(tree(root), before)
  const e = envelope(await tools.callTool('bash', { command: 'echo hi > s.txt', session: 'dev' }))
  assert.equal(e.error, 'invalid_input')
  assert.match(e.message, /^bash is not available in review mode: .*shell session outlives the call/)
  assert.equal(fs.existsSync(path.join(root, 's.txt')), false)
})

test('the guard sees staged: true for a captured bash call, not for a session or direct commands', { skip }, async () => {
  const root = ws(FILES)
  const seen = []
  const guard = (ctx) => {
    seen.push([ctx.tool, ctx.staged])
    return { verdict: 'allow' }
  }
  const tools = open(root, { guard })
  await tools.callTool('bash', { command: 'true' })
  await tools.callTool('bash', { command: 'true', session: 's' })
  const direct = open(root, { guard, review: { commands: 'direct' } })
  await direct.callTool('bash', { command: 'true' })
  assert.deepEqual(seen, [['bash', true], ['bash', undefined], ['bash', undefined]])
})

// Processes whose command line is exactly `args` (the host's /proc sees the sandbox's too).
function running(args) {
  const want = args.join('\0') + '\0'
  return fs.readdirSync('/proc').filter((pid) => {
    try {
      return /^\d+$/.test(pid) && fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1') === want
    } catch {
      return false
    }
  })
}

test('a background process ends with a captured call, so nothing writes after its changes are read', { skip }, async () => {
  const root = ws(FILES)
  const tools = open(root)
  const secs = `${300 + Math.floor(Math.random() * 1000)}.25`
  const out = await bash(tools, `echo early > bg.txt; (exec sleep ${secs}) > /dev/null 2>&1 & echo started`)
  assert.equal(out.stdout, 'started\n')
  assert.deepEqual(running(['sleep', secs]), [])
  assert.deepEqual((await tools.pending()).map((c) => c.path), ['bg.txt'])
})
