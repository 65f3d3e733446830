// Builds the drift cases: a real file, a real block in it, a realistic change (an identifier
// renamed on one line, usually plus a new line inserted after it), and the old_string /
// new_string pair perturbed the way models perturb them — one drift per case. Deterministic:
// a seeded PRNG picks blocks, so the same sources give the same cases.
import { findSources, pythonCompiles } from './sources.mjs'

export const CATEGORIES = [
  'indent-shift', 'tabs-spaces', 'trailing-ws', 'crlf', 'line-prefix',
  'smart-quotes', 'blank-lines', 'partial-line', 'escapes', 'ambiguity', 'inline-ws',
]

/** The `inline-ws` variants (issue 31): a change inside one line under whitespace drift. */
const INLINE = ['trailing-append', 'trailing-prepend', 'trailing-replace', 'shift-append', 'inner-append', 'crlf-append']

const KEYWORDS = new Set(('def class return if else elif for while in not and or import from as with try except ' +
  'finally raise pass break continue lambda yield global nonlocal assert del is None True False async await ' +
  'fn let mut pub use mod impl struct enum trait match loop where self Self super crate const static ref type ' +
  'unsafe extern dyn move int char void unsigned signed long short double float sizeof switch case default ' +
  'goto typedef union volatile register auto function var new this typeof instanceof delete throw catch export ' +
  'interface extends implements private protected public readonly declare namespace keyof null undefined true false').split(' '))

/** A small seeded PRNG (mulberry32): `() => [0, 1)`. */
export function mulberry32(seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

function hash(s) {
  let h = 2166136261
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619)
  return h >>> 0
}

const indentOf = (l) => /^[ \t]*/.exec(l)[0]
const blank = (l) => l.trim() === ''
const pick = (rng, arr) => arr[Math.floor(rng() * arr.length)]

/** The file's indentation unit in spaces (most common positive step between lines), default 4. */
function unitOf(lines) {
  const counts = new Map()
  let prev = 0
  for (const l of lines) {
    if (blank(l) || l.startsWith('\t')) continue
    const n = indentOf(l).length
    if (n > prev && n - prev <= 8) counts.set(n - prev, (counts.get(n - prev) || 0) + 1)
    prev = n
  }
  let best = 4
  let bestCount = 0
  for (const [k, v] of counts) if (v > bestCount && (k === 2 || k === 4 || k === 8)) [best, bestCount] = [k, v]
  return best
}

/** Spaces → tabs for leading indentation (`unit` spaces per tab, remainder kept as spaces). */
const toTabs = (l, unit) => {
  const n = indentOf(l).length
  return blank(l) ? l : '\t'.repeat(Math.floor(n / unit)) + ' '.repeat(n % unit) + l.slice(n)
}

class FileIndex {
  constructor(text) {
    this.text = text
    this.lines = text.split('\n')
    this.trimmed = this.lines.map((l) => l.trim())
    this.byTrim = new Map()
    this.trimmed.forEach((t, i) => {
      if (!this.byTrim.has(t)) this.byTrim.set(t, [])
      this.byTrim.get(t).push(i)
    })
    this.unit = unitOf(this.lines)
  }

  /** Windows whose trimmed lines equal `block`'s (blank lines ignored when `skipBlank`). */
  occurrences(block, skipBlank = false) {
    const want = block.map((l) => l.trim()).filter((t) => !skipBlank || t !== '')
    const out = []
    for (const i of this.byTrim.get(want[0]) || []) {
      let k = 0
      let p = i
      while (k < want.length && p < this.lines.length) {
        if (skipBlank && this.trimmed[p] === '') { p++; continue }
        if (this.trimmed[p] !== want[k]) break
        k++
        p++
      }
      if (k === want.length) out.push(i)
    }
    return out
  }
}

