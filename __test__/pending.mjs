// Detects tools that are still stubs on a branch (they fail every call with `internal`), so the
// integration tests that need them skip with a reason instead of failing until the lead merges
// the tool. Once every tool is implemented, nothing here ever skips.
import { setWarnSink } from '../index.mjs'
import { workspace } from './helpers.mjs'

/** A probe call per tool: cheap, harmless, and never `internal` once the tool exists. */
const PROBES = {
  write_file: { path: '.pending-probe/x.txt', content: '' },
  edit_file: { path: '.pending-probe-missing.txt', old_string: 'a', new_string: 'b' },
  multi_edit: { path: '.pending-probe-missing.txt', edits: [{ old_string: 'a', new_string: 'b' }] },
  apply_patch: { patch: 'not a patch' },
  bash: { command: 'true' },
  glob: { pattern: '.pending-probe-none' },
  grep: { pattern: 'pending-probe-none', path: '.pending-probe-missing' },
}

/** The names among `names` whose implementation is still a stub on this branch. */
export async function pendingTools(names) {
  const { tools } = workspace()
  const pending = []
  setWarnSink(() => {})
  try {
    for (const name of names) {
      const r = await tools.callTool(name, PROBES[name] ?? {})
      if (r.isError && JSON.parse(r.text).error === 'internal') pending.push(name)
    }
  } finally {
    setWarnSink(null)
  }
  return pending
}
