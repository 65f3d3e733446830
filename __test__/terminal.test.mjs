// Interactive monitors (issue 30): `monitor_start { tty }` runs a program on a terminal,
// `monitor_write` is one turn with it, `monitor_screen` reads its screen. Real programs only
// (sh, bash, cat, python3, node, top); every wait is for a marker (`until`, `ready_when`,
// a condition), never a fixed time.
import test from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { envelope, dead, eventually } from './helpers.mjs'
import { json, LONG, stoppingAfter } from './terminal-helpers.mjs'
import { mcpClient } from './in-process-mcp.mjs'
import { noTty } from './platform.mjs'

const latest = stoppingAfter()

/**
 * One turn: sends `args` and waits until the output since the input matches `until`. A turn
 * that runs out of `wait_ms` on a very slow machine goes on waiting (without sending again),
 * so the test never depends on how fast the program answers. Returns the first answer with
 * the whole output since the input.
 */
async function turn(call, id, args, until) {
  const first = json(await call('monitor_write', { id, wait_ms: LONG, until, ...args }))
  if (first.matched || !first.running) return first
  let output = first.output
  let next = first.next_offset
  const re = new RegExp(until)
  await eventually(async () => {
    const more = json(await call('monitor_write', { id, wait_ms: LONG, until }))
    output += more.output
    next = more.next_offset
    return re.test(output) || !more.running
  }, `${id} answers ${until}`)
  return { ...first, output, next_offset: next, matched: re.test(output) }
}

/** The first poll that says the monitor is no longer running. */
const finished = (call, id, extra = {}) =>
  eventually(async () => {
    const p = json(await call('monitor_poll', { id, ...extra }))
    return !p.running && p
  }, `monitor ${id} ends`)

/** A started monitor, its `ready_when` matched. */
async function started(call, args) {
  const s = json(await call('monitor_start', { ready_timeout_ms: 120000, ...args }))
  assert.equal(s.ready, args.ready_when === undefined ? null : true, JSON.stringify(s))
  return s
}

/** The pids carrying monitor `id`'s marker. */
function marked(id) {
  const marker = `CLARVIS_CALL_ID=${id}`
  return fs
    .readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .filter((pid) => {
      try {
        return fs.readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(marker)
      } catch {
        return false
      }
    })
    .map(Number)
}

/** Whether `pid` runs `comm` in its terminal's foreground process group. */
function inForeground(pid, comm) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1')
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
    // After the name: state, ppid, pgrp, session, tty_nr, tpgid.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return name === comm && f[2] === f[5]
  } catch {
    return false
  }
}

test('a [y/N] prompt and a read -p prompt are answered, one turn each', { skip: noTty }, async () => {
  const { call } = latest()
  const command = 'printf "Delete all? [y/N] "; read a; echo "answer=$a"; bash -c \'read -p "Name: " n; echo "hi $n"\'; read rest'
  const s = await started(call, { command, tty: true, ready_when: '\\[y/N\\] $' })
  assert.equal(s.output, 'Delete all? [y/N] ')
  const a = await turn(call, s.id, { input: 'y\r' }, 'Name: $')
  assert.equal(a.output, 'y\nanswer=y\nName: ')
  assert.equal(a.matched, true)
  assert.equal(a.running, true)
  assert.equal(a.exit_code, null)
  const b = await turn(call, s.id, { input: 'Ada\r' }, 'hi Ada\\n')
  assert.equal(b.output, 'Ada\nhi Ada\n')
  // Offsets are the log's: a poll from the first answer's next_offset sees the same text.
  assert.equal(json(await call('monitor_poll', { id: s.id, offset: a.next_offset })).output, 'Ada\nhi Ada\n')
  json(await call('monitor_stop', { id: s.id }))
})

