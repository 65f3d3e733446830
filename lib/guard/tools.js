'use strict'
// The guard analyzer's readers for programs that run code or subcommands: shells and
// interpreters (a script file is the workspace's own code; inline code or code on stdin is
// undecidable), awk and sed (their program text is read, and refused when it runs commands or
// opens files the analysis cannot list), find, git, the package managers and build tools
// (known subcommands only: an unknown one may be a plugin or an alias).

const { spec, piece } = require('./programs.js')
const sedScript = require('./sed.js')

const table = Object.create(null)
const def = (names, handler) => {
  for (const n of names.split(' ')) table[n] = handler
}

/**
 * An interpreter: options (`inline` ones carry code → undecidable; `val`/`qval` take a
 * value), then a script file (listed) whose arguments are text. No script: it reads code
 * from stdin → undecidable, unless `noScript` says the options did something else.
 */
function interpreter(o) {
  return function interp(args, st, name) {
    let i = 0
    let noScript = false
    for (; i < args.length; i++) {
      const t = args[i].text
      if (t === '--') {
        i++
        break
      }
      if (t === '-' || !/^[-+]/.test(t) || t.length < 2) break
      if (args[i].glob) return st.fail(`${name}: a glob where an option may stand`)
      if (t.startsWith('--')) {
        const n = t.split('=')[0]
        if (o.linline && o.linline.some((x) => x === n || x.startsWith(n))) return st.fail(`${name} ${n} runs code given inline`)
        if (o.lnoScript && o.lnoScript.includes(n)) noScript = true
        if (o.lval && o.lval.includes(n)) {
          const v = t.includes('=') ? piece(t.slice(t.indexOf('=') + 1)) : args[++i]
          if (v) st.path(v)
          continue
        }
        if (o.lqval && o.lqval.includes(n)) {
          const v = t.includes('=') ? piece(t.slice(t.indexOf('=') + 1)) : args[++i]
          if (v) {
            if (o.check && o.check(n, v.text) === false) return st.fail(`${name} ${n} ${v.text}`)
            st.loose(v)
          }
          continue
        }
        if (o.llong && !o.llong.includes(n)) return st.fail(`${name} ${n}: an option the analysis does not know`)
        continue
      }
      for (let j = 1; j < t.length; j++) {
        const c = t[j]
        if (o.inline.includes(c)) return st.fail(`${name} -${c} runs code given inline`)
        if (o.noScript && o.noScript.includes(c)) noScript = true
        if ((o.val && o.val.includes(c)) || (o.qval && o.qval.includes(c))) {
          const rest = t.slice(j + 1)
          const v = rest ? piece(rest) : args[++i]
          if (v) {
            if (o.check && o.check('-' + c, v.text, st) === false) return st.fail(`${name} -${c} ${v.text}`)
            if (o.val && o.val.includes(c)) st.path(v)
            st.loose(v)
            if (o.module && o.module.includes(c)) return o.onModule(v.text, args.slice(i + 1), st, name)
          }
          break
        }
        if (o.flags && !o.flags.includes(c)) return st.fail(`${name} -${c}: an option the analysis does not know`)
      }
    }
    if (i >= args.length) return noScript ? true : st.fail(`${name} reads code from its input`)
    const script = args[i]
    if (script.text === '-') return st.fail(`${name} reads code from its input`)
    if (o.subcommands && o.subcommands(script.text, args.slice(i + 1), st, name) !== undefined) return true
    st.path(script)
    for (const f of args.slice(i + 1)) (o.argsArePaths ? st.path(f) : null, st.loose(f))
    return true
  }
}

def('sh bash dash zsh ksh mksh ash yash busybox', (args, st, name) => {
  if (name === 'busybox') {
    if (!args.length || !['sh', 'ash'].includes(args[0].text)) return st.fail('busybox: an applet the analysis does not read')
    args = args.slice(1)
  }
  return interpreter({
    inline: 'csi',
    flags: 'abefhklmnprtuvxBCEHPTlo',
    qval: 'oO',
    llong: ['--norc', '--noprofile', '--posix', '--login', '--restricted', '--noediting', '--verbose', '--debugger', '--dump-strings', '--dump-po-strings', '--help', '--version', '--rcfile', '--init-file', '--protected'],
    lval: ['--rcfile', '--init-file'],
    linline: ['--interactive'],
  })(args, st, name)
})

