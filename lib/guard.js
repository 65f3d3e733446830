'use strict'
// The guard helpers of the original 0.3+ (LATER §2.4): a heuristic shell analyzer, the path
// facts a guard sees per tool, and three fail-closed policy helpers. Pure JavaScript: a host's
// guard runs in JS, so its context is built there without a crossing per fact (the
// realpath-based confinement check is the one native call, through `pathFact`).

const WRAPPERS = new Set(['timeout', 'time', 'nice', 'nohup', 'stdbuf'])
const UNDECIDABLE_WORDS = /(?:^|[^\w-])(eval|exec|source|env|xargs|base64)(?![\w-])/
const GLOB_CHARS = /[*?[\]{}]/
const NOT_PATH_CHARS = /[$,*?[\](){}|<>!;=&`]/
const NAME_EXT = /^[\w][\w.+-]*\.[A-Za-z][A-Za-z0-9]*$/
const REDIRECT = /^(?:\d*>>?|\d*<|&>>?|>&|\d*>&)/

/**
 * Splits a command into segments on `&&`, `||`, `;`, `|`, newlines and a bare `&`, never
 * inside quotes, backticks or parentheses. Returns `{ segments, balanced }`.
 */
function split(command) {
  const segments = []
  let cur = ''
  let quote = null
  let depth = 0
  let balanced = true
  for (let i = 0; i < command.length; i++) {
    const c = command[i]
    if (quote) {
      cur += c
      if (c === '\\' && quote === '"' && i + 1 < command.length) cur += command[++i]
      else if (c === quote) quote = null
      continue
    }
    if (c === '\\' && i + 1 < command.length) {
      cur += c + command[++i]
      continue
    }
    if (c === "'" || c === '"' || c === '`') {
      quote = c
      cur += c
      continue
    }
    if (c === '(') depth++
    if (c === ')') {
      if (depth === 0) balanced = false
      else depth--
    }
    if (depth === 0) {
      const two = command.slice(i, i + 2)
      if (two === '&&' || two === '||') {
        segments.push(cur)
        cur = ''
        i++
        continue
      }
      if (c === ';' || c === '\n' || c === '|') {
        segments.push(cur)
        cur = ''
        continue
      }
      // A bare `&` (not `&>`, `>&`, `2>&1`).
      if (c === '&' && command[i + 1] !== '>' && command[i - 1] !== '>') {
        segments.push(cur)
        cur = ''
        continue
      }
    }
    cur += c
  }
  if (quote || depth !== 0) balanced = false
  segments.push(cur)
  return { segments: segments.map((s) => s.trim()).filter((s) => s.length > 0), balanced }
}

/**
 * Tokens of one segment with quotes removed, skipping the contents of `$(..)`, `<(..)`,
 * `>(..)` and backticks (what a substitution names is never reported). Parentheses of a
 * subshell separate tokens.
 */
function tokenize(segment) {
  const tokens = []
  let cur = ''
  let has = false
  const push = () => {
    if (has) tokens.push(cur)
    cur = ''
    has = false
  }
  for (let i = 0; i < segment.length; i++) {
    const c = segment[i]
    const two = segment.slice(i, i + 2)
    if (two === '$(' || two === '<(' || two === '>(') {
      let depth = 1
      i += 2
      while (i < segment.length && depth > 0) {
        if (segment[i] === '(') depth++
        else if (segment[i] === ')') depth--
        i++
      }
      i--
      has = true
      continue
    }
    if (c === '`') {
      const end = segment.indexOf('`', i + 1)
      i = end < 0 ? segment.length : end
      has = true
      continue
    }
    if (c === "'") {
      const end = segment.indexOf("'", i + 1)
      cur += segment.slice(i + 1, end < 0 ? segment.length : end)
      i = end < 0 ? segment.length : end
      has = true
      continue
    }
    if (c === '"') {
      let j = i + 1
      while (j < segment.length && segment[j] !== '"') {
        if (segment[j] === '\\' && j + 1 < segment.length) j++
        cur += segment[j]
        j++
      }
      i = j
      has = true
      continue
    }
    if (c === '\\' && i + 1 < segment.length) {
      cur += segment[++i]
      has = true
      continue
    }
    if (/\s/.test(c) || c === '(' || c === ')') {
      push()
      continue
    }
    cur += c
    has = true
  }
  push()
  return tokens
}

/** argv without leading `VAR=val` assignments and the wrappers timeout/time/nice/nohup/stdbuf. */
function unwrap(tokens) {
  let t = tokens.slice()
  for (;;) {
    const before = t.length
    while (t.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(t[0])) t.shift()
    if (t.length && WRAPPERS.has(t[0])) {
      const w = t.shift()
      while (t.length && t[0].startsWith('-')) t.shift()
      if (w === 'timeout' && t.length && /^\d+(\.\d+)?[smhd]?$/.test(t[0])) t.shift()
    }
    if (t.length === before) return t
  }
}