test('a wait that sends nothing answers with what no answer showed yet: a prompt printed before the call', { skip: noTty }, async () => {
  const { call } = latest()
  const s = json(await call('monitor_start', { command: 'printf "Name? "; read n; echo "hi $n"; read rest', tty: true }))
  assert.equal(s.output, '')
  // The prompt is on the screen (and in the log) before the wait is asked for.
  await eventually(async () => json(await call('monitor_screen', { id: s.id })).rows[0].startsWith('Name?'), 'the prompt is shown')
  const w = json(await call('monitor_write', { id: s.id, until: 'Name\\? $', wait_ms: LONG }))
  assert.deepEqual([w.output, w.matched, w.next_offset], ['Name? ', true, 6])
  // What an answer showed is not shown again; what came after it is.
  const a = await turn(call, s.id, { input: 'Ada\r' }, 'hi Ada\\n')
  assert.equal(a.output, 'Ada\nhi Ada\n')
  const again = json(await call('monitor_write', { id: s.id, wait_ms: 50 }))
  assert.equal(again.output, '')
  assert.equal(again.next_offset, a.next_offset)
  json(await call('monitor_stop', { id: s.id }))
})

test('a python3 REPL: statements, a running loop interrupted with Ctrl-C, EOF with close', { skip: noTty }, async () => {
  const { call } = latest()
  const s = await started(call, { command: 'python3 -q', tty: true, ready_when: '>>> $' })
  const x = await turn(call, s.id, { input: 'x = 6 * 7\r' }, '>>> $')
  assert.equal(x.output, 'x = 6 * 7\n>>> ')
  const p = await turn(call, s.id, { input: 'print(x)\r' }, '>>> $')
  assert.equal(p.output, 'print(x)\n42\n>>> ')
  const loop = "exec(\"import time\\nwhile True:\\n print('tick', flush=True)\\n time.sleep(0.02)\")\r"
  const ticking = await turn(call, s.id, { input: loop }, 'tick\\n')
  assert.equal(ticking.running, true)
  const stopped = await turn(call, s.id, { keys: ['ctrl-c'] }, 'KeyboardInterrupt[\\s\\S]*>>> $')
  assert.match(stopped.output, /Traceback[\s\S]*KeyboardInterrupt\n>>> $/)
  const bye = await turn(call, s.id, { close: true }, '^never$')
  assert.equal(bye.running, false)
  // CPython's own code after a KeyboardInterrupt reached the REPL: it re-raises SIGINT as it
  // exits (`printf 'raise KeyboardInterrupt\n' | python3 -i` gives 130 too).
  assert.equal(bye.exit_code, 130)
  assert.equal(bye.matched, false)
  const gone = envelope(await call('monitor_write', { id: s.id, input: 'print(1)\r' }))
  assert.deepEqual(gone, {
    error: 'not_running',
    message: `${s.id} is not running (exited with code 130): it takes no more input. Read its last output with monitor_poll, remove it with monitor_stop`,
    id: s.id,
    exit_code: 130,
  })
  // Without the interrupt, EOF ends it with 0.
  const quiet = await started(call, { command: 'python3 -q', tty: true, ready_when: '>>> $' })
  const eof = await turn(call, quiet.id, { close: true }, '^never$')
  assert.deepEqual([eof.running, eof.exit_code], [false, 0])
})

test('a node REPL evaluates a line and exits on .exit', { skip: noTty }, async () => {
  const { call } = latest()
  const s = await started(call, { command: 'node', tty: true, ready_when: '> $' })
  const r = await turn(call, s.id, { input: '[1, 2, 3].map((n) => n * 14).join("+")\r' }, "'14\\+28\\+42'[\\s\\S]*> $")
  assert.doesNotMatch(r.output, /\x1b/)
  const end = await turn(call, s.id, { input: '.exit\r' }, '^never$')
  assert.equal(end.running, false)
  assert.equal(end.exit_code, 0)
})

