// bash: the success JSON, exit codes and signals, cwd rules, the output budget and spill
// files, the capture ceiling, timeouts, aborts, and that nothing it started survives.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { workspace, envelope, dead, beforeTheTimeout } from './helpers.mjs'
import { sweepSpillDir } from '../index.mjs'
import { noModes, noSh, noSignals, noSymlinks, windows } from './platform.mjs'

// Every command this file runs exports MARK, so the last test can prove no process of the
// suite is left behind.
const MARK = `CLARVIS_BASH_TEST_MARK=${crypto.randomUUID()}`
const marked = (command) => `export ${MARK}; ${command}`
const bash = (ws, args, signal) => ws.call('bash', { ...args, command: marked(args.command) }, signal)

function markedPids() {
  const pids = []
  if (!fs.existsSync('/proc')) return pids // Windows: the group tests that need it skip there
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const env = fs.readFileSync(`/proc/${name}/environ`)
      if (env.toString('latin1').split('\0').includes(MARK)) pids.push(Number(name))
    } catch {
      // Gone, or not ours to read.
    }
  }
  return pids
}

function alive(pid) {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  // A zombie still answers kill(0); it no longer runs.
  try {
    return !/^\S+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'))
  } catch {
    return false
  }
}

const readPid = (ws, file) => Number(fs.readFileSync(path.join(ws.root, file), 'utf8').trim())
const ok = (r) => {
  assert.equal(r.isError, false, r.text)
  return JSON.parse(r.text)
}

test('success is JSON with keys in contract order; non-zero exit is a success', { skip: noSh }, async () => {
  const ws = workspace()
  const r = await ws.call('bash', { command: 'echo out; echo err >&2; exit 7' })
  assert.deepEqual(r, {
    isError: false,
    text: '{"exit_code":7,"stdout":"out\\n","stderr":"err\\n","signal":null,"timed_out":false}',
  })
  assert.deepEqual(Object.keys(JSON.parse(r.text)), ['exit_code', 'stdout', 'stderr', 'signal', 'timed_out'])
})

test('a signal-killed shell reports 128 + signal number and the signal name', { skip: noSignals || noSh }, async () => {
  const ws = workspace()
  assert.deepEqual(ok(await ws.call('bash', { command: 'kill -TERM $$' })), {
    exit_code: 143,
    stdout: '',
    stderr: '',
    signal: 'SIGTERM',
    timed_out: false,
  })
  const k = ok(await ws.call('bash', { command: 'echo before; kill -KILL $$' }))
  assert.equal(k.exit_code, 137)
  assert.equal(k.signal, 'SIGKILL')
  assert.equal(k.stdout, 'before\n')
})

test('stdout and stderr stay separate, stdin is closed, the marker env is set', { skip: noSh }, async () => {
  const ws = workspace()
  const r = ok(await ws.call('bash', { command: 'for i in 1 2 3; do echo o$i; echo e$i >&2; done; cat; echo "[$CLARVIS_CALL_ID]"' }))
  assert.equal(r.stderr, 'e1\ne2\ne3\n')
  assert.match(r.stdout, /^o1\no2\no3\n\[\d+-\d+-\d+-[0-9a-f]{12}\]\n$/)
})

test('cwd: default and empty string are the root', { skip: noSh }, async () => {
  const ws = workspace({ 'sub/f.txt': 'x', 'file.txt': 'x' })
  // Git for Windows' sh prints the directory in its own form: `pwd -W` gives C:/…
  const real = windows ? fs.realpathSync(ws.root).replaceAll('\\', '/') : fs.realpathSync(ws.root)
  const pwd = windows ? 'pwd -W' : 'pwd -P'
  assert.equal(ok(await ws.call('bash', { command: pwd })).stdout, `${real}\n`)
  assert.equal(ok(await ws.call('bash', { command: pwd, cwd: '' })).stdout, `${real}\n`)
  assert.equal(ok(await ws.call('bash', { command: 'ls', cwd: 'sub' })).stdout, 'f.txt\n')
})

test('cwd: missing, file and outside are refused', async () => {
  const ws = workspace({ 'sub/f.txt': 'x', 'file.txt': 'x' })
  assert.deepEqual(envelope(await ws.call('bash', { command: 'true', cwd: 'nope' })), {
    error: 'not_found',
    message: 'No such file: nope',
    path: 'nope',
  })
  assert.deepEqual(envelope(await ws.call('bash', { command: 'true', cwd: 'file.txt' })), {
    error: 'not_a_file',
    message: 'Not a directory: file.txt',
    path: 'file.txt',
  })
  assert.equal(envelope(await ws.call('bash', { command: 'true', cwd: '..' })).error, 'path_escape')
})

test('a NUL byte in the command is a spawn failure without fields', async () => {
  const ws = workspace()
  const e = envelope(await ws.call('bash', { command: 'echo a\0b' }))
  assert.deepEqual(Object.keys(e), ['error', 'message'])
  assert.equal(e.error, 'io_error')
  assert.match(e.message, /^Failed to spawn command: /)
})