// python: `-m` runs a module: tools whose arguments are paths, or undecidable.
const PY_MODULES = new Set(['pytest', 'unittest', 'venv', 'virtualenv', 'json.tool', 'http.server', 'mypy', 'black', 'ruff', 'isort', 'flake8', 'pylint', 'compileall', 'py_compile', 'doctest', 'zipfile', 'tarfile', 'gzip', 'build', 'pydoc', 'tabnanny', 'pyflakes', 'pycodestyle', 'pip'])
const python = interpreter({
  inline: 'c',
  flags: 'bBdEhiIOqsSuvVxP3',
  qval: 'WXm',
  module: 'm',
  lqval: ['--check-hash-based-pycs'],
  llong: ['--help', '--version', '--help-env', '--help-xoptions', '--help-all', '--check-hash-based-pycs'],
  onModule(mod, rest, st, name) {
    if (!PY_MODULES.has(mod)) return st.fail(`${name} -m ${mod}: a module the analysis does not read`)
    if (mod === 'pip') return table.pip(rest, st, 'pip')
    for (const f of rest) {
      if (!f.text.startsWith('-')) st.path(f)
      st.loose(f)
    }
    return true
  },
})
def('python python2 python3 pypy pypy3', python)

// A module given inline (`--import=data:text/javascript,…`) is code too.
const notInline = (opt, v) => !/^(data|https?):/i.test(v)
def('node nodejs', interpreter({
  check: notInline,
  inline: 'epi',
  flags: 'hvc',
  qval: 'rC',
  linline: ['--eval', '--print', '--interactive'],
  lnoScript: ['--test', '--run', '--version', '--help', '--check', '--v8-options'],
  lqval: ['--require', '--import', '--loader', '--experimental-loader', '--conditions', '--inspect-port', '--title', '--run', '--test-name-pattern', '--test-reporter', '--input-type', '--stack-size', '--max-old-space-size'],
  lval: ['--env-file', '--env-file-if-exists', '--test-reporter-destination', '--redirect-warnings', '--report-dir', '--diagnostic-dir', '--cpu-prof-dir', '--heap-prof-dir', '--experimental-config-file'],
}))
def('perl', interpreter({
  inline: 'eEd',
  flags: 'aclnpsTtuUvwWX0inx',
  val: 'I',
  qval: 'MmF',
  argsArePaths: true,
  check: (opt, v) => !/^[Mm]$/.test(opt.slice(1)) || /^-?[\w:]+(=[\w,:]*)?$/.test(v),
}))
def('ruby', interpreter({ inline: 'e', flags: 'acdlnpsSvwWyx', val: 'IC', qval: 'rEFK', llong: ['--version', '--help', '--disable-gems', '--enable', '--disable', '--jit', '--yjit'], argsArePaths: true }))
def('php', interpreter({ inline: 'raB', flags: 'hvinlqmsH', val: 'fctS', qval: 'dz', noScript: 'fSlmvhi' }))
def('lua luajit', interpreter({ inline: 'ei', flags: 'vEW', qval: 'l' }))
def('tsx ts-node ts-node-esm', interpreter({ inline: 'epi', flags: 'hvTH', linline: ['--eval', '--print', '--interactive'], lqval: ['--require', '--import', '--project', '--compiler', '--tsconfig'] }))

// deno / bun: subcommands; inline code (eval, -e) and remote runners are undecidable.
def('deno', (args, st, name) => {
  const sub = args[0] && args[0].text
  // A script by URL (`https:`, `data:`, `npm:`, `jsr:`) is code the workspace does not hold.
  if (args.some((f) => /^[a-z][a-z0-9+.-]*:/i.test(f.text) && !f.text.startsWith('-'))) return st.fail(`${name}: a script by URL`)
  if (!sub || ['eval', 'repl', 'install', 'uninstall', 'upgrade', 'jupyter', 'add', 'x'].includes(sub)) return st.fail(`${name} ${sub || ''}: code the analysis cannot read`)
  const rest = ['run', 'test', 'check', 'fmt', 'lint', 'bench', 'compile', 'task', 'info', 'doc', 'types', 'cache', 'serve', 'coverage', 'init'].includes(sub) ? args.slice(1) : args
  return spec({ exec: ['--eval', '--eval-file'] })(rest, st, name)
})
def('bun', (args, st, name) => {
  const sub = args[0] && args[0].text
  if (!sub || args.some((f) => /^(-e|-p|--eval|--print)$/.test(f.text)) || ['x', 'create', 'repl', 'upgrade', 'link'].includes(sub)) return st.fail(`${name} ${sub || ''}: code the analysis cannot read`)
  return spec({})(args.slice(1), st, name)
})

