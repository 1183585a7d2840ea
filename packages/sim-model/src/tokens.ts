import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { contentText, imageCount, type WireMessage, type WireRequest } from "./wire.ts";

/** Fixed costs of the documented counting rule (close to OpenAI's chat overheads). */
export const TOKEN_OVERHEAD = { perMessage: 4, perToolCall: 3, perImage: 85, replyPriming: 3 } as const;

// Counting a 100k-token context on every request is the hot path; identical texts recur across
// requests (the history only grows), so memoize per text with a bounded map.
const cache = new Map<string, number>();
const CACHE_LIMIT = 20_000;

/** o200k_base token count of a text, memoized. */
export function countText(text: string): number {
  if (text.length === 0) return 0;
  const cached = cache.get(text);
  if (cached !== undefined) return cached;
  const count = countTokens(text);
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(text, count);
  return count;
}

/** Tokens of one message: overhead + role + name + text + images + tool calls (name and arguments). */
export function countMessage(message: WireMessage): number {
  let total = TOKEN_OVERHEAD.perMessage + countText(message.role) + countText(contentText(message.content));
  if (message.name) total += countText(message.name);
  total += imageCount(message.content) * TOKEN_OVERHEAD.perImage;
  for (const call of message.tool_calls ?? []) {
    total += TOKEN_OVERHEAD.perToolCall + countText(call.function.name) + countText(call.function.arguments);
  }
  return total;
}

/** Tokens of the tool definitions (their JSON text). */
export function countTools(request: WireRequest): number {
  return request.tools && request.tools.length > 0 ? countText(JSON.stringify(request.tools)) : 0;
}

/** Prompt tokens of a whole request, by the rule documented in the README. */
export function countRequest(request: WireRequest): number {
  let total = countTools(request) + TOKEN_OVERHEAD.replyPriming;
  for (const message of request.messages) total += countMessage(message);
  return total;
}
