'use strict'
// The JavaScript face of @clarvis/agent-tools. Everything that does work lives in Rust
// (binding.js loads the native addon); this file only shapes values the way JavaScript
// callers expect: StartupError, ToolError, frozen configs, AbortSignal wiring, the warn sink.

const native = require('./binding.js')
const guardLib = require('./lib/guard.js')
const standardSchema = require('./lib/standard-schema.js')

const DEFAULT_MAX_OUTPUT_BYTES = 131072
const DEFAULT_MAX_FILE_BYTES = 20000000
const DEFAULT_BASH_TIMEOUT_MS = 120000
const DEFAULT_BASH_TIMEOUT_MAX_MS = 600000
const DEFAULT_MAX_IMAGE_BYTES = 5000000
const DEFAULT_MONITOR_READY_TIMEOUT_MS = 30000
const DEFAULT_MAX_MONITORS = 32

/** A configuration that cannot be used. Thrown synchronously by createAgentTools & co. */
class StartupError extends Error {
  constructor(message) {
    super(message)
    this.name = 'StartupError'
  }
}

/** A tool-level failure: a code from the contract, a message, and extra envelope fields. */
class ToolError extends Error {
  constructor(code, message, fields) {
    super(message)
    this.name = 'ToolError'
    this.code = code
    this.fields = fields && typeof fields === 'object' ? { ...fields } : {}
  }
}

let warnSink = null

/** Where warnings and internal-error details go; `null` restores stderr. */
function setWarnSink(fn) {
  warnSink = typeof fn === 'function' ? fn : null
}

function warn(line) {
  if (warnSink) {
    try {
      warnSink(line)
    } catch {
      // A throwing sink must not turn a result into a rejection.
    }
  } else {
    process.stderr.write(line)
  }
}

const INTERNAL = '{"error":"internal","message":"internal error"}'

// Arguments cross into Rust as one JSON string. Values JSON cannot carry are reported,
// not silently dropped, so the call fails as invalid_input instead of doing something else.
function encodeArgs(args) {
  let problem = null
  try {
    const json = JSON.stringify(args, function replacer(key, value) {
      const t = typeof value
      if (t === 'function' || t === 'symbol' || t === 'bigint') {
        if (problem === null) problem = key === '' ? `the arguments are a ${t}` : `'${key}' is a ${t}`
        return null
      }
      if (t === 'string' && !value.isWellFormed()) return value.toWellFormed()
      return value
    })
    if (problem !== null) return { error: `Arguments must be plain JSON: ${problem}` }
    if (json === undefined) return { error: 'Arguments must be plain JSON' }
    return { json }
  } catch (e) {
    return { error: `Arguments must be plain JSON: ${e && e.message}` }
  }
}

const handles = new WeakMap()

// The config the host handed over (or was handed) for a handle: what a guard sees as
// `ctx.config`. A handle always has one (freezeConfig and handleFor set it).
const publicConfigOf = new WeakMap()

// The host's guard and elicit per handle (functions cannot cross into Rust).
const hooksOf = new WeakMap()

// Review mode: the host's onPending per handle, and what it was last told (path → JSON).
const pendingHookOf = new WeakMap()

function pendingHook(handle, opts) {
  const v = opts && typeof opts === 'object' ? opts.onPending : undefined
  if (v === undefined || v === null || v === false) return
  if (typeof v !== 'function') throw new StartupError(`onPending must be a function (change) => void, got: ${typeof v}`)
  pendingHookOf.set(handle, { fn: v, told: new Map() })
}

// After a call: tells onPending about each pending change that is new or different.
async function notifyPending(handle) {
  const hook = pendingHookOf.get(handle)
  if (!hook) return
  let list
  try {
    list = checkpointResult(await handle.reviewPending())
  } catch {
    return
  }
  const now = new Map()
  for (const c of list) {
    const key = JSON.stringify(c)
    now.set(c.path, key)
    if (hook.told.get(c.path) === key) continue
    try {
      hook.fn(c)
    } catch (e) {
      warn(`clarvis-agent-tools: onPending threw: ${(e && e.message) || e}\n`)
    }
  }
  hook.told = now
}

// The handlers of the host's customTools per handle: name → handler. The definitions
// (name, description, schema, annotations, readOnly) crossed into Rust with the options.
const customOf = new WeakMap()

// Custom tools whose inputSchema is a Zod or Standard Schema, per handle: name →
// `{ schema, jsonSchema }` (lib/standard-schema.js).
const parsersOf = new WeakMap()

// The options as the native side takes them: a custom tool's Zod or Standard Schema replaced
// by the JSON Schema the native validator enforces; the parsers go on the handle.
function nativeOptions(opts) {
  const converted = standardSchema.convertCustomTools(opts && opts.customTools, (m) => new StartupError(m))
  if (!converted) return { options: opts, parsers: null }
  return { options: { ...opts, customTools: converted.customTools }, parsers: converted.parsers }
}

