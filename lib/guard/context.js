'use strict'
// What a guard sees for a call (LATER §2.4): `{ tool, args, config, paths, bash }`, the path
// facts of every path the call may touch, and the three fail-closed helpers.

const { analyzeBash } = require('./analyze.js')

const COMMAND_TOOLS = new Set(['bash', 'monitor_start'])
// Tools whose `path` defaults to the workspace root.
const ROOT_DEFAULT = new Set(['list_dir', 'glob', 'grep', 'tree', 'find_symbol', 'find_references', 'repo_map'])

/**
 * The names an apply_patch text may touch, read from every header form the tool accepts:
 * `---`/`+++` (as the original: tab suffix cut, `a/`/`b/` stripped, `/dev/null` skipped),
 * `diff --git a/x b/y`, `rename from`/`rename to`, `copy from`/`copy to`, and the
 * `*** Add File:` / `*** Update File:` / `*** Delete File:` / `*** Move to:` lines. A
 * superset of what the tool's parser reads (a name no block uses is listed anyway); the
 * parser's own names are added by the caller.
 */
function patchPaths(patch) {
  const names = []
  const add = (raw) => {
    let name = raw.split('\t')[0].trim()
    if (name.startsWith('"') && name.endsWith('"') && name.length > 1) name = unquote(name)
    if (name === '' || name === '/dev/null') return
    if (name.startsWith('a/') || name.startsWith('b/')) name = name.slice(2)
    if (name !== '' && !names.includes(name)) names.push(name)
  }
  const lines = String(patch).split('\n').map((l) => l.replace(/\r$/, ''))
  for (const line of lines) {
    let m = line.match(/^(?:---|\+\+\+) (.*)$/)
    if (m) add(m[1])
  }
  for (const line of lines) {
    const t = line.trim()
    let m = t.match(/^\*\*\* (?:Add|Update|Delete) File: (.*)$/) || t.match(/^\*\*\* Move to: (.*)$/)
    if (m) {
      const name = m[1].trim()
      if (name && !names.includes(name)) names.push(name)
      continue
    }
    m = line.match(/^(?:rename|copy) (?:from|to) (.*)$/)
    if (m) {
      const name = m[1].startsWith('"') ? unquote(m[1]) : m[1].trim()
      if (name && !names.includes(name)) names.push(name)
      continue
    }
    m = line.match(/^diff --git (.*)$/)
    if (m) for (const n of gitNames(m[1])) add(n)
  }
  return names
}

// The two names of a `diff --git` line: quoted, or split at each ` b/` (every split is listed).
function gitNames(rest) {
  if (rest.startsWith('"')) {
    const q = rest.match(/^("(?:[^"\\]|\\.)*")\s*(.*)$/)
    return q ? [unquote(q[1]), q[2].startsWith('"') ? unquote(q[2]) : q[2]] : []
  }
  const out = []
  let at = rest.indexOf(' b/')
  while (at >= 0) {
    out.push(rest.slice(0, at), rest.slice(at + 1))
    at = rest.indexOf(' b/', at + 1)
  }
  return out
}

// Git's C quoting (`"a\tb\303\251"`).
function unquote(q) {
  const body = q.slice(1, -1)
  const bytes = []
  for (let i = 0; i < body.length; i++) {
    const c = body[i]
    if (c !== '\\') {
      bytes.push(...Buffer.from(c))
      continue
    }
    const d = body[++i]
    const simple = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13 }
    if (d in simple) bytes.push(simple[d])
    else if (/[0-7]/.test(d)) {
      const m = body.slice(i).match(/^[0-7]{1,3}/)[0]
      bytes.push(parseInt(m, 8) & 0xff)
      i += m.length - 1
    } else bytes.push(...Buffer.from(d ?? ''))
  }
  return Buffer.from(bytes).toString('utf8')
}

