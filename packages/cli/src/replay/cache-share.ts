import type { ChatMessage } from "@longrun/protocol";

/** A request as the cache sees it: tool definitions first, then the messages, with their token counts. */
export interface SentRequest {
  messages: readonly ChatMessage[];
  messageTokens: readonly number[];
  toolsTokens: number;
}

/** How much of one request a provider's prefix cache could serve from the previous request. */
export interface CacheShare {
  /** Tokens of this request (tools + messages). */
  requestTokens: number;
  /** Tokens of the previous request. */
  previousTokens: number;
  /** Tokens of this request that form a byte-identical message prefix of the previous request. */
  cachedTokens: number;
  /** Index of the first message that differs from the previous request (its length if none did). */
  firstChanged: number;
  /** Messages of the previous request: firstChanged below it means a sent message was rewritten. */
  previousMessages: number;
  /** cachedTokens ÷ requestTokens. */
  cacheableShare: number;
  /** What an append-only history would keep cached: previous size ÷ size (at most 1). */
  appendOnlyShare: number;
}

function totalTokens(request: SentRequest): number {
  return request.messageTokens.reduce((sum, tokens) => sum + tokens, request.toolsTokens);
}

/**
 * Compares a request with the one sent before it. Messages are compared whole (their JSON), in
 * order; the tools count as cached when the definitions did not change.
 */
export function cacheShareOf(
  previous: SentRequest,
  current: SentRequest,
  sameTools = previous.toolsTokens === current.toolsTokens,
): CacheShare {
  const requestTokens = totalTokens(current);
  const previousTokens = totalTokens(previous);
  let cachedTokens = sameTools ? current.toolsTokens : 0;
  let firstChanged = 0;
  const limit = sameTools ? Math.min(previous.messages.length, current.messages.length) : 0;
  while (
    firstChanged < limit &&
    JSON.stringify(previous.messages[firstChanged]) === JSON.stringify(current.messages[firstChanged])
  ) {
    cachedTokens += current.messageTokens[firstChanged] ?? 0;
    firstChanged++;
  }
  return {
    requestTokens,
    previousTokens,
    cachedTokens,
    firstChanged,
    previousMessages: previous.messages.length,
    cacheableShare: requestTokens === 0 ? 1 : cachedTokens / requestTokens,
    appendOnlyShare: requestTokens === 0 ? 1 : Math.min(1, previousTokens / requestTokens),
  };
}

/** Cache figures over the steps that measured them (sums, so large requests weigh more). */
export interface CacheTotals {
  /** Steps measured: written requests that followed a written request without a compaction between. */
  steps: number;
  /** Of those, steps whose request changed a message the previous request had sent. */
  rewrites: number;
  requestTokens: number;
  cachedTokens: number;
  /** Σ cached ÷ Σ request. */
  cacheableShare: number | null;
  /** Σ min(previous, request) ÷ Σ request. */
  appendOnlyShare: number | null;
  /** cacheableShare ÷ appendOnlyShare (the goal is ≥ 0.98). */
  ratio: number | null;
}

/** Totals of a list of per-step figures. */
export function cacheTotalsOf(shares: readonly CacheShare[]): CacheTotals {
  let requestTokens = 0;
  let cachedTokens = 0;
  let appendOnlyTokens = 0;
  let rewrites = 0;
  for (const share of shares) {
    requestTokens += share.requestTokens;
    cachedTokens += share.cachedTokens;
    appendOnlyTokens += Math.min(share.previousTokens, share.requestTokens);
    if (share.firstChanged < share.previousMessages) rewrites++;
  }
  const cacheableShare = requestTokens === 0 ? null : cachedTokens / requestTokens;
  const appendOnlyShare = requestTokens === 0 ? null : appendOnlyTokens / requestTokens;
  return {
    steps: shares.length,
    rewrites,
    requestTokens,
    cachedTokens,
    cacheableShare,
    appendOnlyShare,
    ratio:
      cacheableShare === null || appendOnlyShare === null || appendOnlyShare === 0
        ? null
        : cacheableShare / appendOnlyShare,
  };
}
