'use strict'
// The Vercel AI SDK adapter, independent of how `ai` was loaded: ai.js (CommonJS) and ai.mjs
// (ESM) each hand it their own `tool` and `jsonSchema`, so a program gets the build of `ai` it
// imports itself and never two copies side by side.
//
// How a result reaches the model:
// - success: `execute` returns the tool's text; the SDK sends a string output to the model as
//   `{ type: 'text' }` (bash's JSON result too: it is text to the model).
// - failure: `execute` throws a ToolCallError whose `message` IS the JSON error envelope. The
//   SDK records a `tool-error` content part (so the application sees a failed call) and sends
//   the model `{ type: 'error-text', value: error.message }`, i.e. the envelope verbatim, which
//   names the error code and how to recover. Throwing is the one mechanism AI SDK 5, 6 and 7
//   all mark as an error; a `toModelOutput` returning `error-text` would reach the model but
//   leave the SDK reporting a successful `tool-result`.

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

function pick(list, include) {
  if (include === undefined) return list
  const wanted = new Set(include)
  for (const name of wanted) {
    if (!list.some((t) => t.name === name)) {
      throw new TypeError(`Unknown or hidden tool: ${name} (available: ${list.map((t) => t.name).join(', ')})`)
    }
  }
  return list.filter((t) => wanted.has(t.name))
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
        async execute(input, execOptions) {
          const signal = execOptions && execOptions.abortSignal
          const result = await agentTools.callTool(name, input, signal)
          if (result.isError) throw new ToolCallError(name, result.text)
          return result.text
        },
      })
    }
    return set
  }
}

module.exports = { makeAdapter, ToolCallError }
