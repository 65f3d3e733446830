// Review mode (SPEC §13), the lines of issue 32 the first suite left open: validation is the
// direct write's (errors, drift, syntax warnings), the remaining read tools see the staged
// tree, conflicts of every kind (a deleted file, a parent directory swapped for a symlink),
// the guard's `staged`, redaction of the diffs to the model and to the host, checkpoints of
// an accept, the adapters, and `compat: "0.1"`.
import test from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { createAgentTools } from '../index.mjs'
import { toAnthropicTools, runAnthropicToolUses } from '../anthropic.mjs'
import { runOpenAIToolCalls } from '../openai.mjs'
import { toAiSdkTools } from '../ai.mjs'
import { scratch } from './helpers.mjs'
import { ws as stagedWs, tree } from './review-helpers.mjs'
import { windows } from './platform.mjs'

const CLAUSE = ' (Staged for review: the change reaches disk when the host accepts it.)'

const ws = (files) => stagedWs(files, 'review-audit-')

const FILES = {
  'src/a.js': 'function a() {\n    return 1\n}\n',
  'src/b.py': 'def b():\n    return 2\n',
  'twice.txt': 'x\nx\n',
  'drift.txt': 'alpha  \n\tbeta\ngamma\n',
}

// Calls that fail or succeed differently from a plain exact edit: each must answer in review
// mode exactly as in direct mode (plus the clause when it staged something).
const CALLS = [
  ['edit_file', { path: 'src/a.js', old_string: 'return 7', new_string: 'return 8' }], // no_match
  ['edit_file', { path: 'twice.txt', old_string: 'x', new_string: 'y' }], // ambiguous
  ['edit_file', { path: 'missing.txt', old_string: 'a', new_string: 'b' }], // not_found
  ['edit_file', { path: '../outside.txt', old_string: 'a', new_string: 'b' }], // path_escape
  ['write_file', { path: '.', content: 'x' }], // a directory
  // Drift: indentation and trailing whitespace the model got wrong.
  ['edit_file', { path: 'drift.txt', old_string: 'alpha\n    beta', new_string: 'ALPHA\n    BETA' }],
  ['edit_file', { path: 'src/a.js', old_string: '  return 1', new_string: '  return 1 +' }], // a syntax warning
  ['write_file', { path: 'src/c.py', content: 'def c(:\n' }], // a syntax warning on a new file
  ['apply_patch', { patch: '*** Begin Patch\n*** Update File: src/b.py\n@@\n-    return 3\n+    return 4\n*** End Patch' }], // a hunk that does not apply
  ['multi_edit', { path: 'src/b.py', edits: [{ old_string: 'return 2', new_string: 'return 5' }, { old_string: 'nope', new_string: 'x' }] }],
  ['remove', { path: 'nothing/here.txt' }],
  ['move', { source: 'src/b.py', destination: 'src/a.js' }], // destination exists
  ['copy', { source: 'absent.txt', destination: 'x.txt' }],
]

test('validation is the direct write\'s: the same errors, drift handling and syntax warnings; the clause only when staged', async () => {
  const direct = createAgentTools({ workspaceRoot: ws(FILES) })
  const stagedRoot = ws(FILES)
  const staged = createAgentTools({ workspaceRoot: stagedRoot, review: true })
  let stagedCount = 0
  for (const [name, args] of CALLS) {
    const d = await direct.callTool(name, args)
    const s = await staged.callTool(name, args)
    const label = `${name} ${JSON.stringify(args)}`
    assert.equal(s.isError, d.isError, label)
    if (d.isError) {
      assert.equal(s.text, d.text, label)
    } else {
      assert.equal(s.text, d.text + CLAUSE, label)
      assert.deepEqual(s.meta, d.meta, label)
      stagedCount++
    }
  }
  // The drift edit and both syntax warnings staged (and warned); nothing reached the disk.
  assert.equal(stagedCount, 3)
  assert.deepEqual(tree(stagedRoot), FILES)
  assert.deepEqual((await staged.pending()).map((c) => c.path), ['drift.txt', 'src/a.js', 'src/c.py'])
})

