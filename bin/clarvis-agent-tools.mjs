#!/usr/bin/env node
// clarvis-agent-tools: command-line entry. One command for now, `mcp`, which serves the tools
// to an MCP client over stdio, or over Streamable HTTP with `--http [HOST:]PORT`. Configuration is buildConfig(argv, env): the same flags and
// environment variables as the original CLI (--workspace / WORKSPACE_ROOT, --read-only /
// READ_ONLY, --allow-outside-workspace, MAX_OUTPUT_BYTES, ...). stdout belongs to the protocol:
// everything human-readable goes to stderr.
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const { buildConfig, agentToolsFor, StartupError } = require('../index.js')
const { version } = require('../package.json')

const USAGE = `Usage: clarvis-agent-tools mcp --workspace <dir> [--read-only] [--allow-outside-workspace] [--checkpoints]
                                [--refuse-stale-writes] [--review] [--review-scope <name>]
                                [--review-commands refuse|direct] [--review-tools]
                                [--http [HOST:]PORT [--token <token>]]

Serves the tools to a Model Context Protocol client over stdio, or with --http over the
Streamable HTTP transport at http://HOST:PORT/mcp. Uses @modelcontextprotocol/sdk when it is
installed, else the copy bundled in this package.

Options (each flag wins over its environment variable):
  --workspace <dir>           the workspace root              WORKSPACE_ROOT
  --read-only                 only the read-only tools        READ_ONLY=1
  --allow-outside-workspace   do not confine paths            ALLOW_OUTSIDE_WORKSPACE=1
  --checkpoints               add checkpoint_create/list/changes/restore/drop tools
                              (with --read-only: checkpoint_list and checkpoint_changes)
  --refuse-stale-writes       refuse whole-file overwrites of files the model has not
                              read as they are now (stale_write)   STALE_WRITES=refuse
  --review                    review mode: file tools stage their changes for the host
                              CLARVIS_REVIEW=1 (or the review option's JSON object)
  --review-scope <name>       review mode in this staging area (.clarvis/review/<name>/);
                              the host accepts from its own process with a tools object
                              on the same scope
  --review-commands <c>       bash and monitors in review mode: refuse (default) or direct
  --review-tools              review mode, and the host's review calls as tools:
                              review_pending, review_accept, review_reject (for a host
                              that speaks MCP only; keep them from the model)
  --http [HOST:]PORT          serve over HTTP at /mcp; HOST defaults to 127.0.0.1
  --token <token>             require Authorization: Bearer <token>  CLARVIS_MCP_TOKEN
                              (required for a HOST that is not a loopback address)
Limits (environment): MAX_OUTPUT_BYTES, MAX_FILE_BYTES, BASH_TIMEOUT_MS, BASH_TIMEOUT_MAX_MS
`

function fail(message, code) {
  process.stderr.write(`clarvis-agent-tools: ${message}\n`)
  process.exit(code)
}

/** Takes `--name value` (or `--name=value`) out of `argv`; returns the value, or undefined. */
function takeOption(argv, name) {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === name) {
      if (i + 1 >= argv.length) fail(`${name} needs a value`, 2)
      return argv.splice(i, 2)[1]
    }
    if (argv[i].startsWith(`${name}=`)) return argv.splice(i, 1)[0].slice(name.length + 1)
  }
  return undefined
}

/**
 * The MCP entry: mcp.mjs over the @modelcontextprotocol/sdk the user installed, else
 * mcp-standalone.mjs (the same code with the SDK bundled in, for `npx`).
 */
async function loadMcp() {
  const sdkMissing = (e) => e && e.code === 'ERR_MODULE_NOT_FOUND' && String(e.message).includes('@modelcontextprotocol/sdk')
  try {
    return await import('../mcp.mjs')
  } catch (e) {
    if (!sdkMissing(e)) throw e
  }
  try {
    return await import('../mcp-standalone.mjs')
  } catch (e) {
    if (e && e.code === 'ERR_MODULE_NOT_FOUND' && String(e.message).includes('mcp-standalone')) {
      fail('the mcp command needs the MCP SDK: npm install @modelcontextprotocol/sdk@1', 1)
    }
    throw e
  }
}

async function mcp(argv) {
  const http = takeOption(argv, '--http')
  const token = takeOption(argv, '--token') ?? process.env.CLARVIS_MCP_TOKEN
  let config
  try {
    config = buildConfig(argv, process.env)
  } catch (e) {
    if (e instanceof StartupError) fail(e.message, 2)
    throw e
  }
  const mcpModule = await loadMcp()
  // --checkpoints is read by buildConfig (checkpointTools): the checkpoint tools are tools
  // of the surface, under --read-only, the policy and the guard like the others.
  if (http === undefined) {
    await mcpModule.serveStdio(agentToolsFor(config))
    return
  }
  let served
  try {
    const listen = mcpModule.parseListen(http)
    served = await mcpModule.serveHttp(agentToolsFor(config), { ...listen, token })
  } catch (e) {
    if (e instanceof TypeError || (e && typeof e.code === 'string' && e.syscall === 'listen')) fail(e.message, 2)
    throw e
  }
  process.stderr.write(`clarvis-agent-tools: serving MCP at ${served.url}${token ? ' (Bearer token required)' : ''}\n`)
  const stop = () => served.close().then(() => process.exit(0))
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
}

const [command, ...rest] = process.argv.slice(2)
if (command === 'mcp') {
  await mcp(rest)
} else if (command === '--version' || command === '-v') {
  process.stdout.write(`${version}\n`)
} else if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
  process.stdout.write(USAGE)
} else {
  process.stderr.write(USAGE)
  fail(`unknown command: ${command}`, 2)
}
