// The seeded argument fuzzer shared by fuzz-args.test.mjs and `npm run soak`: a deterministic
// PRNG (mulberry32, seed printed) produces malformed and adversarial argument objects for all
// the 0.1 tools, the 0.5 read tools (read_files, read_image, diff, file_stat, tree) and file
// tools (replace, move, copy, mkdir, remove: both ends, scopes and globs), runs
// them against a scratch workspace that sits beside a sentinel directory, and collects every
// contract violation. Not a test file itself.
//
// Safety: mutating tools only ever run confined to the scratch workspace; `bash` commands are
// drawn from harmless forms only (`echo`, `printf` of a single-quoted string, `true`, `:`,
// `exit N`) — a fuzzed string is never executed as a command, only printed — and the
// configuration clamps every bash timeout to BASH_MAX_MS.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import os from 'node:os'
import { createAgentTools, setWarnSink } from '../index.mjs'
import { scratch } from './helpers.mjs'
import { snapshot, makeSentinel, stubbedTools } from './sentinel.mjs'

export const BASH_MAX_MS = 2000
export const CODES = new Set(['invalid_input', 'not_found', 'not_a_file', 'is_binary', 'not_an_image', 'no_match', 'ambiguous_match', 'patch_failed', 'io_error', 'timeout', 'aborted', 'output_limit', 'too_large', 'path_escape', 'denied', 'monitor_not_found', 'too_many_monitors', 'stale_write', 'not_running', 'internal'])
export const TOOLS = ['read_file', 'list_dir', 'glob', 'grep', 'write_file', 'edit_file', 'multi_edit', 'apply_patch', 'bash', 'read_files', 'read_image', 'diff', 'file_stat', 'tree', 'outline', 'check_syntax', 'find_symbol', 'find_references', 'repo_map', 'replace_symbol', 'insert_symbol', 'replace', 'move', 'copy', 'mkdir', 'remove']

/** mulberry32: tiny, fast, and the same sequence on every platform for a given seed. */
export function prng(seed) {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (n) => Math.floor(next() * n)
  return { next, int, pick: (arr) => arr[int(arr.length)], chance: (p) => next() < p }
}

const PATHS = ['a.txt', 'dir', 'dir/b.txt', 'crlf.txt', 'utf16.txt', 'bin.dat', 'bomb.txt', 'new/deep/file.txt', '.', '', './', '..', '../', '../../etc/passwd', '/etc/passwd', '/', '//', '/proc/self/root/etc/passwd', '/proc/self/environ', '/dev/zero', '/dev/stdin', 'a.txt/x', 'dir/', 'dir//b.txt', './dir/../a.txt', '~', '~/x', 'C:\\Windows', '\\\\?\\C:\\', 'a\\b', '.git/config', '.clarvis', '.clarvis/x', '.clarvis-tmp-1', 'nul', 'con', '-rf', '--', '*', '?', '[', '{a,b}', 'a'.repeat(300), 'a/'.repeat(2100), 'é/ü.txt', '😀.txt', 'a b', ' a.txt', 'a.txt ', 'a.txt\n', '\t']
const REGEXES = ['(a+)+$', '(a|a)*b', '(.*)*x', '^(a?){25}a{25}$', '[', '(', ')', '\\', '(?<=a)b', '(?<!a)b', '(a)\\1', '(?=(a+))\\1b', 'a{99999}', 'a{2000}{2000}', '\\p{Foo}', '\\p{L}+', '(?P<n>x)', '(?i)tick', '.*', '', '$', '^', '\\b', '\\d+\\s', '[[:alpha:]]', '[z-a]', '(?s).', '\\x{110000}', '\\u{D800}', '(?x) a # c', 'x'.repeat(5000), '('.repeat(500) + ')'.repeat(500), '(?:' + 'a|'.repeat(2000) + 'b)', '[^\\n]*\\n', 'tick|tock', '\\Qa.b\\E', '(*FAIL)', '(?R)', '(?1)(a)']
const GLOBS = ['*', '**', '**/*', '**/**/**/**/**/*', '*.txt', '{a,b}', '{a,{b,{c,', '[!', '[z-a]', '[', ']', '\\', '*'.repeat(500), '{'.repeat(100), '**/', '/', '/**', '../*', '../**/*', '.*', '!*.txt', 'dir/**', '**/b.txt', 'a{,,,,,,,,}'.repeat(20), '[a-', '?'.repeat(100), '**/.git/**', 'é*']
const NUMBERS = [0, -0, 1, -1, 2, 3, -5, 1.5, -1.5, 2 ** 31, 2 ** 32, -(2 ** 31), 2 ** 53, -(2 ** 53), 2 ** 53 + 2, 1e308, -1e308, 1e-300, Number.MAX_VALUE, Number.MIN_VALUE, NaN, Infinity, -Infinity, 4294967297, 18446744073709551616]
const CONTROL = Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)).concat(['\x7f', '\u0085', '\u2028', '\u2029', '\u202e', '\ufeff', '\ufffe', '\uffff'])

