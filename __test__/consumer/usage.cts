// A CommonJS TypeScript consumer: `import = require` of the package root.
import agentTools = require('@clarvis/agent-tools')

export async function main(workspaceRoot: string): Promise<string> {
  const agent: agentTools.AgentTools = agentTools.createAgentTools({ workspaceRoot })
  const result: agentTools.DispatchResult = await agent.callTool('read_file', { path: 'hello.txt' })
  const cfg: agentTools.ServerConfig = agentTools.buildConfig(['--workspace', workspaceRoot], {})
  const listed: agentTools.ToolInfo[] = agentTools.listTools(cfg)
  if (!(new agentTools.StartupError('x') instanceof Error)) throw new Error('unreachable')
  return `${result.text} ${listed.length}`
}
