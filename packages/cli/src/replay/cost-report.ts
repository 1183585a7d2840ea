import type { BillingProfile, CallPointCost } from "@longrun/compaction";
import type { ForwardUseCount } from "./forward-use.ts";

/** A billed-equivalent figure per pricing profile, in uncached input tokens. */
export type ProfileFigures = Record<BillingProfile, number>;
/** A ratio per pricing profile; null when the denominator is zero. */
export type ProfileRatios = Record<BillingProfile, number | null>;

/** One strategy's bill over a transcript (or pooled over several). */
export interface StrategyCost {
  total: ProfileFigures;
  /** The requests for assistant messages. */
  main: ProfileFigures;
  /** The summary calls, as sent. */
  summaries: ProfileFigures;
  mainCalls: number;
  summaryCalls: number;
  compactions: number;
  /** Compactions that took less than SMALL_COMPACTION_SAVING of the request away. */
  smallCompactions: number;
  /**
   * Compactions at a call point right after one that compacted and sent no request: two compactions
   * with no model step between (one at each of two call points with a request sent between is not).
   */
  backToBackCompactions: number;
  /** Call points without a request (over the limit). */
  unsent: number;
  /**
   * Tokens of the agent's own answers to the requests sent: the same whatever compacts the context,
   * so not in `total` (billed-equivalent input and the summaries' output); see `ratio.withAnswers`.
   */
  answerTokens: number;
  /** Where the main requests' tokens went: read from cache, or written (uncached). */
  mainTokens: { cacheRead: number; written: number };
  /** The same for the summary calls, and their output. */
  summaryTokens: { cacheRead: number; written: number; output: number };
}

/** Longrun's bill beside the plain strategy's on the same transcript and window. */
export interface CostTotals {
  outputRatio: number;
  longrun: StrategyCost;
  plain: StrategyCost;
  /**
   * longrun ÷ plain: the whole bill, the main requests, the summary calls, and the whole bill with
   * the agent's answers priced as output on both sides (which moves every ratio towards 1).
   */
  ratio: { total: ProfileRatios; main: ProfileRatios; summaries: ProfileRatios; withAnswers: ProfileRatios };
}

/** A compaction that saves less than this share of the request buys little room for its cost. */
export const SMALL_COMPACTION_SAVING = 0.2;

const PROFILES: readonly BillingProfile[] = ["openai", "anthropic"];
const zero = (): ProfileFigures => ({ openai: 0, anthropic: 0 });

/** Sums one strategy's call points. */
export function strategyCostOf(points: readonly CallPointCost[]): StrategyCost {
  const cost: StrategyCost = {
    total: zero(),
    main: zero(),
    summaries: zero(),
    mainCalls: 0,
    summaryCalls: 0,
    compactions: 0,
    smallCompactions: 0,
    backToBackCompactions: 0,
    unsent: 0,
    answerTokens: 0,
    mainTokens: { cacheRead: 0, written: 0 },
    summaryTokens: { cacheRead: 0, written: 0, output: 0 },
  };
  points.forEach((point, ordinal) => {
    for (const profile of PROFILES) {
      cost.main[profile] += point.main?.[profile] ?? 0;
      cost.summaries[profile] += point.summary?.[profile] ?? 0;
    }
    if (point.main) {
      cost.mainCalls += 1;
      cost.answerTokens += point.main.output;
      cost.mainTokens.cacheRead += point.main.cacheRead;
      cost.mainTokens.written += point.main.rest;
    } else cost.unsent += 1;
    if (point.summary) {
      cost.summaryCalls += 1;
      cost.summaryTokens.cacheRead += point.summary.cacheRead;
      cost.summaryTokens.written += point.summary.rest;
      cost.summaryTokens.output += point.summary.output;
    }
    const compaction = point.compaction;
    if (!compaction) return;
    cost.compactions += 1;
    const saved = compaction.tokensBefore - compaction.tokensAfter;
    if (saved < compaction.tokensBefore * SMALL_COMPACTION_SAVING) cost.smallCompactions += 1;
    const previous = ordinal > 0 ? points[ordinal - 1] : undefined;
    if (previous?.compaction && !previous.main) cost.backToBackCompactions += 1;
  });
  for (const profile of PROFILES) cost.total[profile] = cost.main[profile] + cost.summaries[profile];
  return cost;
}