test('cat: echo and answer; close sends end of file; the stdin pipe variant without a terminal', { skip: noTty }, async () => {
  const { call, root } = latest()
  const s = await started(call, { command: 'cat', tty: true })
  const r = await turn(call, s.id, { input: 'hello\r' }, 'hello\\nhello\\n')
  assert.equal(r.output, 'hello\nhello\n')
  const end = await turn(call, s.id, { close: true }, '^never$')
  assert.deepEqual([end.running, end.exit_code], [false, 0])
  // Ctrl-C ends a program that does not catch it, and the monitor with it (as bash would).
  const k = await started(call, { command: 'cat; echo not reached', tty: true })
  // Once cat holds the terminal: a Ctrl-C that reaches `sh -c` before its command runs is
  // held by dash until that command ends (its own rule).
  await eventually(() => marked(k.id).some((pid) => inForeground(pid, 'cat')), 'cat runs in the foreground')
  const int = await turn(call, k.id, { keys: ['ctrl-c'] }, '^never$')
  assert.deepEqual([int.running, int.output], [false, '^C'])
  // 130 as a shell reports it, in the answer that says it ended: whoever writes the exit
  // file (the EXIT trap, or the host's reaper on a death by the signal), no answer comes
  // between the file's creation and its line.
  assert.equal(int.exit_code, 130)
  // A loop the shell runs itself, built-ins only, stops too (the shell is in the foreground).
  const loop = await started(call, { command: 'i=0; while :; do i=$((i+1)); [ $((i % 20000)) -eq 0 ] && echo tick; done', tty: true, ready_when: 'tick' })
  const halted = await turn(call, loop.id, { keys: ['ctrl-c'] }, '^never$')
  assert.equal(halted.running, false)
  assert.equal(halted.exit_code, 130)

  const w = await started(call, { command: 'wc -c; echo done', stdin: true })
  const first = json(await call('monitor_write', { id: w.id, input: 'abc', wait_ms: 0 }))
  assert.equal(first.output, '')
  const last = await turn(call, w.id, { input: 'de\n', close: true }, 'done\\n')
  assert.match(last.output, /^\s*6\ndone\n$/)
  const p = await finished(call, w.id)
  assert.equal(p.exit_code, 0)
  const side = JSON.parse(fs.readFileSync(path.join(root, `.clarvis/monitor-${w.id}.json`), 'utf8'))
  assert.equal(side.stdin, true)
})

test('TERM, COLUMNS, LINES and a resize the program sees (stty size, SIGWINCH)', { skip: noTty }, async () => {
  const { call } = latest()
  // Python prints the new size from its SIGWINCH handler at once (bash would run a WINCH
  // trap only after its `read` returned); `stty size` reads the terminal's size itself.
  const winch = "import os, signal; signal.signal(signal.SIGWINCH, lambda *a: print('winched', *os.get_terminal_size(), flush=True)); print('armed', flush=True); input(); os.system('stty size')"
  const command = `echo "$TERM $COLUMNS $LINES"; stty size; python3 -c "${winch}"; read y`
  const s = await started(call, { command, tty: { cols: 100, rows: 30 }, ready_when: 'armed' })
  assert.equal(s.output, 'xterm-256color 100 30\n30 100\narmed\n')
  const r = await turn(call, s.id, { resize: { cols: 80, rows: 24 } }, 'winched 80 24\\n')
  assert.equal(r.output, 'winched 80 24\n')
  const size = await turn(call, s.id, { input: '\r' }, '24 80\\n')
  assert.equal(size.output, '\n24 80\n')
  const screen = json(await call('monitor_screen', { id: s.id }))
  assert.deepEqual(screen.size, { cols: 80, rows: 24 })
  assert.equal(screen.rows.length, 24)
  json(await call('monitor_stop', { id: s.id }))
  // The default size.
  const d = await started(call, { command: 'stty size; read x', tty: true, ready_when: '\\d+ \\d+' })
  assert.equal(d.output, '40 120\n')
  json(await call('monitor_stop', { id: d.id }))
})

