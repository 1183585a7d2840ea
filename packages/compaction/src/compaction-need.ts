import type { ModelProfile } from "@longrun/protocol";
import { expectedCompactedTokens, summaryBudgetTokens } from "./compaction-budget.ts";
import {
  type CompactionNeed,
  compactionEconomy,
  type EconomyInput,
  economicLineTokens,
} from "./compaction-economy.ts";
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
  /** A compaction is in force: the thread has been long enough to need one. */
  compacted: boolean;
}

/**
 * Below this share of the window the cost model never asks for a compaction, however cheap: what a
 * compaction summarizes the agent can no longer read verbatim. Measured with `longrun replay` on the
 * corpus at 64k (÷ the plain strategy, openai; forward-use recall without the summarizer's text): 0.5 →
 * 0.833 (recall 0.954), 0.6 → 0.859 (0.952), the trigger alone 0.913 (0.962, with a 7 % kept tail).
 * Those ran on padded estimates (ESTIMATE_PAD): the line was 0.5 of the window ÷ 1.1. With the replay's
 * answers carrying usage, as live ones do, and the trigger at 68 %: 0.45 → 0.809 (0.956), 0.5 → 0.820
 * (0.951), 0.4 → 0.803 (0.956, 25 compactions where plain makes 15). With the trigger at 65 % (66 % since),
 * at 65,536: 0.4 → 0.796 (0.955, 26 compactions), 0.45 → 0.815 (0.954, 22), 0.5 → 0.823 (0.953, 21); 16k
 * the same to ±0.001 for all three. 0.45 stays: 0.4's saving comes from compacting 1.7 times as often as plain.
 */
export const ECONOMIC_FLOOR_SHARE = 0.45;

/** The cost model's inputs at this call point (see compactionEconomy). */
function economyInput(input: NeedInput): EconomyInput {
  const { limits, raw } = input;
  const overhead =
    input.toolsTokens +
    input.header
      .filter((item) => item.mark === "system" || item.mark === "prefix")
      .reduce((sum, item) => sum + item.tokens, 0);
  const rawTokens = raw.reduce((sum, item) => sum + item.tokens, 0);
  const calls = raw.filter((item) => item.message.role === "assistant").length;
  // The pinned message stays after the next compaction too (it sits before the summary).
  const pinned = input.header
    .filter((item) => item.mark === "pinned")
    .reduce((sum, item) => sum + item.tokens, 0);
  return {
    deterministicTokens: input.tokens,
    deterministicResent: input.resentTokens,
    continuationTokens: input.extensionTokens,
    summaryInstructionTokens: continuationInstructionTokens(input.tokenizer),
    summaryOutputTokens: summaryBudgetTokens(input.profile),
    compactedTokens: expectedCompactedTokens(input.profile, overhead, rawTokens) + pinned,
    growthPerCall: rawTokens / Math.max(1, calls),
    triggerTokens: limits.triggerTokens,
  };
}

function lineOf(input: NeedInput, economy: EconomyInput): number {
  const { triggerTokens } = input.limits;
  const window = input.profile.maxInputTokens;
  // Before a thread's first compaction nothing shows it will go on long enough to repay an early one:
  // on the corpus at 64k a sub-agent compacted at half the window on its last call cost 1.18× plain.
  if (window === undefined || !input.compacted) return triggerTokens;
  const line = economicLineTokens(economy);
  if (line === null) return triggerTokens;
  return Math.min(triggerTokens, Math.max(Math.floor(window * ECONOMIC_FLOOR_SHARE), line));
}

/**
 * Where the next LLM compaction comes as the request grows: the trigger, or — once the thread has
 * compacted — short of it where the cost model finds compacting cheaper than growing on
 * (economicLineTokens), never below ECONOMIC_FLOOR_SHARE of a known window.
 */
export function compactionLineTokens(input: NeedInput): number {
  return lineOf(input, economyInput(input));
}

/**
 * The seed's rule, with a price on it: LLM compaction when the deterministic stages leave the request
 * over the trigger ("must"), or when the cost model finds a summary cheaper over the coming calls
 * ("cheaper") — where the deterministic stages had work to do, the request as sent last grown over the
 * trigger, or where the request as sent has grown past the compaction line (compactionLineTokens) short
 * of the trigger. Null: no compaction.
 */
export function decideCompaction(input: NeedInput): CompactionDecision | null {
  const { limits } = input;
  const economy = economyInput(input);
  if (!input.must && input.extensionTokens <= limits.triggerTokens) {
    const line = lineOf(input, economy);
    if (line >= limits.triggerTokens || input.extensionTokens < line) return null;
    // Past the line the next cycles end there too, not at the trigger.
    const verdict = compactionEconomy({ ...economy, cycleEndTokens: line });
    return verdict.cheaper ? { need: "cheaper", expectedSaving: verdict.expectedSaving } : null;
  }
  const verdict = compactionEconomy(economy);
  if (input.must) return { need: "must", expectedSaving: verdict.expectedSaving };
  return verdict.cheaper ? { need: "cheaper", expectedSaving: verdict.expectedSaving } : null;
}
