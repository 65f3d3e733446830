// Types for @clarvis/agent-tools. The native binding's own types are in binding.d.ts;
// this file types the public API that index.js / index.mjs export.

/** Options of createAgentTools / resolveConfig. */
/** A property of the sandbox, as `require` names it and `sandboxStatus()` reports it. */
export type SandboxProperty =
  | 'writes'
  | 'protectedPaths'
  | 'reads'
  | 'network'
  | 'unixSockets'
  | 'signals'
  | 'ptrace'
  | 'privileges'
  | 'namespaces'
  | 'environment'

/**
 * The `sandbox` option's object form (field names as sandbox-runtime's configuration).
 * `sandbox: true` means every default: writes only under the workspace (or `writeScope`)
 * and a private `TMPDIR`; protected paths (`.git/hooks`, `.git/config`, `.vscode/`, `.idea/`,
 * `.mcp.json`, `.envrc`, `.clarvis/`, shell start-up files…) read-only there; credentials
 * (`~/.ssh`, `~/.aws`, …) unreadable; no network; secret-looking variables not passed.
 */
export interface SandboxOptions {
  filesystem?: {
    /** More writable directories (absolute, `~/…`, or relative to the workspace), e.g. `['~/.cargo', '~/.npm']`. */
    allowWrite?: string[]
    /** More protected paths: relative ones under every writable root, absolute ones as they are. */
    denyWrite?: string[]
    /** More unreadable paths. */
    denyRead?: string[]
  }
  /** `'none'` (default), `'all'`, or egress only through the addon's filtering HTTP proxy. */
  network?: 'none' | 'all' | { allowedDomains: string[]; deniedDomains?: string[] }
  /** Environment variables passed even though their names look like secrets. */
  env?: { allow?: string[] }
  /**
   * The properties the host needs (default: all). A property the machine cannot enforce is a
   * StartupError only when listed here.
   */
  require?: SandboxProperty[]
}

/** What {@link probeSandbox} and {@link AgentTools.sandboxStatus} report. */
export interface SandboxStatus {
  platform: 'linux' | 'macos' | 'windows' | 'other'
  /** The kernel mechanisms found (Linux: `landlockAbi`, `seccomp`, `userNamespaces`). */
  mechanisms: Record<string, unknown>
  properties: Record<SandboxProperty, { enforced: boolean; by: string[]; missing?: string }>
}

