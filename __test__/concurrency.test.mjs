// Concurrency: 200 calls in flight at once on one workspace — edit_file and multi_edit on the
// same few files, apply_patch over overlapping file sets, write_file rewriting a file others
// read, read_file and grep. Every successful edit's change must be present at the end (no
// lost update), everything must finish within a generous bound (no deadlock), and every read
// must see one whole version of a file (no torn read).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { workspace } from './helpers.mjs'

const FILES = ['a.txt', 'b.txt', 'c.txt']
const SLOTS = 100
const PAD = 'padding so the files are large enough for writes to take a while '.repeat(3)

// Shared files: one `<file> slot <i>: todo` line per slot, padding between. A mutation
// turns its own slots into `... done by <call>`; no two calls share a slot.
function initial(file) {
  const lines = []
  for (let i = 0; i < SLOTS; i++) lines.push(`${file} slot ${i}: todo`, `${PAD}${i}`, `${PAD}${i} again`)
  return lines.join('\n') + '\n'
}
const todo = (file, slot) => `${file} slot ${slot}: todo`
const done = (file, slot, by) => `${file} slot ${slot}: done by ${by}`

// The rewritten file: version k is `W v<k> line <i>` for every line, so a read sees either
// one version whole or something that is not a version at all.
const W_LINES = 1500
const wVersion = (k) => Array.from({ length: W_LINES }, (_, i) => `W v${k} line ${i} ${PAD}`).join('\n') + '\n'

/** The lines of a read_file result (the `%6d\t` prefix removed). */
const readLines = (text) => text.split('\n').map((l) => l.replace(/^ *\d+\t/, ''))

/** Whether `lines` is a state a shared file can be in: every slot todo or done, in order. */
function validShared(file, lines) {
  if (lines.length !== SLOTS * 3) return false
  for (let i = 0; i < SLOTS; i++) {
    const l = lines[3 * i]
    if (l !== todo(file, i) && !l.startsWith(`${file} slot ${i}: done by `)) return false
    if (lines[3 * i + 1] !== `${PAD}${i}` || lines[3 * i + 2] !== `${PAD}${i} again`) return false
  }
  return true
}

function validW(lines) {
  const m = /^W v(\d+) line 0 /.exec(lines[0] || '')
  return !!m && lines.length === W_LINES && lines.every((l, i) => l === `W v${m[1]} line ${i} ${PAD}`)
}

test('200 concurrent calls: no lost update, no deadlock, no torn read', async () => {
  const files = Object.fromEntries(FILES.map((f) => [f, initial(f)]))
  files['w.txt'] = wVersion(0)
  const ws = workspace(files, { maxOutputBytes: 1 << 20 })
  const next = Object.fromEntries(FILES.map((f) => [f, 0]))
  const slot = (file) => next[file]++
  const expected = [] // [file, slot, by] for every mutation, checked when it succeeded
  const calls = []
  const mutation = (by, claims, run) => calls.push({ by, claims, kind: 'mutation', run })

  for (let n = 0; n < 200; n++) {
    const by = `call-${n}`
    const file = FILES[n % 3]
    switch (n % 10) {
      case 0:
      case 1:
      case 2: {
        const s = slot(file)
        mutation(by, [[file, s]], () =>
          ws.call('edit_file', { path: file, old_string: todo(file, s), new_string: done(file, s, by) }),
        )
        break
      }
      case 3:
      case 4: {
        const [s1, s2] = [slot(file), slot(file)]
        mutation(by, [[file, s1], [file, s2]], () =>
          ws.call('multi_edit', {
            path: file,
            edits: [
              { old_string: todo(file, s2), new_string: done(file, s2, by) },
              { old_string: todo(file, s1), new_string: done(file, s1, by) },
            ],
          }),
        )
        break
      }
      case 5:
      case 6: {
        // Overlapping sets: {a,b}, {b,c}, {a,c}, {a,b,c}.
        const sets = [['a.txt', 'b.txt'], ['b.txt', 'c.txt'], ['a.txt', 'c.txt'], FILES]
        const set = sets[n % 4]
        const claims = set.map((f) => [f, slot(f)])
        const body = claims.map(([f, s]) => `*** Update File: ${f}\n@@\n-${todo(f, s)}\n+${done(f, s, by)}`)
        const patch = `*** Begin Patch\n${body.join('\n')}\n*** End Patch\n`
        mutation(by, claims, () => ws.call('apply_patch', { patch }))
        break
      }
      case 7:
        calls.push({ kind: 'write', run: () => ws.call('write_file', { path: 'w.txt', content: wVersion(n) }) })
        break
      case 8:
        calls.push({
          kind: 'read',
          run: async () => {
            const target = n % 20 === 8 ? 'w.txt' : file
            const r = await ws.call('read_file', { path: target })
            return { r, target }
          },
        })
        break
      default:
        calls.push({ kind: 'grep', run: () => ws.call('grep', { pattern: 'slot \\d+: ', output_mode: 'count' }) })
    }
  }
  for (const c of calls) if (c.claims) for (const [f, s] of c.claims) expected.push([f, s, c.by])
  const kinds = {}
  for (const c of calls) kinds[c.kind] = (kinds[c.kind] || 0) + 1
  assert.deepEqual(kinds, { mutation: 140, write: 20, read: 20, grep: 20 })

  let timer
  const bound = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error('deadlock: 200 calls did not finish within 60 s')), 60_000)
  })
  // Every call starts before any finishes.
  const results = await Promise.race([Promise.all(calls.map((c) => c.run())), bound])
  clearTimeout(timer)

  const failures = []
  results.forEach((res, i) => {
    const c = calls[i]
    if (c.kind === 'read') {
      if (res.r.isError) failures.push(`read ${res.target}: ${res.r.text}`)
      else {
        const lines = readLines(res.r.text)
        const ok = res.target === 'w.txt' ? validW(lines) : validShared(res.target, lines)
        if (!ok) failures.push(`torn read of ${res.target}`)
      }
    } else if (c.kind === 'grep') {
      // Each shared file always holds exactly SLOTS slot lines, whatever the interleaving.
      if (res.isError) failures.push(`grep: ${res.text}`)
      else assert.deepEqual(res.text.split('\n').sort(), FILES.map((f) => `${f}:${SLOTS}`), 'grep saw a torn file')
    } else if (res.isError) failures.push(`${c.by || c.kind}: ${res.text}`)
  })
  assert.deepEqual(failures, [], 'every call succeeded and every read saw a whole version')

  // No lost update: every mutation's own lines are there, every other slot is untouched.
  for (const f of FILES) {
    const r = await ws.call('read_file', { path: f })
    const lines = readLines(r.text)
    assert.ok(validShared(f, lines), `${f} is a valid state`)
    const want = new Map(expected.filter(([ef]) => ef === f).map(([, s, by]) => [s, by]))
    for (let i = 0; i < SLOTS; i++) {
      assert.equal(lines[3 * i], want.has(i) ? done(f, i, want.get(i)) : todo(f, i), `${f} slot ${i}`)
    }
  }
  const w = readLines((await ws.call('read_file', { path: 'w.txt' })).text)
  assert.ok(validW(w), 'w.txt ends as one whole version')
})
