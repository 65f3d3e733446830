'use strict'
// Word expansion for the guard's analyzer: a lexed word → the fields the shell would pass
// (brace expansion, tilde, special parameters, arithmetic, quote removal), each marked when
// it is a glob; and the path candidates a field or an argument piece may name. Anything the
// analysis cannot reproduce exactly (a `$VAR`, a command substitution) is reported, never
// guessed: the caller then calls the command undecidable.

const GLOB = /[*?]|\[.*\]/
const NAME_EXT = /^[\w][\w.+-]*\.[A-Za-z][A-Za-z0-9]*$/
const URL = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//
const MAX_FIELDS = 256

// Placeholders for quoted text and expansions inside a template (private-use characters):
// brace expansion and glob detection see only the unquoted text around them.
const PH_BASE = 0xe000
const ph = (n) => String.fromCharCode(PH_BASE + n)
const PH_RE = /[\ue000-\uefff]/g

/** Whether arithmetic `text` cannot run anything: numbers and operators only. */
function arithSafe(text) {
  return /^[\s0-9+\-*/%<>=!&|^~?:(),]*$/.test(text)
}

/** The value of a special parameter in `sh -c <command>`, or undefined when unknown. */
function special(v, st) {
  if (v === '?' || v === '#' || v === '$' || v === '!') return '0'
  if (v === '-') return 'hB'
  if (v === '0') return 'sh'
  // Positional parameters are empty unless `set --` gave some.
  if (/^[1-9@*]$/.test(v)) return st.positional ? undefined : ''
  return undefined
}

/** Bash's brace expansion of `s` (placeholders are opaque); null past MAX_FIELDS words. */
function braces(s) {
  for (let i = 0; i < s.length; i++) {
    if (s[i] !== '{') continue
    let depth = 0
    let end = -1
    const commas = []
    for (let j = i; j < s.length; j++) {
      if (s[j] === '{') depth++
      else if (s[j] === '}' && --depth === 0) {
        end = j
        break
      } else if (s[j] === ',' && depth === 1) commas.push(j)
    }
    if (end < 0) return [s]
    const body = s.slice(i + 1, end)
    let alts = null
    if (commas.length) {
      alts = []
      let from = i + 1
      for (const c of commas) {
        alts.push(s.slice(from, c))
        from = c + 1
      }
      alts.push(s.slice(from, end))
    } else {
      const m = body.match(/^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?$/)
      if (m) alts = sequence(m)
      if (alts === null) continue // `{}`, `{a}`: literal
    }
    if (alts.length > MAX_FIELDS) return null
    const out = []
    for (const a of alts) {
      const sub = braces(s.slice(0, i) + a + s.slice(end + 1))
      if (sub === null || out.length + sub.length > MAX_FIELDS) return null
      out.push(...sub)
    }
    return out
  }
  return [s]
}

function sequence(m) {
  const num = /^-?\d+$/.test(m[1]) && /^-?\d+$/.test(m[2])
  if (!num && (/\d/.test(m[1]) || /\d/.test(m[2]))) return null
  const a = num ? Number(m[1]) : m[1].charCodeAt(0)
  const b = num ? Number(m[2]) : m[2].charCodeAt(0)
  const step = Math.abs(Number(m[3] || 1)) || 1
  const n = Math.floor(Math.abs(b - a) / step) + 1
  if (n > MAX_FIELDS) return new Array(MAX_FIELDS + 1)
  const out = []
  for (let k = 0; k < n; k++) {
    const v = a + (b >= a ? k : -k) * step
    out.push(num ? String(v) : String.fromCharCode(v))
  }
  return out
}

/**
 * Expands a lexed word. Returns `{ fields: [{ text, glob, alts }] }` — `alts` are other
 * strings the same field may be (dash reads `$'…'` as `$` and the quoted text) — or
 * `{ problem }` naming what cannot be reproduced. `assignment` expands the value of an
 * assignment: no brace expansion, no splitting, one field.
 */
