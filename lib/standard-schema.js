'use strict'
// customTools[i].inputSchema given as a Zod schema (Zod 3 or 4) or any Standard Schema
// (https://standardschema.dev) instead of JSON Schema.
//
// Converted once, when the tools object is built:
// - the JSON Schema the model sees (`listTools()`, the adapters, MCP): Zod 4's own converter
//   (the schema's Standard JSON Schema `~standard.jsonSchema.input`, else `zod`'s
//   `toJSONSchema`); for Zod 3, `zod-to-json-schema` (the converter the MCP SDK uses); any
//   other Standard Schema must carry `~standard.jsonSchema` itself;
// - the part of it the native validator enforces (types, required, enum, lengths, bounds,
//   items, defaults): every call is checked there first, with the messages and `issues` of
//   every other tool;
// - then the schema itself parses the checked arguments, so refinements, formats and
//   transforms apply; its issues become the same `invalid_input` envelope, and the handler
//   receives the parsed value.
// Nothing here loads Zod: a Zod 4 or Standard schema converts itself; only a Zod 3 schema
// needs `zod-to-json-schema`, required when such a schema is passed.

/** Whether `s` is a schema object rather than JSON Schema: Standard Schema or Zod 3. */
function isSchemaObject(s) {
  if (s === null || (typeof s !== 'object' && typeof s !== 'function')) return false
  const std = s['~standard']
  if (std && typeof std === 'object' && typeof std.validate === 'function') return true
  // Zod 3 before 3.24 had no `~standard`.
  return Boolean(s._def) && typeof s.safeParseAsync === 'function'
}

/** Zod 4 (`_zod`), Zod 3 (`_def` without `_zod`), or another Standard Schema. */
function flavour(s) {
  if (s._zod) return 'zod4'
  if (s._def && typeof s.safeParseAsync === 'function') return 'zod3'
  return 'standard'
}

/** The schema's JSON Schema for its input; throws with the converter's reason. */
function toJsonSchema(s) {
  const std = s['~standard']
  if (std && std.jsonSchema && typeof std.jsonSchema.input === 'function') {
    return std.jsonSchema.input({ target: 'draft-07' })
  }
  switch (flavour(s)) {
    case 'zod4': {
      // Zod 4 before Standard JSON Schema: its own converter, from the copy the host loaded.
      const z = require('zod')
      if (typeof z.toJSONSchema !== 'function') throw new Error('this zod has no toJSONSchema')
      return z.toJSONSchema(s, { io: 'input', target: 'draft-7' })
    }
    case 'zod3': {
      let convert
      try {
        convert = require('zod-to-json-schema').zodToJsonSchema
      } catch {
        throw new Error('a Zod 3 schema needs the package zod-to-json-schema (npm install zod-to-json-schema)')
      }
      const out = convert(s, { target: 'jsonSchema7', $refStrategy: 'none', effectStrategy: 'input' })
      unrepresentable3(s, '')
      return out
    }
    default:
      throw new Error('a Standard Schema without ~standard.jsonSchema cannot be converted to JSON Schema')
  }
}

// zod-to-json-schema turns what JSON cannot describe into `{}` (anything) rather than failing:
// functions, promises, symbols and the like would then accept any argument silently.
const ZOD3_UNREPRESENTABLE = new Set(['ZodFunction', 'ZodPromise', 'ZodSymbol', 'ZodVoid', 'ZodNever', 'ZodUndefined', 'ZodMap', 'ZodSet', 'ZodBigInt', 'ZodDate', 'ZodNaN'])

function unrepresentable3(s, at) {
  const def = s && s._def
  if (!def) return
  if (ZOD3_UNREPRESENTABLE.has(def.typeName)) {
    throw new Error(`${def.typeName.slice(3).toLowerCase()} types cannot be represented in JSON Schema${at ? ` (at ${at})` : ''}`)
  }
  if (def.typeName === 'ZodObject') {
    const shape = typeof def.shape === 'function' ? def.shape() : def.shape
    for (const [k, v] of Object.entries(shape || {})) unrepresentable3(v, `${at}/${k}`)
  }
  for (const inner of [def.innerType, def.schema, def.type, def.in]) if (inner && inner._def) unrepresentable3(inner, at)
}

/** The object schema's fields (Zod 3 and 4), to name the one that fails. */
function fieldsOf(s) {
  try {
    const shape = s.shape ?? (s._def && (typeof s._def.shape === 'function' ? s._def.shape() : s._def.shape))
    return shape && typeof shape === 'object' ? Object.entries(shape) : []
  } catch {
    return []
  }
}

/** The first field whose own conversion fails, with why; else `null`. */
function failingField(s) {
  for (const [k, field] of fieldsOf(s)) {
    if (!isSchemaObject(field)) continue
    try {
      toJsonSchema(field)
    } catch (e) {
      return { field: k, why: String((e && e.message) || e) }
    }
  }
  return null
}

// The keywords the native validator enforces or accepts as description (custom.rs
// check_schema); the rest (anyOf, exclusiveMinimum, const, patterns, ...) the schema itself
// enforces when it parses.
const NUMBERS = ['minLength', 'maxLength', 'minItems', 'maxItems']
const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'])

