// Types for @clarvis/agent-tools/openai, CommonJS (typed against the `openai` package, version 6 or 7).
import type {
  ChatCompletionFunctionTool,
  ChatCompletionMessageToolCall,
  ChatCompletionToolMessageParam,
  ChatCompletionUserMessageParam,
} from 'openai/resources/chat/completions'
import type { FunctionTool, ResponseInputItem, ResponseOutputItem } from 'openai/resources/responses/responses'
import type { AgentTools, ToolName } from './index.js'

/** What the adapters use of an AgentTools (createAgentTools() returns one). */
export type AgentToolsLike = Pick<AgentTools, 'listTools' | 'callTool'>

/** Options of toOpenAITools / toOpenAIResponsesTools. */
export interface OpenAIToolsOptions {
  /** Only these tools (default: the whole surface). Unknown or hidden names throw a TypeError. */
  include?: readonly ToolName[]
}

/** Options of runOpenAIToolCalls / runOpenAIResponsesCalls. */
export interface RunToolCallsOptions {
  /** Aborts the running calls (a running bash is killed; a pending edit writes nothing). */
  signal?: AbortSignal
}

/** A message runOpenAIToolCalls returns: a tool message per call, then a user message with images (if any). */
export type OpenAIToolResultMessage = ChatCompletionToolMessageParam | ChatCompletionUserMessageParam

/** The Chat Completions `tools` array: one function tool per tool, schema as listTools() gives it. */
export declare function toOpenAITools(agentTools: AgentToolsLike, options?: OpenAIToolsOptions): ChatCompletionFunctionTool[]

/** The Responses API `tools` array (function tools with `strict: false`). */
export declare function toOpenAIResponsesTools(agentTools: AgentToolsLike, options?: OpenAIToolsOptions): FunctionTool[]

/**
 * Runs an assistant message's `tool_calls`: read-only tools concurrently, the others in order.
 * Resolves to one `{ role: "tool", tool_call_id, content }` message per call, in order
 * (a failure's content is the JSON error envelope), followed by one user message holding the
 * image parts as `image_url` data URLs when a result had images.
 */
export declare function runOpenAIToolCalls(
  agentTools: AgentToolsLike,
  toolCalls: readonly ChatCompletionMessageToolCall[] | null | undefined,
  options?: RunToolCallsOptions,
): Promise<OpenAIToolResultMessage[]>

/**
 * Runs the `function_call` items of a Responses API `output` (other items are skipped) and
 * resolves to their `function_call_output` items, in order. `output` is the text (a
 * failure: the JSON error envelope), or `input_text`/`input_image` parts when there are images.
 */
export declare function runOpenAIResponsesCalls(
  agentTools: AgentToolsLike,
  items: readonly (ResponseOutputItem | ResponseInputItem)[] | null | undefined,
  options?: RunToolCallsOptions,
): Promise<ResponseInputItem.FunctionCallOutput[]>