export interface AgentToolsOptions {
  /** The workspace directory. Required; must exist and be a directory. */
  workspaceRoot: string
  /**
   * Run `bash` and monitors (and everything they start) in a kernel sandbox. Off by default;
   * `true` is the recommended setting. A StartupError when a required property cannot be
   * enforced on this machine, and on Windows ("not supported on Windows").
   */
  sandbox?: boolean | SandboxOptions
  /** Expose only read_file, list_dir, glob and grep. Default false. */
  readOnly?: boolean
  /** Refuse paths that resolve outside the workspace root. Default true. */
  confineToWorkspace?: boolean
  /**
   * Budget for a call's output text, in bytes (>= 1024). Default 131072. A value over
   * 535822312 acts as that: a result must fit one JavaScript string.
   */
  maxOutputBytes?: number
  /** Largest file the text tools read, in bytes (>= 1024). Default 20000000. */
  maxFileBytes?: number
  /** Default bash timeout in ms (>= 1). Default 120000. */
  bashTimeoutMs?: number
  /** Ceiling bash timeouts are clamped to, in ms (>= bashTimeoutMs). Default 600000. */
  bashTimeoutMaxMs?: number
  /** Reports whether ripgrep is installed (stored as ripgrepAvailable; grep is always in-process). */
  probeRipgrep?: () => boolean
  /**
   * Which generation of the original package to reproduce. Default: the newest (0.5) —
   * its full surface in registry order, scalar coercion, unknown keys ignored, results with
   * `content` parts. `"0.1"`: exactly 0.1 — nine tools, strict schemas, results `{ isError, text }`.
   */
  compat?: '0.1' | '0.5' | 'latest'
  /** Return false to turn the syntax tools (outline, check_syntax, find_symbol, find_references, repo_map, replace_symbol, insert_symbol) and syntax warnings off. */
  probeTreeSitter?: () => boolean
  /** Largest image read_image returns, in bytes (>= 1024). Default 5000000; at most 401866734 (its base64 must fit one JavaScript string). */
  maxImageBytes?: number
  /** How long monitor_start waits for ready_when by default, in ms (>= 1). Default 30000. */
  monitorReadyTimeoutMs?: number
  /** The most live monitors at once (>= 1). Default 32. */
  maxMonitors?: number
  /** The most bytes a monitor's log keeps, its latest output (>= 65536). Default 16 MiB. */
  monitorLogMaxBytes?: number
  /** Which tools the surface keeps: an empty or absent `allow` keeps all; `deny` wins. Unknown names throw StartupError. */
  toolPolicy?: { allow?: readonly ToolName[]; deny?: readonly ToolName[] }
  /**
   * Decides, per call, whether it runs (after validation, before the handler). Fail-closed:
   * a throw, a rejection or an invalid decision denies (never a rejected promise). A value
   * that is not a function (undefined, null and false mean none) throws StartupError.
   */
  guard?: Guard
  /** Asked when the guard answers `ask`; only `true` runs the call. Without it, `ask` is denied. Not a function: StartupError. */
  elicit?: Elicit
  /** A guard or elicit that has not answered within this many ms denies the call. Default: no limit. */
  guardTimeoutMs?: number
  /**
   * Workspace-relative directories the mutating file tools may change (by real location);
   * a target outside is `path_escape` naming the scope. Escaping, empty or malformed scopes
   * throw StartupError. Default: no restriction.
   */
  writeScope?: readonly string[]
  /**
   * The host's own tools, run through the same pipeline as ours (surface, readOnly,
   * toolPolicy, validation with defaults, guard, output bounding, error envelope, adapters,
   * MCP). A name taken by a built-in tool, a bad schema or a missing handler throws StartupError.
   */
  customTools?: readonly CustomToolDefinition[]
  /**
   * Masks credentials (private keys; AWS, GitHub, npm, OpenAI, Anthropic, Google, Slack,
   * Stripe keys; `.env`-style password/token/secret values; plus `patterns`, as
   * `[REDACTED:custom]`) as `[REDACTED:<kind>]` in every text that goes back to the model:
   * results, `meta`, error envelopes, custom tools. A mutating call whose arguments contain a
   * placeholder is `invalid_input` (fields `placeholder`, `at`). A string pattern is a regex
   * source. Malformed patterns, or ones matching "", throw StartupError. Default off.
   */
  redactSecrets?: boolean | { patterns?: ReadonlyArray<string | RegExp> }
  /** Budget for checkpointed prior contents, in bytes (>= 0; 0 turns checkpoints off). Default 268435456. */
  checkpointBytes?: number
  /** Record what `bash` commands change while a checkpoint is live (walks the workspace around each command). Default false. */
  checkpointBash?: boolean
  /**
   * Put the checkpoint calls on the surface as tools (`checkpoint_create`, `checkpoint_list`,
   * `checkpoint_changes`, `checkpoint_restore`, `checkpoint_drop`), under toolPolicy, readOnly
   * (which keeps list and changes) and the guard like every tool; what the MCP server's
   * `--checkpoints` sets. Default false.
   */
  checkpointTools?: boolean
  /**
   * grep's trigram index (kept in `.clarvis/index/`): `"auto"` builds it in the background once a
   * scan has walked `searchIndexThreshold` files, `"on"` at the first grep, `"off"` never. Results
   * are identical with and without it. Default "auto".
   */
  searchIndex?: 'auto' | 'on' | 'off'
  /** The file count from which `searchIndex: "auto"` builds the index (>= 1). Default 20000. */
  searchIndexThreshold?: number
  /**
   * `"refuse"`: `write_file` over an existing file, and an `apply_patch` that deletes a file or
   * removes every line of it, fail with `stale_write` unless the file's bytes are what these
   * tools last showed the model whole (a `read_file` of every line, a `read_files` section not
   * cut, or their own last write), compared by content hash — a touched but unchanged file
   * passes. `meta.staleWrite` is `{ path, reason: "not_read" | "changed" }`. Default `"allow"`.
   */
  staleWrites?: 'refuse' | 'allow'
  /**
   * The most `bash` sessions (`bash { command, session }`: a named persistent shell) live at
   * once (>= 1). A call that names a new session past it ends the least recently used idle
   * session; when every session is running a command it fails with `io_error` (field
   * `max_shell_sessions`). Default 8.
   */
  maxShellSessions?: number
  /** How long a `bash` session may sit unused before its shell (and what it started) ends, in ms (>= 1). Default 1800000 (30 min). */
  shellSessionIdleMs?: number
  /**
   * Review mode (SPEC §13): mutating file tools stage their changes instead of writing the
   * workspace; reads see the staged tree; the host calls `pending()`, `accept()`, `reject()`.
   * `scope` names an independent staging area under `.clarvis/review/` that a new tools object
   * with the same scope finds again; `commands: 'direct'` lets `bash` and monitors run on the
   * real workspace (refused otherwise). Ignored under `compat: "0.1"`.
   */
  review?: boolean | ReviewOptions
  /** The most staged bytes of one review scope (default 256 MiB). */
  reviewBytes?: number
  /** Review mode: called with each pending change a call created or altered, after the call. */
  onPending?: (change: PendingChange) => void
}

