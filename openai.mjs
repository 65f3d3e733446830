// @clarvis/agent-tools/openai (ESM): the tools for the OpenAI SDK (Chat Completions and
// Responses). Loads nothing from `openai`; the optional peer is only needed for the types.
import adapter from './lib/openai-adapter.js'

export const { toOpenAITools, toOpenAIResponsesTools, runOpenAIToolCalls, runOpenAIResponsesCalls } = adapter
