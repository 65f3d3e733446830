// MCP over HTTP: the official SDK's Streamable HTTP server transport at `/mcp`, one MCP
// `Server` and transport per session (sessions share the AgentTools, which is safe: calls
// share no state and writes to one path are serialised inside the package).
//
// Security: a Bearer token is compared in constant time (over SHA-256 digests, so the length
// leaks nothing either); without one, only a loopback address is accepted, and the SDK's DNS
// rebinding protection (Host header allow-list) is on for loopback binds, so a web page in the
// user's browser cannot reach the server through a rebound name.
//
// Cancellation is per session: `notifications/cancelled` aborts that request's signal, and a
// session that ends (DELETE /mcp, or the server closing) aborts every call still running in
// it — the SDK's Protocol aborts its in-flight handlers on close, and the signal reaches
// callTool, so a running bash is killed and a pending edit writes nothing.
import http from 'node:http'
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'

/** The endpoint path. */
export const MCP_PATH = '/mcp'

/** Whether `host` names a loopback address (127.0.0.0/8, ::1, localhost). */
export function isLoopback(host) {
  const h = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h)
}

/** Parses `[HOST:]PORT` (HOST may be `[v6]`); throws a TypeError naming the problem. */
export function parseListen(spec) {
  const m = /^(?:(\[[^\]]+\]|[^:[\]]+):)?(\d{1,5})$/.exec(String(spec ?? ''))
  if (!m || Number(m[2]) > 65535) throw new TypeError(`--http expects [HOST:]PORT (e.g. 8080 or 127.0.0.1:8080), got: ${spec}`)
  const host = m[1] ? (m[1].startsWith('[') ? m[1].slice(1, -1) : m[1]) : '127.0.0.1'
  return { host, port: Number(m[2]) }
}

function digest(s) {
  return createHash('sha256').update(s).digest()
}

function reply(res, status, message, code = -32000, headers = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers })
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }))
}

/**
 * Serves `agentTools` over MCP Streamable HTTP. `createServer(agentTools, options)` makes the
 * MCP Server of one session (createMcpServer). Resolves once listening to
 * `{ url, httpServer, sessionCount(), close() }`.
 */
export async function serveHttp(agentTools, createServer, options = {}) {
  const host = options.host ?? '127.0.0.1'
  const port = options.port ?? 0
  const token = options.token ? String(options.token) : undefined
  const maxSessions = options.maxSessions ?? 1000
  const loopback = isLoopback(host)
  if (!loopback && !token) {
    throw new TypeError(`Refusing to serve on ${host}, which is not a loopback address, without a token: pass --token or set CLARVIS_MCP_TOKEN.`)
  }
  const expected = token ? digest(token) : null
  // The scheme is case-insensitive (RFC 9110); the token is compared as bytes.
  const authorized = (req) => {
    if (!expected) return true
    const m = /^bearer +(.*)$/i.exec(String(req.headers.authorization ?? ''))
    return timingSafeEqual(digest(m ? m[1] : '\0'), expected)
  }
  const sessions = new Map()
  let allowedHosts

  const httpServer = http.createServer(async (req, res) => {
    try {
      const { pathname } = new URL(req.url ?? '/', 'http://localhost')
      if (pathname !== MCP_PATH) return reply(res, 404, `Not found: the MCP endpoint is ${MCP_PATH}`)
      if (!authorized(req)) {
        return reply(res, 401, 'Unauthorized: send Authorization: Bearer <token>', -32001, { 'www-authenticate': 'Bearer' })
      }
      const sid = req.headers['mcp-session-id']
      if (typeof sid === 'string') {
        const transport = sessions.get(sid)
        if (!transport) return reply(res, 404, 'Session not found', -32001)
        return await transport.handleRequest(req, res)
      }
      if (req.method !== 'POST') return reply(res, 400, 'No session: start one with an initialize request')
      if (sessions.size >= maxSessions) return reply(res, 503, `Too many sessions (at most ${maxSessions})`)
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void sessions.set(id, transport),
        onsessionclosed: (id) => void sessions.delete(id),
        enableDnsRebindingProtection: loopback,
        allowedHosts,
      })
      transport.onclose = () => {
        if (transport.sessionId) sessions.delete(transport.sessionId)
      }
      const server = createServer(agentTools, options)
      await server.connect(transport)
      await transport.handleRequest(req, res)
      // Not an initialize request (the transport answered with an error): no session to keep.
      if (!transport.sessionId) await server.close()
    } catch (e) {
      if (!res.headersSent) reply(res, 500, 'Internal server error', -32603)
      else res.end()
    }
  })
  await new Promise((resolve, reject) => {
    httpServer.once('error', reject)
    httpServer.listen(port, host, () => {
      httpServer.off('error', reject)
      resolve()
    })
  })
  const bound = httpServer.address()
  const shown = bound.family === 'IPv6' || bound.address.includes(':') ? `[${bound.address}]` : bound.address
  if (loopback) allowedHosts = [`127.0.0.1:${bound.port}`, `localhost:${bound.port}`, `[::1]:${bound.port}`, `${shown}:${bound.port}`]
  return {
    url: `http://${shown}:${bound.port}${MCP_PATH}`,
    httpServer,
    sessionCount: () => sessions.size,
    async close() {
      await Promise.all([...sessions.values()].map((t) => t.close().catch(() => {})))
      sessions.clear()
      httpServer.closeAllConnections?.()
      await new Promise((resolve) => httpServer.close(() => resolve()))
    },
  }
}