/** What {@link AgentTools.searchIndexStatus} returns. */
export interface SearchIndexStatus {
  /** `off` (no index, or not yet started), `building` (grep scans meanwhile), `ready`. */
  state: 'off' | 'building' | 'ready'
  /** Files in the index. */
  files: number
  /** Size of the index image in bytes. */
  bytes: number
  /** How long the build of the current image took, in ms. */
  buildMs: number
  /** When the current image was installed (ms since the epoch), or null. */
  updatedAt: number | null
  /** The symbol table kept beside the postings (find_symbol, find_references, repo_map): built after each image is installed; `ready` when it describes the current image. */
  symbols: { state: 'off' | 'building' | 'ready'; files: number; bytes: number; buildMs: number }
}

/** What a custom tool's handler returns: its text, content parts (with client-side meta), or any JSON value (sent as JSON text). */
export type CustomToolResult =
  | string
  | { content: ReadonlyArray<{ type: 'text'; text: string } | { type: 'image'; data: string; mimeType: string }>; meta?: Record<string, unknown> }
  | unknown

/** One entry of `customTools`. */
/**
 * A Standard Schema (https://standardschema.dev) — what Zod 3.24+ and Zod 4 schemas are. One
 * without `~standard.jsonSchema` must be a Zod schema to be converted to JSON Schema.
 */
export interface StandardSchemaLike {
  readonly '~standard': {
    readonly version: 1
    readonly vendor: string
    readonly validate: (value: unknown) => unknown
    readonly jsonSchema?: { readonly input: (options: { target: string }) => Record<string, unknown> }
  }
}

export interface CustomToolDefinition {
  /** `^[A-Za-z0-9_-]{1,64}$`; must not be a built-in tool's name. */
  name: string
  /** What the model reads: when to use it, when not, how to recover from its errors. */
  description: string
  /**
   * JSON Schema of the arguments: `type: "object"` at the top; the keywords type, properties,
   * required, additionalProperties (boolean), enum, minLength, maxLength, pattern, minimum,
   * maximum, minItems, maxItems, items are enforced; description, title, default (filled in),
   * examples, format, $schema… are accepted; anything else throws StartupError.
   *
   * Or a Zod schema (Zod 3 or 4) or any Standard Schema of an object: converted once to JSON
   * Schema (listTools, adapters, MCP), validated like JSON Schema, then parsed by the schema
   * itself — refinements and transforms apply and the handler receives the parsed value. Zod 3
   * needs the package `zod-to-json-schema`; a schema that cannot be converted throws
   * StartupError naming the tool and the field.
   */
  inputSchema: Record<string, unknown> | StandardSchemaLike
  /** MCP hints; readOnlyHint follows `readOnly`, the others default from it. */
  annotations?: Partial<ToolAnnotations> & Record<string, unknown>
  /** The tool only reads: it stays under `readOnly: true`. Default false. */
  readOnly?: boolean
  /**
   * Runs the tool with the validated, default-filled arguments. Throw a `ToolError` for a
   * failure the model should see (its code, message and fields); anything else thrown is
   * `internal` (the detail goes to the warn sink).
   */
  handler: (args: Record<string, unknown>, context: { signal: AbortSignal; workspaceRoot: string }) => CustomToolResult | Promise<CustomToolResult>
  /**
   * The call's title for `describeCall`, the guard context and elicit (`Deploy to staging`).
   * Redacted and cut to 80 characters like the built-ins'; the tool's name when absent, when
   * it throws or returns no string.
   */
  title?: (args: Record<string, unknown>) => string
}

