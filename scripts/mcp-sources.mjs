// The digest of our own sources in mcp-standalone.mjs, written into its banner, so a test can
// tell when the committed bundle is older than mcp.mjs / lib/mcp-http.mjs (run `npm run bundle:mcp`).
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
export const SOURCES = ['mcp.mjs', 'lib/mcp-http.mjs']

/** sha256 over the sources, in order. */
export function sourcesDigest() {
  const h = createHash('sha256')
  for (const f of SOURCES) h.update(fs.readFileSync(`${root}${f}`))
  return h.digest('hex')
}