/** The raw paths a call names (fs semantics, relative to the workspace root). */
function rawPaths(tool, a, probe) {
  const str = (v) => (typeof v === 'string' ? [v] : [])
  const strings = (v) => (Array.isArray(v) ? v.filter((p) => typeof p === 'string') : [])
  switch (tool) {
    case 'apply_patch': {
      if (typeof a.patch !== 'string') return []
      const names = patchPaths(a.patch)
      for (const n of (probe.patchPaths && probe.patchPaths(a.patch)) || []) if (!names.includes(n)) names.push(n)
      return names
    }
    case 'move':
    case 'copy':
      return [...str(a.source), ...str(a.destination)]
    case 'read_files':
      return strings(a.paths)
    case 'diff':
      return [...str(a.from), ...str(a.to)]
    case 'replace':
      return [typeof a.path === 'string' && a.path !== '' ? a.path : '.']
    case 'outline':
      return [...str(a.path), ...strings(a.paths)]
    case 'undo':
      return probe.checkpointPaths ? probe.checkpointPaths(undefined) : []
    case 'checkpoint_restore':
      if (Array.isArray(a.paths)) return strings(a.paths)
      return typeof a.id === 'string' && probe.checkpointPaths ? probe.checkpointPaths(a.id) : []
    case 'checkpoint_changes':
      return typeof a.id === 'string' && probe.checkpointPaths ? probe.checkpointPaths(a.id) : []
    case 'monitor_poll':
    case 'monitor_stop':
    case 'monitor_list':
    case 'monitor_screen':
    case 'monitor_write':
    case 'checkpoint_create':
    case 'checkpoint_list':
    case 'checkpoint_drop':
      return []
    default:
      if (ROOT_DEFAULT.has(tool) && (a.path === undefined || a.path === null || a.path === '')) return ['.']
      return str(a.path)
  }
}

// Programs whose typed lines are shell commands: input to them is analyzed like `bash`'s.
const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'fish', 'busybox'])
// Words that run the next word as the program (`exec bash`, `env -i FOO=1 zsh`).
const WRAPPERS = new Set(['exec', 'env', 'command', 'nohup', 'setsid', 'nice'])

/**
 * Whether a monitor's command starts an interactive shell: a segment whose program (after
 * `exec`, `env`, `nohup`… and their options and assignments) is a shell reading its input —
 * no operand (a script or `-c` string) or `-i`/`-s`. `bash -c '…'` and `sh script.sh` read no
 * command lines from the terminal.
 */
function startsShell(command) {
  for (const seg of analyzeBash(String(command)).segments) {
    let argv = seg.argv || []
    while (argv.length > 0 && WRAPPERS.has(argv[0])) {
      argv = argv.slice(1)
      while (argv.length > 0 && (argv[0].startsWith('-') || argv[0].includes('='))) argv = argv.slice(1)
    }
    const first = argv[0] || ''
    if (!SHELLS.has(first.slice(first.lastIndexOf('/') + 1))) continue
    const opts = argv.slice(1).filter((a) => a.startsWith('-'))
    const operands = argv.slice(1).filter((a) => !a.startsWith('-'))
    const flag = (f) => opts.some((o) => o === `-${f}` || (/^-[a-z]+$/.test(o) && o.includes(f)))
    if (flag('i') || flag('s') || (operands.length === 0 && !flag('c'))) return true
  }
  return false
}

/**
 * `monitor_write`'s input facts: the text as given, the named keys, whether it closes the
 * input, and the monitor it goes to (`{ id, command, cwd, tty, stdin }`, null for an unknown
 * id). Typed into a shell, the text's lines are commands: `bash` then holds their analysis.
 */
function inputFacts(a, probe) {
  const monitor = typeof a.id === 'string' && probe.monitor ? probe.monitor(a.id) : null
  const input = {
    text: typeof a.input === 'string' ? a.input : '',
    keys: Array.isArray(a.keys) ? a.keys.filter((k) => typeof k === 'string') : [],
    close: a.close === true,
    monitor: monitor || null,
  }
  const bash = monitor && startsShell(monitor.command) && input.text !== '' ? analyzeBash(input.text.replace(/\r\n?/g, '\n')) : undefined
  return { input, bash, cwd: monitor ? monitor.cwd : undefined }
}

