// Shared by the abuse suites (escape, fuzz, soak): a sentinel directory beside the workspace,
// snapshotted before and after, so "nothing outside the workspace was created or changed" is a
// comparison, not a hope. Not a test file itself.
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'

/** Every entry under `dir` (not following links): type, size, mtime, content hash / link target. */
export function snapshot(dir, skip = () => false) {
  const out = {}
  const walk = (abs) => {
    for (const name of fs.readdirSync(abs).sort()) {
      const p = path.join(abs, name)
      if (skip(p)) continue
      const st = fs.lstatSync(p)
      const rel = path.relative(dir, p)
      if (st.isSymbolicLink()) {
        out[rel] = `link ${fs.readlinkSync(p)} ${st.mtimeMs}`
      } else if (st.isDirectory()) {
        out[rel] = `dir ${st.mode.toString(8)} ${st.mtimeMs}`
        walk(p)
      } else {
        const hash = crypto.createHash('sha256').update(fs.readFileSync(p)).digest('hex')
        out[rel] = `file ${st.size} ${st.mode.toString(8)} ${st.mtimeMs} ${hash}`
      }
    }
  }
  walk(dir)
  return out
}

/** Random hex, so a secret cannot appear in output by coincidence. */
export const hex = (n = 8) => crypto.randomBytes(n).toString('hex')

/**
 * A sentinel directory holding secrets: `secret.txt`, `sub/deep.txt`, `inner.txt` and an
 * outside-only name. `secret` is the string no tool output may ever contain.
 */
export function makeSentinel(dir) {
  const secret = `SECRET-${hex()}`
  const onlyName = `outside-only-${hex(4)}.txt`
  fs.mkdirSync(path.join(dir, 'sub'), { recursive: true })
  fs.writeFileSync(path.join(dir, 'secret.txt'), `${secret}\ntick tock\n`)
  fs.writeFileSync(path.join(dir, 'sub', 'deep.txt'), `${secret}\n`)
  fs.writeFileSync(path.join(dir, 'inner.txt'), `${secret}\ntick tock\n`)
  fs.writeFileSync(path.join(dir, onlyName), `${secret}\n`)
  return { dir, secret, onlyName }
}

/** Benign, valid arguments per tool (used to probe which tools exist on this build). */
export const BENIGN = {
  read_file: { path: 'in.txt' },
  list_dir: {},
  glob: { pattern: '*' },
  grep: { pattern: 'x' },
  write_file: { path: 'probe.txt', content: '' },
  edit_file: { path: 'in.txt', old_string: 'zzz-none', new_string: 'y' },
  multi_edit: { path: 'in.txt', edits: [{ old_string: 'zzz-none', new_string: 'y' }] },
  apply_patch: { patch: 'not a patch' },
  bash: { command: 'true', timeout_ms: 5000 },
}

/**
 * The tools still stubbed on this branch (their handler answers `internal` with "not
 * implemented yet" on the warn sink). Suites relax only the error-code expectations for
 * those; every other check (no leak, nothing written outside) applies to all nine.
 */
export async function stubbedTools(tools, setWarnSink, after = null) {
  const stubs = new Set()
  for (const [name, args] of Object.entries(BENIGN)) {
    const lines = []
    setWarnSink((line) => lines.push(line))
    const r = await tools.callTool(name, args)
    setWarnSink(after)
    if (r.isError && JSON.parse(r.text).error === 'internal' && lines.some((l) => l.includes('not implemented yet'))) {
      stubs.add(name)
    }
  }
  return stubs
}
