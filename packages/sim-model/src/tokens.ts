import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { O200K_TOKEN_SPLIT_REGEX } from "gpt-tokenizer/encodingParams/constants";
import { countPieceTokens } from "./heap-bpe.ts";
import { contentText, imageCount, type WireMessage, type WireRequest } from "./wire.ts";

/** Fixed costs of the documented counting rule (close to OpenAI's chat overheads). */
export const TOKEN_OVERHEAD = { perMessage: 4, perToolCall: 3, perImage: 85, replyPriming: 3 } as const;

// Counting a 100k-token context on every request is the hot path; identical texts recur across
// requests (the history only grows), so memoize per text with a bounded map.
const cache = new Map<string, number>();
const CACHE_LIMIT = 20_000;

/** Pieces longer than this are merged with the heap (heap-bpe.ts), not by the library's O(n²) scan. */
const LONG_PIECE = 256;

/** True when some run of the text without U+0020 (or of possible whitespace) is longer than LONG_PIECE. */
function mayHoldLongPiece(text: string): boolean {
  let spaceFree = 0;
  let whitespace = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    spaceFree = code === 32 ? 0 : spaceFree + 1;
    whitespace = code === 32 || (code >= 9 && code <= 13) || code >= 0x80 ? whitespace + 1 : 0;
    if (spaceFree > LONG_PIECE || whitespace > LONG_PIECE) return true;
  }
  return false;
}

/**
 * Splits like the library, then counts each piece: short ones by the library, long ones by the heap.
 * A piece taken alone splits into itself again (only a trailing lookahead could differ, and it sees
 * the same end), so the sum is the library's count of the whole text.
 */
function countByPiece(text: string): number {
  const split = new RegExp(O200K_TOKEN_SPLIT_REGEX.source, "gu");
  let total = 0;
  for (const [piece] of text.matchAll(split)) {
    total += piece.length > LONG_PIECE ? countPieceTokens(piece) : countTokens(piece);
  }
  return total;
}

/** o200k_base token count of a text, memoized; linear-ish (n log n) in the length of any piece. */
export function countText(text: string): number {
  if (text.length === 0) return 0;
  const cached = cache.get(text);
  if (cached !== undefined) return cached;
  const count = mayHoldLongPiece(text) ? countByPiece(text) : countTokens(text);
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(text, count);
  return count;
}

/** True when the count of `text` is in the cache (no counting needed). */
export function isCounted(text: string): boolean {
  return cache.has(text);
}

/** Puts a count made elsewhere (the counting worker thread) into the cache. */
export function rememberCount(text: string, tokens: number): void {
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(text, tokens);
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
