// The AI SDK's mock model scripted to call tools (shared by the host-control suites).
import { MockLanguageModelV3 } from 'ai/test'

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
}

/**
 * A model that plays `script`: step i returns the tool calls script[i] (an array of
 * [toolName, input]) or, past the end, a final text. Every prompt it was given is recorded.
 */
export function scriptedModel(script) {
  const prompts = []
  const model = new MockLanguageModelV3({
    doGenerate: async (options) => {
      prompts.push(options)
      const step = prompts.length - 1
      if (step >= script.length) {
        return { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] }
      }
      return {
        content: script[step].map(([toolName, input], i) => ({
          type: 'tool-call',
          toolCallId: `call-${step}-${i}`,
          toolName,
          input: JSON.stringify(input),
        })),
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage,
        warnings: [],
      }
    },
  })
  return { model, prompts }
}

/** The tool results the model saw in the prompt of `options`, by toolCallId. */
export function toolResultsIn(options) {
  const out = {}
  for (const msg of options.prompt) {
    if (msg.role !== 'tool') continue
    for (const part of msg.content) if (part.type === 'tool-result') out[part.toolCallId] = part.output
  }
  return out
}
