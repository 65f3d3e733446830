// Syntax tools (issue 13): our compiled-in tree-sitter against the original's grammars
// (@vscode/tree-sitter-wasm 0.3.1) driven from Node in the same run, walked in JS the way the
// original walks them (bench/syntax-ref.mjs); and what syntax warnings add to an edit.

import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import { capture, expectOk, interleaved, row, skipped } from './lib.mjs'
import * as ref from './syntax-ref.mjs'
import { checkAll } from './check-child.mjs'

const require = createRequire(import.meta.url)
const WASM_HINT = 'install the devDependency @vscode/tree-sitter-wasm (npm install) for the peer'

/** A TypeScript module of `n` lines: classes with methods, functions, interfaces, consts. */
export function tsSource(n) {
  const out = []
  let i = 0
  while (out.length < n) {
    out.push(`export class Service${i} {`, `  private count = ${i};`, `  async handle(req: Request): Promise<number> {`, `    const x = await fetch(req.url);`, `    return x.status + this.count;`, `  }`, `}`)
    out.push(`export interface Options${i} { port?: number; host: string }`)
    out.push(`export function helper${i}(a: number, b: string): string {`, `  return b.repeat(a);`, `}`)
    out.push(`export const arrow${i} = (s: string): number => Number(s);`, ``)
    i++
  }
  return out.slice(0, n).join('\n') + '\n'
}

function walkFiles(root, exts) {
  const out = []
  const stack = [root]
  while (stack.length) {
    const d = stack.pop()
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.name === '.git' || e.name === 'node_modules') continue
      const p = path.join(d, e.name)
      if (e.isDirectory()) stack.push(p)
      else if (e.isFile() && exts.includes(path.extname(e.name))) out.push(path.relative(root, p))
    }
  }
  return out.sort()
}

const GRAMMAR = { '.ts': 'typescript', '.rs': 'rust', '.py': 'python' }

