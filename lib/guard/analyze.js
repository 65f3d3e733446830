'use strict'
// analyzeBash: what a shell command may touch, soundly. `paths` lists every path the command
// may read, write, run or change into — or `undecidable` is true. Each segment (the
// original's cut, for `commandsIn`) is `decidable: false` when something undecidable lies in
// it. See SPEC "Guard and elicit" for the rules and their limits.

const { lex } = require('./lex.js')
const { walk, State } = require('./walk.js')
const programs = require('./programs.js')
const { split, tokenize, unwrap } = require('./segments.js')

function analyzeBash(command) {
  const text = String(command ?? '')
  const st = new State()
  st.programs = programs
  const { tokens, problem } = lex(text)
  if (problem) st.fail(problem)
  else walk(tokens, text, st)
  const { segments, balanced } = split(text)
  const problems = st.problems
  const out = segments.map((s) => {
    const argv = unwrap(tokenize(s.text))
    const bad = !balanced || problems.some((p) => !p.at || (p.at[0] < s.end && p.at[1] > s.start))
    return { command: s.text, argv, normalized: argv.join(' '), decidable: !bad }
  })
  const undecidable = problems.length > 0 || !balanced
  // A problem no segment holds (in a here-document's body, say) still marks them all.
  if (undecidable && out.every((s) => s.decidable)) for (const s of out) s.decidable = false
  const result = { paths: st.paths, segments: out, undecidable }
  // Why, for people reading a guard's log (not part of the original's shape).
  Object.defineProperty(result, 'reasons', { value: problems.map((p) => p.reason), enumerable: false })
  return result
}

module.exports = { analyzeBash }