/** A fuzzed string: paths, regexes, globs, control characters, lone surrogates, huge. */
export function advString(r) {
  switch (r.int(14)) {
    case 0: return r.pick(PATHS)
    case 1: return r.pick(REGEXES)
    case 2: return r.pick(GLOBS)
    case 3: return Array.from({ length: 1 + r.int(20) }, () => r.pick(CONTROL)).join('')
    case 4: return r.pick(['\ud800', '\udc00', 'a\ud83d', '\ude00b', '\ud800\ud800', 'x\udfff\ud800y', 'dir/\ud800.txt'])
    case 5: return r.pick(['\0', 'a\0b', 'dir/\0', '\0/etc/passwd', 'a.txt\0.png', '\0'.repeat(100)])
    case 6: return r.pick(['é', '😀', '\u0301', 'ﬁ', 'İ', 'ß', '日本語', '\u00a0', '\u200b', 'Ω≈ç√∫'])
    case 7: return r.pick(['a', '../', 'x/', '.', '😀', '\n']).repeat(1 + r.int(5000))
    case 8: return r.chance(0.15) ? 'x'.repeat(1 << 20) : 'y'.repeat(1 << 16)
    case 9: return r.pick(['-1', '0', '1e309', '0x10', 'NaN', 'null', 'true', '[]', '{}', '"', "'"])
    case 10: return ''
    case 11: return r.pick([' ', '\t', '\n', '\r\n', '\r', '  \n\t '])
    case 12: return Array.from({ length: r.int(40) }, () => String.fromCharCode(32 + r.int(95))).join('')
    default: return r.pick(['tick', 'tock', 'tick tock\n', 'hello\n', 'a\r\nb\r\n', 'line 1\nline 2\n'])
  }
}

function deep(r, depth) {
  let v = r.chance(0.5) ? 'leaf' : null
  for (let i = 0; i < depth; i++) v = r.chance(0.5) ? [v] : { k: v }
  return v
}

/** A fuzzed value of any type, including ones JSON cannot carry. */
export function advValue(r, depth = 0) {
  switch (r.int(depth > 2 ? 8 : 17)) {
    case 0: return null
    case 1: return undefined
    case 2: return r.chance(0.5)
    case 3: return r.pick(NUMBERS)
    case 4: case 5: return advString(r)
    case 6: return r.int(1000) - 500
    case 7: return r.pick([[], {}, [null], [''], { '': '' }])
    case 8: return Array.from({ length: r.int(4) }, () => advValue(r, depth + 1))
    case 9: return Object.fromEntries(Array.from({ length: r.int(4) }, () => [advString(r).slice(0, 50), advValue(r, depth + 1)]))
    case 10: return deep(r, r.pick([10, 127, 128, 129, 200, 1000, 3000]))
    case 11: return r.pick([() => 1, Symbol('s'), 10n, new Date(0), new Map([[1, 2]]), new Uint8Array([0, 1]), /re/g, new Error('e'), Promise.resolve(1)])
    case 12: { const o = { a: 1 }; o.self = o; return o }
    case 13: return { get boom() { throw new Error('getter throws') } }
    case 14: return { toJSON() { return r.pick([undefined, 'x', () => 1, { path: 'a.txt' }]) } }
    case 15: return JSON.parse('{"__proto__": {"path": "a.txt"}, "constructor": 1}')
    default: { const a = []; a[r.int(50)] = 'sparse'; return a }
  }
}

const quote = (s) => `'${s.replaceAll("'", "'\\''")}'`

