// A generator of random shell compositions with what each one touches, for the soundness
// property of analyzeBash. It models one run of the command (every `cd` succeeds, every
// command of a list runs, a subshell's `cd` stays inside it) and never runs anything: the
// commands are only analyzed.

import { mulberry32 as rng } from './drift/generate.mjs'

const INSIDE = ['a.txt', 'src/b.ts', 'src', 'dir/c.md', '.hidden', 'src/deep/d.rs']
const OUTSIDE = ['/etc/passwd', '/tmp/x', '../out/f', '~/.ssh/id_rsa', '/var/log/syslog', '../../g', '/etc']
const DIRS = ['src', 'src/deep', '..', '/etc', '/tmp', '~', 'dir', '../..']

// How a path may be written: each returns the shell text, or null when it does not apply.
const RENDER = [
  (p) => p,
  (p) => (p.startsWith('~') ? null : `'${p}'`),
  (p) => (p.startsWith('~') ? null : `"${p}"`),
  (p) => (p.startsWith('~') ? null : p.replace(/[a-z]/g, (c) => `\\${c}`)),
  (p) => (p.startsWith('~') ? null : `$'${[...p].map((c) => (c === '/' ? '\\x2f' : c === 'e' ? '\\145' : c)).join('')}'`),
  (p) => (p.startsWith('~') || p.length < 3 ? null : `'${p.slice(0, 2)}'"${p.slice(2)}"`),
  (p) => (p.startsWith('~') || !p.includes('/') ? null : `${p.slice(0, p.lastIndexOf('/') + 1)}{${p.slice(p.lastIndexOf('/') + 1)},zz}`),
  (p) => (p.length > 2 && !p.startsWith('~') && /[a-z]$/.test(p) ? `${p.slice(0, -1)}*` : null),
  (p) => (p.length > 2 && !p.startsWith('~') && /[a-z]$/.test(p) ? `${p.slice(0, -1)}?` : null),
]

// Commands touching one or two paths: [template, number of paths]. `P`/`Q` are the paths.
const COMMANDS = [
  ['cat P', 1], ['head -n 3 P', 1], ['tail -5 P', 1], ['wc -l P', 1], ['grep -n x P', 1], ['sed -n 1p P', 1],
  ["awk '{print $1}' P", 1], ['ls -la P', 1], ['stat P', 1], ['diff P Q', 2], ['cp P Q', 2], ['mv P Q', 2],
  ['tee P', 1], ['touch P', 1], ['mkdir -p P', 1], ['rm -f P', 1], ['echo x > P', 1], ['echo x >>P', 1],
  ['cat <P', 1], ['ls 2>P', 1], ['ls &>P', 1], ['sort -o P x.txt', 1], ['sort --output=P x.txt', 1],
  ['dd if=P of=o.txt', 1], ['cat -- P', 1], ['ln -s P lnk', 1], ['file P', 1], ['du -s P', 1],
  ['git diff --no-index P Q', 2], ['tar -cf t.tar P', 1], ['cmp P Q', 2], ['md5sum P', 1], ['curl -o P https://e.x', 1],
  ['curl -F f=@P https://e.x', 1], ['install -D x.txt P', 1], ['find P -name q', 1], ['rg x P', 1], ['jq . P', 1],
]
const WRAP = ['', '', '', 'timeout 5 ', 'nice ', 'nohup ', 'command ', 'FOO=1 ', 'time ', 'stdbuf -oL ', 'timeout -s KILL 9 ', 'nice -n 5 ']
const UNDECIDABLE = ['eval cat P', 'sh -c "cat P"', 'python3 -c "open(1)"', 'cat $(echo P)', 'cat `echo P`', 'xargs cat < P', 'cat $HOME/P']

function join(cwd, p) {
  if (p.startsWith('/') || p.startsWith('~')) return p
  if (cwd === '.') return p
  return `${cwd}/${p}`
}

/** A random command (from `seed`) and the paths one run of it touches (raw: relative, `~` or absolute). */
export function fuzzCommand(seed) {
  const r = rng(seed)
  const pick = (a) => a[Math.floor(r() * a.length)]
  const touched = []
  const parts = []
  let cwd = '.'
  const steps = 1 + Math.floor(r() * 4)
  for (let s = 0; s < steps; s++) {
    const sub = r() < 0.2
    const sep = pick([' && ', '; ', ' | ', '\n', ' & '])
    // The elements of a pipeline, or background jobs, each start in the step's directory.
    const apart = sep === ' | ' || sep === ' & '
    let local = cwd
    const out = []
    const n = 1 + Math.floor(r() * 2)
    for (let k = 0; k < n; k++) {
      if (apart) local = cwd
      if (r() < 0.25) {
        const d = pick(DIRS)
        out.push(`cd ${d}`)
        local = join(local, d)
        touched.push(local)
        continue
      }
      if (r() < 0.03) {
        out.push(pick(UNDECIDABLE).replace('P', () => pick(INSIDE)))
        continue
      }
      const [tpl, count] = pick(COMMANDS)
      let text = tpl
      for (const slot of count === 2 ? ['P', 'Q'] : ['P']) {
        const p = r() < 0.5 ? pick(INSIDE) : pick(OUTSIDE)
        let rendered = null
        while (rendered === null) rendered = pick(RENDER)(p)
        // A glob stands for the file it matches; a brace form touches both words.
        touched.push(join(local, p))
        if (rendered.includes('{')) touched.push(join(local, p.slice(0, p.lastIndexOf('/') + 1) + 'zz'))
        text = text.replace(slot, () => rendered)
      }
      out.push(pick(WRAP) + text)
    }
    // A subshell's, a pipeline's or a background job's `cd` does not reach the next step.
    const scoped = sub || apart
    const body = out.join(sep)
    parts.push(sub ? `(${body})` : r() < 0.1 ? `{ ${body}; }` : body)
    if (!scoped) cwd = local
  }
  return { command: parts.join(pick(['; ', ' && ', '\n'])), touched }
}
