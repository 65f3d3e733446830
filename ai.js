'use strict'
// @clarvis/agent-tools/ai (CommonJS): the tools as a Vercel AI SDK tool set.
// `ai` is an optional peer dependency: install it alongside to use this entry.
const { tool, jsonSchema } = require('ai')
const adapter = require('./lib/ai-adapter.js')

// Plain assignments, so ESM `import { toAiSdkTools } from` this file sees the names too.
exports.toAiSdkTools = adapter.makeAdapter({ tool, jsonSchema })
exports.ToolCallError = adapter.ToolCallError
