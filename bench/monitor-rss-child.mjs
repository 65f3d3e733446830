// Child process of the monitor memory rows: loads the addon, creates tools in `<scratch>/rss`,
// starts a monitor that prints ~100 MB/s for 10 s (a paced writer) — or, with `tty`, a
// terminal monitor printing 1 GB of coloured lines as fast as the terminal takes them, whose
// screen is read too — polls it every 100 ms like an agent would, and prints its peak RSS
// growth as JSON. Linux only (/proc).
//
// Usage: node bench/monitor-rss-child.mjs <scratch> [tty]

import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const { createAgentTools } = require('../index.js')
const tty = process.argv[3] === 'tty'
const root = path.join(process.argv[2], tty ? 'tty-rss' : 'rss')
fs.mkdirSync(root, { recursive: true })
const tools = createAgentTools({ workspaceRoot: root })
const call = async (name, args) => {
  const r = await tools.callTool(name, args)
  if (r.isError) throw new Error(`${name}: ${r.text}`)
  return JSON.parse(r.text)
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))
const statusKb = (key) => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(fs.readFileSync('/proc/self/status', 'utf8'))[1])

// The writer: 1 MB of text lines every 10 ms, with blocking writes, for 10 s.
const writer = path.join(root, 'writer.cjs')
fs.writeFileSync(
  writer,
  `const fs = require('fs')
const line = 'GET /api/items?page=17 200 12.5ms user=4711 trace=0123456789abcdef\\n'
const chunk = Buffer.from(line.repeat(Math.ceil(1e6 / line.length))).subarray(0, 1e6)
const t0 = Date.now()
const sab = new Int32Array(new SharedArrayBuffer(4))
for (let i = 0; i < 1000; i++) {
  fs.writeSync(1, chunk)
  const wait = t0 + (i + 1) * 10 - Date.now()
  if (wait > 0) Atomics.wait(sab, 0, 0, wait)
}
`,
)
// Warm up (the first calls load what they need), then measure from here.
const warm = await call('monitor_start', { command: 'printf "\\033[31mwarm\\033[0m\\n"', tty })
await sleep(100)
await call('monitor_poll', { id: warm.id })
if (tty) await call('monitor_screen', { id: warm.id })
await call('monitor_stop', { id: warm.id })
global.gc?.()
try {
  fs.writeFileSync('/proc/self/clear_refs', '5') // resets VmHWM to the current RSS
} catch {}
const baseKb = statusKb('VmRSS')
const t0 = Date.now()
const line = 'GET /api/items?page=17 \\033[32m200\\033[0m 12.5ms user=4711 trace=0123456789abcdef'
const command = tty
  ? `yes "$(printf '${line}')" | head -c 1000000000`
  : `exec ${JSON.stringify(process.execPath)} ${JSON.stringify(writer)}`
const s = await call('monitor_start', { command, tty })
const log = path.join(root, `.clarvis/monitor-${s.id}.log`)
let offset = 0
let polls = 0
let dropped = 0
let maxLog = 0
let p
for (;;) {
  await sleep(100)
  p = await call('monitor_poll', { id: s.id, offset })
  if (tty) await call('monitor_screen', { id: s.id })
  polls++
  dropped += p.dropped ?? 0
  offset = p.next_offset
  try {
    maxLog = Math.max(maxLog, fs.statSync(log).size)
  } catch {}
  if (!p.running) break
}
const ms = Date.now() - t0
const end = await call('monitor_poll', { id: s.id, offset: 1e15 })
await call('monitor_stop', { id: s.id })
const hwmKb = statusKb('VmHWM')
process.stdout.write(JSON.stringify({ baseKb, hwmKb, bytes: end.next_offset, ms, polls, dropped, maxLog, exit: p.exit_code }) + '\n')
