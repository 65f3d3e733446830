'use strict'
// @clarvis/agent-tools/openai (CommonJS): the tools for the OpenAI SDK (Chat Completions and
// Responses). Loads nothing from `openai`; the optional peer is only needed for the types.
const adapter = require('./lib/openai-adapter.js')

// Plain assignments, so ESM `import { toOpenAITools } from` this file sees the names too.
exports.toOpenAITools = adapter.toOpenAITools
exports.toOpenAIResponsesTools = adapter.toOpenAIResponsesTools
exports.runOpenAIToolCalls = adapter.runOpenAIToolCalls
exports.runOpenAIResponsesCalls = adapter.runOpenAIResponsesCalls
