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

// With `checkpoints: true`, the host-side checkpoint calls of `agentTools` become MCP tools
// the client can call (they are for the person driving the client, like an editor's undo).
const CHECKPOINT_TOOLS = [
  {
    name: 'checkpoint_create',
    description: 'Take a checkpoint of the workspace: every later change made through these tools can be listed with checkpoint_changes and taken back with checkpoint_restore. Returns {"id"}.',
    inputSchema: { type: 'object', properties: { label: { type: 'string', description: 'A name to remember it by.' } } },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    run: (t, a) => ({ id: t.checkpoint(a.label === undefined ? undefined : String(a.label)) }),
  },
  {
    name: 'checkpoint_list',
    description: 'List the live checkpoints, oldest first: [{id, label, createdAt, paths}].',
    inputSchema: { type: 'object', properties: {} },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    run: (t) => t.checkpoints(),
  },
  {
    name: 'checkpoint_changes',
    description: 'What changed since a checkpoint: [{path, kind, from?, diff?}] with unified diffs.',
    inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    run: (t, a) => t.changes(String(a.id)),
  },
  {
    name: 'checkpoint_restore',
    description: 'Put files back as they were at a checkpoint, all or nothing. Files changed outside the tools are reported as conflicts and left alone unless force is true. Returns {restored, conflicts}.',
    inputSchema: {
      type: 'object',
      properties: {
        id: { type: 'string' },
        paths: { type: 'array', items: { type: 'string' }, description: 'Only these paths (default: all).' },
        force: { type: 'boolean', description: 'Overwrite files changed outside the tools too.' },
      },
      required: ['id'],
    },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    run: (t, a) => t.restore(String(a.id), { paths: Array.isArray(a.paths) ? a.paths : undefined, force: a.force === true }),
  },
  {
    name: 'checkpoint_drop',
    description: 'Free a checkpoint and what it stored.',
    inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    run: (t, a) => {
      t.dropCheckpoint(String(a.id))
      return { dropped: true }
    },
  },
]

async function callCheckpointTool(agentTools, def, args) {
  try {
    const value = await def.run(agentTools, args ?? {})
    return { content: [{ type: 'text', text: JSON.stringify(value) }], isError: false }
  } catch (e) {
    const envelope = e && typeof e.code === 'string'
      ? { error: e.code, message: e.message, ...(e.fields || {}) }
      : { error: 'internal', message: 'internal error' }
    return { content: [{ type: 'text', text: JSON.stringify(envelope) }], isError: true }
  }
}

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
  const ckptTools = options.checkpoints && typeof agentTools.checkpoint === 'function' ? CHECKPOINT_TOOLS : []
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      ...agentTools.listTools().map((t) => ({
        name: t.name,
        description: t.description,
        inputSchema: t.inputSchema,
        annotations: t.annotations,
      })),
      ...ckptTools.map(({ run, ...t }) => t),
    ],
  }))
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args } = request.params
    const own = ckptTools.find((t) => t.name === name)
    if (own) return callCheckpointTool(agentTools, own, args)
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
  return serveHttpWith(agentTools, createMcpServer, options)
}
