// Crash soak: a child process runs write_file, edit_file, multi_edit and apply_patch (one
// single-file patch and one multi-file patch that modifies, creates, deletes and renames) in
// a loop on MB-sized files, and is SIGKILLed at random moments. After every kill:
//   - every single-file target is exactly one version the loop can produce (never torn);
//   - the multi-file group is checked raw (a kill mid-commit leaves it mixed) and again after
//     the start-up recovery that `createAgentTools` runs (it must never be mixed then);
//   - the `.clarvis-tmp-*` files the kill left are aged past the sweep age, one successful
//     write is made in each directory, and none may survive it.
//
//   node soak/crash.mjs [--kills 200] [--mb 2] [--window 600] [--pause 0] [--no-journal] [--json]
//
// `--pause <ms>` sleeps between a commit's file operations (test hook `commitPauseMs`) so
// kills land mid-commit often; `--no-journal` commits without the journal (`noJournal`), to
// measure what a crash does without it. Exit status 1 when an invariant failed.
// The CI suite (__test__/crash.test.mjs) imports `runCrashes` with a reduced count.
import { spawn } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

// This suite injects faults through `__testHooks`, which only work with this variable set.
process.env.CLARVIS_AGENT_TOOLS_TEST_HOOKS = '1'

const here = path.dirname(fileURLToPath(import.meta.url))
const indexUrl = pathToFileURL(path.join(here, '..', 'index.mjs')).href

// ---------------------------------------------------------------------------------------
// Versions: every file content the loop can produce is a pure function of a version number,
// and names that number in a marker, so a file is valid iff its hash equals the hash of the
// version its marker names.

const SINGLES = ['w', 'e', 'm', 'p'] // write_file, edit_file, multi_edit, apply_patch
const GROUP = ['g0', 'g1', 'g2'] // modified together by one patch, with x<k> and r<k>

function body(name, bytes, salt = '') {
  const lines = []
  let size = 0
  for (let i = 0; size < bytes; i++) {
    const line = `${name} line ${i} ${salt} the quick brown fox jumps over the lazy dog ${i % 97}\n`
    lines.push(line)
    size += line.length
  }
  return lines
}

/** Version `k` of file `name` (single or group member) for files of about `bytes`. */
export function makeVersions(bytes) {
  // Halves are built once; a version is a few string concatenations (cheap, since the loop
  // and the checks generate thousands of MB-sized versions).
  const halves = new Map()
  const half = (name) => {
    if (!halves.has(name)) {
      const lines = body(name, bytes)
      const h = lines.length >> 1
      halves.set(name, [lines.slice(0, h).join(''), lines.slice(h).join('')])
    }
    return halves.get(name)
  }
  const mid = (name, marker) => {
    const [a, b] = half(name)
    return a + marker + b
  }
  return {
    text(name, k) {
      switch (name) {
        case 'w': {
          // Whole-file rewrites: every byte position differs between consecutive versions.
          const [a, b] = half('w')
          return `W v${k}\n` + (k % 2 ? b + a : a + b) + `W-END v${k}\n`
        }
        case 'e':
          return mid('e', `EDIT v${k}\n`)
        case 'm': {
          const [a, b] = half('m')
          return `HEAD v${k}\n` + a + b + `TAIL v${k}\n`
        }
        case 'p':
          return `PATCH v${k}\n` + mid('p', '')
        default:
          if (GROUP.includes(name)) return mid(name, `G v${k}\n`)
          if (name === 'x') return `extra v${k}\n`
          if (name === 'r') return `renamed v${k}\n`
          throw new Error(`unknown file ${name}`)
      }
    },
    marker(name) {
      return { w: /^W v(\d+)\n/, e: /\nEDIT v(\d+)\n/, m: /^HEAD v(\d+)\n/, p: /^PATCH v(\d+)\n/ }[name] ||
        /\nG v(\d+)\n/
    },
  }
}

const sha = (s) => crypto.createHash('sha256').update(s).digest('hex')

/** The version number of a whole file, or `null` when its bytes are no version at all. */
function versionOf(versions, name, content) {
  const m = versions.marker(name).exec(content)
  if (!m) return null
  const k = Number(m[1])
  return sha(content) === sha(versions.text(name, k)) ? k : null
}

// ---------------------------------------------------------------------------------------
// The child: the loop that gets killed.

const single = (root, name) => path.join(root, 'single', `${name}.txt`)
const member = (root, name) => path.join(root, 'group', `${name}.txt`)