// awk: the program text is read; system(), getline, pipes and output redirections are refused.
function awkUnsafe(prog) {
  return /\b(system|getline|close|fflush)\b|@(load|include|namespace)|(^|[^|])\|(?!\|)|\bprintf?\b[^;}\n]*>/.test(prog)
}
def('awk gawk mawk nawk busybox-awk', (args, st, name) => {
  let program = null
  let i = 0
  for (; i < args.length; i++) {
    const t = args[i].text
    if (t === '--') {
      i++
      break
    }
    if (!t.startsWith('-') || t === '-') break
    const m = t.match(/^(-f|--file|-E|--exec|-i|--include|-l|--load)(?:=(.*))?$/) || t.match(/^(-[fEil])(.+)$/)
    if (m) {
      if (m[1] === '-l' || m[1] === '--load') return st.fail(`${name} ${m[1]} loads a shared library`)
      const v = m[2] !== undefined ? piece(m[2]) : args[++i]
      if (v && (v.text === '-' || v.text === '/dev/stdin')) return st.fail(`${name}: a program read from its input`)
      if (v) st.path(v)
      if (m[1] !== '-i' && m[1] !== '--include') program = ''
      continue
    }
    const e = t.match(/^(-e|--source)(?:=(.*))?$/)
    if (e) {
      const v = e[2] !== undefined ? e[2] : args[++i]?.text ?? ''
      if (awkUnsafe(v)) return st.fail(`${name}: a program that runs commands or opens files`)
      program = v
      continue
    }
    if (/^(-v|-F|--assign|--field-separator)$/.test(t)) {
      const v = args[++i]
      if (v) st.loose(v)
      continue
    }
    if (/^-[vF]./.test(t)) {
      st.loose(piece(t.slice(2)))
      continue
    }
    if (/^--?(sandbox|posix|traditional|re-interval|characters-as-bytes|lint|optimize|no-optimize|bignum|use-lc-numeric|version|help|dump-variables|debug|profile|pretty-print|csv|non-decimal-data|gen-pot|S|P|c|r|b|M|O|s|t|N|L|n|g|x|p|o|d|V|h)(=.*)?$/.test(t)) continue
    return st.fail(`${name} ${t}: an option the analysis does not know`)
  }
  if (program === null) {
    const p = args[i++]
    if (!p) return st.fail(`${name} without a program`)
    if (awkUnsafe(p.text)) return st.fail(`${name}: a program that runs commands or opens files`)
  }
  for (const f of args.slice(i)) {
    st.path(f)
    st.loose(f)
  }
  return true
})

