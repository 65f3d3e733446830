'use strict'
// How the guard's analyzer reads each program's arguments. A program is known by an entry
// here (or in `tools.js`): a spec for the generic reader, or a function. A program without
// an entry is undecidable — its arguments may be code, paths or anything else.
//
// The generic reader (`spec`): options first (until `--`), then operands. Operands are paths
// (`ops: 'path'`, the default: every operand is listed, bare names included, since a name in
// the workspace may be a symlink leading out) or text (`ops: 'loose'`: only their path-like
// pieces). A glued or `=` value is scanned for path-like pieces; the values of `val` (short
// letters) and `lval` (long names) options are paths, those of `qval`/`lqval` text. `exec`
// names options that run code or read a list of paths: the command is then undecidable.
// Long options match by prefix, as getopt_long accepts abbreviations. `glob: false` makes a
// glob where an option may stand undecidable (it may expand to a file named like an option).

const { loosePieces, GLOB } = require('./expand.js')

/** A field made from text the analysis cut out of another (a glued option value). */
function piece(text) {
  return { text, glob: GLOB.test(text), alts: [] }
}

/**
 * The generic reader for `spec`. Returns a handler `(args, st, name)`; `false` from a
 * handler means undecidable (already recorded).
 */
function spec(s = {}) {
  const ops = s.ops || 'path'
  return function generic(args, st, name) {
    let options = true
    let operand = 0
    let patternGiven = false
    for (let i = 0; i < args.length; i++) {
      const f = args[i]
      const t = f.text
      if (options && t === '--') {
        options = false
        continue
      }
      if (options && t.length > 1 && t[0] === '-' && !s.noOptions) {
        if (f.glob && s.glob === false) return st.fail(`${name}: a glob where an option may stand`)
        const r = option(s, f, args[i + 1], st, name)
        if (r === false) return false
        if (r.pattern) patternGiven = true
        if (r.dir && s.dirOpts) st.cd(r.dir)
        i += r.used
        continue
      }
      if (f.glob && options && s.glob === false) return st.fail(`${name}: a glob where an option may stand`)
      if (s.onOperand && s.onOperand(f, operand, st) === false) return false
      const mode = operand === 0 && s.pattern && !patternGiven ? 'loose' : operand === 0 && s.first ? s.first : ops
      if (mode === 'path') st.path(f)
      if (mode !== 'none') st.loose(f)
      operand++
    }
    return true
  }
}

/** True when option `name` (with dashes) is in `list`; long names also by prefix. */
function matches(list, name) {
  if (!list) return false
  return list.some((o) => o === name || (name.startsWith('--') && name.length > 2 && o.startsWith(name)))
}

// One option field. Returns false (undecidable), or `{ used, pattern, dir }`: `used` extra
// fields consumed (a separate value), `pattern` when it gives grep-like patterns, `dir` the
// field of a directory option.
function option(s, f, next, st, prog) {
  const t = f.text
  const res = { used: 0, pattern: false, dir: null }
  const value = (v, path) => {
    if (path) st.path(v)
    st.loose(v)
  }
  if (t.startsWith('--')) {
    const eq = t.indexOf('=')
    const name = eq < 0 ? t : t.slice(0, eq)
    if (matches(s.exec, name)) return st.fail(`${prog} ${name}`)
    if (matches(s.patternOpts, name)) res.pattern = true
    const isPath = matches(s.lval, name)
    const takes = isPath || matches(s.lqval, name)
    const v = eq >= 0 ? piece(t.slice(eq + 1)) : takes && next ? next : null
    if (eq < 0 && takes && next) res.used = 1
    if (v) {
      value(v, isPath)
      if (matches(s.dirOpts, name)) res.dir = v
    }
    return res
  }
  for (let j = 1; j < t.length; j++) {
    const o = '-' + t[j]
    if (matches(s.exec, o)) return st.fail(`${prog} ${o}`)
    if (matches(s.patternOpts, o)) res.pattern = true
    const isPath = s.val && s.val.includes(t[j])
    if (isPath || (s.qval && s.qval.includes(t[j]))) {
      const rest = t.slice(j + 1)
      const v = rest ? piece(rest) : next || null
      if (!rest && next) res.used = 1
      if (v) {
        value(v, isPath)
        if (matches(s.dirOpts, o)) res.dir = v
      }
      return res
    }
    if (!/[A-Za-z0-9]/.test(t[j])) break
  }
  // Unknown letters: whatever is glued may be a value.
  for (const p of loosePieces(t)) st.add(p)
  return res
}

/** A program that reads no file its arguments name (their path-like pieces are listed anyway). */
const TEXT = spec({ ops: 'loose' })
/** A program whose operands are files. */
const FILES = spec({ glob: true })

