// A CommonJS consumer of the /openai and /anthropic entries.
import agentTools = require('@clarvis/agent-tools')
import openaiTools = require('@clarvis/agent-tools/openai')
import anthropicTools = require('@clarvis/agent-tools/anthropic')
import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions'
import type { Tool } from '@anthropic-ai/sdk/resources/messages'

export function tools(workspaceRoot: string): [ChatCompletionFunctionTool[], Tool[]] {
  const agent = agentTools.createAgentTools({ workspaceRoot })
  const forOpenAI = openaiTools.toOpenAITools(agent, { include: ['read_file'] })
  // @ts-expect-error input_schema is an object (fails if `Tool` became `any`)
  const notASchema: string = anthropicTools.toAnthropicTools(agent)[0]!.input_schema
  void notASchema
  return [forOpenAI, anthropicTools.toAnthropicTools(agent)]
}

export async function run(agent: openaiTools.AgentToolsLike): Promise<number> {
  const out = await openaiTools.runOpenAIResponsesCalls(agent, [])
  return out.length
}
