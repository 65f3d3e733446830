// Checkpoints: what recording costs a mutation (the same call with and without a live
// checkpoint, interleaved), and how long `changes` and `restore` take over 1,000 files.

import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import { expectOk, interleaved, row, skipped, time } from './lib.mjs'

const require = createRequire(import.meta.url)

function codeLines(n, tag) {
  return Array.from({ length: n }, (_, i) => `    let value_${i} = compute_${tag}(${i}); // step ${i}`).join('\n') + '\n'
}

export async function checkpointRows(ctx, want) {
  const rows = []
  const { createAgentTools } = require('../index.js')
  const dir = path.join(ctx.scratch, 'ckpt')
  fs.mkdirSync(path.join(dir, 'patch'), { recursive: true })
  const big = fs.readFileSync(path.join(ctx.scratch, 'big-ours.txt'))
  fs.writeFileSync(path.join(dir, 'big-plain.txt'), big)
  fs.writeFileSync(path.join(dir, 'big-rec.txt'), big)
  const tools = createAgentTools({ workspaceRoot: dir })
  const MB = (big.length / 1e6).toFixed(1)

  let name = `checkpoint recording: edit_file ${MB} MB file`
  let target = { op: '<=', value: 1.1 }
  if (want(name)) {
    try {
      const flipper = (file) => {
        let flip = 0
        return () => {
          const [a, b] = flip++ % 2 ? ['STATE: u32 = 2;', 'STATE: u32 = 1;'] : ['STATE: u32 = 1;', 'STATE: u32 = 2;']
          return { path: file, old_string: `const EXACT_MARKER_${a}`, new_string: `const EXACT_MARKER_${b}` }
        }
      }
      const plainArgs = flipper('big-plain.txt')
      const recArgs = flipper('big-rec.txt')
      const plain = async () => expectOk('edit_file', await tools.callTool('edit_file', plainArgs()))
      // A fresh checkpoint each time, so every sample records the file's prior content;
      // they are dropped after the run (dropping is not part of a mutation's cost).
      const ids = []
      const recorded = async () => {
        ids.push(tools.checkpoint())
        expectOk('edit_file', await tools.callTool('edit_file', recArgs()))
      }
      const [r, p] = await interleaved([recorded, plain], ctx.rounds.edits)
      for (const id of ids) tools.dropCheckpoint(id)
      rows.push(row(name, r, p, target, 'peer: the same edit_file with no checkpoint live; ours takes a fresh checkpoint, then edits'))
    } catch (e) {
      rows.push(skipped(name, target, 'ERROR', e.message))
    }
  }

  name = 'checkpoint recording: apply_patch 50 files'
  target = { op: '<=', value: 1.05 }
  if (want(name)) {
    try {
      for (const side of ['plain', 'rec']) {
        fs.mkdirSync(path.join(dir, 'patch', side), { recursive: true })
        for (let i = 0; i < 50; i++) fs.writeFileSync(path.join(dir, 'patch', side, `f${i}.rs`), codeLines(200, i))
      }
      const patchFor = (side, from, to) =>
        Array.from({ length: 50 }, (_, i) => {
          const line = `    let value_99 = compute_${i}(99); // step 99`
          const [a, b] = [line.replace('step', from), line.replace('step', to)]
          return `--- a/patch/${side}/f${i}.rs\n+++ b/patch/${side}/f${i}.rs\n@@ -99,3 +99,3 @@\n ${codeLine(i, 98)}\n-${a}\n+${b}\n ${codeLine(i, 100)}\n`
        }).join('')
      const codeLine = (i, n) => `    let value_${n} = compute_${i}(${n}); // step ${n}`
      const flips = { plain: 0, rec: 0 }
      const apply = async (side) => {
        const [from, to] = flips[side]++ % 2 ? ['STEP', 'step'] : ['step', 'STEP']
        expectOk('apply_patch', await tools.callTool('apply_patch', { patch: patchFor(side, from, to) }))
      }
      const ids = []
      const recorded = async () => {
        ids.push(tools.checkpoint())
        await apply('rec')
      }
      const [r, p] = await interleaved([recorded, () => apply('plain')], ctx.rounds.edits)
      for (const id of ids) tools.dropCheckpoint(id)
      rows.push(row(name, r, p, target, 'peer: the same apply_patch with no checkpoint live'))
    } catch (e) {
      rows.push(skipped(name, target, 'ERROR', e.message))
    }
  }

  for (const what of ['changes', 'restore']) {
    name = `checkpoint ${what}: 1,000 edited files`
    target = { op: '<=', value: 1000, unit: 'ms' }
    if (!want(name)) continue
    try {
      const many = path.join(dir, 'many')
      fs.mkdirSync(many, { recursive: true })
      for (let i = 0; i < 1000; i++) fs.writeFileSync(path.join(many, `m${i}.txt`), codeLines(40, i))
      const id = tools.checkpoint()
      for (let i = 0; i < 1000; i++) {
        expectOk('edit_file', await tools.callTool('edit_file', { path: `many/m${i}.txt`, old_string: 'step 7', new_string: 'STEP 7' }))
      }
      let result
      const ms = await time(async () => {
        result = what === 'changes' ? await tools.changes(id) : await tools.restore(id)
      })
      const n = what === 'changes' ? result.length : result.restored.length
      if (n !== 1000) throw new Error(`${what} covered ${n} files, expected 1000`)
      tools.dropCheckpoint(id)
      const r = row(name, ms, null, target, `absolute time (one run); ${n} files`, ms)
      r.peer = null
      rows.push(r)
    } catch (e) {
      rows.push(skipped(name, target, 'ERROR', e.message))
    }
  }
  return rows
}
