import type { AnswerEvent } from "@longrun/openai-compat";
import type { ChatMessage, NewMessage, UpstreamApi } from "@longrun/protocol";
import type OpenAI from "openai";
import type { ModelTimeouts } from "../step/model-deadline.ts";

/** One agent model call, whatever the wire format (the step's request, format-neutral). */
export interface UpstreamCall {
  model: string;
  messages: ChatMessage[];
  tools?: OpenAI.Chat.Completions.ChatCompletionTool[];
  maxOutputTokens?: number;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  timeouts?: ModelTimeouts;
  onDelta?: (text: string) => void;
  /** Anthropic Messages: extended thinking with this budget; unset: no thinking asked for. */
  thinkingBudgetTokens?: number;
  /** A stable key per agent (OpenAI Responses' prompt_cache_key), so its requests meet one cache. */
  cacheKey?: string;
  /** The upstream accepted the request (its stream began); a failure before this is an HTTP error. */
  onOpen?: () => void;
  /** Every piece of the answer as it streams (text, reasoning, tool calls): the gateway tells its client. */
  onEvent?: (event: AnswerEvent) => void;
  /** A gateway client's tool choice and sampling; each format's caller sends those it has a form for. */
  controls?: UpstreamControls;
}

/**
 * What a gateway client asked for beyond the conversation, in Chat Completions terms. Each wire format
 * maps what it has a form for and leaves the rest out (Responses has no `stop`; Anthropic has no
 * reasoning effort): nothing is invented for a field another format lacks.
 */
export interface UpstreamControls {
  /** "auto" | "none" | "required" | {type: "function", function: {name}}. */
  toolChoice?: unknown;
  parallelToolCalls?: boolean;
  temperature?: number;
  topP?: number;
  stop?: string[];
  /** OpenAI reasoning effort (Chat `reasoning_effort`, Responses `reasoning.effort`). */
  reasoningEffort?: string;
}

/** A streamed answer's end: the fact, and why the model stopped (in Chat Completions terms). */
export interface StreamedAnswer {
  message: NewMessage & { role: "assistant" };
  finishReason: "stop" | "tool_calls" | "length" | "content_filter";
}

/**
 * Where Anthropic Messages calls go: the configured endpoint and key. The client is built on the first
 * call (anthropicClientFor): its SDK is a quarter of the modules a process would load otherwise.
 */
export interface AnthropicEndpoint {
  baseURL?: string;
  apiKey: string;
}

/** How the step reaches the model: the format, and the Anthropic endpoint when that is the format. */
export interface UpstreamTarget {
  api?: UpstreamApi;
  anthropic?: AnthropicEndpoint;
}

/** The function tools of a Chat Completions request, as name / description / JSON schema. */
export function functionTools(tools: readonly OpenAI.Chat.Completions.ChatCompletionTool[] | undefined) {
  return (tools ?? []).flatMap((tool) =>
    tool.type === "function"
      ? [
          {
            name: tool.function.name,
            description: tool.function.description ?? "",
            parameters: (tool.function.parameters ?? { type: "object", properties: {} }) as Record<
              string,
              unknown
            >,
          },
        ]
      : [],
  );
}