function groupPatch(k) {
  const n = k + 1
  const lines = ['*** Begin Patch']
  for (const g of GROUP) lines.push(`*** Update File: group/${g}.txt`, '@@', `-G v${k}`, `+G v${n}`)
  lines.push(`*** Delete File: group/x${k}.txt`, `*** Add File: group/x${n}.txt`, `+extra v${n}`)
  lines.push(`*** Update File: group/r${k}.txt`, `*** Move to: group/r${n}.txt`, '@@', `-renamed v${k}`, `+renamed v${n}`)
  lines.push('*** End Patch', '')
  return lines.join('\n')
}

async function child(root, bytes, hooks) {
  const { createAgentTools } = await import(indexUrl)
  const versions = makeVersions(bytes)
  const tools = createAgentTools({ workspaceRoot: root, __testHooks: hooks })
  const read = (p) => fs.readFileSync(p, 'utf8')
  const k = {}
  for (const s of SINGLES) k[s] = versionOf(versions, s, read(single(root, s)))
  k.group = versionOf(versions, 'g0', read(member(root, 'g0')))
  if (Object.values(k).some((v) => v === null)) throw new Error(`child found an invalid file: ${JSON.stringify(k)}`)
  const must = async (name, args) => {
    const r = await tools.callTool(name, args)
    if (r.isError) throw new Error(`${name}: ${r.text}`)
  }
  process.stdout.write('ready\n')
  for (;;) {
    await Promise.all([
      must('write_file', { path: 'single/w.txt', content: versions.text('w', k.w + 1) }).then(() => k.w++),
      must('edit_file', { path: 'single/e.txt', old_string: `EDIT v${k.e}\n`, new_string: `EDIT v${k.e + 1}\n` }).then(
        () => k.e++,
      ),
      must('multi_edit', {
        path: 'single/m.txt',
        edits: [
          { old_string: `HEAD v${k.m}\n`, new_string: `HEAD v${k.m + 1}\n` },
          { old_string: `TAIL v${k.m}\n`, new_string: `TAIL v${k.m + 1}\n` },
        ],
      }).then(() => k.m++),
      must('apply_patch', {
        patch: `--- a/single/p.txt\n+++ b/single/p.txt\n@@ -1 +1 @@\n-PATCH v${k.p}\n+PATCH v${k.p + 1}\n`,
      }).then(() => k.p++),
      must('apply_patch', { patch: groupPatch(k.group) }).then(() => k.group++),
    ])
    process.stdout.write('iteration\n')
  }
}

// ---------------------------------------------------------------------------------------
// The parent: kill, inspect, recover, sweep.

function setUp(root, versions) {
  fs.mkdirSync(path.join(root, 'single'), { recursive: true })
  fs.mkdirSync(path.join(root, 'group'), { recursive: true })
  for (const s of SINGLES) fs.writeFileSync(single(root, s), versions.text(s, 0))
  setGroup(root, versions, 0)
}

/** Puts the group at version `k` (used only to repair a mixed state without a journal). */
function setGroup(root, versions, k) {
  const dir = path.join(root, 'group')
  for (const f of fs.readdirSync(dir)) if (/^[xr]\d+\.txt$/.test(f)) fs.rmSync(path.join(dir, f))
  for (const g of GROUP) fs.writeFileSync(member(root, g), versions.text(g, k))
  fs.writeFileSync(member(root, `x${k}`), versions.text('x', k))
  fs.writeFileSync(member(root, `r${k}`), versions.text('r', k))
}

/** The group's state: the version of each member, or `mixed`/`torn` details. */
function inspectGroup(root, versions) {
  const dir = path.join(root, 'group')
  const found = []
  for (const g of GROUP) found.push(versionOf(versions, g, fs.readFileSync(member(root, g), 'utf8')))
  const extras = fs.readdirSync(dir).filter((f) => /^[xr]\d+\.txt$/.test(f))
  for (const f of extras) {
    const [, kind, n] = /^([xr])(\d+)\.txt$/.exec(f)
    const ok = fs.readFileSync(path.join(dir, f), 'utf8') === versions.text(kind, Number(n))
    found.push(ok ? Number(n) : null)
  }
  const torn = found.some((v) => v === null)
  const consistent =
    !torn &&
    extras.length === 2 &&
    extras.some((f) => f.startsWith('x')) &&
    extras.some((f) => f.startsWith('r')) &&
    new Set(found).size === 1
  return { versions: found, torn, consistent, k: consistent ? found[0] : Math.max(...found.filter((v) => v !== null)) }
}