/** The resolved, frozen configuration. */
export interface ServerConfig {
  readonly workspaceRoot: string
  readonly maxOutputBytes: number
  readonly maxFileBytes: number
  readonly bashTimeoutMs: number
  readonly bashTimeoutMaxMs: number
  readonly ripgrepAvailable: boolean
  readonly readOnly: boolean
  readonly confineToWorkspace: boolean
  /** Whether outline, check_syntax and syntax warnings are on (absent under compat "0.1"). */
  readonly treeSitterAvailable?: boolean
  /** The guard from the options, when one was given. */
  readonly guard?: Guard
  /** The elicit callback from the options, when one was given. */
  readonly elicit?: Elicit
  /** Largest image read_image returns (absent under compat "0.1"). */
  readonly maxImageBytes?: number
  /** monitor_start's default ready wait (absent under compat "0.1"). */
  readonly monitorReadyTimeoutMs?: number
  /** The live monitor cap (absent under compat "0.1"). */
  readonly maxMonitors?: number
  /** The monitor log bound, present only when given. */
  readonly monitorLogMaxBytes?: number
  /** The checkpoint budget in bytes (under compat "0.1": only when not the default). */
  readonly checkpointBytes?: number
  /** Whether bash commands are checkpointed (under compat "0.1": only when true). */
  readonly checkpointBash?: boolean
  /** The custom tools from the options, when some were given. */
  readonly customTools?: readonly CustomToolDefinition[]
  /** The write scope, normalised (`./src/` → `src`); absent when unset. */
  readonly writeScope?: readonly string[]
  /** `true`, or the host's patterns as `{ source, flags }`; absent when off. */
  readonly redactSecrets?: true | { patterns: ReadonlyArray<{ source: string; flags: string }> }
  /** The tool policy, when one was given. */
  readonly toolPolicy?: { readonly allow?: readonly ToolName[]; readonly deny?: readonly ToolName[] }
  /** `"0.1"` in a compat "0.1" configuration that also sets a newer option (absent otherwise). */
  readonly compat?: '0.1'
  /** The guard's time limit, when one was given. */
  readonly guardTimeoutMs?: number
  /** `true` when the checkpoint tools are on the surface. */
  readonly checkpointTools?: boolean
  /** The SIGTERM-to-SIGKILL grace, when one was given. */
  readonly killGraceMs?: number
  /** The index mode, when not `"auto"`. */
  readonly searchIndex?: 'on' | 'off'
  /** The index threshold, when not 20000. */
  readonly searchIndexThreshold?: number
  /** `"refuse"` when stale whole-file writes are refused (absent: `"allow"`). */
  readonly staleWrites?: 'refuse'
  /** The live `bash` session cap, when not 8. */
  readonly maxShellSessions?: number
  /** The `bash` session idle time, when not 1800000. */
  readonly shellSessionIdleMs?: number
  readonly review?: { scope: string; commands: 'refuse' | 'direct'; tools?: true }
  readonly reviewBytes?: number
  /** The sandbox policy, resolved (paths absolute); absent when off. */
  readonly sandbox?: {
    filesystem: { allowWrite: string[]; denyWrite: string[]; denyRead: string[] }
    network: 'none' | 'all' | { allowedDomains: string[]; deniedDomains: string[] }
    env: { allow: string[] }
    require?: SandboxProperty[]
  }
}

/**
 * One entry of the `issues` array that a schema `invalid_input` envelope carries (not under
 * compat "0.1"): `path` is a JSON pointer to the value to fix (`/edits/0/old_string`; a
 * missing or unknown property points at itself), `message` the ajv-style text for it.
 */
export interface ValidationIssue {
  path: string
  /** What the schema wants, in a few words (`string`, `>= 1`, `one of: a, b`). */
  expected: string
  /** What arrived, in a few words (`number`, `0`, `undefined`). */
  received: string
  message: string
}

/** A checkpoint as `checkpoints()` lists it. */
export interface CheckpointInfo {
  id: string
  label: string | null
  /** Epoch milliseconds. */
  createdAt: number
  /** How many paths the tools changed since. */
  paths: number
}

/** One path that differs from its checkpoint state. */
export interface CheckpointChange {
  /** Workspace-relative display path. */
  path: string
  kind: 'created' | 'modified' | 'deleted' | 'moved'
  /** For `moved`: the path it came from. */
  from?: string
  /** Unified diff in the `meta.diff` format, when both sides are text. */
  diff?: string
}

