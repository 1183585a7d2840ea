import { countText } from "./tokens.ts";
import type { WireReasoningDetail, WireToolCall } from "./wire.ts";

/** The assistant answer before it is put on the wire. */
export interface AnswerMessage {
  content: string | null;
  toolCalls: WireToolCall[];
  reasoningDetails?: WireReasoningDetail[];
  reasoningTokens: number;
}

export interface WireUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
  completion_tokens_details: { reasoning_tokens: number };
}

/** Usage as OpenAI reports it; completion tokens include the hidden reasoning tokens. */
export function usageOf(answer: AnswerMessage, promptTokens: number, cachedTokens: number): WireUsage {
  let completion = countText(answer.content ?? "") + answer.reasoningTokens;
  for (const call of answer.toolCalls)
    completion += countText(call.function.name) + countText(call.function.arguments);
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completion,
    total_tokens: promptTokens + completion,
    prompt_tokens_details: { cached_tokens: cachedTokens },
    completion_tokens_details: { reasoning_tokens: answer.reasoningTokens },
  };
}

function finishReason(answer: AnswerMessage): "stop" | "tool_calls" {
  return answer.toolCalls.length > 0 ? "tool_calls" : "stop";
}

/** A non-streaming `chat.completion` object. */
export function completionBody(id: string, model: string, answer: AnswerMessage, usage: WireUsage): unknown {
  return {
    id,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model,
    system_fingerprint: "fp_sim",
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: answer.content,
          refusal: null,
          ...(answer.toolCalls.length > 0 ? { tool_calls: answer.toolCalls } : {}),
          ...(answer.reasoningDetails ? { reasoning_details: answer.reasoningDetails } : {}),
        },
        logprobs: null,
        finish_reason: finishReason(answer),
      },
    ],
    usage,
  };
}

function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let index = 0; index < text.length; index += size) out.push(text.slice(index, index + size));
  return out;
}

/** The `chat.completion.chunk` objects of a streamed answer (usage chunk last when asked for). */
export function completionChunks(
  id: string,
  model: string,
  answer: AnswerMessage,
  usage: WireUsage,
  includeUsage: boolean,
): unknown[] {
  const created = Math.floor(Date.now() / 1000);
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
    id,
    object: "chat.completion.chunk",
    created,
    model,
    system_fingerprint: "fp_sim",
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...(includeUsage ? { usage: null } : {}),
  });
  const chunks: unknown[] = [chunk({ role: "assistant", content: "", refusal: null })];
  if (answer.reasoningDetails) chunks.push(chunk({ reasoning_details: answer.reasoningDetails }));
  for (const piece of pieces(answer.content ?? "", 24)) chunks.push(chunk({ content: piece }));
  for (const [index, call] of answer.toolCalls.entries()) {
    chunks.push(
      chunk({
        tool_calls: [
          { index, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } },
        ],
      }),
    );
    for (const piece of pieces(call.function.arguments, 64)) {
      chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  }
  chunks.push(chunk({}, finishReason(answer)));
  if (includeUsage) {
    chunks.push({
      id,
      object: "chat.completion.chunk",
      created,
      model,
      system_fingerprint: "fp_sim",
      choices: [],
      usage,
    });
  }
  return chunks;
}
