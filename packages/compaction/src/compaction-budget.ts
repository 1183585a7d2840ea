import type { ModelProfile } from "@longrun/protocol";
import { ESTIMATE_PAD } from "./pressure.ts";
import { thresholds } from "./thresholds.ts";

/**
 * A ledger may take 6 % of the window (of the request limit without one), but at least `floorTokens`
 * (or 8 % of the limit when that is less: small windows need the floor, tiny ones cannot afford it),
 * and at most 4,000 tokens. On the corpus a working set — every changed file, the last 10 reads, the
 * last error — needs about 450–600 tokens, which 5 % of an 8k window does not hold; the rest holds the
 * names index (forward-use recall at 16k: 0.811 with 6 % of the limit, 0.836 with 6 % of the window).
 * At 8k the floor is 8 % of the 6,400-token limit, 512 (was 480): part of what the summary's smaller
 * floor gives back (SUMMARY_BUDGET), so the files the summary no longer names stay in the request.
 */
export const LEDGER_BUDGET = { share: 0.06, floorTokens: 600, floorShare: 0.08, maxTokens: 4_000 } as const;

/**
 * Where a compaction aims the context: 15 % of the window (two thirds of the trigger without one),
 * so the agent has most of the window to work in before the next compaction. Every call until
 * then reads the compacted prefix again (from cache, at a tenth of the input price), and a compaction
 * that lands just under the trigger buys a step or two for the price of a summary call and a rewrite
 * of the whole request: the smaller it lands, the more calls share its cost. The fixed overhead —
 * tool definitions, system prompt, summary, ledger, restored files — is budgeted against it as a
 * whole: restored files get what the rest leaves, within their own cap. Measured with `longrun replay`
 * on the corpus (billed-equivalent input, openai profile, ÷ the plain strategy): a fifth gave 0.929 at
 * 16k and 0.890 at 64k, 15 % gives 0.918 and 0.884 at the same forward-use recall, a quarter 0.954 at
 * 16k; at 8k the kept tail's floor (keepRatio) decides either way.
 */
export const POST_COMPACTION_SHARE = 0.15;

/**
 * The summarizer's output budget: 1.5 % of the window, at least 240 tokens or 3 % of the window when
 * that is less, and at most 4,096. Output is priced at four times input, and the working state that
 * must survive exactly (files, commands, errors, plan) is in the ledger beside it, with the user's
 * latest message verbatim: the summary carries the narrative (decisions, what is done and not, the next
 * step), and the instruction asks it not to copy those.
 *
 * Below about 11k tokens the floor is the 3 %: at 8k, 240 tokens. There the fixed parts of a compacted
 * request (tools, pinned task, summary, ledger, the active tool loop) are half the trigger, every token
 * of them is read again at each call and brings the next compaction closer, and each compaction pays for
 * the summary's output at four times the input price. Measured with `longrun replay` on the corpus
 * (÷ the plain strategy, openai): at 8k 1.095 with 400, 0.971 with 240; at 16k 400 → 320 gave 0.888 →
 * 0.870, and 2 % / 320 → 1.5 % / 240 (with the shorter instruction) 0.872 → 0.850 (anthropic 0.875 →
 * 0.855), 64k 0.818 → 0.807, 8k 0.963 → 0.956, at forward-use recall without the summary 0.859 (16k) and
 * 0.955 (64k). The sim model writes the summaries there: what a real one loses at that size the replay
 * cannot show; the ledger keeps the exact state either way.
 */
export const SUMMARY_BUDGET = { share: 0.015, floorTokens: 240, floorShare: 0.03, maxTokens: 4_096 } as const;

/** The summary's token budget (see SUMMARY_BUDGET): 240 at 8k and 16k, 960 at 64k. */
export function summaryBudgetTokens(profile: Partial<ModelProfile>): number {
  const { limitTokens } = thresholds(profile);
  const window = profile.maxInputTokens ?? limitTokens;
  const share = Math.floor(window * SUMMARY_BUDGET.share);
  const floor = Math.min(SUMMARY_BUDGET.floorTokens, Math.floor(window * SUMMARY_BUDGET.floorShare));
  return Math.min(SUMMARY_BUDGET.maxTokens, Math.floor(limitTokens / 4), Math.max(floor, share));
}

/** The ledger's token budget (see LEDGER_BUDGET): 512 tokens at 8k, 960 at 16k, 3,840 at 64k. */
export function ledgerBudgetTokens(profile: Partial<ModelProfile>): number {
  const { limitTokens } = thresholds(profile);
  const share = Math.floor((profile.maxInputTokens ?? limitTokens) * LEDGER_BUDGET.share);
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
    summaryBudgetTokens(profile);
  return Math.max(thresholds(profile).keepTokens ?? 0, left);
}

/**
 * What a compaction is expected to leave (padded like an estimate): the fixed overhead, the summary
 * and ledger budgets and the kept tail — `tailTokens` when the cut is known (`cut: true`), else at
 * most the kept-tail budget of the raw part's `tailTokens`.
 */
export function expectedCompactedTokens(
  profile: Partial<ModelProfile>,
  overheadTokens: number,
  tailTokens: number,
  cut = false,
): number {
  const kept = maxKeptTokens(profile, overheadTokens);
  const tail = kept === null || cut ? tailTokens : Math.min(kept, tailTokens);
  const fixed = overheadTokens + ledgerBudgetTokens(profile) + summaryBudgetTokens(profile);
  return Math.ceil((fixed + tail) * ESTIMATE_PAD);
}
