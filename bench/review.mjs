// Review mode (issue 32): what staging costs. Each row runs the same calls on two workspaces
// of identical content — one in review mode, one direct — interleaved: a staged edit_file
// against the direct one, read_file and grep with 100 files staged against the same reads
// of the direct tree holding the same 100 changes, and accept of 100 staged changes against
// an apply_patch of the same changes.

import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import { execFileSync } from 'node:child_process'
import { expectOk, median, row, skipped, time } from './lib.mjs'

const require = createRequire(import.meta.url)

const FILES = 2000
const STAGED = 100

const source = (i, tag = 'step') =>
  Array.from({ length: 200 }, (_, n) => `    let value_${n} = compute_${i}(${n}); // ${tag} ${n}`).join('\n') + '\n'

// A tree of FILES source files in 40 directories.
function makeTree(dir) {
  for (let i = 0; i < FILES; i++) {
    const d = path.join(dir, `d${i % 40}`)
    fs.mkdirSync(d, { recursive: true })
    fs.writeFileSync(path.join(d, `f${i}.rs`), source(i))
  }
}
const rel = (i) => `d${i % 40}/f${i}.rs`

// Paired, alternating runs: each round times both sides, the first one first in even rounds
// and second in odd ones (a machine shared with other work drifts; a fixed order would give
// one side the warmer cache or the quieter moment). One warm-up each. The ratio is the
// median of the rounds' own ratios, which cancels the load both sides of a round shared.
async function paired(ours, peer, rounds, prepare = async () => {}) {
  await prepare()
  await ours()
  await peer()
  const a = []
  const b = []
  for (let r = 0; r < rounds; r++) {
    await prepare()
    if (r % 2) {
      b.push(await time(peer))
      a.push(await time(ours))
    } else {
      a.push(await time(ours))
      b.push(await time(peer))
    }
  }
  return { ours: median(a), peer: median(b), ratio: median(a.map((x, i) => x / b[i])) }
}

// Writes the dirty pages of earlier steps out before a timed one (sync(1)): an fsync pays
// for what is dirty in the file system's journal, and the untimed staging of one side must
// not be billed to the other side's fsyncs, nor its own.
function settleDisk() {
  if (process.platform !== 'win32') execFileSync('sync')
}

