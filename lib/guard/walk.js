'use strict'
// The guard analyzer's walk over a lexed command: reserved words and compound commands,
// simple commands (assignments, redirections, the program and its arguments), the working
// directory each command may run in, and the values `$HOME` may have. Each program's
// arguments are read by its entry in `programs.js`; a program it has no entry for is
// undecidable.
//
// Soundness, not flow: the directories a command may run in are the union of the start
// directory and every `cd`/`pushd` target seen so far (a `cd` may fail, run in a subshell, a
// pipeline or a branch), each relative path is listed against every one of them, and a `cd`
// inside a loop is undecidable. The result over-approximates what any run can touch.

const { expand, globDir, climbs, loosePieces, arithSafe } = require('./expand.js')

const MAX_DIRS = 16
// Devices that hold no data of anyone's (`2>/dev/null`): not listed. `/dev/tcp/…` and every
// other device are.
const DEVICES = /^\/dev\/(null|zero|random|urandom|tty|stdin|stdout|stderr|fd\/[012])$/
const KEYWORDS = new Set(['if', 'then', 'else', 'elif', 'fi', 'do', 'done', 'while', 'until', 'for', 'select', 'case', 'esac', '{', '}', '!', '[[', 'function', 'time', 'coproc'])
const ASSIGN = /^([A-Za-z_][A-Za-z0-9_]*)(\+?)=/
// Variables whose value changes what commands touch or run: assigned, they are followed
// (`HOME`: `cd`, `~`) or listed (`PATH`: which program runs), or the analysis gives up — the
// shell's own (CDPATH, BASH_ENV, PS4…) and those through which programs take options, hooks,
// commands or configuration (TAR_OPTIONS=--to-command=…, GIT_CONFIG_*, PAGER, LD_PRELOAD…).
const UNFOLLOWED = new Set('CDPATH BASH_ENV ENV PS4 PROMPT_COMMAND SHELLOPTS BASHOPTS OLDPWD PWD GLOBIGNORE LD_PRELOAD LD_LIBRARY_PATH LD_AUDIT PAGER MANPAGER EDITOR VISUAL SHELL BROWSER TAR_OPTIONS GREP_OPTIONS NODE_OPTIONS NODE_PATH PERL5OPT PERL5LIB PERLLIB RUBYOPT RUBYLIB MAKEFLAGS MFLAGS GNUMAKEFLAGS GOFLAGS RUSTFLAGS RUSTDOCFLAGS RUSTC RUSTC_WRAPPER RUSTDOC CC CXX CPP LD AR TMPDIR LESSOPEN LESSCLOSE LESS LESSKEY SSH_ASKPASS SUDO_ASKPASS FCEDIT ZDOTDIR INPUTRC CURL_HOME WGETRC JAVA_TOOL_OPTIONS _JAVA_OPTIONS JDK_JAVA_OPTIONS MAVEN_OPTS GRADLE_OPTS CLASSPATH XDG_CONFIG_HOME XDG_DATA_HOME XDG_CONFIG_DIRS PYTHONSTARTUP PYTHONPATH PYTHONHOME PYTHONINSPECT PYTHONUSERBASE'.split(' '))
const UNFOLLOWED_PREFIX = /^(GIT_|npm_config_|NPM_CONFIG_|YARN_|PNPM_|CARGO_|PIP_|BUNDLE_|GEM_|DOCKER_|DYLD_|LD_|BASH_FUNC_)/i

/** The analysis state of one command string. */
class State {
  constructor() {
    this.dirs = ['.']
    this.home = ['~']
    this.homeUnknown = false
    this.positional = false
    this.assigned = false
    this.loop = 0
    this.paths = []
    this.seen = new Set()
    this.problems = []
    this.at = null
    this.programs = null
  }

  /** Records why the command is undecidable, at the command being read. */
  fail(reason) {
    this.problems.push({ reason, at: this.at })
    return false
  }

  push(p) {
    if (p === '' || this.seen.has(p)) return
    this.seen.add(p)
    this.paths.push(p)
  }

  /** Lists a raw path: against every directory the command may run in, `~` as `$HOME` may be. */
  add(p) {
    if (p === '' || DEVICES.test(p)) return
    if (p === '~' || p.startsWith('~/')) {
      if (this.homeUnknown) return this.fail('$HOME was changed to a value the analysis cannot follow')
      for (const h of this.home) {
        const q = h === '~' ? p : h + p.slice(1)
        if (q.startsWith('/') || q.startsWith('~')) this.push(q)
        else for (const d of this.dirs) this.push(join(d, q))
      }
      return
    }
    if (p.startsWith('/')) return this.push(p)
    for (const d of this.dirs) this.push(join(d, p))
  }