/** What `restore` did. */
export interface RestoreReport {
  /** Paths put back, with the change that was undone. */
  restored: { path: string; kind: 'created' | 'modified' | 'deleted' | 'moved' }[]
  /** Paths left alone: changed outside the tools (use `force`), or unrecoverable. */
  conflicts: { path: string; reason: string }[]
}

/** A text part of a result. */
export interface TextPart {
  type: 'text'
  text: string
}

/** An image part of a result: base64 `data`. */
export interface ImagePart {
  type: 'image'
  data: string
  mimeType: string
}

/** One part of a result's content. */
export type ContentPart = TextPart | ImagePart

/**
 * The result of every call. `content` holds the parts (an error is one text part with the
 * JSON envelope); `text` is their joined text; `meta` is client-side data (such as `diff`)
 * present only when the tool set it, never meant for the model. Under `compat: "0.1"` the
 * result is exactly `{ isError, text }`.
 */
export interface DispatchResult {
  isError: boolean
  text: string
  content: ContentPart[]
  meta?: Record<string, unknown>
}

/** What a tool handler produces: the original's `ToolResult`. */
export interface ToolResult {
  content: string | ContentPart[]
  meta?: Record<string, unknown>
}

/** Joins the text parts of `parts` (an image part counts as ""). */
export declare function contentText(parts: readonly ContentPart[]): string

/** MCP tool annotations. */
export interface ToolAnnotations {
  readOnlyHint: boolean
  destructiveHint: boolean
  idempotentHint: boolean
  openWorldHint: boolean
}

/** A JSON Schema object (draft-07 subset). */
export type JsonSchema = { [key: string]: unknown }

/** What listTools() advertises for each tool. */
export interface ToolInfo {
  name: ToolName
  description: string
  inputSchema: JsonSchema
  annotations: ToolAnnotations
}

/** A registry entry. */
export interface ToolDef extends ToolInfo {
  /** The tool changes the workspace. */
  readonly mutating: boolean
  /** The tool bounds its own output (dispatch does not cut it again). */
  readonly bounded: boolean
  /**
   * Runs the tool: resolves to the success text (or a ToolResult when the result has more
   * than one text part or carries meta), throws ToolError on failure.
   */
  handler(args: Record<string, unknown>, config: ServerConfig, signal?: AbortSignal): Promise<string | ToolResult>
}

/** The tool names, in the original's registry order. */
export type ToolName =
  | 'read_file'
  | 'read_image'
  | 'read_files'
  | 'write_file'
  | 'edit_file'
  | 'multi_edit'
  | 'apply_patch'
  | 'replace'
  | 'list_dir'
  | 'glob'
  | 'grep'
  | 'diff'
  | 'bash'
  | 'monitor_start'
  | 'monitor_poll'
  | 'monitor_stop'
  | 'monitor_list'
  /** Ours: input to an interactive monitor (tty or stdin), one conversational turn. */
  | 'monitor_write'
  /** Ours: a terminal monitor's screen. */
  | 'monitor_screen'
  | 'move'
  | 'copy'
  | 'mkdir'
  | 'remove'
  | 'file_stat'
  | 'tree'
  | 'outline'
  | 'check_syntax'
  | 'find_symbol'
  | 'find_references'
  | 'repo_map'
  | 'replace_symbol'
  | 'insert_symbol'
  /** Opt-in: on the surface only when `toolPolicy.allow` names it. */
  | 'undo'
  /** Opt-in: with `checkpointTools: true`, or when `toolPolicy.allow` names them. */
  | 'checkpoint_create'
  | 'checkpoint_list'
  | 'checkpoint_changes'
  | 'checkpoint_restore'
  | 'checkpoint_drop'
  /** Opt-in: with `review: { tools: true }` (CLI `--review-tools`), or when `toolPolicy.allow` names them. */
  | 'review_pending'
  | 'review_accept'
  | 'review_reject'

/** Error codes of the envelope. */
export type ErrorCode =
  | 'invalid_input'
  | 'not_found'
  | 'not_a_file'
  | 'is_binary'
  | 'not_an_image'
  | 'no_match'
  | 'ambiguous_match'
  | 'patch_failed'
  | 'io_error'
  | 'timeout'
  | 'aborted'
  | 'output_limit'
  | 'too_large'
  | 'path_escape'
  | 'denied'
  | 'monitor_not_found'
  | 'too_many_monitors'
  /** `staleWrites: "refuse"`: the file changed since the model last read it whole (or never was). */
  | 'stale_write'
  /** monitor_write to a monitor whose program has exited (fields `id`, `exit_code`). */
  | 'not_running'
  | 'internal'

