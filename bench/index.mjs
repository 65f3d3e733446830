// grep's trigram index (issue 18) against ripgrep and against our own scan, on the corpus or
// on a replicated copy of it (`--copies N`: N copies of the corpus's work tree under one
// repository, for the ~250k-file monorepo case).
//
//   node bench/index.mjs [--copies N] [--rounds R] [--trials T] [--builds B]
//
// Reports: build time (B builds, each beside one rg scan: medians) and index size beside the
// indexed text; per query the
// median ms of rg, our scan (searchIndex "off") and our indexed grep, with the ratios, and
// whether the indexed answer equals the scan's byte for byte; then T freshness trials (an
// edit by write_file or by another writer, then a grep for the new text: misses counted).

import fs from 'node:fs'
import os from 'node:os'
import v8 from 'node:v8'
import vm from 'node:vm'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { createAgentTools } from '../index.mjs'
import { capture, median, numberArg as arg, time } from './lib.mjs'
import { RG_POLICY } from './search.mjs'

const here = path.dirname(fileURLToPath(import.meta.url))
const copies = arg('--copies', 0)
const rounds = arg('--rounds', 5)
const trials = arg('--trials', 200)
const builds = Math.max(1, arg('--builds', 3))
const rg = process.env.RG || 'rg'

const corpus = path.join(here, 'corpus')
if (!fs.existsSync(path.join(corpus, '.git'))) {
  console.error('no corpus: run `node bench/corpus.mjs` first')
  process.exit(1)
}

/** The replicated tree: `copies` copies of the corpus work tree (without .git) in one repo. */
function replicate(n) {
  const big = path.join(here, `corpus-x${n}`)
  if (fs.existsSync(path.join(big, '.done'))) return big
  fs.rmSync(big, { recursive: true, force: true })
  fs.mkdirSync(path.join(big, '.git'), { recursive: true })
  const top = fs.readdirSync(corpus).filter((e) => e !== '.git')
  for (let i = 0; i < n; i++) {
    for (const e of top) fs.cpSync(path.join(corpus, e), path.join(big, `copy${i}`, e), { recursive: true })
  }
  fs.writeFileSync(path.join(big, '.done'), '')
  return big
}

const root = copies > 0 ? replicate(copies) : corpus
fs.rmSync(path.join(root, '.clarvis'), { recursive: true, force: true })

const BIG = 1 << 30
const off = createAgentTools({ workspaceRoot: root, searchIndex: 'off', maxOutputBytes: BIG })
const text = (r) => r.content.map((p) => p.text).join('')

// The indexed text size (the files rg would search).
const files = (await capture(rg, [...RG_POLICY, '--files'], root)).stdout.toString().split('\n').filter(Boolean)
let textBytes = 0
for (const f of files) textBytes += fs.statSync(path.join(root, f)).size
// Warm the page cache (and rg) first: the build is compared with a warm scan.
await capture(rg, [...RG_POLICY, '-l', 'Ed25519'], root)

