import type { ModelProfile } from "@longrun/protocol";
import { ESTIMATE_PAD } from "./pressure.ts";
import { thresholds } from "./thresholds.ts";

/**
 * A ledger may take 6 % of the request limit, but at least `floorTokens` (or 8 % of the limit when
 * that is less: small windows need the floor, tiny ones cannot afford it), and at most 4,000 tokens.
 * On the corpus a working set — every changed file, the last 10 reads, the last error — needs about
 * 450–600 tokens, which 5 % of an 8k window does not hold.
 */
export const LEDGER_BUDGET = { share: 0.06, floorTokens: 480, floorShare: 0.08, maxTokens: 4_000 } as const;

/**
 * Where a compaction aims the context: half the window (two thirds of the trigger without one), so
 * the agent has a quarter of the window to work in before the next compaction. The fixed overhead —
 * tool definitions, system prompt, summary, ledger, restored files — is budgeted against it as a
 * whole: restored files get what the rest leaves, within their own cap.
 */
export const POST_COMPACTION_SHARE = 0.45;

/** What the kept-tail budget reserves for the summarizer's text, as a share of the window. */
export const SUMMARY_ALLOWANCE_SHARE = 0.1;

/** The ledger's token budget (see LEDGER_BUDGET): 480 tokens at 8k, 768 at 16k, 3,594 at 64k. */
export function ledgerBudgetTokens(profile: Partial<ModelProfile>): number {
  const { limitTokens } = thresholds(profile);
  const share = Math.floor(limitTokens * LEDGER_BUDGET.share);
  const floor = Math.min(LEDGER_BUDGET.floorTokens, Math.floor(limitTokens * LEDGER_BUDGET.floorShare));
  return Math.min(LEDGER_BUDGET.maxTokens, Math.max(share, floor));
}

/** The size a compacted context should have at most (see POST_COMPACTION_SHARE). */
export function postCompactionTargetTokens(profile: Partial<ModelProfile>): number {
  const { triggerTokens } = thresholds(profile);
  const window = profile.maxInputTokens;
  return window === undefined
    ? Math.floor((triggerTokens * 2) / 3)
    : Math.floor(window * POST_COMPACTION_SHARE);
}

/**
 * The most recent context a partial compaction keeps verbatim: what the post-compaction target
 * leaves after the fixed overhead (`overheadTokens`: system prompt, tool definitions, a fork prefix
 * still sent), the ledger's budget and an allowance for the summary — but never less than the
 * profile's keepTokens. Null without a known window (the message-count rule applies).
 */
export function maxKeptTokens(profile: Partial<ModelProfile>, overheadTokens: number): number | null {
  const window = profile.maxInputTokens;
  if (window === undefined) return null;
  const left =
    Math.floor(postCompactionTargetTokens(profile) / ESTIMATE_PAD) -
    overheadTokens -
    ledgerBudgetTokens(profile) -
    Math.floor(window * SUMMARY_ALLOWANCE_SHARE);
  return Math.max(thresholds(profile).keepTokens ?? 0, left);
}
