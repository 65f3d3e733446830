// Types for @clarvis/agent-tools/ai, ESM (needs the `ai` package, version 5, 6 or 7).
import type { Tool } from 'ai'
import type { AgentTools, ToolName } from './index.js'

/** The arguments a tool receives (validated against its JSON Schema by the package). */
export type AgentToolInput = Record<string, unknown>

/** An AI SDK tool set keyed by tool name; each tool resolves to the tool's success text. */
export type AgentToolSet = Record<string, Tool<AgentToolInput, string>>

/** Options of toAiSdkTools. */
export interface AiSdkToolsOptions {
  /** Only these tools (default: the whole surface of the AgentTools). Unknown names throw. */
  include?: readonly ToolName[]
}

/**
 * Turns an AgentTools into a tool set for `generateText` / `streamText`. `execute` forwards
 * the SDK's `abortSignal`; a success reaches the model as text; a failure throws a
 * ToolCallError, which the SDK records as a `tool-error` part and shows the model as
 * `error-text` whose value is the JSON error envelope.
 */
export declare function toAiSdkTools(agentTools: AgentTools, options?: AiSdkToolsOptions): AgentToolSet

/** A failed tool call. `message` is the JSON error envelope, as the model receives it. */
export declare class ToolCallError extends Error {
  constructor(toolName: string, envelope: string)
  name: 'ToolCallError'
  /** The tool that failed. */
  toolName: string
  /** The envelope's `error` code (e.g. `no_match`). */
  code: string
  /** The envelope's human-readable `message`. */
  toolMessage: string
  /** The envelope's other fields (e.g. `path`). */
  fields: Record<string, unknown>
}