/** A harmless command: nothing fuzzed is ever executed, only printed. */
function safeCommand(r) {
  switch (r.int(9)) {
    case 0: return 'true'
    case 1: return ':'
    case 2: return `exit ${r.int(256)}`
    case 3: return `echo ${quote(advString(r))}`
    case 4: return `printf '%s' ${quote(advString(r))}`
    case 5: return `printf '%s' ${quote(advString(r))} >&2`
    case 6: return r.pick(['echo a\0b', '\0', 'echo \ud800', 'echo "unterminated', "echo 'x", 'echo $((1/0))', '', ' ', 'echo\tx'])
    case 7: return `echo ${quote('z'.repeat(r.pick([1000, 70000, 200000])))}`
    default: return 'echo ok'
  }
}

function fuzzPatch(r) {
  const p = () => (r.chance(0.6) ? r.pick(PATHS) : advString(r).slice(0, 300))
  const lines = () => Array.from({ length: r.int(4) }, () => r.pick([' ', '-', '+', '\\', '@', 'x', '']) + advString(r).slice(0, 80)).join('\n')
  switch (r.int(7)) {
    case 0: return `--- /dev/null\n+++ b/${p()}\n@@ -0,0 +1,${r.int(3)} @@\n+${advString(r).slice(0, 100)}\n`
    case 1: return `--- a/${p()}\n+++ b/${p()}\n@@ -${r.int(5)},${r.int(5)} +${r.int(5)},${r.int(5)} @@\n${lines()}\n`
    case 2: return `diff --git a/${p()} b/${p()}\nrename from ${p()}\nrename to ${p()}\n`
    case 3: return `--- a/${p()}\n+++ /dev/null\n@@ -1 +0,0 @@\n-${advString(r).slice(0, 50)}\n`
    case 4: return `--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n-tick\n+tock\n ${r.pick(['hello', 'tick tock', ''])}\n`
    case 5: return `@@ ${r.pick(['-', '+', '-x,y', '-99999999999999999999,1 +1', '-1,-1 +1,-1'])} @@\n${lines()}`
    default: return advString(r)
  }
}

const GOOD_FILES = ['a.txt', 'dir/b.txt', 'crlf.txt', 'bomb.txt', 'utf16.txt', 'fifo', 'img.png', 'trunc.gif', 'out-link']
const GOOD_DIRS = ['', '.', 'dir', 'dir/', './dir/..']
// Half the time a path that exists, so calls get past the path checks into the tool itself.
const file = (r) => (r.chance(0.5) ? r.pick(GOOD_FILES) : r.pick(PATHS))
const dir = (r) => (r.chance(0.5) ? r.pick(GOOD_DIRS) : r.pick(PATHS))
// Destinations of move and copy: new places, existing files, directories, links, junk.
const DESTS = ['moved.txt', 'new/deep/m.txt', 'dir/b.txt', 'dir', 'a.txt', 'out-link', 'out-link/x.txt', 'fifo', 'ignored/y.txt', '.git/x']
const dest = (r) => (r.chance(0.5) ? r.pick(DESTS) : r.pick(PATHS))
const SOURCES = ['src/a.ts', 'src/broken.py', 'src/deep.js', 'src/nul.rs', 'src/bad8.go', 'src/a.rb', 'src/x.TSX', 'a.txt', 'dir']
const source = (r) => (r.chance(0.6) ? r.pick(SOURCES) : file(r))

