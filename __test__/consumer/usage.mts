// A typical ESM consumer of @clarvis/agent-tools: every export of the package root, typed.
import {
  createAgentTools,
  dispatch,
  listTools,
  resolveConfig,
  buildConfig,
  ToolError,
  StartupError,
  setWarnSink,
  sweepSpillDir,
  serializeError,
  fsError,
  tools,
  readOnlyTools,
  getTool,
  selectSurface,
  DEFAULT_MAX_OUTPUT_BYTES,
  DEFAULT_MAX_FILE_BYTES,
  DEFAULT_BASH_TIMEOUT_MS,
  DEFAULT_BASH_TIMEOUT_MAX_MS,
  type AgentTools,
  type AgentToolsOptions,
  type ServerConfig,
  type DispatchResult,
  type ToolInfo,
  type ToolDef,
  type ToolName,
  type ErrorCode,
  type ToolAnnotations,
  type ValidationIssue,
  type JsonSchema,
} from '@clarvis/agent-tools'

export async function main(workspaceRoot: string): Promise<string[]> {
  const log: string[] = []
  const options: AgentToolsOptions = { workspaceRoot, maxOutputBytes: DEFAULT_MAX_OUTPUT_BYTES, probeRipgrep: () => false }
  const agent: AgentTools = createAgentTools(options)
  const config: ServerConfig = agent.config
  log.push(`root=${config.workspaceRoot === workspaceRoot} readOnly=${config.readOnly}`)

  // Advertise the tools to a model: OpenAI- and Anthropic-style schemas.
  const infos: ToolInfo[] = agent.listTools()
  const openai = infos.map((t) => ({ type: 'function' as const, function: { name: t.name, description: t.description, parameters: t.inputSchema } }))
  const anthropic = infos.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema }))
  const readOnlyNames: ToolName[] = infos.filter((t) => t.annotations.readOnlyHint).map((t) => t.name)
  const hints: ToolAnnotations = infos[0].annotations
  const schema: JsonSchema = infos[0].inputSchema
  log.push(`tools=${openai.length}/${anthropic.length} read=${readOnlyNames.join(',')} hint=${hints.readOnlyHint} schema=${schema.type}`)

  // Run calls as a model asks for them; errors are results, never exceptions.
  const controller = new AbortController()
  const read: DispatchResult = await agent.callTool('read_file', { path: 'hello.txt' }, controller.signal)
  log.push(`read=${read.isError}:${read.text}`)
  const missing = await agent.callTool('read_file', { path: 'missing.txt' })
  if (missing.isError) {
    const envelope = JSON.parse(missing.text) as { error: ErrorCode; message: string; path?: string }
    log.push(`missing=${envelope.error}`)
  }
  controller.abort()
  const aborted = await agent.callTool('list_dir', {}, controller.signal)
  log.push(`aborted=${(JSON.parse(aborted.text) as { error: ErrorCode }).error}`)

  // The lower-level API of the original package.
  const cfg: ServerConfig = resolveConfig({ workspaceRoot, readOnly: true })
  const viaDispatch: DispatchResult = await dispatch('list_dir', undefined, cfg)
  const fromCli: ServerConfig = buildConfig(['--workspace', workspaceRoot, '--read-only'], { MAX_FILE_BYTES: '4096' })
  log.push(`dispatch=${viaDispatch.text.split('\n').length} cli=${fromCli.maxFileBytes} ro=${listTools(fromCli).length}`)

  const def: ToolDef | undefined = getTool('read_file', selectSurface(true))
  if (def) log.push(`handler=${await def.handler({ path: 'hello.txt' }, cfg)}`)
  const surface: readonly ToolDef[] = selectSurface(false)
  log.push(`registry=${tools.length}/${readOnlyTools.length}/${surface.length} mutating=${tools.filter((t) => t.mutating).length}`)

  // Errors: StartupError for bad options, ToolError for tool failures.
  try {
    createAgentTools({ workspaceRoot, maxOutputBytes: 10 })
  } catch (e) {
    if (e instanceof StartupError) log.push(`startup=${e.name}: ${e.message}`)
  }
  const err = new ToolError('no_match', 'old_string not found.', { path: 'a.txt' })
  const code: ErrorCode | string = err.code
  log.push(`toolError=${code} ${serializeError(err)}`)
  const fsErr: ToolError = fsError(Object.assign(new Error('nope'), { code: 'ENOENT' }), 'x.txt')
  log.push(`fsError=${fsErr.code}`)

  const warnings: string[] = []
  setWarnSink((line: string) => warnings.push(line))
  setWarnSink(null)
  await sweepSpillDir(workspaceRoot)
  log.push(`limits=${DEFAULT_MAX_FILE_BYTES},${DEFAULT_BASH_TIMEOUT_MS},${DEFAULT_BASH_TIMEOUT_MAX_MS}`)
  return log
}

/** Host control options type-check (not run): writeScope and a custom tool. */
export function hostOptions(workspaceRoot: string): AgentToolsOptions {
  return {
    workspaceRoot,
    writeScope: ['src'],
    redactSecrets: { patterns: [/ACME-\d+/i, 'internal-[0-9]+'] },
    customTools: [
      {
        name: 'lookup',
        description: 'Look a thing up.',
        inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
        readOnly: true,
        annotations: { openWorldHint: true },
        handler: async (args, { signal, workspaceRoot: root }) => {
          if (signal.aborted) throw new ToolError('aborted', 'stopped')
          return { content: [{ type: 'text', text: `${root}:${String(args.id)}` }], meta: { n: 1 } }
        },
      },
    ],
  }
}

/** The issues of a schema invalid_input, typed (not run). */
export function issuesOf(text: string): ValidationIssue[] {
  const e = JSON.parse(text) as { issues?: ValidationIssue[] }
  return (e.issues ?? []).map((i) => ({ ...i, message: `${i.path}: expected ${i.expected}, got ${i.received}` }))
}

/** The redaction setting as the config reports it (not run). */
export function redaction(config: ServerConfig): string {
  const r = config.redactSecrets
  return r === undefined ? 'off' : r === true ? 'builtin' : r.patterns.map((p) => `/${p.source}/${p.flags}`).join(' ')
}