/** One piece of a running command's output, as `onOutput` receives it. */
export interface OutputChunk {
  readonly stream: 'stdout' | 'stderr'
  /** Whole characters only: a character cut by a read arrives with its next chunk. */
  readonly text: string
}

/** `callTool`'s third argument when it is not a bare AbortSignal. */
export interface CallOptions {
  /** Aborts the call (a running command's process group is killed). */
  signal?: AbortSignal
  /**
   * Called while `bash` runs, in order, with each chunk of its output (within the capture
   * ceiling). Every chunk arrives before the call resolves and none after. What it throws
   * or rejects with is ignored.
   */
  onOutput?: (chunk: OutputChunk) => void | Promise<void>
}

/** The tools for one workspace. */
/** `review` as an object. */
export interface ReviewOptions {
  /** The staging area's name: 1–64 of `[A-Za-z0-9_-]` (default `default`). */
  scope?: string
  /**
   * `bash` and monitors in review mode: `'refuse'` (default) runs them captured where the
   * sandbox can (Linux, `sandbox: true`: they see the staged tree and their writes are
   * staged) and refuses them elsewhere; `'direct'` runs them on the real workspace.
   */
  commands?: 'refuse' | 'direct'
  /**
   * The host's review calls as tools (`review_pending`, `review_accept`, `review_reject`), for
   * a host that reaches the tools only over MCP (`clarvis-agent-tools mcp --review-tools`).
   * Off by default: accepting is the host's decision, not the model's.
   */
  tools?: boolean
}
/** One staged change. */
export interface PendingChange {
  /** Workspace-relative. */
  path: string
  kind: 'created' | 'modified' | 'deleted' | 'moved'
  /** A move's source. */
  from?: string
  /** Unified diff (the `meta.diff` format) when both sides are text; redacted like the model's. */
  diff?: string
  /** A directory `mkdir` staged (kind `created`, no diff): accept makes it with its parents. */
  directory?: true
}
/** What `accept` did: nothing at all when there are conflicts (unless forced). */
export interface AcceptReport {
  accepted: { path: string; kind: 'created' | 'modified' | 'deleted' | 'moved' }[]
  conflicts: { path: string; reason: string }[]
}
export interface AgentTools {
  /** The resolved configuration (frozen). */
  readonly config: ServerConfig
  /** The active surface, for advertising to a model. */
  listTools(): ToolInfo[]
  /** Runs a tool. Never rejects for a tool-level problem. */
  callTool(name: string, args?: Record<string, unknown>, options?: AbortSignal | CallOptions): Promise<DispatchResult>
  /**
   * A short human title for a call, for progress lists and approval prompts:
   * `Read src/a.ts (lines 1–200)`, `Edit src/a.ts`, `Patch 3 files`, `Run npm test`,
   * `Search "TODO" in src/`. From the arguments as given (never an error; missing values read
   * as plain words), secrets redacted, one line, at most 80 characters. A custom tool's comes
   * from its `title(args)`; an unknown name is returned as it is.
   */
  describeCall(name: string, args?: Record<string, unknown>): string
  /** Takes a checkpoint of what these tools change from now on; returns its id. Throws ToolError when checkpointBytes is 0. */
  checkpoint(label?: string): string
  /** The live checkpoints, oldest first. */
  checkpoints(): CheckpointInfo[]
  /** What changed since checkpoint `id`. Rejects with ToolError `not_found` for an unknown id. */
  changes(id: string): Promise<CheckpointChange[]>
  /** Puts the checkpoint's paths (or `paths`) back, all or nothing. */
  restore(id: string, options?: { paths?: string[]; force?: boolean }): Promise<RestoreReport>
  /** Review mode: the staged changes, by path. Rejects with ToolError when review is off. */
  pending(): Promise<PendingChange[]>
  /**
   * Review mode: applies the chosen staged changes (all without `paths`) to the workspace, all
   * or nothing, through the commit journal. A path changed on disk since it was staged is a
   * conflict and nothing is applied, unless `force` (a symlink in the way never is forced).
   */
  accept(paths?: string[], options?: { force?: boolean }): Promise<AcceptReport>
  /** Review mode: drops the chosen staged changes (all without `paths`). */
  reject(paths?: string[]): Promise<{ rejected: string[] }>
  /** Frees a checkpoint. Throws ToolError `not_found` for an unknown id. */
  dropCheckpoint(id: string): void
  /** The outline of one source file as data (the parse `outline` uses). Rejects with ToolError (the tool's codes). */
  outlineOf(path: string): Promise<OutlineData>
  /** check_syntax's result for one file as an object. Rejects with ToolError (the tool's codes). */
  checkSyntax(path: string): Promise<SyntaxCheck>
  /** The state of grep's index (see the `searchIndex` option). Never throws. */
  searchIndexStatus(): SearchIndexStatus
  /** What the sandbox enforces, per property and how; `null` when `sandbox` is off. */
  sandboxStatus(): SandboxStatus | null
  /**
   * Ends every `bash` session of these tools (see `bash`'s `session`), a running command with
   * it: each shell and everything it started is killed. Resolves with how many sessions there
   * were, once their processes are gone. The tools stay usable: a later session call starts a
   * new shell. Sessions also end when the tools object is garbage-collected.
   */
  endShellSessions(): Promise<number>
}

