// A consumer of the /ai and /mcp entries, with `ai` and `@modelcontextprotocol/sdk` installed.
import { createAgentTools } from '@clarvis/agent-tools'
import { toAiSdkTools, ToolCallError, type AgentToolSet } from '@clarvis/agent-tools/ai'
import { createMcpServer, serveHttp, type McpServerOptions, type McpHttpServer } from '@clarvis/agent-tools/mcp'
import { generateText, stepCountIs, type ToolSet } from 'ai'
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'

export async function main(workspaceRoot: string, model: Parameters<typeof generateText>[0]['model']): Promise<string> {
  const agent = createAgentTools({ workspaceRoot })
  const set: AgentToolSet = toAiSdkTools(agent, { include: ['read_file', 'list_dir'] })
  const asToolSet: ToolSet = set
  const result = await generateText({ model, tools: asToolSet, prompt: 'List the files.', stopWhen: stepCountIs(5) })
  for (const step of result.steps) {
    for (const part of step.content) {
      if (part.type === 'tool-error' && part.error instanceof ToolCallError) return part.error.code
    }
  }
  const options: McpServerOptions = { name: 'workspace-tools' }
  const server: Server = createMcpServer(agent, options)
  // The checks run with skipLibCheck (ai's own types need @types/node); these lines prove our
  // declarations still resolved to real types rather than to `any`.
  // @ts-expect-error an AI SDK tool's description is a string
  const notADescription: number = set.read_file.description
  // @ts-expect-error an MCP Server has no such method
  createMcpServer(agent).notAMethod()
  // @ts-expect-error include takes tool names
  toAiSdkTools(agent, { include: ['rm_rf'] })
  void notADescription
  await server.close()
  const overHttp: McpHttpServer = await serveHttp(agent, { host: '127.0.0.1', port: 0, token: 'secret', checkpoints: true })
  // @ts-expect-error the url is a string
  const notAUrl: number = overHttp.url
  void notAUrl
  await overHttp.close()
  return result.text
}