export async function reviewRows(ctx, want) {
  const rows = []
  const { createAgentTools } = require('../index.js')
  const base = path.join(ctx.scratch, 'review')
  const dirs = { direct: path.join(base, 'direct'), staged: path.join(base, 'staged') }
  for (const d of Object.values(dirs)) makeTree(d)
  const direct = createAgentTools({ workspaceRoot: dirs.direct, searchIndex: 'off' })
  const staged = createAgentTools({ workspaceRoot: dirs.staged, searchIndex: 'off', review: true })
  const attempt = async (name, target, fn) => {
    if (!want(name)) return
    try {
      rows.push(await fn())
    } catch (e) {
      rows.push(skipped(name, target, 'ERROR', e.message))
    }
  }

  let name = 'review: staged edit_file vs direct'
  await attempt(name, { op: '<=', value: 1.0 }, async () => {
    const flipper = (tools) => {
      let flip = 0
      return async () => {
        const [a, b] = flip++ % 2 ? ['STEP ', 'step '] : ['step ', 'STEP ']
        const edit = (t) => `compute_7(7); // ${t}7`
        expectOk('edit_file', await tools.callTool('edit_file', { path: rel(7), old_string: edit(a), new_string: edit(b) }))
      }
    }
    const p = await paired(flipper(staged), flipper(direct), ctx.rounds.edits)
    return row(name, p.ours, p.peer, { op: '<=', value: 1.0 }, 'peer: the same edit_file on a direct tools object (a 200-line file); paired alternating rounds, median of per-round ratios', p.ratio)
  })

  // 100 files changed in both trees: staged in one, written in the other.
  for (let i = 0; i < STAGED; i++) {
    const args = { path: rel(i * 13), content: source(i * 13, 'staged') + `// NeedleStaged ${i}\n` }
    expectOk('write_file', await staged.callTool('write_file', args))
    expectOk('write_file', await direct.callTool('write_file', args))
  }
  if ((await staged.pending()).length !== STAGED) throw new Error('review bench: the staging did not hold 100 changes')

  name = `review: read_file through staging (${STAGED} staged)`
  await attempt(name, { op: '<=', value: 1.1 }, async () => {
    const reads = (tools) => async () => {
      for (let i = 0; i < 50; i++) {
        const r = await tools.callTool('read_file', { path: rel(i * 13 * (i % 2 ? 1 : 2)) })
        expectOk('read_file', r)
      }
    }
    const p = await paired(reads(staged), reads(direct), ctx.rounds.calls)
    return row(name, p.ours, p.peer, { op: '<=', value: 1.1 }, 'peer: the same 50 read_file calls (half of them staged files) on the direct tree; paired alternating rounds', p.ratio)
  })

  for (const [what, args] of [
    ['files', { pattern: 'NeedleStaged \\d+' }],
    ['content', { pattern: 'compute_\\d+\\(17\\)', output_mode: 'content', head_limit: 0 }],
  ]) {
    name = `review: grep ${what} through staging (${STAGED} staged, ${FILES} files)`
    await attempt(name, { op: '<=', value: 1.1 }, async () => {
      const g = (tools) => async () => expectOk('grep', await tools.callTool('grep', args))
      const sa = await staged.callTool('grep', args)
      const da = await direct.callTool('grep', args)
      if (sa.text !== da.text) throw new Error('grep through the staging answered differently from direct mode')
      const p = await paired(g(staged), g(direct), ctx.rounds.calls)
      return row(name, p.ours, p.peer, { op: '<=', value: 1.1 }, 'peer: the same grep on the direct tree holding the same changes; paired alternating rounds', p.ratio)
    })
  }

  name = `review: accept of ${STAGED} changed files vs apply_patch`
  await attempt(name, { op: '<=', value: 1.0 }, async () => {
    // Files the 100 changes above left alone (they stay pending meanwhile).
    const targets = []
    for (let j = 1; targets.length < STAGED; j += 7) if (j % 13 !== 0) targets.push(rel(j))
    const samples = { accept: [], patch: [], ratio: [] }
    for (let r = 0; r <= ctx.rounds.edits; r++) {
      const [a, b] = r % 2 ? ['STEP ', 'step '] : ['step ', 'STEP ']
      const line = (p, t) => `    let value_9 = compute_${p.match(/f(\d+)/)[1]}(9); // ${t}9`
      // Untimed: stage the changes; the same edit as a patch for the direct tree.
      for (const p of targets) {
        expectOk('edit_file', await staged.callTool('edit_file', { path: p, old_string: line(p, a), new_string: line(p, b) }))
      }
      const patch =
        '*** Begin Patch\n' +
        targets.map((p) => `*** Update File: ${p}\n@@\n-${line(p, a)}\n+${line(p, b)}\n`).join('') +
        '*** End Patch'
      const accept = async () => {
        settleDisk()
        return time(async () => {
          const res = await staged.accept(targets)
          if (res.accepted.length !== STAGED || res.conflicts.length) throw new Error(`accept: ${JSON.stringify(res.conflicts)}`)
        })
      }
      const apply = async () => {
        settleDisk()
        return time(async () => expectOk('apply_patch', await direct.callTool('apply_patch', { patch })))
      }
      // Alternating order; the first round warms both up.
      let ta, tp
      if (r % 2) {
        tp = await apply()
        ta = await accept()
      } else {
        ta = await accept()
        tp = await apply()
      }
      if (r > 0) {
        samples.accept.push(ta)
        samples.patch.push(tp)
        samples.ratio.push(ta / tp)
      }
    }
    return row(name, median(samples.accept), median(samples.patch), { op: '<=', value: 1.0 }, 'peer: apply_patch of the same 100 one-line changes (both through the commit journal); 100 other changes stay pending; sync(1) before each timed side, alternating order, median of per-round ratios', median(samples.ratio))
  })
  return rows
}
