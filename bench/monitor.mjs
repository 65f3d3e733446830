// Monitors (issue 14): monitor_poll of a 16 MiB log against Node reading the same byte range,
// monitor_start of `true` against our bash of `true`, and the host's RSS while a monitor
// prints ~100 MB/s for 10 s (in a child process).

import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { childJson, expectOk, median, row, skipped, time } from './lib.mjs'

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'monitor-rss-child.mjs')
const LOG_BYTES = 16 * 1024 * 1024
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

/** Node's callback `fs.open` / `fs.read` / `fs.close` of `len` bytes at `pos`, decoded as text. */
function nodeRead(file, pos, len) {
  return new Promise((resolve, reject) => {
    fs.open(file, 'r', (err, fd) => {
      if (err) return reject(err)
      const buf = Buffer.allocUnsafe(len)
      fs.read(fd, buf, 0, len, pos, (err2, n) => {
        fs.close(fd, () => (err2 ? reject(err2) : resolve(buf.toString('utf8', 0, n))))
      })
    })
  })
}

/** Starts a monitor that prints exactly 16 MiB of lines and then idles; waits for all of it. */
async function bigMonitor(tools) {
  const command = `yes 'GET /api/items?page=17 200 12.5ms user=4711 trace=0123456789abcdef' | head -c ${LOG_BYTES}; exec sleep 3600`
  const s = JSON.parse(expectOk('monitor_start', await tools.callTool('monitor_start', { command })))
  for (let i = 0; i < 2000; i++) {
    const p = JSON.parse(expectOk('monitor_poll', await tools.callTool('monitor_poll', { id: s.id, offset: 1e15 })))
    if (p.next_offset >= LOG_BYTES) return s.id
    await sleep(20)
  }
  throw new Error('the 16 MiB monitor never finished printing')
}

export async function monitorRows(ctx, want) {
  const rows = []
  const { tools, scratch } = ctx
  const names = ['monitor_poll 16 MiB log, offset 0', 'monitor_poll 16 MiB log, recent offset']
  if (names.some(want)) {
    let id = null
    try {
      id = await bigMonitor(tools)
      const log = path.join(scratch, `.clarvis/monitor-${id}.log`)
      if (fs.statSync(log).size !== LOG_BYTES) throw new Error(`log is ${fs.statSync(log).size} bytes`)
      for (const [name, offset] of [
        [names[0], 0],
        [names[1], LOG_BYTES - 64 * 1024 - 17],
      ]) {
        if (!want(name)) continue
        const target = { op: '<=', value: 1.2 }
        // The page monitor_poll returns (default maxOutputBytes): the peer reads that range.
        const page = JSON.parse(expectOk('monitor_poll', await tools.callTool('monitor_poll', { id, offset })))
        const len = page.next_offset - offset
        const check = await nodeRead(log, offset, len)
        if (!page.output.startsWith(check.slice(0, 1000))) throw new Error('poll and fs.read disagree')
        const ours = async () => expectOk('monitor_poll', await tools.callTool('monitor_poll', { id, offset }))
        const peer = () => nodeRead(log, offset, len)
        const n = 50
        const o = []
        const p = []
        for (let i = 0; i < n; i++) await ours(), await peer()
        for (let r = 0; r < ctx.rounds.calls; r++) {
          o.push((await time(async () => { for (let i = 0; i < n; i++) await ours() })) / n)
          p.push((await time(async () => { for (let i = 0; i < n; i++) await peer() })) / n)
        }
        rows.push(row(name, median(o), median(p), target, `${len} bytes from offset ${offset} (default maxOutputBytes page); peer: fs.open + fs.read of the same range + fs.close, decoded to a string`))
      }
    } catch (e) {
      for (const name of names) if (want(name)) rows.push(skipped(name, { op: '<=', value: 1.2 }, 'ERROR', e.message))
    } finally {
      if (id) await tools.callTool('monitor_stop', { id })
    }
  }

  let name = 'monitor_start `true` vs bash `true`'
  let target = { op: '<=', value: 1.5 }
  if (want(name)) {
    try {
      // Only the start is timed; each monitor is stopped (untimed) right after.
      const ours = async () => {
        let id
        const t = await time(async () => {
          id = JSON.parse(expectOk('monitor_start', await tools.callTool('monitor_start', { command: 'true' }))).id
        })
        expectOk('monitor_stop', await tools.callTool('monitor_stop', { id }))
        return t
      }
      const peer = async () => time(async () => expectOk('bash', await tools.callTool('bash', { command: 'true' })))
      await ours(), await peer()
      const o = []
      const p = []
      for (let r = 0; r < ctx.rounds.spawns; r++) o.push(await ours()), p.push(await peer())
      rows.push(row(name, median(o), median(p), target, 'peer: our bash {command: "true"}; ours: monitor_start {command: "true"} (sidecar, log, relay fork), the stop untimed'))
    } catch (e) {
      rows.push(skipped(name, target, 'ERROR', e.message))
    }
  }

  name = 'RSS growth, monitor printing 100 MB/s for 10 s'
  target = { op: '<=', value: 32, unit: 'MB' }
  if (want(name)) {
    if (process.platform !== 'linux') rows.push(skipped(name, target, 'n/a', 'needs /proc (Linux)'))
    else {
      try {
        const r = await childJson(CHILD, [scratch], 120_000)
        const grow = (r.hwmKb - r.baseKb) / 1024
        rows.push({
          name,
          ours: grow,
          peer: null,
          ratio: grow,
          target,
          status: grow <= target.value ? 'PASS' : 'MISS',
          note: `host peak RSS (VmHWM) minus its RSS before the start: ${(r.baseKb / 1024).toFixed(1)} → ${(r.hwmKb / 1024).toFixed(1)} MB; printed ${(r.bytes / 1e6).toFixed(0)} MB in ${(r.ms / 1000).toFixed(1)} s (${(r.bytes / 1e3 / r.ms).toFixed(0)} MB/s), ${r.polls} polls, dropped ${(r.dropped / 1e6).toFixed(0)} MB, log at most ${(r.maxLog / 1048576).toFixed(2)} MiB`,
          format: (x) => (x == null ? '—' : `${x.toFixed(1)} MB`),
        })
      } catch (e) {
        rows.push(skipped(name, target, 'ERROR', e.message))
      }
    }
  }
  return rows
}