/** Valid-looking arguments per tool, before mutation. */
const TEMPLATES = {
  read_file: (r) => ({ path: file(r), offset: r.int(9) - 4, limit: 1 + r.int(50) }),
  list_dir: (r) => ({ path: dir(r) }),
  glob: (r) => ({ pattern: r.pick(GLOBS), path: dir(r), respect_gitignore: r.chance(0.5) }),
  grep: (r) => ({ pattern: r.pick(REGEXES), path: r.chance(0.5) ? dir(r) : file(r), glob: r.pick(GLOBS), output_mode: r.pick(['files_with_matches', 'content', 'count', 'content', 'lines']), ignore_case: r.chance(0.5), multiline: r.chance(0.3), context: r.int(4), before_context: r.int(3), after_context: r.int(3), head_limit: 1 + r.int(20), offset: r.int(5) }),
  write_file: (r) => ({ path: r.pick(PATHS), content: advString(r) }),
  edit_file: (r) => ({ path: file(r), old_string: advString(r), new_string: advString(r), replace_all: r.chance(0.3) }),
  multi_edit: (r) => ({ path: file(r), edits: Array.from({ length: r.int(4) }, () => ({ old_string: advString(r), new_string: advString(r), replace_all: r.chance(0.3) })) }),
  apply_patch: (r) => ({ patch: fuzzPatch(r) }),
  bash: (r) => ({ command: safeCommand(r), cwd: dir(r), timeout_ms: 1 + r.int(BASH_MAX_MS) }),
  // Up to 70 entries: past the 64-path cap now and then; entries mix files, dirs and junk.
  read_files: (r) => ({ paths: Array.from({ length: r.chance(0.1) ? 60 + r.int(11) : 1 + r.int(6) }, () => (r.chance(0.15) ? advString(r) : r.chance(0.3) ? dir(r) : file(r))) }),
  read_image: (r) => ({ path: file(r) }),
  diff: (r) => ({ from: file(r), to: file(r) }),
  file_stat: (r) => ({ path: r.chance(0.5) ? file(r) : dir(r) }),
  tree: (r) => ({ path: dir(r), depth: r.int(25), respect_gitignore: r.chance(0.5) }),
  outline: (r) => (r.chance(0.2) ? { path: source(r), paths: Array.from({ length: r.int(3) }, () => (r.chance(0.5) ? source(r) : dir(r))) } : { path: source(r) }),
  check_syntax: (r) => ({ path: source(r) }),
  find_symbol: (r) => ({ name: r.chance(0.6) ? r.pick(['a', 'Config.load', 'x::y', 'tick', 'main', 'é']) : advString(r), ...(r.chance(0.5) ? { path: r.chance(0.5) ? dir(r) : source(r) } : {}), ...(r.chance(0.3) ? { glob: r.pick(GLOBS) } : {}), ...(r.chance(0.3) ? { kind: r.pick(['function', 'class', 'widget', '']) } : {}), ...(r.chance(0.3) ? { match: r.pick(['exact', 'prefix', 'substring', 'fuzzy']) } : {}), head_limit: r.int(20), offset: r.int(5) }),
  find_references: (r) => ({ name: r.chance(0.6) ? r.pick(['a', 'Config.load', 'tick', 'main']) : advString(r), ...(r.chance(0.5) ? { path: r.chance(0.5) ? dir(r) : source(r) } : {}), ...(r.chance(0.3) ? { glob: r.pick(GLOBS) } : {}), ...(r.chance(0.3) ? { kinds: [r.pick(['call', 'read', 'bogus'])] } : {}), head_limit: r.int(20), offset: r.int(5) }),
  repo_map: (r) => ({ ...(r.chance(0.5) ? { path: r.chance(0.5) ? dir(r) : source(r) } : {}), ...(r.chance(0.3) ? { glob: r.pick(GLOBS) } : {}), max_bytes: r.int(5000) }),
  replace_symbol: (r) => ({ path: r.chance(0.8) ? source(r) : file(r), symbol: r.chance(0.6) ? r.pick(['a', 'Config.load', 'x::y', 'tick', 'main', 'é']) : advString(r), new_source: r.chance(0.5) ? r.pick(['fn tick() {}', 'def tick():\n    pass', 'function a() {}', '@x\n/** d */\nclass A {}']) : advString(r) }),
  insert_symbol: (r) => ({ path: r.chance(0.8) ? source(r) : file(r), symbol: r.chance(0.6) ? r.pick(['a', 'Config.load', 'tick', 'main']) : advString(r), position: r.pick(['before', 'after', 'inside']), source: r.chance(0.5) ? r.pick(['fn t() {}', 'def t():\n\tpass', 'x']) : advString(r) }),
  // Half the time a pattern that matches the fixtures, so calls reach the replacement and
  // (dry_run false) the commit; scopes and globs mix real ones with hostile ones.
  replace: (r) => ({
    pattern: r.chance(0.5) ? r.pick(['tick', 'to(c)k', '(?<w>hello)', '^one$', 'b\\n', '\\bt', '[ab]']) : r.pick(REGEXES),
    replacement: r.chance(0.5) ? r.pick(['TOCK', '$1$1', '$&-$&', '$$', '$<w>', '$99', '$0', "$`$'", '$<']) : advString(r),
    ...(r.chance(0.7) ? { path: r.chance(0.5) ? dir(r) : file(r) } : {}),
    ...(r.chance(0.6) ? { glob: r.pick(GLOBS) } : {}),
    ignore_case: r.chance(0.3),
    multiline: r.chance(0.3),
    dry_run: r.chance(0.6),
  }),
  move: (r) => ({ source: file(r), destination: dest(r), overwrite: r.chance(0.5) }),
  copy: (r) => ({ source: file(r), destination: dest(r), overwrite: r.chance(0.5) }),
  mkdir: (r) => ({ path: r.chance(0.5) ? r.pick(['made', 'made/deep/er', 'a.txt', 'a.txt/sub', 'dir', 'dir/b.txt/x', 'out-link/x', 'fifo/x', 'ignored/new']) : r.pick(PATHS) }),
  remove: (r) => ({ path: r.chance(0.7) ? file(r) : r.pick(PATHS) }),
}
const EXTRA_KEYS = ['extra', '', 'PATH', '__proto__', 'constructor', 'toString', 'paths', 'Path', 'path ', '\0', '😀', 'edits[0]']

