// Terminal monitors (issue 30): a keystroke's round trip through `monitor_write` to a `cat` on
// a terminal, `monitor_screen` of a full 200×60 screen, and the host's RSS while a program
// prints 1 GB through a terminal (in a child process). Absolute targets: there is no peer.
//
// Standalone: `node bench/terminal.mjs [--rounds N]` (after `npm run build`).

import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { createRequire } from 'node:module'
import { childJson, expectOk, median, printTable, skipped, time } from './lib.mjs'

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'monitor-rss-child.mjs')

/** A row judged against an absolute bound (`target.unit`), not a peer. */
function absolute(name, value, target, note, unit) {
  return {
    name,
    ours: value,
    peer: null,
    ratio: value,
    target,
    status: value <= target.value ? 'PASS' : 'MISS',
    note,
    format: (x) => (x == null ? '—' : `${x.toFixed(unit === 'ms' ? 3 : 1)} ${unit}`),
  }
}

const call = async (tools, name, args) => JSON.parse(expectOk(name, await tools.callTool(name, args)))

/** `body(id)` on a monitor started with `args`, stopped afterwards: its row, or the error's
 * (terminal monitors need Unix). */
async function withMonitor(tools, name, target, args, body) {
  if (process.platform === 'win32') return skipped(name, target, 'n/a', 'terminal monitors need Unix')
  let id
  try {
    id = (await call(tools, 'monitor_start', args)).id
    return await body(id)
  } catch (e) {
    return skipped(name, target, 'ERROR', e.message)
  } finally {
    if (id) await tools.callTool('monitor_stop', { id })
  }
}

export async function terminalRows(ctx, want) {
  const rows = []
  const { tools } = ctx

  let name = 'monitor_write keystroke round trip (cat on a tty)'
  let target = { op: '<=', value: 2, unit: 'ms' }
  if (want(name)) {
    rows.push(await withMonitor(tools, name, target, { command: 'cat', tty: true }, async (id) => {
      const turn = async (i) => {
        const r = await call(tools, 'monitor_write', { id, input: `line ${i}\r`, until: `line ${i}\\n[\\s\\S]*line ${i}\\n`, wait_ms: 30000 })
        if (!r.matched) throw new Error(`no echo of line ${i}: ${JSON.stringify(r)}`)
      }
      for (let i = 0; i < 20; i++) await turn(i)
      const samples = []
      const n = 20
      for (let r = 0; r < ctx.rounds.calls * 4; r++) samples.push((await time(async () => { for (let i = 0; i < n; i++) await turn(r * n + i) })) / n)
      return absolute(name, median(samples), target, `monitor_write {input: "line N\\r", until: its echo and cat's copy}, median of ${samples.length} batches of ${n} turns`, 'ms')
    }))
  }

  name = 'monitor_screen 200×60, full screen'
  target = { op: '<=', value: 1, unit: 'ms' }
  if (want(name)) {
    // 60 rows of 200 coloured characters, then a repaint per keystroke: every look feeds the
    // emulator one new screen (12 KB of text and escapes) and renders all 60 rows.
    const paint = "while read x; do printf '\\033[H'; i=0; while [ $i -lt 60 ]; do printf '\\033[3%dm%0200d\\033[0m' $((i % 8)) $i; i=$((i+1)); done; done"
    rows.push(await withMonitor(tools, name, target, { command: paint, tty: { cols: 200, rows: 60 } }, async (id) => {
      await call(tools, 'monitor_write', { id, input: '\r', until: '0{198}59', wait_ms: 30000 })
      const look = async () => {
        const s = await call(tools, 'monitor_screen', { id })
        if (s.rows.length !== 60 || s.rows[59].length !== 200) throw new Error(`bad screen: ${s.rows.length} rows`)
      }
      const still = []
      for (let i = 0; i < 20; i++) await look()
      const n = 50
      for (let r = 0; r < ctx.rounds.calls; r++) still.push((await time(async () => { for (let i = 0; i < n; i++) await look() })) / n)
      // With a repaint fed each time (the repaint's wait untimed).
      const fresh = []
      for (let r = 0; r < ctx.rounds.calls * 4; r++) {
        const before = (await call(tools, 'monitor_screen', { id })).next_offset
        const w = await call(tools, 'monitor_write', { id, input: '\r', wait_ms: 30000, until: '0{198}59[\\s\\S]*$', raw: true })
        if (w.next_offset <= before) throw new Error('no repaint')
        fresh.push(await time(look))
      }
      return absolute(name, median(still), target, `monitor_screen of a 200×60 screen full of coloured text, median of ${still.length} batches of ${n}; after a fresh 12 KB repaint each: ${median(fresh).toFixed(3)} ms`, 'ms')
    }))
  }

  name = 'RSS growth, 1 GB printed through a terminal'
  target = { op: '<=', value: 32, unit: 'MB' }
  if (want(name)) {
    if (process.platform !== 'linux') rows.push(skipped(name, target, 'n/a', 'needs /proc (Linux)'))
    else {
      try {
        const r = await childJson(CHILD, [ctx.scratch, 'tty'], 600_000)
        const grow = (r.hwmKb - r.baseKb) / 1024
        rows.push(absolute(name, grow, target, `host peak RSS (VmHWM) minus its RSS before the start: ${(r.baseKb / 1024).toFixed(1)} → ${(r.hwmKb / 1024).toFixed(1)} MB; ${(r.bytes / 1e9).toFixed(2)} GB in ${(r.ms / 1000).toFixed(1)} s (${(r.bytes / 1e3 / r.ms).toFixed(0)} MB/s), ${r.polls} polls and screens, log at most ${(r.maxLog / 1048576).toFixed(2)} MiB, dropped ${(r.dropped / 1e6).toFixed(0)} MB`, 'MB'))
      } catch (e) {
        rows.push(skipped(name, target, 'ERROR', e.message))
      }
    }
  }
  return rows
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const require = createRequire(import.meta.url)
  const { createAgentTools } = require('../index.js')
  const i = process.argv.indexOf('--rounds')
  const rounds = { calls: i > 0 ? Number(process.argv[i + 1]) : 15 }
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'clarvis-bench-'))
  const filters = process.argv.slice(2).filter((a, j, all) => a !== '--rounds' && all[j - 1] !== '--rounds')
  const want = (n) => filters.length === 0 || filters.some((f) => n.toLowerCase().includes(f))
  try {
    const rows = await terminalRows({ tools: createAgentTools({ workspaceRoot: scratch }), scratch, rounds }, want)
    printTable(rows)
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true })
  }
}
