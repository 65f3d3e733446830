// redactSecrets, the class (issue 31 item 2): a secret is judged on the file or stream it
// comes from, however a view slices it. A seeded generator plants secrets of every shape in
// files (and so in command output), then every read path shows them — read_file at every
// offset/limit that cuts them, read_files, grep rows and context, diff, replace previews,
// edit hints and meta.diff, apply_patch, bash (first line, stderr, sed/head/tail slices, live
// chunks split anywhere), monitors (start, every poll offset, match), the checkpoint host
// calls and MCP tools, the adapters — and no secret byte may reach the model.
import test from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { generateText, stepCountIs } from 'ai'
import { createAgentTools } from '../index.mjs'
import { toAiSdkTools } from '../ai.mjs'
import { runOpenAIToolCalls } from '../openai.mjs'
import { runAnthropicToolUses } from '../anthropic.mjs'
import { scratch } from './helpers.mjs'
import { scriptedModel, toolResultsIn } from './scripted-model.mjs'
import { mcpClient } from './in-process-mcp.mjs'
import { mulberry32 } from './drift/generate.mjs'
import { noSh } from './platform.mjs'

// The drift suite's seeded PRNG: the same secrets every run, so a failure is reproducible.
const r = mulberry32(31)
const pick = (alphabet, n) => Array.from({ length: n }, () => alphabet[Math.floor(r() * alphabet.length)]).join('')
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
// A random base64 line that has upper, lower and digit (so a short one is not `AAAA`).
const b64 = (n) => {
  for (;;) {
    const s = pick(B64, n)
    if (/[A-Z]/.test(s) && /[a-z]/.test(s) && /[0-9]/.test(s)) return s
  }
}
const word = (n) => 'q' + pick(ALNUM, n - 1)

/** A key block: armor, `lines` body lines of `width`, a shorter last line; its body lines are the secrets. */
function keyBlock(label, width, lines, headers = '') {
  const body = Array.from({ length: lines }, () => b64(width))
  body.push(b64(8 + Math.floor(r() * (width - 12))) + '==')
  const text = `-----BEGIN ${label}-----\n${headers}${body.join('\n')}\n-----END ${label}-----\n`
  return { text, secrets: body }
}

