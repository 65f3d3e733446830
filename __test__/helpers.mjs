// Shared test helpers: scratch workspaces and envelope parsing.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createAgentTools } from '../index.mjs'

const scratchDirs = []
process.on('exit', () => {
  for (const dir of scratchDirs) fs.rmSync(dir, { recursive: true, force: true })
})

/** A fresh scratch directory (removed at process exit). Realpath'd, so it equals workspaceRoot. */
export function scratch(prefix = 'cat-') {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))
  scratchDirs.push(dir)
  return dir
}

/**
 * A workspace with `files` ({ 'rel/path': content }) and tools over it, under
 * `compat: "0.1"` unless `options.compat` says otherwise: the suites written for 0.1 assert
 * its exact contract (results `{ isError, text }`, strict schemas, nine tools).
 */
export function workspace(files = {}, options = {}) {
  const root = scratch()
  for (const [rel, content] of Object.entries(files)) {
    const p = path.join(root, rel)
    fs.mkdirSync(path.dirname(p), { recursive: true })
    fs.writeFileSync(p, content)
  }
  const tools = createAgentTools({ workspaceRoot: root, compat: '0.1', ...options })
  return { root, tools, call: (name, args, signal) => tools.callTool(name, args, signal) }
}

/** `workspace()` on the latest (0.5) surface: every tool, content results, relaxed schemas. */
export function latest(files = {}, options = {}) {
  return workspace(files, { compat: 'latest', ...options })
}

/** Parses an error result's envelope, asserting it is one. */
export function envelope(result) {
  if (!result.isError) throw new Error(`expected an error, got: ${result.text}`)
  return JSON.parse(result.text)
}
