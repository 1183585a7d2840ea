import type { PlainCompaction, PricedCall } from "@longrun/compaction";
import type { CompactionStrategy, CompactionTrigger, StageSavings } from "@longrun/protocol";
import { type CacheShare, type CacheTotals, cacheTotalsOf } from "./cache-share.ts";
import type { CostTotals, ForwardUseTotal } from "./cost-report.ts";
import type { ForwardUseCount } from "./forward-use.ts";
import { RETENTION_CATEGORIES, type Retention, type RetentionCategory } from "./retention.ts";

/** The compaction a call point ran before its request. */
export interface ReplayCompaction {
  strategy: CompactionStrategy;
  trigger: CompactionTrigger;
  tokensBefore: number;
  tokensAfter: number;
  cutoffMessageId: string | null;
  /** Tokens of the rendered ledger in the summary message. */
  ledgerTokens?: number;
  /**
   * Entries of its ledger that claim an outcome their result does not show (an exit code the result
   * does not carry, success for a failure, a changed file whose call failed): issue 32's goal is none.
   */
  unshownOutcomes?: number;
  /** What was shrunk so the compacted context fits. */
  shrunk?: string[];
  /** It applied a summary prepared in the background (no summary call at this point). */
  prepared?: boolean;
}

/** One model call point (before the assistant message at `index`). */
export interface ReplayStep {
  /** Position in the transcript of the assistant message the call produces (the NNNN of its request). */
  index: number;
  /** Pressure of the assembled, repaired context before the deterministic stages (and before this step's compaction). */
  rawTokens: number;
  /** Pressure of the final projection (the request written, or the one refused). */
  projectedTokens: number;
  /** What each deterministic stage saved in the final projection. */
  saved: StageSavings;
  compaction?: ReplayCompaction;
  /** A background summary was asked for beside this call's request, cut before this message. */
  prepared?: { cutoffMessageId: string };
  /** Why this call rewrote messages it had sent before in a batch (absent: it did not). */
  rewrite?: string;
  /** `ok`: request written; `context_exhausted`: still over the limit, nothing written (I6). */
  status: "ok" | "context_exhausted";
  reason?: string;
  /** Sum of the stored token counts of every fact so far (the uncompacted history). */
  historyTokens: number;
  /** After the first compaction, for a written request: which working-state facts it still carries. */
  retention?: Retention;
  /**
   * A written request after a written request with no compaction between: how much of it a prefix
   * cache could serve from the previous one, against an append-only history.
   */
  cache?: CacheShare;
  /** A refused call point: the verbatim part's size (system prompt, latest user message, active tool loop, tools). */
  verbatimTokens?: number;
  /** What this call point's calls cost: its summary call (if it compacted) and its request (if sent). */
  cost?: { main?: PricedCall; summary?: PricedCall };
  /** After the first compaction, for a written request: identifiers of the next assistant messages it carries. */
  forwardUse?: ForwardUseCount;
}

/** One category's retention over the requests after the first compaction. */
export interface RetentionTotal {
  /** Mean over requests (that had facts of the category) of the share still present; null: none had any. */
  mean: number | null;
  /** The lowest share seen in one request. */
  min: number | null;
  present: number;
  total: number;
  requests: number;
}

/** Figures over all call points. */
export interface ReplayTotals {
  calls: number;
  compactions: number;
  /** Tokens saved by each deterministic stage, summed over the call points. */
  saved: StageSavings;
  maxProjectedTokens: number;
  /** Call points whose request fits the window (and was written). */
  fits: number;
  /** Call points left without a request because the context was exhausted. */
  exhausted: number;
  /** Of those, the ones whose verbatim part alone fits the limit (a shrink could have saved them). */
  exhaustedVerbatimFits: number;
  retention: Record<RetentionCategory, RetentionTotal>;
  /** Cacheable-prefix and append-only shares over the steps that measured them. */
  cache: CacheTotals;
  /** Billed-equivalent cost of longrun's calls beside the plain strategy's. */
  cost: CostTotals;
  forwardUse: ForwardUseTotal;
  /** Background summaries: asked for, and applied at a compaction (the rest were discarded). */
  background: { started: number; applied: number };
  /** Ledger entries, over every compaction, that claim an outcome their result does not show. */
  unshownOutcomes: number;
}

/** DIR/report.json. */
export interface ReplayReport {
  transcript: string;
  model: string;
  maxInputTokens: number;
  triggerTokens: number;
  limitTokens: number;
  steps: ReplayStep[];
  /** The plain strategy on the same transcript and window: its compactions (tokens before and after). */
  plain: { compactions: PlainCompaction[] };
  totals: ReplayTotals;
}

/** Retention per category over the steps that measured it (requests after the first compaction). */
export function retentionTotals(steps: readonly ReplayStep[]): Record<RetentionCategory, RetentionTotal> {
  const totals = {} as Record<RetentionCategory, RetentionTotal>;
  for (const category of RETENTION_CATEGORIES) {
    const shares: number[] = [];
    let present = 0;
    let total = 0;
    for (const step of steps) {
      const count = step.retention?.[category];
      if (!count || count.total === 0) continue;
      shares.push(count.present / count.total);
      present += count.present;
      total += count.total;
    }
    totals[category] = {
      mean: shares.length === 0 ? null : shares.reduce((sum, share) => sum + share, 0) / shares.length,
      min: shares.length === 0 ? null : Math.min(...shares),
      present,
      total,
      requests: shares.length,
    };
  }
  return totals;
}

/** Totals of a list of steps (the cost and forward-use figures come from the caller, who has the plain walk). */
export function totalsOf(
  steps: readonly ReplayStep[],
  limitTokens: number,
  measured: Pick<ReplayTotals, "cost" | "forwardUse">,
): ReplayTotals {
  const saved: StageSavings = { collapse: 0, truncate: 0, microcompact: 0 };
  let maxProjectedTokens = 0;
  for (const step of steps) {
    saved.collapse += step.saved.collapse;
    saved.truncate += step.saved.truncate;
    saved.microcompact += step.saved.microcompact;
    if (step.status === "ok") maxProjectedTokens = Math.max(maxProjectedTokens, step.projectedTokens);
  }
  return {
    calls: steps.length,
    compactions: steps.filter((step) => step.compaction !== undefined).length,
    saved,
    maxProjectedTokens,
    fits: steps.filter((step) => step.status === "ok").length,
    exhausted: steps.filter((step) => step.status === "context_exhausted").length,
    exhaustedVerbatimFits: steps.filter(
      (step) =>
        step.status === "context_exhausted" &&
        step.verbatimTokens !== undefined &&
        step.verbatimTokens <= limitTokens,
    ).length,
    retention: retentionTotals(steps),
    unshownOutcomes: steps.reduce((sum, step) => sum + (step.compaction?.unshownOutcomes ?? 0), 0),
    background: {
      started: steps.filter((step) => step.prepared !== undefined).length,
      applied: steps.filter((step) => step.compaction?.prepared === true).length,
    },
    cache: cacheTotalsOf(steps.flatMap((step) => (step.cache ? [step.cache] : []))),
    ...measured,
  };
}
