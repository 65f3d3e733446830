'use strict'
// The Vercel AI SDK adapter, independent of how `ai` was loaded: ai.js (CommonJS) and ai.mjs
// (ESM) each hand it their own `tool` and `jsonSchema`, so a program gets the build of `ai` it
// imports itself and never two copies side by side.
//
// How a result reaches the model:
// - success: `execute` returns the tool's text; the SDK sends a string output to the model as
//   `{ type: 'text' }` (bash's JSON result too: it is text to the model). A result with image
//   parts (read_image) returns `{ content }` instead, and `toModelOutput` hands the model
//   `{ type: 'content' }` with text parts and `media` parts (the image form AI SDK 5 and 6
//   both accept).
// - failure: `execute` throws a ToolCallError whose `message` IS the JSON error envelope. The
//   SDK records a `tool-error` content part (so the application sees a failed call) and sends
//   the model `{ type: 'error-text', value: error.message }`, i.e. the envelope verbatim, which
//   names the error code and how to recover. Throwing is the one mechanism AI SDK 5, 6 and 7
//   all mark as an error; a `toModelOutput` returning `error-text` would reach the model but
//   leave the SDK reporting a successful `tool-result`.
// - live output: `bash`'s `execute` is an async generator (the SDK's streaming tool
//   execution). While the command runs it yields preliminary results `{ status: 'running',
//   stdout, stderr }` — the last LIVE_TAIL characters of each stream so far, each replacing
//   the previous as the SDK expects — then the final result as above (the last value
//   yielded, which is what the model gets). Chunks arriving while the SDK is busy are merged
//   into the next yield, so a fast command costs few yields.

const { pick } = require('./tool-calls.js')

/** A tool call that failed: `message` is the JSON error envelope the model receives. */
class ToolCallError extends Error {
  constructor(toolName, envelope) {
    super(envelope)
    this.name = 'ToolCallError'
    this.toolName = toolName
    let parsed = null
    try {
      parsed = JSON.parse(envelope)
    } catch {
      // The envelope is always JSON; keep the raw text if a custom callTool breaks that.
    }
    const { error, message, ...fields } = parsed && typeof parsed === 'object' ? parsed : {}
    this.code = typeof error === 'string' ? error : 'internal'
    this.toolMessage = typeof message === 'string' ? message : envelope
    this.fields = fields
  }
}

// Tools whose calls produce live output.
const LIVE_TOOLS = new Set(['bash'])

// How much of each stream a preliminary result carries (its end: where progress shows).
const LIVE_TAIL = 16384

function tail(text) {
  return text.length > LIVE_TAIL ? text.slice(text.length - LIVE_TAIL) : text
}

// The final value of `execute`: the text, `{ content }` with images, or a thrown ToolCallError.
function finalOutput(name, result) {
  if (result.isError) throw new ToolCallError(name, result.text)
  const content = Array.isArray(result.content) ? result.content : null
  if (content && content.some((p) => p.type === 'image')) return { content }
  return result.text
}

async function* liveExecute(agentTools, name, input, signal) {
  const seen = { stdout: '', stderr: '' }
  let dirty = false
  let finished = false
  let wake = null
  const poke = () => {
    if (wake) {
      const w = wake
      wake = null
      w()
    }
  }
  const onOutput = ({ stream, text }) => {
    if (stream !== 'stdout' && stream !== 'stderr') return
    seen[stream] = tail(seen[stream] + text)
    dirty = true
    poke()
  }
  const call = Promise.resolve(agentTools.callTool(name, input, { signal, onOutput }))
  call.then(
    () => {
      finished = true
      poke()
    },
    () => {
      finished = true
      poke()
    },
  )
  while (!finished) {
    if (!dirty) {
      await new Promise((resolve) => {
        wake = resolve
      })
    }
    if (dirty && !finished) {
      dirty = false
      yield { status: 'running', stdout: seen.stdout, stderr: seen.stderr }
    }
  }
  yield finalOutput(name, await call)
}

function toModelPart(p) {
  if (p && p.type === 'image') return { type: 'media', data: p.data, mediaType: p.mimeType }
  return { type: 'text', text: p && typeof p.text === 'string' ? p.text : '' }
}

/** Builds `toAiSdkTools` over one build of the `ai` package. */
function makeAdapter({ tool, jsonSchema }) {
  return function toAiSdkTools(agentTools, options = {}) {
    if (!agentTools || typeof agentTools.listTools !== 'function' || typeof agentTools.callTool !== 'function') {
      throw new TypeError('toAiSdkTools expects the object createAgentTools() returns')
    }
    const set = {}
    for (const info of pick(agentTools.listTools(), options.include)) {
      const name = info.name
      set[name] = tool({
        description: info.description,
        inputSchema: jsonSchema(info.inputSchema),
        execute: LIVE_TOOLS.has(name)
          ? (input, execOptions) => liveExecute(agentTools, name, input, execOptions && execOptions.abortSignal)
          : async (input, execOptions) => {
              const signal = execOptions && execOptions.abortSignal
              return finalOutput(name, await agentTools.callTool(name, input, signal))
            },
        toModelOutput(options) {
          const output = options ? options.output : undefined
          if (output && typeof output === 'object' && Array.isArray(output.content)) {
            return { type: 'content', value: output.content.map(toModelPart) }
          }
          return { type: 'text', value: typeof output === 'string' ? output : JSON.stringify(output) }
        },
      })
    }
    return set
  }
}

module.exports = { makeAdapter, ToolCallError }
