// grep and glob on the whole corpus, against ripgrep spawned with the same policy.

import { capture, expectOk, interleaved, row, skipped } from './lib.mjs'

/** rg flags that give ripgrep our grep's policy (see bench/README.md, "Policy parity"). */
export const RG_POLICY = ['--no-config', '--hidden', '-g', '!.git', '--no-ignore-dot']
const RG_SIZE = ['--max-filesize', '20000000'] // our maxFileBytes default, in bytes

/** The four grep workloads: [label, pattern, ignore_case]. */
export const PATTERNS = [
  ['rare literal', 'Ed25519', false],
  ['common literal', 'return', false],
  ['alternation', '\\b(?:TODO|FIXME|unimplemented|deprecated)\\b', false],
  ['case-insens.', 'timeout', true],
]

/**
 * Rare-literal queries narrowed to some files (issue 11: every query shape ≤ 1.0× rg):
 * [label, our glob, rg's equivalent filter]. rg's type filter `-t rust` is `*.rs` exactly.
 */
export const FILTERS = [
  ['type rust', '*.rs', ['-t', 'rust']],
  ['glob *.ts', '*.ts', ['-g', '*.ts']],
]

const MODES = [
  ['files_with_matches', '-l'],
  ['content', '-n'],
  ['count', '-c'],
]

const GLOBS = ['rs', 'ts', 'js']

