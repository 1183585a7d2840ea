import Anthropic from "@anthropic-ai/sdk";
import { toAnthropicRequest } from "@longrun/compaction";
import type { NewMessage, ReasoningDetail, ToolCall, Usage } from "@longrun/protocol";
import type OpenAI from "openai";
import { withModelDeadline } from "../step/model-deadline.ts";
import { setFinishReason } from "../tracing/model-call-span.ts";
import { createAnthropicEventReader, thinkingDetailOf } from "./anthropic-stream.ts";
import {
  type AnthropicEndpoint,
  functionTools,
  type StreamedAnswer,
  type UpstreamCall,
  type UpstreamControls,
} from "./upstream-request.ts";

/** Anthropic requires max_tokens; this when the profile names none. */
const DEFAULT_MAX_TOKENS = 8_192;

/**
 * Anthropic usage in longrun's terms: the prompt is all input (uncached, read from and written to the
 * cache), of which cache_read_input_tokens were cached and cache_creation_input_tokens written.
 */
export function usageFromAnthropic(usage: Anthropic.Messages.Usage): Usage {
  const cacheRead = usage.cache_read_input_tokens ?? 0;
  const cacheWrite = usage.cache_creation_input_tokens ?? 0;
  const prompt = usage.input_tokens + cacheRead + cacheWrite;
  return {
    promptTokens: prompt,
    completionTokens: usage.output_tokens,
    cachedTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
    totalTokens: prompt + usage.output_tokens,
  };
}

/** The assistant fact of an Anthropic answer: thinking blocks byte-exact (with their signature) apart. */
export function messageFromAnthropic(
  message: Anthropic.Messages.Message,
): NewMessage & { role: "assistant" } {
  const details: ReasoningDetail[] = [];
  const toolCalls: ToolCall[] = [];
  let text = "";
  for (const block of message.content) {
    if (block.type === "thinking" || block.type === "redacted_thinking")
      details.push(thinkingDetailOf(block));
    else if (block.type === "text") text += block.text;
    else if (block.type === "tool_use")
      toolCalls.push({
        id: block.id,
        type: "function",
        function: { name: block.name, arguments: JSON.stringify(block.input) },
      });
  }
  return {
    role: "assistant",
    content: text.length > 0 ? text : null,
    ...(toolCalls.length > 0 ? { toolCalls } : {}),
    usage: usageFromAnthropic(message.usage),
    ...(details.length > 0 || message.id
      ? {
          providerState: {
            ...(details.length > 0 ? { reasoningDetails: details } : {}),
            ...(message.id ? { responseId: message.id } : {}),
          },
        }
      : {}),
  };
}

/** A Chat Completions tool choice in Anthropic's form; `disable_parallel_tool_use` rides on it. */
function toolChoiceOf(controls: UpstreamControls | undefined): Anthropic.Messages.ToolChoice | undefined {
  const choice = controls?.toolChoice;
  const name = (choice as { function?: { name?: unknown } } | undefined)?.function?.name;
  const base: Anthropic.Messages.ToolChoice | undefined =
    choice === "none"
      ? { type: "none" }
      : choice === "required"
        ? { type: "any" }
        : typeof name === "string"
          ? { type: "tool", name }
          : choice === "auto"
            ? { type: "auto" }
            : undefined;
  if (controls?.parallelToolCalls !== false || base?.type === "none") return base;
  return { ...(base ?? { type: "auto" }), disable_parallel_tool_use: true } as Anthropic.Messages.ToolChoice;
}

/**
 * The sampling controls Anthropic has a form for. With thinking on the provider refuses a temperature
 * other than 1 and a narrowed top_p, so they are left out then (the model samples as thinking requires).
 */
function samplingOf(controls: UpstreamControls | undefined, thinking: boolean) {
  if (!controls) return {};
  return {
    ...(!thinking && controls.temperature !== undefined ? { temperature: controls.temperature } : {}),
    ...(!thinking && controls.topP !== undefined ? { top_p: controls.topP } : {}),
    ...(controls.stop?.length ? { stop_sequences: controls.stop } : {}),
  };
}

