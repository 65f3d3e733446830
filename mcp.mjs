// @clarvis/agent-tools/mcp: the tools as a Model Context Protocol server.
// `@modelcontextprotocol/sdk` (version 1) is an optional peer dependency: install it to use
// this entry or the `clarvis-agent-tools mcp` command.
//
// The surface goes over as is: listTools() entries become MCP tools (JSON Schema and
// annotations unchanged), a call's content parts become MCP content items (text, and image
// with `data` and `mimeType`) with MCP's `isError` (a 0.1-shaped `{ isError, text }` becomes
// one text item), and the request's AbortSignal — which the SDK aborts when the client sends
// `notifications/cancelled` — is passed to callTool, so a cancelled `bash` kills its process
// group and a cancelled edit writes nothing.
import { createRequire } from 'node:module'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'

const require = createRequire(import.meta.url)
const pkg = require('./package.json')

/** An MCP `Server` (not yet connected) serving `agentTools`. */
export function createMcpServer(agentTools, options = {}) {
  if (!agentTools || typeof agentTools.listTools !== 'function' || typeof agentTools.callTool !== 'function') {
    throw new TypeError('createMcpServer expects the object createAgentTools() returns')
  }
  // `Server` rather than `McpServer`: our schemas are JSON Schema already, and McpServer wants
  // zod ones. Its deprecation note targets hand-written tools, not adapters like this one.
  const server = new Server(
    { name: options.name ?? 'clarvis-agent-tools', version: options.version ?? pkg.version },
    { capabilities: { tools: {} }, ...(options.instructions ? { instructions: options.instructions } : {}) },
  )
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: agentTools.listTools().map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: t.inputSchema,
      annotations: t.annotations,
    })),
  }))
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args } = request.params
    const result = await agentTools.callTool(name, args ?? {}, extra.signal)
    const content = Array.isArray(result.content)
      ? result.content.map((p) =>
          p.type === 'image' ? { type: 'image', data: p.data, mimeType: p.mimeType } : { type: 'text', text: p.text },
        )
      : [{ type: 'text', text: result.text }]
    return { content, isError: result.isError }
  })
  return server
}

/** Serves `agentTools` over stdin/stdout until the client goes away. Resolves once connected. */
export async function serveStdio(agentTools, options = {}) {
  const server = createMcpServer(agentTools, options)
  await server.connect(new StdioServerTransport())
  return server
}
