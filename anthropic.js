'use strict'
// @clarvis/agent-tools/anthropic (CommonJS): the tools for the Anthropic SDK (Messages API).
// Loads nothing from `@anthropic-ai/sdk`; the optional peer is only needed for the types.
const adapter = require('./lib/anthropic-adapter.js')

// Plain assignments, so ESM `import { toAnthropicTools } from` this file sees the names too.
exports.toAnthropicTools = adapter.toAnthropicTools
exports.runAnthropicToolUses = adapter.runAnthropicToolUses