const table = Object.create(null)
const def = (names, handler) => {
  for (const n of names.split(' ')) table[n] = handler
}

def('echo true false : pwd sleep date whoami id uname hostname nproc seq yes basename dirname expr type which whereis help umask ulimit times kill wait jobs exit return break continue shift logname tty arch getconf locale printenv clear tput', TEXT)
def('cat tac nl wc ls dir vdir stat file du df touch rm rmdir mkdir cp mv install shred truncate cmp comm diff diff3 sdiff paste join fold fmt pr rev od xxd hexdump strings md5sum sha1sum sha224sum sha256sum sha384sum sha512sum b2sum cksum sum base32 base64 basenc iconv column expand unexpand csplit realpath readlink tee zcat gzip gunzip bzip2 bunzip2 bzcat xz unxz xzcat lzma zstd unzstd zstdcat lz4 less more most tree', FILES)
def('head tail', spec({ glob: true, qval: 'nc' }))
def('sort', spec({ glob: true, val: 'oT', qval: 'kStz', lval: ['--output', '--temporary-directory'], exec: ['--compress-program', '--files0-from'] }))
def('uniq', spec({ glob: true, qval: 'fsw' }))
def('cut', spec({ glob: true, qval: 'bcdf' }))
def('tr', spec({ ops: 'loose', glob: true }))
def('split', spec({ glob: true, qval: 'abdlnCt', exec: ['--filter'] }))
def('dd', (args, st) => {
  for (const f of args) {
    const m = f.text.match(/^(if|of)=(.*)$/)
    if (m) st.path(piece(m[2]))
    st.loose(f)
  }
  return true
})
def('chmod chown chgrp', spec({ glob: true, first: 'loose', lval: ['--reference'] }))
def('ln', ln)
def('grep egrep fgrep', spec({ glob: true, pattern: true, val: 'f', qval: 'eABCmd', patternOpts: ['-e', '-f', '--regexp', '--file'], lval: ['--file', '--exclude-from'], lqval: ['--regexp', '--include', '--exclude', '--exclude-dir', '--label', '--color', '--colour', '--binary-files', '--devices', '--directories', '--context', '--after-context', '--before-context', '--max-count'] }))
def('rg', spec({ pattern: true, val: 'f', qval: 'eABCgjmMtTE', patternOpts: ['-e', '-f', '--regexp', '--file'], lval: ['--file', '--ignore-file'], exec: ['--pre', '--files-from', '--search-zip', '-z'], lqval: ['--regexp', '--glob', '--iglob', '--type', '--type-not', '--max-count', '--context', '--after-context', '--before-context', '--max-filesize', '--encoding', '--engine', '--color', '--colors', '--sort', '--sortr', '--threads', '--max-depth', '--replace', '--path-separator'] }))
def('fd fdfind', spec({ pattern: true, exec: ['-x', '-X', '--exec', '--exec-batch', '--search-path'], qval: 'edtEScj', lqval: ['--extension', '--type', '--exclude', '--size', '--changed-within', '--changed-before', '--max-depth', '--min-depth', '--exact-depth', '--owner', '--format', '--color', '--threads'], lval: ['--base-directory', '--ignore-file'] }))
def('curl', spec({ exec: ['-K', '--config', '--engine'], val: 'oTDcbE', qval: 'uHdFAexXwmYyzr', lval: ['--output', '--upload-file', '--dump-header', '--cookie-jar', '--cookie', '--cert', '--key', '--cacert', '--capath', '--output-dir', '--netrc-file', '--trace', '--trace-ascii', '--stderr', '--libcurl', '--etag-save', '--etag-compare', '--hsts', '--alt-svc', '--proxy-cacert', '--proxy-cert', '--proxy-key', '--crlfile', '--pinnedpubkey', '--unix-socket', '--abstract-unix-socket', '--time-cond'] }))
def('wget', spec({ exec: ['--use-askpass', '--execute', '-e'], val: 'OoaPi', lval: ['--output-document', '--output-file', '--append-output', '--directory-prefix', '--input-file', '--post-file', '--body-file', '--load-cookies', '--save-cookies', '--ca-certificate', '--ca-directory', '--certificate', '--private-key', '--config', '--warc-file', '--rejected-log', '--hsts-file'], qval: 'tTlwUQ' }))
def('zip', spec({ exec: ['-T', '-TT', '--unzip-command', '--test', '-@', '--names-stdin'], qval: 'bnPtxi' }))
def('unzip', spec({ exec: ['-:'], val: 'd', qval: 'xP' }))
def('tar gtar bsdtar', tar)
def('patch', spec({ val: 'dioBrY', qval: 'pFDzV', dirOpts: ['-d', '--directory'], lval: ['--directory', '--input', '--output', '--reject-file', '--prefix', '--basename-prefix'] }))
def('jq', jq)
def('test [', (args, st) => {
  const fields = args.length && args[args.length - 1].text === ']' ? args.slice(0, -1) : args
  return require('./walk.js').testOperands(fields, st, false)
})

