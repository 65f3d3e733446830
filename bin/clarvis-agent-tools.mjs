#!/usr/bin/env node
// clarvis-agent-tools: command-line entry. One command for now, `mcp`, which serves the tools
// over stdio to an MCP client. Configuration is buildConfig(argv, env): the same flags and
// environment variables as the original CLI (--workspace / WORKSPACE_ROOT, --read-only /
// READ_ONLY, --allow-outside-workspace, MAX_OUTPUT_BYTES, ...). stdout belongs to the protocol:
// everything human-readable goes to stderr.
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const { buildConfig, agentToolsFor, StartupError } = require('../index.js')
const { version } = require('../package.json')

const USAGE = `Usage: clarvis-agent-tools mcp --workspace <dir> [--read-only] [--allow-outside-workspace] [--checkpoints]

Serves read_file, list_dir, glob, grep, write_file, edit_file, multi_edit, apply_patch and bash
to a Model Context Protocol client over stdio (needs @modelcontextprotocol/sdk installed).

Options (each flag wins over its environment variable):
  --workspace <dir>           the workspace root              WORKSPACE_ROOT
  --read-only                 only the four read tools        READ_ONLY=1
  --allow-outside-workspace   do not confine paths            ALLOW_OUTSIDE_WORKSPACE=1
  --checkpoints               add checkpoint_create/list/changes/restore/drop tools
Limits (environment): MAX_OUTPUT_BYTES, MAX_FILE_BYTES, BASH_TIMEOUT_MS, BASH_TIMEOUT_MAX_MS
`

function fail(message, code) {
  process.stderr.write(`clarvis-agent-tools: ${message}\n`)
  process.exit(code)
}

async function mcp(argv) {
  let config
  try {
    config = buildConfig(argv, process.env)
  } catch (e) {
    if (e instanceof StartupError) fail(e.message, 2)
    throw e
  }
  let serveStdio
  try {
    ;({ serveStdio } = await import('../mcp.mjs'))
  } catch (e) {
    if (e && e.code === 'ERR_MODULE_NOT_FOUND' && String(e.message).includes('@modelcontextprotocol/sdk')) {
      fail('the mcp command needs the MCP SDK: npm install @modelcontextprotocol/sdk@1', 1)
    }
    throw e
  }
  await serveStdio(agentToolsFor(config), { checkpoints: argv.includes('--checkpoints') })
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
