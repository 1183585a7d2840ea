import type { CompactionStrategy, CompactionTrigger, StageSavings } from "@longrun/protocol";

/** The compaction a call point ran before its request. */
export interface ReplayCompaction {
  strategy: CompactionStrategy;
  trigger: CompactionTrigger;
  tokensBefore: number;
  tokensAfter: number;
  cutoffMessageId: string | null;
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
  /** `ok`: request written; `context_exhausted`: still over the limit, nothing written (I6). */
  status: "ok" | "context_exhausted";
  reason?: string;
  /** Sum of the stored token counts of every fact so far (the uncompacted history). */
  historyTokens: number;
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
}

/** DIR/report.json. */
export interface ReplayReport {
  transcript: string;
  model: string;
  maxInputTokens: number;
  triggerTokens: number;
  limitTokens: number;
  steps: ReplayStep[];
  totals: ReplayTotals;
}

/** Totals of a list of steps. */
export function totalsOf(steps: readonly ReplayStep[]): ReplayTotals {
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
  };
}
