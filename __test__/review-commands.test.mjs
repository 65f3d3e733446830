// Review mode's commands (SPEC §13 "Commands"): under `sandbox: true` on Linux, a stateless
// bash call sees the staged tree and what it writes is staged, never written to disk, until
// the host accepts it. Skipped where this machine cannot capture (no mount namespace or no
// unprivileged overlayfs, non-Linux, Wine): there bash stays refused (review.test.mjs).
import test from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { isDeepStrictEqual } from 'node:util'
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

// A tools object on root, and the tree as the host sees it before any command: the sandbox
// covers missing protected paths (.bashrc, .git/hooks, …) with empty placeholders while a
// sandboxed process lives, and removes them once none is left (`linux::janitor`).
async function opened(root) {
  return { tools: open(root), before: tree(root) }
}

// Asserts the workspace is `before` again once the placeholders are gone: a captured command
// leaves nothing on disk, placeholders included (bounded wait: the janitor looks at most a
// second apart).
async function untouched(root, before) {
  // A placeholder the janitor removes during the walk makes it fail: walk again.
  const now = () => {
    try {
      return tree(root)
    } catch (e) {
      if (e.code === 'ENOENT') return null
      throw e
    }
  }
  for (let i = 0; i < 1200 && !isDeepStrictEqual(now(), before); i++) await new Promise((res) => setTimeout(res, 25))
  assert.deepEqual(now(), before)
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
  await untouched(root, before)
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
  await untouched(root, before)
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

test('a directory the model made with mkdir is there for a command, and a file written into it is staged', { skip }, async () => {
  const root = ws(FILES)
  const { tools, before } = await opened(root)
  const m = await tools.callTool('mkdir', { path: 'made/deep' })
  assert.equal(m.isError, false, m.text)
  const out = await bash(tools, 'test -d made/deep && echo seen; echo x > made/deep/f.txt')
  assert.equal(out.stdout, 'seen\n')
  await untouched(root, before)
  const pending = await tools.pending()
  assert.deepEqual(pending.filter((c) => !c.directory).map((c) => [c.path, c.kind]), [['made/deep/f.txt', 'created']])
  await tools.accept()
  assert.equal(fs.readFileSync(path.join(root, 'made/deep/f.txt'), 'utf8'), 'x\n')
})

test('a protected path stays denied; a symlink is reported, not staged; a session stays refused', { skip }, async () => {
  const root = ws(FILES)
  const { tools, before } = await opened(root)
  const git = await bash(tools, 'echo evil >> .git/config')
  assert.notEqual(git.exit_code, 0)
  const link = await bash(tools, 'ln -s a.txt link.txt; mkdir newdir')
  assert.equal(link.exit_code, 0)
  // The empty directory is staged as mkdir stages one: accept leaves direct mode's tree.
  assert.match(link.stderr, /\[review: 1 file change staged for review .*; kept as it was: link\.txt \(a symbolic link \(to a\.txt\): not staged\)\]/)
  assert.deepEqual((await tools.pending()).map((c) => [c.path, c.kind, c.directory]), [['newdir', 'created', true]])
  await untouched(root, before)
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

// Polls monitor `id` until it has ended (no timed assertion: the bound only ends a hang).
async function ended(tools, id) {
  const until = Date.now() + 120_000
  for (;;) {
    const r = await tools.callTool('monitor_poll', { id })
    assert.equal(r.isError, false, r.text)
    const p = JSON.parse(r.text)
    if (!p.running) return p
    assert.ok(Date.now() < until, `monitor ${id} still running: ${r.text}`)
    await new Promise((res) => setTimeout(res, 20))
  }
}

async function start(tools, args) {
  const r = await tools.callTool('monitor_start', args)
  assert.equal(r.isError, false, r.text)
  return JSON.parse(r.text)
}

test('a monitor sees the staged tree; what it wrote is pending once a poll says it ended, the disk untouched', { skip }, async () => {
  const root = ws(FILES)
  const { tools, before } = await opened(root)
  await tools.callTool('write_file', { path: 'staged.txt', content: 'from a file tool\n' })
  const { id } = await start(tools, { command: "cat staged.txt; sed -i 's/one/ONE/' a.txt; echo made > m.txt; rm gone.txt" })
  const p = await ended(tools, id)
  assert.equal(p.exit_code, 0)
  assert.match(p.output, /^from a file tool\n/)
  assert.match(p.output, /\[review: 3 file changes staged for review[^\n]*\]$/)
  // Staged before the monitor was reported as ended: no waiting here.
  assert.deepEqual(
    (await tools.pending()).map((c) => [c.path, c.kind]),
    [['a.txt', 'modified'], ['gone.txt', 'deleted'], ['m.txt', 'created'], ['staged.txt', 'created']],
  )
  await untouched(root, before)
  // The scratch directories are gone with the monitor.
  const scope = path.join(root, '.clarvis', 'review')
  assert.deepEqual(fs.readdirSync(scope, { recursive: true }).filter((rel) => /(^|\/)run-/.test(rel)), [])
  await tools.accept()
  assert.equal(fs.readFileSync(path.join(root, 'm.txt'), 'utf8'), 'made\n')
  assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'ONE\ntwo\n')
})

test('monitor_stop mid-write: what the monitor wrote so far is staged before stop returns; nothing of it runs on', { skip }, async () => {
  const root = ws(FILES)
  const { tools, before } = await opened(root)
  const secs = `${300 + Math.floor(Math.random() * 1000)}.5`
  const { id, ready } = await start(tools, {
    command: `echo partial > w.txt; (exec sleep ${secs}) & echo started; exec sleep ${secs}`,
    ready_when: 'started',
  })
  assert.equal(ready, true)
  const stop = await tools.callTool('monitor_stop', { id })
  assert.equal(stop.isError, false, stop.text)
  const pending = await tools.pending()
  assert.deepEqual(pending.map((c) => [c.path, c.kind]), [['w.txt', 'created']])
  assert.match(pending[0].diff, /\+partial/)
  assert.deepEqual(running(['sleep', secs]), [])
  await untouched(root, before)
  // The monitor's files are gone, its marker and note too.
  assert.deepEqual(fs.readdirSync(path.join(root, '.clarvis')).filter((n) => n.includes(id)), [])
})

test('a monitor killed by a signal mid-work: what it wrote is staged by the time a poll says it ended', { skip }, async () => {
  const root = ws(FILES)
  const { tools, before } = await opened(root)
  const { id } = await start(tools, { command: 'echo half > k.txt; kill -9 $$; echo never > n.txt' })
  const p = await ended(tools, id)
  assert.equal(p.exit_code, null)
  assert.match(p.output, /\[review: 1 file change staged for review/)
  assert.deepEqual((await tools.pending()).map((c) => [c.path, c.kind]), [['k.txt', 'created']])
  await untouched(root, before)
})

test('monitor_write reaches a captured monitor; its input\'s effect is staged', { skip }, async () => {
  const root = ws(FILES)
  const { tools, before } = await opened(root)
  const { id } = await start(tools, { command: 'head -n 1 > got.txt', stdin: true })
  const w = await tools.callTool('monitor_write', { id, input: 'typed\n' })
  assert.equal(w.isError, false, w.text)
  const p = await ended(tools, id)
  assert.equal(p.exit_code, 0)
  assert.deepEqual((await tools.pending()).map((c) => c.path), ['got.txt'])
  await untouched(root, before)
  // A monitor started outside review mode writes the disk: input to it is refused.
  const direct = createAgentTools({ workspaceRoot: root, sandbox: true })
  const d = await direct.callTool('monitor_start', { command: 'cat > /dev/null', stdin: true })
  const other = JSON.parse(d.text).id
  try {
    const e = envelope(await tools.callTool('monitor_write', { id: other, input: 'x\n' }))
    assert.equal(e.error, 'invalid_input')
    assert.match(e.message, /^monitor_write is not available in review mode: .*not started in review mode/)
  } finally {
    await direct.callTool('monitor_stop', { id: other })
  }
})

test('the guard sees staged: true for a captured monitor', { skip }, async () => {
  const root = ws(FILES)
  const seen = []
  const tools = open(root, { guard: (ctx) => (seen.push([ctx.tool, ctx.staged]), { verdict: 'allow' }) })
  const { id } = await start(tools, { command: 'true' })
  await ended(tools, id)
  assert.deepEqual(seen.filter(([t]) => t === 'monitor_start'), [['monitor_start', true]])
})

// As an unprivileged user (uid 65534, no capabilities): the capture goes through an
// unprivileged user namespace and overlayfs with `userxattr`. Where this machine refuses
// that, review mode must say so plainly and leave the disk alone — both outcomes are checked.
test('as uid 65534: sed -i and a monitor are staged, or refused with the clear reason, never written', {
  skip: process.platform !== 'linux' || process.getuid?.() !== 0 ? 'needs Linux and root (to run as uid 65534)' : false,
}, async () => {
  const { spawnSync } = await import('node:child_process')
  const dir = fs.mkdtempSync(path.join(base, 'nobody-'))
  fs.chmodSync(base, 0o755)
  fs.chmodSync(dir, 0o777)
  const root = path.join(dir, 'ws')
  put(root, { 'a.txt': 'one\ntwo\n' })
  for (const p of [root, path.join(root, 'a.txt')]) fs.chownSync(p, 65534, 65534)
  const index = new URL('../index.mjs', import.meta.url).pathname
  const script = `
    import { createAgentTools } from ${JSON.stringify(index)}
    const t = createAgentTools({ workspaceRoot: ${JSON.stringify(root)}, review: true, sandbox: true })
    const b = await t.callTool('bash', { command: "sed -i 's/two/TWO/' a.txt; id -u" })
    const out = { bash: b.isError ? JSON.parse(b.text) : JSON.parse(b.text) }
    if (!b.isError) {
      const m = JSON.parse((await t.callTool('monitor_start', { command: 'echo m > m.txt' })).text)
      for (;;) {
        const p = JSON.parse((await t.callTool('monitor_poll', { id: m.id })).text)
        if (!p.running) { out.monitor = p; break }
        await new Promise((r) => setTimeout(r, 20))
      }
      out.pending = (await t.pending()).map((c) => [c.path, c.kind])
    }
    console.log(JSON.stringify(out))`
  const r = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '--input-type=module', '-e', script], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: dir },
    cwd: dir,
  })
  assert.equal(r.status, 0, r.stderr)
  const out = JSON.parse(r.stdout.trim().split('\n').pop())
  if (out.bash.error) {
    // Refused: the reason is the capture's, and names what is missing.
    assert.equal(out.bash.error, 'invalid_input')
    assert.match(out.bash.message, /^bash is not available in review mode: .*commands cannot be captured here: /)
  } else {
    assert.equal(out.bash.stdout, '65534\n')
    assert.match(out.bash.stderr, /^\[review: 1 file change staged/)
    assert.equal(out.monitor.exit_code, 0)
    assert.deepEqual(out.pending, [['a.txt', 'modified'], ['m.txt', 'created']])
  }
  assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'one\ntwo\n')
  assert.equal(fs.existsSync(path.join(root, 'm.txt')), false)
})

