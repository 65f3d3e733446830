// npm run demo: a short, real tool session over a scratch copy of demo/workspace.
// Every call goes through the public API exactly as an agent loop would drive it.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { createAgentTools } from '../index.mjs'

const here = path.dirname(fileURLToPath(import.meta.url))
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'clarvis-demo-'))
fs.cpSync(path.join(here, 'workspace'), root, { recursive: true })

// The host keeps control: a guard sees every call (with its paths and, for bash, the parsed
// command) before it runs. This one refuses to delete anything through bash.
const guard = ({ tool, bash }) =>
  tool === 'bash' && bash?.segments.some((s) => s.argv[0] === 'rm')
    ? { verdict: 'deny', reason: 'the demo host does not let the agent delete files' }
    : { verdict: 'allow' }
const tools = createAgentTools({ workspaceRoot: root, guard })
console.log(`workspace: ${root}`)
console.log(`tools: ${tools.listTools().map((t) => t.name).join(', ')}\n`)

async function call(name, args) {
  const started = process.hrtime.bigint()
  const result = await tools.callTool(name, args)
  const ms = Number(process.hrtime.bigint() - started) / 1e6
  console.log(`> ${name} ${JSON.stringify(args)}  (${ms.toFixed(1)} ms)`)
  console.log(`${result.isError ? '[error] ' : ''}${result.text}`)
  // meta is for the client (an editor shows the diff); the model only reads the text.
  if (result.meta && result.meta.diff) console.log(`[meta.diff]\n${result.meta.diff}`)
  console.log('')
  return result
}

// A host takes a checkpoint before letting the agent loose, so the run can be taken back.
const checkpoint = tools.checkpoint('before the demo')

await call('tree', {})
await call('list_dir', {})
await call('glob', { pattern: '**/*.py' })
await call('grep', { pattern: 'greet', output_mode: 'content' })
await call('read_files', { paths: ['src/greet.py', 'README.md'] })
await call('file_stat', { path: 'src/greet.py' })
await call('edit_file', {
  path: 'src/greet.py',
  old_string: '    return "Hello, " + name',
  new_string: '    return f"Hello, {name}!"',
})
await call('edit_file', { path: 'src/greet.py', old_string: 'def missing():', new_string: 'x' })
await call('apply_patch', {
  patch: [
    '--- a/src/greet.py',
    '+++ b/src/greet.py',
    '@@ -7,3 +7,3 @@',
    ' def main():',
    '-    for who in ["world", "agent"]:',
    '+    for who in ["world", "agent", "demo"]:',
    '         print(greet(who))',
    '',
  ].join('\n'),
})
// Code intelligence is compiled in: a map of the module, and a syntax check.
await call('outline', { path: 'src/greet.py' })
// A write that breaks the syntax still lands, with a one-line warning for the model.
await call('edit_file', { path: 'src/greet.py', old_string: 'def main():', new_string: 'def main(:' })
await call('check_syntax', { path: 'src/greet.py' })
await call('edit_file', { path: 'src/greet.py', old_string: 'def main(:', new_string: 'def main():' })
// Project-wide find/replace with JavaScript regex semantics: a preview first.
await call('replace', { pattern: '\\bwho\\b', replacement: 'person', glob: '**/*.py' })
// Code navigation without a language server: definitions, uses, the repository's shape,
// and an edit by symbol (the body found by its name, indentation and line endings kept).
await call('find_symbol', { name: 'greet' })
await call('find_references', { name: 'greet' })
await call('repo_map', {})
await call('replace_symbol', {
  path: 'src/greet.py',
  symbol: 'greet',
  new_source: 'def greet(name, mark="!"):\n    """Return a greeting."""\n    return f"Hello, {name}{mark}"\n',
})
await call('write_file', { path: 'NOTES.md', content: 'Edited by the demo.\n' })
await call('diff', { from: 'README.md', to: 'NOTES.md' })
await call('bash', { command: 'python3 src/greet.py || echo "python3 not installed"' })
await call('read_file', { path: '../outside.txt' })
await call('bash', { command: 'rm -rf src' })

// Live output: the host sees a command's output while it runs.
console.log('> bash with onOutput (chunks as they arrive)')
await tools.callTool('bash', { command: 'for i in 1 2 3; do echo "step $i"; sleep 0.1; done' }, {
  onOutput: ({ stream, text }) => process.stdout.write(`  [${stream}] ${text}`),
})
console.log('')

// A shell session remembers: the directory and exported variables carry to the next call.
await call('bash', { command: 'cd src && export GREETING=hi', session: 'main' })
await call('bash', { command: 'echo "$GREETING from $(basename "$PWD")"', session: 'main' })

// An interactive program on a terminal: type into it, read its screen.
const sh = await call('monitor_start', { command: 'sh', tty: { cols: 60, rows: 8 } })
const shId = JSON.parse(sh.text).id
await call('monitor_write', { id: shId, input: 'echo typed on a terminal\r', wait_ms: 300 })
await call('monitor_screen', { id: shId })
await call('monitor_stop', { id: shId })

// A long-running process the agent starts, reads and stops; nothing of it outlives the stop.
const started = await call('monitor_start', {
  command: 'i=0; while true; do i=$((i+1)); echo "tick $i"; sleep 0.05; done',
  ready_when: 'tick 3',
})
const { id } = JSON.parse(started.text)
await call('monitor_poll', { id, offset: 0 })
await call('monitor_stop', { id })

console.log('> tools.changes(checkpoint)')
for (const c of await tools.changes(checkpoint)) console.log(`  ${c.kind} ${c.path}`)
const restored = await tools.restore(checkpoint)
console.log(`> tools.restore(checkpoint): ${restored.restored.length} path(s) put back, ${restored.conflicts.length} conflict(s)`)
console.log(`  src/greet.py is as it was: ${fs.readFileSync(path.join(root, 'src/greet.py'), 'utf8') === fs.readFileSync(path.join(here, 'workspace/src/greet.py'), 'utf8')}`)

fs.rmSync(root, { recursive: true, force: true })