/** The part of `js` the native validator enforces (see above). */
function lowered(js) {
  if (js === null || typeof js !== 'object' || Array.isArray(js)) return {}
  const out = {}
  for (const [k, v] of Object.entries(js)) {
    if (k === 'type' && typeof v === 'string' && TYPES.has(v)) out.type = v
    else if (k === 'properties' && v && typeof v === 'object') {
      out.properties = {}
      for (const [name, p] of Object.entries(v)) out.properties[name] = lowered(p)
    } else if (k === 'required' && Array.isArray(v) && v.every((x) => typeof x === 'string')) out.required = v
    else if (k === 'additionalProperties' && typeof v === 'boolean') out.additionalProperties = v
    else if (k === 'enum' && Array.isArray(v) && v.length > 0) out.enum = v
    else if (NUMBERS.includes(k) && Number.isSafeInteger(v) && v >= 0) out[k] = v
    else if ((k === 'minimum' || k === 'maximum') && typeof v === 'number' && Number.isFinite(v)) out[k] = v
    else if (k === 'items' && v && typeof v === 'object' && !Array.isArray(v)) out.items = lowered(v)
    else if (k === 'description' || k === 'title' || k === 'default') out[k] = v
  }
  return out
}

/**
 * Converts every schema object among `customTools`: `null` when there is none; else the
 * custom tools as the native side takes them (the enforceable JSON Schema) and, per tool
 * name, `{ schema, jsonSchema }` (the schema object and the JSON Schema to list). Throws
 * `makeError(message)` for a schema that cannot be converted, naming the tool and the field.
 */
function convertCustomTools(customTools, makeError) {
  if (!Array.isArray(customTools) || !customTools.some((t) => t && isSchemaObject(t.inputSchema))) return null
  const parsers = new Map()
  const native = customTools.map((t, i) => {
    if (!t || !isSchemaObject(t.inputSchema)) return t
    const at = `customTools[${i}].inputSchema`
    const name = typeof t.name === 'string' ? t.name : String(i)
    let js
    try {
      js = toJsonSchema(t.inputSchema)
    } catch (e) {
      const bad = failingField(t.inputSchema)
      const where = bad ? `field '${bad.field}'` : 'the schema'
      const why = bad ? bad.why : String((e && e.message) || e)
      throw makeError(`${at} (tool '${name}'): ${where} cannot be converted to JSON Schema: ${why}`)
    }
    if (!js || typeof js !== 'object' || js.type !== 'object') {
      throw makeError(`${at} (tool '${name}'): the schema must describe an object (got ${js && js.type ? `type ${JSON.stringify(js.type)}` : 'no type'})`)
    }
    const { $schema, ...listed } = js
    parsers.set(t.name, { schema: standardOf(t.inputSchema), jsonSchema: listed })
    return { ...t, inputSchema: lowered(listed) }
  })
  return { customTools: native, parsers }
}

/** An issue's path (keys, or `{ key }` segments) as a JSON pointer. */
function pointer(path) {
  if (!Array.isArray(path)) return ''
  return path
    .map((seg) => (seg && typeof seg === 'object' && 'key' in seg ? seg.key : seg))
    .map((k) => '/' + String(k).replace(/~/g, '~0').replace(/\//g, '~1'))
    .join('')
}

/** The value at an issue's path, for `received`. */
function at(value, path) {
  let v = value
  for (const seg of Array.isArray(path) ? path : []) {
    const k = seg && typeof seg === 'object' && 'key' in seg ? seg.key : seg
    if (v === null || typeof v !== 'object') return undefined
    v = v[k]
  }
  return v
}

function shown(v) {
  if (v === undefined) return 'undefined'
  let s
  try {
    s = JSON.stringify(v)
  } catch {
    s = String(v)
  }
  if (typeof s !== 'string') s = String(v)
  return s.length > 60 ? `${[...s].slice(0, 60).join('')}…` : s
}

/**
 * Parses validated `args` with the tool's own schema: `{ value }` (what the handler gets), or
 * `{ envelope }` — `invalid_input` with the message `data/<path> <issue>; …` and, unless
 * `compat01`, the `issues` `[{ path, expected, received, message }]` the validator gives.
 */
async function parseArgs(parser, args, compat01) {
  const result = await parser.schema['~standard'].validate(args)
  if (!result.issues) return { value: result.value }
  const issues = result.issues.map((i) => ({
    path: pointer(i.path),
    expected: typeof i.expected === 'string' ? i.expected : i.code ? String(i.code).replace(/_/g, ' ') : 'a valid value',
    received: shown(at(args, i.path)),
    message: String(i.message),
  }))
  const message = issues.length ? issues.map((i) => `data${i.path} ${i.message}`).join('; ') : 'invalid arguments'
  const envelope = compat01 ? { error: 'invalid_input', message } : { error: 'invalid_input', message, issues }
  return { envelope: JSON.stringify(envelope) }
}

/** A Zod 3 schema before 3.24 has no `~standard`: give it one over `safeParseAsync`. */
function standardOf(s) {
  if (s['~standard'] && typeof s['~standard'].validate === 'function') return s
  return {
    '~standard': {
      validate: async (v) => {
        const r = await s.safeParseAsync(v)
        return r.success ? { value: r.data } : { issues: r.error.issues.map((i) => ({ ...i, path: i.path })) }
      },
    },
  }
}

module.exports = { isSchemaObject, convertCustomTools, parseArgs, standardOf }
