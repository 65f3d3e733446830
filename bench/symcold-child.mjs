// Child process of the symbol-index bench's cold rows: a new process loads the addon,
// creates tools without an index (`searchIndex: "off"`: the first call of a process that
// has none) and makes one call; it prints the call's wall and CPU time as JSON. The memo
// of parsed files is per process, so every child parses its candidates.
//
// Usage: node bench/symcold-child.mjs <root> <find_symbol|find_references> <name>

import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const { createAgentTools } = require('../index.js')
const [root, tool, name] = process.argv.slice(2)
const tools = createAgentTools({ workspaceRoot: root, searchIndex: 'off', maxOutputBytes: 1 << 24 })
const c0 = process.cpuUsage()
const t0 = process.hrtime.bigint()
const r = await tools.callTool(tool, { name })
const ms = Number(process.hrtime.bigint() - t0) / 1e6
const cpu = process.cpuUsage(c0)
process.stdout.write(JSON.stringify({ ms, cpuMs: (cpu.user + cpu.system) / 1000, isError: r.isError, lines: r.text.split('\n').length, head: r.text.slice(0, 160) }))
