// @clarvis/agent-tools/mcp: the tools as a Model Context Protocol server.
// `@modelcontextprotocol/sdk` (version 1) is an optional peer dependency: install it to use
// this entry or the `clarvis-agent-tools mcp` command.
//
// The surface goes over as is: listTools() entries become MCP tools (JSON Schema and
// annotations unchanged), a call's content parts become MCP content items (text, and image
// with `data` and `mimeType`) with MCP's `isError` (a 0.1-shaped `{ isError, text }` becomes
// one text item), and the request's AbortSignal — which the SDK aborts when the client sends
// `notifications/cancelled` — is passed to callTool, so a cancelled `bash` kills its process
// group and a cancelled edit writes nothing. When the client sent a progress token
// (`_meta.progressToken`), a running `bash`'s output goes to it live as
// `notifications/progress`: `progress` is the count of output characters so far, `message`
// the chunk, and `_meta["clarvis/stream"]` says `stdout` or `stderr`. They are all sent
// before the call's result.
import { createRequire } from 'node:module'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { serveHttp as serveHttpWith } from './lib/mcp-http.mjs'

export { parseListen } from './lib/mcp-http.mjs'

const require = createRequire(import.meta.url)
const pkg = require('./package.json')

// An `onOutput` that reports each chunk as a progress notification for `token`, a `flush()`
// that waits until every notification reached the transport, and `sent()`. The SDK client
// handles a notification a microtask after a response read in the same chunk, and forgets
// the token with the response, so the handler answers only after a flush and a short pause
// (SPEC §9).
function progressTo(extra, token) {
  let progress = 0
  const pending = []
  const onOutput = ({ stream, text }) => {
    progress += text.length
    pending.push(
      extra
        .sendNotification({
          method: 'notifications/progress',
          params: { progressToken: token, progress, message: text, _meta: { 'clarvis/stream': stream } },
        })
        .catch(() => {}),
    )
  }
  return { onOutput, flush: () => Promise.all(pending), sent: () => pending.length > 0 }
}

// `checkpoints: true` (before checkpointTools existed, it added the checkpoint tools beside
// the surface, where neither toolPolicy, readOnly nor the guard saw them): the tools must now
// be built with them on their surface. Refused rather than ignored, so a host that asked for
// them learns why its client does not see them.
function checkCheckpoints(agentTools, options) {
  if (options && options.checkpoints && !(agentTools.config && agentTools.config.checkpointTools)) {
    throw new TypeError(
      'checkpoints: true needs tools created with checkpointTools: true: the checkpoint tools are tools of the surface, under toolPolicy, readOnly and the guard',
    )
  }
}

/** An MCP `Server` (not yet connected) serving `agentTools`. */
export function createMcpServer(agentTools, options = {}) {
  if (!agentTools || typeof agentTools.listTools !== 'function' || typeof agentTools.callTool !== 'function') {
    throw new TypeError('createMcpServer expects the object createAgentTools() returns')
  }
  checkCheckpoints(agentTools, options)
  // `Server` rather than `McpServer`: our schemas are JSON Schema already, and McpServer wants
  // zod ones. Its deprecation note targets hand-written tools, not adapters like this one.
  const server = new Server(
    { name: options.name ?? 'clarvis-agent-tools', version: options.version ?? pkg.version },
    { capabilities: { tools: {} }, ...(options.instructions ? { instructions: options.instructions } : {}) },
  )
  // Every tool the client sees is a tool of the surface: listed by listTools() and run by
  // callTool(), so toolPolicy, readOnly, validation, the guard and redaction apply to each one
  // (the checkpoint tools included: they are on the surface with `checkpointTools`).
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
    const token = request.params._meta?.progressToken
    const live = token === undefined ? null : progressTo(extra, token)
    const options = live ? { signal: extra.signal, onOutput: live.onOutput } : extra.signal
    const result = await agentTools.callTool(name, args ?? {}, options)
    if (live) await live.flush()
    if (live && live.sent()) await new Promise((resolve) => setTimeout(resolve, 20))
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

/**
 * Serves `agentTools` over MCP Streamable HTTP at `/mcp` (`host` default 127.0.0.1, `port`
 * default 0 = any free port, `token` for `Authorization: Bearer`; a non-loopback host needs a
 * token). One MCP session per client. Resolves once listening to `{ url, httpServer,
 * sessionCount(), close() }`.
 */
export function serveHttp(agentTools, options = {}) {
  if (!agentTools || typeof agentTools.listTools !== 'function' || typeof agentTools.callTool !== 'function') {
    return Promise.reject(new TypeError('serveHttp expects the object createAgentTools() returns'))
  }
  try {
    checkCheckpoints(agentTools, options)
  } catch (e) {
    return Promise.reject(e)
  }
  return serveHttpWith(agentTools, createMcpServer, options)
}
