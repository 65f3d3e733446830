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
  /**
   * @deprecated The checkpoint_* tools are tools of the surface: create the tools with
   * `checkpointTools: true` (the `--checkpoints` flag). `true` here throws a TypeError when
   * `agentTools.config.checkpointTools` is not set.
   */
  checkpoints?: boolean
}

/**
 * An MCP server (not yet connected) exposing `agentTools`: tools/list with JSON Schemas and
 * annotations, tools/call with `isError`, and cancellation passed to callTool as its signal.
 */
export declare function createMcpServer(agentTools: AgentTools, options?: McpServerOptions): Server

/** Serves `agentTools` over stdio; resolves once connected. */
export declare function serveStdio(agentTools: AgentTools, options?: McpServerOptions): Promise<Server>

/** Options of serveHttp. */
export interface McpHttpOptions extends McpServerOptions {
  /** The address to bind. Default `127.0.0.1`. A non-loopback address requires `token`. */
  host?: string
  /** The port. Default 0 (any free port; read it from `url`). */
  port?: number
  /** Require `Authorization: Bearer <token>` (HTTP 401 otherwise). */
  token?: string
  /** The most sessions open at once (HTTP 503 past it). Default 1000. */
  maxSessions?: number
}

/** A running MCP HTTP server. */
export interface McpHttpServer {
  /** The endpoint, e.g. `http://127.0.0.1:8080/mcp`. */
  url: string
  /** The underlying Node.js HTTP server. */
  httpServer: import('node:http').Server
  /** Sessions currently open. */
  sessionCount(): number
  /** Ends every session (aborting their running calls) and stops listening. */
  close(): Promise<void>
}

/**
 * Serves `agentTools` over the MCP Streamable HTTP transport at `/mcp`, one session per
 * client; rejects with a TypeError for a non-loopback `host` without `token`.
 */
export declare function serveHttp(agentTools: AgentTools, options?: McpHttpOptions): Promise<McpHttpServer>
