// The sandbox's cost (issue 28), every ratio from one interleaved run:
//   bash `true`: sandboxed vs unsandboxed (target <= 1.3x), vs the same command wrapped by
//   bwrap with an equivalent policy (target <= 1.0x), and unsandboxed vs Node's
//   execFile('sh', ['-c', 'true']) (target <= 1.0x);
//   a real workload (make of a small C project): sandboxed vs not (target <= 1.05x);
//   createAgentTools({ sandbox: true }) vs without (target: <= 5 ms more);
//   read_file with the sandbox on vs off (no per-call cost for the other tools).
// `node bench/sandbox.mjs [--rounds N]`. Installs bubblewrap with apt-get when missing (the
// bench's need, never the library's). `--make-only` measures the make row alone, in pairs
// whose order alternates (sandboxed first on odd rounds), and reports the median of the
// per-pair ratios beside the ratio of the medians, with the load before and after: on a
// loaded machine a pair shares its moment's load, two medians do not.
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

const run = (t, command) => async () => {
  const r = await t.callTool('bash', { command })
  if (r.isError || JSON.parse(r.text).exit_code !== 0) throw new Error(`${command}: ${r.text}`)
}
const make = (t) => async () => {
  await run(t, 'make -s -C proj clean')()
  await run(t, 'make -s -C proj -j2')()
}

if (process.argv.includes('--make-only')) {
  const plain = createAgentTools({ workspaceRoot: ws })
  const boxed = createAgentTools({ workspaceRoot: ws, sandbox: true })
  const load = () => os.loadavg().map((l) => l.toFixed(2)).join(' ')
  const time = async (fn) => {
    const t0 = process.hrtime.bigint()
    await fn()
    return Number(process.hrtime.bigint() - t0) / 1e6
  }
  const median = (v) => [...v].sort((a, b) => a - b)[v.length >> 1]
  // The CPU time of everything the command ran (the shell's `times`: its children's user +
  // system time), which the machine's load inflates far less than the wall clock.
  const cpu = async (t) => {
    await run(t, 'make -s -C proj clean')()
    const r = JSON.parse((await t.callTool('bash', { command: 'make -s -C proj -j2 && times' })).text)
    const [u, s] = r.stdout.trim().split('\n').at(-1).split(' ').map((x) => {
      const [, m, sec] = /(\d+)m([\d.]+)s/.exec(x)
      return Number(m) * 60 + Number(sec)
    })
    return (u + s) * 1000
  }
  await make(plain)()
  await make(boxed)()
  const before = load()
  const p = []
  const b = []
  const pc = []
  const bc = []
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 ? [[boxed, b, bc], [plain, p, pc]] : [[plain, p, pc], [boxed, b, bc]]
    for (const [t, wall] of order) wall.push(await time(make(t)))
    for (const [t, , used] of order) used.push(await cpu(t))
  }
  const ratios = p.map((x, i) => b[i] / x)
  const cpuRatios = pc.map((x, i) => bc[i] / x)
  console.log(`make -j2 (9 files), ${rounds} alternating pairs, ${os.cpus().length} cores, load before ${before}, after ${load()}`)
  console.log(`unsandboxed median ${median(p).toFixed(1)} ms, sandboxed median ${median(b).toFixed(1)} ms, ratio of medians ${(median(b) / median(p)).toFixed(3)}x`)
  console.log(`median of per-pair ratios ${median(ratios).toFixed(3)}x (min ${Math.min(...ratios).toFixed(3)}, max ${Math.max(...ratios).toFixed(3)}); target <= 1.05x`)
  console.log(`CPU time (user+sys of the command's processes): unsandboxed median ${median(pc).toFixed(0)} ms, sandboxed ${median(bc).toFixed(0)} ms, ratio of medians ${(median(bc) / median(pc)).toFixed(3)}x, median of per-pair ratios ${median(cpuRatios).toFixed(3)}x`)
  fs.rmSync(base, { recursive: true, force: true })
  process.exit(0)
}

// Construction.
const [plainNew, sandboxNew] = await interleaved(
  [() => createAgentTools({ workspaceRoot: ws }), () => createAgentTools({ workspaceRoot: ws, sandbox: true })],
  rounds,
)
const plain = createAgentTools({ workspaceRoot: ws })
const boxed = createAgentTools({ workspaceRoot: ws, sandbox: true })
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
