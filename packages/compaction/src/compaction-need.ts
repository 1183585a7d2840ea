import type { ModelProfile } from "@longrun/protocol";
import { expectedCompactedTokens, summaryBudgetTokens } from "./compaction-budget.ts";
import { type CompactionNeed, compactionEconomy } from "./compaction-economy.ts";
import { continuationInstructionTokens } from "./summary-continuation.ts";
import type { Thresholds } from "./thresholds.ts";
import type { Tokenizer } from "./tokenizer.ts";
import type { ProjectionItem } from "./types.ts";

/** Why the projection asks for LLM compaction, and what the cost model expects it to save. */
export interface CompactionDecision {
  need: CompactionNeed;
  /** Input-token equivalents saved over the calls until the next trigger, against the deterministic path. */
  expectedSaving: number;
}

/** What decideCompaction reads from a projection under construction. */
export interface NeedInput {
  /** The deterministic stages leave the request over the trigger (or a rewrite to fit costs more than compaction). */
  must: boolean;
  profile: Partial<ModelProfile>;
  tokenizer: Tokenizer;
  limits: Thresholds;
  header: readonly ProjectionItem[];
  raw: readonly ProjectionItem[];
  toolsTokens: number;
  /** Pressure of the request the deterministic path sends, and what its rewrite resends (0: none). */
  tokens: number;
  resentTokens: number;
  /** Pressure of the request extending the previous one (what a summary call reads from cache). */
  extensionTokens: number;
}

/**
 * The seed's rule, with a price on it: LLM compaction when the deterministic stages leave the request
 * over the trigger ("must"), or — where they had work to do, the request as sent last grown over the
 * trigger — when the cost model finds a summary cheaper over the coming calls ("cheaper"). Null: no
 * compaction.
 */
export function decideCompaction(input: NeedInput): CompactionDecision | null {
  const { limits, raw } = input;
  if (!input.must && input.extensionTokens <= limits.triggerTokens) return null;
  const overhead =
    input.toolsTokens +
    input.header
      .filter((item) => item.mark === "system" || item.mark === "prefix")
      .reduce((sum, item) => sum + item.tokens, 0);
  const rawTokens = raw.reduce((sum, item) => sum + item.tokens, 0);
  const calls = raw.filter((item) => item.message.role === "assistant").length;
  const verdict = compactionEconomy({
    deterministicTokens: input.tokens,
    deterministicResent: input.resentTokens,
    continuationTokens: input.extensionTokens,
    summaryInstructionTokens: continuationInstructionTokens(input.tokenizer),
    summaryOutputTokens: summaryBudgetTokens(input.profile),
    compactedTokens: expectedCompactedTokens(input.profile, overhead, rawTokens),
    growthPerCall: rawTokens / Math.max(1, calls),
    triggerTokens: limits.triggerTokens,
  });
  if (input.must) return { need: "must", expectedSaving: verdict.expectedSaving };
  return verdict.cheaper ? { need: "cheaper", expectedSaving: verdict.expectedSaving } : null;
}
