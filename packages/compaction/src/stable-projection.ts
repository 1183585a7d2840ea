import type { StageSavings } from "@longrun/protocol";
import { cheapestStart, chooseRewrite, dearRewrite, keptAsSent } from "./rewrite-policy.ts";
import {
  applyStage,
  asAssembled,
  clearFrom,
  defaultRewriteMinRoom,
  defaultRewriteMinTokens,
  firstRewritten,
  type MemoSegment,
  memoOf,
  type ProjectionMemo,
  type RewriteReport,
  resentTokens,
  savingsOf,
  stableSegments,
} from "./stable.ts";
import type { Thresholds } from "./thresholds.ts";
import { notRun, type ProjectionItem, type StageReport, type StageResult, type StageRuns } from "./types.ts";

/** What the cache-stable stages need from project(). */
export interface StableInput {
  /** The assembled, repaired raw part. */
  raw: readonly ProjectionItem[];
  /** What the previous call sent (null: nothing yet). */
  memo: ProjectionMemo | null;
  compactionId: string | null;
  limits: Thresholds;
  rewriteMinTokens: number | undefined;
  /** Pressure of the header plus these items; `credited`: tokens the stages removed since the usage. */
  measure: (items: readonly ProjectionItem[], credited: number) => number;
  /** The stages as a call runs them, and as a rewrite runs them (taking what would come due soon). */
  stageRun: StageRuns;
  horizonRun: StageRuns;
  /** Clears older tool results (the most recent stay): run past a rewrite's first change. */
  clearRun: (items: readonly ProjectionItem[]) => StageResult;
}

/** The raw part as the cache-stable stages left it, with the memo for the next call. */
export interface StableProjection {
  items: ProjectionItem[];
  tokens: number;
  saved: StageSavings;
  stages: StageReport[];
  memo: ProjectionMemo;
  rewrite: RewriteReport;
  /** Pressure after every reduction due, clearing past the first change included: what decides LLM compaction. */
  fullyReduced: number;
  /** A rewrite needed to fit would buy too little room, or too dearly: LLM compaction comes now. */
  compactionInstead: boolean;
  /**
   * The raw part as the cache last saw it (sent forms kept, new items as assembled) and its pressure:
   * what extends the previous request byte for byte, as a summary call continues it.
   */
  extension: { items: ProjectionItem[]; tokens: number };
}

const sumOf = (list: readonly MemoSegment[]) => list.reduce((sum, segment) => sum + segment.item.tokens, 0);

/**
 * Cache-stable mode (issue 17): messages keep the form they were sent in until the next compaction;
 * the reductions due are applied as one rewrite only when it pays or the request must fit (see
 * chooseRewrite), starting where it resends the fewest tokens per token saved (see cheapestStart);
 * past its first change it also clears older tool results (see clearFrom).
 */
