// Shared by the review-mode suites: a scratch workspace from a map of files, and what the
// disk holds under it (the staging area under .clarvis/ left out).
import fs from 'node:fs'
import path from 'node:path'
import { scratch } from './helpers.mjs'

/** A scratch workspace holding `files` ({ 'rel/path': content }). */
export function ws(files, prefix = 'review-') {
  const root = scratch(prefix)
  for (const [rel, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true })
    fs.writeFileSync(path.join(root, rel), content)
  }
  return root
}

/** Every file under root but .clarvis/: its bytes (latin1), or `[bytes, mode]` with `modes`. */
export function tree(root, { modes = false } = {}) {
  const out = {}
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name)
      const rel = path.relative(root, p)
      if (rel === '.clarvis') continue
      if (e.isDirectory()) walk(p)
      else {
        const bytes = fs.readFileSync(p, 'latin1')
        out[rel] = modes ? [bytes, fs.statSync(p).mode & 0o777] : bytes
      }
    }
  }
  walk(root)
  return out
}
