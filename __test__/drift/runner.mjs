// Applies every drift case through the public API (edit_file, and multi_edit for every other
// case) and classifies the outcome. Run directly (`node __test__/drift/runner.mjs [--verbose]`)
// to print the table; __test__/drift.test.mjs asserts on it.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { createAgentTools } from '../../index.mjs'
import { CATEGORIES, generate } from './generate.mjs'
import { hasPython, pythonCompiles } from './sources.mjs'

export const OUTCOMES = ['correct', 'wrong-indent', 'refused-useful', 'refused-useless', 'wrong']

/** What a refusal must mention to count as a useful diagnosis, per category. */
const USEFUL = {
  'indent-shift': /whitespace|indent/i,
  'tabs-spaces': /whitespace|indent|tab/i,
  'trailing-ws': /whitespace/i,
  'crlf': /line ending|whitespace|line \d/i,
  'line-prefix': /line-number prefix/,
  'smart-quotes': /quote/i,
  'blank-lines': /blank line/i,
  'partial-line': /line \d|lines \d/,
  'escapes': /escape/i,
  'ambiguity': /./,
  'inline-ws': /whitespace|indent/i,
}

/** Lines with leading/trailing whitespace and terminators ignored: "right region, wrong indentation". */
const loose = (s) => s.split(/\r?\n/).map((l) => l.trim()).join('\n')

/**
 * Runs the cases and returns `{ rows, table, results, pyFailures }`; each result is
 * `{ case, outcome, tool, message }`.
 */
export async function runCases(cases = generate()) {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'drift-')))
  const tools = createAgentTools({ workspaceRoot: root })
  const results = []
  try {
    for (const [i, c] of cases.entries()) {
      const ext = path.extname(c.file) || '.txt'
      const rel = `case${i}${ext}`
      const abs = path.join(root, rel)
      fs.writeFileSync(abs, c.fileText)
      const useMulti = i % 2 === 1
      const r = useMulti
        ? await tools.callTool('multi_edit', { path: rel, edits: [{ old_string: c.old, new_string: c.new }] })
        : await tools.callTool('edit_file', { path: rel, old_string: c.old, new_string: c.new })
      const after = fs.readFileSync(abs, 'utf8')
      const changed = after !== c.fileText
      let outcome
      const message = r.isError ? JSON.parse(r.text).message : r.text
      if (c.expect === 'edit') {
        if (r.isError) outcome = USEFUL[c.category].test(message.replace(/^edit\[0\]: /, '').slice(BASE_LEN)) ? 'refused-useful' : 'refused-useless'
        else if (after === c.expected) outcome = 'correct'
        else if (loose(after) === loose(c.expected)) outcome = 'wrong-indent'
        else outcome = 'wrong'
      } else if (changed || !r.isError) {
        outcome = 'wrong'
      } else {
        const code = JSON.parse(r.text).error
        const good = c.expect === 'prefix' ? code === 'no_match' && USEFUL['line-prefix'].test(message) : code === 'ambiguous_match'
        outcome = good ? 'correct' : 'refused-useless'
      }
      results.push({ case: c, outcome, tool: useMulti ? 'multi_edit' : 'edit_file', message, after })
      fs.rmSync(abs)
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true })
  }
  let pyFailures = null
  if (hasPython()) {
    const edited = results.filter((r) => r.case.lang === 'python' && r.after !== r.case.fileText)
    const ok = pythonCompiles(edited.map((r) => r.after.replace(/\r\n/g, '\n')))
    pyFailures = edited.filter((_, i) => !ok[i]).length
  }
  for (const r of results) delete r.after
  const rows = CATEGORIES.map((cat) => {
    const row = { category: cat, total: 0 }
    for (const o of OUTCOMES) row[o] = 0
    for (const r of results) if (r.case.category === cat) { row[o(r)]++; row.total++ }
    return row
  })
  function o(r) { return r.outcome }
  return { rows, table: render(rows, results, pyFailures), results, pyFailures }
}

const BASE_LEN = 'old_string not found. It must match the file byte-for-byte (whitespace, indentation, and line breaks included) and must NOT include the line-number prefixes shown by read_file. Re-read the exact region and copy the text verbatim.'.length

function render(rows, results, pyFailures) {
  const head = ['category', ...OUTCOMES, 'total']
  const body = rows.map((r) => [r.category, ...OUTCOMES.map((o) => String(r[o])), String(r.total)])
  const sum = ['ALL', ...OUTCOMES.map((o) => String(rows.reduce((a, r) => a + r[o], 0))), String(results.length)]
  const all = [head, ...body, sum]
  const widths = head.map((_, i) => Math.max(...all.map((r) => r[i].length)))
  const line = (r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ')
  const correct = results.filter((r) => r.outcome === 'correct').length
  const langs = [...new Set(results.map((r) => r.case.lang))].map((l) => {
    const mine = results.filter((r) => r.case.lang === l)
    return `${l} ${mine.filter((r) => r.outcome === 'correct').length}/${mine.length}`
  })
  return [
    line(head), ...body.map(line), line(sum),
    `correct: ${correct}/${results.length} (${((100 * correct) / Math.max(1, results.length)).toFixed(1)}%); by language: ${langs.join(', ')}`,
    `python results that no longer compile: ${pyFailures ?? 'n/a (no python3)'}`,
  ].join('\n')
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { table, results } = await runCases()
  if (process.argv.includes('--verbose')) {
    for (const r of results.filter((x) => x.outcome !== 'correct')) {
      console.log(`--- ${r.outcome} ${r.case.category}/${r.case.variant} ${r.case.lang} ${r.case.file}:${r.case.line} via ${r.tool}`)
      console.log(`    ${r.message.slice(0, 400)}`)
      if (process.argv.includes('--strings')) console.log(JSON.stringify({ old: r.case.old, new: r.case.new }))
    }
  }
  console.log(table)
}