function requestBody(
  call: UpstreamCall,
  summary: boolean,
): Anthropic.Messages.MessageCreateParamsNonStreaming {
  const maxTokens = call.maxOutputTokens ?? DEFAULT_MAX_TOKENS;
  const budget = call.thinkingBudgetTokens;
  const toolChoice = summary ? ({ type: "none" } as const) : toolChoiceOf(call.controls);
  // The provider refuses thinking with a forced tool (`any` or a named one): that request runs without.
  const forced = toolChoice?.type === "any" || toolChoice?.type === "tool";
  const wantsThinking = !summary && !forced && budget !== undefined && budget < maxTokens;
  const parts = toAnthropicRequest(call.messages, { thinking: wantsThinking });
  const tools = functionTools(call.tools).map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: tool.parameters as Anthropic.Messages.Tool.InputSchema,
  }));
  // The end of the stable prefix: tools come before the system prompt in the provider's cache order.
  const lastTool = tools.at(-1);
  const cachedTools = lastTool
    ? [...tools.slice(0, -1), { ...lastTool, cache_control: { type: "ephemeral" as const } }]
    : tools;
  return {
    model: call.model,
    max_tokens: maxTokens,
    ...(parts.system.length > 0 ? { system: parts.system } : {}),
    messages: parts.messages as Anthropic.Messages.MessageParam[],
    ...(tools.length > 0 ? { tools: cachedTools, ...(toolChoice ? { tool_choice: toolChoice } : {}) } : {}),
    ...(parts.thinking && budget !== undefined
      ? { thinking: { type: "enabled" as const, budget_tokens: budget } }
      : {}),
    ...(summary ? {} : samplingOf(call.controls, parts.thinking)),
  };
}

const FINISH_REASONS: Record<string, StreamedAnswer["finishReason"]> = {
  tool_use: "tool_calls",
  max_tokens: "length",
  model_context_window_exceeded: "length",
  refusal: "content_filter",
};

/** One streaming Anthropic Messages call through the official client; the answer's fact. */
export async function callAnthropic(client: Anthropic, call: UpstreamCall): Promise<NewMessage> {
  return (await streamAnthropic(client, call)).message;
}

/**
 * One streaming Anthropic Messages call: `onOpen` at the stream's first event (the provider accepted
 * the request), each piece to `onEvent` (and text to `onDelta`); the fact and why the model stopped.
 */
export async function streamAnthropic(client: Anthropic, call: UpstreamCall): Promise<StreamedAnswer> {
  return withModelDeadline(call.timeouts, call.signal, async (deadline) => {
    const stream = client.messages.stream(requestBody(call, false), {
      signal: deadline.signal,
      headers: call.headers,
    });
    const read = createAnthropicEventReader();
    let opened = false;
    for await (const event of stream) {
      deadline.answered();
      if (!opened) {
        opened = true;
        call.onOpen?.();
      }
      if (event.type === "content_block_delta" && event.delta.type === "text_delta")
        call.onDelta?.(event.delta.text);
      if (call.onEvent) for (const answerEvent of read(event)) call.onEvent(answerEvent);
    }
    if (deadline.signal.aborted) throw deadline.signal.reason;
    const final = await stream.finalMessage();
    setFinishReason(final.stop_reason);
    const message = messageFromAnthropic(final);
    const stop = final.stop_reason ?? "end_turn";
    return { message, finishReason: FINISH_REASONS[stop] ?? "stop" };
  });
}

/** A non-streaming Anthropic call for a summary (tools listed, tool_choice none, no thinking). */
export async function summarizeWithAnthropic(
  client: Anthropic,
  call: UpstreamCall & { timeoutMs?: number },
): Promise<{ text: string; usage: Usage | undefined }> {
  const timeouts =
    call.timeoutMs === undefined ? undefined : { firstByteMs: call.timeoutMs, totalMs: call.timeoutMs };
  const message = await withModelDeadline(timeouts, call.signal, (deadline) =>
    client.messages.create(requestBody(call, true), { signal: deadline.signal, headers: call.headers }),
  );
  const text = message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
  if (text.trim().length === 0) throw new Error("summarizer returned no text");
  return { text, usage: usageFromAnthropic(message.usage) };
}

const clients = new WeakMap<OpenAI | AnthropicEndpoint, Anthropic>();

function clientOf(key: OpenAI | AnthropicEndpoint, baseURL: string | undefined, apiKey: string): Anthropic {
  let client = clients.get(key);
  if (!client) {
    // Retries are the step's (withProviderRetry), as with the OpenAI client.
    client = new Anthropic({ ...(baseURL ? { baseURL } : {}), apiKey, maxRetries: 0, timeout: 10 * 60_000 });
    clients.set(key, client);
  }
  return client;
}

/**
 * The Anthropic client of a call, one per endpoint: the configured one (ANTHROPIC_BASE_URL, default
 * Anthropic's API, and ANTHROPIC_API_KEY), else one on the OpenAI client's endpoint (its origin, same
 * key): the sim model, and gateways that serve both APIs, answer both on one origin.
 */
export function anthropicClientFor(openai: OpenAI, configured: AnthropicEndpoint | undefined): Anthropic {
  if (configured) return clientOf(configured, configured.baseURL, configured.apiKey);
  return clientOf(openai, openai.baseURL.replace(/\/v1\/?$/, ""), openai.apiKey);
}