/** Whether a segment (single-quoted text removed) is beyond the analyzer. */
function undecidableText(segment) {
  const s = segment.replace(/'[^']*'/g, "''")
  return (
    s.includes('$(') ||
    s.includes('`') ||
    /\$[A-Za-z_{]/.test(s) ||
    UNDECIDABLE_WORDS.test(s) ||
    /\b(?:sh|bash)\s+-c\b/.test(s) ||
    s.includes('<(') ||
    s.includes('>(')
  )
}

/** The literal directory before a glob's first wildcard: `.` when none, `/` for the root. */
function globDir(token) {
  const prefix = token.slice(0, token.search(GLOB_CHARS))
  const slash = prefix.lastIndexOf('/')
  if (slash < 0) return '.'
  if (slash === 0) return '/'
  return prefix.slice(0, slash)
}

/** The path a token names, or null. */
function pathOf(token) {
  let t = token
  const redirect = t.match(REDIRECT)
  if (redirect) {
    t = t.slice(redirect[0].length)
    if (t === '') return null
  }
  if (t.startsWith('-')) return null
  if (GLOB_CHARS.test(t) && !/[$`|<>;&=!(),]/.test(t)) return globDir(t)
  if (NOT_PATH_CHARS.test(t)) return null
  if (t.includes('/') || t.startsWith('~') || t.startsWith('.') || NAME_EXT.test(t)) return t
  return null
}

/**
 * Analyzes a shell command heuristically: its segments (`command`, `argv`, `normalized`,
 * `decidable`), the paths its tokens name, and whether anything is beyond analysis
 * (`undecidable`: substitutions, variables, eval-like words, unbalanced quotes…).
 */
function analyzeBash(command) {
  const text = String(command ?? '')
  const { segments, balanced } = split(text)
  const paths = []
  let undecidable = !balanced
  const out = segments.map((source) => {
    const tokens = tokenize(source)
    let decidable = balanced && !undecidableText(source)
    for (const tok of tokens) {
      if (/^~[^/]/.test(tok)) decidable = false
      if (GLOB_CHARS.test(tok) && tok.split('/').includes('..')) decidable = false
      const p = pathOf(tok)
      if (p !== null && !paths.includes(p)) paths.push(p)
    }
    if (!decidable) undecidable = true
    const argv = unwrap(tokens)
    return { command: source, argv, normalized: argv.join(' '), decidable }
  })
  return { paths, segments: out, undecidable }
}

/** The file names an apply_patch text names in `--- `/`+++ ` headers. */
function patchPaths(patch) {
  const names = []
  for (const line of String(patch).split('\n')) {
    const m = line.match(/^(?:---|\+\+\+) (.*)$/)
    if (!m) continue
    let name = m[1].split('\t')[0].trim()
    if (name === '/dev/null' || name === '') continue
    if (name.startsWith('a/') || name.startsWith('b/')) name = name.slice(2)
    if (!names.includes(name)) names.push(name)
  }
  return names
}

/** The raw paths a call names, per tool (LATER §2.4's table). */
function rawPaths(tool, args) {
  const a = args && typeof args === 'object' ? args : {}
  const str = (v) => (typeof v === 'string' ? [v] : [])
  switch (tool) {
    case 'apply_patch':
      return typeof a.patch === 'string' ? patchPaths(a.patch) : []
    case 'move':
    case 'copy':
      return [...str(a.source), ...str(a.destination)]
    case 'read_files':
      return Array.isArray(a.paths) ? a.paths.filter((p) => typeof p === 'string') : []
    case 'diff':
      return [...str(a.from), ...str(a.to)]
    case 'replace':
      return [typeof a.path === 'string' && a.path !== '' ? a.path : '.']
    case 'monitor_poll':
    case 'monitor_stop':
    case 'monitor_list':
    case 'bash':
    case 'monitor_start':
      return []
    default:
      return str(a.path)
  }
}

/**
 * What a guard sees for a call: `{ tool, args, config, paths: [{ raw, resolved,
 * withinWorkspace }], bash? }`. `fact(raw, base, shell)` resolves one path (the native
 * realpath-based check; computed even when confinement is off).
 */
function makeBuildGuardContext(fact) {
  return function buildGuardContext(tool, args, config) {
    const ctx = { tool, args, config, paths: [] }
    const add = (raw, base, shell) => {
      const f = fact(config, raw, base, shell)
      ctx.paths.push({ raw, resolved: f.resolved, withinWorkspace: f.within })
    }
    if (tool === 'bash' || tool === 'monitor_start') {
      const bash = analyzeBash(args && args.command)
      ctx.bash = bash
      const cwd = args && typeof args.cwd === 'string' ? args.cwd : ''
      for (const p of bash.paths) add(p, cwd, true)
      add(cwd === '' ? '.' : cwd, '', false)
      return ctx
    }
    for (const raw of rawPaths(tool, args)) add(raw, '', false)
    return ctx
  }
}

/** Every path inside the workspace, and the command decidable; false with no paths. */
function withinWorkspace(ctx) {
  if (!ctx || (ctx.bash && ctx.bash.undecidable)) return false
  const paths = Array.isArray(ctx.paths) ? ctx.paths : []
  return paths.length > 0 && paths.every((p) => p.withinWorkspace === true)
}

/** Any path outside the workspace. */
function touchesOutside(ctx) {
  return Boolean(ctx && Array.isArray(ctx.paths) && ctx.paths.some((p) => p.withinWorkspace !== true))
}

/**
 * Whether every segment runs an allowed command: `normalized` equals an entry (trimmed,
 * non-empty) or starts with `entry + " "`. False when undecidable or empty.
 */
function commandsIn(bash, allowed) {
  if (!bash || bash.undecidable || !Array.isArray(bash.segments) || bash.segments.length === 0) return false
  const list = (Array.isArray(allowed) ? allowed : []).map((s) => String(s).trim()).filter((s) => s.length > 0)
  return bash.segments.every((s) => list.some((e) => s.normalized === e || s.normalized.startsWith(e + ' ')))
}

module.exports = { analyzeBash, makeBuildGuardContext, withinWorkspace, touchesOutside, commandsIn }