test('writeScope holds in review mode: a change outside it is refused as in direct mode, whatever the tool', async () => {
  const calls = [
    ['write_file', { path: 'twice.txt', content: 'y\n' }],
    ['edit_file', { path: 'drift.txt', old_string: 'gamma', new_string: 'delta' }],
    ['apply_patch', { patch: '*** Begin Patch\n*** Add File: out.txt\n+x\n*** End Patch' }],
    ['move', { source: 'src/b.py', destination: 'b.py' }],
    ['copy', { source: 'src/b.py', destination: 'b.py' }],
    ['mkdir', { path: 'outdir' }],
    ['remove', { path: 'twice.txt' }],
    ['write_file', { path: 'src/in.txt', content: 'in\n' }],
  ]
  const direct = createAgentTools({ workspaceRoot: ws(FILES), writeScope: ['src'] })
  const root = ws(FILES)
  const staged = createAgentTools({ workspaceRoot: root, writeScope: ['src'], review: true })
  for (const [name, args] of calls) {
    const d = await direct.callTool(name, args)
    const s = await staged.callTool(name, args)
    assert.equal(s.isError, d.isError, name)
    assert.equal(s.text, d.isError ? d.text : d.text + CLAUSE, name)
  }
  assert.deepEqual((await staged.pending()).map((c) => c.path), ['src/in.txt'])
  assert.deepEqual(tree(root), FILES)
})

test('diff, outline, check_syntax, file_stat and read_image-free reads answer from the staged tree as direct mode does', async () => {
  const steps = [
    ['write_file', { path: 'src/new.ts', content: 'export class Box {\n  open(): number {\n    return 1\n  }\n}\n' }],
    ['edit_file', { path: 'src/a.js', old_string: 'return 1', new_string: 'return (' }],
    ['copy', { source: 'src/b.py', destination: 'src/b2.py' }],
    ['edit_file', { path: 'src/b2.py', old_string: 'return 2', new_string: 'return 22' }],
  ]
  const reads = [
    ['diff', { from: 'src/b.py', to: 'src/b2.py' }],
    ['outline', { path: 'src/new.ts' }],
    ['outline', { paths: ['src'] }],
    ['check_syntax', { path: 'src/a.js' }],
    ['check_syntax', { path: 'src/new.ts' }],
    ['read_file', { path: 'src/b2.py' }],
    ['read_files', { paths: ['src/new.ts', 'src/b2.py'] }],
  ]
  const answers = async (tools) => {
    for (const [name, args] of steps) assert.equal((await tools.callTool(name, args)).isError, false, name)
    const out = []
    for (const [name, args] of reads) {
      const r = await tools.callTool(name, args)
      out.push([name, r.isError, r.text])
    }
    return out
  }
  const d = await answers(createAgentTools({ workspaceRoot: ws(FILES) }))
  const root = ws(FILES)
  const s = await answers(createAgentTools({ workspaceRoot: root, review: true }))
  assert.deepEqual(s, d)
  assert.match(d[0][2], /-    return 2\n\+    return 22/)
  assert.deepEqual(tree(root), FILES)
})

test('conflicts: a staged file deleted on disk, and a parent directory swapped for a symlink, are never written through', { skip: windows && 'symlinks need a privilege on Windows' }, async () => {
  const root = ws({ 'sub/a.txt': 'a\n', 'gone.txt': 'g\n', 'keep.txt': 'k\n' })
  const outside = scratch('review-audit-out-')
  fs.writeFileSync(path.join(outside, 'a.txt'), 'a\n')
  const tools = createAgentTools({ workspaceRoot: root, review: true })
  await tools.callTool('write_file', { path: 'sub/a.txt', content: 'A\n' })
  await tools.callTool('write_file', { path: 'sub/new.txt', content: 'N\n' })
  await tools.callTool('write_file', { path: 'gone.txt', content: 'G\n' })
  await tools.callTool('write_file', { path: 'keep.txt', content: 'K\n' })
  fs.rmSync(path.join(root, 'gone.txt'))
  const deleted = await tools.accept(['gone.txt', 'keep.txt'])
  assert.deepEqual(deleted, { accepted: [], conflicts: [{ path: 'gone.txt', reason: 'deleted on disk since it was staged' }] })
  assert.equal(fs.readFileSync(path.join(root, 'keep.txt'), 'utf8'), 'k\n')
  // The directory holding staged files becomes a link to a directory outside with the same
  // bytes: the content check alone would pass, the write would land outside.
  fs.rmSync(path.join(root, 'sub'), { recursive: true })
  fs.symlinkSync(outside, path.join(root, 'sub'))
  for (const force of [false, true]) {
    const r = await tools.accept(['sub/a.txt', 'sub/new.txt'], { force })
    assert.deepEqual(r.accepted, [])
    assert.deepEqual(
      r.conflicts.map((c) => [c.path, c.reason]),
      [
        ['sub/a.txt', 'replaced by a symlink since it was staged'],
        ['sub/new.txt', 'replaced by a symlink since it was staged'],
      ],
    )
  }
  assert.deepEqual(fs.readdirSync(outside), ['a.txt'])
  assert.equal(fs.readFileSync(path.join(outside, 'a.txt'), 'utf8'), 'a\n')
  // Forced, the deleted file is written again; the rest stays pending.
  const forced = await tools.accept(['gone.txt', 'keep.txt'], { force: true })
  assert.equal(forced.accepted.length, 2)
  assert.equal(fs.readFileSync(path.join(root, 'gone.txt'), 'utf8'), 'G\n')
  assert.deepEqual((await tools.pending()).map((c) => c.path), ['sub/a.txt', 'sub/new.txt'])
})