/** Every shape, as file text with filler code around it and the strings that must never show. */
function shapes() {
  const filler = (n, tag) => Array.from({ length: n }, (_, i) => `const ${tag}${i} = compute(${i}) // line ${i}`).join('\n') + '\n'
  const wrap = (name, block) => ({ name, text: filler(3, 'before') + block.text + filler(3, 'after'), secrets: block.secrets })
  const v = () => word(14)
  const env = [v(), v(), v(), v()]
  const yaml = [v(), v()]
  const json = [v(), v()]
  const toks = {
    gh: 'ghp_' + pick(ALNUM, 36),
    aws: 'AKIA' + pick('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16),
    ant: 'sk-ant-api03-' + pick(ALNUM, 40),
    slack: 'xoxb-' + pick('0123456789', 12) + '-' + pick(ALNUM, 24),
    google: 'AIza' + pick(ALNUM, 35),
    gitlab: 'glpat-' + pick(ALNUM, 20),
    jwt: 'eyJ' + pick(ALNUM, 20) + '.eyJ' + pick(ALNUM, 30) + '.' + pick(ALNUM, 30),
    url: word(16),
    bearer: pick(ALNUM, 32),
  }
  return [
    wrap('rsa.pem', keyBlock('RSA PRIVATE KEY', 64, 12)),
    wrap('id_ed25519', keyBlock('OPENSSH PRIVATE KEY', 70, 6)),
    wrap('enc.pem', keyBlock('RSA PRIVATE KEY', 64, 5, `Proc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,${pick('0123456789ABCDEF', 32)}\n\n`)),
    wrap('pkcs8.key', keyBlock('PRIVATE KEY', 64, 3)),
    {
      name: '.env',
      text: `DB_PASSWORD=${env[0]}\nDB_USER=app\nexport API_TOKEN=${env[1]}\nSECRET_KEY="${env[2]} and more"\n# comment\nSTRIPE_SECRET=${env[3]}\n`,
      secrets: env,
    },
    { name: 'config.yaml', text: `db:\n  host: localhost\n  password: ${yaml[0]}\nservice:\n  - name: x\n    api_key: ${yaml[1]} # rotate\n`, secrets: yaml },
    { name: 'settings.json', text: `{\n  "user": "app",\n  "password": "${json[0]}",\n  "nested": {"client_secret": "${json[1]}"}\n}\n`, secrets: json },
    {
      name: 'tokens.txt',
      text:
        `gh ${toks.gh}\naws=${toks.aws}\nclaude: ${toks.ant}\nslack ${toks.slack}\n` +
        `g ${toks.google}\nlab ${toks.gitlab}\njwt ${toks.jwt}\ndb postgres://app:${toks.url}@db:5432/x\n` +
        `curl -H "Authorization: Bearer ${toks.bearer}" https://api\n`,
      secrets: Object.values(toks),
    },
  ]
}

const SHAPES = shapes()
const ALL_SECRETS = SHAPES.flatMap((s) => s.secrets)

/** Every 12-character piece of every secret (the whole of a shorter one): none may show. */
function leaked(text) {
  for (const s of ALL_SECRETS) {
    const n = Math.min(12, s.length)
    for (let i = 0; i + n <= s.length; i++) {
      const piece = s.slice(i, i + n)
      if (text.includes(piece)) return `${piece} (of ${s})`
    }
  }
  return null
}

function assertClean(what, value) {
  const text = typeof value === 'string' ? value : JSON.stringify(value)
  const hit = leaked(text)
  assert.equal(hit, null, `${what} leaked ${hit}:\n${text}`)
}

/** Everything of a result that can reach a model: text, parts, meta. */
function seen(res) {
  return JSON.stringify({ text: res.text, content: res.content, meta: res.meta })
}

function setup(extra = {}) {
  const root = scratch('redact-leaks-')
  for (const s of SHAPES) fs.writeFileSync(path.join(root, s.name), s.text)
  return setupWith(extra, root)
}

/** A tools object with redaction on `root`, and a `call` that fails on any leak. */
function setupWith(extra, root) {
  const tools = createAgentTools({ workspaceRoot: root, redactSecrets: true, ...extra })
  const call = async (name, args, options) => {
    const res = await tools.callTool(name, args, options)
    assertClean(`${name} ${JSON.stringify(args)}`, seen(res))
    return res
  }
  return { root, tools, call }
}

const lineCount = (text) => text.split('\n').length - 1

test('read_file at every offset and limit, and read_files, never show a secret', async () => {
  const { call } = setup()
  for (const s of SHAPES) {
    const n = lineCount(s.text)
    for (let offset = 1; offset <= n; offset++) {
      for (const limit of [1, 2, 3, 7]) await call('read_file', { path: s.name, offset, limit })
    }
    for (let tail = 1; tail <= 4; tail++) await call('read_file', { path: s.name, offset: -tail })
    const whole = await call('read_file', { path: s.name })
    assert.match(whole.text, /\[REDACTED:/)
  }
  await call('read_files', { paths: SHAPES.map((s) => s.name) })
  // A budget that cuts sections mid-file.
  const { call: small } = setup({ maxOutputBytes: 1500 })
  await small('read_files', { paths: SHAPES.map((s) => s.name) })
  for (const s of SHAPES) await small('read_file', { path: s.name })
})

test('grep rows, context lines, counts and files never show a secret', async () => {
  const { call } = setup()
  for (const s of SHAPES) {
    const lines = s.text.split('\n')
    for (const line of lines) {
      if (line.length < 6) continue
      // A piece of the line as the pattern: the row alone, then with context.
      const at = Math.floor(r() * (line.length - 5))
      const pattern = line.slice(at, at + 5).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
      for (const context of [0, 1, 3]) {
        await call('grep', { pattern, path: s.name, output_mode: 'content', context })
      }
    }
    await call('grep', { pattern: '.', path: s.name, output_mode: 'content' })
  }
  await call('grep', { pattern: '[A-Za-z0-9]{5}', output_mode: 'content' })
  await call('grep', { pattern: '[A-Za-z0-9]{5}', output_mode: 'count' })
  await call('grep', { pattern: '[A-Za-z0-9]{5}', output_mode: 'content', multiline: true, context: 2 })
})

test('diff, replace previews, edit hints and meta.diff, apply_patch never show a secret', async () => {
  const { root, call } = setup()
  for (const s of SHAPES) {
    const file = path.join(root, s.name)
    const lines = s.text.split('\n')
    // diff against a copy with one line changed, for every line.
    for (let i = 0; i < lines.length - 1; i++) {
      const copy = [...lines]
      copy[i] = copy[i] + 'Z'
      fs.writeFileSync(path.join(root, 'copy.txt'), copy.join('\n'))
      await call('diff', { from: s.name, to: 'copy.txt' })
      // edit_file's no_match hint for a near miss of the line.
      if (lines[i].length > 4) {
        const near = lines[i].slice(0, -2) + 'Q' + lines[i].slice(-1)
        const res = await call('edit_file', { path: s.name, old_string: near, new_string: 'x' })
        assert.equal(res.isError, true)
        await call('multi_edit', { path: s.name, edits: [{ old_string: lines[0], new_string: lines[0] + ' ' }, { old_string: near, new_string: 'x' }] })
      }
    }
    // A replace preview touching every line.
    await call('replace', { pattern: '[a-z]', replacement: 'Y', path: s.name })
    await call('replace', { pattern: '(.)$', replacement: '$1!', path: s.name, multiline: true })
    // An edit next to the secret: meta.diff's context shows its lines.
    for (const i of [0, Math.floor(lines.length / 2), lines.length - 2]) {
      const res = await call('edit_file', { path: s.name, old_string: lines[i], new_string: lines[i] + ' // edited' })
      if (!res.isError) fs.writeFileSync(file, s.text)
    }
    // write_file over it: the diff removes every secret line.
    await call('write_file', { path: s.name, content: 'gone\n' })
    fs.writeFileSync(file, s.text)
    // apply_patch that fails, and one that applies.
    await call('apply_patch', { patch: `*** Begin Patch\n*** Update File: ${s.name}\n@@\n-${lines[1]}X\n+y\n*** End Patch` })
    await call('apply_patch', { patch: `*** Begin Patch\n*** Update File: ${s.name}\n@@\n-${lines[1]}\n+${lines[1]} // patched\n*** End Patch` })
    fs.writeFileSync(file, s.text)
  }
})

test('bash: whole output, stderr, first lines and every slice never show a secret', { skip: noSh }, async () => {
  const { call } = setup()
  for (const s of SHAPES) {
    const n = lineCount(s.text)
    await call('bash', { command: `cat ${s.name}` })
    await call('bash', { command: `cat ${s.name} >&2; exit 3` })
    await call('bash', { command: `grep -n . ${s.name}; grep -rn . ${s.name}` })
    for (let a = 1; a <= n; a++) {
      // The line alone (first line of stdout), and from it on, on stdout and on stderr.
      await call('bash', { command: `sed -n ${a}p ${s.name}; sed -n '${a},$p' ${s.name} >&2` })
      await call('bash', { command: `sed -n ${a},${Math.min(n, a + 2)}p ${s.name}` })
    }
    for (let c = 10; c < s.text.length; c += 37) {
      await call('bash', { command: `head -c ${c} ${s.name}; echo; tail -c ${c} ${s.name} >&2` })
    }
    // Every line cut inside itself: pieces of a secret without its start or its end.
    for (const range of ['4-30', '9-', '20-', '-17']) await call('bash', { command: `cut -c ${range} ${s.name}` })
  }
  // No file named (a glob): a cut key block is judged by itself — its END line or the shape
  // of its lines.
  for (const s of SHAPES.filter((x) => /PRIVATE KEY/.test(x.text))) {
    const glob = s.name.slice(0, 3) + '*'
    const n = lineCount(s.text)
    for (let a = 1; a <= n; a++) await call('bash', { command: `cat ${glob} | sed -n ${a},${Math.min(n, a + 2)}p` })
  }
})

test('live output: chunks split anywhere never carry a secret, and all output still arrives', { skip: noSh }, async () => {
  const { root, tools } = setup()
  // Writes a file in pieces of `step` bytes, each flushed on its own.
  fs.writeFileSync(
    path.join(root, 'drip.js'),
    "const fs = require('fs'); const s = fs.readFileSync(process.argv[2], 'utf8'); const step = +process.argv[3];\n" +
      'for (let i = 0; i < s.length; i += step) { fs.writeSync(1, s.slice(i, i + step)); const t = Date.now(); while (Date.now() - t < 1); }\n',
  )
  for (const s of SHAPES) {
    for (const step of [1, 5, 13, 64]) {
      const chunks = []
      const res = await tools.callTool('bash', { command: `node drip.js ${s.name} ${step}` }, { onOutput: (c) => chunks.push(c) })
      assertClean('bash result', seen(res))
      for (const c of chunks) assertClean(`chunk of ${s.name}/${step}`, c.text)
      const live = chunks.map((c) => c.text).join('')
      assertClean(`joined chunks of ${s.name}/${step}`, live)
      // Nothing is lost: the masked stream equals the masked result's stdout.
      assert.equal(live, JSON.parse(res.text).stdout, `${s.name}/${step}`)
    }
  }
})

test('monitors: start with ready output, every poll offset, match, never show a secret', { skip: noSh }, async () => {
  const { call } = setup()
  for (const s of SHAPES) {
    const start = await call('monitor_start', { command: `cat ${s.name}; echo READY; sleep 30`, ready_when: 'READY' })
    const { id } = JSON.parse(start.text)
    const full = JSON.parse((await call('monitor_poll', { id })).text)
    assert.match(full.output, /READY/)
    // Every line start of the raw log is a possible cursor.
    const raw = s.text + 'READY\n'
    let offset = 0
    for (const line of raw.split('\n')) {
      await call('monitor_poll', { id, offset })
      await call('monitor_poll', { id, offset, match: '.' })
      offset += Buffer.byteLength(line) + 1
    }
    await call('monitor_stop', { id })
  }
})

test('checkpoint tools, undo, MCP tools and the adapters never show a secret', async (t) => {
  const { root, tools, call } = setup({ checkpointTools: true })
  const { id: cp } = JSON.parse((await call('checkpoint_create', { label: 'before' })).text)
  for (const s of SHAPES) {
    const lines = s.text.split('\n')
    await call('edit_file', { path: s.name, old_string: lines[1], new_string: lines[1] + ' // x' })
  }
  const changes = await call('checkpoint_changes', { id: cp })
  assert.ok(JSON.parse(changes.text).length >= SHAPES.length)
  await call('checkpoint_list', {})
  // The host's own library call is the host's: unmasked (the host is trusted).
  const raw = JSON.stringify(await tools.changes(cp))
  assert.ok(ALL_SECRETS.some((x) => raw.includes(x)), 'the host sees its files')
  const mcp = await mcpClient(t, tools)
  assertClean('mcp checkpoint_changes', await mcp.callTool({ name: 'checkpoint_changes', arguments: { id: cp } }))
  for (const s of SHAPES) {
    assertClean('mcp read_file', await mcp.callTool({ name: 'read_file', arguments: { path: s.name, offset: 5, limit: 3 } }))
    assertClean('mcp grep', await mcp.callTool({ name: 'grep', arguments: { pattern: '[0-9]', path: s.name, output_mode: 'content' } }))
    // Progress notifications carry live bash output.
    const progress = []
    const res = await mcp.callTool(
      { name: 'bash', arguments: { command: `sed -n 3,9p ${s.name}` } },
      undefined,
      { onprogress: (p) => progress.push(p) },
    )
    assertClean('mcp bash', res)
    assertClean('mcp progress', progress)
  }
  // undo's answer names what it restored.
  const u = setupWith({ toolPolicy: { allow: ['edit_file', 'undo', 'read_file'] } }, root)
  await u.call('edit_file', { path: 'rsa.pem', old_string: 'const after0 ', new_string: 'const after0x ' })
  await u.call('undo', {})
  // The adapters carry the masked results.
  const calls = SHAPES.map((s, i) => ({ id: `c${i}`, type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path: s.name, offset: 6, limit: 4 }) } }))
  assertClean('openai', await runOpenAIToolCalls(tools, calls))
  assertClean('anthropic', await runAnthropicToolUses(tools, SHAPES.map((s, i) => ({ type: 'tool_use', id: `u${i}`, name: 'grep', input: { pattern: '[0-9]', path: s.name, output_mode: 'content' } }))))
  const { model, prompts } = scriptedModel([SHAPES.map((s) => ['read_file', { path: s.name, offset: 4, limit: 5 }])])
  await generateText({ model, tools: toAiSdkTools(tools), prompt: 'go', stopWhen: stepCountIs(3) })
  assertClean('ai sdk', toolResultsIn(prompts[1]))
})

