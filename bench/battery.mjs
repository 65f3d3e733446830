// A battery of regexes drawn from the corpus's own identifiers (every third one narrowed by a
// glob or a directory), each run three ways: ripgrep, our grep scanning (searchIndex "off"),
// and our grep through a ready index. Checks, per query: the indexed answer equals the scan's
// byte for byte (content, files_with_matches and count), the scan's counts are `rg -c`'s, and
// the scan's content rows are rg's rows (the same `path:line` keys; the text too where rg
// prints a line as we do: valid UTF-8, no carriage return). Files with carriage returns are
// matched on LF-normalised lines by contract, so they are compared with the scan only. Not a
// speed bench: it looks for wrong answers, and exits 1 on any.
//
//   node bench/battery.mjs [--copies N] [--queries Q] [--seed S]
//
// `--copies N` runs on bench/corpus-xN (made by `node bench/index.mjs --copies N`).

import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { createAgentTools } from '../index.mjs'
import { capture, numberArg as arg } from './lib.mjs'
import { RG_POLICY } from './search.mjs'

const here = path.dirname(fileURLToPath(import.meta.url))
const copies = arg('--copies', 0)
const count = arg('--queries', 240)
let seed = arg('--seed', 20261126) >>> 0
const rg = process.env.RG || 'rg'
const RG_SIZE = ['--max-filesize', '20000000']

const root = path.join(here, copies > 0 ? `corpus-x${copies}` : 'corpus')
if (!fs.existsSync(root)) {
  console.error(`no tree at ${root}: run \`node bench/corpus.mjs\` (and \`node bench/index.mjs --copies N\`)`)
  process.exit(1)
}

/** mulberry32: a seeded PRNG, so a failing battery can be run again as it was. */
function rand() {
  seed = (seed + 0x6d2b79f5) >>> 0
  let t = seed
  t = Math.imul(t ^ (t >>> 15), t | 1)
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}
const pick = (xs) => xs[Math.floor(rand() * xs.length)]
const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

// Identifiers from random searchable files, kept with the line they came from (two tokens of
// one line make the `a.*b` shapes that match something).
const files = (await capture(rg, [...RG_POLICY, '--files', '-t', 'rust', '-t', 'js', '-t', 'ts', '-t', 'py', '-t', 'json', '-t', 'md'], root)).stdout
  .toString()
  .split('\n')
  .filter(Boolean)
const samples = []
for (let tries = 0; samples.length < count && tries < count * 20; tries++) {
  const f = pick(files)
  let text
  try {
    text = fs.readFileSync(path.join(root, f), 'utf8')
  } catch {
    continue
  }
  const lines = text.split('\n').filter((l) => l.length < 400)
  if (!lines.length) continue
  const line = pick(lines)
  const toks = line.match(/[\p{L}_][\p{L}\p{N}_]{2,30}/gu)
  if (toks && toks.length) samples.push({ line, toks })
}

