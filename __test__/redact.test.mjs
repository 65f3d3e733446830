// redactSecrets (issue 15): credentials masked as [REDACTED:<kind>] in every text going back to
// the model — every tool, errors, custom tools, the AI SDK adapter and the MCP server — and a
// mutation carrying a placeholder refused, so a secret is never overwritten by its mask.
import test from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { generateText, stepCountIs } from 'ai'
import { createAgentTools, StartupError } from '../index.mjs'
import { toAiSdkTools } from '../ai.mjs'
import { latest, envelope, scratch } from './helpers.mjs'
import { scriptedModel, toolResultsIn } from './scripted-model.mjs'
import { mcpClient } from './in-process-mcp.mjs'
import { noSh, slash } from './platform.mjs'

const GH = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'
const AWS = 'AKIA' + 'IOSFODNN7EXAMPLE'
const ENV = `# local settings\nDB_USER=app\nDB_PASSWORD=hunter2\nAPI_TOKEN="s3cr3t value"\nGITHUB=${GH}\n`
const KEY = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nAAAAB3NzaC1yc2E=\n-----END OPENSSH PRIVATE KEY-----\n'

test('read tools and grep see masks instead of secrets', async () => {
  const { call } = latest({ '.env': ENV, 'id_rsa': KEY, 'src/a.js': `const k = '${AWS}'\n` }, { redactSecrets: true })
  const r = await call('read_file', { path: '.env' })
  assert.equal(r.isError, false)
  assert.ok(!r.text.includes('hunter2') && !r.text.includes('s3cr3t') && !r.text.includes(GH), r.text)
  assert.match(r.text, /DB_USER=app/)
  assert.match(r.text, /DB_PASSWORD=\[REDACTED:password\]/)
  // A quoted value keeps its quotes: only the secret is masked.
  assert.match(r.text, /API_TOKEN="\[REDACTED:secret\]"/)
  assert.match(r.text, /GITHUB=\[REDACTED:github_token\]/)
  assert.equal(r.content[0].text, r.text)
  // Each body line is masked on its own: line numbers, BEGIN and END stay.
  assert.equal(
    (await call('read_file', { path: 'id_rsa' })).text,
    '     1\t-----BEGIN OPENSSH PRIVATE KEY-----\n     2\t[REDACTED:private_key]\n     3\t[REDACTED:private_key]\n     4\t-----END OPENSSH PRIVATE KEY-----',
  )
  const g = await call('grep', { pattern: 'AKIA', output_mode: 'content' })
  assert.equal(slash(g.text), "src/a.js:1:const k = '[REDACTED:aws_access_key]'")
  // Error messages too.
  const e = envelope(await call('read_file', { path: GH }))
  assert.ok(!JSON.stringify(e).includes(GH), JSON.stringify(e))
})

test('bash sees masks instead of secrets', { skip: noSh }, async () => {
  const { call } = latest({ '.env': ENV }, { redactSecrets: true })
  // A secret on the output's first line (the start of a JSON string), and at its very end.
  const first = await call('bash', { command: 'printf "DB_PASSWORD=hunter2"' })
  assert.deepEqual(JSON.parse(first.text).stdout, 'DB_PASSWORD=[REDACTED:password]')
  const b = await call('bash', { command: 'cat .env' })
  assert.ok(!b.text.includes('hunter2') && !b.text.includes(GH), b.text)
  assert.match(b.text, /\[REDACTED:password\]/)
})

test('meta.diff of an edit is masked too', async () => {
  const { call } = latest({ '.env': ENV }, { redactSecrets: true })
  const r = await call('edit_file', { path: '.env', old_string: 'DB_USER=app', new_string: 'DB_USER=root' })
  assert.equal(r.isError, false)
  assert.ok(typeof r.meta.diff === 'string' && !r.meta.diff.includes('hunter2'), r.meta.diff)
  const w = await call('write_file', { path: '.env', content: 'DB_PASSWORD=newpass\n' })
  assert.ok(!w.meta.diff.includes('hunter2') && !w.meta.diff.includes('newpass'), w.meta.diff)
  assert.match(w.meta.diff, /^-DB_PASSWORD=\[REDACTED:password\]$/m)
  assert.match(w.meta.diff, /^\+DB_PASSWORD=\[REDACTED:password\]$/m)
})