// The `title(args)` functions of the host's customTools per handle: name → title.
const customTitlesOf = new WeakMap()

// The config a host sees carries everything that decides the surface and a call's behaviour
// (the native side's fields, then the hooks and the custom tools), so a copy handed to
// `dispatch` (`{ ...tools.config }`) behaves as the config itself.
function freezeConfig(handle, opts) {
  const fields = JSON.parse(handle.configJson())
  const hooks = hostHooks(opts)
  if (hooks) {
    hooksOf.set(handle, hooks)
    // As in the original, the hooks are copied onto the ServerConfig.
    if (hooks.guard) fields.guard = hooks.guard
    if (hooks.elicit) fields.elicit = hooks.elicit
    if (hooks.timeoutMs) fields.guardTimeoutMs = hooks.timeoutMs
  }
  const custom = customHandlers(opts)
  if (custom) {
    customOf.set(handle, custom)
    customTitlesOf.set(handle, customTitles(opts))
    fields.customTools = Object.freeze([...opts.customTools])
  }
  pendingHook(handle, opts)
  const config = Object.freeze(fields)
  handles.set(config, handle)
  publicConfigOf.set(handle, config)
  remember(config, handle)
  return config
}

// The configs this package issued, by fingerprint, so an exact copy of one is that config
// (same handle: same surface, checkpoints and index). Needed where a copy could not say so
// itself: a compat "0.1" config using only 0.1's options is exactly 0.1's eight fields.
const issued = new Map()
const forget = new FinalizationRegistry((key) => {
  const ref = issued.get(key)
  if (ref && ref.deref() === undefined) issued.delete(key)
})
const fnIds = new WeakMap()
let nextFnId = 1

// The config's enumerable fields as JSON, functions named by identity (two copies of one
// config share their guard, elicit and handlers; two configs with look-alike functions do not).
function fingerprint(config) {
  try {
    return JSON.stringify(config, (key, value) => {
      if (typeof value !== 'function') return value
      let id = fnIds.get(value)
      if (!id) {
        id = nextFnId++
        fnIds.set(value, id)
      }
      return `\u0000fn${id}`
    })
  } catch {
    return undefined
  }
}

function remember(config, handle) {
  const key = fingerprint(config)
  if (key === undefined) return
  issued.set(key, new WeakRef(config))
  forget.register(config, key)
}

function issuedCopy(config) {
  const key = fingerprint(config)
  const original = key === undefined ? undefined : issued.get(key)?.deref()
  return original ? handles.get(original) : undefined
}

// guard, elicit and guardTimeoutMs from options (or a hand-built config carrying them).
function hostHooks(opts) {
  if (!opts || typeof opts !== 'object') return null
  // A hook that is set but not a function would otherwise be ignored: a guard the host
  // believes in that lets everything through. Absent (undefined, null, false) means none.
  const hook = (name, shape) => {
    const v = opts[name]
    if (v === undefined || v === null || v === false) return null
    if (typeof v !== 'function') throw new StartupError(`${name} must be a function ${shape}, got: ${typeof v}`)
    return v
  }
  const guard = hook('guard', '(ctx) => { verdict, reason? }')
  const elicit = hook('elicit', '(request) => boolean')
  const t = opts.guardTimeoutMs
  if (t !== undefined && t !== null && !(Number.isInteger(t) && t >= 1)) {
    throw new StartupError(`guardTimeoutMs must be an integer >= 1, got: ${String(t)}`)
  }
  if (!guard && !elicit) return null
  return { guard, elicit, timeoutMs: typeof t === 'number' ? t : null }
}

// The handlers of `customTools` (the native side has checked everything else already).
function customHandlers(opts) {
  if (!opts || !Array.isArray(opts.customTools) || opts.customTools.length === 0) return null
  const handlers = new Map()
  opts.customTools.forEach((t, i) => {
    if (typeof t.handler !== 'function') {
      throw new StartupError(`customTools[${i}].handler must be a function (args, { signal, workspaceRoot }) => result`)
    }
    handlers.set(t.name, t.handler)
  })
  return handlers
}

// The custom tools' optional `title(args) => string`, by name (checked like the handler).
function customTitles(opts) {
  const titles = new Map()
  opts.customTools.forEach((t, i) => {
    if (t.title === undefined || t.title === null) return
    if (typeof t.title !== 'function') {
      throw new StartupError(`customTools[${i}].title must be a function (args) => string`)
    }
    titles.set(t.name, t.title)
  })
  return titles
}

