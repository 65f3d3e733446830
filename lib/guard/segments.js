'use strict'
// The segments of a command as the original's analyzer cuts them (LATER §2.4): split on
// `&&`, `||`, `;`, `|`, newlines and a bare `&`, never inside quotes, backticks or
// parentheses; each with its argv (quotes removed, substitutions skipped) and `normalized`
// (argv without leading assignments and the wrappers timeout/time/nice/nohup/stdbuf). This is
// what `commandsIn` matches; which paths a command touches is the analysis's business
// (`walk.js`), not this cut's.

const WRAPPERS = new Set(['timeout', 'time', 'nice', 'nohup', 'stdbuf'])

/** The segments of `command` with their source ranges: `[{ text, start, end }]`, and `balanced`. */
function split(command) {
  const segments = []
  let from = 0
  let quote = null
  let depth = 0
  let balanced = true
  const cut = (to, next) => {
    const raw = command.slice(from, to)
    const lead = raw.length - raw.trimStart().length
    const text = raw.trim()
    if (text) segments.push({ text, start: from + lead, end: from + lead + text.length })
    from = next
  }
  for (let i = 0; i < command.length; i++) {
    const c = command[i]
    if (quote) {
      if (c === '\\' && quote === '"' && i + 1 < command.length) i++
      else if (c === quote) quote = null
      continue
    }
    if (c === '\\' && i + 1 < command.length) {
      i++
      continue
    }
    if (c === "'" || c === '"' || c === '`') {
      quote = c
      continue
    }
    if (c === '(') depth++
    if (c === ')') {
      if (depth === 0) balanced = false
      else depth--
    }
    if (depth !== 0) continue
    const two = command.slice(i, i + 2)
    if (two === '&&' || two === '||') {
      cut(i, i + 2)
      i++
    } else if (c === ';' || c === '\n' || c === '|') cut(i, i + 1)
    else if (c === '&' && command[i + 1] !== '>' && command[i - 1] !== '>') cut(i, i + 1)
  }
  if (quote || depth !== 0) balanced = false
  cut(command.length, command.length)
  return { segments, balanced }
}

/** A segment's tokens: quotes removed, what `$(..)`, `<(..)`, `>(..)` and backticks hold skipped. */
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

/** argv without leading `VAR=val` assignments and the wrappers, repeatedly. */
function unwrap(tokens) {
  const t = tokens.slice()
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

module.exports = { split, tokenize, unwrap }