  /** Lists a field the program treats as a path (a glob: its literal directory). */
  path(f) {
    for (const t of [f.text, ...f.alts]) {
      if (f.glob) {
        if (climbs(t)) return this.fail(`a glob that climbs (${t})`)
        this.add(globDir(t))
      } else this.add(t)
    }
    return true
  }

  /** Lists the path-like pieces of a field whose meaning is not known exactly. */
  loose(f) {
    for (const t of [f.text, ...f.alts]) {
      for (const p of loosePieces(t)) {
        if (f.glob || /[*?[]/.test(p)) {
          if (climbs(p)) return this.fail(`a glob that climbs (${p})`)
          this.add(globDir(p))
        } else this.add(p)
      }
    }
    return true
  }

  /** A directory the following commands may run in (`cd`, `pushd`, `git -C`…); null: $HOME. */
  cd(f) {
    if (this.loop > 0) return this.fail('a change of directory inside a loop')
    const targets = []
    if (f === null) {
      if (this.homeUnknown) return this.fail('$HOME was changed to a value the analysis cannot follow')
      targets.push(...this.home)
    } else {
      if (f.glob) return this.fail(`a change of directory to a glob (${f.text})`)
      targets.push(f.text, ...f.alts)
    }
    const next = new Set(this.dirs)
    for (const t of targets) {
      this.add(t)
      for (const d of this.dirs) {
        if (t.startsWith('/') || t === '~' || t.startsWith('~/')) next.add(t)
        else next.add(join(d, t))
      }
    }
    if (next.size > MAX_DIRS) return this.fail(`more than ${MAX_DIRS} possible working directories`)
    this.dirs = [...next]
    return true
  }

  /** Records an assignment to `name` (whatever the command): `HOME` is followed, `PATH` listed. */
  assign(name, field) {
    this.assigned = true
    if (name === 'HOME') {
      if (field && !field.glob) this.home.push(field.text, ...field.alts)
      else this.homeUnknown = true
      return true
    }
    if (name === 'PATH') return field ? this.loose({ ...field, text: field.text.split(':').map((d) => (d === '' ? '.' : d)).join(':') }) : this.fail('PATH set to an unknown value')
    if (UNFOLLOWED.has(name) || UNFOLLOWED_PREFIX.test(name)) return this.fail(`an assignment to ${name}`)
    return true
  }
}

function join(dir, p) {
  if (dir === '.') return p
  return dir.endsWith('/') ? dir + p : `${dir}/${p}`
}

/** Whether `tok` is the unquoted reserved word `w`. */
function isWord(tok, w) {
  return tok && tok.k === 'w' && tok.parts.length === 1 && tok.parts[0].t === 'lit' && !tok.parts[0].q && tok.parts[0].v === w
}

function keyword(tok) {
  return tok && tok.k === 'w' && tok.parts.length === 1 && tok.parts[0].t === 'lit' && !tok.parts[0].q && KEYWORDS.has(tok.parts[0].v) ? tok.parts[0].v : null
}

/** Walks the tokens of a command string, filling `st`. */
function walk(tokens, src, st) {
  const stack = []
  let start = true
  let i = 0
  const at = (tok) => {
    st.at = [tok.start, tok.end]
  }
  while (i < tokens.length) {
    const tok = tokens[i]
    at(tok)
    if (tok.k === 'op') {
      if (tok.v === '(') {
        const next = tokens[i + 1]
        if (!start) st.fail('a parenthesis where a command cannot open')
        else if (next && next.k === 'op' && next.v === '(' && next.start === tok.end) {
          // `(( … ))`: an arithmetic command.
          const end = src.indexOf('))', next.end)
          if (end < 0) st.fail('an unterminated ((')
          else if (!arithSafe(src.slice(next.end, end)) && !(st.assigned === false && /^[\s\w+\-*/%<>=!&|^~?:(),]*$/.test(src.slice(next.end, end)))) st.fail('an arithmetic command the analysis cannot evaluate')
          const stop = end < 0 ? src.length : end + 2
          while (i < tokens.length && tokens[i].start < stop) i++
          start = false
          continue
        }
        stack.push('(')
      } else if (tok.v === ')') {
        if (stack[stack.length - 1] === '(') stack.pop()
        else st.fail('an unbalanced parenthesis')
        start = false
        i++
        continue
      } else if (tok.v === ';;' || tok.v === ';&' || tok.v === ';;&') {
        if (stack[stack.length - 1] !== 'case') st.fail(`${tok.v} outside a case`)
        else {
          i = casePatterns(tokens, i + 1, st)
          start = true
          continue
        }
      }
      start = true
      i++
      continue
    }
    const kw = start ? keyword(tok) : null
    if (kw) {
      i = reserved(kw, tokens, i, src, st, stack)
      start = !['fi', 'done', 'esac', '}', ']]'].includes(kw) && kw !== '[['
      continue
    }
    // A simple command: words and redirections up to the next operator.
    const words = []
    const redirs = []
    while (i < tokens.length && tokens[i].k !== 'op') {
      ;(tokens[i].k === 'r' ? redirs : words).push(tokens[i])
      i++
    }
    const last = words[words.length - 1] || redirs[redirs.length - 1] || tok
    st.at = [tok.start, last.end]
    const next = tokens[i]
    if (next && next.k === 'op' && next.v === '(' && words.length >= 1) {
      const w = words[words.length - 1]
      const raw = src.slice(w.start, w.end)
      if (raw.endsWith('=') && next.start === w.end) st.fail('an array assignment')
      else st.fail(`a function definition (${raw})`)
      // Skip to the end of the definition's parenthesis pair; the body follows as commands.
      i += 1
      if (tokens[i] && tokens[i].k === 'op' && tokens[i].v === ')') i++
      start = true
      continue
    }
    simple(words, redirs, st)
    start = false
  }
  if (stack.length) st.fail(`an unclosed ${stack[stack.length - 1]}`)
}

// The reserved word `kw` at tokens[i]; returns the index after what it consumed.
function reserved(kw, tokens, i, src, st, stack) {
  switch (kw) {
    case 'while':
    case 'until':
      stack.push('loop')
      st.loop++
      return i + 1
    case 'for':
    case 'select': {
      const name = tokens[i + 1]
      if (!name || name.k !== 'w') {
        st.fail(`${kw} without a name (an arithmetic for loop)`)
        return i + 1
      }
      st.assign(src.slice(name.start, name.end), null)
      let j = i + 2
      while (tokens[j] && tokens[j].k === 'op' && tokens[j].v === '\n') j++
      if (isWord(tokens[j], 'in')) {
        j++
        while (tokens[j] && tokens[j].k === 'w') {
          const e = expand(tokens[j], st)
          if (e.problem) st.fail(e.problem)
          j++
        }
      }
      stack.push('loop')
      st.loop++
      return j
    }
    case 'done':
      if (stack.pop() !== 'loop') st.fail('done without a loop')
      else st.loop--
      return i + 1
    case 'if':
      stack.push('if')
      return i + 1
    case 'fi':
      if (stack.pop() !== 'if') st.fail('fi without if')
      return i + 1
    case '{':
      stack.push('{')
      return i + 1
    case '}':
      if (stack.pop() !== '{') st.fail('} without {')
      return i + 1
    case 'case': {
      const subject = tokens[i + 1]
      if (subject && subject.k === 'w') {
        const e = expand(subject, st)
        if (e.problem) st.fail(e.problem)
      }
      let j = i + 2
      while (tokens[j] && tokens[j].k === 'op' && tokens[j].v === '\n') j++
      if (!isWord(tokens[j], 'in')) {
        st.fail('case without in')
        return j
      }
      stack.push('case')
      return casePatterns(tokens, j + 1, st)
    }
    case 'esac':
      if (stack.pop() !== 'case') st.fail('esac without case')
      return i + 1
    case '[[':
      return testCommand(tokens, i + 1, st)
    case 'time': {
      let j = i + 1
      while (tokens[j] && tokens[j].k === 'w' && /^-/.test(src.slice(tokens[j].start, tokens[j].end))) j++
      return j
    }
    case 'function':
    case 'coproc':
      st.fail(kw === 'function' ? 'a function definition' : 'a coprocess')
      return i + 1
    default:
      // then, else, elif, do, !: the next command follows.
      return i + 1
  }
}

// After `in` or `;;`: the patterns of the next case item up to its `)`, or `esac`.
function casePatterns(tokens, j, st) {
  while (tokens[j] && tokens[j].k === 'op' && tokens[j].v === '\n') j++
  if (isWord(tokens[j], 'esac')) return j
  if (tokens[j] && tokens[j].k === 'op' && tokens[j].v === '(') j++
  while (tokens[j] && !(tokens[j].k === 'op' && tokens[j].v === ')')) {
    if (tokens[j].k === 'w') {
      const e = expand(tokens[j], st)
      if (e.problem) st.fail(e.problem)
    } else if (!(tokens[j].k === 'op' && tokens[j].v === '|')) st.fail('a case pattern the analysis cannot read')
    j++
  }
  return j + 1
}

// `[[ … ]]`: operands after a file test are paths; an arithmetic comparison with anything
// but numbers is beyond the analysis (bash evaluates its operands, subscripts included).
const FILE_TESTS = new Set(['-a', '-b', '-c', '-d', '-e', '-f', '-g', '-h', '-k', '-p', '-r', '-s', '-u', '-w', '-x', '-G', '-L', '-N', '-O', '-S', '-nt', '-ot', '-ef'])
const ARITH_TESTS = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge'])
function testCommand(tokens, j, st) {
  const operands = []
  while (j < tokens.length && !isWord(tokens[j], ']]')) {
    const t = tokens[j]
    if (t.k === 'w') operands.push(t)
    else if (t.k === 'r' && t.target) operands.push(t.target) // `<`, `>`: string comparisons
    j++
  }
  if (j >= tokens.length) st.fail('an unterminated [[')
  const fields = []
  for (const w of operands) {
    const e = expand(w, st, true)
    if (e.problem) return st.fail(e.problem), j + 1
    fields.push(...e.fields.map((f) => ({ ...f, glob: false })))
  }
  testOperands(fields, st, true)
  return j + 1
}

/** The operands of `test`, `[` or `[[`. */
function testOperands(fields, st, double) {
  for (let k = 0; k < fields.length; k++) {
    const t = fields[k].text
    if (t === '-v' && fields[k + 1] && /[[$`]/.test(fields[k + 1].text)) return st.fail('a -v test on a subscript')
    if (double && ARITH_TESTS.has(t)) {
      for (const o of [fields[k - 1], fields[k + 1]]) {
        if (o && !/^-?\d+$/.test(o.text) && (st.assigned || /[[$`]/.test(o.text))) return st.fail('an arithmetic comparison the analysis cannot evaluate')
      }
    }
    if (FILE_TESTS.has(t)) {
      if (fields[k + 1]) st.path(fields[k + 1])
      if (['-nt', '-ot', '-ef'].includes(t) && fields[k - 1]) st.path(fields[k - 1])
    } else st.loose(fields[k])
  }
  return true
}