export async function syntaxRows(ctx, want) {
  const rows = []
  const { createAgentTools } = require('../index.js')
  const dir = path.join(ctx.scratch, 'syntax')
  fs.mkdirSync(dir, { recursive: true })
  const big = tsSource(10_000)
  fs.writeFileSync(path.join(dir, 'big.ts'), big)
  const tools = createAgentTools({ workspaceRoot: dir, maxOutputBytes: 1 << 24 })

  let name = 'outline: 10,000-line TypeScript file'
  let target = { op: '>=', value: 5 }
  if (want(name)) {
    if (!ref.available) rows.push(skipped(name, target, 'n/a', WASM_HINT))
    else {
      try {
        const ours = async () => expectOk('outline', await tools.callTool('outline', { path: 'big.ts' }))
        const peer = async () => ref.outline('big.ts', 'typescript', fs.readFileSync(path.join(dir, 'big.ts'), 'utf8'))
        const a = (await tools.callTool('outline', { path: 'big.ts' })).text
        if (a !== (await peer())) throw new Error('outline differs from the wasm reference')
        const [o, p] = await interleaved([ours, peer], ctx.rounds.edits)
        rows.push(row(name, o, p, target, 'peer: the same file parsed by the wasm grammar and walked in JS (same output, checked)', p / o))
      } catch (e) {
        rows.push(skipped(name, target, 'ERROR', e.message))
      }
    }
  }

  // The row above outlines one unchanged file, which our tree cache answers without a parse
  // after the first call (an agent outlining a file twice gets that too). Here every call
  // outlines a file not seen before: the parse itself, against the same parse in wasm.
  name = 'outline: 10,000-line TypeScript file, cold (a new file each call)'
  if (want(name)) {
    if (!ref.available) rows.push(skipped(name, target, 'n/a', WASM_HINT))
    else {
      try {
        const rounds = ctx.rounds.edits
        // Distinct content (and more files than the cache keeps), one per timed call.
        const names = Array.from({ length: rounds + 1 }, (_, i) => `cold${i}.ts`)
        names.forEach((f, i) => fs.writeFileSync(path.join(dir, f), `// ${f}\n` + big))
        let a = 0
        let b = 0
        const ours = async () => expectOk('outline', await tools.callTool('outline', { path: names[a++ % names.length] }))
        const peer = async () => {
          const f = names[b++ % names.length]
          return ref.outline(f, 'typescript', fs.readFileSync(path.join(dir, f), 'utf8'))
        }
        const [o, p] = await interleaved([ours, peer], rounds)
        rows.push(row(name, o, p, target, 'each call a file the tools have not parsed before; peer: the wasm grammar walked in JS', p / o))
      } catch (e) {
        rows.push(skipped(name, target, 'ERROR', e.message))
      }
    }
  }

  const files = walkFiles(ctx.corpus, ['.ts', '.rs', '.py'])
  const peerCheck = async () => {
    for (const f of files) {
      const abs = path.join(ctx.corpus, f)
      if (fs.statSync(abs).size > 2_000_000) continue
      await ref.checkSyntax(f, GRAMMAR[path.extname(f)], fs.readFileSync(abs, 'utf8'))
    }
  }
  const corpusRounds = Math.max(3, Math.floor(ctx.rounds.corpus / 3))
  // Every file parsed: each round is a new process (its start, about 60 ms, is in the time),
  // so nothing is remembered from an earlier round.
  name = `check_syntax: ${files.length} .ts/.rs/.py files of the corpus, first pass`
  if (want('check_syntax: corpus') || want(name)) {
    if (!ref.available) rows.push(skipped(name, target, 'n/a', WASM_HINT))
    else {
      try {
        const list = path.join(ctx.scratch, 'check-files.json')
        fs.writeFileSync(list, JSON.stringify(files))
        const child = new URL('./check-child.mjs', import.meta.url).pathname
        const ours = async () => {
          const r = await capture(process.execPath, [child, ctx.corpus, list], ctx.corpus)
          if (r.code !== 0) throw new Error(Buffer.concat(r.stderr).toString())
        }
        const [o, p] = await interleaved([ours, peerCheck], corpusRounds)
        rows.push(row(name, o, p, target, 'ours: a new process each round, 8 concurrent check_syntax calls; peer: the wasm grammars, sequential', p / o))
      } catch (e) {
        rows.push(skipped(name, target, 'ERROR', e.message))
      }
    }
  }
  // The same files again in the same process: what an agent re-checking a repository pays.
  // Unchanged files are answered from the parse memo (content-addressed: a read and a hash).
  name = `check_syntax: ${files.length} .ts/.rs/.py files of the corpus, again`
  if (want('check_syntax: corpus') || want(name)) {
    if (!ref.available) rows.push(skipped(name, target, 'n/a', WASM_HINT))
    else {
      try {
        const corpusTools = createAgentTools({ workspaceRoot: ctx.corpus })
        const ours = () => checkAll(corpusTools, files)
        const [o, p] = await interleaved([ours, peerCheck], corpusRounds)
        rows.push(row(name, o, p, target, 'ours: 8 concurrent calls, files unchanged since the last pass; peer: the wasm grammars, sequential (it keeps nothing)', p / o))
      } catch (e) {
        rows.push(skipped(name, target, 'ERROR', e.message))
      }
    }
  }

  name = 'syntax warnings: edit_file of a 2,000-line .ts file'
  target = { op: '<=', value: 1.1 }
  if (want(name)) {
    try {
      const src = 'export const EDIT_MARKER = 1000;\n' + tsSource(1999)
      fs.writeFileSync(path.join(dir, 'w-on.ts'), src)
      fs.writeFileSync(path.join(dir, 'w-off.ts'), src)
      const off = createAgentTools({ workspaceRoot: dir, probeTreeSitter: () => false })
      // Every edit writes content not seen before, so no warning comes from the parse memo:
      // each one is an incremental re-parse.
      const flipper = (t, file) => {
        let v = 1000
        return async () => {
          const [a, b] = [`EDIT_MARKER = ${v};`, `EDIT_MARKER = ${v + 1};`]
          v++
          expectOk('edit_file', await t.callTool('edit_file', { path: file, old_string: a, new_string: b }))
        }
      }
      const [w, n] = await interleaved([flipper(tools, 'w-on.ts'), flipper(off, 'w-off.ts')], ctx.rounds.edits * 2)
      rows.push(row(name, w, n, target, 'peer: the same edit_file with probeTreeSitter: () => false (no parse)'))
    } catch (e) {
      rows.push(skipped(name, target, 'ERROR', e.message))
    }
  }
  return rows
}

// Standalone: `node bench/syntax.mjs [TREE] [--rounds N]` runs only these rows, with TREE
// (default: the bench corpus) as the check_syntax tree.
if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  const os = await import('node:os')
  const { printTable } = await import('./lib.mjs')
  const { CORPUS } = await import('./corpus.mjs')
  const argv = process.argv.slice(2)
  const ri = argv.indexOf('--rounds')
  const rounds = ri >= 0 ? Number(argv.splice(ri, 2)[1]) : 9
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'clarvis-syntax-bench-'))
  try {
    const ctx = { scratch, corpus: argv[0] ? path.resolve(argv[0]) : CORPUS, rounds: { edits: rounds, corpus: rounds } }
    process.stdout.write(`syntax bench — node ${process.version}; tree ${ctx.corpus}; rounds ${rounds}\n\n`)
    printTable(await syntaxRows(ctx, () => true))
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true })
  }
}
