// `npm run soak`: the heavy abuse run, the figures SECURITY.md quotes. Well under 10 minutes.
//   SOAK_FUZZ_COUNT (default 25000)  fuzzed calls across all nine tools
//   SOAK_SEED       (default random)  the fuzz seed, printed so a failure can be replayed
//   SOAK_RACE_MS    (default 20000)   how long the directory/symlink swap race runs
//   SOAK_KILLS      (default 200)     SIGKILLs of a write/edit/multi_edit/apply_patch loop
//                                     (soak/crash.mjs), with commits paused so kills land
//                                     mid-commit and recovery is exercised
// Exit code 0 only when there are zero failures and zero escapes.
import { setWarnSink } from '../index.mjs'
import { runFuzz } from '../__test__/fuzz-gen.mjs'
import { runRace } from '../__test__/escape-fixture.mjs'
import { runCrashes, violations } from './crash.mjs'

const count = Number(process.env.SOAK_FUZZ_COUNT || 25000)
const seed = Number(process.env.SOAK_SEED || Math.floor(Math.random() * 2 ** 32))
const raceMs = Number(process.env.SOAK_RACE_MS || 20000)
const kills = Number(process.env.SOAK_KILLS || 200)
const log = (s) => console.log(`soak: ${s}`)

const started = Date.now()
log(`fuzz seed ${seed} (replay: SOAK_SEED=${seed} SOAK_FUZZ_COUNT=${count} npm run soak)`)
const fuzz = await runFuzz({ count, seed, concurrency: 4, log })
for (const f of fuzz.failures.slice(0, 50)) console.log(`FAIL ${f}`)

const warned = []
const race = await runRace(raceMs, log, (line) => warned.push(line))
setWarnSink(null)
const raceWritten = JSON.stringify(race.before) !== JSON.stringify(race.after)
for (const l of race.leaks.slice(0, 20)) console.log(`LEAK ${l}`)
if (raceWritten) console.log('LEAK the race wrote outside the workspace')

const crash = await runCrashes({ kills, pauseMs: 30 })
const crashBad = violations(crash)
for (const v of crashBad) console.log(`CRASH ${v}`)

const ok = fuzz.failures.length === 0 && race.leaks.length === 0 && !raceWritten && crashBad.length === 0
log(`summary: ${fuzz.stats.calls} fuzzed calls, ${fuzz.failures.length} failures; race ${race.flips} flips, ${race.stats.calls} calls, ${race.leaks.length + (raceWritten ? 1 : 0)} escapes; ${kills} SIGKILLs, ${crash.mixedAfterRecovery} mixed states after recovery, ${crashBad.length} violations; ${Math.round((Date.now() - started) / 1000)} s`)
process.exit(ok ? 0 : 1)
