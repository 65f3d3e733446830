// Peak RSS of a grep over the corpus, measured in child processes (VmHWM from /proc).

import { execFile } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { median, skipped } from './lib.mjs'

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'rss-child.mjs')

function child(mode, corpus) {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [CHILD, mode, corpus], { maxBuffer: 1 << 20 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`rss child (${mode}) failed: ${stderr || err.message}`))
      resolve(JSON.parse(stdout))
    })
  })
}

const mb = (kb) => kb / 1024
const fmtMb = (x) => (x == null ? '—' : `${x.toFixed(1)} MB`)

export async function memoryRows(ctx, want) {
  const rows = []
  const cases = [
    ['peak RSS grep content, common', 'grep', { op: '<=', value: 64, unit: 'MB' }, 'default config'],
    ['peak RSS grep content, full', 'grep-full', { op: '<=', value: null, unit: 'MB' }, 'maxOutputBytes 1 GiB: the whole result text is held, so this one grows with it'],
  ]
  if (process.platform !== 'linux') {
    for (const [name, , target] of cases) if (want(name)) rows.push(skipped(name, target, 'n/a', 'needs /proc (Linux)'))
    return rows
  }
  for (const [name, mode, target, what] of cases) {
    if (!want(name)) continue
    try {
      const idle = []
      const busy = []
      let last = null
      for (let i = 0; i < ctx.rounds.memory; i++) {
        idle.push((await child('idle', ctx.corpus)).hwmKb)
        last = await child(mode, ctx.corpus)
        if (last.result.isError) {
          const e = new Error(`grep failed: ${last.result.head}`)
          e.notImplemented = /not implemented yet/.test(last.result.head)
          throw e
        }
        busy.push(last.hwmKb)
      }
      const i = mb(median(idle))
      const b = mb(median(busy))
      rows.push({
        name,
        ours: b,
        peer: i,
        ratio: b - i,
        target,
        status: target.value == null ? 'info' : b - i <= target.value ? 'PASS' : 'MISS',
        note: `${what}; ours = peak RSS of the grepping process, peer column = idle process with the addon loaded and tools created, ratio column = the difference; result text ${(last.result.bytes / 1e6).toFixed(1)} MB`,
        format: fmtMb,
      })
    } catch (e) {
      rows.push(skipped(name, target, e.notImplemented ? 'n/a' : 'ERROR', e.notImplemented ? 'grep not implemented yet' : e.message))
    }
  }
  return rows
}
