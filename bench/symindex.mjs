// The symbol index (issue 29): find_symbol, find_references and repo_map with the index
// ready, and the index's build against universal-ctags, on a generated 15,000-file repository
// (and find_symbol / find_references warm on the corpus). rg and ctags run in the same run.
//
//   node bench/symindex.mjs [--rounds N] [--files N] [--no-build] [--clean] [--corpus] [--only TEXT]...
//
// Also a group of `npm run bench` (rows named "symbol index …"). Without universal-ctags the
// build row is skipped with a message (apt-get install universal-ctags). `--files 250000` is
// the monorepo case (find_symbol warm ≤ 50 ms; the tree takes ~0.6 GB in the temp directory
// and a minute to generate; the first call builds the index, minutes on two cores);
// `--no-build` leaves out the build row (three cold builds and three ctags runs), `--clean`
// deletes the generated tree afterwards, `--dir DIR` keeps the tree (and its index, built
// once) in DIR instead of the temp directory.

import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { execFileSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { capture, childJson, expectOk, interleaved, median, numberArg, row, skipped, time, fmtMs, printTable } from './lib.mjs'

const require = createRequire(import.meta.url)
const RG_POLICY = ['--no-config', '--hidden', '-g', '!.git', '--no-ignore-dot']
const CTAGS_HINT = 'universal-ctags not found: apt-get install -y universal-ctags (or CTAGS=/path/to/ctags)'

/** The universal-ctags binary, or null. */
export function findCtags() {
  for (const c of [process.env.CTAGS, 'ctags', 'universal-ctags'].filter(Boolean)) {
    try {
      const v = execFileSync(c, ['--version'], { encoding: 'utf8' })
      if (/Universal Ctags/.test(v)) return { ctags: c, version: v.split('\n')[0] }
    } catch {}
  }
  return { ctags: null, version: null }
}

/**
 * A generated repository of `files` source files (TypeScript, JavaScript, Python, Rust in
 * turn; 100 per directory), a git repository. File n defines `work<n>` and `Model<n>` with a
 * method `run`, calls three other files' `work` functions and one of 300 `sharedHelper<k>`
 * (defined in files 0–299, each used by ~files/300 files), and carries ~40 lines of filler
 * code. Deterministic. Returns its path.
 */
export function generate(dir, files) {
  const stamp = path.join(dir, '.generated')
  if (fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === String(files)) return dir
  fs.rmSync(dir, { recursive: true, force: true })
  for (let n = 0; n < files; n++) {
    const h = n % 300
    const [a, b, c] = [(n * 7 + 13) % files, (n * 31 + 7) % files, (n * 101 + 3) % files]
    const lang = n % 4
    const fill = []
    let body
    if (lang === 0 || lang === 1) {
      const t = lang === 0 ? ': number' : ''
      for (let i = 0; i < 36; i++) fill.push(`  const v${i} = x * ${i} + work${a}(${i}) // filler ${i}`)
      body = [
        `import { sharedHelper${h} } from '../../shared'`,
        `/** Work item ${n}. */`,
        `export function work${n}(x${t})${t} {`,
        `  return sharedHelper${h}(x) + work${a}(x) + work${b}(x) + work${c}(x)`,
        '}',
        n < 300 ? `export function sharedHelper${n}(x${t})${t} {\n  return x\n}` : '',
        `export class Model${n} {`,
        `  run()${t} {`,
        `    return work${n}(${n})`,
        '  }',
        '}',
        `function fill${n}(x${t}) {`,
        ...fill,
        '  return v0',
        '}',
      ]
    } else if (lang === 2) {
      for (let i = 0; i < 36; i++) fill.push(`    v${i} = x * ${i} + work${a}(${i})  # filler ${i}`)
      body = [
        `from shared import sharedHelper${h}`,
        '',
        `def work${n}(x):`,
        `    return sharedHelper${h}(x) + work${a}(x) + work${b}(x) + work${c}(x)`,
        '',
        n < 300 ? `def sharedHelper${n}(x):\n    return x\n` : '',
        `class Model${n}:`,
        '    def run(self):',
        `        return work${n}(${n})`,
        '',
        `def fill${n}(x):`,
        ...fill,
        '    return x',
      ]
    } else {
      for (let i = 0; i < 36; i++) fill.push(`    let v${i} = x * ${i} + work${a}(${i}); // filler ${i}`)
      body = [
        `use crate::shared::sharedHelper${h};`,
        `/// Work item ${n}.`,
        `pub fn work${n}(x: u64) -> u64 {`,
        `    sharedHelper${h}(x) + work${a}(x) + work${b}(x) + work${c}(x)`,
        '}',
        n < 300 ? `pub fn sharedHelper${n}(x: u64) -> u64 {\n    x\n}` : '',
        `pub struct Model${n} {\n    v: u64,\n}`,
        `impl Model${n} {\n    pub fn run(&self) -> u64 {\n        work${n}(self.v)\n    }\n}`,
        `fn fill${n}(x: u64) -> u64 {`,
        ...fill,
        '    x',
        '}',
      ]
    }
    const ext = ['ts', 'js', 'py', 'rs'][lang]
    const sub = path.join(dir, `pkg${Math.floor(n / 1000)}`, `m${Math.floor(n / 100) % 10}`)
    fs.mkdirSync(sub, { recursive: true })
    fs.writeFileSync(path.join(sub, `f${n}.${ext}`), body.join('\n') + '\n')
  }
  execFileSync('git', ['init', '-q', dir])
  fs.writeFileSync(path.join(dir, '.gitignore'), '.clarvis/\n')
  fs.writeFileSync(stamp, String(files))
  return dir
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

/** Opens tools with `searchIndex: "on"`, starts the build with a first call, and waits until
 * the postings and the symbol table are ready. Returns the tools, the wall time from the end
 * of the first call to readiness (`ms`) and from opening the tools (`total`: the build starts
 * with the first call and runs beside it), and the status. */
async function ready(root, first = 'work1') {
  const { createAgentTools } = require('../index.js')
  const open = process.hrtime.bigint()
  const tools = createAgentTools({ workspaceRoot: root, searchIndex: 'on', maxOutputBytes: 1 << 24 })
  expectOk('find_symbol', await tools.callTool('find_symbol', { name: first }))
  const t0 = process.hrtime.bigint()
  for (;;) {
    const s = tools.searchIndexStatus()
    if (s.state === 'ready' && s.symbols.state === 'ready') {
      const now = process.hrtime.bigint()
      return { tools, ms: Number(now - t0) / 1e6, total: Number(now - open) / 1e6, status: s }
    }
    await sleep(2)
  }
}

function absolute(name, value, target, note) {
  return { name, ours: value, peer: null, ratio: value, target, status: value <= target.value ? 'PASS' : 'MISS', note, format: (x) => (x == null ? '—' : fmtMs(x)) }
}

/** The warm rows on `root`: find_symbol (absolute bound), find_references (vs rg -w),
 * repo_map at the default budget and at 4 MB (absolute bounds), the first repo_map and the
 * first find_symbol after a write (absolute bounds: the index is never stale, so the call
 * that follows a write must stay fast), and the process's RSS with the index loaded. */
async function warmRows(ctx, want, label, root, names, symbolBound) {
  const rows = []
  const wanted = [
    `symbol index find_symbol warm, ${label}`,
    `symbol index find_references warm vs rg -w, ${label}`,
    `symbol index repo_map warm, default budget, ${label}`,
    `symbol index repo_map warm, 4 MB map, ${label}`,
    `symbol index repo_map first call after an edit, ${label}`,
    `symbol index find_symbol first call after an edit, ${label}`,
    `symbol index RSS with the index loaded, ${label}`,
  ]
  if (!wanted.some(want)) return rows
  const t0 = process.hrtime.bigint()
  const { tools, status, ms } = await ready(root, names[0])
  const info = `${status.files} files indexed`
  ctx.log?.(`${label}: first call and index ready in ${fmtMs(Number(process.hrtime.bigint() - t0) / 1e6)} (${fmtMs(ms)} after the first call; symbol table build ${fmtMs(status.symbols.buildMs)})`)
  const perCall = async (fn, n) => (await time(async () => { for (let i = 0; i < n; i++) await fn(i) })) / n
  if (want(wanted[0])) {
    const samples = []
    await perCall((i) => tools.callTool('find_symbol', { name: names[i % names.length] }), names.length)
    const cpu = []
    for (let r = 0; r < ctx.rounds.corpus; r++) {
      const c0 = process.cpuUsage()
      samples.push(await perCall(async (i) => expectOk('find_symbol', await tools.callTool('find_symbol', { name: names[i % names.length] })), names.length))
      const c = process.cpuUsage(c0)
      cpu.push((c.user + c.system) / 1000 / names.length)
    }
    rows.push(absolute(wanted[0], median(samples), { op: '<=', value: symbolBound, unit: 'ms' }, `per call, names ${names.slice(0, 3).join(', ')}…; CPU ${fmtMs(median(cpu))} a call; ${info}`))
  }
  if (want(wanted[1])) {
    if (!ctx.rg) rows.push(skipped(wanted[1], { op: '<=', value: 0.2 }, 'n/a', ctx.rgMissing))
    else {
      let i = 0
      let j = 0
      const ours = async () => expectOk('find_references', await tools.callTool('find_references', { name: names[i++ % names.length] }))
      const peer = async () => {
        const r = await capture(ctx.rg, [...RG_POLICY, '-n', '-w', '-F', names[j++ % names.length]], root)
        if (r.code > 1) throw new Error(`rg failed: ${r.stderr}`)
      }
      const [o, p] = await interleaved([ours, peer], ctx.rounds.corpus * 2)
      rows.push(row(wanted[1], o, p, { op: '<=', value: 0.2 }, `names cycle; rg -n -w NAME over the same tree; ${info}`))
    }
  }
  // The default budget is a quarter of the default maxOutputBytes (128 KiB); these tools
  // have a 16 MB limit, so their own default budget is the 4 MB map.
  const budgets = [
    [wanted[2], { max_bytes: 32768 }, 'max_bytes 32 KiB (a quarter of the default maxOutputBytes)'],
    [wanted[3], {}, 'max_bytes 4 MB (a quarter of maxOutputBytes 16 MB)'],
  ]
  for (const [name, args, what] of budgets) {
    if (!want(name)) continue
    const samples = []
    let bytes = 0
    const cold = await time(async () => expectOk('repo_map', await tools.callTool('repo_map', args)))
    for (let r = 0; r < Math.max(3, ctx.rounds.corpus >> 1); r++) {
      samples.push(await time(async () => { bytes = Buffer.byteLength(expectOk('repo_map', await tools.callTool('repo_map', args))) }))
    }
    rows.push(absolute(name, median(samples), { op: '<=', value: 100, unit: 'ms' }, `${what}, ${(bytes / 1e6).toFixed(2)} MB returned; first call ${fmtMs(cold)} (ranking built from the table, or loaded from repomap.idx); ${info}`))
  }
  // A write by another process (the watch reports it), then the first call: the changed
  // file is read and parsed, the ranking adjusted. Each round edits another file (a new
  // function calling a shared helper) and puts it back after the call.
  const edited = (k) => {
    const n = (k * 7919 + 1234) % status.files
    const sub = path.join(root, `pkg${Math.floor(n / 1000)}`, `m${Math.floor(n / 100) % 10}`)
    const file = fs.readdirSync(sub).find((f) => f.startsWith(`f${n}.`))
    return file && path.join(sub, file)
  }
  const edit = (file, k) => {
    const before = fs.readFileSync(file, 'utf8')
    const line = file.endsWith('.py') ? `
def addedFn${k}(x):
    return sharedHelper${k % 300}(x)
` : file.endsWith('.rs') ? `
pub fn added_fn${k}(x: u64) -> u64 {
    sharedHelper${k % 300}(x)
}
` : `
export function addedFn${k}(x) {
  return sharedHelper${k % 300}(x)
}
`
    fs.writeFileSync(file, before + line)
    return () => fs.writeFileSync(file, before)
  }
  let k = 0
  for (const [name, tool, args] of [
    [wanted[4], 'repo_map', { max_bytes: 32768 }],
    [wanted[5], 'find_symbol', { name: names[0] }],
  ]) {
    if (!want(name)) continue
    const samples = []
    await tools.callTool(tool, args)
    for (let r = 0; r < Math.max(3, ctx.rounds.corpus >> 2); r++) {
      const file = edited(k++)
      if (!file) continue
      const restore = edit(file, k)
      await sleep(20)
      samples.push(await time(async () => expectOk(tool, await tools.callTool(tool, args))))
      restore()
      await sleep(20)
      await tools.callTool(tool, args)
    }
    const bound = tool === 'repo_map' ? 1000 : symbolBound
    rows.push(absolute(name, median(samples), { op: '<=', value: bound, unit: 'ms' }, `a file of the tree rewritten (a function added), then the first ${tool} (${JSON.stringify(args)}); samples ${samples.map(fmtMs).join(', ')}; ${info}`))
  }
  if (want(wanted[6])) {
    const rss = process.memoryUsage().rss / 1e6
    rows.push({ name: wanted[6], ours: rss, peer: null, ratio: null, target: { op: '<=', value: null }, status: 'info', note: `RSS of this process after the rows above (the images are mapped: grep.idx, symbols.idx; the repo map's ranking in memory)`, format: (x) => (x == null ? '—' : `${x.toFixed(0)} MB`) })
  }
  return rows
}

/** The build row: our postings + symbol table, from a cold start (no image on disk), against
 * `ctags -R` over the same tree. */
async function buildRow(ctx, want, label, root) {
  const name = `symbol index build vs ctags -R, ${label}`
  const target = { op: '<=', value: 1.0 }
  if (!want(name)) return []
  if (!ctx.ctags) return [skipped(name, target, 'n/a', CTAGS_HINT)]
  const idx = path.join(root, '.clarvis', 'index')
  const symbolsMs = []
  const oursCpu = []
  const ours = async () => {
    fs.rmSync(idx, { recursive: true, force: true })
    const c0 = process.cpuUsage()
    const { total, status } = await ready(root)
    const c = process.cpuUsage(c0)
    oursCpu.push((c.user + c.system) / 1000)
    symbolsMs.push(status.symbols.buildMs)
    return total
  }
  const tags = path.join(os.tmpdir(), `clarvis-bench-tags-${process.pid}`)
  const args = ['-R', '--exclude=.git', '--exclude=.clarvis', '-f', tags, '.']
  const peer = async () => {
    const r = await capture(ctx.ctags, args, root)
    if (r.code !== 0) throw new Error(`ctags failed: ${r.stderr}`)
  }
  const o = []
  const p = []
  const peerCpu = []
  await peer()
  for (let r = 0; r < Math.max(3, ctx.rounds.corpus >> 1); r++) {
    o.push(await ours())
    p.push(await time(peer))
    peerCpu.push(await childCpu(ctx.ctags, args, root))
  }
  fs.rmSync(tags, { force: true })
  const cpu = `CPU ours ${fmtMs(median(oursCpu))} / ctags ${fmtMs(median(peerCpu))} = ${(median(oursCpu) / median(peerCpu)).toFixed(2)}×`
  return [row(name, median(o), median(p), target, `ours: from opening the tools (a first find_symbol starts the build and runs beside it) until the postings and the symbol table are ready (the symbol table alone: ${fmtMs(median(symbolsMs))}); ctags -R single-threaded; ${cpu}`)]
}

/** A peer's CPU time (user + system of the processes the shell waited for, ms) running
 * `cmd args` in `cwd`, from the shell's `times` (10 ms resolution); its output goes through
 * a pipe as in the timed runs (rg stops at the first match when it writes to /dev/null). */
async function childCpu(cmd, args, cwd) {
  const q = (a) => `'${a.replace(/'/g, "'\\''")}'`
  const r = await capture('sh', ['-c', `${[cmd, ...args].map(q).join(' ')} | cat >/dev/null; times`], cwd)
  const lines = r.stdout.toString().trim().split('\n')
  const secs = (lines.at(-1) || '').match(/(\d+)m([\d.]+)s/g) || []
  return secs.reduce((sum, t) => {
    const [, m, s] = t.match(/(\d+)m([\d.]+)s/)
    return sum + (Number(m) * 60 + Number(s)) * 1000
  }, 0)
}

/** The cold rows: find_symbol and find_references as the first call of a new process with
 * no index (a child per sample: `bench/symcold-child.mjs`), against `rg -n -w -F NAME` over
 * the same tree; names used in 50 files. Ours is the call's own time in the child (the
 * process start and the addon's load are not counted; rg's spawn is). */
async function coldRows(ctx, want, label, root, names) {
  const rows = []
  const child = path.join(path.dirname(new URL(import.meta.url).pathname), 'symcold-child.mjs')
  for (const tool of ['find_symbol', 'find_references']) {
    const name = `symbol index ${tool} cold vs rg -w, ${label}`
    const target = { op: '<=', value: 1.5 }
    if (!want(name)) continue
    if (!ctx.rg) {
      rows.push(skipped(name, target, 'n/a', ctx.rgMissing))
      continue
    }
    const ours = []
    const oursCpu = []
    const peer = []
    const peerCpu = []
    const rounds = Math.max(5, ctx.rounds.corpus)
    for (let r = 0; r < rounds; r++) {
      const n = names[r % names.length]
      const got = await childJson(child, [root, tool, n], 120000)
      if (got.isError) throw new Error(`${tool} ${n}: ${got.head}`)
      ours.push(got.ms)
      oursCpu.push(got.cpuMs)
      const args = [...RG_POLICY, '-n', '-w', '-F', n]
      peer.push(
        await time(async () => {
          const res = await capture(ctx.rg, args, root)
          if (res.code > 1) throw new Error(`rg failed: ${res.stderr}`)
        }),
      )
      peerCpu.push(await childCpu(ctx.rg, args, root))
    }
    const cpu = median(oursCpu) / median(peerCpu)
    rows.push(row(name, median(ours), median(peer), target, `first call of a new process, searchIndex "off"; names ${names.slice(0, 3).join(', ')}… (50 files each); CPU ours ${fmtMs(median(oursCpu))} / rg ${fmtMs(median(peerCpu))} = ${cpu.toFixed(2)}×`))
  }
  return rows
}

/** The rows of `npm run bench` (and of this script alone). */
export async function symbolIndexRows(ctx, want) {
  const { ctags } = findCtags()
  ctx = { ...ctx, ctags }
  const files = ctx.symbolFiles ?? 15000
  const root = generate(ctx.symbolDir ?? path.join(os.tmpdir(), `clarvis-bench-nav${files}`), files)
  const label = `${files} files`
  const names = [17, 142, 233, 58, 291, 104, 9, 266].map((k) => `sharedHelper${k}`)
  // Used in exactly 50 files each (no longer name contains them: sharedHelper17 is inside
  // sharedHelper170–179).
  const coldNames = [142, 233, 291, 104, 266, 58].map((k) => `sharedHelper${k}`)
  const rows = []
  rows.push(...(await coldRows(ctx, want, label, root, coldNames)))
  if (!ctx.noBuild) rows.push(...(await buildRow(ctx, want, label, root)))
  // The bounds: 10 ms on 15k files, 50 ms on a 250k-file monorepo.
  rows.push(...(await warmRows(ctx, want, label, root, names, files > 15000 ? 50 : 10)))
  if (ctx.clean) fs.rmSync(root, { recursive: true, force: true })
  if (ctx.withCorpus && ctx.corpus && fs.existsSync(ctx.corpus)) {
    rows.push(...(await warmRows(ctx, want, 'corpus', ctx.corpus, ['spawn_blocking', 'parse_quote', 'ClientHello', 'debounceTime', 'Raycaster', 'differenceInDays', 'CaptureLocations', 'shareReplay'], 10)))
  }
  return rows
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rounds = numberArg('--rounds', 9)
  const { rg } = (() => {
    try {
      execFileSync(process.env.RG || 'rg', ['--version'], { stdio: 'ignore' })
      return { rg: process.env.RG || 'rg' }
    } catch {
      return { rg: null }
    }
  })()
  const ctx = {
    rg,
    rgMissing: 'ripgrep not found',
    rounds: { corpus: rounds },
    symbolFiles: numberArg('--files', 15000),
    // --dir DIR: generate (or reuse) the tree there instead of the temp directory, so a
    // 250k-file tree and its index can be kept between runs.
    symbolDir: process.argv.flatMap((a, i) => (process.argv[i - 1] === '--dir' ? [path.resolve(a)] : []))[0],
    withCorpus: process.argv.includes('--corpus'),
    noBuild: process.argv.includes('--no-build'),
    clean: process.argv.includes('--clean'),
    log: (line) => process.stdout.write(`${line}\n`),
    corpus: path.join(path.dirname(new URL(import.meta.url).pathname), 'corpus'),
  }
  const { version } = findCtags()
  process.stdout.write(`symbol index bench — node ${process.version}, ${os.availableParallelism()} CPUs; ${version ?? CTAGS_HINT}; load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}\n\n`)
  // --only TEXT (repeatable): only the rows whose name contains one of them.
  const only = process.argv.flatMap((a, i) => (process.argv[i - 1] === '--only' ? [a] : []))
  const rows = await symbolIndexRows(ctx, (name) => only.length === 0 || only.some((o) => name.includes(o)))
  printTable(rows)
  process.stdout.write(`\nload after: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}\n`)
  process.exit(0)
}