export function stableProjection(input: StableInput): StableProjection {
  const { raw, limits, measure, stageRun, horizonRun } = input;
  const { segments: kept, intact, served } = stableSegments(raw, input.memo, input.compactionId);
  let segments: MemoSegment[] = kept;
  const stages: StageReport[] = [];
  // Usage is credited with what the reduced forms save against the raw items, as from scratch.
  const rawSum = raw.reduce((sum, item) => sum + item.tokens, 0);
  const keptTokens = sumOf(kept);
  /** Pressure of a form of the raw part, usage credited with what its reduced forms save. */
  const pressureOf = (list: readonly MemoSegment[]) =>
    measure(
      list.map((segment) => segment.item),
      rawSum - sumOf(list),
    );
  let tokens = pressureOf(kept);
  const extension = { items: kept.map((segment) => segment.item), tokens };
  let rewrite: RewriteReport = keptAsSent(intact, 0);
  /** Older results a rewrite cleared past its first change (null: none). */
  let cleared: StageReport | null = null;
  let fullyReduced = Number.POSITIVE_INFINITY;
  let compactionInstead = false;
  if (tokens > limits.triggerTokens) {
    /**
     * Both stages over `start` (reduced forms stay), even when collapse alone is enough: one batch
     * now spares a second rewrite soon. Segments before `keepBefore` keep their form as well.
     */
    const reduceFrom = (start: MemoSegment[], run: StageRuns, keepBefore = 0) => {
      let reduced = start;
      const reports: StageReport[] = [];
      let before = tokens;
      for (const name of ["collapse", "truncate"] as const) {
        const applied = applyStage(reduced, name, run[name], keepBefore);
        reduced = applied.segments;
        const measured = pressureOf(reduced);
        reports.push({
          name,
          tokensBefore: before,
          tokensAfter: measured,
          removed: applied.result.removed || "nothing to remove",
        });
        before = measured;
      }
      return { segments: reduced, tokens: before, reports };
    };
    let best = reduceFrom(kept, stageRun);
    let afresh = false;
    if (best.tokens > limits.triggerTokens && !kept.every((segment) => segment.stage === null)) {
      // Reduced forms kept from earlier calls may cost more than reducing afresh (records split in
      // batches): before asking for LLM compaction, try the from-scratch reduction.
      const scratch = reduceFrom(raw.map(asAssembled), stageRun);
      if (scratch.tokens < best.tokens) {
        best = scratch;
        afresh = true;
      }
    }
    // The seed's order: LLM compaction only when collapse, truncation and clearing together leave the
    // request over the trigger. A rewrite clears older results past its first change (see below),
    // so that clearing counts toward the decision too.
    /** A form with older results cleared past its first change (against what was sent). */
    const clearedPast = (form: { segments: MemoSegment[] }) =>
      clearFrom(form.segments, firstRewritten(kept, form.segments, served), input.clearRun);
    const bestCleared = clearedPast(best);
    fullyReduced = bestCleared.result.saved > 0 ? pressureOf(bestCleared.segments) : best.tokens;
    const minTokens = input.rewriteMinTokens ?? defaultRewriteMinTokens(limits);
    const { compactionInstead: instead, ...report } = chooseRewrite({
      tokens,
      reducedTokens: fullyReduced,
      dueTokens: keptTokens - sumOf(best.segments),
      afresh,
      intact,
      triggerTokens: limits.triggerTokens,
      limitTokens: limits.limitTokens,
      minTokens,
      minRoomTokens: defaultRewriteMinRoom(limits),
    });
    rewrite = report;
    compactionInstead = instead;
    let taken = best;
    if (rewrite.rewritten && rewrite.cause !== "compaction") {
      // A rewrite resends everything after its first change: it also takes what would come due
      // soon (whole runs, arguments up to the active loop), so the epoch needs fewer rewrites.
      // Not when LLM compaction is due: that decision stays the one the standard stages make
      // (taking more here would put it off with a rewrite; measured worse at 16k).
      const wide = reduceFrom(afresh ? raw.map(asAssembled) : kept, horizonRun);
      if (wide.tokens <= best.tokens) {
        taken = wide;
        rewrite.horizon = true;
      }
      if (!afresh) {
        // The oldest reductions due are the dearest: everything after them is resent. A rewrite
        // may leave messages before a later start as they were sent, when that resends fewer
        // tokens per token saved and still brings the request under the trigger.
        const least = rewrite.cause === "batch" ? minTokens : 0;
        const later = cheapestStart(kept, taken, {
          reduce: (keepBefore) => reduceFrom(kept, stageRun, keepBefore),
          fits: (candidate, saved) => saved >= least && candidate.tokens <= limits.triggerTokens,
          served,
        });
        if (later !== taken) {
          rewrite.reason += `; starts after ${firstRewritten(kept, later.segments)} messages kept as sent (fewer tokens resent per token saved)`;
          taken = later;
          rewrite.horizon = false;
        }
      }
    }
    if (rewrite.rewritten && rewrite.cause !== "compaction") {
      // Everything after the rewrite's first change (or an earlier change of the assembled history)
      // is resent: no cache serves the older tool results there either, so they are cleared as after
      // an idle gap (the most recent stay).
      // The decision above cleared the same form already when the rewrite takes it.
      const applied = taken === best ? bestCleared : clearedPast(taken);
      if (applied.result.saved > 0) {
        const after = pressureOf(applied.segments);
        cleared = {
          name: "microcompact",
          tokensBefore: taken.tokens,
          tokensAfter: after,
          removed: `${applied.result.removed} past the rewrite's first change`,
        };
        taken = { ...taken, segments: applied.segments, tokens: after };
      }
    }
    if (rewrite.rewritten) {
      segments = taken.segments;
      tokens = taken.tokens;
      rewrite.savedTokens = keptTokens - sumOf(taken.segments);
      rewrite.resentTokens = resentTokens(kept, taken.segments, served);
      if (rewrite.cause === "fit" && !compactionInstead) {
        const dear = dearRewrite(rewrite.resentTokens, limits.triggerTokens - tokens);
        if (dear !== null) {
          rewrite.reason += `; LLM compaction instead: ${dear}`;
          compactionInstead = true;
        }
      }
    }
    stages.push(...taken.reports);
  } else {
    stages.push(notRun("collapse", tokens), notRun("truncate", tokens));
  }
  let items = segments.map((segment) => segment.item);
  const saved = savingsOf(segments);
  const memo = memoOf(raw, segments, input.compactionId);
  // An idle gap clears old results on top of the stable form: the cache has expired by then.
  if (tokens > limits.triggerTokens) {
    const result = stageRun.microcompact(items);
    items = result.items;
    saved.microcompact += result.saved;
    const after = measure(items, rawSum - sumOf(segments) + result.saved);
    const removed = [cleared?.removed, result.removed].filter(Boolean).join("; ");
    stages.push({
      name: "microcompact",
      tokensBefore: cleared?.tokensBefore ?? tokens,
      tokensAfter: after,
      removed: removed || "nothing to remove",
    });
    tokens = after;
  } else {
    stages.push(cleared ?? notRun("microcompact", tokens));
  }
  return { items, tokens, saved, stages, memo, rewrite, fullyReduced, compactionInstead, extension };
}
