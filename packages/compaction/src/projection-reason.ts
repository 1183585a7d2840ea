import type { CompactionDecision } from "./compaction-need.ts";

/** Why the projection is what it is, in one line (Projection.reason). */
export function projectionReason(at: {
  tokens: number;
  limits: { triggerTokens: number; limitTokens: number };
  ran: readonly string[];
  needsCompaction: boolean;
  rewriteReason: string | undefined;
  compactionInstead: boolean;
  decision: CompactionDecision | null;
  /** Where the cost model puts the next compaction (Projection.compactionLineTokens). */
  lineTokens: number;
}): string {
  const { tokens, limits, ran } = at;
  if (
    at.decision?.need === "cheaper" &&
    at.lineTokens < limits.triggerTokens &&
    tokens <= limits.triggerTokens
  ) {
    return `${tokens} tokens, past the compaction line ${at.lineTokens} (trigger ${limits.triggerTokens}): compacting now costs less per call than growing to the trigger (expected saving ${at.decision.expectedSaving} input-token equivalents)`;
  }
  if (at.decision?.need === "cheaper" && !at.compactionInstead) {
    return `${tokens} tokens: LLM compaction is cheaper than the deterministic path (${at.rewriteReason || "reductions due"}; expected saving ${at.decision.expectedSaving} input-token equivalents)`;
  }
  if (at.compactionInstead) return `${tokens} tokens after the rewrite: ${at.rewriteReason}`;
  if (at.needsCompaction) {
    return `${tokens} tokens > trigger ${limits.triggerTokens} after ${ran.join(", ")}: LLM compaction needed`;
  }
  if (ran.length === 0) return `${tokens} tokens <= trigger ${limits.triggerTokens}`;
  if (tokens > limits.triggerTokens) {
    return `${tokens} tokens > trigger ${limits.triggerTokens}, within limit ${limits.limitTokens}: ${at.rewriteReason}`;
  }
  return `${tokens} tokens <= trigger ${limits.triggerTokens} after ${ran.join(", ")}`;
}
