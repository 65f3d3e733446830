// The escape fixture shared by escape.test.mjs and the soak runner: a workspace full of links
// beside a sentinel directory, and the swap race. Not a test file itself.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { createAgentTools, setWarnSink } from '../index.mjs'
import { scratch } from './helpers.mjs'
import { snapshot, makeSentinel, stubbedTools } from './sentinel.mjs'

export const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])

/** Everything a result shows: its text and its image parts' decoded bytes (latin1). */
export function shown(r) {
  const images = (r.content || []).filter((p) => p.type === 'image').map((p) => Buffer.from(p.data, 'base64').toString('latin1'))
  return [r.text, ...images].join('\n')
}

/** base/ws (the workspace, full of links) beside base/outside (the sentinel). */
export function setup() {
  const base = scratch('cat-escape-')
  const root = path.join(base, 'ws')
  const outside = path.join(base, 'outside')
  fs.mkdirSync(path.join(root, 'dir'), { recursive: true })
  fs.writeFileSync(path.join(root, 'in.txt'), 'inside\ntick tock\n')
  fs.writeFileSync(path.join(root, 'dir', 'a.txt'), 'a\n')
  const sentinel = makeSentinel(outside)
  fs.writeFileSync(path.join(outside, 'hard-src.txt'), 'HARDLINKED\n')
  // An outside image carrying the secret: read_image must refuse it, not return its bytes.
  fs.writeFileSync(path.join(outside, 'secret.png'), Buffer.concat([PNG_MAGIC, Buffer.from(sentinel.secret)]))
  const link = (target, name) => fs.symlinkSync(target, path.join(root, name))
  link(path.join(outside, 'secret.txt'), 'file-link')
  link(path.join(outside, 'secret.png'), 'image-link')
  link('file-link', 'file-chain')
  link(outside, 'dir-link')
  link('chain-b', 'chain-a')
  link('dir-link', 'chain-b')
  link('/', 'root-link')
  link('..', 'rel-up')
  link(path.join(outside, 'missing.txt'), 'dangling-out')
  link(path.join(outside, 'missing-dir'), 'dangling-dir')
  link('/proc/self/root', 'proc-root')
  fs.linkSync(path.join(outside, 'hard-src.txt'), path.join(root, 'hard'))
  const tools = createAgentTools({ workspaceRoot: root })
  const outsideSnap = () => snapshot(base, (p) => p === root || p.startsWith(root + path.sep))
  return { base, root, outside, sentinel, tools, outsideSnap }
}

// A child process flips `ws/flip` between a real directory (holding inner.txt "INSIDE") and a
// symlink to the outside (holding inner.txt with the secret) as fast as it can.
const FLIPPER = `
const fs = require('fs'); const path = require('path')
const [root, outside, ms] = process.argv.slice(1)
const flip = path.join(root, 'flip'), real = path.join(root, 'flip-real'), link = path.join(root, 'flip-link')
let flips = 0; const end = Date.now() + Number(ms)
while (Date.now() < end) {
  try {
    fs.renameSync(real, flip); fs.renameSync(flip, real)
    fs.renameSync(link, flip); fs.renameSync(flip, link)
    flips += 2
  } catch {
    // A tool created 'flip' itself (write_file makes parent dirs): clear it and restore.
    try { fs.rmSync(flip, { recursive: true, force: true }) } catch {}
    if (!fs.existsSync(real)) { fs.mkdirSync(real); fs.writeFileSync(path.join(real, 'inner.txt'), 'INSIDE\\ntick tock\\n') }
    try { fs.lstatSync(link) } catch { fs.symlinkSync(outside, link) }
  }
}
process.stdout.write(String(flips))
`

