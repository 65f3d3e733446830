// Child of the check_syntax first-pass row (bench/syntax.mjs): a process that has parsed
// nothing yet checks every file listed in FILES (a JSON array of paths relative to ROOT)
// with 8 concurrent calls, as the in-process row does, and exits.
//   node bench/check-child.mjs ROOT FILES

import fs from 'node:fs'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const { createAgentTools } = require('../index.js')
const [root, list] = process.argv.slice(2)
const files = JSON.parse(fs.readFileSync(list, 'utf8'))
const tools = createAgentTools({ workspaceRoot: root })
let next = 0
const worker = async () => {
  while (next < files.length) {
    const f = files[next++]
    const r = await tools.callTool('check_syntax', { path: f })
    if (r.isError && !/too_large|is_binary/.test(r.text)) throw new Error(r.text)
  }
}
await Promise.all(Array.from({ length: 8 }, worker))
