// @clarvis/agent-tools/ai (ESM): the tools as a Vercel AI SDK tool set.
// `ai` is an optional peer dependency: install it alongside to use this entry.
import { tool, jsonSchema } from 'ai'
import adapter from './lib/ai-adapter.js'

export const { ToolCallError } = adapter
export const toAiSdkTools = adapter.makeAdapter({ tool, jsonSchema })