/** One symbol of {@link AgentTools.outlineOf}. */
export interface OutlineSymbol {
  /** The symbol's header: its first source line, trimmed, without a trailing `{` or `:` (≤ 150 chars + `...`). */
  name: string
  /** The grammar's node type, e.g. `class_declaration`, `function_item`. */
  kind: string
  /** Nesting depth, 0 = top level. */
  depth: number
  /** 1-based first and last line. */
  startLine: number
  endLine: number
}

/** What {@link AgentTools.outlineOf} resolves. */
export interface OutlineData {
  path: string
  language: string
  /** Number of `\n` + 1. */
  lines: number
  /** Every symbol in document order (not capped at 2000 like the tool's text). */
  symbols: OutlineSymbol[]
  /** Syntax issues found (at most 50; `truncated` when there are more). */
  errorCount: number
  truncated: boolean
}

/** What {@link AgentTools.checkSyntax} resolves: check_syntax's JSON. */
export interface SyntaxCheck {
  path: string
  language: string
  ok: boolean
  /** `column` counts UTF-16 code units; `near` is the source line (error) or the expected token (missing). */
  errors: { kind: 'error' | 'missing'; line: number; column: number; near: string }[]
  error_count: number
  truncated: boolean
}

/** A bad configuration; thrown synchronously. `name === "StartupError"`. */
export declare class StartupError extends Error {
  constructor(message: string)
  name: 'StartupError'
}

/** A tool-level failure. */
export declare class ToolError extends Error {
  constructor(code: ErrorCode | string, message: string, fields?: Record<string, unknown>)
  code: ErrorCode | string
  fields: Record<string, unknown>
}

export declare function createAgentTools(options: AgentToolsOptions): AgentTools
/** What this machine can enforce for `sandbox: true`, without building tools. */
export declare function probeSandbox(): SandboxStatus
/** The tools object for a config from resolveConfig/buildConfig (what createAgentTools returns). */
export declare function agentToolsFor(config: ServerConfig): AgentTools
export declare function resolveConfig(options: AgentToolsOptions): ServerConfig
export declare function buildConfig(
  argv?: readonly string[],
  env?: Record<string, string | undefined>,
  probe?: () => boolean,
  probeTreeSitter?: () => boolean,
): ServerConfig
export declare function dispatch(
  name: string,
  args: Record<string, unknown> | undefined,
  config: ServerConfig,
  options?: AbortSignal | CallOptions,
): Promise<DispatchResult>
export declare function listTools(config: ServerConfig): ToolInfo[]
export declare const tools: readonly ToolDef[]
export declare const readOnlyTools: readonly ToolDef[]
export declare function selectSurface(readOnly: boolean): readonly ToolDef[]
export declare function getTool(name: string, surface?: readonly ToolDef[]): ToolDef | undefined
export declare function serializeError(err: unknown): string
export declare function fsError(err: unknown, path: string): ToolError
export declare function sweepSpillDir(workspaceRoot: string): Promise<void>
export declare function setWarnSink(fn: ((line: string) => void) | null): void
export declare const DEFAULT_MAX_OUTPUT_BYTES: 131072
export declare const DEFAULT_MAX_FILE_BYTES: 20000000
export declare const DEFAULT_BASH_TIMEOUT_MS: 120000
export declare const DEFAULT_BASH_TIMEOUT_MAX_MS: 600000
export declare const DEFAULT_MAX_IMAGE_BYTES: 5000000
export declare const DEFAULT_MONITOR_READY_TIMEOUT_MS: 30000
export declare const DEFAULT_MAX_MONITORS: 32
/** Deletes the state files of every monitor that is not running. Never rejects. */
export declare function sweepMonitors(workspaceRoot: string): Promise<void>

