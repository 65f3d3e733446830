// The 0.5 read tools against their peers (issue 12): read_files of 64 files against 64
// sequential read_file calls of ours, and tree of a 40,000-file repository at depth 4 against
// `fd --max-depth 4` (Debian's fd-find installs it as `fdfind`).

import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import { capture, expectOk, interleaved, row, skipped } from './lib.mjs'

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

/**
 * 64 source files of 120–250 lines in `<scratch>/rf/`, and a 40,000-file repository in
 * `<scratch>/tree40k/`: 10 × 10 × 10 directories of 40 files each (every file at depth 4, so
 * depth 4 shows all of them), a git repository with a `.gitignore` hiding an ignored
 * `node_modules/` of 2,000 more files and every `*.log`. Deterministic.
 */
function setup(scratch) {
  const rf = path.join(scratch, 'rf')
  fs.mkdirSync(rf, { recursive: true })
  const files = []
  for (let i = 0; i < 64; i++) {
    const name = `m${String(i).padStart(2, '0')}.js`
    fs.writeFileSync(path.join(rf, name), source(i, 120 + ((i * 37) % 131)))
    files.push(`rf/${name}`)
  }
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
  return { files, repo }
}

export async function readToolRows(ctx, want) {
  const rows = []
  const names = ['read_files 64 files vs 64 read_file', 'tree 40k files depth 4 vs fd']
  if (!names.some(want)) return rows
  const { createAgentTools } = require('../index.js')
  const { files, repo } = setup(ctx.scratch)
  // Big enough an output budget that both sides show every line of every file.
  const tools = createAgentTools({ workspaceRoot: ctx.scratch, maxOutputBytes: 1 << 30 })

  let name = names[0]
  let target = { op: '>=', value: 4 }
  if (want(name)) {
    try {
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

// `node bench/readtools.mjs [--rounds N]`: these rows alone, without the search corpus.
if (import.meta.url === `file://${process.argv[1]}`) {
  const { captureWarnings, printTable } = await import('./lib.mjs')
  const os = await import('node:os')
  const i = process.argv.indexOf('--rounds')
  const n = i > 0 ? Number(process.argv[i + 1]) : null
  captureWarnings(require('../index.js').setWarnSink)
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'clarvis-bench-read-'))
  try {
    const rows = await readToolRows({ scratch, rounds: { calls: n ?? 15, corpus: n ?? 9 } }, () => true)
    printTable(rows)
    if (rows.some((r) => r.status === 'ERROR')) process.exitCode = 1
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true })
  }
}
