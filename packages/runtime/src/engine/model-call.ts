import type { ChatMessage, NewMessage, ReasoningDetail, ToolCall, Usage } from "@longrun/protocol";
import type OpenAI from "openai";

export interface ModelCallRequest {
  model: string;
  messages: ChatMessage[];
  tools?: OpenAI.Chat.Completions.ChatCompletionTool[];
  maxOutputTokens?: number;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Called with each visible text delta as it streams. */
  onDelta?: (text: string) => void;
}

interface StreamDelta {
  content?: string | null;
  tool_calls?: Array<{ index: number; id?: string; function?: { name?: string; arguments?: string } }>;
  reasoning_details?: ReasoningDetail[];
  reasoning_content?: string | null;
}

interface UsageWire {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number } | null;
  completion_tokens_details?: { reasoning_tokens?: number } | null;
}

/** Converts provider usage to the stored shape. */
export function usageFromWire(usage: UsageWire | null | undefined): Usage | undefined {
  if (!usage) return undefined;
  return {
    promptTokens: usage.prompt_tokens,
    completionTokens: usage.completion_tokens,
    totalTokens: usage.total_tokens,
    reasoningTokens: usage.completion_tokens_details?.reasoning_tokens ?? undefined,
    cachedTokens: usage.prompt_tokens_details?.cached_tokens ?? undefined,
  };
}

/**
 * One streaming Chat Completions call through the official client; returns the assistant message to
 * append (provider-private reasoning kept apart in `providerState`).
 */
export async function callModel(client: OpenAI, request: ModelCallRequest): Promise<NewMessage> {
  const stream = await client.chat.completions.create(
    {
      model: request.model,
      messages: request.messages as OpenAI.Chat.Completions.ChatCompletionMessageParam[],
      ...(request.tools && request.tools.length > 0 ? { tools: request.tools } : {}),
      ...(request.maxOutputTokens ? { max_completion_tokens: request.maxOutputTokens } : {}),
      stream: true,
      stream_options: { include_usage: true },
    },
    { signal: request.signal, headers: request.headers },
  );
  let content = "";
  let reasoningContent = "";
  const reasoningDetails: ReasoningDetail[] = [];
  const calls = new Map<number, { id: string; name: string; arguments: string }>();
  let usage: Usage | undefined;
  let responseId: string | undefined;
  for await (const chunk of stream) {
    responseId ??= chunk.id;
    if (chunk.usage) usage = usageFromWire(chunk.usage as UsageWire);
    const delta = chunk.choices[0]?.delta as StreamDelta | undefined;
    if (!delta) continue;
    if (delta.content) {
      content += delta.content;
      request.onDelta?.(delta.content);
    }
    if (delta.reasoning_content) reasoningContent += delta.reasoning_content;
    if (delta.reasoning_details) reasoningDetails.push(...delta.reasoning_details);
    for (const part of delta.tool_calls ?? []) {
      const call = calls.get(part.index) ?? { id: "", name: "", arguments: "" };
      if (part.id) call.id = part.id;
      if (part.function?.name) call.name += part.function.name;
      if (part.function?.arguments) call.arguments += part.function.arguments;
      calls.set(part.index, call);
    }
  }
  const toolCalls: ToolCall[] = [...calls.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, call]) => ({
      id: call.id,
      type: "function",
      function: { name: call.name, arguments: call.arguments },
    }));
  const hasState = reasoningDetails.length > 0 || reasoningContent.length > 0;
  return {
    role: "assistant",
    content: content.length > 0 ? content : toolCalls.length > 0 ? null : "",
    ...(toolCalls.length > 0 ? { toolCalls } : {}),
    ...(usage ? { usage } : {}),
    ...(hasState
      ? {
          providerState: {
            ...(reasoningDetails.length > 0 ? { reasoningDetails } : {}),
            ...(reasoningContent ? { reasoningContent } : {}),
            ...(responseId ? { responseId } : {}),
          },
        }
      : {}),
  };
}

/** A non-streaming call without tools, used for summaries. Returns the text. */
export async function callSummarizer(
  client: OpenAI,
  request: {
    model: string;
    messages: ChatMessage[];
    maxOutputTokens?: number;
    signal?: AbortSignal;
    headers?: Record<string, string>;
  },
): Promise<string> {
  const completion = await client.chat.completions.create(
    {
      model: request.model,
      messages: request.messages as OpenAI.Chat.Completions.ChatCompletionMessageParam[],
      ...(request.maxOutputTokens ? { max_completion_tokens: request.maxOutputTokens } : {}),
    },
    { signal: request.signal, headers: request.headers },
  );
  const text = completion.choices[0]?.message?.content;
  if (!text || text.trim().length === 0) throw new Error("summarizer returned no text");
  return text;
}
