// The sandbox's cost (issue 28), every ratio from one interleaved run:
//   bash `true`: sandboxed vs unsandboxed (target <= 1.3x), vs the same command wrapped by
//   bwrap with an equivalent policy (target <= 1.0x), and unsandboxed vs Node's
//   execFile('sh', ['-c', 'true']) (target <= 1.0x);
//   a real workload (make of a small C project): sandboxed vs not (target <= 1.05x);
//   createAgentTools({ sandbox: true }) vs without (target: <= 5 ms more);
//   read_file with the sandbox on vs off (no per-call cost for the other tools).
// `node bench/sandbox.mjs [--rounds N]`. Installs bubblewrap with apt-get when missing (the
// bench's need, never the library's).
import { execFile, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createAgentTools } from '../index.mjs'
import { batch, interleaved } from './lib.mjs'

const arg = (name, d) => {
  const i = process.argv.indexOf(name)
  return i > 0 ? Number(process.argv[i + 1]) : d
}
const rounds = arg('--rounds', 15)
const perSample = arg('--calls', 20)

function bwrapPath() {
  let r = spawnSync('sh', ['-c', 'command -v bwrap'], { encoding: 'utf8' })
  if (r.status !== 0) {
    spawnSync('apt-get', ['install', '-y', '-q', 'bubblewrap'], { stdio: 'ignore' })
    r = spawnSync('sh', ['-c', 'command -v bwrap'], { encoding: 'utf8' })
  }
  return r.status === 0 ? r.stdout.trim() : null
}

const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'bench-sbx-')))
const ws = path.join(base, 'ws')
fs.mkdirSync(path.join(ws, 'proj'), { recursive: true })
spawnSync('git', ['init', '-q', ws])
for (let i = 0; i < 8; i++) {
  fs.writeFileSync(path.join(ws, 'proj', `f${i}.c`), `int f${i}(int x){int s=0;for(int i=0;i<x;i++)s+=i*${i};return s;}\n`)
}
fs.writeFileSync(path.join(ws, 'proj', 'main.c'), 'int f0(int);int main(void){return f0(3)!=3*0;}\n')
fs.writeFileSync(
  path.join(ws, 'proj', 'Makefile'),
  'OBJ=$(patsubst %.c,%.o,$(wildcard *.c))\nmain: $(OBJ)\n\tcc -o main $(OBJ)\n%.o: %.c\n\tcc -O2 -c $<\nclean:\n\trm -f *.o main\n',
)
fs.writeFileSync(path.join(ws, 'README'), 'x\n')

const ms = (x) => `${(x * 1000).toFixed(0)} µs`
const per = (t) => t / perSample

// Construction.
const [plainNew, sandboxNew] = await interleaved(
  [() => createAgentTools({ workspaceRoot: ws }), () => createAgentTools({ workspaceRoot: ws, sandbox: true })],
  rounds,
)
const plain = createAgentTools({ workspaceRoot: ws })
const boxed = createAgentTools({ workspaceRoot: ws, sandbox: true })
const run = (t, command) => async () => {
  const r = await t.callTool('bash', { command })
  if (r.isError || JSON.parse(r.text).exit_code !== 0) throw new Error(`${command}: ${r.text}`)
}
const nodeTrue = () =>
  new Promise((res, rej) => execFile('sh', ['-c', 'true'], (e) => (e ? rej(e) : res())))

const bwrap = bwrapPath()
// bwrap with the same policy: the root read-only, the workspace writable, its protected
// paths read-only, a private /tmp, new user/mount/net/ipc namespaces, no new privileges.
const bwrapCmd = bwrap
  ? [
      bwrap,
      '--ro-bind / /',
      '--dev /dev --proc /proc',
      '--tmpfs /tmp',
      `--bind ${ws} ${ws}`,
      ...['.git/hooks', '.git/config'].map((p) => `--ro-bind ${ws}/${p} ${ws}/${p}`),
      '--unshare-user --unshare-net --unshare-ipc --new-session --die-with-parent',
      `--chdir ${ws}`,
      'sh -c true',
    ].join(' ')
  : null

const fns = [batch(run(plain, 'true'), perSample), batch(run(boxed, 'true'), perSample), batch(nodeTrue, perSample)]
if (bwrapCmd) fns.push(batch(run(plain, bwrapCmd), perSample))
const [plainTrue, boxedTrue, execTrue, bwrapTrue] = await interleaved(fns, rounds)

const readArgs = { path: 'README' }
const [readPlain, readBoxed] = await interleaved(
  [batch(() => plain.callTool('read_file', readArgs), perSample), batch(() => boxed.callTool('read_file', readArgs), perSample)],
  rounds,
)

const make = (t) => async () => {
  await run(t, 'make -s -C proj clean')()
  await run(t, 'make -s -C proj -j2')()
}
const [makePlain, makeBoxed] = await interleaved([make(plain), make(boxed)], Math.max(5, rounds >> 1))

const rows = [
  ['createAgentTools', `${plainNew.toFixed(2)} ms`, `${sandboxNew.toFixed(2)} ms`, `+${(sandboxNew - plainNew).toFixed(2)} ms`, '<= +5 ms'],
  ['bash `true`', ms(per(plainTrue)), ms(per(boxedTrue)), `${(boxedTrue / plainTrue).toFixed(2)}x`, '<= 1.3x'],
  bwrapCmd
    ? ['bash `true` vs bwrap', ms(per(bwrapTrue)), ms(per(boxedTrue)), `${(boxedTrue / bwrapTrue).toFixed(2)}x`, '<= 1.0x']
    : ['bash `true` vs bwrap', 'n/a (no bwrap)', '', '', ''],
  ['unsandboxed bash `true` vs execFile', ms(per(execTrue)), ms(per(plainTrue)), `${(plainTrue / execTrue).toFixed(2)}x`, '<= 1.0x'],
  ['make -j2 (9 files)', `${makePlain.toFixed(1)} ms`, `${makeBoxed.toFixed(1)} ms`, `${(makeBoxed / makePlain).toFixed(2)}x`, '<= 1.05x'],
  ['read_file (other tools)', ms(per(readPlain)), ms(per(readBoxed)), `${(readBoxed / readPlain).toFixed(2)}x`, '~1.0x'],
]
console.log(`sandbox bench: ${rounds} interleaved rounds, ${perSample} calls per sample, ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)}`)
console.log('| what | baseline | sandboxed | ratio | target |\n|---|---|---|---|---|')
for (const r of rows) console.log(`| ${r.join(' | ')} |`)
fs.rmSync(base, { recursive: true, force: true })
