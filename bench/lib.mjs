// Shared pieces of the benchmark: timing, interleaved sampling, rows and the table.

import { execFile, spawn } from 'node:child_process'

/** Milliseconds taken by `fn` (awaited). */
export async function time(fn) {
  const t0 = process.hrtime.bigint()
  await fn()
  return Number(process.hrtime.bigint() - t0) / 1e6
}

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}

/**
 * Runs each function once to warm up, then `rounds` times interleaved (A B A B …, or
 * A B C A B C … for more), and returns the median milliseconds of each.
 */
export async function interleaved(fns, rounds) {
  for (const fn of fns) await fn()
  const samples = fns.map(() => [])
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < fns.length; i++) samples[i].push(await time(fns[i]))
  }
  return samples.map(median)
}

/** Runs `n` sequential calls of `fn`; use as one timed sample of a per-call latency. */
export function batch(fn, n) {
  return async () => {
    for (let i = 0; i < n; i++) await fn(i)
  }
}

/**
 * Spawns a command and collects its stdout as Buffers (no decoding: the cheapest way a
 * Node program can take a peer's whole output). Resolves to { code, stdout, stderr }.
 */
export function capture(cmd, args, cwd) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] })
    const out = []
    const err = []
    child.stdout.on('data', (b) => out.push(b))
    child.stderr.on('data', (b) => err.push(b))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString() }))
  })
}

/** Runs `node script ...args` (a measuring child process) and parses the JSON it prints. */
export function childJson(script, args, timeout) {
  return new Promise((resolve, reject) =>
    execFile(process.execPath, [script, ...args], { maxBuffer: 1 << 20, timeout }, (err, stdout, stderr) =>
      err ? reject(new Error(`${script} failed: ${stderr || err.message}`)) : resolve(JSON.parse(stdout)),
    ),
  )
}

// Warn-sink lines of the addon: an unmerged tool's placeholder answers `internal`, with the
// "not implemented yet" detail sent to the warn sink, not into the result.
const warnings = []

/** Routes the addon's warn sink here (call once after loading it). */
export function captureWarnings(setWarnSink) {
  setWarnSink((line) => {
    warnings.push(line)
    if (warnings.length > 100) warnings.shift()
  })
}

/** A tool result that is the "not implemented yet" placeholder of an unmerged tool. */
export function notImplemented(result) {
  if (!result.isError) return false
  if (/not implemented yet/.test(result.text)) return true
  return /"internal"/.test(result.text) && /not implemented yet/.test(warnings[warnings.length - 1] ?? '')
}

/** Throws a readable error unless the tool call succeeded; tags unmerged tools. */
export function expectOk(name, result) {
  if (!result.isError) return result.text
  const e = new Error(`${name} failed: ${result.text.slice(0, 300)}`)
  if (notImplemented(result)) e.notImplemented = true
  throw e
}

export function fmtMs(ms) {
  if (ms == null || Number.isNaN(ms)) return '—'
  if (ms < 1) return `${(ms * 1000).toFixed(1)} µs`
  if (ms < 100) return `${ms.toFixed(2)} ms`
  return `${ms.toFixed(0)} ms`
}

/**
 * Judges a row. `target.op` is '<=' (ratio = ours / peer, lower is better) or '>=' (a
 * speed-up, higher is better); `target.value` null means informational.
 */
export function judge(ratio, target) {
  if (target.value == null || ratio == null || Number.isNaN(ratio)) return 'info'
  return (target.op === '>=' ? ratio >= target.value : ratio <= target.value) ? 'PASS' : 'MISS'
}

export function row(name, ours, peer, target, note = '', ratio = ours / peer) {
  return { name, ours, peer, ratio, target, status: judge(ratio, target), note }
}

export function skipped(name, target, status, note) {
  return { name, ours: null, peer: null, ratio: null, target, status, note }
}

function pad(s, n, right = false) {
  s = String(s)
  return right ? s.padStart(n) : s.padEnd(n)
}

/** Prints the rows as a fixed-width table; notes go on an indented line below their row. */
export function printTable(rows, out = process.stdout) {
  const w = Math.max(28, ...rows.map((r) => r.name.length))
  const head = `${pad('benchmark', w)}  ${pad('ours', 10, true)}  ${pad('peer', 10, true)}  ${pad('ratio', 7, true)}  ${pad('target', 8)}  result`
  out.write(`${head}\n${'-'.repeat(head.length + 2)}\n`)
  for (const r of rows) {
    const unit = r.target.unit || '×'
    const ratio = r.ratio == null || Number.isNaN(r.ratio) ? '—' : `${r.ratio.toFixed(2)}${unit === '×' ? '×' : ` ${unit}`}`
    const target = r.target.value == null ? '—' : `${r.target.op} ${r.target.value}${unit === '×' ? '×' : ` ${unit}`}`
    const fmt = r.format || fmtMs
    out.write(
      `${pad(r.name, w)}  ${pad(fmt(r.ours), 10, true)}  ${pad(fmt(r.peer), 10, true)}  ${pad(ratio, 7, true)}  ${pad(target, 8)}  ${r.status}\n`,
    )
    if (r.note) out.write(`${' '.repeat(4)}${r.note}\n`)
  }
}

/** A numeric command-line flag (`--name N`), or `dflt` when it is absent. */
export function numberArg(name, dflt) {
  const i = process.argv.indexOf(name)
  return i > 0 ? Number(process.argv[i + 1]) : dflt
}