// sed: the script is parsed; `e`, `s///e` are refused, `r`/`w` files are listed.
def('sed gsed', (args, st, name) => {
  let script = null
  let sandbox = false
  const scripts = []
  const files = []
  let options = true
  for (let i = 0; i < args.length; i++) {
    const t = args[i].text
    if (options && t === '--') {
      options = false
      continue
    }
    if (options && t.startsWith('-') && t.length > 1) {
      if (args[i].glob) return st.fail(`${name}: a glob where an option may stand`)
      if (t === '--sandbox') sandbox = true
      const m = t.match(/^(?:--expression|--file)(?:=(.*))?$/)
      if (m) {
        const v = m[1] !== undefined ? m[1] : args[++i]?.text ?? ''
        if (t.startsWith('--file')) {
          if (v === '-' || v === '/dev/stdin') return st.fail(`${name}: a script read from its input`)
          st.path(piece(v))
          script = ''
        } else scripts.push(v)
        continue
      }
      if (/^--(line-length|l)$/.test(t)) {
        i++
        continue
      }
      if (t.startsWith('--')) continue
      for (let j = 1; j < t.length; j++) {
        const c = t[j]
        if (c === 'e' || c === 'f' || c === 'l') {
          const v = t.slice(j + 1) || args[++i]?.text || ''
          if (c === 'e') scripts.push(v)
          else if (c === 'f') {
            if (v === '-' || v === '/dev/stdin') return st.fail(`${name}: a script read from its input`)
            st.path(piece(v))
            script = ''
          }
          break
        }
        if (c === 'i') break // -i[SUFFIX]: the rest is the suffix
        if (!'nrEszub'.includes(c)) return st.fail(`${name} -${c}: an option the analysis does not know`)
      }
      continue
    }
    files.push(args[i])
  }
  if (!scripts.length && script === null) {
    const s = files.shift()
    if (!s) return st.fail(`${name} without a script`)
    scripts.push(s.text)
  }
  for (const s of scripts) {
    const r = sedScript(s)
    if (r === null) return st.fail(`${name}: a script the analysis cannot read`)
    if (r.exec && !sandbox) return st.fail(`${name}: a script that runs commands (e)`)
    for (const p of r.files) if (!sandbox) st.add(p)
  }
  for (const f of files) {
    st.path(f)
    st.loose(f)
  }
  return true
})

// find: start points are paths; -exec and friends are undecidable; file arguments listed.
const FIND_VALUE = new Set(['-name', '-iname', '-path', '-ipath', '-wholename', '-iwholename', '-regex', '-iregex', '-lname', '-ilname', '-type', '-xtype', '-perm', '-user', '-group', '-size', '-mtime', '-atime', '-ctime', '-mmin', '-amin', '-cmin', '-maxdepth', '-mindepth', '-links', '-inum', '-uid', '-gid', '-fstype', '-used', '-printf', '-context', '-regextype', '-D', '-O'])
const FIND_FILE = new Set(['-fprint', '-fprint0', '-fls', '-newer', '-anewer', '-cnewer', '-samefile'])
def('find', (args, st, name) => {
  let i = 0
  while (i < args.length && /^-[HLP]$|^-D$|^-O\d*$/.test(args[i].text)) i += args[i].text === '-D' ? 2 : 1
  let starts = 0
  for (; i < args.length && !/^[-(!)]/.test(args[i].text); i++) {
    st.path(args[i])
    starts++
  }
  if (!starts) st.add('.')
  for (; i < args.length; i++) {
    const f = args[i]
    const t = f.text
    if (f.glob) return st.fail(`${name}: a glob in the expression`)
    if (/^-(exec|execdir|ok|okdir|files0-from)$/.test(t)) return st.fail(`${name} ${t}`)
    if (t === '-fprintf') {
      if (args[i + 1]) st.path(args[i + 1])
      i += 2
    } else if (FIND_FILE.has(t) || /^-newer[a-zA-Z]{2}$/.test(t)) {
      if (args[i + 1]) (/^-newer.t$/.test(t) ? null : st.path(args[i + 1]))
      i++
    } else if (FIND_VALUE.has(t)) {
      if (args[i + 1]) st.loose(args[i + 1])
      i++
    }
  }
  return true
})

