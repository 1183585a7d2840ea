import { BILLING_PROFILES, DEFAULT_OUTPUT_RATIO } from "./request-billing.ts";

/**
 * Prices of one token, relative to an uncached input token. A prefix cache serves the part of a
 * request that repeats the previous one byte for byte at `cacheRead`; the rest is written at
 * `cacheWrite` (1.0 OpenAI-style, 1.25 Anthropic-style); output costs `output`.
 */
export interface TokenPrices {
  cacheRead: number;
  cacheWrite: number;
  output: number;
}

/** The prices the cost model assumes: the `openai` billing profile (no write charge), default output ratio. */
export const DEFAULT_PRICES: TokenPrices = {
  cacheRead: BILLING_PROFILES.openai.cacheRead,
  cacheWrite: BILLING_PROFILES.openai.cacheWrite ?? 1,
  output: DEFAULT_OUTPUT_RATIO,
};

/** What the cost model knows at a call point where the deterministic stages had work to do. */
export interface EconomyInput {
  /** Pressure of the request the deterministic path sends now (no LLM compaction). */
  deterministicTokens: number;
  /** Tokens of it after its first rewritten message: what the cache loses (0: it extends the last request). */
  deterministicResent: number;
  /** Pressure of the request extending the last one: what a continuation summary call reads from cache. */
  continuationTokens: number;
  /** Tokens the summary call sends beyond the cached prefix (its instruction, new messages). */
  summaryInstructionTokens: number;
  /** The summary's output budget. */
  summaryOutputTokens: number;
  /** Expected pressure of the request right after an LLM compaction. */
  compactedTokens: number;
  /** Average tokens one call adds to the context (its answer and tool results). */
  growthPerCall: number;
  triggerTokens: number;
  prices?: TokenPrices;
}

/** The cost model's verdict. */
export interface EconomyVerdict {
  /** LLM compaction costs less per call than the deterministic path. */
  cheaper: boolean;
  /** Expected saving of compacting now over the calls until the next trigger (input-token equivalents; negative: a loss). */
  expectedSaving: number;
  /** Average cost per call of each path (input-token equivalents). */
  perCall: { deterministic: number; compaction: number };
  /** Calls each path lasts before the next decision. */
  calls: { deterministic: number; compaction: number };
}

/**
 * Average cost per call of a stretch that starts at `startTokens` with a one-time cost, and whose
 * calls read a prefix growing by `growth` per call from the cache until the trigger (one call when it
 * starts over the trigger: the next call decides again).
 */
function stretch(
  startTokens: number,
  oneTime: number,
  growth: number,
  triggerTokens: number,
  prices: TokenPrices,
): { perCall: number; calls: number } {
  if (startTokens > triggerTokens) return { perCall: oneTime + prices.cacheRead * startTokens, calls: 1 };
  const calls = Math.max(1, (triggerTokens - startTokens) / Math.max(1, growth));
  const meanPrefix = (startTokens + triggerTokens) / 2;
  return { perCall: oneTime / calls + prices.cacheRead * meanPrefix, calls };
}

/** The one-time cost of an LLM compaction: its summary call and the rewrite of the new, smaller request. */
function compactionOneTime(input: EconomyInput, prices: TokenPrices): number {
  const summaryCall =
    input.continuationTokens * prices.cacheRead +
    input.summaryInstructionTokens * prices.cacheWrite +
    input.summaryOutputTokens * prices.output;
  return summaryCall + input.compactedTokens * (prices.cacheWrite - prices.cacheRead);
}

/**
 * Compares, per call, the deterministic path (its rewrite resends the tail after its first change,
 * then each call reads a prefix growing from its size to the trigger) with an LLM compaction now (a
 * summary call that reads the conversation from cache and writes a summary at the output price, then a
 * new, much smaller request written whole, then calls reading it until the next compaction: at
 * `cycleEndTokens`, the trigger by default). The path with the lower cost per call is cheaper over the
 * coming calls (the optimal-replacement rule: replace when the running cost exceeds the best average
 * cycle cost). Pure.
 */
export function compactionEconomy(input: EconomyInput & { cycleEndTokens?: number }): EconomyVerdict {
  const prices = input.prices ?? DEFAULT_PRICES;
  const growth = Math.max(1, input.growthPerCall);
  const deterministic = stretch(
    input.deterministicTokens,
    input.deterministicResent * (prices.cacheWrite - prices.cacheRead),
    growth,
    input.triggerTokens,
    prices,
  );
  const compaction = stretch(
    input.compactedTokens,
    compactionOneTime(input, prices),
    growth,
    input.cycleEndTokens ?? input.triggerTokens,
    prices,
  );
  const expectedSaving = Math.round((deterministic.perCall - compaction.perCall) * compaction.calls);
  return {
    cheaper: compaction.perCall < deterministic.perCall,
    expectedSaving,
    perCall: { deterministic: deterministic.perCall, compaction: compaction.perCall },
    calls: { deterministic: deterministic.calls, compaction: compaction.calls },
  };
}

/**
 * Least share of a cycle's cost per call that compacting at the economic line must save against
 * compacting at the trigger; below it the trigger stands (fewer compactions, more verbatim context).
 */
export const MIN_ECONOMIC_GAIN = 0.05;

/**
 * The pressure from which compacting costs less than growing on (the optimal-replacement point), or
 * null where there is none short of the trigger worth taking. A cycle that starts at the compacted
 * size L with a one-time cost K (summary call and rewrite) and reads a prefix growing by g per call
 * until X averages A(X) = K·g/(X − L) + r·(L + X)/2 per call, r the cache-read price; that is least
 * at X* = L + √(2·K·g / r), where it equals r·X*, the price of one call reading X*. Past X* every call
 * costs more than a whole cycle averages, so compacting then is cheaper — well below the trigger on a
 * large window (at 64k on the corpus, about half the window), near it on a small one, where a summary
 * call weighs more against what it saves. Null when X* is not under the trigger, or when cycles to X*
 * would save less than MIN_ECONOMIC_GAIN per call against cycles to the trigger. Pure.
 */
export function economicLineTokens(input: EconomyInput): number | null {
  const prices = input.prices ?? DEFAULT_PRICES;
  if (prices.cacheRead <= 0) return null;
  const growth = Math.max(1, input.growthPerCall);
  const oneTime = compactionOneTime(input, prices);
  const start = input.compactedTokens;
  const line = Math.round(start + Math.sqrt((2 * oneTime * growth) / prices.cacheRead));
  if (line >= input.triggerTokens) return null;
  const perCall = (end: number) =>
    (oneTime * growth) / Math.max(1, end - start) + (prices.cacheRead * (start + end)) / 2;
  const gain = 1 - perCall(line) / perCall(input.triggerTokens);
  return gain < MIN_ECONOMIC_GAIN ? null : line;
}

/** Why an LLM compaction is asked for: the deterministic stages leave it over the trigger, or it costs less. */
export type CompactionNeed = "must" | "cheaper";

/** Below this share of the request saved, a compaction makes no progress (the seed's cascade exists to avoid it). */
export const MIN_COMPACTION_PROGRESS = 0.2;

/** True when a compaction from `tokensBefore` to `tokensAfter` saves less than MIN_COMPACTION_PROGRESS. */
export function isNoProgress(tokensBefore: number, tokensAfter: number): boolean {
  return tokensBefore <= 0 || tokensBefore - tokensAfter < MIN_COMPACTION_PROGRESS * tokensBefore;
}
