#!/usr/bin/env node
// The benchmark: our tools through the public API against the best peer for each job, in the
// same run, interleaved, medians, ratios with PASS/MISS. See bench/README.md.
//
// Usage: npm run bench [-- [--quick] [--json FILE] [--rounds N] [FILTER ...]]
//   FILTER   run only the rows whose name contains one of these strings (case-insensitive)
//   --quick  fewer rounds (a smoke run; numbers are noisier)

import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createRequire } from 'node:module'
import { callRows, setupScratch } from './calls.mjs'
import { checkpointRows } from './checkpoint.mjs'
import { ensureCorpus, CORPUS } from './corpus.mjs'
import { hostRows } from './host.mjs'
import { captureWarnings, printTable } from './lib.mjs'
import { memoryRows } from './memory.mjs'
import { monitorRows } from './monitor.mjs'
import { terminalRows } from './terminal.mjs'
import { readToolRows } from './readtools.mjs'
import { reviewRows } from './review.mjs'
import { globRows, grepRows } from './search.mjs'
import { syntaxRows } from './syntax.mjs'
import { navigationRows } from './navigation.mjs'
import { symbolIndexRows } from './symindex.mjs'

const require = createRequire(import.meta.url)

function parseArgs(argv) {
  const opts = { quick: false, json: null, rounds: null, filters: [] }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (a === '--quick') opts.quick = true
    else if (a === '--json') opts.json = argv[++i]
    else if (a === '--rounds') opts.rounds = Number(argv[++i])
    else if (a === '--help' || a === '-h') {
      process.stdout.write('usage: npm run bench [-- [--quick] [--json FILE] [--rounds N] [FILTER ...]]\n')
      process.exit(0)
    } else opts.filters.push(a.toLowerCase())
  }
  return opts
}

const RG_HINT =
  'ripgrep not found: install it (`apt-get install -y ripgrep`, or `cargo install ripgrep --locked` for the version ' +
  'matching our grep crates), or point RG=/path/to/rg at one'

function findRg() {
  const rg = process.env.RG || 'rg'
  try {
    const v = execFileSync(rg, ['--version'], { stdio: ['ignore', 'pipe', 'ignore'] }).toString().split('\n')[0]
    return { rg, version: v }
  } catch {
    return { rg: null, version: null }
  }
}

async function main() {
  const opts = parseArgs(process.argv.slice(2))
  const want = (name) => opts.filters.length === 0 || opts.filters.some((f) => name.toLowerCase().includes(f))
  const n = (full, quick) => opts.rounds ?? (opts.quick ? quick : full)
  const rounds = {
    corpus: n(9, 3), // whole-corpus grep/glob samples
    calls: n(15, 5), // batches of per-call samples
    batch: 320, // calls per batch (read_file, list_dir)
    cBatch: 2000, // calls per sample of the 2,000-line C file rows (issue 11's 2,000 calls)
    cRounds: n(7, 3), // samples of those rows
    edits: n(15, 5), // edit_file / apply_patch samples
    spawns: n(41, 11), // bash samples
    memory: n(3, 1), // child-process pairs
  }

  const corpus = ensureCorpus()
  const { rg, version } = findRg()
  const { createAgentTools, setWarnSink } = require('../index.js')
  captureWarnings(setWarnSink)
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'clarvis-bench-'))
  const { bigBytes } = setupScratch(scratch)

  const ctx = {
    corpus: CORPUS,
    rg,
    rgMissing: RG_HINT,
    rounds,
    cpus: os.availableParallelism ? os.availableParallelism() : os.cpus().length,
    // Full results for the comparisons with rg; the defaults for the "default config" notes.
    // The scan is what these rows measure: the corpus is past searchIndex "auto"'s threshold,
    // and the index (its own bench: bench/index.mjs) would build in the background.
    big: createAgentTools({ workspaceRoot: CORPUS, maxOutputBytes: 1 << 30, searchIndex: 'off' }),
    dflt: createAgentTools({ workspaceRoot: CORPUS, searchIndex: 'off' }),
    tools: createAgentTools({ workspaceRoot: scratch }),
    scratch,
    bigBytes,
  }

  const out = process.stdout
  out.write(
    `@clarvis/agent-tools benchmark — node ${process.version}, ${ctx.cpus} CPUs, ${os.cpus()[0]?.model ?? '?'}\n` +
      `corpus: ${CORPUS}: ${corpus.trackedFiles} searchable files, ${(corpus.trackedBytes / 1e6).toFixed(1)} MB ` +
      `(${corpus.files} files, ${(corpus.bytes / 1e6).toFixed(1)} MB with the ignored ones)\n` +
      `peer: ${version ?? RG_HINT}\n` +
      `rounds: ${JSON.stringify(rounds)}${opts.quick ? ' (--quick)' : ''}; medians of interleaved runs, one warm-up each\n\n`,
  )
  if (!rg) out.write(`warning: ${RG_HINT}; the grep and glob rows are skipped.\n\n`)

  const rows = []
  try {
    for (const group of [grepRows, globRows, callRows, readToolRows, checkpointRows, reviewRows, hostRows, syntaxRows, navigationRows, symbolIndexRows, monitorRows, terminalRows, memoryRows]) {
      const got = await group(ctx, want)
      rows.push(...got)
      for (const r of got) process.stderr.write(`  done: ${r.name} (${r.status})\n`)
    }
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true })
  }
  out.write('\n')
  printTable(rows)
  const tally = (s) => rows.filter((r) => r.status === s).length
  out.write(`\n${tally('PASS')} PASS, ${tally('MISS')} MISS, ${tally('n/a')} n/a, ${tally('ERROR')} ERROR, ${tally('info')} info\n`)
  if (opts.json) {
    fs.writeFileSync(opts.json, JSON.stringify({ node: process.version, cpus: ctx.cpus, rg: version, corpus, rounds, rows }, null, 2) + '\n')
  }
  if (tally('ERROR') > 0) process.exitCode = 1
}

main().catch((e) => {
  process.stderr.write(`bench: ${e.stack || e}\n`)
  process.exit(1)
})