// A call's title (`describeCall`): a built-in's from the native side; a custom tool's from
// its `title(args)` (its name when it has none, throws or returns no string), made safe the
// same way (redacted, one line, at most 80 characters). Never throws.
function titleOf(handle, name, args) {
  name = String(name)
  const own = customTitlesOf.get(handle)?.get(name)
  if (own || customOf.get(handle)?.has(name)) {
    let raw = name
    if (own) {
      try {
        const t = own(args && typeof args === 'object' ? args : {})
        if (typeof t === 'string' && t.trim() !== '') raw = t
      } catch {
        // The host's title failing must not fail the call or the prompt: the name stands in.
      }
    }
    return handle.finishTitle(raw)
  }
  const enc = encodeArgs(args === undefined ? {} : args)
  return handle.describeCall(name, enc.error ? '{}' : enc.json)
}

function startup(fn) {
  try {
    return fn()
  } catch (e) {
    throw new StartupError(e && e.message)
  }
}

function optionsJson(options) {
  // Non-finite numbers would become null in JSON; keep them visible for the error message.
  return JSON.stringify(options, (key, value) => {
    if (typeof value === 'number' && !Number.isFinite(value)) return String(value)
    if (typeof value === 'bigint') return String(value)
    if (typeof value === 'function') return undefined
    // redactSecrets.patterns: a RegExp crosses as its source and flags.
    if (value instanceof RegExp) return { source: value.source, flags: value.flags }
    return value
  })
}

// Opening a workspace rolls back patches a crash interrupted; what it could not restore
// goes to the warn sink, never into a StartupError.
function opened(handle) {
  if (typeof handle.takeWarnings === 'function') for (const line of handle.takeWarnings()) warn(line)
  return handle
}

// A probe that throws counts as "unavailable", as the original's probes do.
function probed(fn) {
  if (typeof fn !== 'function') return undefined
  try {
    return Boolean(fn())
  } catch {
    return false
  }
}

/** Validates options and returns the frozen ServerConfig. Throws StartupError. */
function resolveConfig(options) {
  const opts = options !== null && typeof options === 'object' ? options : {}
  const ripgrep = probed(opts.probeRipgrep)
  const treeSitter = probed(opts.probeTreeSitter)
  const { options: forNative, parsers } = nativeOptions(opts)
  const handle = opened(startup(() => native.NativeTools.resolve(optionsJson(forNative), ripgrep, treeSitter)))
  if (parsers) parsersOf.set(handle, parsers)
  return freezeConfig(handle, opts)
}

/** Builds a config from a command line and environment, like the original CLI. */
function buildConfig(argv = process.argv.slice(2), env = process.env, probe, probeTreeSitter) {
  const vars = {}
  for (const [k, v] of Object.entries(env || {})) if (typeof v === 'string') vars[k] = v
  const ripgrep = probed(probe)
  const treeSitter = probed(probeTreeSitter)
  const args = Array.from(argv || [], String)
  return freezeConfig(opened(startup(() => native.NativeTools.build(args, vars, ripgrep, treeSitter))))
}

function handleFor(config) {
  let handle = handles.get(config)
  if (handle) return handle
  // A copy of a config we issued (`{ ...tools.config }`): that config.
  handle = config && typeof config === 'object' ? issuedCopy(config) : undefined
  if (handle) return handle
  // A config built by hand: same field names as the options, so resolve it like them.
  const treeSitter = config && config.treeSitterAvailable === false ? false : undefined
  const { options: forNative, parsers } = nativeOptions({ ...config })
  handle = opened(
    native.NativeTools.resolve(optionsJson(forNative), Boolean(config && config.ripgrepAvailable), treeSitter),
  )
  if (parsers) parsersOf.set(handle, parsers)
  const hooks = hostHooks(config)
  if (hooks) hooksOf.set(handle, hooks)
  const custom = customHandlers(config)
  if (custom) {
    customOf.set(handle, custom)
    customTitlesOf.set(handle, customTitles(config))
  }
  pendingHook(handle, config)
  publicConfigOf.set(handle, config)
  if (Object.isFrozen(config)) handles.set(config, handle)
  return handle
}

// What a guard sees for a call on `handle`, with `config` as the host's config.
function contextFor(handle, tool, args, config) {
  const ctx = guardLib.buildGuardContext(tool, args, config, {
    fact: (raw, base, shell) => JSON.parse(handle.pathFact(String(raw), String(base), Boolean(shell))),
    patchPaths: (text) => JSON.parse(native.patchPathsJson(text)),
    checkpointPaths: (id) => JSON.parse(handle.checkpointPathsJson(id)),
    monitor: (id) => JSON.parse(handle.monitorJson(String(id))),
    sessionCwd: (name) => handle.sessionCwd(String(name)),
  })
  ctx.title = titleOf(handle, tool, args)
  reviewFacts(ctx, handle, tool, args)
  return ctx
}

// Built-in mutating tools whose call stages nothing: the host's review calls (accept writes
// the disk, reject drops staged changes) and the checkpoint bookkeeping (no file changes). The
// flag lives on the tool's definition (ToolDef::unstaged), which dispatch reads too.
const NOT_STAGED = new Set(
  JSON.parse(native.toolDefsJson())
    .filter((m) => m.unstaged)
    .map((m) => m.name),
)