/** A guard's verdict. */
export type Verdict = 'allow' | 'deny' | 'ask'
/** What a guard returns. */
export interface GuardDecision {
  verdict: Verdict
  reason?: string
}
/** One path a call names, resolved, with the realpath-based confinement check. */
export interface PathFact {
  raw: string
  /** Absolute. */
  resolved: string
  withinWorkspace: boolean
}
/** One segment of a shell command. */
export interface Segment {
  /** The segment's source text. */
  command: string
  /** Tokens without quotes, leading VAR=val and wrappers (timeout, time, nice, nohup, stdbuf). */
  argv: string[]
  /** argv joined by single spaces. */
  normalized: string
  decidable: boolean
}
/** analyzeBash's result. */
export interface BashFacts {
  paths: string[]
  segments: Segment[]
  undecidable: boolean
}
/** The monitor a `monitor_write` goes to. */
export interface MonitorFacts {
  id: string
  command: string
  /** Absolute. */
  cwd: string
  /** It runs on a terminal. */
  tty: boolean
  /** It takes input (a terminal or a stdin pipe). */
  stdin: boolean
}
/** What a `monitor_write` sends. */
export interface InputFacts {
  /** `input` as given ("" when absent). */
  text: string
  /** The named keys, in order. */
  keys: string[]
  /** It ends the input (`close: true`). */
  close: boolean
  /** The target monitor; null for an unknown id. */
  monitor: MonitorFacts | null
}
/** What a guard sees. */
export interface GuardContext {
  tool: string
  args: Record<string, unknown>
  config: ServerConfig
  paths: PathFact[]
  /**
   * `bash`, `monitor_start`: the command's analysis. `monitor_write` to a shell (`bash`,
   * `sh`, `zsh`…): the analysis of the typed text, whose paths (and the monitor's cwd) are
   * then in `paths`.
   */
  bash?: BashFacts
  /** The call's title, as `describeCall` gives it (redacted, at most 80 characters). */
  title: string
  /** `true` for `bash` and `monitor_start` when the sandbox is on: the kernel confines the command. */
  sandboxed?: true
  /** `monitor_write` only: what it sends and where. */
  input?: InputFacts
  /**
   * A `bash` call with `session`: its name and the session's working directory (absolute;
   * `null` when the session is not live yet: it starts in the workspace root). Without a
   * `cwd` argument, the command's relative paths in `paths` are resolved from it.
   */
  session?: { name: string; cwd: string | null }
  /** Review mode: `true` for a mutating file tool, whose change is staged, not written. */
  staged?: true
  /** Review mode: the scope, and whether commands run on the real workspace (`direct`). */
  review?: { scope: string; commands: 'refuse' | 'direct' }
}
/** What elicit is asked. */
export interface ElicitRequest {
  tool: string
  args: Record<string, unknown>
  reason?: string
  bash?: BashFacts
  /** The call's title, for the approval prompt (`Run npm test`, `Write src/a.ts`). */
  title: string
}
export type Guard = (ctx: GuardContext) => GuardDecision | Promise<GuardDecision>
export type Elicit = (req: ElicitRequest) => boolean | Promise<boolean>
/** The heuristic shell analyzer guards use. */
export declare function analyzeBash(command: string): BashFacts
/** The context a guard would see for a call. */
export declare function buildGuardContext(tool: string, args: Record<string, unknown>, config: ServerConfig): GuardContext
/** Every path inside the workspace (false with none, or when the command is undecidable). */
export declare function withinWorkspace(ctx: GuardContext): boolean
/** Any path outside the workspace. */
export declare function touchesOutside(ctx: GuardContext): boolean
/** Every segment's normalized command equals an allowed entry or starts with it plus a space. */
export declare function commandsIn(bash: BashFacts | undefined, allowed: readonly string[]): boolean
