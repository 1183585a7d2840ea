import type { Usage as AnthropicUsage, MessageDeltaUsage } from "@anthropic-ai/sdk/resources/messages";
import type { Usage } from "@longrun/protocol";

/** How much of the prompt sent upstream was read from, and written to, the prompt cache. */
export interface PromptCacheFigures {
  readTokens: number;
  writeTokens: number;
}

/** What a context_management edit did, as the API reports it in `applied_edits`. */
export interface AppliedContextEdit {
  type: "clear_thinking_20251015";
  cleared_thinking_turns: number;
  cleared_input_tokens: number;
}

/**
 * Stored usage as a Messages client reads it. `input_tokens` are the prompt tokens neither read from
 * nor written to the cache, so the three add up to the prompt actually sent upstream.
 */
export function usageToMessages(
  usage: Usage | undefined,
  cache: PromptCacheFigures | undefined,
): Pick<
  AnthropicUsage,
  "input_tokens" | "output_tokens" | "cache_read_input_tokens" | "cache_creation_input_tokens"
> {
  const prompt = usage?.promptTokens ?? 0;
  const read = Math.min(cache?.readTokens ?? 0, prompt);
  const write = Math.min(cache?.writeTokens ?? 0, prompt - read);
  return {
    input_tokens: prompt - read - write,
    output_tokens: usage?.completionTokens ?? 0,
    cache_read_input_tokens: read,
    cache_creation_input_tokens: write,
  };
}

/** The usage of a `message_delta` event: the whole message's totals. */
export function deltaUsage(usage: ReturnType<typeof usageToMessages>): MessageDeltaUsage {
  return {
    ...usage,
    output_tokens_details: null,
    server_tool_use: null,
  } as MessageDeltaUsage;
}
