'use strict'
// The shell lexer of the guard's analyzer: a command string → words (with their quoting and
// expansions kept apart), operators and redirections, here-document bodies attached to their
// redirection. It follows bash's rules (a superset of the POSIX sh the tools run, which is
// dash on Debian): where the two read a construct differently, the expansion step keeps both
// readings. What it cannot read (an unbalanced quote or substitution) is reported in
// `problem`, and the analysis is then undecidable.

const OPERATORS = [';;&', '&&', '||', ';;', ';&', '|&', '|', '&', ';', '(', ')']
const REDIRECTS = ['<<<', '<<-', '&>>', '<<', '<>', '<&', '>>', '>|', '>&', '&>', '<', '>']
const BLANK = /[ \t]/
const META = /[ \t\n|&;()<>]/

/** The index just after the `)` closing a `$(`/`<(`/`>(` opened before `i`, or -1. */
function closeParen(s, i) {
  let depth = 1
  while (i < s.length) {
    const c = s[i]
    if (c === '\\') i += 2
    else if (c === "'") {
      const e = s.indexOf("'", i + 1)
      if (e < 0) return -1
      i = e + 1
    } else if (c === '"') {
      const e = closeDouble(s, i + 1)
      if (e < 0) return -1
      i = e
    } else if (c === '`') {
      const e = closeBacktick(s, i + 1)
      if (e < 0) return -1
      i = e
    } else {
      if (c === '(') depth++
      else if (c === ')' && --depth === 0) return i + 1
      i++
    }
  }
  return -1
}

/** The index just after the `"` closing a double-quoted string that starts at `i`, or -1. */
function closeDouble(s, i) {
  while (i < s.length) {
    const c = s[i]
    if (c === '\\') i += 2
    else if (c === '"') return i + 1
    else if (c === '`') {
      const e = closeBacktick(s, i + 1)
      if (e < 0) return -1
      i = e
    } else if (c === '$' && s[i + 1] === '(') {
      const e = closeParen(s, i + 2)
      if (e < 0) return -1
      i = e
    } else i++
  }
  return -1
}

function closeBacktick(s, i) {
  while (i < s.length) {
    if (s[i] === '\\') i += 2
    else if (s[i] === '`') return i + 1
    else i++
  }
  return -1
}

/** The index just after the `}` closing a `${` opened before `i`, or -1. */
function closeBrace(s, i) {
  let depth = 1
  while (i < s.length) {
    const c = s[i]
    if (c === '\\') i += 2
    else if (c === "'" || c === '"') {
      const e = c === "'" ? s.indexOf("'", i + 1) + 1 : closeDouble(s, i + 1)
      if (e <= 0) return -1
      i = e
    } else {
      if (c === '{') depth++
      else if (c === '}' && --depth === 0) return i + 1
      i++
    }
  }
  return -1
}

