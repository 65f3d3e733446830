'use strict'
// A reader for sed scripts, for the guard's analyzer: which files the script reads or writes
// (`r`, `R`, `w`, `W`, `s///w`) and whether it runs commands (`e`, `s///e`). Returns
// `{ files, exec }`, or null for a script it cannot read (a command it does not know).

const SIMPLE = new Set(['=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F'])

module.exports = function sedScript(s) {
  const files = []
  let exec = false
  let i = 0
  const eol = () => {
    const e = s.indexOf('\n', i)
    const line = s.slice(i, e < 0 ? s.length : e)
    i = e < 0 ? s.length : e + 1
    return line
  }
  // A delimited part (`/re/`, `s` parts, `y` parts), the delimiter at s[i].
  const delimited = () => {
    const d = s[i++]
    if (d === undefined || d === '\n' || d === '\\') return false
    while (i < s.length && s[i] !== d) {
      if (s[i] === '\\') i++
      else if (s[i] === '\n') return false
      i++
    }
    if (i >= s.length) return false
    i++
    return true
  }
  const address = () => {
    if (/\d/.test(s[i])) {
      while (/[\d~]/.test(s[i] || '')) i++
      return true
    }
    if (s[i] === '$') {
      i++
      return true
    }
    if (s[i] === '/') {
      if (!delimited()) return null
    } else if (s[i] === '\\') {
      i++
      if (!delimited()) return null
    } else return false
    while (/[IM]/.test(s[i] || '')) i++
    return true
  }
  while (i < s.length) {
    while (/[\s;]/.test(s[i] || '')) i++
    if (i >= s.length) break
    if (s[i] === '#') {
      eol()
      continue
    }
    const a = address()
    if (a === null) return null
    if (a) {
      while (s[i] === ' ') i++
      if (s[i] === ',') {
        i++
        while (s[i] === ' ') i++
        if (s[i] === '+' || s[i] === '~') {
          i++
          while (/\d/.test(s[i] || '')) i++
        } else if (address() !== true) return null
      }
    }
    while (/[\s!]/.test(s[i] || '')) i++
    const c = s[i++]
    if (c === undefined) return null
    if (c === '{' || c === '}') continue
    if (SIMPLE.has(c)) continue
    if ('qQlL'.includes(c)) {
      while (/[\d ]/.test(s[i] || '')) i++
      continue
    }
    if ('btT:v'.includes(c)) {
      while (i < s.length && !/[;\n]/.test(s[i])) i++
      continue
    }
    if ('aic'.includes(c)) {
      // Text to the end of the line; a trailing backslash continues it.
      for (;;) {
        const line = eol()
        if (!line.endsWith('\\') || i >= s.length) break
      }
      continue
    }
    if ('rRwW'.includes(c)) {
      const f = eol().trim()
      if (!f) return null
      if (f !== '/dev/stdout' && f !== '/dev/stderr' && f !== '/dev/stdin') files.push(f)
      continue
    }
    if (c === 'e') {
      exec = true
      eol()
      continue
    }
    if (c === 's') {
      const d = s[i]
      if (!delimited()) return null
      i-- // the closing delimiter opens the replacement
      if (s[i] !== d || !delimited()) return null
      let flags = ''
      while (i < s.length && /[gpiImMe\dw]/.test(s[i])) {
        if (s[i] === 'w') {
          i++
          const f = eol().trim()
          if (!f) return null
          if (f !== '/dev/stdout' && f !== '/dev/stderr') files.push(f)
          flags += 'w'
          break
        }
        flags += s[i++]
      }
      if (flags.includes('e')) exec = true
      continue
    }
    if (c === 'y') {
      const d = s[i]
      if (!delimited()) return null
      i--
      if (s[i] !== d || !delimited()) return null
      continue
    }
    return null
  }
  return { files, exec }
}