test('live output (onOutput) is masked too', { skip: noSh }, async () => {
  const { tools } = latest({ '.env': ENV }, { redactSecrets: true })
  const chunks = []
  const r = await tools.callTool('bash', { command: 'cat .env' }, { onOutput: (c) => chunks.push(c) })
  assert.equal(r.isError, false)
  const live = chunks.map((c) => c.text).join('')
  assert.ok(live.length > 0)
  assert.ok(!live.includes('hunter2') && !live.includes(GH), live)
  assert.match(live, /DB_PASSWORD=\[REDACTED:password\]/)
})

test('without the option nothing is masked', async () => {
  const { call } = latest({ '.env': ENV })
  assert.match((await call('read_file', { path: '.env' })).text, /hunter2/)
})

test('a mutation whose arguments carry a placeholder is refused; the secret survives', async () => {
  const { call, root } = latest({ '.env': ENV }, { redactSecrets: true })
  const refused = envelope(await call('edit_file', { path: '.env', old_string: 'DB_USER=app', new_string: 'DB_USER=root\nDB_PASSWORD=[REDACTED:password]' }))
  assert.equal(refused.error, 'invalid_input')
  assert.match(refused.message, /^The arguments contain the redaction placeholder \[REDACTED:password\] \(at \/new_string\)/)
  assert.equal(refused.placeholder, '[REDACTED:password]')
  assert.equal(envelope(await call('write_file', { path: '.env', content: 'X=[REDACTED:secret]' })).error, 'invalid_input')
  assert.equal(envelope(await call('bash', { command: "echo 'P=[REDACTED:password]' > .env" })).error, 'invalid_input')
  assert.equal(fs.readFileSync(path.join(root, '.env'), 'utf8'), ENV)
  // Reads may mention a placeholder (searching for it is harmless).
  assert.equal((await call('grep', { pattern: '\\[REDACTED:password\\]' })).isError, false)
  // Editing around the secret works.
  assert.equal((await call('edit_file', { path: '.env', old_string: 'DB_USER=app', new_string: 'DB_USER=root' })).isError, false)
  assert.match(fs.readFileSync(path.join(root, '.env'), 'utf8'), /DB_PASSWORD=hunter2/)
})

test("the host's patterns (strings and RegExps) mask as [REDACTED:custom]", async () => {
  const { call, tools } = latest({ 'n.txt': 'ticket ACME-1234 and acme-77\n' }, { redactSecrets: { patterns: [/acme-\d+/i, 'ticket'] } })
  assert.equal((await call('read_file', { path: 'n.txt' })).text, '     1\t[REDACTED:custom] [REDACTED:custom] and [REDACTED:custom]')
  assert.deepEqual(tools.config.redactSecrets, { patterns: [{ source: 'acme-\\d+', flags: 'i' }, { source: 'ticket', flags: '' }] })
})

test('custom tools, the AI SDK adapter and the MCP server carry masked text', async (t) => {
  const root = scratch()
  fs.writeFileSync(path.join(root, '.env'), ENV)
  const tools = createAgentTools({
    workspaceRoot: root,
    redactSecrets: true,
    customTools: [{ name: 'vault', description: 'Reads the vault.', inputSchema: { type: 'object' }, readOnly: true, handler: () => `token: ${GH}` }],
  })
  assert.equal((await tools.callTool('vault', {})).text, 'token: [REDACTED:github_token]')
  const { model, prompts } = scriptedModel([[['read_file', { path: '.env' }], ['vault', {}]]])
  await generateText({ model, tools: toAiSdkTools(tools), prompt: 'go', stopWhen: stepCountIs(3) })
  const seen = toolResultsIn(prompts[1])
  assert.ok(!JSON.stringify(seen).includes('hunter2') && !JSON.stringify(seen).includes(GH))
  assert.equal(seen['call-0-1'].value, 'token: [REDACTED:github_token]')
  const client = await mcpClient(t, tools)
  const r = await client.callTool({ name: 'read_file', arguments: { path: '.env' } })
  assert.ok(!r.content[0].text.includes('hunter2'))
  assert.match(r.content[0].text, /\[REDACTED:password\]/)
})

test('bad redactSecrets options are StartupErrors', () => {
  const root = scratch()
  const bad = (redactSecrets, re) =>
    assert.throws(() => createAgentTools({ workspaceRoot: root, redactSecrets }), (e) => {
      assert.ok(e instanceof StartupError)
      assert.match(e.message, re)
      return true
    })
  bad('yes', /^redactSecrets must be true, false or \{ patterns \}, got: yes$/)
  bad({ patterns: ['('] }, /^redactSecrets\.patterns: \/\(\/ is not a valid regex/)
  bad({ patterns: [/x*/] }, /matches the empty string$/)
  bad({ patterns: 'x' }, /^redactSecrets\.patterns must be an array/)
})