// Review mode in the guard's context: a file tool's change is staged, not written, and so is a
// captured bash call's or monitor's (sandbox on, Linux); any other command runs on the real
// workspace only when the host said `commands: "direct"`. A custom tool is never `staged`:
// its handler is the host's and writes wherever it writes.
function reviewFacts(ctx, handle, tool, args) {
  const review = publicConfigOf.get(handle) && publicConfigOf.get(handle).review
  if (!review || typeof review !== 'object') return
  ctx.review = { scope: review.scope, commands: review.commands }
  if (NOT_STAGED.has(tool) || (customOf.get(handle) && customOf.get(handle).has(tool))) return
  const def = toolList(handle).find((t) => t.name === tool)
  const a = def && def.annotations
  if (a && !a.readOnlyHint && !a.openWorldHint) ctx.staged = true
  // A stateless bash call or a monitor runs over the staged tree and its writes are staged
  // (SPEC §13); input to a monitor goes to a captured one only (dispatch refuses the rest).
  else if (capturedTool(tool, args) && handle.reviewCapturesCommands()) ctx.staged = true
}

function capturedTool(tool, args) {
  if (tool === 'bash') return !(args && args.session != null)
  return tool === 'monitor_start' || tool === 'monitor_write'
}

/** What a host's guard sees for a call (LATER §2.4): `{ tool, args, config, paths, bash, title }`. */
function buildGuardContext(tool, args, config) {
  return contextFor(handleFor(config), tool, args, config)
}

/** Joins the text parts of a result's content (an image part counts as ""). */
function contentText(parts) {
  if (!Array.isArray(parts)) return ''
  let out = ''
  for (const p of parts) if (p && p.type === 'text' && typeof p.text === 'string') out += p.text
  return out
}

// The result object: exactly `{ isError, text }` under compat "0.1"; otherwise the content
// parts as well, and `meta` only when a tool set it.
// `out` is a native outcome, or its text alone for a plain success (one text part, no meta,
// no warnings), which crosses the boundary as one string.
function shape(handle, out) {
  if (handle.compat01 === undefined) handle.compat01 = handle.isCompat01()
  if (typeof out === 'string') {
    return handle.compat01 ? { isError: false, text: out } : { isError: false, text: out, content: [{ type: 'text', text: out }] }
  }
  if (handle.compat01) return { isError: out.isError, text: out.text }
  const content = out.partsJson ? JSON.parse(out.partsJson) : [{ type: 'text', text: out.text }]
  const result = { isError: out.isError, text: out.text, content }
  if (out.metaJson) result.meta = JSON.parse(out.metaJson)
  return result
}

// One 'abort' listener per signal, shared by every pending call on it: a host running many
// tool calls in parallel under one run-level signal must neither pile up listeners (Node
// warns past 10) nor leave any behind once the calls are done.
const watched = new WeakMap()

function watch(signal, token) {
  let entry = watched.get(signal)
  if (!entry) {
    const tokens = new Set()
    const onAbort = () => {
      watched.delete(signal)
      for (const t of tokens) t.cancel()
    }
    entry = { tokens, onAbort }
    watched.set(signal, entry)
    signal.addEventListener('abort', onAbort, { once: true })
  }
  entry.tokens.add(token)
}

function unwatch(signal, token) {
  const entry = watched.get(signal)
  if (!entry) return
  entry.tokens.delete(token)
  if (entry.tokens.size === 0) {
    watched.delete(signal)
    signal.removeEventListener('abort', entry.onAbort)
  }
}

const GUARD_DEFAULT_REASON = 'blocked by guard'

function deniedText(reason) {
  return JSON.stringify({ error: 'denied', message: typeof reason === 'string' && reason !== '' ? reason : GUARD_DEFAULT_REASON })
}

// The host's side of one guarded call — the guard, then elicit when the guard asks — as one
// exchange: it ends with the exchange's own answer, or `{ aborted: true }` when the signal
// fires, or a `denied` ToolError when guardTimeoutMs passes, whichever comes first. One
// deadline covers the whole exchange (a guard that answers late leaves elicit the rest), so
// an elicit that never answers cannot hold the call past guardTimeoutMs. `stage.now` names
// the callback being waited for, for the timeout's message.
function hostExchange(run, signal, timeoutMs, stage) {
  return new Promise((resolve, reject) => {
    let timer = null
    let done = false
    const onAbort = () => finish(() => resolve({ aborted: true }))
    const finish = (f) => {
      if (done) return
      done = true
      if (timer) clearTimeout(timer)
      if (signal && typeof signal.removeEventListener === 'function') signal.removeEventListener('abort', onAbort)
      f()
    }
    if (signal && signal.aborted) return resolve({ aborted: true })
    if (signal && typeof signal.addEventListener === 'function') signal.addEventListener('abort', onAbort, { once: true })
    if (timeoutMs) {
      timer = setTimeout(() => finish(() => reject(new ToolError('denied', `${stage.now} did not answer within ${timeoutMs} ms`))), timeoutMs)
    }
    Promise.resolve()
      .then(run)
      .then(
        (value) => finish(() => resolve({ value })),
        (err) => finish(() => reject(err)),
      )
  })
}

