import { compactionNotices } from "./removed-ranges.ts";
import type { ThreadState } from "./thread-state.ts";

/** The one size of an agent's next request every view shows (card, gauge, chart), with its "as of". */
export interface TokenFigure {
  tokens: number;
  maxInputTokens: number | null;
  triggerTokens: number | null;
  /** `measured`: before the model call of `step`; `compacted`: right after a compaction, no call since. */
  source: "measured" | "compacted";
  step: number | null;
  at: number;
  /** Seq of the event it comes from. */
  seq: number;
}

/**
 * The newest of the agent's last measurement and last completed compaction (from events, or the
 * snapshot before the history is read): a /compact between turns changes the size with no measurement
 * after it, so a measurement alone would stay stale until the next step.
 */
export function tokenFigure(
  thread: Pick<ThreadState, "measurements" | "compactions" | "activity">,
  agentId: string,
): TokenFigure | null {
  const series = thread.measurements[agentId] ?? [];
  const measured = series[series.length - 1];
  const activity = thread.activity[agentId];
  let compacted = activity?.compacted ?? null;
  const notices = compactionNotices(thread, agentId);
  for (let index = notices.length - 1; index >= 0; index--) {
    const notice = notices[index];
    if (notice?.phase !== "completed" || notice.tokensAfter === undefined) continue;
    if (!compacted || notice.eventSeq > compacted.seq)
      compacted = { tokensAfter: notice.tokensAfter, seq: notice.eventSeq, at: notice.at };
    break;
  }
  const maxInputTokens = measured?.maxInputTokens ?? activity?.maxInputTokens ?? null;
  const triggerTokens = measured?.triggerTokens ?? null;
  if (compacted && (!measured || compacted.seq > measured.eventSeq)) {
    return {
      tokens: compacted.tokensAfter,
      maxInputTokens,
      triggerTokens,
      source: "compacted",
      step: measured?.step ?? activity?.step ?? null,
      at: compacted.at,
      seq: compacted.seq,
    };
  }
  if (measured) {
    return {
      tokens: measured.projectedTokens,
      maxInputTokens,
      triggerTokens,
      source: "measured",
      step: measured.step,
      at: measured.at,
      seq: measured.eventSeq,
    };
  }
  return null;
}

/** "as of step 87" or "after the compaction, no model call since". */
export function tokenFigureAsOf(figure: TokenFigure): string {
  return figure.source === "compacted"
    ? "after the compaction, no model call since"
    : figure.step === null
      ? "as measured"
      : `as of step ${figure.step}`;
}