// git: global options, then a known subcommand.
const GIT_OK = new Set('add am annotate apply archive bisect blame branch bundle cat-file check-attr check-ignore check-mailmap check-ref-format checkout checkout-index cherry cherry-pick clean clone commit commit-graph commit-tree count-objects describe diff diff-files diff-index diff-tree fetch for-each-ref format-patch fsck gc grep hash-object help init log ls-files ls-remote ls-tree merge merge-base merge-file merge-tree mktag mktree mv name-rev notes pack-refs prune pull push range-diff read-tree rebase reflog remote repack replace reset restore rev-list rev-parse revert rm shortlog show show-branch show-ref sparse-checkout stage stash status stripspace submodule switch symbolic-ref tag update-index update-ref var verify-commit verify-pack verify-tag version whatchanged worktree write-tree config maintenance'.split(' '))
const GIT_SUB_EXEC = {
  grep: ['-O', '--open-files-in-pager'],
  rebase: ['-x', '--exec', '-i', '--interactive'],
  clone: ['-u', '--upload-pack', '-c', '--config', '--template'],
  fetch: ['--upload-pack'],
  pull: ['--upload-pack'],
  push: ['--receive-pack', '--exec'],
  'ls-remote': ['--upload-pack'],
  archive: ['--exec', '--remote'],
  apply: ['--unsafe-paths'],
  am: ['-i', '--interactive'],
  help: ['-w', '--web', '-i', '--info', '-m', '--man'],
  commit: ['-e', '--edit', '--interactive', '-p', '--patch'],
  add: ['-i', '--interactive', '-p', '--patch', '-e', '--edit'],
}
def('git', (args, st, name) => {
  let i = 0
  for (; i < args.length; i++) {
    const t = args[i].text
    if (!t.startsWith('-')) break
    if (t === '-c' || t.startsWith('--config-env') || t === '--exec-path' || t.startsWith('--exec-path=')) return st.fail(`${name} ${t}`)
    if (t === '-C') {
      const d = args[++i]
      if (d && !st.cd(d)) return false
    } else if (/^--(git-dir|work-tree|namespace|super-prefix)(=|$)/.test(t)) {
      const v = t.includes('=') ? piece(t.slice(t.indexOf('=') + 1)) : args[++i]
      if (v) st.path(v)
    }
  }
  const sub = args[i] && args[i].text
  if (sub === undefined) return true
  if (!GIT_OK.has(sub)) return st.fail(`${name} ${sub}: a subcommand the analysis does not read (an alias or a plugin may run anything)`)
  const rest = args.slice(i + 1)
  if (sub === 'config' && !rest.some((f) => /^(--get|--get-all|--get-regexp|--list|-l|--show-origin|--show-scope|--get-urlmatch|--get-color|--get-colorbool)$/.test(f.text) || f.text === 'get' || f.text === 'list')) return st.fail(`${name} config that sets a value`)
  if (sub === 'bisect' && rest[0] && rest[0].text === 'run') return st.fail(`${name} bisect run`)
  if (sub === 'submodule' && rest.some((f) => f.text === 'foreach')) return st.fail(`${name} submodule foreach`)
  if (sub === 'worktree' || sub === 'clone' || sub === 'init' || sub === 'format-patch' || sub === 'bundle') {
    return spec({ exec: GIT_SUB_EXEC[sub], qval: 'bmBoj', val: 'o', lval: ['--output-directory', '--separate-git-dir', '--reference', '--shared'] })(rest, st, name)
  }
  return spec({ ops: 'loose', exec: GIT_SUB_EXEC[sub], val: 'FO', lval: ['--file', '--output', '--template', '--pathspec-from-file', '--directory', '--orderfile'] })(rest, st, name)
})

// npm / pnpm / yarn: scripts of the workspace run; remote packages (exec, dlx, create) and
// global installs are undecidable.
const PM_REMOTE = new Set(['exec', 'x', 'dlx', 'create', 'link', 'ln', 'global', 'node', 'npx', 'dlx'])
const NPM_SUBS = new Set('test t tst run run-script rum urn start stop restart install i in ins inst insta instal isnt isnta isntal add ci clean-install install-test it install-ci-test uninstall remove rm r un update up upgrade ls list la ll outdated audit view v info show why explain prune dedupe ddp rebuild rb build pack version fund help root prefix bin pkg cache whoami ping search s se find doctor query sbom diff completion help-search repo docs home bugs owner access team'.split(' '))
function packageManager(args, st, name) {
  let i = 0
  const bad = (f) => /^(-g|--global|--location=global|--location)$/.test(f.text)
  if (args.some(bad)) return st.fail(`${name} --global changes the machine's packages`)
  for (; i < args.length && args[i].text.startsWith('-'); i++) {
    const t = args[i].text
    const m = t.match(/^(--prefix|-C|--dir|--cwd|--userconfig|--globalconfig|--cache)(?:=(.*))?$/)
    if (m) {
      const v = m[2] !== undefined ? piece(m[2]) : args[++i]
      if (v && (m[1] === '--prefix' || m[1] === '-C' || m[1] === '--dir' || m[1] === '--cwd') ? !st.cd(v) : v && !st.path(v)) return false
    }
  }
  const sub = args[i] && args[i].text
  if (sub === undefined) return name === 'npm' ? true : true // `yarn`, `pnpm`: install
  if (PM_REMOTE.has(sub)) return st.fail(`${name} ${sub} runs a package the workspace does not hold`)
  if (sub === 'init' && args.slice(i + 1).some((f) => !f.text.startsWith('-'))) return st.fail(`${name} init <initializer> runs a remote package`)
  if (sub === 'config' || sub === 'set') {
    if (!args.slice(i + 1).some((f) => ['get', 'list', 'ls'].includes(f.text))) return st.fail(`${name} config that sets a value`)
  }
  if (name === 'npm' && !NPM_SUBS.has(sub) && sub !== 'init' && sub !== 'config') return st.fail(`${name} ${sub}: a subcommand the analysis does not read`)
  // yarn/pnpm <name>: a script of package.json (or a binary of node_modules/.bin).
  return spec({ ops: 'loose' })(args.slice(i + 1), st, name)
}
def('npm pnpm yarn', packageManager)
def('npx pnpx bunx', (args, st, name) => {
  let i = 0
  let local = false
  for (; i < args.length && args[i].text.startsWith('-'); i++) {
    if (/^(--no-install|--no|--offline)$/.test(args[i].text)) local = true
    else if (/^(-p|--package|-c|--call)$/.test(args[i].text) || args[i].text.startsWith('--package=') || args[i].text.startsWith('--call=')) return st.fail(`${name} ${args[i].text}`)
  }
  if (!local) return st.fail(`${name} may download and run a package the workspace does not hold (use --no-install)`)
  for (const f of args.slice(i + 1)) st.loose(f)
  return true
})