// The guard step (after validation, before the handler): `null` to go on with the
// validated arguments, `'aborted'`, or a result to return. Fail-closed: whatever the host's
// callbacks throw or return, this resolves (a throw is the call's error envelope).
async function guarded(handle, hooks, name, validated, signal) {
  let stop
  try {
    stop = await guardStep(handle, hooks, name, validated, signal)
  } catch (e) {
    stop = { isError: true, text: serializeError(e) }
  }
  // A denial's reason or a thrown error can quote the arguments: with redactSecrets it is
  // masked like every other text the model sees.
  if (stop && typeof stop === 'object') stop.text = handle.redactText(stop.text)
  return stop
}

async function guardStep(handle, hooks, name, validated, signal) {
  if (!hooks.guard) return null
  const config = configOfHandle(handle)
  const ctx = contextFor(handle, name, validated, config)
  const stage = { now: 'guard' }
  const exchange = async () => {
    const decision = await hooks.guard(ctx)
    // Read once: a getter may throw (a failure of the exchange) or answer differently each time.
    const verdict = decision && typeof decision === 'object' ? decision.verdict : undefined
    const reason = decision && typeof decision === 'object' ? decision.reason : undefined
    if (verdict === 'allow') return null
    if (verdict === 'deny') return { isError: true, text: deniedText(reason) }
    if (verdict === 'ask') {
      if (!hooks.elicit) return { isError: true, text: deniedText(reason) }
      stage.now = 'elicit'
      const answer = await hooks.elicit({ tool: name, args: validated, reason, bash: ctx.bash, title: ctx.title })
      return answer === true ? null : { isError: true, text: deniedText(reason) }
    }
    return { isError: true, text: deniedText(`guard returned an invalid decision: ${describe(decision)}`) }
  }
  let r
  try {
    r = await hostExchange(exchange, signal, hooks.timeoutMs, stage)
  } catch (e) {
    return { isError: true, text: serializeError(e) }
  }
  return r.aborted ? 'aborted' : r.value
}

function configOfHandle(handle) {
  let c = publicConfigOf.get(handle)
  if (!c) {
    c = Object.freeze(JSON.parse(handle.configJson()))
    publicConfigOf.set(handle, c)
  }
  return c
}

const ABORTED = { code: 'aborted', message: 'Operation aborted (run cancelled)' }
const NEVER = new AbortController().signal

// A host's tool (customTools): validated natively like ours, guarded, then its handler runs
// here, on the event loop, and the native side bounds the result and builds the envelope.
async function runCustom(handle, handler, name, enc, hooks, signal) {
  const v = JSON.parse(handle.validate(name, enc.json, enc.error))
  if (!v.ok) return shape(handle, { isError: true, text: v.text })
  const finish = (result) => {
    const out = handle.finishCustom(name, JSON.stringify(result))
    if (typeof out !== 'string') for (const line of out.warnings) warn(line)
    return shape(handle, out)
  }
  let args = v.args
  const parser = parsersOf.get(handle)?.get(name)
  if (parser) {
    // The schema's own parse: refinements and transforms; the handler gets its value.
    if (handle.compat01 === undefined) handle.compat01 = handle.isCompat01()
    let parsed
    try {
      parsed = await standardSchema.parseArgs(parser, args, handle.compat01)
    } catch (e) {
      return finish({ internal: `the inputSchema of ${name} threw: ${(e && e.stack) || e}` })
    }
    if (parsed.envelope) return shape(handle, { isError: true, text: parsed.envelope })
    args = parsed.value
  }
  if (hooks && hooks.guard) {
    const stop = await guarded(handle, hooks, name, v.args, signal)
    if (stop === 'aborted') return finish({ error: ABORTED })
    if (stop) return shape(handle, stop)
  }
  if (signal && signal.aborted) return finish({ error: ABORTED })
  const ctx = { signal: signal || NEVER, workspaceRoot: configOfHandle(handle).workspaceRoot }
  const settled = await new Promise((resolve) => {
    const onAbort = () => resolve({ aborted: true })
    const listening = signal && typeof signal.addEventListener === 'function'
    if (listening) signal.addEventListener('abort', onAbort, { once: true })
    Promise.resolve()
      .then(() => handler(args, ctx))
      .then(
        (value) => resolve({ value }),
        (error) => resolve({ error }),
      )
      .finally(() => {
        if (listening) signal.removeEventListener('abort', onAbort)
      })
  })
  if (settled.aborted) return finish({ error: ABORTED })
  if ('error' in settled) {
    const e = settled.error
    if (e instanceof ToolError) return finish({ error: { code: e.code, message: String(e.message), fields: e.fields } })
    return finish({ internal: String((e && e.stack) || e) })
  }
  return finish(customResult(settled.value))
}