// The build, `builds` times, each right after one rg scan (interleaved, medians): fresh tools
// with searchIndex "on" and no image on disk; the first grep scans, and the build starts when
// its scan is done. `buildMs` (from searchIndexStatus) is the walk (which adds the inotify
// watches), the reads and the posting lists; "ready" is from the first grep's return to state
// "ready": the build, the image serialised in memory and installed (the queued events). The
// image reaches the disk right after, on another thread; each round waits for it, so that no
// earlier round's write lands after the next round's cleanup (it would be loaded, not built).
const runs = []
let on
for (let b = 0; b < builds; b++) {
  fs.rmSync(path.join(root, '.clarvis'), { recursive: true, force: true })
  const rgMs = await time(() => capture(rg, [...RG_POLICY, '-l', 'Ed25519'], root))
  on = createAgentTools({ workspaceRoot: root, searchIndex: 'on', maxOutputBytes: BIG })
  const firstMs = await time(() => on.callTool('grep', { pattern: 'Ed25519' }))
  const t0 = Date.now()
  while (on.searchIndexStatus().state !== 'ready') await new Promise((r) => setTimeout(r, 5))
  runs.push({ rgMs, firstMs, readyMs: Date.now() - t0, buildMs: on.searchIndexStatus().buildMs })
  const image = path.join(root, '.clarvis', 'index', 'grep.idx')
  for (let i = 0; i < 2000 && !fs.existsSync(image); i++) await new Promise((r) => setTimeout(r, 5))
}
const status = on.searchIndexStatus()
// The earlier builds' tools (and their mapped images) must be gone before the RSS baseline.
v8.setFlagsFromString('--expose-gc')
const gc = vm.runInNewContext('gc')
for (let i = 0; i < 3; i++) gc(), await new Promise((r) => setTimeout(r, 50))
/** RSS now, and its file-backed part (mapped files, the index image among them), in bytes. */
function rssParts() {
  const status = fs.readFileSync('/proc/self/status', 'utf8')
  const kb = (k) => Number((status.match(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm')) || [0, 0])[1]) * 1024
  return { rss: process.memoryUsage().rss, file: kb('RssFile') }
}
const ready = rssParts()
const rssReady = ready.rss
const med = (k) => median(runs.map((r) => r[k]))
const rgScan = med('rgMs')
console.log(`tree: ${root} — ${files.length} searchable files, ${(textBytes / 1e6).toFixed(1)} MB; load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`)
console.log(
  `build (median of ${builds}): ${med('buildMs')} ms, ready ${med('readyMs')} ms after the first grep returned ` +
    `(that grep scanned: ${med('firstMs').toFixed(0)} ms); one rg scan ${rgScan.toFixed(0)} ms → build/rg ${(med('buildMs') / rgScan).toFixed(2)}× ` +
    `(ready/rg ${(med('readyMs') / rgScan).toFixed(2)}×); index ${(status.bytes / 1e6).toFixed(1)} MB = ` +
    `${((100 * status.bytes) / textBytes).toFixed(1)} % of the text; ${status.files} files`,
)
console.log(
  `  builds: ${runs.map((r) => `${r.buildMs}/${r.readyMs} ms (rg ${r.rgMs.toFixed(0)})`).join(', ')}`,
)

const QUERIES = [
  ['rare literal, files', { pattern: 'Ed25519' }, ['-l', 'Ed25519']],
  ['rare literal, content', { pattern: 'Ed25519', output_mode: 'content' }, ['-n', 'Ed25519']],
  ['identifier regex', { pattern: '(Type|Range)Error' }, ['-l', '(Type|Range)Error']],
  ['case-insens. literal', { pattern: 'ed25519', ignore_case: true }, ['-l', '-i', 'ed25519']],
  ['common word, files', { pattern: 'return' }, ['-l', 'return']],
]

// glob: the walk (searchIndex "off") against the index's file list, and rg --files sorted by
// mtime (as bench/search.mjs).
const GLOBS = [
  ['glob **/*.rs', { pattern: '**/*.rs' }, ['--files', '-g', '*.rs', '--sortr', 'modified']],
  ['glob **/index.d.ts', { pattern: '**/index.d.ts' }, ['--files', '-g', 'index.d.ts', '--sortr', 'modified']],
]
/**
 * One table: per row, rg against our `tool` with searchIndex "off" (`base`, the scan or walk)
 * and with the index, medians of `rounds` after a warm-up, and whether both answers are equal.
 */
async function compare(tool, base, rows) {
  console.log(`\n| ${tool === 'grep' ? 'query' : 'glob'} | rg ms | ${base} ms | indexed ms | rg/indexed | ${base}/indexed | indexed = ${base} |`)
  console.log('|---|---:|---:|---:|---:|---:|---|')
  for (const [label, args, rgArgs] of rows) {
    const s = { rg: [], base: [], idx: [] }
    let same = true
    for (let r = 0; r < rounds + 1; r++) {
      const a = await time(() => capture(rg, [...RG_POLICY, ...rgArgs], root))
      let baseText, idxText
      const b = await time(async () => {
        baseText = text(await off.callTool(tool, args))
      })
      const c = await time(async () => {
        idxText = text(await on.callTool(tool, args))
      })
      same &&= baseText === idxText
      if (r > 0) s.rg.push(a), s.base.push(b), s.idx.push(c)
    }
    const [a, b, c] = [median(s.rg), median(s.base), median(s.idx)]
    console.log(
      `| ${label} | ${a.toFixed(1)} | ${b.toFixed(1)} | ${c.toFixed(1)} | ${(a / c).toFixed(1)}× | ${(b / c).toFixed(1)}× | ${same ? 'yes' : 'NO'} |`,
    )
  }
}

// The index's own growth: only indexed queries (every grep and glob below, `rounds` times)
// from the moment the index was ready, then a collection — before any scan, rg capture or
// comparison adds garbage of its own.
for (let r = 0; r < rounds; r++) {
  for (const [, args] of QUERIES) await on.callTool('grep', args)
  for (const [, args] of GLOBS) await on.callTool('glob', args)
}
for (let i = 0; i < 3; i++) gc(), await new Promise((r) => setTimeout(r, 50))
const indexedOnly = rssParts()

await compare('grep', 'scan', QUERIES)

await compare('glob', 'walk', GLOBS)

const rssAfter = process.memoryUsage().rss
// The queries' results (both tools', and rg's captured output) are garbage once compared:
// what a host keeps is what is left after a collection.
for (let i = 0; i < 3; i++) gc(), await new Promise((r) => setTimeout(r, 50))
const kept = rssParts()
const mb = (b) => (b / 1e6).toFixed(1)
console.log(
  `\nRSS: ${(rssReady / 1e6).toFixed(0)} MB when the index was ready, ${(rssAfter / 1e6).toFixed(0)} MB after the queries ` +
    `(growth while querying ${mb(rssAfter - rssReady)} MB before a collection, ${mb(kept.rss - rssReady)} MB after one, ` +
    `of which file-backed ${mb(kept.file - ready.file)} MB: mapped index pages count once read)`,
)
console.log(
  `RSS growth from indexed queries alone (${rounds} rounds of every grep and glob above, right after ready, ` +
    `then a collection): ${mb(indexedOnly.rss - rssReady)} MB, of which file-backed ${mb(indexedOnly.file - ready.file)} MB`,
)

// Freshness: an edit and at once a grep for the new text, rotating through four writers —
// write_file (ours), fs.writeFileSync in this process, a child process appending with sh, and
// `git checkout` between the corpus's branch and one rewriting BRANCH_FILES files (a marker
// appended to each) — a miss is any answer other than exactly the edited files (after a
// checkout: every file of the branch, or none after switching back).
const sources = files.filter((f) => /\.(rs|ts|js)$/.test(f))
// Git must never walk up from a tree that is not a repository (a --copies tree's .git is an
// empty directory) into the repository holding the bench.
const gitEnv = { ...process.env, GIT_CEILING_DIRECTORIES: path.dirname(fs.realpathSync(root)) }
const git = (...a) => {
  const r = spawnSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.invalid', ...a], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 1 << 28,
    env: gitEnv,
  })
  if (r.status !== 0) throw new Error(`git ${a.join(' ')}: ${r.stderr}`)
  return r.stdout.trim()
}
const BRANCH = 'index-freshness'
const BRANCH_FILES = Math.min(3000, sources.length)
const MARK = 'FreshBranchMarkZq'
// The corpus is a repository; a --copies tree is not (its .git is empty): no checkout trials.
const top = spawnSync('git', ['rev-parse', '--show-toplevel'], { cwd: root, env: gitEnv, encoding: 'utf8' })
const withGit = top.status === 0 && top.stdout.trim() === fs.realpathSync(root)
const branchFiles = sources.filter((_, i) => i % Math.floor(sources.length / BRANCH_FILES) === 0).slice(0, BRANCH_FILES)
let home
if (withGit) {
  home = git('rev-parse', '--abbrev-ref', 'HEAD')
  spawnSync('git', ['branch', '-D', BRANCH], { cwd: root })
  git('checkout', '-q', '-b', BRANCH)
  for (const f of branchFiles) fs.appendFileSync(path.join(root, f), `\n// ${MARK}\n`)
  git('commit', '-q', '-a', '-m', 'index freshness branch')
  git('checkout', '-q', home)
}
const kinds = withGit ? 4 : 3
let misses = 0
const lat = []
const perKind = [0, 0, 0, 0]
let onBranch = false
let restore = null
for (let i = 0; i < trials; i++) {
  const kind = i % kinds
  perKind[kind]++
  let want, word
  if (kind === 3) {
    onBranch = !onBranch
    git('checkout', '-q', onBranch ? BRANCH : home)
    word = MARK
    want = onBranch ? [...branchFiles].sort() : []
  } else {
    const rel = sources[(i * 7919) % sources.length]
    word = `Fresh${i}Zq${Date.now()}`
    const abs = path.join(root, rel)
    const before = fs.readFileSync(abs)
    if (kind === 0) await on.callTool('write_file', { path: rel, content: `${before}\n// ${word}\n` })
    else if (kind === 1) fs.writeFileSync(abs, `${before}\n// ${word}\n`)
    else spawnSync('sh', ['-c', 'printf "\\n// %s\\n" "$1" >> "$2"', 'sh', word, abs])
    want = [rel]
    // Restored after the grep (an out-of-tool write the next trials see too).
    restore = () => fs.writeFileSync(abs, before)
  }
  let found
  lat.push(
    await time(async () => {
      found = text(await on.callTool('grep', { pattern: word }))
    }),
  )
  const got = found === '(no matches)' ? [] : found.split('\n').sort()
  if (got.join('\n') !== want.join('\n')) misses++
  if (kind !== 3) restore()
}
if (withGit) {
  if (onBranch) git('checkout', '-q', home)
  git('branch', '-q', '-D', BRANCH)
}
console.log(
  `\nfreshness: ${trials} edits then a grep for the new text (${perKind[0]} write_file, ${perKind[1]} fs.writeFileSync, ` +
    `${perKind[2]} child process, ${perKind[3]} git checkout of ${BRANCH_FILES} files): ${misses} misses; ` +
    `grep after an edit median ${median(lat).toFixed(1)} ms`,
)
console.log(`status: ${JSON.stringify(on.searchIndexStatus())}`)
fs.rmSync(path.join(root, '.clarvis'), { recursive: true, force: true })
