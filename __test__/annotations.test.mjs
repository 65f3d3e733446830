// listTools() annotations (MCP's hints) must tell the truth about each tool, because hosts act
// on them: run read-only tools in parallel and without approval, gate destructive ones, retry
// idempotent ones, sandbox open-world ones. Adding them must not change the rest of an entry.
import test from 'node:test'
import assert from 'node:assert/strict'
import { listTools, resolveConfig, tools as registry, readOnlyTools } from '../index.mjs'
import { workspace, scratch } from './helpers.mjs'

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }
const EXPECTED = {
  read_file: READ,
  // Overwrites whatever was there; writing the same content twice leaves the same file.
  write_file: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  // A second identical edit sees a different file (no_match, or a second replacement).
  edit_file: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  multi_edit: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  apply_patch: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  list_dir: READ,
  glob: READ,
  grep: READ,
  // Runs anything: deletes files, reaches the network, starts processes.
  bash: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
}

// The inputs of seed 002 (interface): [required, optional] property names, and their types.
const INPUTS = {
  read_file: [['path'], { path: 'string', offset: 'integer', limit: 'integer' }],
  list_dir: [[], { path: 'string' }],
  glob: [['pattern'], { pattern: 'string', path: 'string', respect_gitignore: 'boolean' }],
  grep: [
    ['pattern'],
    {
      pattern: 'string',
      path: 'string',
      glob: 'string',
      output_mode: 'string',
      ignore_case: 'boolean',
      multiline: 'boolean',
      context: 'integer',
      before_context: 'integer',
      after_context: 'integer',
      head_limit: 'integer',
      offset: 'integer',
    },
  ],
  write_file: [['path', 'content'], { path: 'string', content: 'string' }],
  edit_file: [
    ['path', 'old_string', 'new_string'],
    { path: 'string', old_string: 'string', new_string: 'string', replace_all: 'boolean' },
  ],
  multi_edit: [['path', 'edits'], { path: 'string', edits: 'array' }],
  apply_patch: [['patch'], { patch: 'string' }],
  bash: [['command'], { command: 'string', cwd: 'string', timeout_ms: 'integer' }],
}

test('every tool carries exactly the four MCP hints, with the truthful values', () => {
  const { tools } = workspace()
  const listed = tools.listTools()
  assert.deepEqual(listed.map((t) => t.name), Object.keys(EXPECTED))
  for (const t of listed) assert.deepEqual(t.annotations, EXPECTED[t.name], t.name)
})

test('the hints agree with each other and with the registry', () => {
  for (const t of listTools(resolveConfig({ workspaceRoot: scratch() }))) {
    const a = t.annotations
    const def = registry.find((d) => d.name === t.name)
    assert.equal(def.mutating, !a.readOnlyHint, `${t.name}: mutating is the opposite of readOnlyHint`)
    if (a.readOnlyHint) assert.equal(a.destructiveHint, false, `${t.name}: a read-only tool destroys nothing`)
    if (a.readOnlyHint) assert.equal(a.idempotentHint, true, `${t.name}: a read-only tool is idempotent`)
    assert.deepEqual(def.annotations, a, `${t.name}: the registry entry has the same hints`)
  }
})

test('the read-only surface lists the four read tools with the same hints', () => {
  const { tools } = workspace({}, { readOnly: true })
  const listed = tools.listTools()
  assert.deepEqual(listed.map((t) => t.name), ['read_file', 'list_dir', 'glob', 'grep'])
  for (const t of listed) assert.deepEqual(t.annotations, READ, t.name)
  // The registry's read-only tools are the latest surface's; the four keep their order in it.
  assert.deepEqual(readOnlyTools.map((t) => t.name).filter((n) => listed.some((t) => t.name === n)), listed.map((t) => t.name))
  for (const t of readOnlyTools) assert.deepEqual(t.annotations, READ, t.name)
})

test('an entry is { name, description, inputSchema, annotations }; the rest is as before', () => {
  const { tools } = workspace()
  for (const t of tools.listTools()) {
    assert.deepEqual(Object.keys(t), ['name', 'description', 'inputSchema', 'annotations'], t.name)
    assert.equal(typeof t.description, 'string')
    assert.ok(t.description.length > 0, `${t.name} has a description`)
    const [required, props] = INPUTS[t.name]
    const s = t.inputSchema
    assert.equal(s.type, 'object', t.name)
    assert.equal(s.additionalProperties, false, t.name)
    assert.deepEqual([...(s.required ?? [])].sort(), [...required].sort(), `${t.name} required`)
    assert.deepEqual(Object.keys(s.properties), Object.keys(props), `${t.name} properties`)
    for (const [k, type] of Object.entries(props)) assert.equal(s.properties[k].type, type, `${t.name}.${k}`)
    const def = registry.find((d) => d.name === t.name)
    assert.equal(def.description, t.description)
    // The registry carries the latest (relaxed) form of the same schema, plus the properties
    // newer than 0.1 (bash's `session`, issue 33).
    const { additionalProperties, ...open } = t.inputSchema
    const newer = { bash: ['session'] }[t.name] ?? []
    assert.deepEqual(Object.keys(def.inputSchema.properties), [...Object.keys(open.properties), ...newer], t.name)
    assert.equal(def.inputSchema.additionalProperties, undefined, t.name)
  }
})

test('listTools() hands out copies: editing one result does not change the next', () => {
  const { tools } = workspace()
  const first = tools.listTools()
  first[0].annotations.readOnlyHint = false
  first[0].inputSchema.properties = {}
  const again = tools.listTools()
  assert.deepEqual(again[0].annotations, READ)
  assert.ok(Object.keys(again[0].inputSchema.properties).length > 0)
})