/** One fuzzed call: `[name, args, signal]`. */
export function fuzzCall(r) {
  const name = r.chance(0.01) ? r.pick(['', 'READ_FILE', 'read_file ', 'unknown', '__proto__', 'constructor', 'read_file\0', 42, null, undefined]) : r.pick(TOOLS)
  const tool = TOOLS.includes(name) ? name : r.pick(TOOLS)
  let args = TEMPLATES[tool](r)
  if (r.chance(0.05)) {
    // The whole argument object of the wrong type.
    args = tool === 'bash' ? r.pick([null, undefined, 1, 'echo x', [], ['true']]) : advValue(r)
  } else {
    const keys = Object.keys(args)
    for (let m = r.chance(0.6) ? 0 : 1 + r.int(3); m > 0; m--) {
      const key = r.pick(keys)
      switch (r.int(6)) {
        case 0: delete args[key]; break
        case 1: args[r.pick(EXTRA_KEYS)] = advValue(r); break
        case 2: args[key] = null; break
        // bash's command is never a fuzzed string: only harmless commands or non-strings.
        case 3: args[key] = tool === 'bash' && key === 'command' ? safeCommand(r) : advString(r); break
        case 4: args[key] = tool === 'bash' && key === 'command' ? r.pick([1, null, true, [], {}]) : advValue(r); break
        default: args[key] = r.pick(NUMBERS)
      }
    }
    if (tool === 'bash' && typeof args === 'object' && args !== null && 'timeout_ms' in args && r.chance(0.5)) args.timeout_ms = r.pick([1, 5, 50, -1, 0, 1.5, 2 ** 53, 1e308, NaN])
  }
  let signal
  if (r.chance(0.03)) signal = AbortSignal.abort()
  else if (r.chance(0.02)) signal = r.pick([{}, 5, 'x', null, { aborted: true }, { addEventListener: 1 }])
  else if (r.chance(0.02)) signal = AbortSignal.timeout(1 + r.int(20))
  return [name, args, signal]
}

/** A short, cycle-safe description of a fuzzed value for failure messages. */
export function describe(v) {
  try {
    const seen = new WeakSet()
    const s = JSON.stringify(v, (k, x) => {
      if (typeof x === 'bigint') return `${x}n`
      if (typeof x === 'function' || typeof x === 'symbol') return String(x)
      if (typeof x === 'string' && x.length > 80) return `${x.slice(0, 80)}…(${x.length})`
      if (x && typeof x === 'object') {
        if (seen.has(x)) return '[cycle]'
        seen.add(x)
      }
      return x
    })
    return s === undefined ? String(v) : s.length > 400 ? `${s.slice(0, 400)}…` : s
  } catch (e) {
    return `<${e.message}>`
  }
}

