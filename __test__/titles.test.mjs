// describeCall (issue 33): a short human title per call for progress lists and approval
// prompts — every built-in has its own, custom tools bring theirs, the guard context and the
// elicit request carry it, and no title shows a secret or runs past 80 characters.
import test from 'node:test'
import assert from 'node:assert/strict'
import { StartupError } from '../index.mjs'
import { latest } from './helpers.mjs'

test('the examples of the issue, word for word', () => {
  const { tools } = latest()
  const t = (name, args) => tools.describeCall(name, args)
  assert.equal(t('read_file', { path: 'src/a.ts', offset: 1, limit: 200 }), 'Read src/a.ts (lines 1–200)')
  assert.equal(t('edit_file', { path: 'src/a.ts', old_string: 'a', new_string: 'b' }), 'Edit src/a.ts')
  const patch = '*** Begin Patch\n*** Add File: a\n+x\n*** Delete File: b\n*** Update File: c\n@@\n-x\n+y\n*** End Patch'
  assert.equal(t('apply_patch', { patch }), 'Patch 3 files')
  assert.equal(t('bash', { command: 'npm test' }), 'Run npm test')
  assert.equal(t('grep', { pattern: 'TODO', path: 'src/' }), 'Search "TODO" in src/')
})

test('every built-in has a title of its own, for any arguments, without throwing', () => {
  const { tools } = latest()
  // The surface, and the opt-in tools (describable whether or not they are on it).
  const optIn = ['undo', 'checkpoint_create', 'checkpoint_list', 'checkpoint_changes', 'checkpoint_restore', 'checkpoint_drop', 'review_pending', 'review_accept', 'review_reject']
  const names = [...tools.listTools().map((t) => t.name), ...optIn]
  assert.equal(new Set(names).size, 41, names.join())
  const seen = new Map()
  for (const name of names) {
    const title = tools.describeCall(name, { path: 'src/x.ts', id: 'cp-1', command: 'make', pattern: 'x', paths: ['a', 'b'] })
    assert.equal(typeof title, 'string')
    assert.ok(title.length > 0 && title.length <= 80 && title !== name, `${name}: ${title}`)
    assert.ok(!seen.has(title), `${name} and ${seen.get(title)} share ${title}`)
    seen.set(title, name)
    // Missing, mistyped or no arguments: still a title.
    for (const args of [undefined, {}, { path: 42, paths: 'x', offset: 'a' }]) {
      const t = tools.describeCall(name, args)
      assert.ok(typeof t === 'string' && t.length > 0 && t.length <= 80, `${name}: ${t}`)
    }
  }
  assert.equal(tools.describeCall('no_such_tool', {}), 'no_such_tool')
})

test('titles are one line, at most 80 characters, and never show a secret', () => {
  const { tools } = latest()
  const long = tools.describeCall('bash', { command: `echo ${'x'.repeat(300)}\nrm -rf build` })
  assert.ok(long.length <= 80 && long.endsWith('…') && !long.includes('\n'), long)
  const key = `sk-ant-api03-${'A'.repeat(40)}`
  const t = tools.describeCall('bash', { command: `curl -H 'x-api-key: ${key}' https://api` })
  assert.ok(!t.includes(key) && t.includes('[REDACTED:anthropic_key]'), t)
  const env = tools.describeCall('bash', { command: 'DB_PASSWORD=hunter2 npm test' })
  assert.ok(!env.includes('hunter2'), env)
  // The host's own patterns apply too when redactSecrets has them.
  const own = latest({}, { redactSecrets: { patterns: [/ACME-\d+/] } }).tools
  assert.ok(!own.describeCall('write_file', { path: 'ACME-1234.txt', content: '' }).includes('ACME-1234'))
})

test('a custom tool brings its title (made safe the same way); without one its name stands in', () => {
  const deploy = {
    name: 'deploy',
    description: 'Deploys.',
    inputSchema: { type: 'object', properties: { env: { type: 'string' } } },
    handler: () => 'ok',
    title: (args) => `Deploy to ${args.env}\nwith token sk-ant-api03-${'B'.repeat(40)} ${'y'.repeat(100)}`,
  }
  const plain = { name: 'plain', description: 'Plain.', inputSchema: { type: 'object' }, handler: () => 'ok' }
  const broken = { name: 'broken', description: 'Broken.', inputSchema: { type: 'object' }, handler: () => 'ok', title: () => { throw new Error('no') } }
  const { tools } = latest({}, { customTools: [deploy, plain, broken] })
  const t = tools.describeCall('deploy', { env: 'staging' })
  assert.ok(t.startsWith('Deploy to staging with token [REDACTED:anthropic_key]') && t.length <= 80 && t.endsWith('…'), t)
  assert.equal(tools.describeCall('plain', {}), 'plain')
  assert.equal(tools.describeCall('broken', {}), 'broken')
  assert.throws(
    () => latest({}, { customTools: [{ ...plain, title: 'Plain' }] }),
    (e) => e instanceof StartupError && e.message === 'customTools[0].title must be a function (args) => string',
  )
})

test('the guard context and the elicit request carry the title', async () => {
  const seen = []
  const { call } = latest(
    { 'a.txt': 'a\n' },
    {
      guard: (ctx) => {
        seen.push(['guard', ctx.title])
        return { verdict: 'ask', reason: 'check' }
      },
      elicit: (req) => {
        seen.push(['elicit', req.title])
        return true
      },
      customTools: [{ name: 'ping', description: 'Ping.', inputSchema: { type: 'object' }, handler: () => 'pong', title: () => 'Ping the server' }],
    },
  )
  assert.equal((await call('read_file', { path: 'a.txt', limit: 5 })).isError, false)
  assert.equal((await call('ping', {})).isError, false)
  assert.deepEqual(seen, [
    ['guard', 'Read a.txt (lines 1–5)'],
    ['elicit', 'Read a.txt (lines 1–5)'],
    ['guard', 'Ping the server'],
    ['elicit', 'Ping the server'],
  ])
})