const FOOTER = /^\[\.\.\. /

function lines(text) {
  if (text === '(no matches)' || text === '') return []
  const ls = text.split('\n')
  if (ls[ls.length - 1] === '') ls.pop()
  return ls
}

/** Splits result lines from the trailing "[... ...]" footers a bounded result may carry. */
function body(text) {
  const ls = lines(text)
  const footers = []
  while (ls.length && FOOTER.test(ls[ls.length - 1])) footers.unshift(ls.pop())
  return { ls, footers }
}

function diffSets(a, b) {
  const sa = new Set(a)
  const sb = new Set(b)
  const onlyA = a.filter((x) => !sb.has(x))
  const onlyB = b.filter((x) => !sa.has(x))
  return { onlyA, onlyB, same: onlyA.length === 0 && onlyB.length === 0 && sa.size === sb.size }
}

function describeDiff(what, d) {
  if (d.same) return `identical ${what}`
  const ex = (xs) => (xs.length ? ` (e.g. ${JSON.stringify(xs[0].slice(0, 120))})` : '')
  return `${what} DIFFER: ${d.onlyA.length} only in ours${ex(d.onlyA)}, ${d.onlyB.length} only in rg${ex(d.onlyB)}`
}

/** Compares one grep result set with rg's, in the terms the mode allows. */
function compareGrep(mode, oursText, rgText) {
  const { ls: ours, footers } = body(oursText)
  const rg = lines(rgText)
  const warn = footers.length ? `; ours has footer ${JSON.stringify(footers[0].slice(0, 60))}` : ''
  if (mode === 'files_with_matches') {
    return `files ours ${ours.length} / rg ${rg.length}, ${describeDiff('file sets', diffSets(ours, rg))}${warn}`
  }
  if (mode === 'count') {
    const sum = (xs) => xs.reduce((s, l) => s + Number(l.slice(l.lastIndexOf(':') + 1)), 0)
    return (
      `files ${ours.length} / ${rg.length}, matching lines ${sum(ours)} / ${sum(rg)} (ours / rg), ` +
      `${describeDiff('path:N sets', diffSets(ours, rg))}${warn}`
    )
  }
  // content: rows are path:line:text; compare the path:line keys (rg prints them unsorted).
  const key = (l) => {
    const m = /^(.*?):(\d+):/.exec(l)
    return m ? `${m[1]}:${m[2]}` : l
  }
  return `lines ours ${ours.length} / rg ${rg.length}, ${describeDiff('path:line sets', diffSets(ours.map(key), rg.map(key)))}${warn}`
}

/** The grep queries: every pattern in every mode, then the rare literal under each filter. */
function grepQueries() {
  const out = []
  for (const [mode, flag] of MODES) {
    const m = mode === 'files_with_matches' ? 'files' : mode
    for (const [label, pattern, ic] of PATTERNS) {
      // The rare literal is issue 11's ≤ 1.0× rg; the others keep the first target.
      const target = { op: '<=', value: label === 'rare literal' ? 1.0 : 1.1 }
      out.push({ name: `grep ${m} ${label}`, mode, flag, pattern, ic, glob: null, filter: [], target })
    }
    const [, pattern] = PATTERNS[0]
    for (const [label, glob, filter] of FILTERS) {
      out.push({ name: `grep ${m} rare literal, ${label}`, mode, flag, pattern, ic: false, glob, filter, target: { op: '<=', value: 1.0 } })
    }
  }
  return out
}

/** grep rows: ours (full results) vs rg on each query; default config noted. */
export async function grepRows(ctx, want) {
  const rows = []
  for (const { name, mode, flag, pattern, ic, glob, filter, target } of grepQueries()) {
    if (!want(name)) continue
    if (!ctx.rg) {
      rows.push(skipped(name, target, 'n/a', ctx.rgMissing))
      continue
    }
    const args = { pattern, output_mode: mode, ...(ic ? { ignore_case: true } : {}), ...(glob ? { glob } : {}) }
    const rgArgs = [...RG_POLICY, ...RG_SIZE, ...filter, ...(ic ? ['-i'] : []), flag, '-e', pattern]
    let oursText = ''
    let rgText = ''
    let dflt = ''
    const ours = async () => {
      oursText = expectOk('grep', await ctx.big.callTool('grep', args))
    }
    const peer = async () => {
      const r = await capture(ctx.rg, rgArgs, ctx.corpus)
      if (r.code > 1) throw new Error(`rg failed (${r.code}): ${r.stderr}`)
      rgText = r.stdout
    }
    const byDefault = async () => {
      dflt = expectOk('grep', await ctx.dflt.callTool('grep', args))
    }
    try {
      const [o, p, d] = await interleaved([ours, peer, byDefault], ctx.rounds.corpus)
      const capped = /search incomplete/.test(dflt) ? 'scan capped' : /output truncated|showing/.test(dflt) ? 'page cut' : 'complete'
      const note = `${compareGrep(mode, oursText, rgText.toString())}; default config: ${(d).toFixed(1)} ms (${capped})`
      rows.push(row(name, o, p, target, note))
    } catch (e) {
      rows.push(skipped(name, target, e.notImplemented ? 'n/a' : 'ERROR', e.notImplemented ? 'grep not implemented yet' : e.message))
    }
    oursText = rgText = dflt = ''
  }
  return rows
}

/** glob rows: `**\/*.<ext>` newest first vs `rg --files -g '*.<ext>' --sortr modified`. */
export async function globRows(ctx, want) {
  const rows = []
  for (const ext of GLOBS) {
    const name = `glob **/*.${ext} by mtime`
    const target = { op: '<=', value: 1.0 }
    if (!want(name)) continue
    if (!ctx.rg) {
      rows.push(skipped(name, target, 'n/a', ctx.rgMissing))
      continue
    }
    let oursText = ''
    let rgText = ''
    let dflt = 0
    const ours = async () => {
      oursText = expectOk('glob', await ctx.big.callTool('glob', { pattern: `**/*.${ext}` }))
    }
    const peer = async () => {
      const r = await capture(ctx.rg, [...RG_POLICY, '--files', '-g', `*.${ext}`, '--sortr', 'modified'], ctx.corpus)
      if (r.code > 1) throw new Error(`rg failed (${r.code}): ${r.stderr}`)
      rgText = r.stdout
    }
    const byDefault = async () => {
      expectOk('glob', await ctx.dflt.callTool('glob', { pattern: `**/*.${ext}` }))
    }
    try {
      const [o, p, d] = await interleaved([ours, peer, byDefault], ctx.rounds.corpus)
      dflt = d
      const a = body(oursText).ls
      const b = lines(rgText.toString())
      let cmp
      const d2 = diffSets(a, b)
      if (!d2.same) cmp = describeDiff('path sets', d2)
      else {
        const at = a.findIndex((x, i) => x !== b[i])
        cmp = at < 0 ? 'identical lists, same order' : `same paths, order differs from #${at + 1}`
      }
      rows.push(row(name, o, p, target, `paths ours ${a.length} / rg ${b.length}, ${cmp}; default config: ${dflt.toFixed(1)} ms (output bounded)`))
    } catch (e) {
      rows.push(skipped(name, target, e.notImplemented ? 'n/a' : 'ERROR', e.notImplemented ? 'glob not implemented yet' : e.message))
    }
  }
  return rows
}
