import type { ToolSpec } from "@longrun/compaction";
import { type UpstreamChunk, usageFromChat } from "@longrun/openai-compat";
import type { ChatMessage, NewMessage, Usage } from "@longrun/protocol";
import type OpenAI from "openai";
import { modelCallSpan, setFinishReason } from "../tracing/model-call-span.ts";
import { anthropicCaller } from "../upstream/anthropic-caller.ts";
import { callResponses, summarizeWithResponses } from "../upstream/responses-call.ts";
import type { UpstreamCall, UpstreamTarget } from "../upstream/upstream-request.ts";
import { readAnswerStream, withModelDeadline } from "./model-deadline.ts";

/** One agent model call (format-neutral) and the wire format it goes over. */
export interface ModelCallRequest extends UpstreamCall, UpstreamTarget {}

/**
 * One streaming Chat Completions call through the official client; returns the assistant message to
 * append (provider-private reasoning kept apart in `providerState`). Each attempt is one GenAI span.
 */
export function callModel(client: OpenAI, request: ModelCallRequest): Promise<NewMessage> {
  return modelCallSpan("step", request, () => sendModelCall(client, request));
}

async function sendModelCall(client: OpenAI, request: ModelCallRequest): Promise<NewMessage> {
  // Another wire format: its own caller (upstream/), the same request and the same fact back.
  if (request.api === "responses") return callResponses(client, request);
  if (request.api === "anthropic-messages") {
    const { anthropicClientFor, callAnthropic } = await anthropicCaller();
    return callAnthropic(anthropicClientFor(client, request.anthropic), request);
  }
  return withModelDeadline(request.timeouts, request.signal, async (deadline) => {
    const stream = await client.chat.completions.create(
      {
        model: request.model,
        messages: request.messages as OpenAI.Chat.Completions.ChatCompletionMessageParam[],
        ...(request.tools && request.tools.length > 0 ? { tools: request.tools } : {}),
        ...(request.maxOutputTokens ? { max_completion_tokens: request.maxOutputTokens } : {}),
        stream: true,
        stream_options: { include_usage: true },
      },
      { signal: deadline.signal, headers: request.headers },
    );
    const answer = await readAnswerStream(stream as AsyncIterable<UpstreamChunk>, deadline, (event) => {
      if (event.type === "text") request.onDelta?.(event.delta);
    });
    setFinishReason(answer.finishReason);
    return answer.message;
  });
}

/**
 * A non-streaming call for a summary, text out. A continuation-shaped summary request carries the
 * agent's tools (so a provider's prefix cache serves it) with `tool_choice: "none"`: they cannot be
 * called. Returns the text.
 */
export function callSummarizer(
  client: OpenAI,
  request: SummaryRequest,
): Promise<{ text: string; usage: Usage | undefined; responseId?: string }> {
  return modelCallSpan("summary", request, () => sendSummaryCall(client, request));
}

/** A summary call's request: the model, its messages, the agent's tools (never called) and limits. */
type SummaryRequest = UpstreamTarget & {
  model: string;
  messages: ChatMessage[];
  tools?: readonly ToolSpec[];
  toolChoice?: "none";
  maxOutputTokens?: number;
  signal?: AbortSignal;
  headers?: Record<string, string>;
  /**
   * Not streamed: the first byte comes with the whole answer, which a long summary takes a while to
   * write, so one timer (the profile's total) bounds it.
   */
  timeoutMs?: number;
};

async function sendSummaryCall(
  client: OpenAI,
  request: SummaryRequest,
): Promise<{ text: string; usage: Usage | undefined; responseId?: string }> {
  if (request.api === "responses") return summarizeWithResponses(client, summaryCall(request));
  if (request.api === "anthropic-messages") {
    const { anthropicClientFor, summarizeWithAnthropic } = await anthropicCaller();
    return summarizeWithAnthropic(anthropicClientFor(client, request.anthropic), summaryCall(request));
  }
  const { timeoutMs } = request;
  const timeouts = timeoutMs === undefined ? undefined : { firstByteMs: timeoutMs, totalMs: timeoutMs };
  const completion = await withModelDeadline(timeouts, request.signal, (deadline) =>
    client.chat.completions.create(
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
      { signal: deadline.signal, headers: request.headers },
    ),
  );
  const choice = completion.choices[0];
  setFinishReason(choice?.finish_reason);
  const text = choice?.message?.content;
  if (!text || text.trim().length === 0) throw new Error("summarizer returned no text");
  return {
    text,
    usage: usageFromChat(completion.usage),
    ...(completion.id ? { responseId: completion.id } : {}),
  };
}

/** A summary request in the format-neutral shape of the other wire formats' callers. */
function summaryCall(request: SummaryRequest) {
  const { tools, toolChoice: _none, ...rest } = request;
  return { ...rest, ...(tools ? { tools: [...tools] as OpenAI.Chat.Completions.ChatCompletionTool[] } : {}) };
}
