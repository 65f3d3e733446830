// The check_syntax corpus rows' loop (bench/syntax.mjs), and the child of its first-pass
// row: a process that has parsed nothing yet checks every file listed in FILES (a JSON array
// of paths relative to ROOT) and exits.
//   node bench/check-child.mjs ROOT FILES

import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'

/** Checks every file of `files` with 8 concurrent `check_syntax` calls of `tools`. */
export async function checkAll(tools, files) {
  let next = 0
  const worker = async () => {
    while (next < files.length) {
      const f = files[next++]
      const r = await tools.callTool('check_syntax', { path: f })
      if (r.isError && !/too_large|is_binary/.test(r.text)) throw new Error(r.text)
    }
  }
  await Promise.all(Array.from({ length: 8 }, worker))
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  const require = createRequire(import.meta.url)
  const { createAgentTools } = require('../index.js')
  const [root, list] = process.argv.slice(2)
  await checkAll(createAgentTools({ workspaceRoot: root }), JSON.parse(fs.readFileSync(list, 'utf8')))
}