test('where the sandbox cannot capture (no user namespaces), bash and monitors are refused with the reason; the disk is untouched', {
  skip: process.platform !== 'linux' ? 'Linux only' : false,
}, async () => {
  const root = ws(FILES)
  // The test-only forcing is honoured with the test hooks' variable set.
  const hooks = process.env.CLARVIS_AGENT_TOOLS_TEST_HOOKS
  process.env.CLARVIS_AGENT_TOOLS_TEST_HOOKS = '1'
  let tools
  try {
    tools = open(root, { sandbox: { __force: ['no-userns'], require: [] } })
  } finally {
    if (hooks === undefined) delete process.env.CLARVIS_AGENT_TOOLS_TEST_HOOKS
    else process.env.CLARVIS_AGENT_TOOLS_TEST_HOOKS = hooks
  }
  for (const [name, args] of [['bash', { command: 'echo x > b.txt' }], ['monitor_start', { command: 'echo x > m.txt' }]]) {
    const e = envelope(await tools.callTool(name, args))
    assert.equal(e.error, 'invalid_input', name)
    assert.match(e.message, new RegExp(`^${name} is not available in review mode: .*commands cannot be captured here: the sandbox has no mount namespace`))
  }
  assert.deepEqual(fs.readdirSync(root).filter((f) => f !== '.clarvis').sort(), ['.git', 'a.txt', 'gone.txt', 'src'])
})

