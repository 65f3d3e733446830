// A CommonJS consumer of the /ai entry (ai.d.ts), with `ai` installed.
import agentTools = require('@clarvis/agent-tools')
import aiTools = require('@clarvis/agent-tools/ai')

export function toolSet(workspaceRoot: string): aiTools.AgentToolSet {
  const set = aiTools.toAiSdkTools(agentTools.createAgentTools({ workspaceRoot }), { include: ['grep'] })
  // @ts-expect-error an AI SDK tool's description is a string (fails if `Tool` became `any`)
  const notADescription: number = set.grep.description
  void notADescription
  return set
}
