// Child process of the copy memory row: loads the addon, creates tools on <dir>, copies a
// small file once (warm-up: thread pool, code paths), resets its peak RSS, copies
// <dir>/big.bin (1 GiB), and prints its RSS before the big copy and its peak after (kB).
//
// Usage: node bench/copy-rss-child.mjs <dir>

import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const { createAgentTools } = require('../index.js')

const statusKb = (key) => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(fs.readFileSync('/proc/self/status', 'utf8'))[1])

const dir = process.argv[2]
const tools = createAgentTools({ workspaceRoot: dir })
fs.writeFileSync(path.join(dir, 'warm.txt'), 'warm-up\n')
await tools.callTool('copy', { source: 'warm.txt', destination: 'warm-copy.txt', overwrite: true })
global.gc?.()
try {
  fs.writeFileSync('/proc/self/clear_refs', '5') // resets VmHWM to the current RSS
} catch {}
const baseKb = statusKb('VmRSS')
const r = await tools.callTool('copy', { source: 'big.bin', destination: 'child.bin', overwrite: true })
const hwmKb = statusKb('VmHWM')
for (const f of ['warm.txt', 'warm-copy.txt', 'child.bin']) fs.rmSync(path.join(dir, f), { force: true })
process.stdout.write(JSON.stringify({ baseKb, hwmKb, isError: r.isError, text: r.text.slice(0, 300) }) + '\n')