// A handler's return value as a tool result: a string is the text; `{ content, meta? }` is
// content parts; anything else JSON (undefined: empty).
function customResult(value) {
  if (typeof value === 'string') return { ok: { content: [{ type: 'text', text: value }] } }
  if (value === undefined || value === null) return { ok: { content: [{ type: 'text', text: '' }] } }
  if (typeof value === 'object' && Array.isArray(value.content)) return { ok: { content: value.content, meta: value.meta } }
  try {
    const text = JSON.stringify(value)
    if (typeof text === 'string') return { ok: { content: [{ type: 'text', text }] } }
  } catch (e) {
    return { internal: `the result is not JSON: ${e && e.message}` }
  }
  return { internal: `the result is a ${typeof value}` }
}

// callTool's third argument: an AbortSignal (0.1), or `{ signal?, onOutput? }`.
function callOptions(x) {
  if (!x || typeof x !== 'object') return { signal: undefined, onOutput: undefined }
  if (typeof x.addEventListener === 'function') return { signal: x, onOutput: undefined }
  return { signal: x.signal, onOutput: typeof x.onOutput === 'function' ? x.onOutput : undefined }
}

// The native side's live-output callback for one call. It queues `(stream, text)` to this
// thread and sends `('end', '')` after the last chunk; the call's result waits for `ended`,
// so every chunk is delivered before the result and none after it. A throwing (or
// rejecting) host callback is swallowed: it must not disturb the call.
function liveOutput(onOutput) {
  let ended
  const done = new Promise((resolve) => {
    ended = resolve
  })
  let open = true
  const fn = (stream, text) => {
    if (stream === 'end') {
      open = false
      return ended()
    }
    if (!open) return
    try {
      const r = onOutput({ stream, text })
      if (r && typeof r.then === 'function') r.then(undefined, () => {})
    } catch {
      // The host's problem, not the call's.
    }
  }
  return { fn, done, close: () => { open = false } }
}

async function run(handle, name, args, options) {
  const { signal, onOutput } = callOptions(options)
  let enc = encodeArgs(args === undefined ? {} : args)
  const hooks = hooksOf.get(handle)
  const custom = customOf.get(handle)
  if (custom && custom.has(String(name))) {
    try {
      return await runCustom(handle, custom.get(String(name)), String(name), enc, hooks, signal)
    } catch (e) {
      warn(`clarvis-agent-tools: internal error: ${(e && e.stack) || e}\n`)
      return shape(handle, { isError: true, text: INTERNAL })
    }
  }
  if (hooks && hooks.guard) {
    const v = JSON.parse(handle.validate(String(name), enc.json, enc.error))
    if (!v.ok) return shape(handle, { isError: true, text: v.text })
    const stop = await guarded(handle, hooks, String(name), v.args, signal)
    if (stop === 'aborted') {
      // The tool's own aborted error: dispatch with a fired token.
      const token = new native.CancelToken()
      token.cancel()
      const out = await handle.dispatch(String(name), JSON.stringify(v.args), undefined, token)
      return shape(handle, out)
    }
    if (stop) return shape(handle, stop)
    enc = { json: JSON.stringify(v.args) }
  }
  let token = null
  let watching = false
  if (signal && typeof signal.addEventListener === 'function') {
    token = new native.CancelToken()
    if (signal.aborted) token.cancel()
    else {
      watch(signal, token)
      watching = true
    }
  }
  try {
    let out
    if (onOutput) {
      const live = liveOutput(onOutput)
      try {
        out = await handle.dispatchLive(String(name), enc.json, enc.error, token, live.fn)
        await live.done
      } finally {
        live.close()
      }
    } else {
      out = await handle.dispatch(String(name), enc.json, enc.error, token)
    }
    if (typeof out !== 'string') for (const line of out.warnings) warn(line)
    if (pendingHookOf.has(handle)) await notifyPending(handle)
    return shape(handle, out)
  } catch (e) {
    warn(`clarvis-agent-tools: internal error: ${(e && e.stack) || e}\n`)
    return shape(handle, { isError: true, text: INTERNAL })
  } finally {
    if (watching) unwatch(signal, token)
  }
}

/** Runs one tool call through the pipeline. Never rejects for a tool-level problem. */
async function dispatch(name, args, config, signal) {
  let handle
  try {
    handle = handleFor(config)
  } catch (e) {
    return {
      isError: true,
      text: JSON.stringify({ error: 'invalid_input', message: `Invalid config: ${e && e.message}` }),
    }
  }
  return run(handle, name, args, signal)
}

