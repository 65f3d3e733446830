// @clarvis/agent-tools/anthropic (ESM): the tools for the Anthropic SDK (Messages API).
// Loads nothing from `@anthropic-ai/sdk`; the optional peer is only needed for the types.
import adapter from './lib/anthropic-adapter.js'

export const { toAnthropicTools, runAnthropicToolUses } = adapter