// A host that dies mid-monitor (SPEC §13, "The host dies while a captured monitor runs"): the
// monitor's writes are adopted by the next tools object on the scope once the monitor is gone
// — staged as its exit would have staged them, never left behind unstaged.
test('a host SIGKILLed mid-monitor: a new tools object stages what the monitor wrote once it has ended', { skip }, async () => {
  const { spawn } = await import('node:child_process')
  const root = ws(FILES)
  const before = tree(root)
  const INDEX = new URL('../index.mjs', import.meta.url).href
  const secs = `${300 + Math.floor(Math.random() * 1000)}.5`
  const src = `
    import { createAgentTools } from ${JSON.stringify(INDEX)}
    const tools = createAgentTools({ workspaceRoot: ${JSON.stringify(root)}, review: true, sandbox: true })
    await tools.callTool('write_file', { path: 'seen.txt', content: 'staged first\\n' })
    const r = await tools.callTool('monitor_start', {
      command: "cat seen.txt > copy.txt; sed -i 's/one/ONE/' a.txt; rm gone.txt; echo started; exec sleep ${secs}",
      ready_when: 'started',
    })
    process.stdout.write(r.text + '\\n')
    setInterval(() => {}, 1000)
  `
  const host = spawn(process.execPath, ['--input-type=module', '-e', src], { stdio: ['ignore', 'pipe', 'inherit'] })
  let out = ''
  await new Promise((resolve) => host.stdout.on('data', (d) => (out += d).includes('\n') && resolve()))
  const { id, ready } = JSON.parse(out)
  assert.equal(ready, true)
  const killed = new Promise((resolve) => host.on('exit', resolve))
  host.kill('SIGKILL')
  await killed
  // The monitor outlives its host: while it runs, nothing of it is adopted.
  const tools = open(root)
  assert.deepEqual((await tools.pending()).map((c) => c.path), ['seen.txt'])
  for (const pid of running(['sleep', secs])) process.kill(Number(pid), 'SIGKILL')
  const p = await ended(tools, id)
  assert.equal(p.exit_code, null)
  assert.deepEqual(
    (await tools.pending()).map((c) => [c.path, c.kind]),
    [['a.txt', 'modified'], ['copy.txt', 'created'], ['gone.txt', 'deleted'], ['seen.txt', 'created']],
  )
  // It was shown the staged tree of its start, as a live host's monitor is.
  assert.match((await tools.callTool('read_file', { path: 'copy.txt' })).text, /staged first/)
  // Its last page says what was staged; its scratch directory and marker are gone.
  assert.match((await tools.callTool('monitor_poll', { id })).text, /\[review: 3 file changes staged for review/)
  const scope = path.join(root, '.clarvis', 'review')
  assert.deepEqual(fs.readdirSync(scope, { recursive: true }).filter((rel) => /(^|\/)run-/.test(rel)), [])
  assert.equal(fs.existsSync(path.join(root, '.clarvis', `monitor-${id}.capture`)), false)
  // A second tools object adopts nothing twice.
  assert.equal((await open(root).pending()).length, 4)
  // The disk is as it was (the dead host's sandbox placeholders aside: they are its janitor's).
  for (const rel of ['a.txt', 'gone.txt', 'src/b.js']) assert.equal(fs.readFileSync(path.join(root, rel), 'latin1'), before[rel])
  assert.equal(fs.existsSync(path.join(root, 'copy.txt')), false)
  await tools.accept()
  assert.equal(fs.readFileSync(path.join(root, 'copy.txt'), 'utf8'), 'staged first\n')
  assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'ONE\ntwo\n')
  assert.equal(fs.existsSync(path.join(root, 'gone.txt')), false)
})
