// Types for @clarvis/agent-tools/anthropic, ESM (typed against `@anthropic-ai/sdk`).
import type { ContentBlock, ContentBlockParam, Tool, ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages'
import type { AgentTools, ToolName } from './index.js'

/** What the adapters use of an AgentTools (createAgentTools() returns one). */
export type AgentToolsLike = Pick<AgentTools, 'listTools' | 'callTool'>

/** Options of toAnthropicTools. */
export interface AnthropicToolsOptions {
  /** Only these tools (default: the whole surface). Unknown or hidden names throw a TypeError. */
  include?: readonly ToolName[]
}

/** Options of runAnthropicToolUses. */
export interface RunToolUsesOptions {
  /** Aborts the running calls (a running bash is killed; a pending edit writes nothing). */
  signal?: AbortSignal
}

/** The Messages API `tools` array: `{ name, description, input_schema }` per tool. */
export declare function toAnthropicTools(agentTools: AgentToolsLike, options?: AnthropicToolsOptions): Tool[]

/**
 * Runs the `tool_use` blocks of an assistant message's content (other blocks are skipped):
 * read-only tools concurrently, the others in order. Resolves to one `tool_result` block per
 * tool use, in order, with `is_error` set; a failure's content is the JSON error envelope,
 * and image parts become `image` blocks with a base64 source.
 */
export declare function runAnthropicToolUses(
  agentTools: AgentToolsLike,
  content: readonly (ContentBlock | ContentBlockParam)[] | null | undefined,
  options?: RunToolUsesOptions,
): Promise<ToolResultBlockParam[]>
