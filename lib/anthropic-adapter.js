'use strict'
// @clarvis/agent-tools/anthropic: the tools for the `@anthropic-ai/sdk` Messages API. Pure data
// shaping: nothing here loads the SDK (its types are used by anthropic.d.ts).
//
// How results reach the model: one `{ type: 'tool_result', tool_use_id, content, is_error }`
// block per `tool_use` block of the assistant's content, in order, to send back as the
// content of the next user message. `content` is the result's text (a failure: the JSON error
// envelope, with `is_error: true`); a result with image parts (read_image) is a block list
// instead: `text` blocks and `image` blocks with a base64 source, which tool results accept.
const { assertAgentTools, pick, runBatch, imagesOf, partsOf } = require('./tool-calls.js')

/** Messages API `tools`: `{ name, description, input_schema }`. */
function toAnthropicTools(agentTools, options = {}) {
  assertAgentTools(agentTools, 'toAnthropicTools')
  return pick(agentTools.listTools(), options.include).map((t) => ({
    name: t.name,
    description: t.description,
    input_schema: t.inputSchema,
  }))
}

/**
 * Runs the `tool_use` blocks of an assistant message's `content` (other blocks are skipped)
 * and resolves to their `tool_result` blocks, in order.
 */
async function runAnthropicToolUses(agentTools, content, options = {}) {
  assertAgentTools(agentTools, 'runAnthropicToolUses')
  const uses = (Array.isArray(content) ? content : []).filter((b) => b && b.type === 'tool_use')
  const calls = uses.map((u) => ({ name: String(u.name), args: u.input === undefined || u.input === null ? {} : u.input }))
  const results = await runBatch(agentTools, calls, options.signal)
  return results.map((r, i) => ({
    type: 'tool_result',
    tool_use_id: uses[i].id,
    content:
      imagesOf(r).length === 0
        ? r.text
        : partsOf(r).map((p) =>
            p.type === 'image'
              ? { type: 'image', source: { type: 'base64', media_type: p.mimeType, data: p.data } }
              : { type: 'text', text: p.text },
          ),
    is_error: r.isError,
  }))
}

module.exports = { toAnthropicTools, runAnthropicToolUses }
