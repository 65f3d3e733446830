// An MCP client connected in-process to our server (shared by the host-control suites).
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { createMcpServer } from '../mcp.mjs'

/** An MCP client connected in-process to a server over `agentTools`. */
export async function mcpClient(t, agentTools) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  const server = createMcpServer(agentTools)
  await server.connect(serverSide)
  const client = new Client({ name: 'host-test', version: '1.0.0' })
  await client.connect(clientSide)
  t.after(() => client.close())
  return client
}
