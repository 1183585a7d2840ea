import {
  type Answer,
  type AnswerEvent,
  type ClientTurn,
  type UpstreamChunk,
  upstreamRequest,
} from "@longrun/openai-compat";
import type { ChatMessage, UpstreamApi } from "@longrun/protocol";
import type OpenAI from "openai";
import type { RuntimeDeps } from "../runtime-deps.ts";
import { type ModelTimeouts, readAnswerStream, withModelDeadline } from "../step/model-deadline.ts";
import { anthropicCaller } from "../upstream/anthropic-caller.ts";
import { streamResponses } from "../upstream/responses-call.ts";
import type { StreamedAnswer, UpstreamCall } from "../upstream/upstream-request.ts";
import { carriedControls } from "./upstream-controls.ts";

/** One gateway turn's upstream request: the projected messages, in the conversation's wire format. */
export interface GatewayUpstreamRequest {
  api: UpstreamApi;
  turn: ClientTurn;
  messages: ChatMessage[];
  /** A stable key per conversation (Responses' prompt_cache_key). */
  cacheKey: string;
  /** The configured thinking budget (LONGRUN_THINKING_BUDGET), for an Anthropic upstream. */
  thinkingBudgetTokens?: number;
}

/** How a turn's upstream call is bounded and where its answer goes. */
export interface UpstreamCallOptions {
  signal: AbortSignal;
  headers?: Record<string, string>;
  /** First-byte and total timeouts (the thread's profile): past one, a ModelTimeoutError. */
  timeouts?: ModelTimeouts;
  onOpen(): void;
  onEvent(event: AnswerEvent): void;
}

/**
 * Streams one gateway turn to the upstream in its wire format: Chat Completions as the client's own
 * options say, or through the runtime's Responses and Anthropic Messages callers (the same ones
 * longrun's agents use). `onOpen` runs once the upstream has accepted the request (an HTTP error throws
 * before it), then every piece of the answer reaches `onEvent`.
 */
export async function streamUpstream(
  deps: Pick<RuntimeDeps, "model" | "anthropic">,
  request: GatewayUpstreamRequest,
  options: UpstreamCallOptions,
): Promise<Answer> {
  if (request.api === "chat-completions")
    return streamChat(
      deps.model,
      upstreamRequest(request.turn, request.messages, request.turn.model),
      options,
    );
  const { turn } = request;
  const carried = carriedControls(turn, request.api, request.thinkingBudgetTokens);
  const call = {
    model: turn.model,
    messages: request.messages,
    tools: turn.tools as OpenAI.Chat.Completions.ChatCompletionTool[],
    ...(turn.maxOutputTokens ? { maxOutputTokens: turn.maxOutputTokens } : {}),
    ...(options.headers ? { headers: options.headers } : {}),
    signal: options.signal,
    ...(options.timeouts ? { timeouts: options.timeouts } : {}),
    cacheKey: request.cacheKey,
    controls: carried.controls,
    ...(carried.thinkingBudgetTokens !== undefined
      ? { thinkingBudgetTokens: carried.thinkingBudgetTokens }
      : {}),
    onOpen: options.onOpen,
    onEvent: options.onEvent,
  };
  const streamed =
    request.api === "responses"
      ? await streamResponses(deps.model, call)
      : await streamAnthropicCall(deps, call);
  return answerOf(streamed);
}

async function streamAnthropicCall(
  deps: Pick<RuntimeDeps, "model" | "anthropic">,
  call: UpstreamCall,
): Promise<StreamedAnswer> {
  const { anthropicClientFor, streamAnthropic } = await anthropicCaller();
  return streamAnthropic(anthropicClientFor(deps.model, deps.anthropic), call);
}

function answerOf(streamed: StreamedAnswer): Answer {
  const { usage } = streamed.message;
  return { message: streamed.message, ...(usage ? { usage } : {}), finishReason: streamed.finishReason };
}

/** One streamed Chat Completions request, the body as the client's options made it. */
async function streamChat(
  model: OpenAI,
  body: Record<string, unknown>,
  options: UpstreamCallOptions,
): Promise<Answer> {
  return withModelDeadline(options.timeouts, options.signal, async (deadline) => {
    const stream = (await model.chat.completions.create(body as never, {
      signal: deadline.signal,
      ...(options.headers ? { headers: options.headers } : {}),
    })) as unknown as AsyncIterable<UpstreamChunk>;
    options.onOpen();
    return readAnswerStream(stream, deadline, options.onEvent);
  });
}
