// Host control (issue 15): what a guard that allows synchronously adds to a call, and what
// redactSecrets adds to a 1 MB result — each against the same call without it, same run.

import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import { batch, expectOk, interleaved, row, skipped } from './lib.mjs'
import { cFile } from './calls.mjs'

const require = createRequire(import.meta.url)

/** A 1 MB result: generated C source with a few credentials and `.env` lines among it. */
function megabyteWithSecrets() {
  const c = cFile()
  const secrets = [
    `const char *key = "AKIA${'IOSFODNN7EXAMPLE'}";`,
    `DB_PASSWORD=hunter2`,
    `token = "ghp_${'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'}"`,
  ]
  const parts = []
  let size = 0
  for (let i = 0; size < 1 << 20; i++) {
    const chunk = `${c}${secrets[i % secrets.length]}\n`
    parts.push(chunk)
    size += chunk.length
  }
  return parts.join('').slice(0, 1 << 20)
}

export async function hostRows(ctx, want) {
  const rows = []
  const { createAgentTools } = require('../index.js')
  const R = ctx.rounds
  const dir = path.join(ctx.scratch, 'host')
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(path.join(dir, 'small.txt'), 'one\ntwo\nthree\n')

  // The guard's round trip: native validation, the guard context (path facts), the host's
  // function, its verdict, then dispatch with the validated arguments.
  let name = 'guard overhead (sync allow), per call'
  let target = { op: '<=', value: 20, unit: 'µs' }
  if (want(name)) {
    try {
      const plain = createAgentTools({ workspaceRoot: dir })
      let asked = 0
      const guarded = createAgentTools({
        workspaceRoot: dir,
        guard: () => {
          asked++
          return { verdict: 'allow' }
        },
      })
      const args = { path: 'small.txt' }
      const a = expectOk('read_file', await plain.callTool('read_file', args))
      const b = expectOk('read_file', await guarded.callTool('read_file', args))
      if (a !== b || asked !== 1) throw new Error('the guarded call differs from the plain one')
      const n = R.batch * 4
      const [g, p] = await interleaved(
        [
          batch(async () => expectOk('read_file', await guarded.callTool('read_file', args)), n),
          batch(async () => expectOk('read_file', await plain.callTool('read_file', args)), n),
        ],
        R.calls,
      )
      const overheadUs = ((g - p) / n) * 1000
      const r = row(
        name,
        g / n,
        p / n,
        target,
        `read_file of a 3-line file, ${n} sequential calls per sample; ours: with guard () => ({ verdict: 'allow' }), peer: no guard; ratio column = the difference per call`,
        overheadUs,
      )
      rows.push(r)
    } catch (e) {
      rows.push(skipped(name, target, 'ERROR', e.message))
    }
  }

  // Redaction over 1 MB: a host tool returning the same megabyte with and without the option
  // (the crossing costs the same on both sides; the difference is the redaction).
  name = 'redactSecrets over a 1 MB result'
  target = { op: '<=', value: 5, unit: 'ms' }
  if (want(name)) {
    try {
      const text = megabyteWithSecrets()
      const tool = { name: 'blob', description: 'Returns a megabyte.', inputSchema: { type: 'object' }, readOnly: true, handler: () => text }
      const opts = { workspaceRoot: dir, maxOutputBytes: 1 << 30, customTools: [tool] }
      const plain = createAgentTools(opts)
      const masked = createAgentTools({ ...opts, redactSecrets: true })
      const m = expectOk('blob', await masked.callTool('blob', {}))
      if (expectOk('blob', await plain.callTool('blob', {})) !== text) throw new Error('the plain result differs from the text')
      if (/hunter2|AKIAIOSFODNN7EXAMPLE|ghp_a1B2/.test(m) || !m.includes('[REDACTED:github_token]')) {
        throw new Error('the masked result still holds a secret')
      }
      const [o, p] = await interleaved(
        [async () => expectOk('blob', await masked.callTool('blob', {})), async () => expectOk('blob', await plain.callTool('blob', {}))],
        R.edits,
      )
      rows.push(
        row(
          name,
          o,
          p,
          target,
          `${(text.length / 1e6).toFixed(2)} MB of C with ${m.split('[REDACTED:').length - 1} secrets; ours: redactSecrets: true, peer: off; ratio column = the difference`,
          o - p,
        ),
      )
    } catch (e) {
      rows.push(skipped(name, target, 'ERROR', e.message))
    }
  }
  return rows
}
