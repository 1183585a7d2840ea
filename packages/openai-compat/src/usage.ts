import type { Usage } from "@longrun/protocol";

/** Usage as Chat Completions reports it. */
export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
  completion_tokens_details?: { reasoning_tokens?: number | null } | null;
}

/** Usage as the Responses API reports it. */
export interface ResponsesUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

/** Upstream (Chat) usage in the stored shape. */
export function usageFromChat(usage: ChatUsage | null | undefined): Usage | undefined {
  if (!usage) return undefined;
  return {
    promptTokens: usage.prompt_tokens,
    completionTokens: usage.completion_tokens,
    totalTokens: usage.total_tokens,
    ...(usage.completion_tokens_details?.reasoning_tokens != null
      ? { reasoningTokens: usage.completion_tokens_details.reasoning_tokens }
      : {}),
    ...(usage.prompt_tokens_details?.cached_tokens != null
      ? { cachedTokens: usage.prompt_tokens_details.cached_tokens }
      : {}),
  };
}

/** Stored usage as a Chat client reads it. */
export function usageToChat(usage: Usage): ChatUsage {
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.totalTokens,
    prompt_tokens_details: { cached_tokens: usage.cachedTokens ?? 0 },
    completion_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
  };
}

/** Stored usage as a Responses client reads it. */
export function usageToResponses(usage: Usage): ResponsesUsage {
  return {
    input_tokens: usage.promptTokens,
    input_tokens_details: { cached_tokens: usage.cachedTokens ?? 0 },
    output_tokens: usage.completionTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
    total_tokens: usage.totalTokens,
  };
}