/** base/ws (scratch workspace with a few interesting files) beside base/outside (sentinel). */
export function fuzzWorkspace(options = {}) {
  const base = scratch('cat-fuzz-')
  const root = path.join(base, 'ws')
  const files = {
    'a.txt': 'tick\nhello\ntick tock\n',
    'dir/b.txt': 'b\n',
    'crlf.txt': 'one\r\ntwo\r\n',
    'utf16.txt': Buffer.from('\ufeffhi\n', 'utf16le'),
    'bin.dat': Buffer.from([0, 1, 2, 3]),
    'bomb.txt': 'a'.repeat(5000) + '!\n',
    '.gitignore': 'ignored/\n',
    'ignored/x.txt': 'x\n',
    // A real (1×1) PNG, and a GIF signature with nothing after it.
    'img.png': Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c63000100000500010d0a2db40000000049454e44ae426082', 'hex'),
    'trunc.gif': 'GIF89a',
    'src/a.ts': 'export class A {\n  m(): void {}\n}\n',
    'src/broken.py': 'def f(:\n  pass\n',
    'src/deep.js': '('.repeat(5000) + ')'.repeat(5000),
    'src/nul.rs': Buffer.alloc(512),
    'src/bad8.go': Buffer.from([0x70, 0x61, 0x63, 0x6b, 0xff, 0xfe, 0x0a]),
    'src/a.rb': 'def f\nend\n',
    'src/x.TSX': 'const A = () => <div/>;\n',
  }
  for (const [rel, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true })
    fs.writeFileSync(path.join(root, rel), content)
  }
  // A FIFO: opening it for reading blocks until a writer comes, unless the tool is careful.
  // Windows has no FIFOs in the file system (named pipes live in \\.\pipe\).
  if (process.platform !== 'win32') execFileSync('mkfifo', [path.join(root, 'fifo')])
  const sentinel = makeSentinel(path.join(base, 'outside'))
  fs.symlinkSync(sentinel.dir, path.join(root, 'out-link'))
  const tools = createAgentTools({ workspaceRoot: root, bashTimeoutMs: BASH_MAX_MS, bashTimeoutMaxMs: BASH_MAX_MS, ...options })
  const outsideSnap = () => snapshot(base, (p) => p === root || p.startsWith(root + path.sep))
  return { base, root, sentinel, tools, outsideSnap }
}

/** The decoded bytes of a result's image parts, as latin1 text (for leak checks). */
export function imageData(res) {
  if (!res || !Array.isArray(res.content)) return ''
  return res.content.filter((p) => p && p.type === 'image').map((p) => Buffer.from(p.data, 'base64').toString('latin1')).join('')
}

const PART_KEYS = { text: ['type', 'text'], image: ['type', 'data', 'mimeType'] }

// A result is `{ isError, text, content, meta? }` (latest) or exactly `{ isError, text }`
// (compat 0.1); the parts' joined text is `text`, and an error is one text part.
function wellFormed(res) {
  if (!res || typeof res !== 'object' || typeof res.isError !== 'boolean' || typeof res.text !== 'string') return false
  const keys = Object.keys(res)
  if (keys.length === 2) return true
  if (!Array.isArray(res.content)) return false
  if (keys.some((k) => !['isError', 'text', 'content', 'meta'].includes(k))) return false
  if ('meta' in res && (res.meta === null || typeof res.meta !== 'object')) return false
  let joined = ''
  for (const p of res.content) {
    const want = p && PART_KEYS[p.type]
    if (!want || Object.keys(p).join() !== want.join()) return false
    if (p.type === 'text') joined += p.text
  }
  if (res.isError && (res.content.length !== 1 || res.content[0].type !== 'text')) return false
  return joined === res.text
}

/**
 * Runs `count` fuzzed calls (seeded) with `concurrency` in flight. Returns the figures and
 * every violation: a rejection, a malformed result or envelope, an `internal` result, an
 * "internal error" on the warn sink, a call that hangs, the outside secret in any output, or
 * any change outside the workspace.
 */