test('monitor_screen: a full-screen program as the user sees it; top read and quit', { skip: noTty }, async () => {
  const { call } = latest()
  const paint = "printf '\\033]0;my title\\007\\033[?1049h\\033[H\\033[2Jrow one\\033[3;5H\\033[1mthird\\033[0m'; read x; printf '\\033[?1049l'; echo bye; read y"
  const s = await started(call, { command: paint, tty: { cols: 40, rows: 6 }, ready_when: 'third' })
  const a = json(await call('monitor_screen', { id: s.id }))
  assert.deepEqual(a, {
    running: true,
    size: { cols: 40, rows: 6 },
    title: 'my title',
    cursor: { row: 2, col: 9, visible: true },
    alternate_screen: true,
    rows: ['row one', '', '    third', '', '', ''],
    next_offset: a.next_offset,
    exit_code: null,
  })
  const b = await turn(call, s.id, { keys: ['enter'] }, 'bye')
  assert.match(b.output, /bye\n$/)
  const back = json(await call('monitor_screen', { id: s.id }))
  assert.equal(back.alternate_screen, false)
  assert.ok(back.next_offset > a.next_offset)
  json(await call('monitor_stop', { id: s.id }))

  const top = await started(call, { command: 'top -d 0.5', tty: { cols: 120, rows: 30 }, ready_when: 'PID' })
  const screen = await eventually(async () => {
    const sc = json(await call('monitor_screen', { id: top.id }))
    return sc.rows.some((r) => /PID\s+USER/.test(r)) && sc
  }, 'top paints its table')
  assert.match(screen.rows[0], /^top - /)
  assert.equal(screen.rows.length, 30)
  for (const row of screen.rows) assert.ok(row.length <= 120, row)
  const polled = json(await call('monitor_poll', { id: top.id }))
  assert.doesNotMatch(polled.output, /\x1b/)
  assert.match(json(await call('monitor_poll', { id: top.id, raw: true })).output, /\x1b\[/)
  const quit = await turn(call, top.id, { input: 'q' }, '^never$')
  assert.equal(quit.running, false)
  assert.equal(quit.exit_code, 0)
})

test('poll on a terminal: escapes removed, progress bars collapsed; raw keeps them; without tty nothing changes', { skip: noTty }, async () => {
  const { call } = latest()
  const command = "printf ' 10%%\\r 50%%\\r100%%\\n'; printf '\\033[1;32mdone\\033[0m\\n'; printf 'a\\tb\\n'"
  const t = json(await call('monitor_start', { command, tty: true }))
  const p = await finished(call, t.id)
  assert.deepEqual(p, { running: false, output: '100%\ndone\na\tb\n', next_offset: p.next_offset, exit_code: 0 })
  const raw = json(await call('monitor_poll', { id: t.id, raw: true }))
  assert.equal(raw.output, ' 10%\r 50%\r100%\r\n\x1b[1;32mdone\x1b[0m\r\na\tb\r\n')
  assert.equal(raw.next_offset, p.next_offset)
  const matched = json(await call('monitor_poll', { id: t.id, match: '^d' }))
  assert.equal(matched.output, 'done')
  const list = json(await call('monitor_list', {})).monitors
  assert.equal(list.find((m) => m.id === t.id).tty, true)

  const plain = json(await call('monitor_start', { command }))
  const q = await finished(call, plain.id)
  assert.deepEqual(q, { running: false, output: ' 10%\r 50%\r100%\n\x1b[1;32mdone\x1b[0m\na\tb\n', next_offset: 35, exit_code: 0 })
  const entry = json(await call('monitor_list', {})).monitors.find((m) => m.id === plain.id)
  assert.deepEqual(Object.keys(entry), ['id', 'command', 'running', 'started_at', 'cwd'])
  assert.equal(json(await call('monitor_poll', { id: plain.id, raw: true })).output, q.output)
})

test('stop ends the whole tree of a terminal monitor: an interactive shell and its jobs', { skip: noTty }, async () => {
  const { call } = latest()
  const s = await started(call, { command: "PS1='$ ' exec bash --norc --noprofile -i", tty: true, ready_when: '\\$ $' })
  await turn(call, s.id, { input: 'sleep 301 &\r' }, '\\$ $')
  await turn(call, s.id, { input: '(setsid sleep 302 &) ; sleep 303 & echo launched\r' }, 'launched\\n[\\s\\S]*\\$ $')
  const pids = await eventually(() => {
    const m = marked(s.id)
    return m.length >= 4 && m
  }, 'the shell and its three sleeps')
  const stop = json(await call('monitor_stop', { id: s.id }))
  assert.deepEqual(stop, { stopped: true, id: s.id })
  for (const pid of pids) assert.ok(dead(pid), `pid ${pid} survived`)
  assert.deepEqual(marked(s.id).filter((p) => !dead(p)), [])
  assert.equal(envelope(await call('monitor_write', { id: s.id, input: 'x' })).error, 'monitor_not_found')
})

test('onOutput streams a turn as it arrives, cleaned like the result; secrets are redacted', { skip: noTty }, async () => {
  const { tools } = latest({}, { redactSecrets: true })
  const call = (n, a) => tools.callTool(n, a)
  const s = await started(call, { command: 'cat', tty: true })
  const chunks = []
  const r = await tools.callTool(
    'monitor_write',
    { id: s.id, input: 'DB_PASSWORD=hunter2\r', until: 'hunter2\\n[\\s\\S]*hunter2\\n', wait_ms: LONG },
    { onOutput: (c) => chunks.push(c) },
  )
  const out = json(r)
  assert.equal(out.matched, true)
  assert.equal(out.output, 'DB_PASSWORD=[REDACTED:password]\nDB_PASSWORD=[REDACTED:password]\n')
  assert.equal(chunks.map((c) => c.text).join(''), out.output)
  for (const c of chunks) assert.equal(c.stream, 'stdout')
  const screen = json(await call('monitor_screen', { id: s.id }))
  assert.equal(screen.rows[0], 'DB_PASSWORD=[REDACTED:password]')
  assert.doesNotMatch(JSON.stringify(screen), /hunter2/)
  json(await call('monitor_stop', { id: s.id }))
})

test('the guard sees the input and, typed into a shell, its analysis; a denial sends nothing', { skip: noTty }, async () => {
  const seen = []
  const { call, root } = latest({}, {
    guard: (ctx) => {
      if (ctx.tool !== 'monitor_write') return { verdict: 'allow' }
      seen.push(ctx)
      return /rm -rf/.test(ctx.input.text) ? { verdict: 'deny', reason: 'no deletions' } : { verdict: 'allow' }
    },
  })
  const s = await started(call, { command: "PS1='$ ' exec bash --norc --noprofile -i", tty: true, ready_when: '\\$ $' })
  const denied = envelope(await call('monitor_write', { id: s.id, input: 'rm -rf /tmp/x\r', keys: ['enter'] }))
  assert.deepEqual(denied, { error: 'denied', message: 'no deletions' })
  const ctx = seen[0]
  assert.deepEqual(ctx.input, {
    text: 'rm -rf /tmp/x\r',
    keys: ['enter'],
    close: false,
    monitor: { id: s.id, command: "PS1='$ ' exec bash --norc --noprofile -i", cwd: root, tty: true, stdin: true },
  })
  assert.equal(ctx.bash.segments[0].argv[0], 'rm')
  assert.ok(ctx.paths.some((p) => p.raw === '/tmp/x' && !p.withinWorkspace), JSON.stringify(ctx.paths))
  const ok = await turn(call, s.id, { input: 'echo fine\r' }, 'fine\\n\\$ $')
  // Nothing of the denied line reached the shell.
  assert.equal(ok.output, 'echo fine\nfine\n$ ')
  assert.doesNotMatch(json(await call('monitor_poll', { id: s.id })).output, /rm -rf/)
  // A program that is not a shell: the input facts only.
  const c = await started(call, { command: 'cat', tty: true })
  await turn(call, c.id, { input: 'ls /etc\r' }, 'ls /etc\\n')
  const last = seen.at(-1)
  assert.equal(last.bash, undefined)
  assert.deepEqual(last.paths, [])
  const unknown = envelope(await call('monitor_write', { id: 'mon_00000000', input: 'x' }))
  assert.equal(unknown.error, 'monitor_not_found')
  assert.equal(seen.at(-1).input.monitor, null)
  for (const id of [s.id, c.id]) json(await call('monitor_stop', { id }))
})

test('bad input: no terminal, no input, unknown keys, too much input, unknown id', { skip: noTty }, async () => {
  const { call } = latest()
  const none = json(await call('monitor_start', { command: 'sleep 300' }))
  const pipe = json(await call('monitor_start', { command: 'sleep 300', stdin: true }))
  const tty = json(await call('monitor_start', { command: 'sleep 300', tty: true }))
  const noInput = envelope(await call('monitor_write', { id: none.id, input: 'x' }))
  assert.equal(noInput.error, 'invalid_input')
  assert.match(noInput.message, /takes no input: it was started without tty or stdin/)
  // Waiting for output needs no input.
  assert.equal(json(await call('monitor_write', { id: none.id, wait_ms: 0 })).running, true)
  for (const args of [{ keys: ['enter'] }, { resize: { cols: 80, rows: 24 } }]) {
    const e = envelope(await call('monitor_write', { id: pipe.id, ...args }))
    assert.equal(e.error, 'invalid_input')
    assert.match(e.message, /has no terminal/)
  }
  const badKey = envelope(await call('monitor_write', { id: tty.id, keys: ['enter', 'ctrl-1'] }))
  assert.equal(badKey.error, 'invalid_input')
  assert.equal(badKey.key, 'ctrl-1')
  assert.match(badKey.message, /^Unknown key "ctrl-1"\. Known keys: enter/)
  const big = envelope(await call('monitor_write', { id: tty.id, input: 'x'.repeat(65537) }))
  assert.deepEqual([big.error, big.size, big.limit], ['invalid_input', 65537, 65536])
  const badResize = envelope(await call('monitor_write', { id: tty.id, resize: { cols: 1, rows: 24 } }))
  assert.equal(badResize.error, 'invalid_input')
  const badTty = envelope(await call('monitor_start', { command: 'true', tty: 'yes' }))
  assert.equal(badTty.error, 'invalid_input')
  assert.equal(envelope(await call('monitor_screen', { id: pipe.id })).error, 'invalid_input')
  assert.equal(envelope(await call('monitor_write', { id: 'mon_ffffffff', input: 'x' })).error, 'monitor_not_found')
  assert.equal(envelope(await call('monitor_screen', { id: '../x' })).error, 'monitor_not_found')
  const until = envelope(await call('monitor_write', { id: tty.id, until: '(' }))
  assert.equal(until.error, 'invalid_input')
  for (const m of [none, pipe, tty]) json(await call('monitor_stop', { id: m.id }))
})

test('abuse: a program that never reads, a flood, a dead program, cancellation mid-wait', { skip: noTty }, async () => {
  const { call, tools } = latest()
  // Never reads its stdin pipe: once the kernel's buffer is full a write stops at its deadline.
  const deaf = json(await call('monitor_start', { command: 'sleep 300', stdin: true }))
  let unwritten = 0
  for (let i = 0; i < 8 && unwritten === 0; i++) {
    const r = json(await call('monitor_write', { id: deaf.id, input: 'y'.repeat(65536), wait_ms: 50 }))
    unwritten = r.unwritten ?? 0
  }
  assert.ok(unwritten > 0, 'a full pipe reports what was not written')
  // The same on a terminal in raw mode (its input queue fills). In canonical mode with echo
  // the kernel takes every byte: past a line's 4,095 it discards them, so nothing blocks.
  const deafTty = await started(call, { command: 'stty raw -echo; echo ready; sleep 300', tty: true, ready_when: 'ready' })
  let tail = 0
  for (let i = 0; i < 8 && tail === 0; i++) {
    const r = json(await call('monitor_write', { id: deafTty.id, input: 'y'.repeat(65536), wait_ms: 50 }))
    tail = r.unwritten ?? 0
  }
  assert.ok(tail > 0, 'a full terminal reports what was not written')
  // A flood: the answer is one page, the call returns.
  const flood = json(await call('monitor_start', { command: 'yes flood', tty: true }))
  const f = json(await call('monitor_write', { id: flood.id, input: '\r', wait_ms: 100 }))
  assert.equal(f.running, true)
  assert.ok(Buffer.byteLength(f.output) <= 131_072 + 200, String(f.output.length))
  // The answer starts where the log stood when the write went out — inside a line of the
  // flood, most likely — and the echo of the Enter may land anywhere in it: every line is a
  // piece of "flood", and whole ones follow.
  assert.match(f.output, /(flood\n){3}/)
  for (const line of f.output.split('\n').filter((l) => !l.startsWith('[... more output'))) {
    assert.ok('flood'.endsWith(line) || 'flood'.startsWith(line), JSON.stringify(line))
  }
  // Dead: the exit code is in the error.
  const dies = json(await call('monitor_start', { command: 'exit 7', tty: true }))
  await finished(call, dies.id)
  const e = envelope(await call('monitor_write', { id: dies.id, input: 'x' }))
  assert.deepEqual([e.error, e.exit_code, e.id], ['not_running', 7, dies.id])
  // Cancelled mid-wait: the call ends as aborted, the program keeps running.
  const cat = json(await call('monitor_start', { command: 'cat', tty: true }))
  const ac = new AbortController()
  const pending = tools.callTool('monitor_write', { id: cat.id, input: 'go\r', until: 'never', wait_ms: LONG }, { signal: ac.signal })
  await eventually(async () => /go\n/.test(json(await call('monitor_poll', { id: cat.id })).output), 'the input arrives')
  ac.abort()
  const aborted = envelope(await pending)
  assert.equal(aborted.error, 'aborted')
  assert.equal(json(await call('monitor_poll', { id: cat.id })).running, true)
  for (const m of [deaf, deafTty, flood, dies, cat]) json(await call('monitor_stop', { id: m.id }))
})

test('the rolling log bound holds on a terminal; the screen starts over past what was dropped', { skip: noTty }, async () => {
  const { call } = latest({}, { monitorLogMaxBytes: 65536 })
  // 4 MB of numbered lines, then a final screen.
  const command = "seq 1 500000; printf '\\033[2J\\033[Hfinal screen'; read x"
  const s = await started(call, { command, tty: { cols: 40, rows: 5 }, ready_when: 'final screen' })
  const p = json(await call('monitor_poll', { id: s.id }))
  assert.ok(p.dropped > 0, JSON.stringify(p).slice(0, 200))
  assert.match(p.output, /^\[\.\.\. \d+ bytes of output dropped/)
  const screen = json(await call('monitor_screen', { id: s.id }))
  assert.deepEqual(screen.rows, ['final screen', '', '', '', ''])
  assert.ok(screen.next_offset > p.dropped, String(screen.next_offset))
  json(await call('monitor_stop', { id: s.id }))
})

test('MCP: the terminal tools are listed and a turn goes through', { skip: noTty }, async (t) => {
  const { tools } = latest()
  const client = await mcpClient(t, tools)
  const { tools: listed } = await client.listTools()
  const names = listed.map((x) => x.name)
  for (const n of ['monitor_write', 'monitor_screen']) assert.ok(names.includes(n), n)
  const write = listed.find((x) => x.name === 'monitor_write')
  assert.deepEqual(Object.keys(write.inputSchema.properties), ['id', 'input', 'keys', 'close', 'resize', 'wait_ms', 'until', 'raw'])
  const start = await client.callTool({ name: 'monitor_start', arguments: { command: 'cat', tty: true } })
  const { id } = JSON.parse(start.content[0].text)
  const r = await client.callTool({ name: 'monitor_write', arguments: { id, input: 'via mcp\r', until: 'mcp\\n[\\s\\S]*mcp\\n', wait_ms: LONG } })
  assert.equal(r.isError, false, r.content[0].text)
  assert.equal(JSON.parse(r.content[0].text).output, 'via mcp\nvia mcp\n')
  await client.callTool({ name: 'monitor_stop', arguments: { id } })
})
