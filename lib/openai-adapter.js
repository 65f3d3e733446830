'use strict'
// @clarvis/agent-tools/openai: the tools for the `openai` SDK's Chat Completions and Responses
// APIs. Pure data shaping: nothing here loads `openai` (its types are used by openai.d.ts).
//
// How results reach the model:
// - Chat Completions: one `{ role: 'tool', tool_call_id, content }` message per call, in the
//   order of `tool_calls` (the API requires one per call, right after the assistant message).
//   `content` is the result's text; a failure's is the JSON error envelope. A tool message
//   can only hold text, so image parts (read_image) go in ONE `{ role: 'user' }` message
//   appended after all the tool messages, as `image_url` parts with `data:` URLs, each after
//   a text part naming its call; the tool message says the image follows.
// - Responses: one `{ type: 'function_call_output', call_id, output }` item per
//   `function_call` item. `output` is the text (a failure: the envelope), or, when the
//   result has images, the list form: `input_text` parts and `input_image` parts with
//   `data:` URLs, which the Responses API accepts in a function call's output.
const { assertAgentTools, pick, failure, parseArguments, runBatch, imagesOf, partsOf, dataUrl } = require('./tool-calls.js')

/** Chat Completions `tools`: `{ type: 'function', function: { name, description, parameters } }`. */
function toOpenAITools(agentTools, options = {}) {
  assertAgentTools(agentTools, 'toOpenAITools')
  return pick(agentTools.listTools(), options.include).map((t) => ({
    type: 'function',
    function: { name: t.name, description: t.description, parameters: t.inputSchema },
  }))
}

/**
 * Responses API `tools`: `{ type: 'function', name, description, parameters, strict: false }`.
 * `strict` is written out because the Responses API defaults it to true, and strict mode
 * requires every property to be required, which optional parameters like `offset` are not.
 */
function toOpenAIResponsesTools(agentTools, options = {}) {
  assertAgentTools(agentTools, 'toOpenAIResponsesTools')
  return pick(agentTools.listTools(), options.include).map((t) => ({
    type: 'function',
    name: t.name,
    description: t.description,
    parameters: t.inputSchema,
    strict: false,
  }))
}

/** `{ name, args }` for a Chat Completions tool call, or `{ result }` when it cannot run. */
function chatCall(tc) {
  if (!tc || typeof tc !== 'object' || !tc.function || typeof tc.function.name !== 'string') {
    const kind = tc && typeof tc === 'object' ? tc.type : typeof tc
    return { name: '', result: failure('invalid_input', `Not a function tool call (type ${kind}); only function tools are served`) }
  }
  return { name: tc.function.name, ...parseArguments(tc.function.arguments) }
}

/**
 * Runs an assistant message's `tool_calls` and resolves to the messages to append: one tool
 * message per call, in order, then one user message with the images, if any result had some.
 */
async function runOpenAIToolCalls(agentTools, toolCalls, options = {}) {
  assertAgentTools(agentTools, 'runOpenAIToolCalls')
  const list = Array.isArray(toolCalls) ? toolCalls : []
  const calls = list.map(chatCall)
  const results = await runBatch(agentTools, calls, options.signal)
  const messages = []
  const imageParts = []
  results.forEach((r, i) => {
    const id = list[i] && typeof list[i].id === 'string' ? list[i].id : ''
    const images = imagesOf(r)
    let content = r.text
    if (images.length > 0) {
      const note =
        images.length === 1
          ? '[The image of this result follows in the next user message.]'
          : `[The ${images.length} images of this result follow in the next user message.]`
      content = content === '' ? note : `${content}\n${note}`
      images.forEach((img, k) => {
        imageParts.push({ type: 'text', text: `Image ${k + 1} of ${images.length} from tool call ${id} (${calls[i].name}):` })
        imageParts.push({ type: 'image_url', image_url: { url: dataUrl(img) } })
      })
    }
    messages.push({ role: 'tool', tool_call_id: id, content })
  })
  if (imageParts.length > 0) messages.push({ role: 'user', content: imageParts })
  return messages
}

/**
 * Runs the `function_call` items of a Responses API output (other items are skipped) and
 * resolves to their `function_call_output` items, in order.
 */
async function runOpenAIResponsesCalls(agentTools, items, options = {}) {
  assertAgentTools(agentTools, 'runOpenAIResponsesCalls')
  const fnCalls = (Array.isArray(items) ? items : []).filter((it) => it && it.type === 'function_call')
  const calls = fnCalls.map((it) => ({ name: String(it.name), ...parseArguments(it.arguments) }))
  const results = await runBatch(agentTools, calls, options.signal)
  return results.map((r, i) => {
    const images = imagesOf(r)
    const output =
      images.length === 0
        ? r.text
        : partsOf(r).map((p) => (p.type === 'image' ? { type: 'input_image', image_url: dataUrl(p) } : { type: 'input_text', text: p.text }))
    return { type: 'function_call_output', call_id: fnCalls[i].call_id, output }
  })
}

module.exports = { toOpenAITools, toOpenAIResponsesTools, runOpenAIToolCalls, runOpenAIResponsesCalls }