/** One query per sample, cycling through the shapes an agent writes. */
const SHAPES = [
  (s) => ({ pattern: esc(pick(s.toks)) }),
  (s) => ({ pattern: esc(pick(s.toks)), ignore_case: true }),
  (s) => ({ pattern: `\\b${esc(pick(s.toks))}\\b` }),
  (s) => ({ pattern: `${esc(pick(s.toks))}|${esc(pick(s.toks))}` }),
  (s) => ({ pattern: `${esc(pick(s.toks))}\\w*\\(` }),
  (s) => ({ pattern: `(?i)${esc(pick(s.toks))}\\s*[=:]` }),
  (s) => {
    const [a, b] = [pick(s.toks), pick(s.toks)]
    const [x, y] = s.line.indexOf(a) <= s.line.lastIndexOf(b) ? [a, b] : [b, a]
    return { pattern: `${esc(x)}.{0,80}${esc(y)}` }
  },
  (s) => {
    const t = pick(s.toks)
    return { pattern: `[A-Za-z_]${esc(t.slice(1))}` }
  },
  (s) => ({ pattern: esc(pick(s.toks).slice(0, 3)) }),
  (s) => ({ pattern: `(${esc(pick(s.toks))})+`, ignore_case: true }),
  (s) => ({ pattern: `^\\s*${esc(s.line.trim().slice(0, 24))}` }),
  (s) => ({ pattern: `${esc(pick(s.toks))}$` }),
]
// Every third query is narrowed: by a file-name glob, or to a directory of the tree (both are
// paths the planner and the index's candidate filter must honour).
const dirs = [...new Set(files.map((f) => f.split('/').slice(0, 2).join('/')).filter((d) => d.includes('/')))]
const narrowings = [
  () => ({ args: { glob: '*.rs' }, rg: ['-g', '*.rs'] }),
  () => ({ args: { glob: '*.ts' }, rg: ['-g', '*.ts'] }),
  () => {
    const d = pick(dirs)
    return { args: { path: d }, rg: [], paths: [d] }
  },
]
const queries = samples.map((s, i) => {
  // Shifted by the round through the shapes, so each shape is narrowed in some rounds.
  const n = (i + Math.floor(i / SHAPES.length)) % 3 === 1 ? pick(narrowings)() : { args: {}, rg: [] }
  return { args: { ...SHAPES[i % SHAPES.length](s), ...n.args }, rg: n.rg, paths: n.paths ?? [] }
})

const BIG = 1 << 30
fs.rmSync(path.join(root, '.clarvis'), { recursive: true, force: true })
const off = createAgentTools({ workspaceRoot: root, searchIndex: 'off', maxOutputBytes: BIG })
const on = createAgentTools({ workspaceRoot: root, searchIndex: 'on', maxOutputBytes: BIG })
await on.callTool('grep', { pattern: 'Ed25519' })
while (on.searchIndexStatus().state !== 'ready') await new Promise((r) => setTimeout(r, 10))
const text = (r) => r.content.map((p) => p.text).join('')

const rows = (t) => (t === '(no matches)' ? [] : t.split('\n').filter(Boolean))
/** rg's text for one line as our grep shows it, or null where the two legitimately differ. */
const comparable = (buf) => {
  if (buf.includes(13)) return null
  const s = buf.toString('utf8')
  return s.includes('\ufffd') ? null : s
}

const crCache = new Map()
function hasCR(rel) {
  if (!crCache.has(rel)) crCache.set(rel, fs.readFileSync(path.join(root, rel)).includes(13))
  return crCache.get(rel)
}

