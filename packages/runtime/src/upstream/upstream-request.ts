import type Anthropic from "@anthropic-ai/sdk";
import type { ChatMessage, UpstreamApi } from "@longrun/protocol";
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
}

/** How the step reaches the model: the format, and the Anthropic client when that is the format. */
export interface UpstreamTarget {
  api?: UpstreamApi;
  anthropic?: Anthropic;
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