// Build and test tools of the workspace: their operands are paths.
def('tsc eslint prettier jest vitest mocha ava tap c8 nyc ruff black mypy flake8 pylint isort pyright pytest gofmt goimports rustfmt shellcheck stylelint biome', spec({ glob: false, lqval: ['--reporter', '--format', '--color', '--plugin', '--parser', '--log-level', '--max-warnings', '--testNamePattern', '-t', '--grep', '--target', '--module', '--lib', '--jsx', '--select', '--ignore', '--extend-select', '--line-length', '--python-version', '--timeout'], exec: ['--eval'] }))

const CARGO_OK = new Set('build b check c test t bench run r doc d clean update fetch tree metadata fmt clippy new init add remove rm search package vendor generate-lockfile locate-project pkgid verify-project version help fix read-manifest'.split(' '))
def('cargo', (args, st, name) => {
  let i = 0
  if (args[0] && args[0].text.startsWith('+')) i++
  for (; i < args.length && args[i].text.startsWith('-'); i++) {
    const t = args[i].text
    if (/^(--config|-Z)/.test(t)) return st.fail(`${name} ${t}`)
    if (/^(-C|--manifest-path|--target-dir|--lockfile-path)$/.test(t)) {
      const v = args[++i]
      if (v && (t === '-C' ? !st.cd(v) : !st.path(v))) return false
    } else if (/^--(manifest-path|target-dir|lockfile-path)=/.test(t)) st.path(piece(t.slice(t.indexOf('=') + 1)))
    else if (/^(--color|-j|--jobs)$/.test(t)) i++
  }
  const sub = args[i] && args[i].text
  if (sub === undefined) return true
  if (!CARGO_OK.has(sub)) return st.fail(`${name} ${sub}: a subcommand the analysis does not read (a plugin may run anything)`)
  return spec({ glob: false, exec: ['--config', '-Z'], dirOpts: ['-C'], lval: ['--manifest-path', '--target-dir', '--lockfile-path', '--out-dir', '--artifact-dir', '--path', '--output-format', '--message-format-file'], lqval: ['--features', '-F', '--package', '-p', '--bin', '--example', '--test', '--bench', '--jobs', '-j', '--target', '--profile', '--message-format', '--exclude', '--color', '--edition', '--name', '--vcs', '--registry', '--index', '--depth', '--prefix', '--format', '--invert', '-i', '--edges', '-e'], qval: 'pFjei', ops: 'loose' })(args.slice(i + 1), st, name)
})