let wrong = 0
let capped = 0
const t0 = Date.now()
for (const { args: q, rg: rgNarrow, paths } of queries) {
  const problems = []
  const args = { ...q, output_mode: 'content' }
  const [scan, idx] = [text(await off.callTool('grep', args)), text(await on.callTool('grep', args))]
  if (scan !== idx) problems.push('indexed content differs from the scan')
  const [scanF, idxF] = [text(await off.callTool('grep', q)), text(await on.callTool('grep', q))]
  if (scanF !== idxF) problems.push('indexed files_with_matches differs from the scan')
  const countArgs = { ...q, output_mode: 'count' }
  const [scanC, idxC] = [text(await off.callTool('grep', countArgs)), text(await on.callTool('grep', countArgs))]
  if (scanC !== idxC) problems.push('indexed count differs from the scan')
  // A result past the output budget (capped below V8's longest string) is cut: only the
  // scan comparison above applies.
  if (/\[\.\.\. (search incomplete|page exceeded|output truncated)/.test(scan)) {
    capped++
    if (problems.length) wrong++, console.log(`WRONG ${JSON.stringify(q)}\n  ${problems.join('\n  ')}`)
    continue
  }
  const rgBase = [...RG_POLICY, ...RG_SIZE, ...rgNarrow, ...(q.ignore_case ? ['-i'] : [])]
  const r = await capture(rg, [...rgBase, '-n', '--no-heading', '--with-filename', '-e', q.pattern, ...paths], root)
  if (r.code !== 0 && r.code !== 1) problems.push(`rg exited ${r.code}: ${r.stderr.toString().slice(0, 200)}`)
  // count: `path:N` rows, N matching lines, as rg -c prints them (in any order).
  const rc = await capture(rg, [...rgBase, '-c', '--with-filename', '-e', q.pattern, ...paths], root)
  const lfRow = (row) => !hasCR(row.slice(0, row.lastIndexOf(':')))
  const rgCounts = new Set(rows(rc.stdout.toString()).filter(lfRow))
  const ourCounts = new Set(rows(scanC).filter(lfRow))
  const countOnlyOurs = [...ourCounts].filter((x) => !rgCounts.has(x))
  const countOnlyRg = [...rgCounts].filter((x) => !ourCounts.has(x))
  if (countOnlyOurs.length || countOnlyRg.length) {
    problems.push(`counts: ${countOnlyOurs.length} only ours (${countOnlyOurs[0] ?? ''}), ${countOnlyRg.length} only rg (${countOnlyRg[0] ?? ''})`)
  }
  // Our rows: `path:line:text`; rg's the same, in any order, with raw bytes.
  const ours = new Map()
  for (const l of rows(scan)) {
    const m = /^(.*?):(\d+):(.*)$/s.exec(l)
    if (m) ours.set(`${m[1]}:${m[2]}`, m[3])
  }
  const theirs = new Map()
  const out = r.stdout
  let at = 0
  while (at < out.length) {
    let nl = out.indexOf(10, at)
    if (nl < 0) nl = out.length
    const line = out.subarray(at, nl)
    at = nl + 1
    const c1 = line.indexOf(58)
    const c2 = line.indexOf(58, c1 + 1)
    if (c1 < 0 || c2 < 0) continue
    theirs.set(`${line.subarray(0, c1).toString()}:${line.subarray(c1 + 1, c2).toString()}`, line.subarray(c2 + 1))
  }
  // A file with carriage returns is matched on LF-normalised lines (CONTRACT: `\r\n` and a
  // lone `\r` end lines, so `$` works and lines are numbered as read_file numbers them); rg
  // keeps the `\r`. Those files are compared with the scan only.
  const lf = lfRow
  const onlyOurs = [...ours.keys()].filter((k) => !theirs.has(k) && lf(k))
  const onlyRg = [...theirs.keys()].filter((k) => !ours.has(k) && lf(k))
  if (onlyOurs.length || onlyRg.length) {
    problems.push(`rows: ${onlyOurs.length} only ours (${onlyOurs[0] ?? ''}), ${onlyRg.length} only rg (${onlyRg[0] ?? ''})`)
  }
  let textDiff = 0
  let example = ''
  for (const [k, v] of theirs) {
    const want = comparable(v)
    if (want !== null && ours.has(k) && ours.get(k) !== want && lf(k)) {
      textDiff++
      example ||= `${k}: ours ${JSON.stringify(ours.get(k).slice(0, 80))} rg ${JSON.stringify(want.slice(0, 80))}`
    }
  }
  if (textDiff) problems.push(`${textDiff} rows with other text (${example})`)
  if (problems.length) {
    wrong++
    console.log(`WRONG ${JSON.stringify(q)}\n  ${problems.join('\n  ')}`)
  }
}
console.log(
  `battery on ${root}: ${queries.length} queries (seed ${arg('--seed', 20261126)}), ${wrong} wrong ` +
    `(${capped} over the output budget, compared with the scan only); ` +
    `${Math.round((Date.now() - t0) / 1000)} s; index ${JSON.stringify(on.searchIndexStatus())}`,
)
process.exit(wrong ? 1 : 0)