export async function runRace(ms, log = () => {}, sink = null) {
  const { root, outside, sentinel, tools, outsideSnap } = setup()
  const stubs = await stubbedTools(tools, setWarnSink, sink)
  fs.mkdirSync(path.join(root, 'flip-real'))
  fs.writeFileSync(path.join(root, 'flip-real', 'inner.txt'), 'INSIDE\ntick tock\n')
  fs.writeFileSync(path.join(root, 'flip-real', 'inner.png'), Buffer.concat([PNG_MAGIC, Buffer.from('INSIDE')]))
  fs.writeFileSync(path.join(outside, 'inner.png'), Buffer.concat([PNG_MAGIC, Buffer.from(sentinel.secret)]))
  fs.symlinkSync(outside, path.join(root, 'flip-link'))
  const before = outsideSnap()
  const child = spawn(process.execPath, ['-e', FLIPPER, root, outside, String(ms)], { stdio: ['ignore', 'pipe', 'inherit'] })
  let flips = ''
  child.stdout.on('data', (d) => (flips += d))
  const exited = new Promise((resolve) => child.on('exit', resolve))
  let done = false
  exited.then(() => (done = true))
  const leaks = []
  const stats = { calls: 0, ok: 0, errors: {} }
  let i = 0
  const mix = () => {
    i++
    switch (i % 10) {
      case 8: return ['bash', { command: 'cat inner.txt; ls', cwd: 'flip', timeout_ms: 5000 }]
      case 0: return ['read_file', { path: 'flip/inner.txt' }]
      case 1: return ['list_dir', { path: 'flip' }]
      case 2: return ['grep', { pattern: 'SECRET|INSIDE', path: 'flip', output_mode: 'content' }]
      case 3: return ['glob', { pattern: '*', path: 'flip' }]
      case 4: return ['write_file', { path: `flip/w-${i % 50}.txt`, content: 'written\n' }]
      case 5: return ['edit_file', { path: 'flip/inner.txt', old_string: i % 2 ? 'tick' : 'tock', new_string: i % 2 ? 'tock' : 'tick', replace_all: true }]
      case 6: return ['multi_edit', { path: 'flip/inner.txt', edits: [{ old_string: 'tock', new_string: 'tick' }] }]
      case 7: return ['apply_patch', { patch: `--- /dev/null\n+++ b/flip/p-${i}.txt\n@@ -0,0 +1 @@\n+patched\n` }]
      case 9: {
        const more = [
          ['read_files', { paths: ['flip/inner.txt', 'in.txt'] }],
          ['diff', { from: 'in.txt', to: 'flip/inner.txt' }],
          ['tree', { path: 'flip' }],
          ['file_stat', { path: 'flip/inner.txt' }],
          ['read_image', { path: 'flip/inner.png' }],
          ['read_file', { path: 'flip/inner.txt', offset: -1 }],
          // The 0.5 file tools, at either end of the flipping directory.
          ['copy', { source: 'flip/inner.txt', destination: 'copied.txt', overwrite: true }],
          ['copy', { source: 'in.txt', destination: `flip/c-${i % 20}.txt`, overwrite: true }],
          ['move', { source: `flip/c-${i % 20}.txt`, destination: `flip/m-${i % 20}.txt`, overwrite: true }],
          ['move', { source: 'flip/inner.txt', destination: 'moved-in.txt', overwrite: true }],
          ['move', { source: 'moved-in.txt', destination: 'flip/inner.txt', overwrite: true }],
          ['mkdir', { path: `flip/d-${i % 10}/e` }],
          ['remove', { path: `flip/m-${i % 20}.txt` }],
          ['replace', { pattern: 'tick', replacement: 'tock', path: 'flip', dry_run: false }],
          ['replace', { pattern: 'SECRET|INSIDE', replacement: 'x', path: 'flip/inner.txt' }],
          ['replace', { pattern: 'tock', replacement: 'tick', glob: 'flip/*.txt', dry_run: false }],
        ]
        return more[(i / 10 | 0) % more.length]
      }
      default: return ['read_file', { path: 'flip/inner.txt', offset: -1 }]
    }
  }
  const worker = async () => {
    while (!done) {
      const [tool, args] = mix()
      if (stubs.has(tool)) continue
      const r = await tools.callTool(tool, args)
      stats.calls++
      if (r.isError) {
        const code = JSON.parse(r.text).error
        stats.errors[code] = (stats.errors[code] || 0) + 1
      } else stats.ok++
      const out = shown(r)
      if (out.includes(sentinel.secret) || out.includes(sentinel.onlyName)) leaks.push(`${tool} ${JSON.stringify(args)} -> ${out.slice(0, 200)}`)
    }
  }
  // Checkpoint restore and `undo` are writers too: a checkpoint is taken, files under the
  // flipping directory are written, created and removed, and the checkpoint is restored
  // (forced) or the last call undone, while the directory flips. Restores the flip made
  // impossible are refused; none may write, create or delete anything outside.
  const restores = { ok: 0, refused: 0 }
  const restorer = async () => {
    let j = 0
    while (!done) {
      j++
      const id = tools.checkpoint()
      await tools.callTool('write_file', { path: `flip/r-${j % 7}.txt`, content: `restored ${j}\n` })
      await tools.callTool('remove', { path: `flip/r-${(j + 3) % 7}.txt` })
      await tools.callTool('apply_patch', { patch: `--- /dev/null\n+++ b/flip/rp-${j % 5}.txt\n@@ -0,0 +1 @@\n+p\n` })
      const changes = await tools.changes(id).catch(() => [])
      const out = JSON.stringify(changes)
      if (out.includes(sentinel.secret) || out.includes(sentinel.onlyName)) leaks.push(`changes(${id}) -> ${out.slice(0, 200)}`)
      await tools.restore(id, { force: j % 2 === 0 }).then(() => restores.ok++, () => restores.refused++)
      tools.dropCheckpoint(id)
    }
  }
  const undoTools = createAgentTools({ workspaceRoot: root, toolPolicy: { allow: ['write_file', 'remove', 'copy', 'undo'] } })
  const undoer = async () => {
    let j = 0
    while (!done) {
      j++
      const mutation = [
        ['write_file', { path: `flip/u-${j % 5}.txt`, content: `undo ${j}\n` }],
        ['remove', { path: `flip/u-${(j + 2) % 5}.txt` }],
        ['copy', { source: 'in.txt', destination: `flip/u-${j % 5}.txt`, overwrite: true }],
      ][j % 3]
      await undoTools.callTool(...mutation)
      const r = await undoTools.callTool('undo', {})
      if (r.isError) restores.refused++
      else restores.ok++
      if (shown(r).includes(sentinel.secret)) leaks.push(`undo -> ${r.text.slice(0, 200)}`)
    }
  }
  await Promise.all([...Array.from({ length: 6 }, worker), restorer(), undoer()])
  await exited
  // What copy and move brought into the workspace must never be the outside's content.
  for (const name of ['copied.txt', 'moved-in.txt']) {
    const p = path.join(root, name)
    if (fs.existsSync(p) && fs.readFileSync(p, 'utf8').includes(sentinel.secret)) leaks.push(`${name} holds the outside secret`)
  }
  const after = outsideSnap()
  log(`race: ${ms} ms, ${flips} flips, ${stats.calls} calls (${stats.ok} ok, errors ${JSON.stringify(stats.errors)}), restores and undos ${restores.ok} done, ${restores.refused} refused, ${leaks.length} leaks`)
  return { leaks, before, after, stats, restores, flips: Number(flips) }
}