test('the guard sees staged: true for a staging file tool, never for a custom tool or the review tools', async () => {
  const root = ws({ 'a.txt': 'a\n' })
  const seen = {}
  const tools = createAgentTools({
    workspaceRoot: root,
    review: { tools: true },
    guard: (ctx) => {
      seen[ctx.tool] = ctx.staged
      return { verdict: 'allow' }
    },
    customTools: [{
      name: 'stamp',
      description: 'Writes a stamp file directly.',
      inputSchema: { type: 'object', properties: {} },
      handler: () => {
        fs.writeFileSync(path.join(root, 'stamp.txt'), 'x')
        return 'stamped'
      },
    }],
  })
  for (const [name, args] of [
    ['edit_file', { path: 'a.txt', old_string: 'a', new_string: 'b' }],
    ['read_file', { path: 'a.txt' }],
    ['stamp', {}],
    ['review_pending', {}],
    ['review_accept', {}],
    ['review_reject', {}],
  ]) {
    const r = await tools.callTool(name, args)
    assert.equal(r.isError, false, `${name}: ${r.text}`)
  }
  assert.deepEqual(seen, {
    edit_file: true,
    read_file: undefined,
    stamp: undefined,
    review_pending: undefined,
    review_accept: undefined,
    review_reject: undefined,
  })
})

test('redaction: the diffs to the model and to the host mask the same secrets', async () => {
  const AWS = 'AKIA' + 'IOSFODNN7EXAMPLE'
  const root = ws({ 'cfg.js': `const key = '${AWS}'\nconst n = 1\n` })
  const tools = createAgentTools({ workspaceRoot: root, review: { tools: true }, redactSecrets: true })
  const r = await tools.callTool('edit_file', { path: 'cfg.js', old_string: 'const n = 1', new_string: 'const n = 2' })
  assert.equal(r.isError, false, r.text)
  const toModel = JSON.stringify(r)
  const toHost = JSON.stringify(await tools.pending())
  const viaTool = (await tools.callTool('review_pending', {})).text
  for (const text of [toModel, toHost, viaTool]) {
    assert.ok(!text.includes(AWS), text)
  }
  assert.match(toHost, /\[REDACTED:aws_access_key\]/)
  // The same masked diff in both places.
  assert.equal(JSON.parse(viaTool)[0].diff, (await tools.pending())[0].diff)
  // The disk keeps the secret; accept writes the real bytes, not the mask.
  await tools.accept()
  assert.equal(fs.readFileSync(path.join(root, 'cfg.js'), 'utf8'), `const key = '${AWS}'\nconst n = 2\n`)
})

