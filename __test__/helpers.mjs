// Shared test helpers: scratch workspaces and envelope parsing.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { createAgentTools } from '../index.mjs'

const scratchDirs = []
process.on('exit', () => {
  for (const dir of scratchDirs) fs.rmSync(dir, { recursive: true, force: true })
})

/** A fresh scratch directory (removed at process exit). Realpath'd, so it equals workspaceRoot. */
export function scratch(prefix = 'cat-') {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))
  scratchDirs.push(dir)
  return dir
}

/** Writes `files` ({ 'rel/path': content }) under `root`, making directories. */
export function put(root, files) {
  for (const [rel, content] of Object.entries(files)) {
    const p = path.join(root, rel)
    fs.mkdirSync(path.dirname(p), { recursive: true })
    fs.writeFileSync(p, content)
  }
}

/**
 * Every entry under `root` but `.clarvis/`, as `{ rel: entry(rel, path, dirent) }`
 * (directories walked after their own entry; `undefined` leaves an entry out).
 */
export function walkTree(root, entry) {
  const out = {}
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name)
      const rel = path.relative(root, p)
      if (rel === '.clarvis') continue
      const v = entry(rel, p, e)
      if (v !== undefined) out[rel] = v
      if (e.isDirectory()) walk(p)
    }
  }
  walk(root)
  return out
}

/**
 * A workspace with `files` ({ 'rel/path': content }) and tools over it, under
 * `compat: "0.1"` unless `options.compat` says otherwise: the suites written for 0.1 assert
 * its exact contract (results `{ isError, text }`, strict schemas, nine tools).
 */
export function workspace(files = {}, options = {}) {
  const root = scratch()
  put(root, files)
  const tools = createAgentTools({ workspaceRoot: root, compat: '0.1', ...options })
  return { root, tools, call: (name, args, signal) => tools.callTool(name, args, signal) }
}

/** `workspace()` on the latest (0.5) surface: every tool, content results, relaxed schemas. */
export function latest(files = {}, options = {}) {
  return workspace(files, { compat: 'latest', ...options })
}

/** Sets every entry under `root` (but .git) an hour back, so no timestamp is "racy" and the
 * index, not the racy-file fallback, answers. */
export function age(root) {
  const then = new Date(Date.now() - 3600_000)
  const visit = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (e.name === '.git') continue
      const p = path.join(dir, e.name)
      if (e.isDirectory()) visit(p)
      fs.utimesSync(p, then, then)
    }
  }
  visit(root)
  fs.utimesSync(root, then, then)
}

/** `git(...args)` in `root` (fixed identity, no hooks), throwing on failure; a new repository
 * whose `main` branch holds everything in `root` when `init` is set. */
export function gitIn(root, { init = false } = {}) {
  const git = (...a) => {
    const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', '-c', 'core.hooksPath=/dev/null', ...a], { cwd: root, encoding: 'utf8' })
    if (r.status !== 0) throw new Error(`git ${a.join(' ')}: ${r.stderr}`)
  }
  if (init) {
    git('init', '-q')
    git('checkout', '-q', '-b', 'main')
    git('add', '-A')
    git('commit', '-q', '-m', 'main')
  }
  return git
}

/** Parses an error result's envelope, asserting it is one. */
export function envelope(result) {
  if (!result.isError) throw new Error(`expected an error, got: ${result.text}`)
  return JSON.parse(result.text)
}

// Synchronisation without timing: a test waits for a condition or a marker the command
// writes, never for a fixed time, and never fails because the machine was slow.

/**
 * Polls `cond` (sync or async) until it holds. `ms` only guards against a hang — it is no
 * measurement: keep it far beyond any load (a failure then means the condition never came).
 */
export async function eventually(cond, what, ms = 120_000) {
  const deadline = Date.now() + ms
  for (;;) {
    const v = await cond()
    if (v) return v
    if (Date.now() > deadline) throw new Error(`never happened (${ms} ms): ${what}`)
    await new Promise((r) => setTimeout(r, 10))
  }
}

/**
 * Whether process `pid` can never run its own code again: gone, a zombie, exiting, or with
 * SIGKILL pending (the kernel queues it to every thread at once and it cannot be caught).
 * This is what "killed" means the moment a kill returns, on a loaded machine as on an idle
 * one; "gone from /proc" needs the victim to be scheduled first.
 */
export function dead(pid) {
  let stat, status
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1')
    status = fs.readFileSync(`/proc/${pid}/status`, 'latin1')
  } catch {
    return true
  }
  const [state, , , , , , flags] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  if (state === 'Z' || state === 'X' || (Number(flags) & 0x4) !== 0) return true // PF_EXITING
  const pending = (name) => BigInt(`0x${status.match(new RegExp(`^${name}:\\s*([0-9a-f]+)`, 'm'))?.[1] ?? '0'}`)
  return ((pending('SigPnd') | pending('ShdPnd')) & (1n << 8n)) !== 0n // SIGKILL is signal 9
}

/**
 * Runs a command whose test needs it to reach a point (a trap set, a line printed) before its
 * timeout fires. The timer starts at spawn, so on a loaded machine it can fire first; such a
 * run says nothing about what is tested, so `attempt(timeoutMs)` is repeated with four times
 * the timeout until `armed(result)` shows the point was reached, and that run is returned.
 */
export async function beforeTheTimeout(attempt, armed, timeoutMs = 400) {
  for (let ms = timeoutMs; ; ms *= 4) {
    const r = await attempt(ms)
    if (armed(r) || ms > 100_000) return r
  }
}

/**
 * Starts a monitor from a separate Node host (`createAgentTools(options)`), then SIGKILLs
 * that host: the monitor lives on without it. Resolves to the monitor's id once the host is
 * gone.
 */
export async function monitorOfAKilledHost(options, command) {
  const { spawn } = await import('node:child_process')
  const index = new URL('../index.mjs', import.meta.url).pathname
  const script = `
    import { createAgentTools } from ${JSON.stringify(index)}
    const t = createAgentTools(${JSON.stringify(options)})
    const r = await t.callTool('monitor_start', { command: ${JSON.stringify(command)} })
    process.stdout.write(JSON.parse(r.text).id + '\\n')
    setInterval(() => {}, 1000)
  `
  const host = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] })
  const id = await new Promise((resolve, reject) => {
    let out = ''
    host.stdout.on('data', (d) => {
      out += d
      if (out.includes('\n')) resolve(out.trim())
    })
    host.on('exit', () => reject(new Error('host exited early')))
  })
  host.kill('SIGKILL')
  await new Promise((r) => host.on('exit', r))
  return id
}
