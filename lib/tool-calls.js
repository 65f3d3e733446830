'use strict'
// What the provider adapters (openai.js, anthropic.js, ai-adapter.js) share: choosing tools
// from the surface, and running a batch of tool calls a model made in one turn.
//
// Batch order: a model that asks for several calls in one turn means them in the order it
// wrote them. Read-only tools (annotation `readOnlyHint: true` in `listTools()`) cannot observe
// each other, so a run of consecutive read-only calls goes concurrently; any other call waits
// for everything before it and holds back everything after it. So `[read a, read b, edit a,
// read a]` reads a and b together, then edits, then reads the edited a — the same outcome as
// running them one by one, sooner.

/** Throws the adapters' TypeError unless `agentTools` has listTools() and callTool(). */
function assertAgentTools(agentTools, fn) {
  if (!agentTools || typeof agentTools.listTools !== 'function' || typeof agentTools.callTool !== 'function') {
    throw new TypeError(`${fn} expects the object createAgentTools() returns`)
  }
}

/** The entries of `list` named in `include` (all when undefined), in surface order. */
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

/** A failed call's result, shaped like callTool's. */
function failure(code, message) {
  const text = JSON.stringify({ error: code, message })
  return { isError: true, text, content: [{ type: 'text', text }] }
}

/**
 * Parses the JSON `arguments` string of an OpenAI function call. Returns `{ args }`, or
 * `{ result }` (an invalid_input failure) when the model wrote something that is not JSON.
 * An empty string is `{}`: some models send it for tools without parameters.
 */
function parseArguments(raw) {
  if (raw === undefined || raw === null || raw === '') return { args: {} }
  if (typeof raw !== 'string') return { args: raw }
  try {
    return { args: JSON.parse(raw) }
  } catch (e) {
    return { result: failure('invalid_input', `The arguments are not valid JSON: ${e.message}`) }
  }
}

/**
 * callTool's result with `content` always present: a compat "0.1" result (`{ isError, text }`)
 * or a custom callTool without parts becomes one text part.
 */
function normalize(result) {
  if (!result || typeof result !== 'object') return failure('internal', 'callTool resolved to no result')
  const text = typeof result.text === 'string' ? result.text : ''
  const content = Array.isArray(result.content) ? result.content : [{ type: 'text', text }]
  return { isError: result.isError === true, text, content }
}

/**
 * Runs `calls` (`{ name, args }`, or `{ result }` for a call already answered) and resolves to
 * their normalized results in the same order. Never rejects for a tool-level problem: a
 * callTool that throws becomes an `internal` failure for that call alone.
 */
async function runBatch(agentTools, calls, signal) {
  const readOnly = new Set(
    agentTools
      .listTools()
      .filter((t) => t.annotations && t.annotations.readOnlyHint === true)
      .map((t) => t.name),
  )
  const results = new Array(calls.length)
  const run = async (i) => {
    const { name, args } = calls[i]
    try {
      results[i] = normalize(await agentTools.callTool(name, args, signal))
    } catch (e) {
      const message = e && typeof e.message === 'string' ? e.message : String(e)
      results[i] = failure(e && typeof e.code === 'string' ? e.code : 'internal', message)
    }
  }
  let concurrent = []
  for (let i = 0; i < calls.length; i++) {
    if (calls[i].result) {
      results[i] = calls[i].result
    } else if (readOnly.has(calls[i].name)) {
      concurrent.push(run(i))
    } else {
      await Promise.all(concurrent)
      concurrent = []
      await run(i)
    }
  }
  await Promise.all(concurrent)
  return results
}

/** The image parts of a successful result (an error never carries images). */
function imagesOf(result) {
  return result.isError ? [] : result.content.filter((p) => p && p.type === 'image')
}

/** A result's image parts and non-empty text parts, in order (APIs reject empty text blocks). */
function partsOf(result) {
  return result.content.filter(
    (p) => p && (p.type === 'image' || (p.type === 'text' && typeof p.text === 'string' && p.text !== '')),
  )
}

/** A `data:` URL for an image part. */
function dataUrl(part) {
  return `data:${part.mimeType};base64,${part.data}`
}

module.exports = { assertAgentTools, pick, failure, parseArguments, runBatch, imagesOf, partsOf, dataUrl }