test('accept is a checkpointed write: restoring the checkpoint taken before it undoes it', async () => {
  const root = ws({ 'a.txt': 'a\n', 'b.txt': 'b\n' })
  const tools = createAgentTools({ workspaceRoot: root, review: true, checkpointTools: true })
  const id = tools.checkpoint('before accept')
  await tools.callTool('write_file', { path: 'a.txt', content: 'A\n' })
  await tools.callTool('remove', { path: 'b.txt' })
  await tools.callTool('write_file', { path: 'c.txt', content: 'C\n' })
  // Staging changed no file: nothing to restore yet.
  assert.deepEqual(await tools.changes(id), [])
  await tools.accept()
  assert.deepEqual((await tools.changes(id)).map((c) => [c.path, c.kind]), [['a.txt', 'modified'], ['b.txt', 'deleted'], ['c.txt', 'created']])
  // The model's checkpoint_restore stages its restore for the host, like every writer.
  const byModel = await tools.callTool('checkpoint_restore', { id })
  assert.equal(byModel.isError, false, byModel.text)
  // Its JSON answer stays JSON: the clause is a member of it.
  assert.equal(JSON.parse(byModel.text).review, CLAUSE.trim().slice(1, -1), byModel.text)
  assert.deepEqual(tree(root), { 'a.txt': 'A\n', 'c.txt': 'C\n' })
  assert.deepEqual((await tools.pending()).map((c) => [c.path, c.kind]), [['a.txt', 'modified'], ['b.txt', 'created'], ['c.txt', 'deleted']])
  await tools.reject()
  // The host's restore is the host's decision: it writes the disk.
  const restored = await tools.restore(id)
  assert.deepEqual(restored.conflicts, [])
  assert.deepEqual(tree(root), { 'a.txt': 'a\n', 'b.txt': 'b\n' })
})

test('the adapters run review mode like callTool: the clause to the model, the disk untouched', async () => {
  const root = ws({ 'a.txt': 'one\n' })
  const tools = createAgentTools({ workspaceRoot: root, review: true })
  const edit = (n) => ({ path: 'a.txt', old_string: n[0], new_string: n[1] })
  assert.ok(toAnthropicTools(tools).some((t) => t.name === 'edit_file'))
  const [anthropic] = await runAnthropicToolUses(tools, [{ type: 'tool_use', id: 't1', name: 'edit_file', input: edit(['one', 'two']) }])
  assert.equal(anthropic.is_error, false)
  assert.ok(JSON.stringify(anthropic.content).includes(CLAUSE.trim()), JSON.stringify(anthropic))
  const [openai] = await runOpenAIToolCalls(tools, [{ id: 'o1', type: 'function', function: { name: 'edit_file', arguments: JSON.stringify(edit(['two', 'three'])) } }])
  assert.ok(openai.content.includes(CLAUSE.trim()), openai.content)
  const out = await toAiSdkTools(tools).edit_file.execute(edit(['three', 'four']), { toolCallId: 'a1', messages: [] })
  assert.ok(String(out).includes(CLAUSE.trim()), String(out))
  assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'one\n')
  assert.match((await tools.pending())[0].diff, /-one\n\+four/)
})

test('compat "0.1" with review asked: review off, byte-identical to 0.1 — surface, results, no staging area', async () => {
  const files = { 'a.txt': 'a\n' }
  const plain = createAgentTools({ workspaceRoot: ws(files), compat: '0.1' })
  const root = ws(files)
  const asked = createAgentTools({ workspaceRoot: root, compat: '0.1', review: { scope: 's', tools: true }, reviewBytes: 4 })
  assert.deepEqual(asked.listTools(), plain.listTools())
  assert.equal(asked.config.review, undefined)
  for (const [name, args] of [
    ['write_file', { path: 'a.txt', content: 'direct\n' }],
    ['edit_file', { path: 'a.txt', old_string: 'direct', new_string: 'edited' }],
    ['read_file', { path: 'a.txt' }],
    ['review_pending', {}],
  ]) {
    assert.deepEqual(await asked.callTool(name, args), await plain.callTool(name, args), name)
  }
  assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'edited\n')
  assert.equal(fs.existsSync(path.join(root, '.clarvis')), false)
})