test('an unsearchable cwd fails after starting: Failed to run command', { skip: noModes || process.getuid?.() === 0 && 'root can enter any directory' }, async () => {
  const ws = workspace({ 'locked/x': '' })
  fs.chmodSync(path.join(ws.root, 'locked'), 0o000)
  try {
    const e = envelope(await ws.call('bash', { command: 'true', cwd: 'locked' }))
    assert.deepEqual(Object.keys(e), ['error', 'message'])
    assert.match(e.message, /^Failed to run command: EACCES/)
  } finally {
    fs.chmodSync(path.join(ws.root, 'locked'), 0o755)
  }
})

test('a stream over its budget is spilled whole and shown as head + marker + tail', { skip: noSh }, async () => {
  const ws = workspace({}, { maxOutputBytes: 1024 })
  const r = ok(await bash(ws, { command: 'seq 1 5000; echo tiny >&2' }))
  const full = Array.from({ length: 5000 }, (_, i) => `${i + 1}\n`).join('')
  assert.equal(r.stderr, 'tiny\n', 'a stream within half keeps all of it')
  const m = r.stdout.match(/\n\[\.\.\. output truncated: (\d+) of (\d+) bytes shown; full output written to (\.clarvis\/bash-\d+-\d+-\d+-[0-9a-f]{12}\.stdout\.log) \.\.\.\]\n/)
  assert.ok(m, r.stdout)
  assert.equal(Number(m[2]), full.length)
  assert.ok(r.stdout.startsWith('1\n2\n3\n'), 'the first lines are shown')
  assert.ok(r.stdout.endsWith('4999\n5000\n'), 'the last lines are shown')
  const [head, tail] = r.stdout.split(m[0])
  assert.equal(Number(m[1]), Buffer.byteLength(head) + 1 + Buffer.byteLength(tail))
  assert.ok(Buffer.byteLength(tail) > Buffer.byteLength(head), 'the tail gets the larger share')
  assert.ok(Buffer.byteLength(r.stdout) + Buffer.byteLength(r.stderr) <= 1024, 'the views share the budget')
  assert.equal(fs.readFileSync(path.join(ws.root, m[3]), 'utf8'), full)
  assert.equal(fs.readFileSync(path.join(ws.root, '.clarvis/.gitignore'), 'utf8'), '*\n')
})

test('both streams over half: stderr gets floor(max/2), each spills to its own file', { skip: noSh }, async () => {
  const ws = workspace({}, { maxOutputBytes: 1025 })
  const r = ok(await bash(ws, { command: 'seq 1 3000; seq 1 3000 >&2' }))
  assert.ok(Buffer.byteLength(r.stderr) <= 512, `${Buffer.byteLength(r.stderr)}`)
  assert.ok(Buffer.byteLength(r.stdout) <= 513)
  const out = r.stdout.match(/full output written to (\S+\.stdout\.log) /)[1]
  const err = r.stderr.match(/full output written to (\S+\.stderr\.log) /)[1]
  const full = Array.from({ length: 3000 }, (_, i) => `${i + 1}\n`).join('')
  assert.equal(fs.readFileSync(path.join(ws.root, out), 'utf8'), full)
  assert.equal(fs.readFileSync(path.join(ws.root, err), 'utf8'), full)
})

test('the marker omits the file when the spill cannot be written', { skip: noSh }, async () => {
  const ws = workspace({ '.clarvis': 'a file where the spill directory should be' }, { maxOutputBytes: 1024 })
  const r = ok(await bash(ws, { command: 'seq 1 5000' }))
  assert.match(r.stdout, /\n\[\.\.\. output truncated: \d+ of 23893 bytes shown \.\.\.\]\n/)
})

test('output that is not UTF-8 is shown with replacement characters', { skip: noSh }, async () => {
  const ws = workspace()
  assert.equal(ok(await ws.call('bash', { command: "printf 'a\\377b'" })).stdout, 'a\uFFFDb')
})

test('a stream past the capture ceiling kills the group: output_limit, memory bounded', { skip: noSignals || noSh }, async () => {
  const ws = workspace()
  const rss = process.memoryUsage().rss
  const r = await bash(ws, { command: 'yes & echo $! > yes.pid; wait' })
  const e = envelope(r)
  assert.equal(e.error, 'output_limit')
  assert.equal(e.message, 'Command output exceeded 8388608 bytes on a single stream and was killed')
  assert.equal(e.max_capture_bytes, 8388608)
  assert.equal(e.stderr, '')
  assert.ok(e.stdout.startsWith('y\ny\n'))
  assert.ok(Buffer.byteLength(e.stdout) <= 131072, 'partial output is bounded')
  assert.ok(dead(readPid(ws, 'yes.pid')), 'yes was killed')
  assert.ok(process.memoryUsage().rss - rss < 64 * 1024 * 1024, 'memory stays bounded')
})