function temps(root) {
  const out = []
  for (const dir of ['single', 'group']) {
    for (const f of fs.readdirSync(path.join(root, dir))) if (f.startsWith('.clarvis-tmp-')) out.push(path.join(root, dir, f))
  }
  return out
}

const journals = (root) => {
  try {
    return fs.readdirSync(path.join(root, '.clarvis', 'journal')).length
  } catch {
    return 0
  }
}

function startChild(root, bytes, hooks) {
  const p = spawn(process.execPath, [fileURLToPath(import.meta.url), '--child', root, String(bytes), JSON.stringify(hooks)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  let iterations = 0
  p.stderr.on('data', (d) => (stderr += d))
  const exited = new Promise((resolve) => p.on('exit', (code, signal) => resolve({ code, signal })))
  const ready = new Promise((resolve, reject) => {
    let buf = ''
    p.stdout.on('data', (d) => {
      buf += d
      if (buf.includes('ready\n')) resolve()
      iterations = (buf.match(/iteration\n/g) || []).length
    })
    exited.then(({ code }) => reject(new Error(`child exited (${code}) before ready: ${stderr}`)))
  })
  return { p, ready, exited, stderr: () => stderr, iterations: () => iterations }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

/**
 * Runs `kills` kill rounds and returns the figures. Options: `kills`, `bytes` (size of each
 * file), `windowMs` (kills land uniformly within this long after the child is ready),
 * `pauseMs` (commitPauseMs hook), `journal` (false = noJournal hook), `log`.
 */
export async function runCrashes({ kills = 200, bytes = 2 << 20, windowMs = 600, pauseMs = 0, journal = true, log = () => {} } = {}) {
  const { createAgentTools, setWarnSink } = await import(indexUrl)
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'clarvis-crash-')))
  const versions = makeVersions(bytes)
  setUp(root, versions)
  const hooks = { ...(pauseMs ? { commitPauseMs: pauseMs } : {}), ...(journal ? {} : { noJournal: true }) }
  const figures = {
    kills: 0,
    iterations: 0,
    tornSingles: 0,
    tornGroup: 0,
    mixedRaw: 0,
    mixedAfterRecovery: 0,
    journalsPendingAfterKill: 0,
    journalsLeftAfterRecovery: 0,
    tempsLeftByKills: 0,
    tempsSurvivingSweep: 0,
    recoveryWarnings: [],
    childErrors: [],
  }
  const warnings = []
  setWarnSink((line) => warnings.push(line))
  const last = Object.fromEntries(SINGLES.map((s) => [s, 0]))
  try {
    for (let round = 0; round < kills; round++) {
      const c = startChild(root, bytes, hooks)
      await c.ready
      await sleep(Math.random() * windowMs)
      c.p.kill('SIGKILL')
      const { signal } = await c.exited
      if (signal !== 'SIGKILL') figures.childErrors.push(c.stderr().slice(0, 2000))
      figures.kills++
      figures.iterations += c.iterations()

      // Raw state, as the kill left it.
      for (const s of SINGLES) {
        const k = versionOf(versions, s, fs.readFileSync(single(root, s), 'utf8'))
        if (k === null || k < last[s]) figures.tornSingles++
        else last[s] = k
      }
      const raw = inspectGroup(root, versions)
      if (raw.torn) figures.tornGroup++
      if (!raw.consistent) figures.mixedRaw++
      if (journals(root) > 0) figures.journalsPendingAfterKill++

      // Start-up recovery, as the next createAgentTools runs it.
      const tools = createAgentTools({ workspaceRoot: root })
      const recovered = inspectGroup(root, versions)
      if (!recovered.consistent) {
        figures.mixedAfterRecovery++
        // Without a journal nothing can repair it; reset so the loop can go on.
        setGroup(root, versions, recovered.k)
      }
      figures.journalsLeftAfterRecovery += journals(root)

      // Stale temp files: aged past the sweep age, then one write per directory.
      const left = temps(root)
      figures.tempsLeftByKills += left.length
      const old = new Date(Date.now() - 3600_000)
      for (const t of left) fs.utimesSync(t, old, old)
      for (const dir of ['single', 'group']) {
        const r = await tools.callTool('write_file', { path: `${dir}/sweep.txt`, content: String(round) })
        if (r.isError) throw new Error(`sweep write failed: ${r.text}`)
      }
      figures.tempsSurvivingSweep += temps(root).length
      log(`round ${round + 1}/${kills}: raw ${raw.consistent ? 'consistent' : 'MIXED'} ${JSON.stringify(raw.versions)}, temps ${left.length}`)
    }
  } finally {
    setWarnSink(null)
    fs.rmSync(root, { recursive: true, force: true })
  }
  figures.recoveryWarnings = warnings
  return figures
}

