// `npm run test:node`: `node --test` over `__test__/*.test.mjs`, listed here so every Node and
// every shell runs the same files: Node 20 searches a directory but has no globs, Node 22
// takes globs but runs a directory as a module, and cmd.exe (npm's shell on Windows) does not
// expand `*`. Arguments starting with `--` go to `node --test` (reporters, filters); any
// other argument names a test file to run instead of all of them.
import { readdirSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)))
const args = process.argv.slice(2)
const options = args.filter((a) => a.startsWith('--'))
const named = args.filter((a) => !a.startsWith('--'))
const files = named.length
  ? named
  : readdirSync(path.join(root, '__test__'))
      .filter((f) => f.endsWith('.test.mjs'))
      .sort()
      .map((f) => path.join('__test__', f))
const run = spawnSync(process.execPath, ['--test', '--test-concurrency=1', ...options, ...files], {
  cwd: root,
  stdio: 'inherit',
})
if (run.error) throw run.error
process.exit(run.status ?? 1)
