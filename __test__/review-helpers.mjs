// Shared by the review-mode suites: a scratch workspace from a map of files, and what the
// disk holds under it (the staging area under .clarvis/ left out).
import fs from 'node:fs'
import { scratch, put, walkTree } from './helpers.mjs'
import { slash } from './platform.mjs'

/** A scratch workspace holding `files` ({ 'rel/path': content }). */
export function ws(files, prefix = 'review-') {
  const root = scratch(prefix)
  put(root, files)
  return root
}

/**
 * Every file under root but .clarvis/, keyed by its `/`-separated path (on Windows too): its
 * bytes (latin1), or `[bytes, mode]` with `modes`.
 */
export function tree(root, { modes = false } = {}) {
  const files = walkTree(root, (rel, p, e) => {
    if (e.isDirectory()) return undefined
    const bytes = fs.readFileSync(p, 'latin1')
    return modes ? [bytes, fs.statSync(p).mode & 0o777] : bytes
  })
  return Object.fromEntries(Object.entries(files).map(([rel, v]) => [slash(rel), v]))
}