/** A block of `len` lines at a random place satisfying `ok`, unique even under tolerant matching. */
function pickBlock(fi, rng, ok, len = () => 4 + Math.floor(rng() * 5)) {
  for (let tries = 0; tries < 3000; tries++) {
    const L = len()
    const s = Math.floor(rng() * (fi.lines.length - L - 1))
    if (s < 0) return null
    const b = fi.lines.slice(s, s + L)
    if (blank(b[0]) || blank(b[L - 1])) continue
    if (b.some((l) => l.length > 110 || /\s$/.test(l) || /[\u00a0\u2018-\u201f\u2026\u2013\u2014]/.test(l))) continue
    if (b.some((l) => !blank(l) && indentOf(l).includes('\t'))) continue
    if (b.filter((l) => !blank(l) && indentOf(l).length % fi.unit !== 0).length > 0) continue
    if (new Set(b.filter((l) => !blank(l)).map((l) => indentOf(l).length)).size < 2) continue
    if (b.some((l) => l.trimEnd().endsWith('\\'))) continue
    if (fi.occurrences(b).length !== 1 || fi.occurrences(b, true).length !== 1) continue
    if (!ok(b, s)) continue
    return { s, L, block: b }
  }
  return null
}

/** The realistic change: rename an identifier on an inner line, maybe insert a line after it. */
function change(block, rng, lang, unit) {
  const inner = []
  for (let j = 1; j < block.length - 1; j++) {
    const toks = [...block[j].matchAll(/[A-Za-z_][A-Za-z0-9_]{2,}/g)].filter((m) => !KEYWORDS.has(m[0]))
    if (toks.length) inner.push([j, toks[toks.length - 1]])
  }
  if (!inner.length) return null
  const [j, tok] = pick(rng, inner)
  const line = block[j]
  const renamed = line.slice(0, tok.index) + tok[0] + 'V2' + line.slice(tok.index + tok[0].length)
  const items = block.map((text, i) => ({ text: i === j ? renamed : text, orig: i }))
  if (rng() < 0.7) {
    let ind = indentOf(line)
    if (/[{:([]$/.test(line.trimEnd())) {
      const next = block[j + 1]
      ind = next && !blank(next) && indentOf(next).length > ind.length ? indentOf(next) : ind + ' '.repeat(unit)
    }
    const body = lang === 'python' ? 'drift_marker = 1' : '// drift: edited here'
    items.splice(j + 1, 0, { text: ind + body, orig: null, after: j })
  }
  return { j, items }
}

function buildCase(fi, src, category, rng, k) {
  const { lang } = src
  const withQuotes = (b) => b.some((l) => /["']/.test(l))
  const withDashes = (b) => b.some((l) => /\.\.\.| - |--/.test(l))
  const quoteVariant = k % 3 === 2 ? 'dashes' : 'quotes'
  const preds = {
    'smart-quotes': quoteVariant === 'dashes' ? withDashes : withQuotes,
    'escapes': () => true,
    'blank-lines': () => true,
    'indent-shift': () => true,
    'partial-line': (b) => /\S[ (]\S/.test(b[0].trim()),
  }
  const escapeVariant = ['json', 'quotes', 'backslashes'][k % 3]
  if (category === 'escapes' && escapeVariant === 'quotes') preds.escapes = (b) => b.some((l) => l.includes('"'))
  if (category === 'escapes' && escapeVariant === 'backslashes') preds.escapes = (b) => b.some((l) => l.includes('\\'))
  if (category === 'blank-lines' && k % 2 === 0) preds['blank-lines'] = (b) => b.slice(1, -1).some(blank)
  if (category === 'ambiguity') return buildTrap(fi, src, rng, k)
  if (category === 'inline-ws') return buildInline(fi, src, rng, k)
  const picked = pickBlock(fi, rng, preds[category] || (() => true))
  if (!picked) return null
  const { s, L, block } = picked
  const ch = change(block, rng, lang, fi.unit)
  if (!ch) return null
  const trailingNewline = rng() < 0.33
  const oldLines = block.slice()
  let newItems = ch.items
  const expectedLines = [...fi.lines.slice(0, s), ...newItems.map((x) => x.text), ...fi.lines.slice(s + L)]
  let fileText = fi.text
  let expected = expectedLines.join('\n')
  let oldL = oldLines
  let newL = newItems.map((x) => x.text)
  let expect = 'edit'
  let variant = ''
  const perLine = (f) => {
    oldL = oldLines.map((l, i) => f(l, i))
    newL = newItems.map((x) => f(x.text, x.orig ?? x.after, x.orig === null))
  }
  switch (category) {
    case 'indent-shift': {
      const min = Math.min(...block.filter((l) => !blank(l)).map((l) => indentOf(l).length))
      const options = ['plus2', 'plus-unit']
      if (min > 0) options.push('dedent', 'dedent')
      variant = pick(rng, options)
      const shift = variant === 'plus2' ? 2 : variant === 'plus-unit' ? fi.unit : -min
      perLine((l) => (blank(l) ? l : shift > 0 ? ' '.repeat(shift) + l : l.slice(-shift)))
      break
    }
    case 'tabs-spaces': {
      if (k % 2 === 0) {
        variant = 'model-tabs'
        perLine((l) => toTabs(l, fi.unit))
      } else {
        variant = 'file-tabs'
        fileText = fi.lines.map((l) => toTabs(l, fi.unit)).join('\n')
        expected = expectedLines.map((l) => toTabs(l, fi.unit)).join('\n')
      }
      break
    }
    case 'trailing-ws': {
      const pads = [' ', '  ', '\t', ' \t']
      const chosen = oldLines.map((l) => !blank(l) && rng() < 0.5)
      if (!chosen.some(Boolean)) chosen[0] = true
      const pad = pick(rng, pads)
      perLine((l, i, inserted) => (inserted ? (rng() < 0.5 ? l + pad : l) : chosen[i] ? l + pad : l))
      break
    }
    case 'crlf':
      fileText = fi.text.replace(/\n/g, '\r\n')
      expected = expected.replace(/\n/g, '\r\n')
      break
    case 'line-prefix':
      oldL = oldLines.map((l, i) => `${String(s + i + 1).padStart(6)}\t${l}`)
      expect = 'prefix'
      break
    case 'smart-quotes': {
      variant = quoteVariant
      const curl = (l) => {
        let open = true
        return l.replace(/"/g, () => ((open = !open) ? '\u201d' : '\u201c')).replace(/'/g, '\u2019')
      }
      const dash = (l) => l.replace(/\.\.\./g, '\u2026').replace(/ - /g, ' \u2013 ').replace(/--/g, '\u2014')
      perLine(variant === 'quotes' ? curl : dash)
      break
    }
    case 'blank-lines': {
      const inner = block.map((l, i) => i).filter((i) => i > 0 && i < L - 1 && blank(block[i]))
      if (inner.length) {
        variant = 'dropped'
        const drop = pick(rng, inner)
        oldL = oldLines.filter((_, i) => i !== drop)
        newL = newItems.filter((x) => x.orig !== drop).map((x) => x.text)
      } else {
        variant = 'added'
        const at = 1 + Math.floor(rng() * (L - 2))
        oldL = [...oldLines.slice(0, at), '', ...oldLines.slice(at)]
        const idx = newItems.findIndex((x) => x.orig === at)
        newL = newItems.map((x) => x.text)
        newL.splice(idx, 0, '')
      }
      break
    }
    case 'partial-line': {
      const first = block[0]
      const ind = indentOf(first).length
      const m = /\S[ (]\S/.exec(first.slice(ind))
      const cut = ind + m.index + 2
      oldL = [first.slice(cut), ...oldLines.slice(1)]
      newL = [first.slice(cut), ...newItems.slice(1).map((x) => x.text)]
      break
    }
    case 'escapes':
      variant = escapeVariant
      break
    default:
      throw new Error(category)
  }
  const tail = trailingNewline ? '\n' : ''
  let old = oldL.join('\n') + tail
  let neu = newL.join('\n') + tail
  if (category === 'escapes') {
    const esc = {
      json: (t) => t.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\t/g, '\\t').replace(/"/g, '\\"'),
      quotes: (t) => t.replace(/"/g, '\\"'),
      backslashes: (t) => t.replace(/\\/g, '\\\\'),
    }[variant]
    old = esc(old)
    neu = esc(neu)
  }
  if (category === 'partial-line' && fi.text.split(old).length !== 2) return null
  if (category !== 'partial-line' && category !== 'crlf' && fileText.includes(old)) return null
  return { lang, category, variant, file: src.path, line: s + 1, fileText, old, new: neu, expected, expect }
}

/**
 * A change inside one line — a comment appended or prepended, an identifier renamed — while
 * the model's strings drifted: trailing whitespace the file lacks on some lines (the appended
 * text written after it, so the model's pad becomes its separator: `x;␠` → `x;␠/* note *\/␠`
 * must give `x;␠/* note *\/`), indentation shifted, an alignment run inside the line collapsed
 * to one space, or all that in a CRLF file. The drift is undone only where it drifted.
 */
function buildInline(fi, src, rng, k) {
  const variant = INLINE[k % INLINE.length]
  const run = /\S( {2,}|\t)\S/
  const inner = (b) => b.slice(1, -1).some((l) => !blank(l) && run.test(l.trim()))
  const picked = pickBlock(fi, rng, variant === 'inner-append' ? inner : () => true)
  if (!picked) return null
  const { s, L, block } = picked
  const candidates = block.map((l, i) => i).filter((i) => i > 0 && i < L - 1 && !blank(block[i]) &&
    (variant !== 'inner-append' || run.test(block[i].trim())))
  if (!candidates.length) return null
  const j = pick(rng, candidates)
  const comment = src.lang === 'python' ? '# note' : '/* note */'
  const line = block[j]
  let changed
  if (variant.endsWith('append')) changed = line + ' ' + comment
  else if (variant === 'trailing-prepend') changed = indentOf(line) + (src.lang === 'python' ? 'note = 0; ' : '/* note */ ') + line.slice(indentOf(line).length)
  else {
    const toks = [...line.matchAll(/[A-Za-z_][A-Za-z0-9_]{2,}/g)].filter((m) => !KEYWORDS.has(m[0]))
    if (!toks.length) return null
    const tok = toks[toks.length - 1]
    changed = line.slice(0, tok.index) + tok[0] + 'V2' + line.slice(tok.index + tok[0].length)
  }
  const newBlock = block.map((l, i) => (i === j ? changed : l))
  let oldL = block.slice()
  let newL = newBlock.slice()
  let expectedBlock = newBlock
  let fileText = fi.text
  if (variant.startsWith('trailing') || variant === 'crlf-append') {
    // Pad some lines and always the changed one; the model's new line keeps its pad at the
    // end, and an appended comment goes after the pad, which is then the model's separator.
    const pad = pick(rng, [' ', '  ', '\t'])
    const padded = block.map((l, i) => !blank(l) && (i === j || rng() < 0.5))
    oldL = block.map((l, i) => (padded[i] ? l + pad : l))
    newL = newBlock.map((l, i) => (padded[i] ? l + pad : l))
    if (variant.endsWith('append')) {
      newL[j] = line + pad + comment + pad
      expectedBlock = block.map((l, i) => (i === j ? line + pad + comment : l))
    }
  } else if (variant === 'shift-append') {
    const min = Math.min(...block.filter((l) => !blank(l)).map((l) => indentOf(l).length))
    const dedent = min > 0 && rng() < 0.5
    const f = (l) => (blank(l) ? l : dedent ? l.slice(min) : '  ' + l)
    oldL = block.map(f)
    newL = newBlock.map(f)
  } else if (variant === 'inner-append') {
    const collapse = (l) => indentOf(l) + l.slice(indentOf(l).length).replace(/( {2,}|\t)(?=\S)/g, ' ')
    oldL = block.map(collapse)
    newL = newBlock.map(collapse)
  }
  let expected = [...fi.lines.slice(0, s), ...expectedBlock, ...fi.lines.slice(s + L)].join('\n')
  if (variant === 'crlf-append') {
    fileText = fi.text.replace(/\n/g, '\r\n')
    expected = expected.replace(/\n/g, '\r\n')
  }
  const tail = rng() < 0.33 ? '\n' : ''
  const old = oldL.join('\n') + tail
  const neu = newL.join('\n') + tail
  if (fileText.replace(/\r\n/g, '\n').includes(old)) return null
  return { lang: src.lang, category: 'inline-ws', variant, file: src.path, line: s + 1, fileText, old, new: neu, expected, expect: 'edit' }
}

/** An ambiguity trap: a block that occurs twice (same relative indentation), drifted. */
function buildTrap(fi, src, rng, k) {
  for (let tries = 0; tries < 4000; tries++) {
    const L = 2 + Math.floor(rng() * 2)
    const s = Math.floor(rng() * (fi.lines.length - L))
    const b = fi.lines.slice(s, s + L)
    if (b.some((l) => blank(l) || l.trim().length < 2 || /\s$/.test(l)) || !b.some((l) => /[A-Za-z]{3}.{5}/.test(l))) continue
    if (b.some((l) => /[\u00a0\u2018-\u201f\u2026\u2013\u2014]/.test(l))) continue
    const occ = fi.occurrences(b)
    if (occ.length < 2) continue
    const dedent = (lines) => {
      const min = Math.min(...lines.map((l) => indentOf(l).length))
      return lines.map((l) => l.slice(min))
    }
    const shape = dedent(b).join('\n')
    if (occ.filter((o) => dedent(fi.lines.slice(o, o + L)).join('\n') === shape).length < 2) continue
    const variant = ['shift', 'trailing', 'tabs', 'quotes', 'blank'][k % 5]
    let old
    if (variant === 'shift') old = dedent(b).map((l) => '   ' + l)
    else if (variant === 'trailing') old = b.map((l) => l + ' ')
    else if (variant === 'tabs') old = b.map((l) => toTabs(l, fi.unit === 4 ? 2 : 4))
    else if (variant === 'quotes') {
      if (!b.some((l) => /["']/.test(l))) continue
      old = b.map((l) => l.replace(/"/g, '\u201c').replace(/'/g, '\u2019'))
    } else old = [b[0], '', ...b.slice(1)]
    const oldStr = old.join('\n')
    if (fi.text.includes(oldStr)) continue
    const tok = [...old[L - 1].matchAll(/[A-Za-z_][A-Za-z0-9_]{2,}/g)].filter((m) => !KEYWORDS.has(m[0])).pop()
    const neu = tok ? [...old.slice(0, -1), old[L - 1].replace(tok[0], tok[0] + 'V2')] : [...old, '// extra']
    return { lang: src.lang, category: 'ambiguity', variant, file: src.path, line: s + 1, fileText: fi.text, old: oldStr, new: neu.join('\n'), expected: fi.text, expect: 'ambiguous' }
  }
  return null
}

/**
 * All cases: `perCell` cases for each (language, category), spread over that language's files.
 * Python cases whose expected result does not compile are replaced by others.
 */
export function generate(perCell = 8) {
  const sources = findSources()
  const byLang = new Map()
  for (const src of sources) {
    if (!byLang.has(src.lang)) byLang.set(src.lang, [])
    byLang.get(src.lang).push({ src, fi: new FileIndex(src.text) })
  }
  const cases = []
  for (const [lang, files] of byLang) {
    for (const category of CATEGORIES) {
      const rng = mulberry32(hash(`${lang}/${category}`))
      const cell = []
      for (let attempt = 0; cell.length < perCell && attempt < perCell * 4; attempt += perCell) {
        const batch = []
        for (let k = cell.length; k < perCell; k++) {
          const f = files[(k + attempt) % files.length]
          const c = buildCase(f.fi, f.src, category, rng, k)
          if (c) batch.push(c)
        }
        const ok = lang === 'python' ? pythonCompiles(batch.map((c) => c.expected.replace(/\r\n/g, '\n'))) : batch.map(() => true)
        batch.forEach((c, i) => ok[i] && cell.length < perCell && cell.push(c))
      }
      cases.push(...cell)
    }
  }
  return cases
}