const GO_OK = new Set('build test run vet fmt mod get list doc clean env version generate work help fix bug'.split(' '))
def('go', (args, st, name) => {
  const sub = args[0] && args[0].text
  if (sub === undefined) return true
  if (!GO_OK.has(sub)) return st.fail(`${name} ${sub}: a subcommand the analysis does not read`)
  const rest = args.slice(1)
  if (sub === 'env' && rest.some((f) => /^-[wu]$/.test(f.text))) return st.fail(`${name} env -w changes the machine's settings`)
  if (rest.some((f) => /^-(ldflags|gcflags|asmflags|gccgoflags)/.test(f.text) && /extld|linkmode/.test(f.text))) return st.fail(`${name}: linker flags that run a program`)
  return spec({ glob: false, exec: ['-exec', '-toolexec', '--exec', '--toolexec'], dirOpts: ['-C'], ops: sub === 'run' ? 'loose' : 'path' })(rest.map((f) => (/^-[a-zA-Z]{2,}/.test(f.text) ? { ...f, text: '-' + f.text } : f)), st, name)
})

def('make gmake', (args, st, name) => {
  for (let i = 0; i < args.length; i++) {
    const f = args[i]
    const t = f.text
    if (/^(-E|--eval)/.test(t)) return st.fail(`${name} ${t}`)
    const m = t.match(/^(-C|-f|-I|-o|-W|--directory|--file|--makefile|--include-dir|--old-file|--assume-old|--what-if|--new-file|--assume-new)(?:=(.*))?$/) || t.match(/^(-[CfIoW])(.+)$/)
    if (m) {
      const v = m[2] !== undefined ? piece(m[2]) : args[++i]
      if (v && /^(-f|--file|--makefile)$/.test(m[1]) && (v.text === '-' || v.text === '/dev/stdin')) return st.fail(`${name}: a makefile read from its input`)
      if (v && (/^(-C|--directory)$/.test(m[1]) ? !st.cd(v) : !st.path(v))) return false
      continue
    }
    if (/^(-j|-l|--jobs|--load-average|-O|--output-sync|--debug)$/.test(t)) {
      if (args[i + 1] && /^\d+$/.test(args[i + 1].text)) i++
      continue
    }
    if (t.startsWith('-')) continue
    const a = t.match(/^[A-Za-z_][A-Za-z0-9_.-]*[:+?!]?=/)
    if (a) {
      if (/[\s;|&$`'"()<>\\]/.test(t.slice(a[0].length))) return st.fail(`${name} ${a[0]}: a value make may run`)
      st.loose(f)
      continue
    }
    st.loose(f)
  }
  return true
})

def('pip pip3', (args, st, name) => {
  const sub = args.find((f) => !f.text.startsWith('-'))
  if (!sub) return true
  const s = sub.text
  const rest = args.slice(args.indexOf(sub) + 1)
  if (['install', 'uninstall', 'download', 'wheel'].includes(s)) {
    const target = rest.some((f) => /^(-t|--target|--prefix|--root|-d|--dest|--destination-directory|-w|--wheel-dir)(=|$)/.test(f.text))
    if ((s === 'install' || s === 'uninstall') && !target) return st.fail(`${name} ${s} changes the Python environment (name a --target to keep it in the workspace)`)
    if (rest.some((f) => /^(--global-option|--build-option|--config-settings|-C)(=|$)/.test(f.text))) return st.fail(`${name} ${s}: build options`)
    return spec({ val: 'rcetdw', lval: ['--requirement', '--constraint', '--editable', '--target', '--prefix', '--root', '--dest', '--wheel-dir', '--src', '--log', '--cache-dir', '--find-links', '--report'], qval: 'i', ops: 'path' })(rest, st, name)
  }
  if (['list', 'show', 'freeze', 'check', 'cache', 'debug', 'hash', 'help', 'index', 'inspect', 'search', 'completion'].includes(s)) return spec({ ops: 'loose' })(rest, st, name)
  if (s === 'config' && rest.some((f) => ['get', 'list', 'debug'].includes(f.text))) return true
  return st.fail(`${name} ${s}: a subcommand the analysis does not read`)
})

/** The reader for `name`, or undefined. `python3.12` reads as python. */
function lookup(name) {
  if (table[name]) return table[name]
  if (/^python\d+(\.\d+)*$/.test(name) || /^pypy\d*(\.\d+)*$/.test(name)) return python
  if (/^pip\d+(\.\d+)*$/.test(name)) return table.pip
  return undefined
}

module.exports = { lookup, table }