// listTools() per configuration handle: the surface depends on compat, readOnly and the
// probes, and never changes for a handle.
const toolLists = new WeakMap()
function toolList(handle) {
  let list = toolLists.get(handle)
  if (!list) {
    list = JSON.parse(handle.listToolsJson())
    // A Zod or Standard Schema tool is listed with its whole JSON Schema, not only the part
    // the native validator enforces.
    const parsers = parsersOf.get(handle)
    if (parsers) for (const t of list) if (parsers.has(t.name)) t.inputSchema = parsers.get(t.name).jsonSchema
    toolLists.set(handle, list)
  }
  return structuredClone(list)
}

/** `[{ name, description, inputSchema, annotations }]` for a config's surface. */
function listTools(config) {
  return toolList(handleFor(config))
}

function toolErrorFromEnvelope(text) {
  const { error, message, ...fields } = JSON.parse(text)
  return new ToolError(error, message, fields)
}

function makeToolDefs() {
  const meta = JSON.parse(native.toolDefsJson())
  // The descriptions and schemas of the latest surface (every tool, tree-sitter on).
  const described = JSON.parse(native.allToolsJson())
  // Opt-in tools (undo) are not on the default surface, so not in the registry either.
  return meta.filter((m) => described.some((t) => t.name === m.name)).map((m) => {
    const d = described.find((t) => t.name === m.name)
    return Object.freeze({
      ...d,
      mutating: m.mutating,
      bounded: m.bounded,
      /**
       * Runs the tool; resolves to its text (or `{ content, meta }` when the result is more
       * than one text part or carries meta), throws ToolError on a tool failure.
       */
      async handler(args, config, signal) {
        const r = await dispatch(m.name, args, config, signal)
        if (r.isError) throw toolErrorFromEnvelope(r.text)
        const plain = !r.content || (r.content.length === 1 && r.content[0].type === 'text' && !r.meta)
        return plain ? r.text : r.meta ? { content: r.content, meta: r.meta } : { content: r.content }
      },
    })
  })
}

const tools = Object.freeze(makeToolDefs())
const readOnlyTools = Object.freeze(tools.filter((t) => !t.mutating))

/** The tools of the latest surface: every tool, or the read-only ones. */
function selectSurface(readOnly) {
  return readOnly ? readOnlyTools : tools
}

/** Looks a tool up by name in a surface (all tools by default). */
function getTool(name, surface = tools) {
  return surface.find((t) => t.name === name)
}

/** The error envelope text for a thrown value; non-ToolErrors are logged and become internal. */
function serializeError(err) {
  if (err instanceof ToolError) {
    try {
      return JSON.stringify({ error: err.code, message: err.message, ...err.fields })
    } catch (e) {
      err = e
    }
  }
  let detail
  try {
    detail = (err && err.stack) || String(err)
  } catch {
    detail = Object.prototype.toString.call(err)
  }
  warn(`clarvis-agent-tools: internal error: ${detail}\n`)
  return INTERNAL
}

// A value the host handed back, for a message: its JSON, else its string form, else its tag
// (a BigInt, a cycle or a throwing toString must not turn an answer into a rejection).
function describe(value) {
  try {
    const json = JSON.stringify(value)
    if (json !== undefined) return json
  } catch {}
  try {
    return String(value)
  } catch {
    return Object.prototype.toString.call(value)
  }
}

/** Maps a Node fs error to the contract's ToolError. */
function fsError(err, path) {
  const code = err && err.code
  if (code === 'ENOENT') return new ToolError('not_found', `No such file: ${path}`, { path })
  if (code === 'EISDIR') return new ToolError('not_a_file', `Path is a directory: ${path}`, { path })
  if (code === 'ENOTDIR') return new ToolError('not_a_file', `Not a directory: ${path}`, { path })
  const detail = String((err && err.message) || err)
    .replace(/^E[A-Z0-9]+: /, '')
    .replace(/, \w+ '.*'$/, '')
  return new ToolError('io_error', `${code || 'EIO'}: ${detail}`, { path })
}

/** Removes bash spill files older than 24 hours from `<root>/.clarvis/`. Never rejects. */
async function sweepSpillDir(workspaceRoot) {
  try {
    if (typeof native.sweepSpillDir === 'function') await native.sweepSpillDir(String(workspaceRoot))
  } catch {
    // Sweeping is best effort by contract.
  }
}

// A checkpoint call's JSON: the value, or a ToolError to throw.
function checkpointResult(json) {
  const v = JSON.parse(json)
  if (v && typeof v.error === 'string') throw toolErrorFromEnvelope(v.error)
  return v
}