test('a guard denial quoting the arguments is masked', async () => {
  const root = scratch('redact-guard-')
  const guard = (ctx) => ({ verdict: 'deny', reason: `no: ${ctx.args.command}` })
  const tools = createAgentTools({ workspaceRoot: root, redactSecrets: true, guard })
  const res = await tools.callTool('bash', { command: 'echo DB_PASSWORD=hunter2guard' })
  assert.equal(res.isError, true)
  assert.ok(!res.text.includes('hunter2guard'), res.text)
  assert.match(res.text, /DB_PASSWORD=\[REDACTED:password\]/)
})

test('error envelopes never quote a secret of the workspace', async () => {
  const { call } = setup()
  // What the model passes comes back in messages (a path, a pattern): in a known shape it is
  // masked too, though the model wrote it.
  for (const secret of ALL_SECRETS) {
    await call('read_file', { path: `DB_PASSWORD=${secret}` })
    await call('grep', { pattern: `(API_KEY=${secret}` })
  }
  // What the files hold, quoted by a hint, is what must never come back.
  for (const s of SHAPES) {
    for (const line of s.text.split('\n').filter((l) => l.length > 6)) {
      const near = line.slice(0, 3) + '#' + line.slice(4)
      await call('edit_file', { path: s.name, old_string: `${near}\n`, new_string: 'x' })
      await call('edit_file', { path: s.name, old_string: `  ${line}`, new_string: 'x' })
    }
  }
})

test('redaction off: results are byte for byte those without the option', async () => {
  const root = scratch('redact-off-')
  for (const s of SHAPES) fs.writeFileSync(path.join(root, s.name), s.text)
  const off = createAgentTools({ workspaceRoot: root })
  const no = createAgentTools({ workspaceRoot: root, redactSecrets: false })
  for (const s of SHAPES) {
    const a = await off.callTool('read_file', { path: s.name })
    const b = await no.callTool('read_file', { path: s.name })
    assert.deepEqual(a, b)
    assert.ok(s.secrets.some((x) => a.text.includes(x)), 'the secret is shown without the option')
    assert.deepEqual(await off.callTool('bash', { command: `cat ${s.name}` }), await no.callTool('bash', { command: `cat ${s.name}` }))
  }
})