const ESCAPES = { a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', "'": "'", '"': '"', '?': '?' }

/** Decodes the body of a bash `$'…'` string (ANSI-C escapes). */
function decodeAnsi(body) {
  let out = ''
  for (let i = 0; i < body.length; i++) {
    const c = body[i]
    if (c !== '\\' || i + 1 >= body.length) {
      out += c
      continue
    }
    const d = body[++i]
    if (d in ESCAPES) out += ESCAPES[d]
    else if (/[0-7]/.test(d)) {
      const m = body.slice(i).match(/^[0-7]{1,3}/)[0]
      out += String.fromCharCode(parseInt(m, 8) & 0xff)
      i += m.length - 1
    } else if (d === 'x' || d === 'u' || d === 'U') {
      const max = d === 'x' ? 2 : d === 'u' ? 4 : 8
      const m = body.slice(i + 1).match(new RegExp(`^[0-9A-Fa-f]{1,${max}}`))
      if (!m) out += '\\' + d
      else {
        const code = parseInt(m[0], 16)
        out += code <= 0x10ffff ? String.fromCodePoint(code) : ''
        i += m[0].length
      }
    } else if (d === 'c' && i + 1 < body.length) {
      out += String.fromCharCode(body.charCodeAt(++i) & 0x1f)
    } else out += '\\' + d
  }
  return out
}

/**
 * Lexes `src`. Returns `{ tokens, problem }`: words `{ k: 'w', parts, start, end }` (parts:
 * `{ t: 'lit', v, q }` text, `q` when quoted; `{ t: 'ansi', v, raw }` a `$'…'` string;
 * `{ t: 'var', name }` a parameter; `{ t: 'sp', v }` a special parameter (`$?`, `$1`…);
 * `{ t: 'sub', kind, text }` a command, arithmetic, complex parameter or process
 * substitution), operators `{ k: 'op', v, start, end }` and redirections `{ k: 'r', v, fd,
 * target, heredoc?, start, end }`.
 */
function lex(src) {
  const tokens = []
  const pending = [] // here-documents waiting for the next newline
  let problem = null
  let i = 0
  const fail = (why) => {
    if (!problem) problem = why
  }

  // One word starting at `i` (stops at an unquoted blank or metacharacter).
  function word() {
    const start = i
    const parts = []
    const lit = (v, q) => {
      const last = parts[parts.length - 1]
      if (last && last.t === 'lit' && last.q === q) last.v += v
      else parts.push({ t: 'lit', v, q })
    }
    // `$…` at `i` (inside double quotes when `dq`). Returns false when it is a plain `$`.
    const dollar = (dq) => {
      const n = src[i + 1]
      if (n === "'" && !dq) {
        let j = i + 2
        while (j < src.length && src[j] !== "'") j += src[j] === '\\' ? 2 : 1
        if (j >= src.length) {
          fail('an unterminated $\'…\' string')
          i = src.length
          return true
        }
        const raw = src.slice(i + 2, j)
        parts.push({ t: 'ansi', v: decodeAnsi(raw), raw })
        i = j + 1
        return true
      }
      if (n === '(' && src[i + 2] === '(') {
        const e = src.indexOf('))', i + 3)
        const f = closeParen(src, i + 2)
        // `$((…))` is arithmetic when its parentheses close as `))`; else `$( (…) )`.
        if (e >= 0 && (f < 0 || f >= e + 2)) {
          parts.push({ t: 'sub', kind: 'arith', text: src.slice(i + 3, e) })
          i = e + 2
          return true
        }
      }
      if (n === '(') {
        const e = closeParen(src, i + 2)
        if (e < 0) {
          fail('an unterminated $(')
          i = src.length
        } else i = e
        parts.push({ t: 'sub', kind: 'command', text: src.slice(start, i) })
        return true
      }
      if (n === '{') {
        const e = closeBrace(src, i + 2)
        if (e < 0) {
          fail('an unterminated ${')
          i = src.length
          parts.push({ t: 'sub', kind: 'parameter', text: '' })
          return true
        }
        const body = src.slice(i + 2, e - 1)
        if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(body)) parts.push({ t: 'var', name: body, q: dq })
        else if (/^(?:[0-9]|[@*#?$!-])$/.test(body)) parts.push({ t: 'sp', v: body, q: dq })
        else parts.push({ t: 'sub', kind: 'parameter', text: body, q: dq })
        i = e
        return true
      }
      if (n !== undefined && /[A-Za-z_]/.test(n)) {
        const m = src.slice(i + 1).match(/^[A-Za-z_][A-Za-z0-9_]*/)[0]
        parts.push({ t: 'var', name: m, q: dq })
        i += 1 + m.length
        return true
      }
      if (n !== undefined && /[0-9@*#?$!-]/.test(n)) {
        parts.push({ t: 'sp', v: n, q: dq })
        i += 2
        return true
      }
      return false
    }
    const backtick = () => {
      const e = closeBacktick(src, i + 1)
      if (e < 0) {
        fail('an unterminated backtick')
        i = src.length
      } else i = e
      parts.push({ t: 'sub', kind: 'backtick', text: '' })
    }
    // A process substitution opening the word.
    if ((src[i] === '<' || src[i] === '>') && src[i + 1] === '(') {
      const e = closeParen(src, i + 2)
      if (e < 0) fail('an unterminated process substitution')
      i = e < 0 ? src.length : e
      parts.push({ t: 'sub', kind: 'process', text: '' })
    }
    while (i < src.length) {
      const c = src[i]
      if (META.test(c)) break
      if (c === '\\') {
        if (src[i + 1] === '\n') i += 2
        else if (i + 1 < src.length) {
          lit(src[i + 1], true)
          i += 2
        } else {
          lit('\\', false)
          i++
        }
      } else if (c === "'") {
        const e = src.indexOf("'", i + 1)
        if (e < 0) {
          fail('an unterminated single quote')
          lit(src.slice(i + 1), true)
          i = src.length
        } else {
          lit(src.slice(i + 1, e), true)
          i = e + 1
        }
      } else if (c === '"' || (c === '$' && src[i + 1] === '"')) {
        if (c === '$') i++
        i++
        let closed = false
        while (i < src.length) {
          const d = src[i]
          if (d === '"') {
            closed = true
            i++
            break
          }
          if (d === '\\' && i + 1 < src.length) {
            const e = src[i + 1]
            if (e === '\n') i += 2
            else {
              lit('$`"\\'.includes(e) ? e : '\\' + e, true)
              i += 2
            }
          } else if (d === '`') backtick()
          else if (d === '$' && dollar(true)) continue
          else {
            lit(d, true)
            i++
          }
        }
        // An empty "" still makes a (quoted, empty) word.
        if (closed) lit('', true)
        else fail('an unterminated double quote')
      } else if (c === '`') backtick()
      else if (c === '$' && dollar(false)) continue
      else {
        lit(c, false)
        i++
      }
    }
    return { k: 'w', parts, start, end: i }
  }

  function heredocBodies() {
    for (const h of pending.splice(0)) {
      let body = ''
      for (;;) {
        if (i >= src.length) {
          // bash reads to the end (with a warning); the body is what there is.
          break
        }
        const nl = src.indexOf('\n', i)
        const line = src.slice(i, nl < 0 ? src.length : nl)
        i = nl < 0 ? src.length : nl + 1
        const cmp = h.strip ? line.replace(/^\t+/, '') : line
        if (cmp === h.delim) break
        body += line + '\n'
      }
      h.tok.heredoc = { body, quoted: h.quoted }
    }
  }

  // The redirection `op` at `i` (its fd, if any, started at `start`), with its target word.
  function redirection(op, fd, start) {
    const tok = { k: 'r', v: op, fd, start, end: i + op.length }
    i += op.length
    while (i < src.length && BLANK.test(src[i])) i++
    tokens.push(tok)
    if (i >= src.length || META.test(src[i])) {
      fail(`a redirection without a target (${op})`)
      return
    }
    tok.target = word()
    tok.end = i
    if (op === '<<' || op === '<<-') {
      const raw = src.slice(tok.target.start, tok.target.end)
      const delim = tok.target.parts.map((p) => (p.t === 'lit' || p.t === 'ansi' ? p.v : '')).join('')
      pending.push({ tok, delim, quoted: /['"\\]/.test(raw), strip: op === '<<-' })
    }
  }

  while (i < src.length) {
    const c = src[i]
    if (BLANK.test(c)) {
      i++
      continue
    }
    if (c === '\\' && src[i + 1] === '\n') {
      i += 2
      continue
    }
    if (c === '#') {
      while (i < src.length && src[i] !== '\n') i++
      continue
    }
    if (c === '\n') {
      tokens.push({ k: 'op', v: '\n', start: i, end: i + 1 })
      i++
      heredocBodies()
      continue
    }
    const redirect = (c === '<' || c === '>') && src[i + 1] === '(' ? null : REDIRECTS.find((r) => src.startsWith(r, i))
    if (redirect) {
      redirection(redirect, null, i)
      continue
    }
    const op = OPERATORS.find((o) => src.startsWith(o, i))
    if (op) {
      tokens.push({ k: 'op', v: op, start: i, end: i + op.length })
      i += op.length
      continue
    }
    const w = word()
    // `2>f`, `{fd}>f`: a word of digits (or `{name}`) glued to a redirection is its fd.
    if ((src[i] === '<' || src[i] === '>') && src[i + 1] !== '(') {
      const raw = src.slice(w.start, w.end)
      const glued = REDIRECTS.find((r) => src.startsWith(r, i))
      if (glued && (/^[0-9]+$/.test(raw) || /^\{[A-Za-z_][A-Za-z0-9_]*\}$/.test(raw))) {
        redirection(glued, raw, w.start)
        continue
      }
    }
    if (w.end === w.start) {
      // Nothing consumed: a character no rule takes (cannot happen with META above).
      fail(`an unexpected character ${JSON.stringify(c)}`)
      i++
      continue
    }
    tokens.push(w)
  }
  if (pending.length) heredocBodies()
  return { tokens, problem }
}

module.exports = { lex, closeParen, decodeAnsi }
