// An ESM consumer of the /openai and /anthropic entries, with `openai` and `@anthropic-ai/sdk` installed.
import { createAgentTools } from '@clarvis/agent-tools'
import { toOpenAITools, toOpenAIResponsesTools, runOpenAIToolCalls, runOpenAIResponsesCalls } from '@clarvis/agent-tools/openai'
import { toAnthropicTools, runAnthropicToolUses } from '@clarvis/agent-tools/anthropic'
import OpenAI from 'openai'
import Anthropic from '@anthropic-ai/sdk'
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions'
import type { ResponseInputItem } from 'openai/resources/responses/responses'
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages'

export async function chat(client: OpenAI, workspaceRoot: string): Promise<string | null> {
  const agent = createAgentTools({ workspaceRoot })
  const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Fix the bug.' }]
  for (;;) {
    const completion = await client.chat.completions.create({ model: 'gpt', messages, tools: toOpenAITools(agent) })
    const message = completion.choices[0]!.message
    messages.push(message)
    if (!message.tool_calls?.length) return message.content
    messages.push(...(await runOpenAIToolCalls(agent, message.tool_calls, { signal: AbortSignal.timeout(60_000) })))
  }
}

export async function responses(client: OpenAI, workspaceRoot: string): Promise<string> {
  const agent = createAgentTools({ workspaceRoot, readOnly: true })
  let input: ResponseInputItem[] = [{ role: 'user', content: 'Explain the code.' }]
  let previous: string | undefined
  for (;;) {
    const tools = toOpenAIResponsesTools(agent, { include: ['grep'] })
    const response = await client.responses.create({ model: 'gpt', input, tools, previous_response_id: previous })
    const outputs = await runOpenAIResponsesCalls(agent, response.output)
    if (outputs.length === 0) return response.output_text
    input = outputs
    previous = response.id
  }
}

export async function claude(client: Anthropic, workspaceRoot: string): Promise<void> {
  const agent = createAgentTools({ workspaceRoot })
  const messages: MessageParam[] = [{ role: 'user', content: 'Fix the bug.' }]
  for (;;) {
    const reply = await client.messages.create({ model: 'claude', max_tokens: 1024, messages, tools: toAnthropicTools(agent) })
    messages.push({ role: 'assistant', content: reply.content })
    if (reply.stop_reason !== 'tool_use') return
    messages.push({ role: 'user', content: await runAnthropicToolUses(agent, reply.content) })
  }
}

// These lines fail if the declarations silently degraded to `any`.
const agent = createAgentTools({ workspaceRoot: '.' })
// @ts-expect-error a Chat Completions tool's function name is a string
const notAName: number = toOpenAITools(agent)[0]!.function.name
// @ts-expect-error include takes tool names
toAnthropicTools(agent, { include: ['rm_rf'] })
// @ts-expect-error a tool_result block has no such field
void (await runAnthropicToolUses(agent, []))[0]!.notAField
void notAName