// On Windows a process replacing the manifest while the other has it open meets a sharing
// violation: the rename waits it out (bounded retries, SPEC §13), so no call fails.
test('two processes staging into one scope at once lose nothing, and each sees the other\'s changes', async () => {
  const root = ws({})
  // A file URL: an absolute Windows path is no module specifier.
  const INDEX = new URL('../index.mjs', import.meta.url).href
  const { spawn } = await import('node:child_process')
  const N = 30
  const child = (tag) => {
    const src = `
      import { createAgentTools } from ${JSON.stringify(INDEX)}
      const tools = createAgentTools({ workspaceRoot: ${JSON.stringify(root)}, review: { scope: 'shared' } })
      for (let i = 0; i < ${N}; i++) {
        const r = await tools.callTool('write_file', { path: '${tag}/' + i + '.txt', content: '${tag} ' + i + '\\n' })
        if (r.isError) throw new Error(r.text)
      }
      // What this process sees when it is done: the later of the two sees both sets.
      process.stdout.write(JSON.stringify((await tools.pending()).length))
    `
    const p = spawn(process.execPath, ['--input-type=module', '-e', src], { stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    p.stdout.on('data', (d) => (out += d))
    return new Promise((resolve) => p.on('exit', (code) => resolve({ code, out })))
  }
  const [a, b] = await Promise.all([child('a'), child('b')])
  assert.equal(a.code, 0)
  assert.equal(b.code, 0)
  // The later finisher saw both sets.
  assert.equal(Math.max(Number(a.out), Number(b.out)), 2 * N)
  const tools = createAgentTools({ workspaceRoot: root, review: { scope: 'shared' } })
  const pending = await tools.pending()
  assert.equal(pending.length, 2 * N)
  // Every staged file reads back its own bytes (no blob number was used twice).
  for (const tag of ['a', 'b']) {
    for (let i = 0; i < N; i++) {
      const r = await tools.callTool('read_file', { path: `${tag}/${i}.txt` })
      assert.match(r.text, new RegExp(`${tag} ${i}$`, 'm'))
    }
  }
  assert.equal((await tools.accept()).accepted.length, 2 * N)
  assert.equal(fs.readFileSync(path.join(root, 'b/7.txt'), 'utf8'), 'b 7\n')
})

// Every directory under root but .clarvis/ (relative, sorted).
function dirs(root) {
  const out = []
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name)
      const rel = path.relative(root, p)
      if (rel === '.clarvis' || !e.isDirectory()) continue
      out.push(rel.split(path.sep).join('/'))
      walk(p)
    }
  }
  walk(root)
  return out.sort()
}

test('mkdir stages a directory: the listings show it, pending names it, accept makes it (empty or not) as direct mode does', async () => {
  const files = { 'src/a.txt': 'a\n', 'f.txt': 'f\n' }
  const steps = [
    ['mkdir', { path: 'logs' }],
    ['mkdir', { path: 'deep/er/est' }],
    ['mkdir', { path: 'logs' }], // exists (staged): the same answer as direct mode
    ['mkdir', { path: 'src' }],
    ['mkdir', { path: 'f.txt/sub' }], // a file in the way
    ['mkdir', { path: 'kept' }],
    ['write_file', { path: 'kept/x.txt', content: 'x\n' }],
    ['list_dir', {}],
    ['list_dir', { path: 'logs' }],
    ['list_dir', { path: 'deep/er' }],
    ['tree', {}],
    ['file_stat', { path: 'deep/er/est' }],
    ['glob', { pattern: '**/*' }],
  ]
  const run = async (tools) => {
    const out = []
    for (const [name, args] of steps) {
      const r = await tools.callTool(name, args)
      // Staging and direct differ only by the clause, the directory's times, and the
      // staging area list_dir shows (it applies no ignore rules; SPEC §13, Walks).
      const text = r.text.replace(CLAUSE, '').replace(/"(mtime|ctime|atime|birthtime)[^,}]*/g, '').replace(/^\.clarvis\/\n/m, '')
      out.push([name, r.isError, text])
    }
    return out
  }
  const directRoot = ws(files)
  const d = await run(createAgentTools({ workspaceRoot: directRoot }))
  const root = ws(files)
  const tools = createAgentTools({ workspaceRoot: root, review: true })
  const s = await run(tools)
  assert.deepEqual(s, d)
  assert.deepEqual(dirs(root), ['src'])
  const pending = await tools.pending()
  assert.deepEqual(pending, [
    { path: 'deep/er/est', kind: 'created', directory: true },
    { path: 'kept', kind: 'created', directory: true },
    { path: 'kept/x.txt', kind: 'created', diff: pending[2].diff },
    { path: 'logs', kind: 'created', directory: true },
  ])
  const report = await tools.accept()
  assert.deepEqual(report.conflicts, [])
  assert.equal(report.accepted.length, 4)
  assert.deepEqual(dirs(root), dirs(directRoot))
  assert.deepEqual(tree(root), tree(directRoot))
  assert.deepEqual(await tools.pending(), [])
  // A file put where a staged directory goes is a conflict; force replaces it.
  await tools.callTool('mkdir', { path: 'later' })
  fs.writeFileSync(path.join(root, 'later'), 'in the way\n')
  assert.deepEqual((await tools.accept()).conflicts, [{ path: 'later', reason: 'created on disk since it was staged' }])
  assert.equal((await tools.accept(undefined, { force: true })).accepted.length, 1)
  assert.ok(fs.statSync(path.join(root, 'later')).isDirectory())
})
