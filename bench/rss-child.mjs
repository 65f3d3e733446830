// Child process of the memory benchmark: loads the addon, creates tools on the corpus, and
// (mode "grep" / "grep-full") greps it for the common literal in content mode; then prints
// its peak resident set size (VmHWM, kB) as JSON.
//
// Usage: node bench/rss-child.mjs <idle|grep|grep-full> <corpus>

import fs from 'node:fs'
import { createRequire } from 'node:module'
import { PATTERNS } from './search.mjs'

const require = createRequire(import.meta.url)
const { createAgentTools, setWarnSink } = require('../index.js')
const warned = []
setWarnSink((line) => warned.push(line))

const [mode, corpus] = process.argv.slice(2)
// searchIndex "off": this measures one grep's memory, not a background index build.
const options = {
  workspaceRoot: corpus,
  searchIndex: 'off',
  ...(mode === 'grep-full' ? { maxOutputBytes: 1 << 30 } : {}),
}
const tools = createAgentTools(options)
let result = null
if (mode !== 'idle') {
  const common = PATTERNS.find(([label]) => label === 'common literal')[1]
  const r = await tools.callTool('grep', { pattern: common, output_mode: 'content' })
  result = { isError: r.isError, bytes: Buffer.byteLength(r.text), head: r.isError ? `${r.text.slice(0, 200)} ${warned.join(' ').slice(0, 200)}` : '' }
}
const status = fs.readFileSync('/proc/self/status', 'utf8')
const hwm = Number(/VmHWM:\s+(\d+) kB/.exec(status)[1])
process.stdout.write(JSON.stringify({ mode, hwmKb: hwm, result }) + '\n')