/** Deletes the state files of every monitor in `<root>/.clarvis/` that is not running; live ones are left alone. Never rejects. */
async function sweepMonitors(workspaceRoot) {
  try {
    if (typeof native.sweepMonitors === 'function') await native.sweepMonitors(String(workspaceRoot))
  } catch {
    // Best effort, like sweepSpillDir.
  }
}

/** What this machine can enforce for `sandbox: true`: `{ platform, mechanisms, properties }`. */
function probeSandbox() {
  return JSON.parse(native.probeSandbox())
}

/** Builds the tools for one workspace. Throws StartupError on a bad configuration. */
function createAgentTools(options) {
  return agentToolsFor(resolveConfig(options))
}

/** The tools object for a config from resolveConfig/buildConfig (what createAgentTools returns). */
function agentToolsFor(config) {
  const handle = handleFor(config)
  return Object.freeze({
    config,
    listTools: () => listTools(config),
    callTool: (name, args = {}, options) => run(handle, name, args, options),
    /** A short human title for a call (`Read src/a.ts (lines 1–200)`), for progress lists and approval prompts. */
    describeCall: (name, args = {}) => titleOf(handle, name, args),
    /** Takes a checkpoint of everything these tools change from now on; returns its id. */
    checkpoint: (label) => checkpointResult(handle.checkpoint(label === undefined ? undefined : String(label))).id,
    /** The live checkpoints, oldest first. */
    checkpoints: () => checkpointResult(handle.checkpointsJson()),
    /** What changed since checkpoint `id`: `[{ path, kind, from?, diff? }]`. */
    changes: async (id) => checkpointResult(await handle.changes(String(id))),
    /** Puts the checkpoint's paths back: `{ restored, conflicts }`. */
    restore: async (id, opts = {}) => {
      const paths = opts && Array.isArray(opts.paths) ? opts.paths.map(String) : undefined
      return checkpointResult(await handle.restore(String(id), paths, Boolean(opts && opts.force)))
    },
    /** Review mode: the staged changes `[{ path, kind, from?, diff? }]`. Rejects with ToolError when review is off. */
    pending: async () => checkpointResult(await handle.reviewPending()),
    /** Review mode: applies the chosen staged changes, all or nothing: `{ accepted, conflicts }`. */
    accept: async (paths, opts = {}) => {
      const list = Array.isArray(paths) ? paths.map(String) : undefined
      const out = checkpointResult(await handle.reviewAccept(list, Boolean(opts && opts.force)))
      if (pendingHookOf.has(handle)) await notifyPending(handle)
      return out
    },
    /** Review mode: drops the chosen staged changes: `{ rejected }`. */
    reject: async (paths) => {
      const list = Array.isArray(paths) ? paths.map(String) : undefined
      const out = checkpointResult(await handle.reviewReject(list))
      if (pendingHookOf.has(handle)) await notifyPending(handle)
      return out
    },
    /** The symbols of one source file, structured: `{ path, language, lines, symbols, errorCount, truncated }`. Rejects with ToolError. */
    outlineOf: async (path) => checkpointResult(await handle.outlineOf(String(path))),
    /** check_syntax's result for one file as an object. Rejects with ToolError. */
    checkSyntax: async (path) => checkpointResult(await handle.checkSyntax(String(path))),
    /** The grep index: `{ state: "off" | "building" | "ready", files, bytes, buildMs, updatedAt }`. */
    searchIndexStatus: () => JSON.parse(handle.searchIndexStatus()),
    /** What the sandbox enforces, per property and how; `null` when `sandbox` is off. */
    sandboxStatus: () => JSON.parse(handle.sandboxStatus()),
    /** Ends every `bash` session (a running command with it); resolves with how many, once their processes are gone. */
    endShellSessions: () => handle.endShellSessions(),
    /** Frees checkpoint `id`. */
    dropCheckpoint: (id) => {
      checkpointResult(handle.dropCheckpoint(String(id)))
    },
  })
}

module.exports = {
  createAgentTools,
  probeSandbox,
  analyzeBash: guardLib.analyzeBash,
  buildGuardContext,
  withinWorkspace: guardLib.withinWorkspace,
  touchesOutside: guardLib.touchesOutside,
  commandsIn: guardLib.commandsIn,
  agentToolsFor,
  contentText,
  dispatch,
  listTools,
  resolveConfig,
  buildConfig,
  StartupError,
  ToolError,
  serializeError,
  fsError,
  sweepSpillDir,
  sweepMonitors,
  setWarnSink,
  tools,
  readOnlyTools,
  getTool,
  selectSurface,
  DEFAULT_MAX_OUTPUT_BYTES,
  DEFAULT_MAX_FILE_BYTES,
  DEFAULT_BASH_TIMEOUT_MS,
  DEFAULT_BASH_TIMEOUT_MAX_MS,
  DEFAULT_MAX_IMAGE_BYTES,
  DEFAULT_MONITOR_READY_TIMEOUT_MS,
  DEFAULT_MAX_MONITORS,
}
