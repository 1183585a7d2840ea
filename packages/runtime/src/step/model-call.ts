import type { ToolSpec } from "@longrun/compaction";
import { createAnswerReader, type UpstreamChunk } from "@longrun/openai-compat";
import type { ChatMessage, NewMessage } from "@longrun/protocol";
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
  // The same reader the gateway streams answers through: one way to turn chunks into the fact.
  const reader = createAnswerReader();
  for await (const chunk of stream) {
    for (const event of reader.push(chunk as UpstreamChunk)) {
      if (event.type === "text") request.onDelta?.(event.delta);
    }
  }
  return reader.finish().message;
}

/**
 * A non-streaming call for a summary, text out. A continuation-shaped summary request carries the
 * agent's tools (so a provider's prefix cache serves it) with `tool_choice: "none"`: they cannot be
 * called. Returns the text.
 */
export async function callSummarizer(
  client: OpenAI,
  request: {
    model: string;
    messages: ChatMessage[];
    tools?: readonly ToolSpec[];
    toolChoice?: "none";
    maxOutputTokens?: number;
    signal?: AbortSignal;
    headers?: Record<string, string>;
  },
): Promise<string> {
  const completion = await client.chat.completions.create(
    {
      model: request.model,
      messages: request.messages as OpenAI.Chat.Completions.ChatCompletionMessageParam[],
      ...(request.tools && request.tools.length > 0
        ? {
            tools: [...request.tools] as OpenAI.Chat.Completions.ChatCompletionTool[],
            tool_choice: request.toolChoice ?? "none",
          }
        : {}),
      ...(request.maxOutputTokens ? { max_completion_tokens: request.maxOutputTokens } : {}),
    },
    { signal: request.signal, headers: request.headers },
  );
  const text = completion.choices[0]?.message?.content;
  if (!text || text.trim().length === 0) throw new Error("summarizer returned no text");
  return text;
}