function expand(word, st, assignment = false) {
  const slots = []
  let template = ''
  for (const p of word.parts) {
    if (p.t === 'lit') {
      if (p.q) {
        slots.push({ text: p.v })
        template += ph(slots.length - 1)
      } else template += p.v
    } else if (p.t === 'ansi') {
      slots.push({ text: p.v, dash: '$' + p.raw })
      template += ph(slots.length - 1)
    } else if (p.t === 'sp') {
      const v = special(p.v, st)
      if (v === undefined) return { problem: `the parameter $${p.v}` }
      slots.push({ text: v, unquoted: !p.q })
      template += ph(slots.length - 1)
    } else if (p.t === 'var') {
      return { problem: `the variable $${p.name}` }
    } else if (p.kind === 'arith' && arithSafe(p.text)) {
      slots.push({ text: '0' })
      template += ph(slots.length - 1)
    } else {
      return { problem: `a ${p.kind === 'arith' ? 'arithmetic expansion with names' : p.kind + ' substitution'}` }
    }
  }
  const words = assignment ? [template] : braces(template)
  if (words === null) return { problem: 'a brace expansion of more than 256 words' }
  const fill = (w) => w.replace(PH_RE, (c) => slots[c.charCodeAt(0) - PH_BASE].text)
  const fields = []
  // `/etc/{a,b}` also names its literal directory, `/etc` (as the original reports it).
  const braceDir = words.length > 1 ? globDir(fill(template)) : undefined
  for (const w of words) {
    // Tilde: `~` and `~/…` stay (the guard resolves them to $HOME); `~user`, `~+`, `~-` are
    // beyond the analysis. (In an assignment, after each `:` too.)
    const heads = assignment ? w.split(':') : [w]
    for (const h of heads) {
      const m = h.match(/^~[^/\ue000-\uefff]*/)
      if (m && m[0] !== '~') return { problem: `the tilde prefix ${m[0]}` }
    }
    const raw = w.replace(PH_RE, '')
    const glob = !assignment && GLOB.test(raw)
    const text = fill(w)
    const used = [...w.matchAll(PH_RE)].map((m) => slots[m[0].charCodeAt(0) - PH_BASE])
    const alts = used.some((s) => s.dash !== undefined) ? [w.replace(PH_RE, (c) => { const s = slots[c.charCodeAt(0) - PH_BASE]; return s.dash ?? s.text })] : []
    // An unquoted word that expands to nothing is no field at all.
    if (text === '' && !used.some((s) => !s.unquoted)) continue
    fields.push({ text, glob, alts })
  }
  return { fields, braceDir }
}

/** The literal directory a glob names: before its first wildcard, `.` or `/` when none. */
function globDir(text) {
  const cut = text.search(/[*?[{]/)
  const prefix = cut < 0 ? text : text.slice(0, cut)
  const slash = prefix.lastIndexOf('/')
  if (slash < 0) return prefix.startsWith('~') && cut < 0 ? prefix : '.'
  if (slash === 0) return '/'
  return prefix.slice(0, slash)
}

/** Whether a glob climbs (`..` as a path segment). */
function climbs(text) {
  return text.split('/').includes('..')
}

/** A local path a URL names (`file://…`), null for any other URL, undefined for no URL. */
function urlPath(t) {
  const m = t.match(URL)
  if (!m) return /^file:/i.test(t) ? t.slice(5) || '/' : undefined
  if (m[1].toLowerCase() !== 'file') return null
  const rest = t.slice(m[0].length)
  const slash = rest.indexOf('/')
  return slash < 0 ? '/' : rest.slice(slash)
}

/** Whether `p` looks like a path: it has a `/`, starts with `~` or `.`, or is `name.ext`. */
function pathLike(p) {
  return p !== '' && !p.startsWith('-') && (p.includes('/') || p.startsWith('~') || p.startsWith('.') || NAME_EXT.test(p))
}

/**
 * The path-like pieces of an argument whose meaning the analysis does not know: the whole
 * text, the values of `key=value` / `--opt=value` / `a:b` / `a,b` pieces, `@file` and
 * `<file` (curl), a glued option value (`-o/tmp/x`, `-I../inc`), a `file://` URL.
 */
function loosePieces(text) {
  const out = []
  const consider = (p) => {
    if (p.startsWith('@') || p.startsWith('<')) p = p.slice(1)
    const u = urlPath(p)
    if (u === null) return
    if (u !== undefined) p = u
    if (!pathLike(p)) return
    out.push(p)
  }
  consider(text)
  // `key=value`, `a,b` and then `a:b` pieces — a URL piece is not split at its `:`.
  for (const a of text.split(/[=,]/)) {
    if (a !== text) consider(a)
    if (urlPath(a.replace(/^[@<]/, '')) !== undefined) continue
    for (const b of a.split(':')) if (b !== a) consider(b)
  }
  if (text.startsWith('-')) {
    const at = text.search(/[/~.]/)
    if (at > 0) consider(text.slice(at))
  }
  return out
}

module.exports = { expand, globDir, climbs, urlPath, loosePieces, pathLike, arithSafe, GLOB }
