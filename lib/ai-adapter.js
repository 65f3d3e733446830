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
        async execute(input, execOptions) {
          const signal = execOptions && execOptions.abortSignal
          const result = await agentTools.callTool(name, input, signal)
          if (result.isError) throw new ToolCallError(name, result.text)
          const content = Array.isArray(result.content) ? result.content : null
          if (content && content.some((p) => p.type === 'image')) return { content }
          return result.text
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
