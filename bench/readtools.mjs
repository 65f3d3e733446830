// The 0.5 tools against their peers (issue 12): read_files of 64 files against 64
// sequential read_file calls of ours, tree of a 40,000-file repository at depth 4 against
// `fd --max-depth 4` (Debian's fd-find installs it as `fdfind`), a replace dry run across a
// 15,000-file tree against rg finding the same matches, and copy of a 1 GB file against cp
// (time, and the copying process's RSS growth measured in a child: copy-rss-child.mjs).

import { execFile, execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { capture, expectOk, interleaved, median, row, skipped } from './lib.mjs'

const require = createRequire(import.meta.url)

/** The fd binary: $FD, else `fdfind` (Debian), else `fd`; null when none runs. */
export function findFd() {
  for (const fd of [process.env.FD, 'fdfind', 'fd'].filter(Boolean)) {
    try {
      const v = execFileSync(fd, ['--version'], { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim()
      return { fd, version: v }
    } catch {}
  }
  return { fd: null, version: null }
}

const FD_HINT = 'fd not found: `apt-get install -y fd-find` (binary `fdfind`), or point FD=/path/to/fd at one'

function source(i, lines) {
  const out = [`// module ${i}`]
  for (let n = 1; n < lines; n++) out.push(`export function f${i}_${n}(x) { return x * ${n} + ${i} } // line ${n}`)
  return out.join('\n') + '\n'
}

/** 64 source files of 120–250 lines in `<scratch>/rf/`; returns their workspace paths. */
function setupRead(scratch) {
  const rf = path.join(scratch, 'rf')
  fs.mkdirSync(rf, { recursive: true })
  const files = []
  for (let i = 0; i < 64; i++) {
    const name = `m${String(i).padStart(2, '0')}.js`
    fs.writeFileSync(path.join(rf, name), source(i, 120 + ((i * 37) % 131)))
    files.push(`rf/${name}`)
  }
  return files
}

/**
 * A 40,000-file repository in `<scratch>/tree40k/`: 10 × 10 × 10 directories of 40 files each
 * (every file at depth 4, so depth 4 shows all of them), a git repository with a `.gitignore`
 * hiding an ignored `node_modules/` of 2,000 more files and every `*.log`. Deterministic.
 */
function setupTree(scratch) {
  const repo = path.join(scratch, 'tree40k')
  let n = 0
  for (let a = 0; a < 10; a++) {
    for (let b = 0; b < 10; b++) {
      for (let c = 0; c < 10; c++) {
        const dir = path.join(repo, `pkg${a}`, `mod${b}`, `part${c}`)
        fs.mkdirSync(dir, { recursive: true })
        for (let f = 0; f < 40; f++) {
          fs.writeFileSync(path.join(dir, f % 10 === 9 ? `trace${f}.log` : `file${f}.ts`), 'x'.repeat((n++ * 7) % 97))
        }
      }
    }
  }
  for (let i = 0; i < 2000; i++) {
    const dir = path.join(repo, 'node_modules', `dep${i % 50}`)
    fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(path.join(dir, `index${i}.js`), 'module.exports = 1\n')
  }
  fs.writeFileSync(path.join(repo, '.gitignore'), 'node_modules/\n*.log\n')
  execFileSync('git', ['init', '-q', repo])
  return repo
}

async function readRows(ctx, want) {
  const rows = []
  const names = ['read_files 64 files vs 64 read_file', 'tree 40k files depth 4 vs fd']
  if (!names.some(want)) return rows
  const { createAgentTools } = require('../index.js')
  // Big enough an output budget that both sides show every line of every file.
  const tools = createAgentTools({ workspaceRoot: ctx.scratch, maxOutputBytes: 1 << 30 })

  let name = names[0]
  let target = { op: '>=', value: 4 }
  if (want(name)) {
    try {
      const files = setupRead(ctx.scratch)
      const all = expectOk('read_files', await tools.callTool('read_files', { paths: files }))
      const each = []
      for (const p of files) each.push(`==> ${p} <==\n${expectOk('read_file', await tools.callTool('read_file', { path: p }))}`)
      if (all !== each.join('\n\n')) throw new Error('read_files text differs from the 64 read_file results')
      const one = async () => expectOk('read_files', await tools.callTool('read_files', { paths: files }))
      const seq = async () => {
        for (const p of files) expectOk('read_file', await tools.callTool('read_file', { path: p }))
      }
      const [o, s] = await interleaved([one, seq], ctx.rounds.calls)
      rows.push(row(name, o, s, target, 'peer column: 64 sequential read_file calls of ours (same text); ratio = speed-up', s / o))
    } catch (e) {
      rows.push(skipped(name, target, 'ERROR', e.message))
    }
  }

  name = names[1]
  target = { op: '<=', value: 1.2 }
  if (want(name)) {
    const { fd, version } = findFd()
    if (!fd) {
      rows.push(skipped(name, target, 'n/a', FD_HINT))
    } else {
      try {
        const repo = setupTree(ctx.scratch)
        const treeTools = createAgentTools({ workspaceRoot: repo, maxOutputBytes: 1 << 30 })
        // Both list what git does not ignore, hidden files included, .git excluded.
        const fdArgs = ['--max-depth', '4', '--hidden', '--exclude', '.git']
        const ours = expectOk('tree', await treeTools.callTool('tree', { depth: 4 }))
        const peer = await capture(fd, fdArgs, repo)
        const oursCount = ours.split('\n').length - 1
        const peerCount = peer.stdout.toString().split('\n').filter(Boolean).length
        if (oursCount !== peerCount) throw new Error(`tree shows ${oursCount} entries, fd ${peerCount}`)
        const [o, p] = await interleaved(
          [async () => expectOk('tree', await treeTools.callTool('tree', { depth: 4 })), () => capture(fd, fdArgs, repo)],
          ctx.rounds.corpus,
        )
        rows.push(row(name, o, p, target, `${oursCount} entries each; peer: ${version} ${fdArgs.join(' ')} (spawn + whole stdout)`))
      } catch (e) {
        rows.push(skipped(name, target, 'ERROR', e.message))
      }
    }
  }
  return rows
}

/** The identifier the replace row renames. */
const IDENT = 'eventHandler'

/**
 * A 15,000-file tree in `<scratch>/replace15k/`: 15 × 10 directories of 100 generated JS
 * files of 40–80 lines (~2.5 KB each, 37 MB in all), a git repository. Every third file uses
 * IDENT, 1–6 times (some lines twice); others hold near misses (`eventHandlers` also
 * matches, `EventHandler` does not). Deterministic. Returns the tree's path.
 */
function setupReplace(scratch) {
  const repo = path.join(scratch, 'replace15k')
  let n = 0
  for (let a = 0; a < 15; a++) {
    for (let b = 0; b < 10; b++) {
      const dir = path.join(repo, `app${a}`, `feature${b}`)
      fs.mkdirSync(dir, { recursive: true })
      for (let f = 0; f < 100; f++, n++) {
        const lines = [`// generated module ${n}`, `import { EventHandler } from '../../core/events.js'`]
        const uses = n % 3 === 0 ? 1 + (n % 6) : 0
        const count = 40 + (n % 41)
        for (let l = 0; l < count; l++) {
          if (l < uses) lines.push(l % 2 ? `  this.${IDENT}(e, ${IDENT}.next) // ${l}` : `export function ${IDENT}${l === 0 ? '' : 's'}(e) { return e.kind === ${l} }`)
          else lines.push(`export const value_${n}_${l} = compute(${l}, "${'abcdefgh'.repeat(1 + (l % 4))}") // plain line`)
        }
        fs.writeFileSync(path.join(dir, `mod${f}.js`), lines.join('\n') + '\n')
      }
    }
  }
  execFileSync('git', ['init', '-q', repo])
  return repo
}

/** rg's policy flags matching ours (see "Policy parity with rg" in README.md). */
const RG_POLICY = ['--no-config', '--hidden', '-g', '!.git', '--no-ignore-dot']

async function replaceRows(ctx, want) {
  const name = 'replace dry run 15k files vs rg'
  const target = { op: '<=', value: 1.5 }
  if (!want(name)) return []
  const rg = ctx.rg ?? 'rg'
  try {
    execFileSync(rg, ['--version'], { stdio: 'ignore' })
  } catch {
    return [skipped(name, target, 'n/a', 'ripgrep not found (RG=/path/to/rg)')]
  }
  try {
    const { createAgentTools } = require('../index.js')
    const repo = setupReplace(ctx.scratch)
    const tools = createAgentTools({ workspaceRoot: repo, maxOutputBytes: 1 << 30 })
    const args = { pattern: IDENT, replacement: 'onEvent', path: '.' }
    const ours = expectOk('replace', await tools.callTool('replace', args))
    const head = /^(\d+) replacement\(s\) across (\d+) file\(s\); (\d+) scanned \(dry run/.exec(ours)
    if (!head) throw new Error(`unexpected replace output: ${ours.slice(0, 200)}`)
    const counts = (await capture(rg, [...RG_POLICY, '--count-matches', IDENT], repo)).stdout.toString().split('\n').filter(Boolean)
    const rgTotal = counts.reduce((t, l) => t + Number(l.slice(l.lastIndexOf(':') + 1)), 0)
    if (Number(head[1]) !== rgTotal || Number(head[2]) !== counts.length) {
      throw new Error(`replace finds ${head[1]} matches in ${head[2]} files, rg ${rgTotal} in ${counts.length}`)
    }
    const peerArgs = [...RG_POLICY, '-n', IDENT]
    const countArgs = [...RG_POLICY, '--count-matches', IDENT]
    const [o, p, c] = await interleaved(
      [async () => expectOk('replace', await tools.callTool('replace', args)), () => capture(rg, peerArgs, repo), () => capture(rg, countArgs, repo)],
      ctx.rounds.corpus,
    )
    return [
      row(
        name,
        o,
        p,
        target,
        `${rgTotal} matches in ${counts.length} of ${head[3]} files each (checked); ours: the dry run with its per-file unified diffs ` +
          `(${(Buffer.byteLength(ours) / 1e6).toFixed(1)} MB); peer: rg -n (spawn + whole stdout); rg --count-matches ${c.toFixed(1)} ms`,
      ),
    ]
  } catch (e) {
    return [skipped(name, target, 'ERROR', e.message)]
  }
}

const COPY_CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'copy-rss-child.mjs')
const GB = 1 << 30

/** A 1 GiB file of non-repeating bytes at `file` (written once; 16 MiB at a time). */
function bigFile(file) {
  if (fs.existsSync(file) && fs.statSync(file).size === GB) return
  const fd = fs.openSync(file, 'w')
  try {
    const chunk = Buffer.alloc(16 << 20)
    for (let i = 0; i < GB / chunk.length; i++) {
      for (let k = 0; k < chunk.length; k += 4) chunk.writeUInt32LE(((i * chunk.length + k) ^ 0x9e3779b9) >>> 0, k)
      fs.writeSync(fd, chunk)
    }
  } finally {
    fs.closeSync(fd)
  }
}

async function copyRows(ctx, want) {
  const rows = []
  const names = ['copy 1 GB file vs cp + sync', 'RSS growth, copy of a 1 GB file']
  if (!names.some(want)) return rows
  const dir = path.join(ctx.scratch, 'copy1g')
  fs.mkdirSync(dir, { recursive: true })
  const src = path.join(dir, 'big.bin')
  let name = names[0]
  let target = { op: '>=', value: 0.8 }
  if (want(name)) {
    try {
      bigFile(src)
      const { createAgentTools } = require('../index.js')
      const tools = createAgentTools({ workspaceRoot: dir })
      const args = { source: 'big.bin', destination: 'ours.bin', overwrite: true }
      expectOk('copy', await tools.callTool('copy', args))
      try {
        // cmp streams: no 2 GiB of Buffers in this process before it is timed.
        execFileSync('cmp', ['-s', src, path.join(dir, 'ours.bin')])
      } catch {
        throw new Error('copy: bytes differ from the source')
      }
      fs.rmSync(path.join(dir, 'ours.bin'))
      // Each sample starts without a destination (removed untimed), as cp's does.
      const ours = async () => {
        expectOk('copy', await tools.callTool('copy', args))
      }
      const peer = async () => {
        const r = await capture('sh', ['-c', 'cp big.bin peer.bin && sync peer.bin'], dir)
        if (r.code !== 0) throw new Error(`cp failed: ${r.stderr}`)
      }
      const plain = async () => {
        const r = await capture('cp', ['big.bin', 'plain.bin'], dir)
        if (r.code !== 0) throw new Error(`cp failed: ${r.stderr}`)
      }
      const clean = () => {
        for (const f of ['ours.bin', 'peer.bin', 'plain.bin']) fs.rmSync(path.join(dir, f), { force: true })
      }
      const samples = [[], [], []]
      const fns = [ours, peer, plain]
      const rounds = Math.min(ctx.rounds.corpus, 5)
      for (let r = -1; r < rounds; r++) {
        for (let i = 0; i < fns.length; i++) {
          clean()
          const t0 = process.hrtime.bigint()
          await fns[i]()
          if (r >= 0) samples[i].push(Number(process.hrtime.bigint() - t0) / 1e6)
        }
      }
      clean()
      const [o, p, c] = samples.map(median)
      const mbps = (ms) => `${(GB / 1048576 / (ms / 1000)).toFixed(0)} MiB/s`
      rows.push(
        row(
          name,
          o,
          p,
          target,
          `ratio = throughput ours / peer (peer: cp then sync of the copy, the durable work copy does: fsync + rename); ` +
            `ours ${mbps(o)}, cp + sync ${mbps(p)}, plain cp ${c.toFixed(0)} ms (${mbps(c)}, ours at ${((c / o) * 100).toFixed(0)} % of it)`,
          p / o,
        ),
      )
    } catch (e) {
      rows.push(skipped(name, target, 'ERROR', e.message))
    }
  }
  name = names[1]
  target = { op: '<=', value: 16, unit: 'MB' }
  if (want(name)) {
    if (process.platform !== 'linux') rows.push(skipped(name, target, 'n/a', 'needs /proc (Linux)'))
    else {
      try {
        bigFile(src)
        const growth = []
        let last = null
        for (let i = 0; i < Math.max(ctx.rounds.memory ?? 3, 1); i++) {
          last = await new Promise((resolve, reject) =>
            execFile(process.execPath, [COPY_CHILD, dir], { maxBuffer: 1 << 20, timeout: 300_000 }, (err, stdout, stderr) =>
              err ? reject(new Error(`copy rss child failed: ${stderr || err.message}`)) : resolve(JSON.parse(stdout)),
            ),
          )
          if (last.isError) throw new Error(`copy failed: ${last.text}`)
          growth.push((last.hwmKb - last.baseKb) / 1024)
        }
        const g = median(growth)
        rows.push({
          name,
          ours: g,
          peer: null,
          ratio: g,
          target,
          status: g <= target.value ? 'PASS' : 'MISS',
          note: `peak RSS (VmHWM, reset before the call) minus RSS before the call, in a child that copies a 1 GiB file (median of ${growth.length}: ${growth.map((x) => x.toFixed(1)).join(', ')} MB); last ${(last.baseKb / 1024).toFixed(1)} → ${(last.hwmKb / 1024).toFixed(1)} MB`,
          format: (x) => (x == null ? '—' : `${x.toFixed(1)} MB`),
        })
      } catch (e) {
        rows.push(skipped(name, target, 'ERROR', e.message))
      }
    }
  }
  fs.rmSync(dir, { recursive: true, force: true })
  return rows
}

export async function readToolRows(ctx, want) {
  return [...(await readRows(ctx, want)), ...(await replaceRows(ctx, want)), ...(await copyRows(ctx, want))]
}

// `node bench/readtools.mjs [--rounds N] [FILTER ...]`: these rows alone, without the search corpus.
if (import.meta.url === `file://${process.argv[1]}`) {
  const { captureWarnings, printTable } = await import('./lib.mjs')
  const os = await import('node:os')
  const i = process.argv.indexOf('--rounds')
  const n = i > 0 ? Number(process.argv[i + 1]) : null
  captureWarnings(require('../index.js').setWarnSink)
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'clarvis-bench-read-'))
  try {
    const filters = process.argv.slice(2).filter((a, k, all) => !a.startsWith('--') && all[k - 1] !== '--rounds').map((f) => f.toLowerCase())
    const want = (name) => filters.length === 0 || filters.some((f) => name.toLowerCase().includes(f))
    const rounds = { calls: n ?? 15, corpus: n ?? 9, memory: n ?? 3 }
    const rows = await readToolRows({ scratch, rg: process.env.RG || 'rg', rounds }, want)
    printTable(rows)
    if (rows.some((r) => r.status === 'ERROR')) process.exitCode = 1
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true })
  }
}