const CODE_LIKE = /[\s;|&$`'"()<>\\]/

// One simple command: redirections, assignments, then the program.
function simple(words, redirs, st) {
  for (const r of redirs) redirection(r, st)
  let k = 0
  const prefix = []
  for (; k < words.length; k++) {
    const w = words[k]
    const first = w.parts[0]
    const m = first && first.t === 'lit' && !first.q ? first.v.match(ASSIGN) : null
    if (!m) break
    const value = { ...w, parts: [{ ...first, v: first.v.slice(m[0].length) }, ...w.parts.slice(1)] }
    const e = expand(value, st, true)
    if (e.problem) return st.fail(e.problem)
    prefix.push({ name: m[1], field: e.fields[0] || { text: '', glob: false, alts: [] } })
  }
  const fields = []
  let problem = null
  for (const w of words.slice(k)) {
    const e = expand(w, st)
    if (e.problem) {
      problem = problem || e.problem
      continue
    }
    if (e.braceDir !== undefined) st.add(e.braceDir)
    fields.push(...e.fields)
  }
  if (problem) {
    // Undecidable; what the other words name is still listed (never what a substitution holds).
    for (const f of fields) st.loose(f)
    return st.fail(problem)
  }
  for (const a of prefix) {
    // A command's environment: a value that reads like a command line may be run by the
    // program (PAGER, GIT_SSH_COMMAND, TAR_OPTIONS…).
    if (fields.length && CODE_LIKE.test(a.field.text)) return st.fail(`${a.name}= set to a command-like value for ${fields[0].text}`)
    st.assign(a.name, a.field)
    st.loose(a.field)
  }
  if (fields.length) st.programs.run(fields, st)
}

function redirection(r, st) {
  if (!r.target) return st.fail(`a redirection without a target (${r.v})`)
  if (r.fd && r.fd.startsWith('{')) st.assign(r.fd.slice(1, -1), { text: '0', glob: false, alts: [] })
  if (r.v === '<<' || r.v === '<<-') {
    const h = r.heredoc
    if (h && !h.quoted && /\$\(|`|\$\{|\$\[/.test(h.body)) return st.fail('a here-document with substitutions')
    return true
  }
  const e = expand(r.target, st)
  if (e.problem) return st.fail(e.problem)
  if (r.v === '<<<') return true
  for (const f of e.fields) {
    if ((r.v === '>&' || r.v === '<&') && /^(\d+-?|-)$/.test(f.text)) continue
    st.path(f)
  }
  return true
}

module.exports = { walk, State, testOperands, join }