/**
 * Builds what a guard sees for `tool` called with `args` under `config`. `probe` gives the
 * native facts: `fact(raw, base, shell)` → `{ resolved, within }` (the tools' realpath-based
 * confinement check, computed even when confinement is off), `patchPaths(text)` (the patch
 * parser's names), `checkpointPaths(id)` (what a restore would put back; `undefined`: the
 * last call's, for `undo`) and `monitor(id)` (a monitor's `{ id, command, cwd, tty, stdin }`,
 * or null), and `sessionCwd(name)` (a live bash session's directory, or null).
 */
function buildGuardContext(tool, args, config, probe) {
  const a = args && typeof args === 'object' ? args : {}
  const paths = []
  let bash
  let input
  const add = (raw, base, shell) => {
    const f = probe.fact(raw, base, shell)
    paths.push({ raw, resolved: f.resolved, withinWorkspace: f.within })
  }
  if (COMMAND_TOOLS.has(tool)) {
    let cwd = typeof a.cwd === 'string' ? a.cwd : undefined
    // A session's command runs where the session is (its `cwd` moves it there first).
    const session = tool === 'bash' && typeof a.session === 'string' && a.session !== '' ? a.session : undefined
    if (session !== undefined) {
      const at = (cwd === undefined || cwd === '') && probe.sessionCwd ? probe.sessionCwd(session) : null
      if (typeof at === 'string') cwd = at
    }
    if (typeof a.command === 'string') {
      bash = analyzeBash(a.command)
      for (const p of bash.paths) add(p, cwd ?? '', true)
      // The command runs in its cwd (the root by default): that is a path it touches too.
      add(cwd === undefined || cwd === '' ? '.' : cwd, '', false)
    } else if (cwd !== undefined) add(cwd, '', false)
  } else if (tool === 'monitor_write') {
    const facts = inputFacts(a, probe)
    bash = facts.bash
    if (bash) {
      // Shell lines typed into the monitor: their paths, and the directory it runs in.
      for (const p of bash.paths) add(p, facts.cwd, true)
      add(facts.cwd, '', false)
    }
    input = facts.input
  } else {
    for (const raw of rawPaths(tool, a, probe)) add(raw, '', false)
  }
  const ctx = { tool, args, config, paths, bash }
  if (COMMAND_TOOLS.has(tool) && tool === 'bash' && typeof a.session === 'string' && a.session !== '') {
    const at = probe.sessionCwd ? probe.sessionCwd(a.session) : null
    ctx.session = { name: a.session, cwd: typeof at === 'string' ? at : null }
  }
  if (input) ctx.input = input
  // The kernel confines the command (and what is typed into a monitor: only the tools object
  // that started it holds its input): a host may auto-allow sandboxed commands.
  if ((COMMAND_TOOLS.has(tool) || tool === 'monitor_write') && config && config.sandbox) ctx.sandboxed = true
  return ctx
}

/**
 * Every path inside the workspace, and the command decidable; false with no paths, and for a
 * command tool without its command's facts.
 */
function withinWorkspace(ctx) {
  if (!ctx || (ctx.bash && ctx.bash.undecidable)) return false
  if (COMMAND_TOOLS.has(ctx.tool) && !ctx.bash) return false
  const paths = Array.isArray(ctx.paths) ? ctx.paths : []
  return paths.length > 0 && paths.every((p) => p.withinWorkspace === true)
}

/** Any path outside the workspace — or a command the analysis cannot follow (it may). */
function touchesOutside(ctx) {
  if (!ctx) return false
  if (ctx.bash && ctx.bash.undecidable) return true
  return Array.isArray(ctx.paths) && ctx.paths.some((p) => p.withinWorkspace !== true)
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

module.exports = { buildGuardContext, withinWorkspace, touchesOutside, commandsIn, patchPaths }