test('timeout kills the whole group, grandchildren and escapees included', { skip: noSignals || noSh }, async () => {
  const ws = workspace()
  // `partial` comes once both pid files are written; a run whose timer fired earlier is retried.
  const { ms, r } = await beforeTheTimeout(
    async (ms) => ({ ms, r: await bash(ws, {
      command: 'sleep 100 & echo $! > child.pid; setsid sleep 101 & echo $! > escaped.pid; echo partial; sleep 102',
      timeout_ms: ms,
    }) }),
    ({ r }) => JSON.parse(r.text).stdout === 'partial\n',
  )
  assert.deepEqual(envelope(r), {
    error: 'timeout',
    message: `Command exceeded ${ms}ms`,
    timeout_ms: ms,
    stdout: 'partial\n',
    stderr: '',
  })
  assert.ok(dead(readPid(ws, 'child.pid')), 'the backgrounded grandchild is dead')
  assert.ok(dead(readPid(ws, 'escaped.pid')), 'the setsid escapee is dead')
})

test('timeout_ms over bashTimeoutMaxMs is clamped, not refused', { skip: noSh }, async () => {
  const ws = workspace({}, { bashTimeoutMs: 200, bashTimeoutMaxMs: 300 })
  // Unclamped, `sleep 100` would end the call with a success long after.
  const e = envelope(await bash(ws, { command: 'sleep 100', timeout_ms: 100000 }))
  assert.equal(e.message, 'Command exceeded 300ms')
  assert.equal(e.timeout_ms, 300)
  const d = envelope(await bash(ws, { command: 'sleep 100' }))
  assert.equal(d.message, 'Command exceeded 200ms', 'the default applies without timeout_ms')
})

test('the call ends with the shell: backgrounded processes never hold it open', { skip: noSh }, async () => {
  const ws = workspace()
  for (const command of [
    'sleep 100 > /dev/null 2>&1 & echo $! > bg.pid; echo started',
    // This one keeps the pipes open: only the drain bounds the wait.
    'sleep 100 & echo $! > bg.pid; echo started',
  ]) {
    const r = ok(await bash(ws, { command }))
    assert.equal(r.stdout, 'started\n')
    const pid = readPid(ws, 'bg.pid')
    // Had the call waited for it, `sleep 100` would be over.
    assert.ok(alive(pid), 'a normal exit leaves background processes running')
    process.kill(pid, 'SIGKILL')
  }
})

test('abort mid-command kills the group and returns aborted', { skip: noSignals || noSh }, async () => {
  const ws = workspace()
  const ac = new AbortController()
  // Aborted once `before` is out (after child.pid is written), not after a guessed delay.
  const r = await bash(ws, { command: 'sleep 100 & echo $! > child.pid; echo before; sleep 101' }, {
    signal: ac.signal,
    onOutput: ({ text }) => { if (text.includes('before')) ac.abort() },
  })
  assert.deepEqual(envelope(r), {
    error: 'aborted',
    message: 'Command aborted (run cancelled)',
    stdout: 'before\n',
    stderr: '',
  })
  assert.ok(dead(readPid(ws, 'child.pid')))
})

test('a pre-aborted signal never starts the command', async () => {
  const ws = workspace()
  const r = await ws.call('bash', { command: 'touch ran' }, AbortSignal.abort())
  assert.deepEqual(r, {
    isError: true,
    text: '{"error":"aborted","message":"Command aborted (run cancelled)","stdout":"","stderr":""}',
  })
  assert.equal(fs.existsSync(path.join(ws.root, 'ran')), false)
  // Aborted outranks a timeout that is due at once.
  assert.equal(envelope(await bash(ws, { command: 'sleep 100', timeout_ms: 1 }, AbortSignal.abort())).error, 'aborted')
})

test('sweepSpillDir removes old bash-* files only', { skip: noSymlinks }, async () => {
  const ws = workspace({
    '.clarvis/bash-old.stdout.log': 'old',
    '.clarvis/bash-new.stdout.log': 'new',
    '.clarvis/other-old.log': 'not a spill file',
    '.clarvis/bash-dir/x': 'inside a directory',
  })
  const dir = path.join(ws.root, '.clarvis')
  fs.symlinkSync('bash-old.stdout.log', path.join(dir, 'bash-link'))
  const old = new Date(Date.now() - 25 * 3600 * 1000)
  for (const f of ['bash-old.stdout.log', 'other-old.log', 'bash-dir']) fs.utimesSync(path.join(dir, f), old, old)
  fs.lutimesSync(path.join(dir, 'bash-link'), old, old)
  assert.equal(await sweepSpillDir(ws.root), undefined)
  assert.deepEqual(fs.readdirSync(dir).sort(), ['bash-dir', 'bash-link', 'bash-new.stdout.log', 'other-old.log'])
  // Missing directory, missing root, junk: resolves all the same.
  assert.equal(await sweepSpillDir(workspace().root), undefined)
  assert.equal(await sweepSpillDir('/nonexistent/root'), undefined)
})

after(() => {
  // Killed is dead at once (see `dead`); a survivor is a process still able to run.
  const left = markedPids().filter((pid) => !dead(pid))
  for (const pid of left) process.kill(pid, 'SIGKILL')
  assert.deepEqual(left, [], 'processes left behind by the bash suite')
})