/**
 * Kills the child while its multi-file commit is certainly half done: commits pause
 * `pauseMs` between file operations, and the kill comes as soon as the journal is there and
 * the first operation shows (the group is mixed). Returns the group as the kill left it and as the
 * start-up recovery leaves it. `tamper: { path, content }` rewrites a file between the kill and
 * the recovery (a user editing after the crash).
 */
export async function killMidCommit({ bytes = 1 << 20, pauseMs = 60_000, tamper = null } = {}) {
  const { createAgentTools, setWarnSink } = await import(indexUrl)
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'clarvis-crash-')))
  const versions = makeVersions(bytes)
  setUp(root, versions)
  const warnings = []
  try {
    const c = startChild(root, bytes, { commitPauseMs: pauseMs })
    await c.ready
    // Killed once the first rename is seen (the group is mixed), not after a guessed delay:
    // the next one comes `pauseMs` later, so the kill lands mid-commit however loaded the
    // machine is.
    const deadline = Date.now() + 120_000
    const mixed = () => {
      try {
        const g = inspectGroup(root, versions)
        return !g.torn && !g.consistent
      } catch {
        return false // a file between two steps of an operation
      }
    }
    while (!(journals(root) > 0 && mixed()) && Date.now() < deadline) await sleep(2)
    c.p.kill('SIGKILL')
    await c.exited
    const raw = inspectGroup(root, versions)
    const pending = journals(root)
    // Someone edits a file between the crash and the next start-up.
    if (tamper) fs.writeFileSync(path.join(root, tamper.path), tamper.content)
    const tampered = tamper ? fs.readFileSync(path.join(root, tamper.path), 'utf8') : null
    setWarnSink((line) => warnings.push(line))
    createAgentTools({ workspaceRoot: root })
    const recovered = inspectGroup(root, versions)
    const after = tamper ? fs.readFileSync(path.join(root, tamper.path), 'utf8') : null
    return { raw, pending, recovered, journalsLeft: journals(root), temps: temps(root).length, warnings, tampered, after, root }
  } finally {
    setWarnSink(null)
    fs.rmSync(root, { recursive: true, force: true })
  }
}

/** The invariants every run must keep (a no-journal run is exempt from the mixed one). */
export function violations(f, { journal = true } = {}) {
  const out = []
  if (f.tornSingles) out.push(`${f.tornSingles} torn or regressed single-file targets`)
  if (f.tornGroup) out.push(`${f.tornGroup} torn group files`)
  if (journal && f.mixedAfterRecovery) out.push(`${f.mixedAfterRecovery} mixed states after recovery`)
  if (f.journalsLeftAfterRecovery) out.push(`${f.journalsLeftAfterRecovery} journals left after recovery`)
  if (f.tempsSurvivingSweep) out.push(`${f.tempsSurvivingSweep} temp files survived the next write`)
  if (f.recoveryWarnings.length) out.push(`recovery warnings: ${f.recoveryWarnings.join('')}`)
  if (f.childErrors.length) out.push(`child errors: ${f.childErrors.join('\n')}`)
  return out
}

async function main(argv) {
  if (argv[0] === '--child') return child(argv[1], Number(argv[2]), JSON.parse(argv[3] || '{}'))
  const arg = (name, dflt) => {
    const i = argv.indexOf(name)
    return i >= 0 ? Number(argv[i + 1]) : dflt
  }
  const options = {
    kills: arg('--kills', 200),
    bytes: Math.round(arg('--mb', 2) * 1024 * 1024),
    windowMs: arg('--window', 600),
    pauseMs: arg('--pause', 0),
    journal: !argv.includes('--no-journal'),
  }
  const json = argv.includes('--json')
  const started = Date.now()
  const f = await runCrashes({ ...options, log: json ? () => {} : (l) => console.log(l) })
  const bad = violations(f, options)
  const report = { options, seconds: Math.round((Date.now() - started) / 1000), ...f, ok: bad.length === 0 }
  console.log(json ? JSON.stringify(report) : report)
  if (bad.length) {
    console.error(`crash soak FAILED:\n- ${bad.join('\n- ')}`)
    process.exitCode = 1
  }
}

if (process.argv[1] && pathToFileURL(path.resolve(process.argv[1])).href === import.meta.url) {
  main(process.argv.slice(2)).catch((e) => {
    console.error(e)
    process.exit(1)
  })
}