// Builtins that change the shell itself.
def('cd pushd', (args, st) => {
  const ops = args.filter((f, i) => !(f.text.startsWith('-') && f.text.length > 1 && !args.slice(0, i).some((g) => g.text === '--')) && f.text !== '--')
  if (ops.some((f) => f.text === '-' || /^[+-]\d+$/.test(f.text))) return st.fail('a change to a previous directory (cd -, pushd ±N)')
  return st.cd(ops.length ? ops[0] : null)
})
def('popd dirs', (args, st) => (st.loop > 0 ? st.fail('a change of directory inside a loop') : true))
def('export declare typeset local readonly', declare)
def('unset', (args, st) => {
  for (const f of args) {
    if (/[[$`]/.test(f.text)) return st.fail('unset of a subscript')
    if (!f.text.startsWith('-')) st.assign(f.text, null)
  }
  return true
})
def('read mapfile readarray getopts', (args, st) => {
  for (const f of args) {
    if (/[[$`]/.test(f.text)) return st.fail('a read into a subscript')
    if (/^[A-Za-z_]\w*$/.test(f.text)) st.assign(f.text, null)
  }
  return true
})
def('printf', (args, st) => {
  for (let i = 0; i < args.length; i++) {
    if (args[i].text === '-v') {
      const v = args[i + 1]
      if (!v || /[[$`]/.test(v.text)) return st.fail('printf -v into a subscript')
      st.assign(v.text, null)
      i++
    } else st.loose(args[i])
  }
  return true
})
def('set', (args, st) => {
  for (let i = 0; i < args.length; i++) {
    const t = args[i].text
    if (t === '--' || t === '-' || !/^[-+]/.test(t)) {
      st.positional = true
      return true
    }
    if (/^[-+]o$/.test(t)) i++
  }
  return true
})
def('let', (args, st) => (args.some((f) => /[[$`]/.test(f.text)) || (st.assigned && args.some((f) => /[A-Za-z_]/.test(f.text))) ? st.fail('let with names the analysis cannot evaluate') : true))
// Wrappers: the command they run is analyzed in their place.
def('nohup', (args, st) => run(args, st))
def('builtin', (args, st) => run(args, st))
def('command', (args, st) => {
  let i = 0
  for (; i < args.length && args[i].text.startsWith('-'); i++) {
    if (/[vV]/.test(args[i].text)) return true // a lookup, nothing runs
  }
  return run(args.slice(i), st)
})
def('time', (args, st) => {
  let i = 0
  for (; i < args.length && args[i].text.startsWith('-'); i++) {
    if (/^-(o|-output)/.test(args[i].text)) return st.fail('time -o')
    if (args[i].text === '-f' || args[i].text === '--format') i++
  }
  return run(args.slice(i), st)
})
def('timeout', (args, st) => {
  let i = 0
  for (; i < args.length && args[i].text.startsWith('-'); i++) {
    if (/^(-s|-k|--signal|--kill-after)$/.test(args[i].text)) i++
  }
  return run(args.slice(i + 1), st) // the duration, then the command
})
def('nice', (args, st) => {
  let i = 0
  for (; i < args.length && args[i].text.startsWith('-'); i++) {
    if (/^(-n|--adjustment)$/.test(args[i].text)) i++
  }
  return run(args.slice(i), st)
})
def('stdbuf', (args, st) => {
  let i = 0
  for (; i < args.length && args[i].text.startsWith('-'); i++) {
    if (/^-[ioe]$/.test(args[i].text)) i++
  }
  return run(args.slice(i), st)
})

function declare(args, st) {
  for (const f of args) {
    const t = f.text
    if (/^[-+]/.test(t) && !t.includes('=')) {
      if (/[^-+xrgpfFlut]/.test(t)) return st.fail(`a declaration with ${t}`)
      continue
    }
    const m = t.match(/^([A-Za-z_][A-Za-z0-9_]*)(\+?=)?/)
    if (!m || /[[`]/.test(t)) return st.fail(`a declaration of ${t}`)
    if (m[2]) {
      const v = { text: t.slice(m[0].length), glob: false, alts: [] }
      if (/[\s;|&$`'"()<>\\]/.test(v.text)) return st.fail(`${m[1]} exported with a command-like value`)
      st.assign(m[1], v)
      st.loose(v)
    } else if (m[1] === 'HOME' || m[1] === 'PATH') {
      // Exporting what is already there changes nothing.
    }
  }
  return true
}

// `ln`: the targets are listed as given and, for a symbolic link, as the link will resolve
// them — relative to the link's directory, not to the working directory.
function ln(args, st) {
  let symbolic = false
  let targetDir = null
  const ops = []
  let options = true
  for (let i = 0; i < args.length; i++) {
    const t = args[i].text
    if (options && t === '--') options = false
    else if (options && t.startsWith('--')) {
      if (t === '--symbolic') symbolic = true
      const m = t.match(/^--target-directory=(.*)$/)
      if (m) targetDir = m[1]
      else if (t === '--target-directory') targetDir = args[++i]?.text ?? null
    } else if (options && t.length > 1 && t[0] === '-') {
      if (t.includes('s')) symbolic = true
      const k = t.indexOf('t')
      if (k > 0) targetDir = t.slice(k + 1) || args[++i]?.text || null
    } else ops.push(args[i])
  }
  for (const f of ops) st.path(f)
  if (targetDir !== null) st.add(targetDir)
  if (symbolic) {
    const targets = targetDir !== null ? ops : ops.slice(0, -1)
    const dirs = targetDir !== null ? [targetDir] : ops.length > 1 ? [ops[ops.length - 1].text, dirname(ops[ops.length - 1].text)] : []
    for (const f of targets) {
      if (f.text.startsWith('/') || f.text.startsWith('~')) continue
      for (const d of dirs) st.add(d === '.' ? f.text : `${d.replace(/\/+$/, '')}/${f.text}`)
    }
  }
  return true
}

function dirname(p) {
  const s = p.replace(/\/+$/, '')
  const i = s.lastIndexOf('/')
  return i < 0 ? '.' : i === 0 ? '/' : s.slice(0, i)
}

const TAR_EXEC = ['-I', '--use-compress-program', '--to-command', '--checkpoint-action', '-F', '--info-script', '--new-volume-script', '--rsh-command', '--rmt-command', '-P', '--absolute-names', '-T', '--files-from', '--index-file', '--transform', '--xform', '--ignore-command-error']
const tarSpec = spec({ exec: TAR_EXEC, val: 'fCXgK', qval: 'bNLH', dirOpts: ['-C', '--directory'], lval: ['--file', '--directory', '--exclude-from', '--listed-incremental'], lqval: ['--exclude', '--format', '--owner', '--group', '--mode', '--mtime', '--newer', '--after-date', '--blocking-factor', '--strip-components', '--checkpoint', '--sort', '--label', '--tape-length'] })
function tar(args, st, name) {
  // Old style: `tar xzf a.tgz` — a first argument of letters is a bundle of options.
  if (args.length && /^[A-Za-z]+$/.test(args[0].text)) {
    if (/[IFPTCK]/.test(args[0].text)) return st.fail(`${name} ${args[0].text}`)
    return tarSpec([{ ...args[0], text: '-' + args[0].text }, ...args.slice(1)], st, name)
  }
  return tarSpec(args, st, name)
}

// jq: the filter is code, but only `import`/`include` reach files (modules and data).
const jqSpec = spec({ first: 'none', val: 'fL', lval: ['--from-file', '--rawfile', '--slurpfile'], lqval: ['--arg', '--argjson', '--indent', '--tab'] })
function jq(args, st, name) {
  if (args.some((f) => /\b(import|include|getpath\s*\(\s*\[\s*"\$__loc__)\b/.test(f.text))) return st.fail('jq import/include')
  return jqSpec(args, st, name)
}

/** Runs the command made of `fields` (a wrapper's command, or the simple command's own). */
function run(fields, st) {
  if (!fields.length) return true
  const prog = fields[0]
  if (prog.glob || prog.alts.length) return st.fail(`a program name that expands (${prog.text})`)
  const name = prog.text
  const tools = require('./tools.js')
  if (name.includes('/')) {
    st.path(prog)
    // A workspace program or script: the workspace's own code. A system program by its path
    // is read as that program.
    const base = name.slice(name.lastIndexOf('/') + 1)
    if ((name.startsWith('/') || name.startsWith('~')) && lookup(base, tools)) return lookup(base, tools)(fields.slice(1), st, base)
    if (name.startsWith('/') || name.startsWith('~')) return st.fail(`${name}: not a program the analysis knows`)
    for (const f of fields.slice(1)) st.loose(f)
    return true
  }
  const handler = lookup(name, tools)
  if (!handler) return st.fail(`${name}: not a command the analysis knows`)
  return handler(fields.slice(1), st, name)
}

function lookup(name, tools) {
  return table[name] || tools.lookup(name)
}

module.exports = { spec, run, table, TEXT, FILES, piece }
