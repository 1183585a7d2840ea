import { type CompactionEvent, type ModelProfile, PROFILE_DEFAULTS } from "@longrun/protocol";
import type { Projection } from "./project.ts";

/**
 * A summary of the older prefix made in the background (off the step's path) before the context
 * reached the trigger. It covers exactly the facts before `cutoffMessageId`, on top of the compaction
 * in force when it was made; at the trigger it replaces the summary call when both still hold.
 */
export interface PreparedSummary {
  /** The compaction in force when it was made (null: none). */
  baseCompactionId: string | null;
  /** First fact the summary does not cover: the cut it is applied at. */
  cutoffMessageId: string;
  summaryText: string;
}

/** Pressure at which a background summary starts (a share of the trigger), or null when it never does. */
export function backgroundLineTokens(profile: Partial<ModelProfile>, triggerTokens: number): number | null {
  const ratio = profile.backgroundRatio ?? PROFILE_DEFAULTS.backgroundRatio;
  return ratio > 0 ? Math.floor(triggerTokens * ratio) : null;
}

/**
 * Before a thread's first compaction the line is at least this share of the compaction line: nothing
 * shows yet that the conversation will reach it, and a summary made for a conversation that ends first
 * is paid for and never used. Measured with `longrun replay` on the corpus (÷ the plain strategy, openai):
 * the transcripts that end before their first compaction cost 1.159× (16k), 1.151× and 1.022× (64k) with
 * the line at 0.6, and 1.000 at 0.8; pooled 0.893 → 0.893 (16k), 1.084 → 1.085 (8k), 0.908 → 0.909 (64k).
 * With the trigger at 66 % a 16,000-token window's sub-agent that peaks at ~8,600 crossed 0.8's line and
 * paid 1.131 × plain for a summary it never used; at 0.85 it pays 1.000, pooled unchanged to ±0.001 at
 * 16,000, 16,384 and 64k.
 */
const FIRST_BACKGROUND_RATIO = 0.85;

/**
 * Whether the request is where a background summary starts: it passed the line as it grew — the
 * profile's share of where the next compaction comes (Projection.compactionLineTokens: the trigger, or the cost
 * model's earlier line), a later one before the first compaction (FIRST_BACKGROUND_RATIO) — and no
 * compaction is due yet (that one runs in the foreground). Whether one was prepared already on the
 * compaction in force is the caller's to ask (preparedOnBase).
 */
export function shouldPrepareSummary(
  projection: Projection,
  profile: Partial<ModelProfile>,
  compaction: Pick<CompactionEvent, "id"> | null,
): boolean {
  if (projection.needsCompaction) return false;
  const lineTokens = projection.compactionLineTokens;
  const line = backgroundLineTokens(profile, lineTokens);
  if (line === null) return false;
  const firstLine = Math.max(line, Math.floor(lineTokens * FIRST_BACKGROUND_RATIO));
  return projection.continuation.tokens >= (compaction === null ? firstLine : line);
}

/** The prepared summary was made on the compaction now in force (else its prefix is another one). */
export function preparedOnBase(
  prepared: Pick<PreparedSummary, "baseCompactionId">,
  compaction: Pick<CompactionEvent, "id"> | null,
): boolean {
  return prepared.baseCompactionId === (compaction?.id ?? null);
}
