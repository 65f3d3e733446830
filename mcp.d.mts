// Types for @clarvis/agent-tools/mcp (needs @modelcontextprotocol/sdk version 1).
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { AgentTools } from './index.js'

/** Options of createMcpServer / serveStdio. */
export interface McpServerOptions {
  /** The server name reported to clients. Default `clarvis-agent-tools`. */
  name?: string
  /** The server version reported to clients. Default this package's version. */
  version?: string
  /** Instructions sent to the client at initialization. */
  instructions?: string
}

/**
 * An MCP server (not yet connected) exposing `agentTools`: tools/list with JSON Schemas and
 * annotations, tools/call with `isError`, and cancellation passed to callTool as its signal.
 */
export declare function createMcpServer(agentTools: AgentTools, options?: McpServerOptions): Server

/** Serves `agentTools` over stdio; resolves once connected. */
export declare function serveStdio(agentTools: AgentTools, options?: McpServerOptions): Promise<Server>