function ratios(numerator: ProfileFigures, denominator: ProfileFigures): ProfileRatios {
  const ratio = (profile: BillingProfile) =>
    denominator[profile] === 0 ? null : numerator[profile] / denominator[profile];
  return { openai: ratio("openai"), anthropic: ratio("anthropic") };
}

/** Both strategies' bills and longrun ÷ plain. */
export function costTotalsOf(outputRatio: number, longrun: StrategyCost, plain: StrategyCost): CostTotals {
  const withAnswers = (cost: StrategyCost): ProfileFigures => ({
    openai: cost.total.openai + cost.answerTokens * outputRatio,
    anthropic: cost.total.anthropic + cost.answerTokens * outputRatio,
  });
  return {
    outputRatio,
    longrun,
    plain,
    ratio: {
      total: ratios(longrun.total, plain.total),
      main: ratios(longrun.main, plain.main),
      summaries: ratios(longrun.summaries, plain.summaries),
      withAnswers: ratios(withAnswers(longrun), withAnswers(plain)),
    },
  };
}

function sumCosts(costs: readonly StrategyCost[]): StrategyCost {
  const sum = strategyCostOf([]);
  for (const cost of costs) {
    for (const profile of PROFILES) {
      sum.total[profile] += cost.total[profile];
      sum.main[profile] += cost.main[profile];
      sum.summaries[profile] += cost.summaries[profile];
    }
    sum.mainCalls += cost.mainCalls;
    sum.summaryCalls += cost.summaryCalls;
    sum.compactions += cost.compactions;
    sum.smallCompactions += cost.smallCompactions;
    sum.backToBackCompactions += cost.backToBackCompactions;
    sum.unsent += cost.unsent;
    sum.answerTokens += cost.answerTokens;
    sum.mainTokens.cacheRead += cost.mainTokens.cacheRead;
    sum.mainTokens.written += cost.mainTokens.written;
    sum.summaryTokens.cacheRead += cost.summaryTokens.cacheRead;
    sum.summaryTokens.written += cost.summaryTokens.written;
    sum.summaryTokens.output += cost.summaryTokens.output;
  }
  return sum;
}

/** Bills of several transcripts summed (so larger transcripts weigh more), and the ratios of the sums. */
export function pooledCostOf(costs: readonly CostTotals[]): CostTotals {
  return costTotalsOf(
    costs[0]?.outputRatio ?? 0,
    sumCosts(costs.map((cost) => cost.longrun)),
    sumCosts(costs.map((cost) => cost.plain)),
  );
}

/** Forward-use recall over the requests after the first compaction. */
export interface ForwardUseTotal {
  /** Assistant messages looked ahead. */
  forwardN: number;
  /** Requests measured (after the first compaction); the means are over those that needed any identifier. */
  measured: number;
  requests: number;
  /** Mean share of the needed identifiers found in the request. */
  whole: number | null;
  /** The same with the summarizer's text taken out (its ledger block kept). */
  withoutSummary: number | null;
}

/** Mean recall over the requests that needed at least one identifier. */
export function forwardUseTotalOf(counts: readonly ForwardUseCount[], forwardN: number): ForwardUseTotal {
  const counted = counts.filter((count) => count.needed > 0);
  const mean = (share: (count: ForwardUseCount) => number) =>
    counted.length === 0 ? null : counted.reduce((sum, count) => sum + share(count), 0) / counted.length;
  return {
    forwardN,
    measured: counts.length,
    requests: counted.length,
    whole: mean((count) => count.whole / count.needed),
    withoutSummary: mean((count) => count.withoutSummary / count.needed),
  };
}
