// Code navigation (issue 29): find_symbol and find_references against `rg -w NAME` over the
// same tree, in the same run. rg finds text; ours parses the files holding the name and
// answers with definitions or uses as code, so rg is the floor the targets are set
// against (find_symbol ≤ 1.5× rg -w cold, find_references ≤ 1.5× cold / ≤ 0.2× warm).
//
// Without the search index (searchIndex "off"): the walk tests every file's bytes, then parses
// the candidates. "memo" rows: each file's symbols are remembered by content after the warm-up
// call, so a round costs the walk, the reads and the hashes; "cold" rows ask for a name not
// asked before in that process each round (a fresh name from the list below), so its
// candidates are parsed.

import { capture, expectOk, interleaved, row, skipped } from './lib.mjs'
import { RG_POLICY } from './search.mjs'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)

/** Names that occur in at most ~50 files of the corpus (Rust and TypeScript). */
const NAMES = ['spawn_blocking', 'parse_quote', 'ClientHello', 'debounceTime', 'Raycaster', 'differenceInDays', 'CaptureLocations', 'shareReplay']

export async function navigationRows(ctx, want) {
  const rows = []
  const { createAgentTools } = require('../index.js')
  const tools = createAgentTools({ workspaceRoot: ctx.corpus, maxOutputBytes: 1 << 24, searchIndex: 'off' })
  const rg = (name) => async () => {
    const r = await capture(ctx.rg, [...RG_POLICY, '-w', '-l', '-F', name], ctx.corpus)
    if (r.code > 1) throw new Error(`rg failed (${r.code}): ${r.stderr}`)
  }
  const plan = [
    ['find_symbol', 'spawn_blocking', { op: '<=', value: 1.5 }],
    ['find_references', 'spawn_blocking', { op: '<=', value: 1.5 }],
    ['find_symbol', 'differenceInDays', { op: '<=', value: 1.5 }],
    ['find_references', 'debounceTime', { op: '<=', value: 1.5 }],
  ]
  for (const [tool, name, target] of plan) {
    const label = `${tool} ${name}, no index, memo warm, vs rg -w -l`
    if (!want(label)) continue
    if (!ctx.rg) {
      rows.push(skipped(label, target, 'n/a', ctx.rgMissing))
      continue
    }
    try {
      const ours = async () => expectOk(tool, await tools.callTool(tool, { name }))
      const [o, p] = await interleaved([ours, rg(name)], ctx.rounds.corpus)
      rows.push(row(label, o, p, target, 'ours parses the candidate files (memoised by content); rg lists files holding the word'))
    } catch (e) {
      rows.push(skipped(label, target, 'ERROR', e.message))
    }
  }
  const label = 'find_symbol cold (a name not asked before in the process), no index, vs rg -w -l'
  if (want(label) && ctx.rg) {
    try {
      let i = 0
      const fresh = createAgentTools({ workspaceRoot: ctx.corpus, maxOutputBytes: 1 << 24, searchIndex: 'off' })
      const ours = async () => expectOk('find_symbol', await fresh.callTool('find_symbol', { name: NAMES[i++ % NAMES.length] }))
      let j = 0
      const peer = async () => rg(NAMES[j++ % NAMES.length])()
      const [o, p] = await interleaved([ours, peer], Math.min(NAMES.length - 1, 7))
      rows.push(row(label, o, p, { op: '<=', value: 1.5 }, `names cycle through ${NAMES.length}; after one pass their files are memoised`))
    } catch (e) {
      rows.push(skipped(label, { op: '<=', value: 1.5 }, 'ERROR', e.message))
    }
  }
  return rows
}