export async function runFuzz({ count, seed, concurrency = 4, hangMs = 120_000, log = () => {}, options = {} }) {
  const r = prng(seed)
  const { sentinel, tools, outsideSnap } = fuzzWorkspace(options)
  const warned = []
  const sink = (line) => warned.push(line)
  const stubs = await stubbedTools(tools, setWarnSink, sink)
  const before = outsideSnap()
  const failures = []
  const stats = { calls: 0, ok: 0, byTool: {}, byCode: {} }
  let next = 0
  const started = Date.now()
  const one = async (i, [name, args, signal]) => {
    const what = `#${i} ${describe(name)} ${describe(args)}${signal === undefined ? '' : ` signal=${describe(signal)}`}`
    let timer
    const hang = new Promise((resolve) => { timer = setTimeout(() => resolve('hang'), hangMs) })
    let res
    try {
      res = await Promise.race([tools.callTool(name, args, signal), hang])
    } catch (e) {
      failures.push(`rejected: ${what}: ${e && e.stack}`)
      return
    } finally {
      clearTimeout(timer)
    }
    stats.calls++
    const key = typeof name === 'string' ? name : '(odd name)'
    stats.byTool[key] = (stats.byTool[key] || 0) + 1
    if (res === 'hang') return failures.push(`hung for ${hangMs} ms: ${what}`)
    if (!wellFormed(res)) return failures.push(`malformed result ${describe(res)}: ${what}`)
    if (res.text.includes(sentinel.secret) || imageData(res).includes(sentinel.secret)) failures.push(`outside secret in output: ${what}`)
    if (!res.isError) return stats.ok++
    let env
    try {
      env = JSON.parse(res.text)
    } catch {
      return failures.push(`envelope is not JSON ${describe(res.text)}: ${what}`)
    }
    if (typeof env.error !== 'string' || !CODES.has(env.error) || typeof env.message !== 'string') {
      return failures.push(`bad envelope ${describe(env)}: ${what}`)
    }
    stats.byCode[env.error] = (stats.byCode[env.error] || 0) + 1
    if (env.error === 'internal' && !stubs.has(name)) failures.push(`internal: ${what}`)
  }
  const worker = async () => {
    while (next < count) {
      const i = next++
      await one(i, fuzzCall(r))
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  setWarnSink(null)
  const stubLine = (l) => [...stubs].some((s) => l.includes(`internal error: ${s} is not implemented yet`))
  for (const line of warned) if (line.includes('internal error') && !stubLine(line)) failures.push(`warn sink: ${line.slice(0, 500)}`)
  const after = outsideSnap()
  if (JSON.stringify(after) !== JSON.stringify(before)) failures.push(`the outside changed: ${describe({ before, after })}`)
  const ms = Date.now() - started
  log(`fuzz: seed ${seed}, ${stats.calls} calls in ${ms} ms (${stats.ok} ok; ${describe(stats.byCode)}); stubbed: ${[...stubs].join(',') || 'none'}; ${failures.length} failures`)
  return { stats, failures, stubs, ms }
}

/**
 * The sandbox fuzzer: random shell commands — writes, links, renames, reads of credentials,
 * connections, detached children — run for real through `bash` under `sandbox: true` (the
 * sandbox is what makes running them safe). Afterwards nothing outside the workspace nor in
 * the fake HOME changed, no protected path changed, and no output holds the credential.
 * Linux only. Returns `{ calls, failures }`.
 */
export async function runSandboxFuzz({ count, seed, log = () => {} }) {
  const r = prng(seed)
  // Not under /tmp, which the sandbox replaces: the outside and HOME stay visible to it.
  const parent = fs.existsSync('/var/tmp') ? '/var/tmp' : os.tmpdir()
  const base = fs.realpathSync(fs.mkdtempSync(path.join(parent, 'sbx-fuzz-')))
  const ws = path.join(base, 'ws')
  const out = path.join(base, 'outside')
  const home = path.join(base, 'home')
  const secret = `CRED-${seed}-${Date.now().toString(16)}`
  for (const d of [ws, out, path.join(home, '.ssh'), path.join(ws, '.git/hooks')]) fs.mkdirSync(d, { recursive: true })
  fs.writeFileSync(path.join(out, 'f.txt'), 'keep')
  fs.writeFileSync(path.join(home, '.ssh/id_rsa'), secret)
  fs.writeFileSync(path.join(ws, '.git/config'), '[core]\n')
  const savedHome = process.env.HOME
  process.env.HOME = home
  const tools = createAgentTools({ workspaceRoot: ws, sandbox: true, bashTimeoutMs: BASH_MAX_MS, bashTimeoutMaxMs: BASH_MAX_MS })
  const snap = () => {
    const s = {}
    const walk = (d) => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const p = path.join(d, e.name)
        const mode = fs.lstatSync(p).mode.toString(8)
        s[p] = e.isDirectory() ? `dir ${mode}` : e.isSymbolicLink() ? 'link' : `${mode} ${fs.readFileSync(p, 'latin1')}`
        if (e.isDirectory()) walk(p)
      }
    }
    // The rest of .git is writable by design (objects, refs, the index).
    for (const d of [out, home, path.join(ws, '.git/hooks')]) walk(d)
    s['.git/config'] = fs.readFileSync(path.join(ws, '.git/config'), 'latin1')
    return s
  }
  const before = snap()
  const targets = [`${out}/f.txt`, `${out}/new`, out, `${home}/x`, `${home}/.ssh/id_rsa`, '~/.bashrc', '.git/hooks/pre-commit', '.git/config', '.vscode/settings.json', '.mcp.json', '.envrc', '../outside/g', `/proc/self/root${out}/h`, `${out}/sub/../sbx-fuzz`, '"$TMPDIR"/t', 'ok.txt']
  const reads = [`${home}/.ssh/id_rsa`, '~/.ssh/id_rsa', `/proc/self/root${home}/.ssh/id_rsa`, '/proc/$PPID/environ', 'l/id_rsa', 'k']
  const t = () => r.pick(targets)
  const pieces = [
    () => `echo x > ${t()}`,
    () => `echo x >> ${t()}`,
    () => `touch ${t()}`,
    () => `mkdir -p ${t()}`,
    () => `rm -rf ${t()}`,
    () => `ln -s ${r.pick([out, home, `${home}/.ssh`, `${out}/sub/..`])} l`,
    () => `ln -s ${r.pick(reads)} k`,
    () => `ln ${t()} hl`,
    () => `echo y > l/${r.pick(['a', 'id_rsa', 'f.txt'])}`,
    () => `mv ${r.pick(['.git', '.git/hooks', '.vscode', 'l', 'ok.txt'])} ${r.pick(['g2', '.git/h2', 'x'])}`,
    () => `cat ${r.pick(reads)}`,
    () => `cp ${r.pick(reads)} stolen`,
    () => `git config core.hooksPath ${r.pick(['x', '/tmp'])}`,
    () => `curl -s -m 1 http://127.0.0.1:${1 + r.int(65000)}/`,
    () => `python3 -c "open('${r.pick([`${out}/p`, `${home}/p`, 'p.txt'])}','w').write('1')"`,
    () => `(setsid sh -c 'sleep 0.${1 + r.int(5)}; echo late > ${t()}' >/dev/null 2>&1 &)`,
    () => `chmod ${r.pick(['777', '000', 'u+s'])} ${t()}`,
    () => `touch -d 2001-01-01 ${t()}`,
    () => `kill -STOP $PPID`,
    () => `unshare -Ur true`,
  ]
  const failures = []
  for (let i = 0; i < count; i++) {
    const n = 1 + r.int(4)
    const command = Array.from({ length: n }, () => r.pick(pieces)()).join(r.pick(['; ', ' && ', ' || ', ' | ']))
    const res = await tools.callTool('bash', { command, timeout_ms: BASH_MAX_MS })
    if (res.text.includes(secret)) failures.push(`credential in output: ${command}`)
    if (res.isError && !/"error":"(timeout|aborted|output_limit)"/.test(res.text)) failures.push(`${command}: ${res.text.slice(0, 300)}`)
  }
  await new Promise((res) => setTimeout(res, 800))
  process.env.HOME = savedHome
  const now = snap()
  for (const k of new Set([...Object.keys(before), ...Object.keys(now)])) {
    if (before[k] !== now[k]) failures.push(`changed: ${k}: ${describe(before[k])} -> ${describe(now[k])}`)
  }
  for (const p of ['.vscode/settings.json', '.mcp.json', '.envrc']) {
    const f = path.join(ws, p)
    if (fs.existsSync(f) && fs.statSync(f).isFile() && fs.statSync(f).size > 0) failures.push(`${p} was written`)
  }
  fs.rmSync(base, { recursive: true, force: true })
  log(`sandbox fuzz: seed ${seed}, ${count} commands, ${failures.length} failures`)
  return { calls: count, failures }
}
